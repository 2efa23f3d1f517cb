// Selection ops against PyTorch 1.13 (tools/golden/selection.py computes
// every expected tensor and message; the inputs come from the same file).

#include "tensor/selection.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tensor/creation.h"
#include "tensor/empty.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using ::ember::testing::find_golden;
using ::ember::testing::GoldenEntry;
using ::ember::testing::GoldenError;
using ::ember::testing::matches_golden;

const GoldenEntry kGolden[] = {
#include "tensor/testdata/selection_golden.inc"
};

const GoldenError kErrors[] = {
#include "tensor/testdata/selection_errors_golden.inc"
};

// An input tensor stored in the golden file, rebuilt with its dtype.
Tensor in(const std::string& name) {
  return testing::golden_tensor(find_golden(kGolden, "in_" + name));
}

#define EXPECT_GOLDEN(t, name) EXPECT_TRUE(matches_golden((t), find_golden(kGolden, name)))

// Runs f, which must throw PyTorch's message (as IndexError, TypeError or
// ValueError exactly where Python raises those).
void expect_error(const std::string& name, const std::function<void()>& f) {
  testing::expect_golden_error(kErrors, name, f);
}

TEST(WhereTest, BroadcastsAndPromotes) {
  EXPECT_GOLDEN(where(in("c"), in("x"), in("yi")), "where_bcast");
  EXPECT_GOLDEN(where(in("c").t(), in("x").t(), 0.5), "where_transposed_scalar");
  EXPECT_GOLDEN(where(in("c"), in("i8"), tensor(5)), "where_int8_0dim");
  EXPECT_GOLDEN(where(in("c"), in("x").to(kHalf), in("x").to(kDouble)), "where_half_double");
  EXPECT_GOLDEN(where(in("c"), in("c"), in("m3").view({3, 1})), "where_bool");
}

TEST(WhereTest, ScalarsOnBothSides) {
  EXPECT_GOLDEN(where(in("c"), 1, 0), "where_int_scalars");
  EXPECT_GOLDEN(where(in("c"), 1.0, 0), "where_float_int_scalars");
}

// Contiguous operands with one broadcast scalar, in each of the three
// places, take cpu_kernel's scalar loop; the values are those of the
// strided loop (the same call on transposed operands).
TEST(WhereTest, OneScalarOperandInEachPlace) {
  const Tensor x = arange(0, 2 * 3000, TensorOptions(kFloat)).view({2, 3000});
  const Tensor y = -x;
  const Tensor c = (x.remainder(3) == 0);
  const Tensor cs = tensor(true), ys = tensor(7.0f);
  auto expected = [&](auto f) {
    std::vector<float> v;
    for (int64_t i = 0; i < 6000; ++i) v.push_back(f(i));
    return tensor(v).view({2, 3000});
  };
  EXPECT_TRUE(
      where(c, x, 7.0f).equal(expected([](int64_t i) { return i % 3 == 0 ? float(i) : 7.0f; })));
  EXPECT_TRUE(
      where(c, ys, y).equal(expected([](int64_t i) { return i % 3 == 0 ? 7.0f : -float(i); })));
  EXPECT_TRUE(where(cs, x, y).equal(x));
  EXPECT_TRUE(where(tensor(false), x, y).equal(y));
  EXPECT_TRUE(where(c.t(), x.t(), ys).t().equal(where(c, x, 7.0f)));
}

TEST(WhereTest, ConditionOnlyAndNonzero) {
  std::vector<Tensor> r = where(in("c").t());
  ASSERT_EQ(r.size(), 2u);
  EXPECT_GOLDEN(r[0], "where_cond_0");
  EXPECT_GOLDEN(r[1], "where_cond_1");
  EXPECT_GOLDEN(nonzero(in("c").t()), "nonzero_t");
  EXPECT_GOLDEN(in("x").nonzero(), "nonzero_float");  // NaN counts as nonzero
  EXPECT_GOLDEN(nonzero(tensor(2.0)), "nonzero_0dim");
  // PyTorch's layout: a transposed [dim, n] tensor.
  EXPECT_EQ(nonzero(in("c").t()).strides(), IntArrayRef({1, nonzero(in("c")).size(0)}));
  EXPECT_EQ(tensor({1.0f, 0.0f, 2.0f, 3.0f}).nonzero().strides(), IntArrayRef({1, 3}));
}

