#ifndef EMBER_DISTRIBUTED_GLOO_TEST_UTIL_H_
#define EMBER_DISTRIBUTED_GLOO_TEST_UTIL_H_

// Test-only helpers of the ProcessGroupGloo tests (testonly).

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "distributed/process_group_gloo.h"
#include "distributed/store.h"
#include "tensor/tensor.h"

namespace ember::distributed::testing {

// The store of the gloo tests: a FileStore at <dir>/store (works across
// forked processes and network namespaces, needs no port).
std::shared_ptr<Store> make_store(const std::string& dir);

// A group of `size` ranks over make_store(dir), bound to 127.0.0.1.
std::shared_ptr<ProcessGroupGloo> make_group(const std::string& dir, int rank, int size,
                                             ProcessGroupGloo::Options options = {});

// Runs fn(rank, size) in `size` processes, each a member of a freshly
// initialized default gloo group (init_process_group over a file:// store
// in a new folder, on loopback, with a 20 s group timeout) that is
// destroyed after fn, and expects every process to succeed within
// `timeout`.
void run_world(int size, const std::function<void(int rank, int size)>& fn,
               std::chrono::milliseconds timeout = std::chrono::seconds(60));

// Whether this machine lets a process create a POSIX shared-memory segment
// (the same-host all-reduce needs one); tests of that path skip otherwise.
bool shared_memory_usable();

// Elementwise equality of value and dtype, with a message naming the first
// difference (for EXPECT_TRUE in the children).
::testing::AssertionResult tensors_equal(const Tensor& actual, const Tensor& expected);

// Runs every collective and point-to-point op on `pg` (all ranks call it)
// and checks the results with gtest assertions (gloo_collective_checks.cc).
void check_every_op(ProcessGroupGloo& pg);

}  // namespace ember::distributed::testing

#endif  // EMBER_DISTRIBUTED_GLOO_TEST_UTIL_H_
