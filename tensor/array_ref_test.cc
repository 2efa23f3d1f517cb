// IntArrayRef (Note [IntArrayRef]): what it converts from, its accessors,
// its printed form, and libtorch's one-integer spellings of size and dim
// lists (`ember::randn(3)`, `x.sum(0)`, `x.view(-1)`), checked against
// PyTorch 1.13's values.

#include "tensor/array_ref.h"

#include <array>
#include <sstream>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "absl/types/span.h"
#include "tensor/all.h"

namespace ember {
namespace {

// A floating or bool argument is not a size (libtorch would convert it).
static_assert(std::is_convertible<int, IntArrayRef>::value, "one int is a one-element list");
static_assert(std::is_convertible<int64_t, IntArrayRef>::value, "");
static_assert(!std::is_convertible<double, IntArrayRef>::value, "2.5 is not a size");
static_assert(!std::is_convertible<bool, IntArrayRef>::value, "true is not a size");
static_assert(std::is_trivially_copyable<IntArrayRef>::value, "passed by value like a Span");

std::string printed(IntArrayRef r) {
  std::ostringstream ss;
  ss << r;
  return ss.str();
}

std::vector<int64_t> as_vector(IntArrayRef r) { return r.vec(); }

TEST(IntArrayRefTest, ConvertsFromWhatSpanDidAndFromOneInteger) {
  const std::vector<int64_t> v = {2, 3, 4};
  const DimVector d = {5, 6};
  const std::array<int64_t, 2> a = {7, 8};
  const int64_t c[3] = {9, 10, 11};
  absl::Span<const int64_t> s(v);
  EXPECT_EQ(as_vector(v), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(as_vector(d), (std::vector<int64_t>{5, 6}));
  EXPECT_EQ(as_vector(a), (std::vector<int64_t>{7, 8}));
  EXPECT_EQ(as_vector(c), (std::vector<int64_t>{9, 10, 11}));
  EXPECT_EQ(as_vector(s), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(as_vector({1, 2}), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(as_vector({}), std::vector<int64_t>{});
  EXPECT_EQ(as_vector(IntArrayRef(v.data(), 2)), (std::vector<int64_t>{2, 3}));
  // One integer is a one-element list, as c10::ArrayRef's.
  EXPECT_EQ(as_vector(3), std::vector<int64_t>{3});
  const int64_t n = -1;
  EXPECT_EQ(as_vector(n), std::vector<int64_t>{-1});
  // {4} stays the braced list (never one-element-of-a-list confusion).
  EXPECT_EQ(IntArrayRef({4}).size(), 1u);
  EXPECT_EQ(IntArrayRef({4})[0], 4);
  // And it converts back to an absl::Span.
  absl::Span<const int64_t> back = IntArrayRef(v);
  EXPECT_EQ(back.size(), 3u);
  EXPECT_EQ(back.data(), v.data());
}

TEST(IntArrayRefTest, AccessorsSlicesAndEquality) {
  const std::vector<int64_t> v = {2, 3, 4, 5};
  IntArrayRef r(v);
  EXPECT_EQ(r.size(), 4u);
  EXPECT_FALSE(r.empty());
  EXPECT_EQ(r.front(), 2);
  EXPECT_EQ(r.back(), 5);
  EXPECT_EQ(r[2], 4);
  EXPECT_EQ(r.at(3), 5);
  EXPECT_THROW(r.at(4), IndexError);
  EXPECT_EQ(as_vector(r.subspan(1)), (std::vector<int64_t>{3, 4, 5}));
  EXPECT_EQ(as_vector(r.subspan(1, 2)), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(as_vector(r.subspan(2, 100)), (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(as_vector(r.first(1)), std::vector<int64_t>{2});
  EXPECT_EQ(as_vector(r.last(2)), (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(as_vector(r.slice(1, 2)), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(as_vector(r.slice(3)), std::vector<int64_t>{5});
  EXPECT_EQ(std::vector<int64_t>(r.rbegin(), r.rend()), (std::vector<int64_t>{5, 4, 3, 2}));
  EXPECT_TRUE(r == v);
  EXPECT_TRUE(r == IntArrayRef({2, 3, 4, 5}));
  EXPECT_TRUE(r != IntArrayRef({2, 3, 4}));
  EXPECT_TRUE(r.equals({2, 3, 4, 5}));
  EXPECT_TRUE(DimVector({2, 3, 4, 5}) == r);
  EXPECT_FALSE(r == IntArrayRef({2, 3, 4, 6}));
}

// libtorch prints sizes() as [2, 3].
TEST(IntArrayRefTest, PrintsAsLibtorch) {
  EXPECT_EQ(printed(zeros({2, 3}).sizes()), "[2, 3]");
  EXPECT_EQ(printed({}), "[]");
  EXPECT_EQ(printed(5), "[5]");
  EXPECT_EQ(printed(zeros({4, 1}).strides()), "[1, 1]");
}

TEST(IntArrayRefTest, OneIntegerSizesOfTheFactories) {
  EXPECT_EQ(randn(3).sizes(), IntArrayRef({3}));
  const int64_t n = 4;
  Tensor z = zeros(n, kLong);
  EXPECT_EQ(z.sizes(), IntArrayRef({4}));
  EXPECT_EQ(z.dtype(), kLong);
  EXPECT_EQ(zeros(n, TensorOptions(kDouble)).dtype(), kDouble);
  EXPECT_EQ(empty(2).sizes(), IntArrayRef({2}));
  EXPECT_EQ(ones(5).sum().item<float>(), 5.0f);
  EXPECT_EQ(full(3, 2.5).sum().item<double>(), 7.5);
  EXPECT_EQ(rand(6).numel(), 6);

  // randint(high, size) and randint(low, high, size): int64, in range.
  Tensor r = randint(5, {3});
  EXPECT_EQ(r.dtype(), kLong);
  EXPECT_EQ(r.sizes(), IntArrayRef({3}));
  EXPECT_TRUE(r.ge(0).all().item<bool>() && r.lt(5).all().item<bool>());
  Tensor r2 = randint(2, 7, {400});
  EXPECT_EQ(r2.min().item<int64_t>(), 2);
  EXPECT_EQ(r2.max().item<int64_t>(), 6);
  EXPECT_EQ(randint(5, 8).sizes(), IntArrayRef({8}));
  EXPECT_EQ(randint(2, 7, 8).sizes(), IntArrayRef({8}));
}

TEST(IntArrayRefTest, OneIntegerDimsOfTheMethods) {
  const Tensor x = arange(6.0, TensorOptions(kDouble)).view({2, 3});
  // x.sum(0): [3, 5, 7]; x.norm(2, 1): [2.2361, 7.0711] (PyTorch 1.13).
  EXPECT_TRUE(x.sum(0).equal(tensor({3.0, 5.0, 7.0}, kDouble)));
  EXPECT_TRUE(sum(x, 1).equal(tensor({3.0, 12.0}, kDouble)));
  EXPECT_TRUE(x.sum(1, /*keepdim=*/true).equal(tensor({{3.0}, {12.0}}, kDouble)));
  EXPECT_TRUE(x.mean(0).equal(tensor({1.5, 2.5, 3.5}, kDouble)));
  EXPECT_TRUE(
      x.norm(2, 1).allclose(tensor({2.2360680103302, 7.071067810058594}, kDouble), 1e-6));
  EXPECT_EQ(x.view(-1).sizes(), IntArrayRef({6}));
  EXPECT_EQ(x.reshape(-1).sizes(), IntArrayRef({6}));
  EXPECT_EQ(reshape(x, 6).sizes(), IntArrayRef({6}));
  EXPECT_TRUE(x.flip(0).select(0, 0).equal(tensor({3.0, 4.0, 5.0}, kDouble)));
  EXPECT_EQ(x.amax(1).sizes(), IntArrayRef({2}));
  // std(0) is over dim 0 (not unbiased=false, libtorch's bool pitfall).
  EXPECT_TRUE(x.std(0).allclose(full({3}, 2.1213203435596424, kDouble)));
  EXPECT_THROW(x.view(5), Error);
}

}  // namespace
}  // namespace ember
