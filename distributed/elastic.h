#ifndef EMBER_DISTRIBUTED_ELASTIC_H_
#define EMBER_DISTRIBUTED_ELASTIC_H_

// torch.distributed.elastic's @record for C++ programs. torchrun (and
// ember's launcher) give each worker TORCHELASTIC_ERROR_FILE; a worker that
// dies of an exception writes its message there, and the launcher's
// failure summary shows it instead of "error_file: <N/A>":
//
//   int main(int argc, char** argv) {
//     return ember::distributed::record([&] { ...; return 0; });
//   }
//
// The file is torch.distributed.elastic's JSON:
//   {"message": {"message": "ember::Error: ...",
//                "extraInfo": {"py_callstack": "...", "timestamp": "1700000000"}}}

#include <exception>
#include <functional>
#include <string>

namespace ember::distributed {

// Runs `body`; an exception escaping it is written to the error file (when
// TORCHELASTIC_ERROR_FILE is set), printed to stderr as "<program>:
// <message>", and becomes exit code 1.
int record(const std::function<int()>& body, const std::string& program = "error");

// Writes `e` to TORCHELASTIC_ERROR_FILE (nothing when it is unset). Returns
// whether a file was written.
bool write_error_file(const std::exception& e);

// The message the error file of `path` holds, or "" when it cannot be read.
std::string read_error_file(const std::string& path);

}  // namespace ember::distributed

#endif  // EMBER_DISTRIBUTED_ELASTIC_H_
