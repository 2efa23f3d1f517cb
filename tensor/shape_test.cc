// Tests for views, joining, splitting and the data-rearranging shape ops
// against PyTorch 1.13 (tools/golden/shape.py writes testdata/shape_golden.inc).

#include "tensor/shape.h"

#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "tensor/empty.h"
#include "tensor/parallel.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using testing::find_golden;
using testing::GoldenEntry;
using testing::GoldenError;
using testing::shares_storage;
using testing::values_of;

const GoldenEntry kGolden[] = {
#include "tensor/testdata/shape_golden.inc"
};

const GoldenError kGoldenErrors[] = {
#include "tensor/testdata/shape_errors_golden.inc"
};

const GoldenEntry& Find(const std::string& name) { return find_golden(kGolden, name); }

// mk() in tools/golden/golden_util.py.
Tensor In(std::vector<int64_t> shape, ScalarType dtype = kFloat) {
  return testing::make_input(shape, dtype);
}

void ExpectValues(const std::string& name, const Tensor& t) {
  SCOPED_TRACE(name);
  const GoldenEntry& g = Find(name);
  EXPECT_EQ(std::vector<int64_t>(t.sizes().begin(), t.sizes().end()), g.sizes);
  EXPECT_EQ(t.dtype(), g.dtype);
  EXPECT_EQ(values_of(t), g.values);
}

// Values plus strides, storage offset and is_contiguous.
void ExpectView(const std::string& name, const Tensor& t) {
  ExpectValues(name, t);
  SCOPED_TRACE(name);
  std::vector<double> geom(t.strides().begin(), t.strides().end());
  geom.push_back(static_cast<double>(t.storage_offset()));
  geom.push_back(t.is_contiguous() ? 1 : 0);
  EXPECT_EQ(geom, Find(name + ":geom").values);
}

void ExpectPieces(const std::string& name, const std::vector<Tensor>& pieces) {
  ASSERT_EQ(static_cast<double>(pieces.size()), Find(name + ":count").values[0]) << name;
  for (size_t i = 0; i < pieces.size(); ++i) {
    ExpectView(name + "/" + std::to_string(i), pieces[i]);
  }
}

// f must throw the error PyTorch raised for `name`, with the same class.
void ExpectError(const std::string& name, const std::function<void()>& f) {
  testing::expect_golden_error(kGoldenErrors, name, f);
}

Tensor Scalar0(double v) { return scalar_tensor(v, kFloat); }

// --- view / reshape / flatten --------------------------------------------------

TEST(ViewTest, ContiguousShapesAndInference) {
  ExpectView("view_infer", In({3, 4}).view({-1, 6}));
  ExpectView("view_16", In({4, 4}).view({16}));
  ExpectView("view_m1_8", In({4, 4}).view({-1, 8}));
  ExpectView("view_scalar", Scalar0(2.5).view({1, 1}));
  ExpectView("view_empty", empty({0, 3}).view({3, 0, 1}));
}

TEST(ViewTest, NonContiguousInputsUsePyTorchStrides) {
  Tensor x = In({4, 6});
  ExpectView("view_transposed", x.t().view({6, 2, 2}));
  ExpectView("view_sliced_cols", x.slice(1, 0, 4).view({4, 2, 2}));
  ExpectView("view_size1_dims", x.t().slice(0, 0, 1).view({4}));
}

TEST(ViewTest, SharesStorage) {
  Tensor x = In({3, 4});
  Tensor v = x.view({2, 6});
  EXPECT_TRUE(shares_storage(x, v));
  EXPECT_FALSE(v.is_same(x));
  uint32_t before = x._version();
  v.fill_(1);
  EXPECT_GT(x._version(), before);
  EXPECT_EQ(values_of(x), std::vector<double>(12, 1.0));
}

TEST(ViewTest, Errors) {
  Tensor x = In({3, 4});
  ExpectError("view_not_viewable", [] { In({4, 6}).t().view({24}); });
  ExpectError("view_bad_size", [] { In({2, 3}).view({2, 5}); });
  ExpectError("view_two_infer", [&] { x.view({-1, -1}); });
  ExpectError("view_negative", [&] { x.view({-2, 6}); });
  ExpectError("view_ambiguous", [] { empty({0, 3}).view({-1, 0}); });
}

