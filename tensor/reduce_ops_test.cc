// reduce_ops.h against PyTorch 1.13 (tools/golden/reduce_ops.py wrote every
// expected value and message into testdata/reduce_ops_*golden.inc).
#include "tensor/reduce_ops.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using testing::expect_golden_error;
using testing::find_golden;
using testing::golden_tensor;
using testing::make_input;
using testing::matches_golden;
using testing::near_golden;

const testing::GoldenEntry kGolden[] = {
#include "tensor/testdata/reduce_ops_golden.inc"
};
const testing::GoldenError kErrors[] = {
#include "tensor/testdata/reduce_ops_errors_golden.inc"
};

Tensor G(const std::string& name) { return golden_tensor(find_golden(kGolden, name)); }
// Exact for integers and bool; a few ulps for floating results (the order
// of operations is PyTorch's, but its SIMD loops may differ in rounding).
::testing::AssertionResult same(const Tensor& t, const std::string& name) {
  const testing::GoldenEntry& g = find_golden(kGolden, name);
  return matches_golden(t, g, is_floating_point(g.dtype) ? 1e-12 : 0);
}

const char* const kReduces[] = {"sum", "prod", "mean", "amax", "amin"};
const char* const kIndexReduces[] = {"prod", "mean", "amax", "amin"};

TEST(ScatterReduceTest, MatchesPyTorch) {
  const Tensor self = G("scatter/self"), src = G("scatter/src"), index = G("scatter/index");
  const Tensor idx1 = tensor({3, 1, 0, 0, 2, 3}, kLong).view({3, 2});
  for (const char* r : kReduces) {
    for (bool inc : {true, false}) {
      const std::string name = std::string("scatter/") + r + "/" + (inc ? "1" : "0");
      SCOPED_TRACE(name);
      EXPECT_TRUE(same(scatter_reduce(self, 0, index, src, r, inc), name + "/dim0"));
      EXPECT_TRUE(
          same(self.scatter_reduce(1, idx1, src.t().narrow(0, 0, 3), r, inc), name + "/dim1"));
      EXPECT_TRUE(same(self.t().scatter_reduce(0, index.t().narrow(0, 0, 3), src.t(), r, inc),
                       name + "/t"));
      // In place, on a non-contiguous self.
      Tensor t = self.t().contiguous().t();
      t.scatter_reduce_(-2, index, src, r, inc);
      EXPECT_TRUE(same(t, name + "/dim0"));
    }
  }
}

TEST(ScatterReduceTest, Dtypes) {
  const Tensor ints = tensor({-1, 2, 3, 4, 7}, kLong), ii = tensor({0, 0, 1, 1, 4, 4}, kLong);
  const Tensor isrc = tensor({-2, -2, 2, 3, 5, 6}, kLong);
  for (auto [t, n] : {std::pair{kLong, "int64"}, std::pair{kInt, "int32"},
                      std::pair{kByte, "uint8"}, std::pair{kShort, "int16"}}) {
    const Tensor a = t == kByte ? ints.abs().to(t) : ints.to(t);
    const Tensor b = t == kByte ? isrc.abs().to(t) : isrc.to(t);
    for (const char* r : kReduces) {
      for (bool inc : {true, false}) {
        const std::string name =
            std::string("scatter/int/") + n + "/" + r + "/" + (inc ? "1" : "0");
        EXPECT_TRUE(same(a.scatter_reduce(0, ii, b, r, inc), name)) << name;
      }
    }
  }
  for (auto [t, n] : {std::pair{kHalf, "float16"}, std::pair{kBFloat16, "bfloat16"},
                      std::pair{kFloat, "float32"}}) {
    const Tensor a = tensor({1., 2., -3., 4.5}).to(t);
    const Tensor b = tensor({3., 7., 0.1, -2., 1.3}).to(t);
    for (const char* r : kReduces) {
      const std::string name = std::string("scatter/") + n + "/" + r;
      EXPECT_TRUE(matches_golden(a.scatter_reduce(0, tensor({0, 0, 0, 2, 2}, kLong), b, r),
                                 find_golden(kGolden, name)))
          << name;
    }
  }
  for (const char* r : {"sum", "prod", "amax", "amin"}) {
    EXPECT_TRUE(
        same(tensor({true, false, false})
                 .scatter_reduce(0, tensor({0, 1, 1}, kLong), tensor({false, true, false}), r),
             std::string("scatter/bool/") + r))
        << r;
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const char* r : {"amax", "amin"}) {
    for (bool inc : {true, false}) {
      EXPECT_TRUE(same(tensor({1., nan, 3.}, kDouble)
                           .to(kFloat)
                           .scatter_reduce(0, tensor({0, 0, 2, 1}, kLong),
                                           tensor({nan, 2., 5., 4.}, kDouble).to(kFloat), r, inc),
                       std::string("scatter/nan/") + r + "/" + (inc ? "1" : "0")));
    }
  }
  EXPECT_TRUE(same(tensor(1.5).to(kFloat).scatter_reduce(0, tensor(int64_t{0}).to(kLong),
                                                         tensor(2.).to(kFloat), "prod"),
                   "scatter/0d"));
}