TEST(MaskedSelectTest, Broadcasts) {
  EXPECT_GOLDEN(in("x").t().masked_select(in("m3")), "masked_select_bcast");
  EXPECT_GOLDEN(masked_select(in("yi"), in("c")), "masked_select_int_bcast");
}

TEST(MaskedFillTest, OutOfPlace) {
  EXPECT_GOLDEN(in("x").masked_fill(in("c"), -9.), "masked_fill_scalar");
  EXPECT_GOLDEN(in("yi").masked_fill(in("c"), 5), "masked_fill_bcast");
  EXPECT_GOLDEN(in("x").to(kHalf).masked_fill(in("c"), tensor(2.5)), "masked_fill_half_tensor");
  EXPECT_GOLDEN(in("i8").masked_fill(in("c"), 3.7), "masked_fill_int_float_value");
  EXPECT_GOLDEN(in("c").masked_fill(in("m3").view({3, 1}), true), "masked_fill_bool");
}

TEST(MaskedFillTest, InPlaceOnSliceWritesThroughView) {
  Tensor z = in("x").clone();
  Tensor view = z.slice(1, 1, 3);
  view.masked_fill_(tensor({true, false}), 100.);
  EXPECT_GOLDEN(z, "masked_fill_inplace_slice");
}

TEST(MaskedScatterTest, FillsInOrder) {
  Tensor z = in("x").clone();
  z.masked_scatter_(in("c"), in("s"));
  EXPECT_GOLDEN(z, "masked_scatter");
  Tensor w = in("x").clone();
  w.masked_scatter_(tensor({true, false, false, true}), in("s").t().contiguous().t());
  EXPECT_GOLDEN(w, "masked_scatter_bcast_strided_source");
}

TEST(TakeTest, FlatIndicesNegativeAndNonContiguous) {
  EXPECT_GOLDEN(take(in("x").t(), tensor({{0, -1}, {5, 11}})), "take_transposed");
  EXPECT_GOLDEN(in("s").to(kBFloat16).take(tensor({2, -12})), "take_bf16");
  EXPECT_GOLDEN(take(tensor({{4, 3, 5}, {6, 7, 8}}), tensor({0, 2, 5})), "take_seed");
}

TEST(GatherTest, AlongDims) {
  EXPECT_GOLDEN(gather(tensor({{1, 2}, {3, 4}}), 1, tensor({{0, 0}, {1, 0}})), "gather_seed");
  EXPECT_GOLDEN(in("x").gather(1, in("idx")), "gather_dim1");
  EXPECT_GOLDEN(in("x").gather(-1, in("idx")), "gather_neg_dim");
  EXPECT_GOLDEN(in("s").gather(0, tensor({{2, 0, 1}, {1, 1, 0}}).t()), "gather_dim0_tindex");
  EXPECT_GOLDEN(in("yi").expand({3, 4}).gather(0, tensor({{2, 1, 0, 2}})), "gather_expanded_self");
}