TEST(ViewDtypeTest, ReinterpretsBytes) {
  ExpectView("view_dtype_same_size", In({2, 4}).view(kInt));
  ExpectView("view_dtype_down", In({2, 4}).view(kShort));
  ExpectView("view_dtype_up", In({2, 4}).view(kDouble));
  ExpectView("view_dtype_sliced", In({3, 4}).slice(0, 1, std::nullopt).view(kDouble));
  Tensor x = In({2, 2});
  EXPECT_TRUE(x.view(kFloat).is_same(x));
}

TEST(ViewDtypeTest, Errors) {
  ExpectError("view_dtype_scalar", [] { Scalar0(1).view(kDouble); });
  ExpectError("view_dtype_stride", [] { In({3, 4}).t().view(kShort); });
  ExpectError("view_dtype_size", [] { In({3, 3}).view(kDouble); });
  ExpectError("view_dtype_offset", [] { In({3, 4}).view({-1}).slice(0, 1, 5).view(kDouble); });
  ExpectError("view_dtype_stride0", [] { In({3, 5}).slice(1, 0, 4).view(kDouble); });
}

TEST(ReshapeTest, ViewsWhenPossibleCopiesOtherwise) {
  Tensor x = In({3, 4});
  Tensor r = x.reshape({2, 6});
  ExpectView("reshape_view", r);
  EXPECT_TRUE(shares_storage(r, x));
  Tensor t = In({4, 6}).t();
  Tensor c = t.reshape({24});
  ExpectView("reshape_copy", c);
  EXPECT_FALSE(shares_storage(c, t));
  ExpectView("reshape_copy_int", In({4, 6}, kLong).t().reshape({3, -1}));
  ExpectValues("view_infer", reshape(x, {-1, 6}));
}

TEST(FlattenTest, RangesAndCopies) {
  Tensor x = In({2, 3, 4});
  ExpectView("flatten_all", x.flatten());
  ExpectView("flatten_1", x.flatten(1));
  ExpectView("flatten_0_1", flatten(x, 0, 1));
  ExpectView("flatten_transposed", x.transpose(0, 2).flatten(1));
  ExpectView("flatten_scalar", Scalar0(3).flatten());
  EXPECT_TRUE(x.flatten(1, 1).sizes() == x.sizes());
  ExpectError("flatten_bad_order", [&] { x.flatten(2, 1); });
}

TEST(UnflattenTest, SplitsOneDim) {
  Tensor x = In({3, 4});
  ExpectView("unflatten", x.unflatten(1, {2, -1}));
  ExpectError("unflatten_bad", [&] { x.unflatten(1, {3, 2}); });
  ExpectError("unflatten_empty", [&] { x.unflatten(1, {}); });
  ExpectError("unflatten_two_infer", [&] { x.unflatten(1, {-1, -1}); });
}

// --- squeeze / unsqueeze / expand / repeat ---------------------------------------

TEST(SqueezeTest, DropsSizeOneDims) {
  Tensor x = In({1, 3, 1, 2});
  ExpectView("squeeze_all", x.squeeze());
  ExpectView("squeeze_2", x.squeeze(2));
  ExpectView("squeeze_noop", squeeze(x, 1));
  ExpectView("squeeze_neg", x.squeeze(-4));
  ExpectView("squeeze_scalar", Scalar0(1.5).squeeze(0));
  ExpectError("squeeze_bad", [] { In({3, 4}).squeeze(2); });
}

TEST(SqueezeTest, InPlaceChangesGeometry) {
  Tensor x = In({1, 3, 1, 2});
  Tensor alias = x;
  x.squeeze_();
  EXPECT_TRUE(alias.is_same(x));
  EXPECT_EQ(std::vector<int64_t>(alias.sizes().begin(), alias.sizes().end()),
            (std::vector<int64_t>{3, 2}));
  ExpectView("squeeze_all", x);
  Tensor y = In({1, 3, 1, 2});
  y.squeeze_(2);
  ExpectView("squeeze_2", y);
}

TEST(UnsqueezeTest, InsertsDim) {
  Tensor x = In({3, 4});
  ExpectView("unsqueeze_0", x.unsqueeze(0));
  ExpectView("unsqueeze_last", x.t().unsqueeze(-1));
  ExpectView("unsqueeze_mid", unsqueeze(x.t(), 1));
  ExpectView("unsqueeze_scalar", Scalar0(1.5).unsqueeze(0));
  Tensor y = x.t();
  y.unsqueeze_(1);
  ExpectView("unsqueeze_mid", y);
  ExpectError("unsqueeze_bad", [&] { x.unsqueeze(3); });
}