TEST(ScatterReduceTest, Errors) {
  const Tensor x = zeros({3, 4});
  const Tensor src = G("scatter/src").to(kFloat), index = G("scatter/index");
  expect_golden_error(kErrors, "scatter_reduce reduce",
                      [&] { x.scatter_reduce(0, index, src, "max"); });
  expect_golden_error(kErrors, "scatter_reduce index dtype",
                      [&] { x.scatter_reduce(0, index.to(kInt), src, "sum"); });
  expect_golden_error(kErrors, "scatter_reduce src dtype",
                      [&] { x.scatter_reduce(0, index, src.to(kDouble), "sum"); });
  expect_golden_error(kErrors, "scatter_reduce out of bounds",
                      [&] { x.scatter_reduce(0, index + 2, src, "sum"); });
  expect_golden_error(kErrors, "scatter_reduce index size", [&] {
    x.scatter_reduce(0, zeros({3, 5}, kLong), src, "sum");
  });
  expect_golden_error(kErrors, "scatter_reduce index dims",
                      [&] { x.scatter_reduce(0, zeros({3}, kLong), src, "sum"); });
  expect_golden_error(kErrors, "scatter_reduce bool mean", [&] {
    tensor({true}).scatter_reduce(0, tensor({0}, kLong), tensor({true}), "mean");
  });
}

TEST(IndexReduceTest, MatchesPyTorch) {
  const Tensor self = G("index/self"), src = G("index/src");
  const Tensor idx = tensor({0, 2, 0, 3, 2}, kLong);
  const Tensor ints = tensor({-1, 2, 3, 4, 7}, kLong), ii = tensor({0, 0, 1, 1, 4, 4}, kLong);
  const Tensor isrc = tensor({-2, -2, 2, 3, 5, 6}, kLong);
  for (const char* r : kIndexReduces) {
    for (bool inc : {true, false}) {
      const std::string name = std::string("index/") + r + "/" + (inc ? "1" : "0");
      SCOPED_TRACE(name);
      EXPECT_TRUE(same(index_reduce(self, 0, idx, src, r, inc), name + "/dim0"));
      EXPECT_TRUE(same(self.index_reduce(1, tensor({2, 0, 2, 2, 1}, kLong),
                                         make_input({5, 4}, kDouble, 3).t(), r, inc),
                       name + "/dim1"));
      EXPECT_TRUE(same(
          self.t().index_reduce(1, idx.narrow(0, 0, 3).to(kInt), src.t().narrow(1, 0, 3), r, inc),
          name + "/t"));
      EXPECT_TRUE(same(self.index_reduce(0, idx, src.narrow(1, 0, 1), r, inc), name + "/bcast"));
      Tensor t = self.clone();
      t.index_reduce_(0, idx, src, r, inc);
      EXPECT_TRUE(same(t, name + "/dim0"));
      EXPECT_TRUE(same(ints.index_reduce(0, ii, isrc, r, inc),
                       std::string("index/int/") + r + "/" + (inc ? "1" : "0")));
    }
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const char* r : {"amax", "amin"}) {
    EXPECT_TRUE(same(tensor({1., nan, 3.}, kDouble)
                         .to(kFloat)
                         .index_reduce(0, tensor({0, 0, 2, 1}, kLong),
                                       tensor({nan, 2., 5., 4.}, kDouble).to(kFloat), r),
                     std::string("index/nan/") + r));
  }
  EXPECT_TRUE(same(
      tensor(1.5).to(kFloat).index_reduce(0, tensor({0, 0}, kLong), tensor({2.f, 3.f}), "prod"),
      "index/0d"));
}