TEST(ScatterTest, SrcValueAndAdd) {
  Tensor a = zeros({3, 4});
  a.scatter_(1, in("idx"), in("s"));
  EXPECT_GOLDEN(a, "scatter_src");
  EXPECT_GOLDEN(zeros({3, 4}, kInt).scatter(0, tensor({{2, 0, 1, 2}}), 7), "scatter_value");
  EXPECT_GOLDEN(ones({3, 4}).scatter_add(1, tensor({{0, 0, 0}, {3, 3, 1}, {2, 2, 2}}), in("s")),
                "scatter_add_dup");
  Tensor b = zeros({2, 3}, kBFloat16);
  b.scatter_add_(0, tensor({{1, 0, 1}, {1, 1, 1}}), full({2, 3}, 1.5, kBFloat16));
  EXPECT_GOLDEN(b, "scatter_add_bf16");
  Tensor c = zeros({4, 3}, kLong);
  c.scatter_add_(0, tensor({{0, 1, 1, 3}, {2, 2, 0, 0}}).t(), arange(12).view({3, 4}).t());
  EXPECT_GOLDEN(c, "scatter_add_long_transposed");
}

TEST(IndexSelectTest, DimsDtypesAndScalars) {
  EXPECT_GOLDEN(in("x").index_select(1, tensor({3, 0, 3})), "index_select_dim1");
  EXPECT_GOLDEN(in("x").t().index_select(0, tensor({2, 1}, kInt)), "index_select_transposed_int32");
  EXPECT_GOLDEN(index_select(tensor(5.), 0, tensor(0)), "index_select_0dim");
}

TEST(IndexAddTest, AlphaDuplicatesAndBroadcast) {
  Tensor a = zeros({3, 4});
  a.index_add_(0, tensor({0, 2, 0}), in("s"), 2);
  EXPECT_GOLDEN(a, "index_add_alpha_dup");
  Tensor b = ones({3, 4}, kLong);
  b.index_add_(1, tensor({1, 1}), arange(6).view({3, 2}));
  EXPECT_GOLDEN(b, "index_add_long_dim1");
  Tensor c = zeros({2, 3});
  c.index_add_(0, tensor({1}), ones({1, 1}));
  EXPECT_GOLDEN(c, "index_add_bcast_source");
}

TEST(IndexFillCopyTest, Values) {
  Tensor a = in("x").clone();
  a.index_fill_(1, tensor({-1, 0}), -5.);
  EXPECT_GOLDEN(a, "index_fill_neg");
  Tensor b = in("x").clone();
  Tensor bt = b.t();
  bt.index_fill_(0, tensor({1}), 8.);
  EXPECT_GOLDEN(b, "index_fill_transposed");
  Tensor c = zeros({3, 4});
  c.index_copy_(0, tensor({2, 0}), in("s").slice(0, 0, 2));
  EXPECT_GOLDEN(c, "index_copy");
  Tensor d = zeros({3, 4});
  d.index_copy_(1, tensor({3, 1, 0}), in("s").slice(1, 0, 3).t().contiguous().t());
  EXPECT_GOLDEN(d, "index_copy_dim1_transposed_src");
}

