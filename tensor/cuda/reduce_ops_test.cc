// The device kernels of issue 17's last fallbacks against the CPU ops on
// the same inputs: mode and histc (mode_histc.cu), scatter_reduce /
// index_reduce (scatter_reduce.cu), multinomial with replacement
// (multinomial.cu). Every dtype each takes, ties and NaN, transposed
// operands, include_self, out-of-range indices (raised at the next
// synchronization), and multinomial's statistics. Needs a GPU; skips
// without one. Without CUDA kernels these ops reach the CPU
// (device_guard_test).

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "tensor/all.h"
#include "tensor/cuda/ops_testing.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using ::ember::testing::error_of;
using namespace ::ember::cuda_testing;  // NOLINT

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// What `f` throws once the device has been synchronized (Note [Device-side
// index checks]).
std::string device_error_of(const std::function<Tensor()>& f) {
  return error_of([&] {
    Tensor r = f();
    r.to(Device(kCPU));
  });
}

// Few distinct values (many ties), a NaN in floating inputs.
Tensor tied(IntArrayRef sizes, ScalarType t, int distinct = 4) {
  Tensor x = (values(sizes, kDouble, 1) * distinct).round();
  if (is_floating_point(t)) x.view({-1})[3] = kNaN;
  if (t == kByte) x = x.abs();
  return x.to(t);
}

// --- mode -------------------------------------------------------------------

TEST(CudaReduceOpsTest, ModeMatchesTheCpuExactlyWithTies) {
  SKIP_WITHOUT_CUDA_DEVICE();
  std::vector<ScalarType> types(std::begin(kNumeric), std::end(kNumeric));
  types.push_back(kBool);
  for (ScalarType t : types) {
    SCOPED_TRACE(scalar_type_name(t));
    // Rows of 7 (insertion sort only) and of 150 (introsort, ties galore).
    for (int64_t len : {7, 150}) {
      const Tensor x = t == kBool ? values({6, len}, kBool) : tied({6, len}, t);
      for (const Tensor& in : {x, x.t()}) {
        for (int64_t dim : {-1, 0}) {
          for (bool keepdim : {false, true}) {
            const auto [v, i] = mode(in.to(kCuda), dim, keepdim);
            const auto [cv, ci] = mode(in, dim, keepdim);
            expect_matches(v, cv, 0, 0);
            expect_matches(i, ci);
          }
        }
      }
    }
  }
  // A long row of two values, sorted and reversed (deep introsort).
  Tensor x = (arange(3000) % 2).to(kFloat);
  for (const Tensor& in : {x, std::get<0>(x.sort()), std::get<0>(x.sort(0, true))}) {
    const auto [v, i] = mode(in.to(kCuda));
    const auto [cv, ci] = mode(in);
    expect_matches(v, cv, 0, 0);
    expect_matches(i, ci);
  }
  // 0-dim and empty.
  const Tensor s = tensor(2.5);
  expect_matches(std::get<1>(mode(s.to(kCuda))), std::get<1>(mode(s)));
  const Tensor e = empty({0, 4});
  expect_matches(std::get<0>(mode(e.to(kCuda), 1)), std::get<0>(mode(e, 1)));
}

// --- histc ------------------------------------------------------------------