TEST(ExpandTest, BroadcastsWithZeroStrides) {
  ExpectView("expand_row", In({3, 1}).expand({3, 4}));
  ExpectView("expand_new_dims", In({3, 1}).expand({2, -1, 4}));
  ExpectView("expand_scalar", Scalar0(2).expand({2, 3}));
  ExpectView("expand_transposed", In({1, 3}).t().expand({3, 2}));
  Tensor a = In({3, 1});
  ExpectView("expand_row", a.expand_as(empty({3, 4})));
  ExpectView("broadcast_to", broadcast_to(In({3}), {2, 3}));
}

TEST(ExpandTest, Errors) {
  ExpectError("expand_mismatch", [] { In({3}).expand({2, 4}); });
  ExpectError("expand_leading_m1", [] { In({3, 4}).expand({-1, -1, 4}); });
  ExpectError("expand_too_few", [] { In({3, 4}).expand({4}); });
  ExpectError("expand_negative", [] { In({3, 4}).expand({-2, 3, 4}); });
  ExpectError("expand_negative_singleton", [] { In({3, 1}).expand({3, -2}); });
  ExpectError("expand_double", [] { In({3, 4}, kDouble).expand({4}); });
}

TEST(RepeatTest, TilesData) {
  ExpectValues("repeat_2d", In({2, 3}).repeat({2, 2}));
  ExpectValues("repeat_new_dim", In({2, 3}).repeat({2, 1, 2}));
  ExpectValues("repeat_transposed", In({2, 3}).t().repeat({1, 3}));
  ExpectValues("repeat_bool", In({3}, kBool).repeat({2, 2}));
  ExpectValues("repeat_half", In({2}, kHalf).repeat({3}));
  ExpectValues("repeat_zero", In({2, 3}).repeat({0, 2}));
  ExpectValues("repeat_scalar", Scalar0(2).repeat({2, 3}));
  ExpectValues("repeat_expanded", In({3, 1}).expand({3, 2}).repeat({2, 1}));
  Tensor x = In({2, 3});
  Tensor r = x.repeat({1, 1});
  EXPECT_FALSE(shares_storage(r, x));
  EXPECT_TRUE(r.is_contiguous());
}

TEST(RepeatTest, Errors) {
  ExpectError("repeat_too_few", [] { In({3, 4}).repeat({2}); });
  ExpectError("repeat_negative", [] { In({3, 4}).repeat({2, -1}); });
}

// --- transpose / t / permute / movedim / mT ---------------------------------------

TEST(TransposeTest, SwapsSizesAndStrides) {
  Tensor x = In({2, 3, 4});
  ExpectView("transpose_02", x.transpose(0, 2));
  ExpectView("transpose_neg", transpose(x, -1, -2));
  ExpectView("t_2d", In({3, 4}).t());
  ExpectView("t_1d", t(In({3})));
  ExpectView("mT", x.mT());
  ExpectError("t_3d", [&] { x.t(); });
  ExpectError("transpose_bad", [] { In({3, 4}).transpose(0, 2); });
  ExpectError("mT_1d", [] { In({3}).mT(); });
}

TEST(TransposeTest, InPlace) {
  Tensor x = In({2, 3, 4});
  x.transpose_(0, 2);
  ExpectView("transpose_02", x);
  Tensor y = In({3, 4});
  y.t_();
  ExpectView("t_2d", y);
  EXPECT_THROW(In({2, 3, 4}).t_(), Error);
}

TEST(PermuteTest, ReordersDims) {
  Tensor x = In({2, 3, 4});
  ExpectView("permute", x.permute({2, 0, 1}));
  ExpectView("permute_neg", permute(x, {-1, -3, -2}));
  ExpectView("movedim", x.movedim(0, 2));
  ExpectView("movedim_neg", movedim(x, -1, 0));
  ExpectError("permute_len", [] { In({3, 4}).permute({0}); });
  ExpectError("permute_dup", [] { In({3, 4}).permute({0, 0}); });
}

// --- narrow / select / slice / as_strided / unfold / diagonal -------------------------