// The CPU fast paths (a 1-d or contiguous self, contiguous index rows,
// single-element slices) against the values the strided loops give, and
// the bounds errors they raise: the first bad index, at any position.
std::vector<double> values_of(const Tensor& t) {
  const Tensor d = t.to(kDouble).contiguous();
  return std::vector<double>(d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
}

TEST(IndexFastPathTest, IndexSelectGatherTake) {
  const Tensor x = arange(60.).view({3, 4, 5});
  const Tensor strided = x.transpose(0, 2).contiguous().transpose(0, 2);  // the strided loop
  for (int64_t dim = 0; dim < 3; ++dim) {
    const Tensor idx = tensor({2, 0, 2, 1});
    EXPECT_EQ(values_of(x.index_select(dim, idx)), values_of(strided.index_select(dim, idx)));
    EXPECT_EQ(values_of(x.to(kBFloat16).index_select(dim, idx.to(kInt))),
              values_of(strided.index_select(dim, idx)));
  }
  const Tensor stepped = arange(20.).slice(0, 0, 20, 3);
  EXPECT_EQ(values_of(stepped.index_select(0, tensor({6, 0, 2}))), std::vector<double>({18, 0, 6}));
  EXPECT_EQ(values_of(stepped.gather(0, tensor({6, 0, 2}))), std::vector<double>({18, 0, 6}));
  EXPECT_EQ(values_of(arange(6.).view({2, 3}).take(tensor({{-1, 0}, {5, -6}}))),
            std::vector<double>({5, 0, 5, 0}));
  std::vector<int64_t> many(37, 1);
  many[20] = 9;
  many[30] = -4;
  const Tensor bad = tensor(many);
  EXPECT_EQ(testing::error_of([&] { arange(5.).gather(0, bad); }),
            "index 9 is out of bounds for dimension 0 with size 5");
  EXPECT_EQ(testing::error_of([&] { arange(5.).index_select(0, bad); }),
            "index out of range in self");
  EXPECT_EQ(testing::error_of([&] { arange(5.).take(bad); }),
            "out of range: tried to access index 9 on a tensor of 5 elements.");
  EXPECT_EQ(testing::error_of([&] { arange(5.).index_fill(0, bad.neg(), 1.); }),
            "index -9 is out of bounds for dimension 0 with size 5");
  // scatter writes the elements before the bad index, then raises (as ATen).
  Tensor a = zeros({6});
  EXPECT_EQ(testing::error_of([&] {
              a.scatter_(0, tensor({1, 2, 9, 3}), 5.);
            }),
            "index 9 is out of bounds for dimension 0 with size 6");
  EXPECT_EQ(values_of(a), std::vector<double>({0, 5, 5, 0, 0, 0}));
}

TEST(IndexFastPathTest, IndexAddFillOneDim) {
  Tensor a = zeros({5});
  a.index_add_(0, tensor({1, 1, 4}), tensor({1., 2., 3.}), 2);
  EXPECT_EQ(values_of(a), std::vector<double>({0, 6, 0, 0, 6}));
  Tensor base = zeros({10});
  base.slice(0, 0, 10, 2).index_add_(0, tensor({4, 0}), ones({1}).expand({2}));
  base.slice(0, 0, 10, 2).index_fill_(0, tensor({-4, 2}), 7.);
  EXPECT_EQ(values_of(base), std::vector<double>({1, 0, 7, 0, 7, 0, 0, 0, 1, 0}));
  Tensor b = tensor({false, false, true});
  b.index_add_(0, tensor({0, 0}), tensor({true, false}));
  EXPECT_EQ(values_of(b), std::vector<double>({1, 0, 1}));
}

TEST(IndexFastPathTest, NonzeroCoordinates) {
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{3, 4, 5}, std::vector<int64_t>{37}, std::vector<int64_t>{2, 1, 3, 2},
        std::vector<int64_t>{4, 0}}) {
    const int64_t numel = [&] {
      int64_t n = 1;
      for (int64_t s : shape) n *= s;
      return n;
    }();
    const Tensor x = arange(numel).remainder(3).view(shape).to(kBFloat16);
    std::vector<double> want;  // [dim, n]: each dim's coordinates in turn
    for (size_t d = 0; d < shape.size(); ++d) {
      for (int64_t i = 0; i < numel; ++i) {
        if (i % 3 == 0) continue;
        int64_t p = i;
        for (size_t e = shape.size(); e-- > d + 1;) p /= shape[e];
        want.push_back(static_cast<double>(p % shape[d]));
      }
    }
    const Tensor nz = x.nonzero();
    EXPECT_EQ(values_of(nz.t()), want);
    EXPECT_EQ(nz.size(1), static_cast<int64_t>(shape.size()));
  }
  EXPECT_EQ(tensor(0.).nonzero().sizes(), IntArrayRef({0, 0}));
}

#define EXPECT_GOLDEN_PAIR(r, name)                              \
  do {                                                          \
    auto _r = (r);                                              \
    EXPECT_GOLDEN(std::get<0>(_r), std::string(name) + "_values");  \
    EXPECT_GOLDEN(std::get<1>(_r), std::string(name) + "_indices"); \
  } while (0)