TEST(CudaReduceOpsTest, HistcCountsAsTheCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : {kFloat, kDouble, kBFloat16}) {
    SCOPED_TRACE(scalar_type_name(t));
    Tensor x = values({40, 30}, kDouble, 3);
    x[1][1] = 3;  // on the last edge of [-3, 3]
    Tensor with_nan = x.clone();
    with_nan[0][0] = kNaN;  // counted in the first bin, as on the CPU
    x = x.to(t);
    with_nan = with_nan.to(t);
    for (int64_t bins : {1, 7, 100}) {
      for (const Tensor& in : {x, x.t()}) {  // the data's range
        expect_matches(histc(in.to(kCuda), bins), histc(in, bins), 0, 0);
      }
      for (const Tensor& in : {x, with_nan, with_nan.t()}) {
        expect_matches(histc(in.to(kCuda), bins, -3, 3), histc(in, bins, -3, 3), 0, 0);
        expect_matches(histc(in.to(kCuda), bins, -1, 2.5), histc(in, bins, -1, 2.5), 0, 0);
      }
    }
    // NaN with the data's range: the CPU's error.
    EXPECT_EQ(error_of([&] { histc(with_nan.to(kCuda), 5); }),
              error_of([&] { histc(with_nan, 5); }));
    // One value: the range widens by one each way.
    const Tensor c = full({5}, 2, TensorOptions(t));
    expect_matches(histc(c.to(kCuda), 4), histc(c, 4), 0, 0);
    expect_matches(histc(empty({0}, TensorOptions(t)).to(kCuda), 3),
                   histc(empty({0}, TensorOptions(t)), 3), 0, 0);
  }
  // Counts past bfloat16's exact integers, in one chunk and in several.
  for (int64_t n : {1000, 70000}) {
    const Tensor b = (arange(n) % 3).to(kBFloat16);
    expect_matches(histc(b.to(kCuda), 3, 0, 2), histc(b, 3, 0, 2), 0, 0);
  }
  EXPECT_EQ(error_of([&] {
              histc(tensor({1, 2}).to(kCuda), 3);
            }),
            error_of([&] {
              histc(tensor({1, 2}), 3);
            }));
  EXPECT_EQ(error_of([&] { histc(values({4}, kFloat).to(kCuda), 0); }),
            error_of([&] { histc(values({4}, kFloat), 0); }));
}

// --- scatter_reduce / index_reduce -------------------------------------------

// Rows r of column c of a [6, 5] index hold (2r + c) % 3: every position of
// dim 0 of a [3, 5] self receives several values.
Tensor repeated_index() {
  Tensor i = empty({6, 5}, TensorOptions(kLong));
  int64_t* p = i.data_ptr<int64_t>();
  for (int64_t k = 0; k < 30; ++k) p[k] = (2 * (k / 5) + k % 5) % 3;
  return i;
}

// Integers and amax/amin exactly, floating sums, products and means within
// their order's rounding.
void expect_reduced(const Tensor& got, const Tensor& want, const std::string& reduce) {
  const ScalarType t = want.dtype();
  if (!is_floating_point(t) || reduce == "amax" || reduce == "amin") {
    expect_matches(got, want, 0, 0);
  } else {
    expect_matches(got, want, 4 * rtol_for(t), 4 * rtol_for(t));
  }
}

TEST(CudaReduceOpsTest, ScatterReduceMatchesTheCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const Tensor idx = repeated_index();
  std::vector<ScalarType> types(std::begin(kNumeric), std::end(kNumeric));
  types.push_back(kBool);
  for (ScalarType t : types) {
    SCOPED_TRACE(scalar_type_name(t));
    // Small magnitudes so that products stay in range.
    Tensor self = t == kBool ? values({3, 5}, kBool) : values({3, 5}, t, 2);
    Tensor src = t == kBool ? values({6, 5}, kBool) : values({6, 5}, t, 2);
    if (is_floating_point(t)) src[2][1] = kNaN;
    for (const char* reduce : {"sum", "prod", "mean", "amax", "amin"}) {
      if (t == kBool && std::string(reduce) == "mean") continue;
      for (bool include_self : {true, false}) {
        SCOPED_TRACE(std::string(reduce) + (include_self ? " include_self" : ""));
        expect_reduced(
            scatter_reduce(self.to(kCuda), 0, idx.to(kCuda), src.to(kCuda), reduce, include_self),
            scatter_reduce(self, 0, idx, src, reduce, include_self), reduce);
        // Along dim 1, transposed self, src and index; in place.
        const Tensor st = self.t(), rt = src.t(), it = idx.t();
        const Tensor dev = self.to(kCuda).t();  // a transposed view on the device
        ASSERT_FALSE(dev.is_contiguous());
        Tensor dst = self.t().contiguous().to(kCuda).t();
        ASSERT_FALSE(dst.is_contiguous());
        dst.scatter_reduce_(0, it.t().to(kCuda), rt.t().to(kCuda), reduce, include_self);
        Tensor want = self.t().contiguous().t();
        want.scatter_reduce_(0, it.t(), rt.t(), reduce, include_self);
        expect_reduced(dst, want, reduce);
        expect_reduced(scatter_reduce(dev, 1, it.to(kCuda), rt.to(kCuda), reduce, include_self),
                       scatter_reduce(st, 1, it, rt, reduce, include_self), reduce);
      }
    }
  }
  // Integer mean floors, as on the CPU.
  const Tensor li = tensor({int64_t{0}, 0, 1}), ls = tensor({int64_t{-3}, 2, 5});
  const Tensor lself = tensor({int64_t{1}, 1});
  expect_matches(scatter_reduce(lself.to(kCuda), 0, li.to(kCuda), ls.to(kCuda), "mean"),
                 scatter_reduce(lself, 0, li, ls, "mean"));
}