TEST(IndexReduceTest, Errors) {
  const Tensor x = zeros({4, 3}), s = ones({5, 3});
  const Tensor idx = tensor({0, 2, 0, 3, 2}, kLong);
  expect_golden_error(kErrors, "index_reduce reduce", [&] { x.index_reduce(0, idx, s, "sum"); });
  expect_golden_error(kErrors, "index_reduce index dtype",
                      [&] { x.index_reduce(0, idx.to(kFloat), s, "prod"); });
  expect_golden_error(kErrors, "index_reduce source dtype",
                      [&] { x.index_reduce(0, idx, s.to(kDouble), "prod"); });
  expect_golden_error(kErrors, "index_reduce numel",
                      [&] { x.index_reduce(0, idx.narrow(0, 0, 3), s, "prod"); });
  expect_golden_error(kErrors, "index_reduce out of range",
                      [&] { x.index_reduce(0, idx + 2, s, "prod"); });
  expect_golden_error(kErrors, "index_reduce index dim", [&] {
    x.index_reduce(0, idx.narrow(0, 0, 4).view({2, 2}), ones({4, 3}), "prod");
  });
  expect_golden_error(kErrors, "index_reduce broadcast", [&] {
    x.index_reduce(0, idx, ones({5, 2}), "prod");
  });
  expect_golden_error(kErrors, "index_reduce bool", [&] {
    tensor({true}).index_reduce(0, tensor({0}, kLong), tensor({true}), "amax");
  });
}

TEST(IgammaTest, WideGrid) {
  const Tensor a = G("igamma/grid/a"), x = G("igamma/grid/x");
  // PyTorch's values to 1e-12 relative everywhere PyTorch is itself that
  // close to the exact value ("/exact" holds mpmath's where it is not).
  EXPECT_TRUE(near_golden(igamma(a, x), find_golden(kGolden, "igamma/grid/exact"), kDouble, 3e-12));
  EXPECT_TRUE(
      near_golden(a.igammac(x), find_golden(kGolden, "igammac/grid/exact"), kDouble, 3e-12));
  EXPECT_TRUE(
      near_golden(special_gammainc(a, x), find_golden(kGolden, "igamma/grid"), kDouble, 2e-9));
  EXPECT_TRUE(
      near_golden(special_gammaincc(a, x), find_golden(kGolden, "igammac/grid"), kDouble, 2e-9));
  // Relative accuracy in the tails too.
  const Tensor p = igamma(a, x), want = G("igamma/grid/exact");
  const Tensor rel = ((p - want).abs() / want.abs()).masked_fill(want == 0, 0);
  EXPECT_LT(rel.max().item<double>(), 3e-12);
  const Tensor q = igammac(a, x), wantq = G("igammac/grid/exact");
  const Tensor relq = ((q - wantq).abs() / wantq.abs()).masked_fill(wantq == 0, 0);
  EXPECT_LT(relq.max().item<double>(), 3e-12);
}

TEST(IgammaTest, EdgesDtypesAndErrors) {
  const Tensor ea = G("igamma/edge/a"), ex = G("igamma/edge/x");
  EXPECT_TRUE(same(igamma(ea, ex), "igamma/edge"));
  EXPECT_TRUE(same(igammac(ea, ex), "igammac/edge"));
  const Tensor fa = tensor({0.5f, 1.f, 2.5f, 10.f, 30.f}), fx = tensor({0.2f, 1.f, 3.f, 9.f, 31.f});
  for (auto [t, n] : {std::pair{kFloat, "float32"}, std::pair{kHalf, "float16"},
                      std::pair{kBFloat16, "bfloat16"}}) {
    const double tol = t == kFloat ? 1e-6 : 0;
    EXPECT_TRUE(matches_golden(fa.to(t).igamma(fx.to(t)),
                               find_golden(kGolden, std::string("igamma/") + n), tol))
        << n;
    EXPECT_TRUE(matches_golden(fa.to(t).igammac(fx.to(t)),
                               find_golden(kGolden, std::string("igammac/") + n), tol))
        << n;
  }
  EXPECT_TRUE(matches_golden(igamma(fa, tensor({1, 2, 3, 4, 5}, kLong)),
                             find_golden(kGolden, "igamma/mixed"), 1e-6));
  EXPECT_TRUE(
      same(igamma(fa.to(kDouble).view({5, 1}), fx.to(kDouble).narrow(0, 0, 3)), "igamma/bcast"));
  Tensor in_place = fa.to(kDouble).clone();
  in_place.igamma_(fx.to(kDouble));
  Tensor in_place_c = fa.to(kDouble).clone();
  in_place_c.igammac_(fx.to(kDouble));
  EXPECT_TRUE(allclose(in_place + in_place_c, ones({5}, kDouble), 1e-14, 1e-14));
  expect_golden_error(kErrors, "igamma long", [] {
    igamma(tensor({1, 2}, kLong), tensor({1, 2}, kLong));
  });
  expect_golden_error(kErrors, "igamma bool", [] { igamma(tensor({true}), tensor({true})); });
  expect_golden_error(kErrors, "igamma_ long", [] {
    tensor({1, 2}, kLong).igamma_(tensor({1.f, 2.f}));
  });
}