TEST(NarrowTest, ViewsARange) {
  Tensor x = In({4, 6});
  ExpectView("narrow", x.narrow(1, 2, 3));
  ExpectView("narrow_neg_start", narrow(x, 0, -2, 2));
  ExpectView("narrow_end", x.narrow(0, 4, 0));
  ExpectView("narrow_transposed", x.t().narrow(1, 1, 2));
  Tensor y = In({3, 4});
  ExpectError("narrow_exceeds", [&] { y.narrow(0, 2, 2); });
  ExpectError("narrow_start_range", [&] { y.narrow(0, 5, 1); });
  ExpectError("narrow_negative_len", [&] { y.narrow(0, 0, -1); });
  ExpectError("narrow_scalar", [] { Scalar0(1).narrow(0, 0, 1); });
}

TEST(SelectTest, DropsADim) {
  Tensor x = In({3, 4});
  ExpectView("select_0", x.select(0, 1));
  ExpectView("select_neg", select(x, 1, -1));
  ExpectView("select_transposed", x.t().select(0, 2));
  ExpectView("select_3d", In({2, 3, 4}).select(1, 2));
  ExpectView("select_to_scalar", In({3}).select(0, 2));
  ExpectView("select_0", x[1]);
  ExpectError("select_range", [&] { x.select(0, 5); });
  ExpectError("select_range_neg", [&] { x.select(-1, -5); });
  ExpectError("select_scalar", [] { Scalar0(1).select(0, 0); });
}

TEST(SliceTest, StepsAndClamps) {
  Tensor x = In({4, 6});
  ExpectView("slice_step", x.slice(1, 1, 6, 2));
  ExpectView("slice_clamped", x.slice(0, -10, 10, 3));
  ExpectView("slice_empty", x.slice(0, 3, 1));
  EXPECT_THROW(x.slice(0, 0, 2, 0), Error);
}

TEST(AsStridedTest, ArbitraryGeometry) {
  Tensor x = In({3, 4});
  ExpectView("as_strided", x.as_strided({2, 2}, {1, 2}, 1));
  ExpectView("as_strided_overlap", x.as_strided({3, 3}, {1, 1}));
  ExpectError("as_strided_oob", [&] { x.as_strided({13}, {1}); });
  ExpectError("as_strided_neg_stride", [&] { x.as_strided({2}, {-1}); });
  ExpectError("as_strided_neg_size", [&] { x.as_strided({-1}, {1}); });
  ExpectError("as_strided_len", [&] { x.as_strided({2}, {1, 1}); });
  ExpectError("as_strided_neg_offset", [&] { x.as_strided({2}, {1}, -1); });
}

TEST(AsStridedTest, InPlaceChangesGeometry) {
  Tensor x = In({3, 4});
  Tensor alias = x;
  x.as_strided_({2, 2}, {1, 2}, 1);
  EXPECT_TRUE(alias.is_same(x));
  ExpectView("as_strided", x);
  Tensor y = In({3, 4});
  y.as_strided_({3, 3}, {1, 1});
  ExpectView("as_strided_overlap", y);
  ExpectError("as_strided_oob", [] { In({3, 4}).as_strided_({13}, {1}); });
}

TEST(UnfoldTest, SlidingWindows) {
  ExpectView("unfold", In({7}).unfold(0, 3, 2));
  ExpectView("unfold_2d", In({3, 4}).unfold(1, 2, 1));
  ExpectError("unfold_size", [] { In({3, 4}).unfold(1, 5, 1); });
  ExpectError("unfold_step", [] { In({3, 4}).unfold(1, 2, 0); });
}

TEST(DiagonalTest, Offsets) {
  Tensor x = In({3, 4});
  ExpectView("diagonal", x.diagonal());
  ExpectView("diagonal_pos", x.diagonal(1));
  ExpectView("diagonal_neg", diagonal(x, -1));
  ExpectView("diagonal_off_end", x.diagonal(9));
  ExpectView("diagonal_3d", In({2, 3, 4}).diagonal(0, 0, 2));
  ExpectView("diagonal_3d_neg", In({2, 3, 4}).diagonal(-1, 2, 1));
  ExpectError("diagonal_same", [&] { x.diagonal(0, 1, -1); });
  ExpectError("diagonal_1d", [] { In({3}).diagonal(); });
}

