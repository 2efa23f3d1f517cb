// Python-style indexing against PyTorch 1.13 (tools/golden/indexing.py).

#include "tensor/indexing.h"

#include <gtest/gtest.h>

#include <string>

#include "tensor/creation.h"
#include "tensor/empty.h"
#include "tensor/math.h"
#include "tensor/selection.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using ::ember::testing::find_golden;
using ::ember::testing::GoldenEntry;
using ::ember::testing::GoldenError;
using ::ember::testing::matches_golden;
using ::ember::testing::shares_storage;
using namespace ::ember::indexing;  // NOLINT: Slice, None, Ellipsis read like Python

const GoldenEntry kGolden[] = {
#include "tensor/testdata/indexing_golden.inc"
};

const GoldenError kErrors[] = {
#include "tensor/testdata/indexing_errors_golden.inc"
};

Tensor in(const std::string& name) {
  return testing::golden_tensor(find_golden(kGolden, "in_" + name));
}

#define EXPECT_GOLDEN(t, name) EXPECT_TRUE(matches_golden((t), find_golden(kGolden, name)))

void expect_error(const std::string& name, const std::function<void()>& f) {
  testing::expect_golden_error(kErrors, name, f);
}

// x[mask] with a bool mask of x's shape takes masked_select's one pass on
// the CPU; it must give what the coordinates of the mask gather.
TEST(IndexingTest, FullShapeBoolMaskMatchesItsCoordinates) {
  const Tensor x = arange(24.).view({2, 3, 4});
  for (const Tensor& self : {x, x.transpose(0, 2), x.to(kBFloat16).slice(2, 0, 4, 2)}) {
    for (int64_t m : {2, 3, 1000}) {
      const Tensor mask = arange(self.numel()).view(self.sizes()).remainder(m).eq(0);
      const std::vector<Tensor> coords = where(mask);
      const Tensor want = index(self, coords);
      const Tensor got = self.index({mask});
      EXPECT_EQ(got.sizes(), want.sizes());
      EXPECT_TRUE(got.equal(want));
    }
  }
  EXPECT_EQ(x.index({x.gt(100.)}).sizes(), IntArrayRef({0}));
}

TEST(IndexingTest, IntegersSlicesNoneEllipsis) {
  Tensor a = in("a");
  EXPECT_GOLDEN(a.index({1}), "a_1");
  EXPECT_GOLDEN(a[1], "a_1");
  EXPECT_GOLDEN(a.index({-1, 2}), "a_m1_2");
  EXPECT_GOLDEN(a.index({Slice(), 1}), "a_all_1");
  EXPECT_GOLDEN(a.index({"...", Slice(1, 3)}), "a_ellipsis_1to3");
  EXPECT_GOLDEN(a.index({None, 1, None}), "a_none_1_none");
  EXPECT_GOLDEN(a.index({0, Ellipsis, Slice(None, None, 2)}), "a_0_ellipsis_step2");
  EXPECT_GOLDEN(a.index({Slice(), Slice(-2, None), Slice(1, None, 2)}), "a_all_m2_1step2");
  EXPECT_GOLDEN(a.index({Slice(-10, 10), Slice(5, 1)}), "a_clamped_slice");
  EXPECT_GOLDEN(in("x").index({Slice(), 1}), "x_all_1");
}

TEST(IndexingTest, BoolScalarsAndZeroDimTensors) {
  Tensor a = in("a");
  EXPECT_GOLDEN(a.index({true}), "a_true");
  EXPECT_GOLDEN(a.index({false}), "a_false");
  EXPECT_GOLDEN(a.index({tensor(1)}), "a_0dim_int_tensor");
  EXPECT_TRUE(shares_storage(a.index({tensor(1)}), a));  // a 0-dim int tensor selects
  EXPECT_GOLDEN(a.index({true, tensor({1, 0})}), "a_true_idx");
}

TEST(IndexingTest, BasicIndexingGivesViews) {
  Tensor a = in("a");
  Tensor v = a.index({Slice(), 1});
  EXPECT_TRUE(shares_storage(v, a));
  v.fill_(-1);
  EXPECT_EQ(a.index({1, 1, 3}).item<int64_t>(), -1);
  Tensor e = a.index({"..."});
  EXPECT_FALSE(e.is_same(a));
  EXPECT_TRUE(shares_storage(e, a));
  EXPECT_TRUE(shares_storage(a.index({None, Slice(None, None, 2)}), a));
}

