#include "data/collate.h"

#include <gtest/gtest.h>

#include <vector>

#include "tensor/creation.h"
#include "tensor/cuda/cuda.h"
#include "tensor/math.h"

namespace ember {
namespace data {
namespace {

TEST(DefaultCollateTest, StacksTensors) {
  const Tensor b = DefaultCollate<Tensor>::collate({arange(3), arange(3) + 10});
  EXPECT_EQ(b.sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(b[1][2].item<int64_t>(), 12);
}

TEST(DefaultCollateTest, StacksDataAndTargets) {
  const Example<> b = DefaultCollate<Example<>>::collate(
      {{ones({2, 2}), tensor(int64_t{3})}, {zeros({2, 2}), tensor(int64_t{5})}});
  EXPECT_EQ(b.data.sizes(), (std::vector<int64_t>{2, 2, 2}));
  EXPECT_EQ(b.target.sizes(), (std::vector<int64_t>{2}));
  EXPECT_EQ(b.target[1].item<int64_t>(), 5);
  // No targets at all: the batch has none either.
  EXPECT_FALSE(DefaultCollate<Example<>>::collate({{ones({1}), Tensor()}}).target.defined());
}

TEST(DefaultCollateTest, Errors) {
  EXPECT_THROW(DefaultCollate<Tensor>::collate({}), Error);
  EXPECT_THROW(DefaultCollate<Tensor>::collate({arange(2), arange(3)}), Error);
  EXPECT_THROW(DefaultCollate<Example<>>::collate({{ones({1}), ones({1})}, {ones({1}), Tensor()}}),
               Error);
}

TEST(DefaultCollateTest, OtherTypesStayAVector) {
  const std::vector<int> b = DefaultCollate<int>::collate({4, 5});
  EXPECT_EQ(b, (std::vector<int>{4, 5}));
}

TEST(PinMemoryTest, PinsWithCudaAndFallsBackWithout) {
  const Tensor t = arange(6, kFloat).view({2, 3}).t();  // non-contiguous
  const Tensor p = pin_memory(t);
  EXPECT_EQ(is_pinned(p), cuda::is_available());
  if (cuda::is_available()) {
    EXPECT_TRUE(p.is_contiguous());
    EXPECT_EQ(p[2][1].item<float>(), t[2][1].item<float>());
    EXPECT_TRUE(pin_memory(p).is_same(p));  // already pinned
  } else {
    // Note [pin_memory without CUDA]: the tensor itself, in ordinary memory.
    EXPECT_TRUE(p.is_same(t));
  }
  EXPECT_FALSE(is_pinned(t));
  EXPECT_THROW(pin_memory(Tensor()), Error);
}

TEST(PinMemoryTest, PinBatchReachesEveryTensor) {
  std::vector<Example<>> batches{{ones({2}), ones({2})}, {zeros({1}), Tensor()}};
  pin_batch(batches);
  EXPECT_EQ(is_pinned(batches[0].data), cuda::is_available());
  EXPECT_EQ(is_pinned(batches[0].target), cuda::is_available());
  EXPECT_FALSE(batches[1].target.defined());
  EXPECT_TRUE((IsPinnable<std::vector<Tensor>>::value));
  EXPECT_FALSE((IsPinnable<std::vector<int>>::value));
}

}  // namespace
}  // namespace data
}  // namespace ember