TEST(HistogramTest, MatchesPyTorch) {
  const Tensor h = G("hist/in");
  auto check = [](std::tuple<Tensor, Tensor> r, const std::string& name) {
    EXPECT_TRUE(same(std::get<0>(r), name + "/hist")) << name;
    EXPECT_TRUE(same(std::get<1>(r), name + "/edges")) << name;
  };
  check(histogram(h, 4), "hist/4");
  check(h.to(kDouble).histogram(4), "hist/4/f64");
  check(h.histogram(), "hist/default");
  check(histogram(h, 4, {{0., 4.}}), "hist/range");  // libtorch's spelling
  check(h.histogram(tensor({0.f, 1.f, 2.5f, 10.f})), "hist/tensor");
  check(histogram(h, 3, std::nullopt, arange(8.).to(kFloat)), "hist/weight");
  check(histogram(h, 3, std::nullopt, arange(8.).to(kFloat), true), "hist/density");
  check(histogram(h.to(kDouble), tensor({-4., 1., 2.5, 10.}, kDouble), std::nullopt, true),
        "hist/density/tensor");
  check(histogram(zeros({0}), 3), "hist/empty");
  check(histogram(tensor({2.f, 2.f}), 3), "hist/same");
  check(histogram(tensor({2.f, 2.f}), 3, std::vector<double>{1., 1.}), "hist/same_range");
  check(histogram(tensor({1.f, 2.f, 7.f, 3.f, 4.f, 0.5f}).view({2, 3}).t(), 5), "hist/2d_t");
  check(histogram(tensor({0.1, 0.2, 0.3}, kDouble), 7), "hist/fine");
  check(histogram(G("hist/tenth/in"), 10), "hist/tenth");  // values on the edges
  check(histogram(tensor({1.f, 2.f}), tensor({1.f, 0.f})), "hist/nonmonotonic");
}

TEST(HistogramTest, Errors) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor x = tensor({1.f, 2.f});
  expect_golden_error(kErrors, "histogram nan", [&] {
    histogram(tensor({1., nan}, kDouble).to(kFloat), 3);
  });
  expect_golden_error(kErrors, "histogram inf", [&] {
    histogram(tensor({1., inf}, kDouble).to(kFloat), 3);
  });
  expect_golden_error(kErrors, "histogram range nan", [&] {
    histogram(x, 3, std::vector<double>{nan, 1.});
  });
  expect_golden_error(kErrors, "histogram long", [&] { histogram(tensor({1, 2}, kLong), 3); });
  expect_golden_error(kErrors, "histogram half", [&] { histogram(x.to(kHalf), 3); });
  expect_golden_error(kErrors, "histogram bins 0", [&] { histogram(x, 0); });
  expect_golden_error(kErrors, "histogram bins -1", [&] { histogram(x, -1); });
  expect_golden_error(kErrors, "histogram min max", [&] {
    histogram(x, 3, std::vector<double>{2., 1.});
  });
  expect_golden_error(kErrors, "histogram bins 2d", [&] {
    histogram(x, tensor({1.f, 2.f}).view({1, 2}));
  });
  expect_golden_error(kErrors, "histogram bins dtype", [&] {
    histogram(x, tensor({1., 2.}, kDouble));
  });
  expect_golden_error(kErrors, "histogram bins 1", [&] { histogram(x, tensor({1.f})); });
  expect_golden_error(kErrors, "histogram weight shape",
                      [&] { histogram(x, 3, std::nullopt, tensor({1.f})); });
  expect_golden_error(kErrors, "histogram weight dtype", [&] {
    histogram(x, 3, std::nullopt, tensor({1., 2.}, kDouble));
  });
  expect_golden_error(kErrors, "histogram range 3", [&] {
    histogram(x, 3, std::vector<double>{0., 1., 2.});
  });
  expect_golden_error(kErrors, "histogram int range", [&] {
    histogram(tensor({1, 2}, kInt), 3, std::vector<double>{0., 1.});
  });
  expect_golden_error(kErrors, "histogram int bins tensor", [&] {
    histogram(tensor({1, 2}, kInt), tensor({0, 1, 2}, kInt));
  });
}