TEST(SortTest, NanSortsLargest) {
  EXPECT_GOLDEN_PAIR(in("x").sort(), "sort_nan");
  EXPECT_GOLDEN_PAIR(in("x").sort(-1, /*descending=*/true), "sort_desc_nan");
}

TEST(SortTest, DimsAndNonContiguous) {
  EXPECT_GOLDEN_PAIR(in("t").sort(0), "sort_dim0");
  EXPECT_GOLDEN_PAIR(in("t").t().sort(1, true), "sort_transposed_desc");
  EXPECT_GOLDEN(argsort(in("t"), 1, true), "argsort_desc");
}

TEST(SortTest, StableKeepsTiesInOrder) {
  EXPECT_GOLDEN_PAIR(sort(in("ties"), /*stable=*/true, -1, false), "sort_stable_ties");
  EXPECT_GOLDEN_PAIR(sort(in("ties"), /*stable=*/true, -1, true), "sort_stable_ties_desc");
  EXPECT_GOLDEN_PAIR(in("c").sort(/*stable=*/true, 1, false), "sort_bool");
}

// Note [PyTorch's unstable sort]: rows of 300 with five values and a NaN.
TEST(SortTest, DefaultSortOrdersTiesAsPyTorch) {
  const Tensor x = in("many_ties");
  EXPECT_GOLDEN_PAIR(x.sort(), "sort_many_ties");
  EXPECT_GOLDEN_PAIR(sort(x, std::nullopt, -1, false), "sort_many_ties");
  EXPECT_GOLDEN_PAIR(x.sort(-1, /*descending=*/true), "sort_many_ties_desc");
  EXPECT_GOLDEN_PAIR(x.t().sort(0), "sort_many_ties_dim0");
  EXPECT_GOLDEN(x.argsort(), "argsort_many_ties");
  EXPECT_GOLDEN(argsort(x.to(kLong), -1, /*descending=*/true), "argsort_many_ties_int");
}

TEST(SortTest, StableKeepsTiesOfLongRowsInOrder) {
  const Tensor x = in("many_ties");
  EXPECT_GOLDEN_PAIR(x.sort(/*stable=*/true, -1, false), "sort_many_ties_stable");
  EXPECT_GOLDEN_PAIR(x.sort(/*stable=*/true, -1, true), "sort_many_ties_stable_desc");
  EXPECT_GOLDEN(argsort(x, /*stable=*/true, -1, true),
                std::string("sort_many_ties_stable_desc") + "_indices");
}

TEST(SortTest, HalfPrecision) { EXPECT_GOLDEN_PAIR(in("t").to(kHalf).sort(), "sort_half"); }

TEST(TopkTest, LargestSmallestDims) {
  EXPECT_GOLDEN_PAIR(in("t").topk(2), "topk_2");
  EXPECT_GOLDEN_PAIR(in("t").topk(2, -1, /*largest=*/false), "topk_smallest");
  EXPECT_GOLDEN_PAIR(in("t").topk(1, 0), "topk_dim0");
  EXPECT_GOLDEN_PAIR(tensor({{5, 1, 9}, {2, 8, 4}}).t().topk(2, 0), "topk_int_transposed");
  EXPECT_GOLDEN_PAIR(in("t").to(kBFloat16).topk(3), "topk_bf16");
}

// Note [PyTorch's topk ties]: the same indices among equal values as
// PyTorch, on the partial-sort path (k * 64 <= n) and the nth_element one.
TEST(TopkTest, TiesGivePyTorchsIndices) {
  for (int k : {3, 4, 40, 299}) {
    SCOPED_TRACE(k);
    EXPECT_GOLDEN_PAIR(in("many_ties").topk(k), "topk_ties_" + std::to_string(k));
    EXPECT_GOLDEN_PAIR(in("many_ties").topk(k, -1, false),
                       "topk_ties_smallest_" + std::to_string(k));
  }
  EXPECT_GOLDEN_PAIR(in("many_ties").topk(40, -1, true, /*sorted=*/false), "topk_ties_unsorted");
}

