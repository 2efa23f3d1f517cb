// compute_bucket_assignment_by_size against PyTorch's
// dist._compute_bucket_assignment_by_size (tools/golden/ddp_buckets.py).
// The reducer itself runs between processes in ddp_test.cc.

#include "distributed/reducer.h"

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tensor/creation.h"
#include "tensor/empty.h"

namespace ember::distributed {
namespace {

struct BucketCase {
  std::string name;
  std::vector<ScalarType> dtypes;
  std::vector<int64_t> numels;
  std::vector<int64_t> limits;
  std::vector<size_t> tensor_indices;
  std::vector<std::vector<size_t>> buckets;
  std::vector<int64_t> bucket_limits;
};

const std::vector<BucketCase>& cases() {
  static const std::vector<BucketCase> kCases = {
#include "distributed/testdata/ddp_buckets_golden.inc"
  };
  return kCases;
}

TEST(BucketAssignmentTest, MatchesPyTorch) {
  ASSERT_EQ(cases().size(), 6u);
  for (const BucketCase& c : cases()) {
    SCOPED_TRACE(c.name);
    std::vector<Tensor> tensors;
    for (size_t i = 0; i < c.numels.size(); ++i) {
      tensors.push_back(empty({c.numels[i]}, c.dtypes[i]));
    }
    BucketAssignment got = compute_bucket_assignment_by_size(tensors, c.limits, c.tensor_indices);
    EXPECT_EQ(got.buckets, c.buckets);
    EXPECT_EQ(got.size_limits, c.bucket_limits);
  }
}

TEST(BucketAssignmentTest, BadArguments) {
  std::vector<Tensor> tensors{empty({4}), empty({4})};
  EXPECT_THROW(compute_bucket_assignment_by_size(tensors, {}), Error);
  EXPECT_THROW(compute_bucket_assignment_by_size(tensors, {1024}, {0}), Error);
}

TEST(BucketAssignmentTest, NoTensorsNoBuckets) {
  BucketAssignment got = compute_bucket_assignment_by_size({}, {1024});
  EXPECT_TRUE(got.buckets.empty());
  EXPECT_TRUE(got.size_limits.empty());
}

}  // namespace
}  // namespace ember::distributed