// --- chunk / split / unbind -----------------------------------------------------

TEST(ChunkTest, PiecesAreViews) {
  ExpectPieces("chunk_3", In({7, 2}).chunk(3));
  ExpectPieces("chunk_uneven", chunk(In({2, 5}), 2, 1));
  ExpectPieces("chunk_more_than_size", In({2}).chunk(4));
  ExpectPieces("chunk_empty", empty({2, 0}).chunk(3, 1));
  Tensor x = In({4});
  EXPECT_TRUE(shares_storage(x.chunk(2)[1], x));
  ExpectError("chunk_zero", [] { In({3, 4}).chunk(0); });
  ExpectError("chunk_scalar", [] { Scalar0(1).chunk(1); });
}

TEST(SplitTest, BySizeAndSizes) {
  ExpectPieces("split_2", In({5, 2}).split(2));
  ExpectPieces("split_sizes", In({4, 6}).split({1, 2, 3}, 1));
  ExpectPieces("split_sizes", split(In({4, 6}), IntArrayRef({1, 2, 3}), 1));
  ExpectPieces("split_transposed", split(In({4, 6}).t(), 4, 0));
  Tensor x = In({3, 4});
  ExpectError("split_zero", [&] { x.split(0); });
  ExpectError("split_negative", [&] { x.split(-1); });
  ExpectError("split_sizes_sum", [&] { x.split_with_sizes({1, 1}, -1); });
  ExpectError("split_sizes_negative", [&] { x.split_with_sizes({-1, 5}, 1); });
}

TEST(UnbindTest, SelectsEachIndex) {
  Tensor x = In({3, 4});
  ExpectPieces("unbind_0", x.unbind(0));
  ExpectPieces("unbind_1", unbind(x, 1));
  ExpectError("unbind_scalar", [] { Scalar0(1).unbind(0); });
}

// --- cat / stack / hstack / vstack --------------------------------------------------

TEST(CatTest, Shapes) {
  Tensor x = In({3, 4});
  ExpectView("cat_0", cat({x, x}, 0));
  ExpectView("cat_1", cat({x, In({3, 2})}, 1));
  ExpectView("cat_neg", concat({In({2, 3, 4}), In({2, 3, 4})}, -1));
}

TEST(CatTest, PromotesDtypes) {
  ExpectValues("cat_promote_int_float", cat({In({2}, kInt), In({3}, kFloat)}));
  ExpectValues("cat_promote_ints", cat({In({2}, kByte), In({2}, kChar)}));
  ExpectValues("cat_promote_bool_long", cat({In({3}, kBool), In({2}, kLong)}));
  ExpectValues("cat_promote_half_bf16", cat({In({2}, kHalf), In({2}, kBFloat16)}));
}

TEST(CatTest, NonContiguousInputs) {
  ExpectValues("cat_noncontig", cat({In({3, 4}).t(), In({4, 6}).slice(1, std::nullopt, std::nullopt, 2),
                                     In({1, 3}).expand({4, 3})},
                                    1));
}

TEST(CatTest, LegacyEmptyTensorsAreSkipped) {
  ExpectValues("cat_legacy_empty", cat({empty({0}, kDouble), In({3, 4}), empty({0})}, 1));
  ExpectValues("cat_all_empty", cat({empty({0}), empty({0})}, 3));
  ExpectValues("cat_zero_size_dim", cat({empty({2, 0}), In({2, 3})}, 1));
}

TEST(CatTest, EveryDtypeClass) {
  const std::pair<ScalarType, const char*> cases[] = {
      {kBool, "bool"},    {kChar, "int8"},         {kLong, "int64"},
      {kHalf, "float16"}, {kBFloat16, "bfloat16"}, {kDouble, "float64"}};
  for (const auto& [dt, name] : cases) {
    ExpectValues(std::string("cat_dtype_") + name, cat({In({2, 3}, dt), In({2, 3}, dt).t().t()}, 0));
  }
}

TEST(CatTest, Errors) {
  ExpectError("cat_sizes", [] { cat({In({3, 2}), In({3, 3})}, 0); });
  ExpectError("cat_empty_list", [] { cat({}); });
  ExpectError("cat_ndim", [] { cat({In({3, 4}), In({3})}, 0); });
  ExpectError("cat_zero_dim", [] { cat({In({3, 4}), Scalar0(1)}, 0); });
  ExpectError("cat_bad_dim", [] { cat({In({3, 4}), In({3, 4})}, 2); });
}