TEST(CudaReduceOpsTest, IndexReduceMatchesTheCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kNumeric) {
    SCOPED_TRACE(scalar_type_name(t));
    const Tensor self = values({4, 3}, t, 2), source = values({6, 3}, t, 2);
    for (ScalarType it : {kLong, kInt}) {
      const Tensor index = tensor({int64_t{0}, 2, 0, 3, 2, 0}).to(it);
      for (const char* reduce : {"prod", "mean", "amax", "amin"}) {
        for (bool include_self : {true, false}) {
          SCOPED_TRACE(std::string(reduce) + (include_self ? " include_self" : ""));
          expect_reduced(index_reduce(self.to(kCuda), 0, index.to(kCuda), source.to(kCuda), reduce,
                                      include_self),
                         index_reduce(self, 0, index, source, reduce, include_self), reduce);
          // Along dim 1 of the transposes, source broadcast from a vector.
          const Tensor row = values({6}, t, 2);
          expect_reduced(index_reduce(self.t().to(kCuda), 1, index.to(kCuda), row.to(kCuda), reduce,
                                      include_self),
                         index_reduce(self.t(), 1, index, row, reduce, include_self), reduce);
        }
      }
    }
  }
}

TEST(CudaReduceOpsTest, OutOfRangeIndicesRaiseAtTheNextSynchronization) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const Tensor x = values({3, 4}, kFloat).to(kCuda);
  const Tensor bad = tensor({{int64_t{0}, 1, 3, 2}}).to(kCuda);
  const Tensor src = values({1, 4}, kFloat).to(kCuda);
  for (const char* reduce : {"sum", "prod", "mean", "amax", "amin"}) {
    EXPECT_EQ(device_error_of([&] { return scatter_reduce(x, 0, bad, src, reduce); }),
              "index 3 is out of bounds for dimension 0 with size 3");
    EXPECT_EQ(device_error_of([&] { return scatter_reduce(x, 0, bad.neg(), src, reduce, false); }),
              "index -1 is out of bounds for dimension 0 with size 3");
  }
  ::ember::testing::expect_error<IndexError>(
      [&] {
        x.index_reduce(0, tensor({int64_t{0}, 3}).to(kCuda), values({2, 4}, kFloat).to(kCuda),
                       "amax")
            .to(Device(kCPU));
      },
      "index out of range in self");
  ::ember::testing::expect_error<IndexError>(
      [&] {
        x.index_reduce(1, tensor({-1}).to(kInt).to(kCuda), values({3, 1}, kFloat).to(kCuda), "prod")
            .to(Device(kCPU));
      },
      "index out of range in self");
  // Afterwards the device works as before.
  const Tensor good = tensor({{int64_t{0}, 1, 2, 2}}).to(kCuda);
  expect_matches(
      scatter_reduce(x, 0, good, src, "sum"),
      scatter_reduce(x.to(Device(kCPU)), 0, good.to(Device(kCPU)), src.to(Device(kCPU)), "sum"));
  // Host-side checks are the CPU's, raised at once.
  EXPECT_EQ(error_of([&] { scatter_reduce(x, 0, good, src, "max"); }),
            "reduce argument must be either sum, prod, mean, amax or amin.");
  EXPECT_EQ(error_of([&] { scatter_reduce(x, 0, good, src, "sum", true).to(kCPU); }), "(no error)");
  EXPECT_EQ(error_of([&] { scatter_reduce(x, 0, good.to(kInt), src, "sum"); }), error_of([&] {
              scatter_reduce(x.to(kCPU), 0, good.to(kInt).to(kCPU), src.to(kCPU), "sum");
            }));
  EXPECT_EQ(error_of([&] { scatter_reduce(x, 0, good, src.to(kCPU), "sum"); }),
            "Expected all tensors to be on the same device, but found at least two devices, "
            "cuda:0 and cpu!");
}