TEST(KthvalueTest, TiesGivePyTorchsIndices) {
  for (int k : {1, 7, 150, 299}) {
    SCOPED_TRACE(k);
    EXPECT_GOLDEN_PAIR(in("many_ties").kthvalue(k), "kthvalue_ties_" + std::to_string(k));
  }
}

TEST(KthvalueTest, Values) {
  EXPECT_GOLDEN_PAIR(in("t").kthvalue(2), "kthvalue_2");
  EXPECT_GOLDEN_PAIR(in("t").kthvalue(3, 0, /*keepdim=*/true), "kthvalue_dim0_keepdim");
  EXPECT_GOLDEN_PAIR(tensor({{5, 1, 9}, {2, 8, 4}}).kthvalue(1), "kthvalue_int");
}

TEST(SelectionTest, LargeInputsTakeTheParallelPath) {
  // Above kGrainSize rows run on several threads; results must not change.
  const int64_t n = 200000;
  Tensor x = arange(n).view({n / 4, 4}).to(kFloat);
  Tensor idx = full({n / 4, 4}, 3, kLong);
  Tensor g = x.gather(1, idx);
  EXPECT_EQ(g.numel(), n);
  EXPECT_EQ(g.select(0, 12345).select(0, 0).item<float>(), 12345 * 4 + 3);
  EXPECT_EQ(std::get<0>(x.t().sort(1, true)).select(0, 2).select(0, 0).item<float>(), n - 2);
  EXPECT_EQ(take(x, tensor({n - 1})).item<float>(), n - 1);
}

TEST(SelectionTest, ScatterBumpsVersion) {
  Tensor a = zeros({3});
  const uint32_t v = a._version();
  a.scatter_(0, tensor({1}), 2.0);
  EXPECT_GT(a._version(), v);
}

TEST(SelectionErrorTest, WhereAndMasks) {
  Tensor x = arange(6.).view({2, 3});
  Tensor t = ones({2, 3}, kBool);
  expect_error("where_float_cond", [&] { where(x, x, x); });
  expect_error("where_bcast", [&] { where(x.gt(0), x, ones({3, 3})); });
  expect_error("masked_select_float_mask", [&] { x.masked_select(x); });
  expect_error("masked_fill_1d_value", [&] { x.masked_fill(t, tensor({1., 2.})); });
  expect_error("masked_fill_bcast", [&] { x.masked_fill(ones({3, 3}, kBool), 1.); });
  expect_error("masked_fill_inplace_shape", [&] { x.masked_fill_(ones({1, 2, 3}, kBool), 1.); });
  expect_error("masked_scatter_short_source", [&] { x.clone().masked_scatter_(t, ones({2})); });
  expect_error("masked_scatter_dtype", [&] { x.clone().masked_scatter_(t, ones({6}, kLong)); });
  expect_error("masked_scatter_expand",
               [&] { x.clone().masked_scatter_(ones({2}, kBool), ones({6})); });
}