TEST(StackTest, NewDim) {
  Tensor x = In({3, 4});
  ExpectView("stack_0", stack({In({3}), In({3}).flip({0})}));
  ExpectView("stack_1", stack({x, x.flip({1})}, 1));
  ExpectView("stack_last", stack({x, x}, -1));
  ExpectValues("stack_promote", stack({In({2}, kLong), In({2}, kDouble)}));
  ExpectError("stack_sizes", [] { stack({In({2}), In({3})}); });
  ExpectError("stack_empty", [] { stack({}); });
  ExpectError("stack_bad_dim", [&] { stack({x, x}, 3); });
}

TEST(StackTest, HstackVstack) {
  ExpectValues("hstack_1d", hstack({In({2}), In({3})}));
  ExpectValues("hstack_2d", hstack({In({2, 1}), In({2, 3})}));
  ExpectValues("hstack_scalars", hstack({Scalar0(1), Scalar0(2)}));
  ExpectValues("vstack_1d", vstack({In({3}), In({3})}));
  ExpectValues("vstack_2d", vstack({In({1, 3}), In({2, 3})}));
  ExpectError("hstack_empty", [] { hstack({}); });
  ExpectError("vstack_empty", [] { vstack({}); });
}

TEST(BroadcastTest, Tensors) {
  std::vector<Tensor> r = broadcast_tensors({In({3, 1}), In({2, 1, 4}), Scalar0(1)});
  ASSERT_EQ(r.size(), 3u);
  for (int i = 0; i < 3; ++i) ExpectView("broadcast_tensors/" + std::to_string(i), r[i]);
  ExpectError("broadcast_mismatch", [] { broadcast_tensors({In({3, 4}), In({3})}); });
}

// --- flip / roll / tril / triu / diag ------------------------------------------------

TEST(FlipTest, ValuesAndLayout) {
  Tensor x = In({3, 4});
  ExpectView("flip_0", x.flip({0}));
  ExpectView("flip_both", flip(x, {0, 1}));
  ExpectView("flip_transposed", x.t().flip({1}));
  ExpectView("flip_3d", In({2, 3, 4}).flip({-1, 0}));
  ExpectView("flip_sliced", In({4, 6}).slice(1, 1, std::nullopt, 2).flip({1}));
  ExpectView("flip_none", x.flip({}));
  EXPECT_FALSE(shares_storage(x.flip({}), x));
  ExpectError("flip_dup", [&] { x.flip({0, -2}); });
  ExpectError("flip_bad_dim", [&] { x.flip({2}); });
}

TEST(FlipTest, EveryDtypeClass) {
  const std::pair<ScalarType, const char*> cases[] = {
      {kBool, "bool"},    {kByte, "uint8"},        {kShort, "int16"},
      {kHalf, "float16"}, {kBFloat16, "bfloat16"}, {kDouble, "float64"}};
  for (const auto& [dt, name] : cases) {
    ExpectValues(std::string("flip_dtype_") + name, In({3, 4}, dt).flip({1}));
  }
}

TEST(RollTest, Shifts) {
  Tensor x = In({3, 4});
  ExpectValues("roll_1d", In({5}).roll({2}, {}));
  ExpectValues("roll_neg", x.roll({-1}, {1}));
  ExpectValues("roll_big_shift", x.roll({7}, {0}));
  ExpectValues("roll_flat", roll(x, {5}));
  ExpectValues("roll_multi", x.roll({1, -2}, {0, 1}));
  ExpectValues("roll_transposed", x.t().roll({1}, {0}));
  ExpectValues("roll_int", In({2, 3}, kLong).roll({1}, {1}));
  ExpectValues("roll_scalar", Scalar0(2).roll({1}, {}));
  ExpectValues("roll_empty", empty({2, 0}).roll({1}, {1}));
  ExpectError("roll_scalar_dim", [] { Scalar0(2).roll({1}, {0}); });
  ExpectError("roll_align", [&] { x.roll({1}, {0, 1}); });
  ExpectError("roll_flat_multi", [&] { x.roll({1, 2}, {}); });
  ExpectError("roll_no_shifts", [&] { x.roll({}, {}); });
}