// Checks hist and every bin_edges tensor against "<name>/hist", "<name>/edgesD".
void check_hdd(const std::tuple<Tensor, std::vector<Tensor>>& r, const std::string& name) {
  EXPECT_TRUE(same(std::get<0>(r), name + "/hist")) << name;
  const std::vector<Tensor>& edges = std::get<1>(r);
  for (size_t d = 0; d < edges.size(); ++d) {
    EXPECT_TRUE(same(edges[d], name + "/edges" + std::to_string(d))) << name << " " << d;
  }
  EXPECT_EQ(edges.size(), std::get<0>(r).dim()) << name;
}

TEST(HistogramddTest, IntBins) {
  const Tensor x = G("hdd/in");
  check_hdd(histogramdd(x, {2, 3}), "hdd/bins23");
  check_hdd(histogramdd(x.to(kDouble), {2, 3}), "hdd/bins23/f64");
  check_hdd(histogramdd(x, 4), "hdd/int");
  check_hdd(histogramdd(x, {2, 2}, std::vector<double>{0., 1., 1., 2.}), "hdd/range");
  check_hdd(histogramdd(x, {3, 2}, std::nullopt, G("hdd/w")), "hdd/weight");
  check_hdd(histogramdd(x, {3, 2}, std::nullopt, G("hdd/w"), true), "hdd/density");
  check_hdd(histogramdd(x.to(kDouble), 3, std::nullopt, std::nullopt, true), "hdd/density/f64");
  const Tensor x3 = G("hdd/3d/in");
  check_hdd(histogramdd(x3, {2, 3, 2}, std::nullopt, make_input({2, 3}, kFloat, 5)), "hdd/3d");
  check_hdd(histogramdd(x3.transpose(0, 2), 2), "hdd/3d/t");
  check_hdd(histogramdd(x.narrow(1, 0, 1), 3), "hdd/1col");
}

TEST(HistogramddTest, EdgeCases) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  check_hdd(histogramdd(zeros({0, 2}), {2, 2}), "hdd/empty");
  check_hdd(histogramdd(zeros({0, 2}), {2, 2}, std::nullopt, std::nullopt, true),
            "hdd/empty/density");
  check_hdd(histogramdd(ones({2, 2}), {2, 2}), "hdd/same");
  check_hdd(histogramdd(ones({1, 2}), {2, 2}, std::nullopt, scalar_tensor(3.f)),
            "hdd/scalar_weight");
  check_hdd(histogramdd(zeros({2, 0}), IntArrayRef{}), "hdd/zero_dims");
  // A point with NaN in any dimension is ignored (see reduce_ops.h).
  const Tensor pts = tensor({0., nan, 1., 1., 0.5, 0.25, nan, 0.}, kDouble).view({4, 2});
  auto [hist, edges] = histogramdd(pts, {2, 2}, std::vector<double>{0., 1., 0., 1.});
  testing::expect_values(hist, tensor({0., 0., 1., 1.}, kDouble).view({2, 2}));
  auto [hist_t, edges_t] =
      histogramdd(pts, TensorList{edges[0], edges[1]}, std::nullopt, std::nullopt, false);
  testing::expect_values(hist_t, tensor({0., 0., 1., 1.}, kDouble).view({2, 2}));
}

TEST(HistogramddTest, TensorBins) {
  const Tensor x = G("hdd/in");
  const Tensor b0 = tensor({0.f, 0.5f, 2.f}), b1 = tensor({1.f, 2.f, 2.5f, 3.f});
  check_hdd(histogramdd(x, TensorList{b0, b1}), "hdd/tensors");
  check_hdd(histogramdd(x, TensorList{b0, b1}, std::nullopt, G("hdd/w"), true),
            "hdd/tensors/density");
  check_hdd(histogramdd(x, TensorList{b0, b1}, std::vector<double>{0., 1., 0., 1.}),
            "hdd/tensors/range_ignored");
  check_hdd(histogramdd(x, TensorList{tensor({2.f, 1.f, 0.f}), b1}), "hdd/nonmonotonic");
  // The returned edges are copies, not the caller's tensors.
  auto [hist, edges] = histogramdd(x, TensorList{b0, b1});
  edges[0].fill_(7.f);
  EXPECT_EQ(b0[0].item<float>(), 0.f);
}