TEST(SelectionErrorTest, TakeGatherScatter) {
  Tensor x = arange(6.).view({2, 3});
  expect_error("take_out_of_range", [&] { x.take(tensor({10})); });
  expect_error("take_negative_out_of_range", [&] { x.take(tensor({-7})); });
  expect_error("take_float_index", [&] { x.take(tensor({1.})); });
  expect_error("gather_out_of_bounds", [&] { x.gather(0, tensor({{5}})); });
  expect_error("gather_negative", [&] { x.gather(0, tensor({{-1}})); });
  expect_error("gather_dims", [&] { x.gather(0, tensor({5})); });
  expect_error("gather_int32", [&] { x.gather(0, tensor({{1}}, kInt)); });
  expect_error("gather_size", [&] { x.gather(0, tensor({{1, 1, 1, 1}})); });
  expect_error("gather_bad_dim", [&] { x.gather(2, tensor({{1}})); });
  expect_error("scatter_out_of_bounds", [&] { x.clone().scatter_(0, tensor({{5}}), ones({2, 3})); });
  expect_error("scatter_size",
               [&] { x.clone().scatter_(0, tensor({{1, 1, 1, 1}}), ones({2, 3})); });
  expect_error("scatter_src_size", [&] { x.clone().scatter_(0, tensor({{1, 1}}), ones({1, 1})); });
  expect_error("scatter_value_size", [&] { x.clone().scatter_(0, tensor({{1, 1, 1, 1}}), 2.); });
  expect_error("scatter_dims", [&] { x.clone().scatter_(0, tensor({1}), ones({2, 3})); });
  expect_error("scatter_int32",
               [&] { x.clone().scatter_(0, tensor({{1}}, kInt), ones({2, 3})); });
  expect_error("scatter_dtype",
               [&] { x.clone().scatter_(0, tensor({{1}}), ones({2, 3}, kDouble)); });
  expect_error("scatter_add_dtype",
               [&] { x.clone().scatter_add_(0, tensor({{1}}), ones({2, 3}, kDouble)); });
}

TEST(SelectionErrorTest, IndexOps) {
  Tensor x = arange(6.).view({2, 3});
  expect_error("index_select_out_of_range", [&] { x.index_select(0, tensor({5})); });
  expect_error("index_select_2d", [&] { x.index_select(0, tensor({{0}})); });
  expect_error("index_select_float", [&] { x.index_select(0, tensor({0.})); });
  expect_error("index_add_out_of_range",
               [&] { x.clone().index_add_(0, tensor({5}), ones({1, 3})); });
  expect_error("index_add_slice", [&] { x.clone().index_add_(0, tensor({0}), ones({1, 4})); });
  expect_error("index_add_count", [&] { x.clone().index_add_(0, tensor({0, 1}), ones({1, 3})); });
  expect_error("index_add_dtype",
               [&] { x.clone().index_add_(0, tensor({0}), ones({1, 3}, kDouble)); });
  expect_error("index_add_2d_index", [&] { x.clone().index_add_(0, tensor({{0}}), ones({1, 3})); });
  expect_error("index_add_float_index", [&] { x.clone().index_add_(0, tensor({0.}), ones({1, 3})); });
  expect_error("index_fill_out_of_range", [&] { x.clone().index_fill_(0, tensor({5}), 1); });
  expect_error("index_fill_negative", [&] { x.clone().index_fill_(0, tensor({-3}), 1); });
  expect_error("index_fill_float_index", [&] { x.clone().index_fill_(0, tensor({0.}), 1); });
  expect_error("index_copy_out_of_range",
               [&] { x.clone().index_copy_(0, tensor({5}), ones({1, 3})); });
  expect_error("index_copy_slice", [&] { x.clone().index_copy_(0, tensor({0}), ones({1, 4})); });
  expect_error("index_copy_count", [&] { x.clone().index_copy_(0, tensor({0, 1}), ones({1, 3})); });
  expect_error("index_copy_dtype",
               [&] { x.clone().index_copy_(0, tensor({0}), ones({1, 3}, kDouble)); });
  expect_error("index_copy_dims", [&] { x.clone().index_copy_(0, tensor({0}), ones({3})); });
}

TEST(SelectionErrorTest, SortFamily) {
  Tensor x = arange(6.).view({2, 3});
  expect_error("topk_k", [&] { x.topk(4); });
  expect_error("topk_negative_k", [&] { x.topk(-1); });
  expect_error("topk_bool", [&] { ones({3}, kBool).topk(1); });
  expect_error("kthvalue_k", [&] { x.kthvalue(4); });
  expect_error("kthvalue_zero", [&] { x.kthvalue(0); });
  expect_error("kthvalue_bool", [&] { ones({3}, kBool).kthvalue(1); });
  expect_error("sort_dim", [&] { x.sort(2); });
}

}  // namespace
}  // namespace ember
