// torch.distributed.elastic's error file (elastic.h), Slurm's hostlists and
// env:// rendezvous from Slurm's variables alone (slurm.h).
#include "distributed/elastic.h"

#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "distributed/init.h"
#include "distributed/slurm.h"
#include "distributed/testing/multiprocess.h"
#include "tensor/error.h"

namespace ember::distributed {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(ElasticTest, RecordWritesTorchElasticsErrorFile) {
  const std::string dir = testing::make_temp_dir();
  const std::string path = dir + "/error.json";
  setenv("TORCHELASTIC_ERROR_FILE", path.c_str(), 1);
  const int code = record([]() -> int { throw ValueError("bad \"value\" 42"); }, "trainer");
  unsetenv("TORCHELASTIC_ERROR_FILE");
  EXPECT_EQ(code, 1);
  const std::string json = slurp(path);
  EXPECT_EQ(json.rfind("{\"message\": {\"message\": \"ember::ValueError: bad \\\"value\\\" 42\", "
                       "\"extraInfo\": {\"py_callstack\": ",
                       0),
            0u)
      << json;
  EXPECT_NE(json.find("\"timestamp\": \""), std::string::npos) << json;
  EXPECT_EQ(read_error_file(path), "ember::ValueError: bad \"value\" 42");
  // Success writes nothing; without the variable nothing is written.
  EXPECT_EQ(record([] { return 3; }), 3);
  EXPECT_EQ(read_error_file(dir + "/none.json"), "");
  testing::remove_tree(dir);
}

TEST(SlurmTest, HostlistsExpandAsSlurmWrites) {
  EXPECT_EQ(expand_hostlist("node[01-03,07],gpu3"),
            (std::vector<std::string>{"node01", "node02", "node03", "node07", "gpu3"}));
  EXPECT_EQ(expand_hostlist("r[1-2]n[8-9]"),
            (std::vector<std::string>{"r1n8", "r1n9", "r2n8", "r2n9"}));
  EXPECT_EQ(expand_hostlist("a,b[9-10]-ib"),
            (std::vector<std::string>{"a", "b9-ib", "b10-ib"}));
  EXPECT_EQ(expand_hostlist("127.0.0.1"), (std::vector<std::string>{"127.0.0.1"}));
  EXPECT_THROW(expand_hostlist("node[1-"), ValueError);
  EXPECT_THROW(expand_hostlist("node[3-1]"), ValueError);
  EXPECT_THROW(expand_hostlist("a,,b"), ValueError);
}

// A port in Slurm's derived range [15000, 25000) that is free now.
int free_slurm_port() {
  for (int port = 15000 + getpid() % 9000; port < 25000; ++port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const bool ok = bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
    close(fd);
    if (ok) return port;
  }
  return -1;
}

// Note [Slurm without a launcher]: `srun -n 3 ./trainer` sets no RANK,
// WORLD_SIZE, MASTER_ADDR or MASTER_PORT; init_process_group finds them in
// Slurm's variables.
TEST(SlurmTest, EnvRendezvousFromSlurmVariablesAlone) {
  const int port = free_slurm_port();
  ASSERT_GT(port, 0);
  const std::string job = std::to_string(900000 + (port - 15000));
  auto results = testing::run_processes(
      3,
      [&](int task) {
        for (const char* v : {"RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"}) unsetenv(v);
        setenv("SLURM_PROCID", std::to_string(task).c_str(), 1);
        setenv("SLURM_NTASKS", "3", 1);
        setenv("SLURM_LOCALID", std::to_string(task).c_str(), 1);
        setenv("SLURM_JOB_NODELIST", "localhost", 1);
        setenv("SLURM_JOB_ID", job.c_str(), 1);
        const SlurmEnv e = slurm_env();
        EXPECT_EQ(e.master_port, port);
        EXPECT_EQ(e.master_addr, "localhost");
        InitOptions o;
        o.timeout = std::chrono::seconds(20);
        init_process_group("gloo", o);
        EXPECT_EQ(get_rank(), task);
        EXPECT_EQ(get_world_size(), 3);
        get_default_group()->barrier()->wait();
        destroy_process_group();
      },
      std::chrono::seconds(40));
  EXPECT_TRUE(testing::all_succeeded(results));
}

}  // namespace
}  // namespace ember::distributed
