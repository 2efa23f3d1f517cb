#ifndef EMBER_DISTRIBUTED_GLOO_TEST_UTIL_H_
#define EMBER_DISTRIBUTED_GLOO_TEST_UTIL_H_

// Test-only helpers of the ProcessGroupGloo tests (testonly).
//
// DirStore: a Store over a directory, one file per key (written to a
// temporary name and renamed, so readers never see half a value; add() holds
// an flock). It works across forked processes and across network namespaces,
// needs no port, and lets the gloo tests run without the TCP/file stores of
// //distributed:tcp_store and :file_store.

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "distributed/process_group_gloo.h"
#include "distributed/store.h"
#include "tensor/tensor.h"

namespace ember::distributed::testing {

class DirStore : public Store {
 public:
  explicit DirStore(std::string dir, std::chrono::milliseconds timeout = std::chrono::seconds(30));

  using Store::set;
  using Store::wait;
  void set(const std::string& key, const std::vector<uint8_t>& value) override;
  std::vector<uint8_t> get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t value) override;
  std::vector<uint8_t> compare_set(const std::string& key, const std::vector<uint8_t>& expected,
                                   const std::vector<uint8_t>& desired) override;
  bool check(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;
  bool delete_key(const std::string& key) override;
  int64_t num_keys() override;

 private:
  std::string path(const std::string& key) const;
  bool read(const std::string& key, std::vector<uint8_t>* out) const;
  std::string dir_;
};

// A group of `size` ranks over a DirStore in `dir`, bound to 127.0.0.1.
std::shared_ptr<ProcessGroupGloo> make_group(const std::string& dir, int rank, int size,
                                             ProcessGroupGloo::Options options = {});

// Elementwise equality of value and dtype, with a message naming the first
// difference (for EXPECT_TRUE in the children).
::testing::AssertionResult tensors_equal(const Tensor& actual, const Tensor& expected);

// Runs every collective and point-to-point op on `pg` (all ranks call it)
// and checks the results with gtest assertions (gloo_collective_checks.cc).
void check_every_op(ProcessGroupGloo& pg);

}  // namespace ember::distributed::testing

#endif  // EMBER_DISTRIBUTED_GLOO_TEST_UTIL_H_