// --- multinomial --------------------------------------------------------------

TEST(CudaReduceOpsTest, MultinomialWithReplacementFollowsTheProbabilities) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const std::vector<double> p = {0.1, 0.2, 0.0, 0.3, 0.4, 0.0};
  const int64_t n = 200000;
  for (ScalarType t : kFloating) {
    SCOPED_TRACE(scalar_type_name(t));
    // Unnormalized weights, two rows: the second the first reversed.
    Tensor w = tensor(p).to(t) * 5;
    w = stack({w, w.flip({0})});
    manual_seed(17);
    const Tensor draws = multinomial(w.to(kCuda), n, /*replacement=*/true);
    ASSERT_TRUE(draws.is_cuda());
    ASSERT_EQ(draws.sizes(), IntArrayRef({2, n}));
    ASSERT_EQ(draws.dtype(), kLong);
    const Tensor host = draws.to(Device(kCPU));
    for (int64_t r = 0; r < 2; ++r) {
      const Tensor counts = bincount(host[r], std::nullopt, 6);
      double chi2 = 0;
      for (int64_t c = 0; c < 6; ++c) {
        const double want = p[r == 0 ? c : 5 - c];
        const int64_t got = counts[c].item<int64_t>();
        if (want == 0) {
          EXPECT_EQ(got, 0) << "a category of probability 0 was drawn";
          continue;
        }
        const double e = want * n;
        chi2 += (got - e) * (got - e) / e;
      }
      // 3 degrees of freedom: P(chi2 > 25) < 2e-5.
      EXPECT_LT(chi2, 25) << "row " << r;
    }
    // The same seed, the same draws.
    manual_seed(17);
    EXPECT_TRUE(multinomial(w.to(kCuda), n, true).to(Device(kCPU)).equal(host));
    manual_seed(18);
    EXPECT_FALSE(multinomial(w.to(kCuda), n, true).to(Device(kCPU)).equal(host));
  }
  // 1-D input, transposed 2-D input.
  const Tensor v = tensor({0.0, 1.0, 0.0}).to(kCuda);
  EXPECT_TRUE(multinomial(v, 50, true).to(Device(kCPU)).equal(full({50}, int64_t{1})));
  const Tensor m = tensor({{1.0, 0.0}, {0.0, 0.0}, {0.0, 1.0}}).t();  // rows: [1,0,0], [0,0,1]
  const Tensor d = multinomial(m.to(kCuda), 20, true).to(Device(kCPU));
  EXPECT_TRUE(d[0].equal(full({20}, int64_t{0})));
  EXPECT_TRUE(d[1].equal(full({20}, int64_t{2})));
}

TEST(CudaReduceOpsTest, MultinomialRejectsTheCpusInvalidDistributions) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const std::vector<std::vector<double>> rows = {
      {0.5, -1.0, 0.2}, {0.5, kNaN, 1.0}, {0.5, INFINITY, 1.0}, {0.0, 0.0, 0.0}};
  for (const std::vector<double>& r : rows) {
    for (ScalarType t : {kFloat, kDouble, kHalf}) {
      const Tensor w = stack({tensor({1.0, 1.0, 1.0}), tensor(r)}).to(t);
      EXPECT_EQ(error_of([&] { multinomial(w.to(kCuda), 4, true); }),
                error_of([&] { multinomial(w, 4, true); }));
    }
  }
}

}  // namespace
}  // namespace ember