TEST(IndexingTest, AdvancedIndexingCopies) {
  Tensor a = in("a");
  Tensor r = a.index({tensor({1, 0, 1})});
  EXPECT_GOLDEN(r, "a_idx");
  EXPECT_FALSE(shares_storage(r, a));
  EXPECT_GOLDEN(a.index({Slice(), tensor({2, 0})}), "a_all_idx");
  EXPECT_GOLDEN(a.index({Ellipsis, tensor({-1, 0})}), "a_negative_idx");
  EXPECT_GOLDEN(a.index({tensor({{0}, {1}}), tensor({2, 0, 1})}), "a_bcast_idx");
  EXPECT_GOLDEN(a.transpose(0, 2).index({tensor({1, 3})}), "a_transposed_idx");
}

TEST(IndexingTest, WhereTheIndexedDimsGo) {
  Tensor a = in("a");
  // Separated by a slice: the broadcast index dims go first.
  EXPECT_GOLDEN(a.index({tensor({0, 1}), Slice(), tensor({1, 2})}), "a_separated");
  // Adjacent: they stay in place.
  EXPECT_GOLDEN(a.index({Slice(), tensor({0, 1}), tensor({1, 2})}), "a_adjacent");
  // Integers select first, so they never separate index tensors.
  EXPECT_GOLDEN(a.index({Slice(), tensor({{0, 1}}), 1}), "a_2d_idx_int");
  EXPECT_GOLDEN(a.index({1, Slice(), tensor({0, 1})}), "a_int_slice_idx");
  EXPECT_GOLDEN(a.index({tensor(1), Slice(), tensor({0, 1})}), "a_0dim_slice_idx");
  EXPECT_GOLDEN(a.index({None, tensor(1), Slice(), tensor({0, 1})}), "a_none_0dim_slice_idx");
}

TEST(IndexingTest, BooleanMasks) {
  Tensor a = in("a");
  EXPECT_GOLDEN(a.index({a > 10}), "a_mask_gt");
  EXPECT_GOLDEN(a[a > 10], "a_mask_gt");
  EXPECT_GOLDEN(a.index({Slice(), tensor({true, false, true})}), "a_mask_dim1");
  EXPECT_GOLDEN(a.index({tensor({{true, false, true}, {false, false, true}})}), "a_mask_2d");
  Tensor x = in("x");
  EXPECT_GOLDEN(x[x > 0.5], "x_mask_gt");  // the seed tutorial's x[x > 0.5]
  EXPECT_GOLDEN(x[tensor({false, true})], "x_bool_tensor_idx");
}

TEST(IndexPutTest, AdvancedIndices) {
  Tensor b = in("a").clone();
  b.index_put_({b > 10}, 0);
  EXPECT_GOLDEN(b, "put_mask_scalar");
  b = in("a").clone();
  b.index_put_({tensor({0, 1}), Slice(), tensor({1, 2})}, tensor({100, 200, 300}));
  EXPECT_GOLDEN(b, "put_separated_bcast");
  b = in("a").clone();
  b.index_put_({tensor({1, 1}), tensor({0, 2})}, tensor({-5, -6, -7, -8}));
  EXPECT_GOLDEN(b, "put_adv_rows");
  b = in("a").clone();
  b.index_put_({Slice(), tensor({true, false, true}), 3}, 50);
  EXPECT_GOLDEN(b, "put_mask_and_int");
  Tensor x = in("x").clone();
  x.index_put_({x > 0.5}, tensor(1.0));
  EXPECT_GOLDEN(x, "put_x_mask_tensor");
  Tensor h = zeros({3, 2}, kHalf);
  h.index_put_({tensor({2, 0})}, tensor({1.5, -2.}, kHalf));
  EXPECT_GOLDEN(h, "put_half_rows");
}

TEST(IndexPutTest, ViewsCopyWithBroadcastAndCast) {
  Tensor b = in("a").clone();
  b.index_put_({Slice(), 1}, tensor({7, 8, 9, 10}));
  EXPECT_GOLDEN(b, "put_view_bcast");
  b = in("a").clone();
  b.index_put_({"...", 0}, -1);
  EXPECT_GOLDEN(b, "put_view_scalar");
  b = in("a").clone();
  b.index_put_({0}, full({1, 3, 4}, 5));
  EXPECT_GOLDEN(b, "put_leading_ones");
  b = in("a").clone();
  b.index_put_({Slice(), 0}, tensor(2.7));
  EXPECT_GOLDEN(b, "put_view_casts");
}

