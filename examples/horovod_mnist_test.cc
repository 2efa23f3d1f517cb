// Seed 003's Horovod program (examples/horovod_mnist.cc) with two ranks
// under ember's launcher, where horovodrun would start it: rank 0 reports
// every epoch and the loss falls.

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace {

TEST(HorovodMnistTest, TwoRanksUnderTheLauncherLearn) {
  std::ifstream probe("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz");
  if (!probe.good()) GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  const std::string out_path = std::string(std::getenv("TEST_TMPDIR")) + "/out";
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    int fd = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    setenv("GLOO_SOCKET_IFNAME", "lo", 1);
    execl("distributed/launch", "distributed/launch", "--nproc_per_node=2", "--master_port=0",
          "examples/horovod_mnist", "--train_limit=1024", "--epochs=3", "--batch_size=32",
          static_cast<char*>(nullptr));
    _exit(126);
  }
  ASSERT_GT(pid, 0);
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (waitpid(pid, &status, WNOHANG) != pid) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      FAIL() << "the run did not finish in 120 s";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::stringstream ss;
  ss << std::ifstream(out_path).rdbuf();
  const std::string out = ss.str();
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
  std::vector<double> losses;
  std::regex line(R"(\[rank0\]: Epoch \d: mean training loss ([0-9.]+))");
  for (std::sregex_iterator it(out.begin(), out.end(), line), end; it != end; ++it) {
    losses.push_back(std::stod((*it)[1]));
  }
  ASSERT_EQ(losses.size(), 3u) << out;
  EXPECT_LT(losses[2], losses[0]) << out;
  EXPECT_LT(losses[2], 1.5) << out;  // chance is ln(10) = 2.30
  EXPECT_EQ(out.find("[rank1]: Epoch"), std::string::npos) << out;
}

}  // namespace