TEST(HistogramddTest, Errors) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor x = G("hdd/in");
  const Tensor b0 = tensor({0.f, 0.5f, 2.f}), b1 = tensor({1.f, 2.f, 2.5f, 3.f});
  using V = std::vector<double>;
  expect_golden_error(kErrors, "histogramdd 1d", [&] { histogramdd(zeros({3}), {2}); });
  expect_golden_error(kErrors, "histogramdd 1d tensors",
                      [&] { histogramdd(zeros({3}), TensorList{b0}); });
  expect_golden_error(kErrors, "histogramdd bins 0", [&] { histogramdd(x, {2, 0}); });
  expect_golden_error(kErrors, "histogramdd bins -1", [&] { histogramdd(x, {2, -1}); });
  expect_golden_error(kErrors, "histogramdd bins -2", [&] { histogramdd(x, {2, -2}); });
  expect_golden_error(kErrors, "histogramdd range size", [&] { histogramdd(x, {2, 2}, V{0, 1}); });
  expect_golden_error(kErrors, "histogramdd min max", [&] {
    histogramdd(x, {2, 2}, V{0, 1, 2, 1});
  });
  expect_golden_error(kErrors, "histogramdd range inf", [&] {
    histogramdd(x, {2, 2}, V{0, 1, 2, inf});
  });
  expect_golden_error(kErrors, "histogramdd data nan", [&] {
    histogramdd(tensor({0., nan, 1., 1.}, kDouble).to(kFloat).view({2, 2}), {2, 2});
  });
  expect_golden_error(kErrors, "histogramdd int", [&] { histogramdd(x.to(kInt), {2, 2}); });
  expect_golden_error(kErrors, "histogramdd int range", [&] {
    histogramdd(x.to(kInt), {2, 2}, V{0, 1, 0, 1});
  });
  expect_golden_error(kErrors, "histogramdd weight shape", [&] {
    histogramdd(x, {2, 2}, std::nullopt, ones({3}));
  });
  expect_golden_error(kErrors, "histogramdd weight shape 2d", [&] {
    histogramdd(ones({2, 3, 2}), {2, 2}, std::nullopt, ones({3, 2}));
  });
  expect_golden_error(kErrors, "histogramdd weight dtype", [&] {
    histogramdd(x, {2, 2}, std::nullopt, ones({7}, kDouble));
  });
  expect_golden_error(kErrors, "histogramdd weight before bins", [&] {
    histogramdd(x, {2, 0}, std::nullopt, ones({3}));
  });
  expect_golden_error(kErrors, "histogramdd tensors count",
                      [&] { histogramdd(x, TensorList{b0}); });
  expect_golden_error(kErrors, "histogramdd tensors one edge", [&] {
    histogramdd(x, TensorList{b0, tensor({1.f})});
  });
  expect_golden_error(kErrors, "histogramdd tensors empty", [&] {
    histogramdd(x, TensorList{b0, zeros({0})});
  });
  expect_golden_error(kErrors, "histogramdd tensors 2d", [&] {
    histogramdd(x, TensorList{b0, b1.view({2, 2})});
  });
  expect_golden_error(kErrors, "histogramdd tensors dtype", [&] {
    histogramdd(x, TensorList{b0, b1.to(kDouble)});
  });
  expect_golden_error(kErrors, "histogramdd tensors int", [&] {
    histogramdd(x.to(kInt), TensorList{b0.to(kInt), b1.to(kInt)});
  });
  // ember raises where 1.13 reads past a short bins list (see reduce_ops.h).
  EXPECT_THROW(histogramdd(x, std::vector<int64_t>{2}), Error);
  EXPECT_THROW(histogramdd(x, std::vector<int64_t>{2, 2, 2}), Error);
}

TEST(HistogramddTest, CudaRaisesAs113) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  // The first sentence of 1.13's dispatcher error: the composite's first
  // op has a CPU kernel only.
  const Tensor x = G("hdd/in").to(kCUDA);
  testing::expect_error([&] { histogramdd(x, 2); },
                        "Could not run 'aten::_histogramdd_bin_edges' with arguments from the "
                        "'CUDA' backend.");
  const Tensor b = tensor({0.f, 1.f}).to(kCUDA);
  testing::expect_error(
      [&] {
        histogramdd(x, TensorList{b, b});
      },
      "Could not run 'aten::_histogramdd_from_bin_tensors' with arguments from "
      "the 'CUDA' backend.");
}

}  // namespace
}  // namespace ember