TEST(IndexPutTest, Accumulate) {
  Tensor z = zeros({5});
  index_put_(z, {tensor({0, 0, 2})}, tensor({1., 2., 3.}), /*accumulate=*/true);
  EXPECT_GOLDEN(z, "put_accumulate");
}

TEST(IndexingTest, SeedShapes) {
  // The tutorial's a = torch.rand(4, 3, 28, 28) slicing shapes.
  Tensor a = zeros({4, 3, 28, 28});
  auto shape = [](const Tensor& t) { return std::vector<int64_t>(t.sizes().begin(), t.sizes().end()); };
  EXPECT_EQ(shape(a.index({0, 0})), (std::vector<int64_t>{28, 28}));
  EXPECT_EQ(a.index({0, 0, 2, 4}).dim(), 0);
  EXPECT_EQ(shape(a.index({Slice(None, 2)})), (std::vector<int64_t>{2, 3, 28, 28}));
  EXPECT_EQ(shape(a.index({Slice(None, 2), Slice(None, 2), Slice(), Slice()})),
            (std::vector<int64_t>{2, 2, 28, 28}));
  EXPECT_EQ(shape(a.index({Slice(None, 2), Slice(-1, None), Slice(), Slice()})),
            (std::vector<int64_t>{2, 1, 28, 28}));
  EXPECT_EQ(shape(a.index({"..."})), (std::vector<int64_t>{4, 3, 28, 28}));
  EXPECT_EQ(shape(a.index({0, "..."})), (std::vector<int64_t>{3, 28, 28}));
  EXPECT_EQ(shape(a.index({Slice(), 1, "..."})), (std::vector<int64_t>{4, 28, 28}));
  EXPECT_EQ(shape(a.index({"...", Slice(None, 2)})), (std::vector<int64_t>{4, 3, 28, 2}));
}

TEST(IndexingTest, LargeAdvancedIndexRunsInParallel) {
  const int64_t n = 100000;
  Tensor a = arange(2 * n).view({n, 2});
  Tensor r = a.index({Slice(), tensor({1})});
  ASSERT_EQ(r.size(0), n);
  EXPECT_EQ(r.index({n - 1, 0}).item<int64_t>(), 2 * n - 1);
  Tensor m = a.index({a.remainder(2).eq(0)});
  EXPECT_EQ(m.numel(), n);
  EXPECT_EQ(m.index({n - 1}).item<int64_t>(), 2 * n - 2);
}

TEST(IndexingErrorTest, Messages) {
  Tensor x = arange(6.).view({2, 3});
  expect_error("int_out_of_bounds", [&] { x.index({5}); });
  expect_error("int_out_of_bounds_dim1", [&] { x.index({Slice(), 3}); });
  expect_error("none_then_int", [&] { x.index({None, 5}); });
  expect_error("negative_step", [&] { x.index({Slice(None, None, -1)}); });
  expect_error("too_many", [&] { x.index({0, 0, 0}); });
  expect_error("zero_dim", [&] { tensor(3.).index({0}); });
  expect_error("tensor_out_of_bounds", [&] { x.index({tensor({5})}); });
  expect_error("tensor_out_of_bounds_dim1", [&] { x.index({tensor({0, 1}), tensor({0, 3})}); });
  expect_error("float_index", [&] { x.index({tensor({1.})}); });
  expect_error("int32_index", [&] { x.index({tensor({1}, kInt)}); });
  expect_error("mask_shape", [&] { x.index({ones({3}, kBool)}); });
  expect_error("mask_shape_dim1", [&] { x.index({Slice(), tensor({true, false})}); });
  expect_error("bcast_indices", [&] { x.index({tensor({0, 1}), tensor({0, 1, 2})}); });
  expect_error("put_value_shape", [&] { x.clone().index_put_({tensor({0})}, ones({4})); });
  expect_error("put_dtype", [&] {
    arange(6).view({2, 3}).index_put_({tensor({1})}, tensor({9}, kInt));
  });
  expect_error("put_view_shape", [&] { x.clone().index_put_({Slice(), 1}, ones({3})); });
  EXPECT_THROW(TensorIndex("..x"), Error);
}

}  // namespace
}  // namespace ember