TEST(TrilTriuTest, Diagonals) {
  ExpectValues("tril", In({4, 4}).tril());
  ExpectValues("tril_neg", In({4, 5}).tril(-1));
  ExpectValues("tril_pos", tril(In({3, 5}), 2));
  ExpectValues("tril_far", In({3, 3}).tril(-5));
  ExpectValues("triu", In({4, 4}).triu());
  ExpectValues("triu_pos", triu(In({4, 5}), 1));
  ExpectValues("triu_neg", In({5, 3}).triu(-2));
}

TEST(TrilTriuTest, BatchedAndNonContiguous) {
  ExpectValues("tril_batched", In({2, 3, 4}).tril());
  ExpectValues("tril_transposed", In({4, 3}).t().tril());
  Tensor r = In({3, 4, 2}).transpose(0, 2).triu(1);
  ExpectValues("triu_batched_transposed", r);
  EXPECT_TRUE(r.is_contiguous());
}

TEST(TrilTriuTest, EveryDtypeClass) {
  const std::pair<ScalarType, const char*> cases[] = {{kBool, "bool"},
                                                      {kInt, "int32"},
                                                      {kHalf, "float16"},
                                                      {kBFloat16, "bfloat16"},
                                                      {kDouble, "float64"}};
  for (const auto& [dt, name] : cases) {
    ExpectValues(std::string("triu_dtype_") + name, In({3, 3}, dt).triu());
    ExpectValues(std::string("tril_dtype_") + name, In({3, 3}, dt).tril());
  }
}

TEST(TrilTriuTest, Errors) {
  ExpectView("tril_empty", empty({3, 0}).tril());
  ExpectError("tril_1d", [] { In({3}).tril(); });
  ExpectError("triu_scalar", [] { Scalar0(1).triu(); });
}

TEST(DiagTest, VectorToMatrixAndBack) {
  ExpectView("diag_from_vec", In({3}).diag());
  ExpectView("diag_from_vec_pos", In({3}).diag(1));
  ExpectView("diag_from_vec_neg", diag(In({2}, kLong), -2));
  ExpectView("diag_of_mat", In({3, 4}).diag());
  ExpectView("diag_of_mat_neg", In({3, 4}).diag(-1));
  ExpectView("diag_of_transposed", In({3, 4}).t().diag(1));
  ExpectView("diag_from_empty", empty({0}).diag(1));
  ExpectError("diag_scalar", [] { Scalar0(2).diag(); });
  ExpectError("diag_3d", [] { In({2, 3, 4}).diag(); });
}

// --- large inputs: the parallel paths ---------------------------------------------

// sum(value[i] * (i % 13 + 1)) and numel, as tools/golden/shape.py computes it.
void ExpectChecksum(const std::string& name, const Tensor& t) {
  SCOPED_TRACE(name);
  std::vector<double> v = values_of(t);
  double sum = 0;
  for (size_t i = 0; i < v.size(); ++i) sum += v[i] * static_cast<double>(i % 13 + 1);
  EXPECT_EQ((std::vector<double>{sum, static_cast<double>(v.size())}), Find(name).values);
}

TEST(LargeTest, ParallelResultsMatch) {
  const int threads = get_num_threads();
  set_num_threads(2);
  Tensor big = In({300, 400});
  ExpectChecksum("big_tril", big.tril(3));
  ExpectChecksum("big_triu_transposed", big.t().triu(-2));
  ExpectChecksum("big_flip", big.flip({1}));
  ExpectChecksum("big_flip_both", big.t().flip({0, 1}));
  ExpectChecksum("big_roll", big.roll({7, -11}, {0, 1}));
  ExpectChecksum("big_cat", cat({big, big.t().reshape({300, 400})}, 1));
  ExpectChecksum("big_repeat", In({150, 100}).repeat({2, 3}));
  ExpectChecksum("big_reshape_copy", big.t().reshape({-1}));
  set_num_threads(threads);
}

