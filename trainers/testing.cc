#include "trainers/testing.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "distributed/testing/multiprocess.h"

namespace ember {
namespace trainers {
namespace testing {

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

ProgramRun run_program(std::vector<std::string> args, std::chrono::seconds deadline_after) {
  const std::string dir = distributed::testing::make_temp_dir();
  const std::string out_path = dir + "/out";
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    int fd = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    setenv("GLOO_SOCKET_IFNAME", "lo", 1);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(126);
  }
  ProgramRun run;
  EXPECT_GT(pid, 0);
  if (pid <= 0) return run;
  setpgid(pid, pid);
  const auto deadline = std::chrono::steady_clock::now() + deadline_after;
  while (waitpid(pid, &run.status, WNOHANG) != pid) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(-pid, SIGKILL);
      waitpid(pid, &run.status, 0);
      ADD_FAILURE() << args[0] << " did not finish in " << deadline_after.count() << " s";
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  run.out = slurp(out_path);
  distributed::testing::remove_tree(dir);
  return run;
}

}  // namespace testing
}  // namespace trainers
}  // namespace ember
