#ifndef EMBER_TRAINERS_TESTING_H_
#define EMBER_TRAINERS_TESTING_H_

// What the trainers' tests share (testonly): running a trainer binary as a
// user would, with a deadline, and reading a file back.

#include <chrono>
#include <string>
#include <vector>

namespace ember {
namespace trainers {
namespace testing {

struct ProgramRun {
  int status = 0;   // as waitpid reports it
  std::string out;  // stdout and stderr together
};

// Runs args[0] (a runfiles path) in its own process group with a deadline,
// killing the group (and failing the test) when it passes; gloo talks over
// loopback.
ProgramRun run_program(std::vector<std::string> args, std::chrono::seconds deadline_after);

// The contents of `path` ("" when it cannot be read).
std::string slurp(const std::string& path);

}  // namespace testing
}  // namespace trainers
}  // namespace ember

#endif  // EMBER_TRAINERS_TESTING_H_