// Note [Flip by rows] (rearrange.cc): a contiguous input takes the row
// kernel, any other the strided copy. Both give the same values for every
// subset of flipped dims, with size-1 dims, merged dims, rows split between
// two threads mid-row, and every element size.
TEST(FlipTest, ContiguousRowsMatchTheStridedCopy) {
  const int threads = get_num_threads();
  set_num_threads(2);
  const std::vector<std::vector<int64_t>> shapes = {{70001}, {3, 40001},   {2, 1, 3, 1, 5}, {7, 1},
                                                    {1, 1},  {5, 6, 7, 8}, {2, 3, 4096}};
  for (ScalarType dt : {kByte, kShort, kFloat, kDouble}) {
    for (const auto& shape : shapes) {
      const Tensor x = In(shape, dt);
      // Same values, strides doubled: not contiguous.
      const Tensor strided = stack({x, x}, -1).select(-1, 0);
      ASSERT_TRUE(x.numel() == 1 || !strided.is_contiguous());
      const int64_t nd = x.dim();
      for (int64_t mask = 0; mask < (int64_t{1} << nd); ++mask) {
        std::vector<int64_t> dims;
        for (int64_t d = 0; d < nd; ++d) {
          if (mask >> d & 1) dims.push_back(d);
        }
        SCOPED_TRACE(::testing::PrintToString(shape) + " dims " + ::testing::PrintToString(dims) +
                     " " + scalar_type_name(dt));
        const Tensor fast = x.flip(dims);
        EXPECT_TRUE(fast.is_contiguous());
        EXPECT_EQ(values_of(fast), values_of(strided.flip(dims)));
      }
    }
  }
  set_num_threads(threads);
}

// --- aliasing ---------------------------------------------------------------------

TEST(AliasTest, WritesThroughViewsReachTheBase) {
  Tensor a = In({3, 4});
  a.t().select(0, 1).fill_(100);
  ExpectValues("alias_t_select", a);
  Tensor b = In({3, 4});
  b.view({2, 6}).narrow(1, 1, 2).fill_(-1);
  ExpectValues("alias_view_narrow", b);
  Tensor c = In({2, 3});
  c.unsqueeze(0).squeeze().permute({1, 0})[2].fill_(9);
  ExpectValues("alias_chain", c);
  Tensor d = In({4});
  d.chunk(2)[1].fill_(7);
  ExpectValues("alias_chunk", d);
  Tensor e = In({3, 3});
  e.diagonal().fill_(0);
  ExpectValues("alias_diagonal", e);
  Tensor f = In({2, 2});
  f.view(kInt).select(0, 0).select(0, 0).fill_(0);
  ExpectValues("alias_view_dtype", f);
}

TEST(AliasTest, ViewsShareTheVersionCounter) {
  Tensor x = In({3, 4});
  Tensor v = x.t().unsqueeze(0).expand({2, 4, 3}).select(0, 0);
  uint32_t before = v._version();
  x.fill_(1);
  EXPECT_GT(v._version(), before);
  EXPECT_EQ(v._version(), x._version());
}

// libtorch's t.accessor<T, N>(): indexes through the strides (a transposed
// view reads transposed), writes land in the tensor, and a wrong rank,
// dtype or device is an error.
TEST(AccessorTest, IndexesThroughStrides) {
  Tensor m = empty({2, 3}, kFloat);
  float* p = m.data_ptr<float>();
  for (int i = 0; i < 6; ++i) p[i] = static_cast<float>(i);
  auto a = m.accessor<float, 2>();
  EXPECT_EQ(a.size(0), 2);
  EXPECT_EQ(a.size(1), 3);
  EXPECT_EQ(a[1][2], 5.0f);
  a[0][1] = 42.0f;
  EXPECT_EQ(p[1], 42.0f);
  Tensor t = m.t();
  auto at = t.accessor<float, 2>();
  EXPECT_EQ(at.stride(0), 1);
  EXPECT_EQ(at[2][1], 5.0f);
  EXPECT_EQ(at[1][0], 42.0f);
  auto row = a[1];  // a TensorAccessor<float, 1>
  EXPECT_EQ(row.size(0), 3);
  EXPECT_EQ(row[0], 3.0f);
  Tensor r = m.select(0, 1);  // offset into the storage
  EXPECT_EQ((r.accessor<float, 1>()[2]), 5.0f);
  EXPECT_EQ(testing::error_of([&] { m.accessor<float, 3>(); }),
            "TensorAccessor expected 3 dims but tensor has 2");
  EXPECT_EQ(testing::error_of([&] { m.accessor<double, 2>(); }),
            "expected scalar type Double but found Float");
}

}  // namespace
}  // namespace ember
