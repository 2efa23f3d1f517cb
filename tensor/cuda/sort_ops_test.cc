// sort_ops.cu's kernels (cummax/cummin, logcumsumexp, searchsorted) against
// the CPU's on the same inputs: every dtype they take, ties and NaN, along
// the last and a leading dim, transposed inputs. Needs a GPU; skips without
// one. Without CUDA kernels these ops reach the CPU (device_guard_test).

#include <gtest/gtest.h>

#include <limits>
#include <tuple>

#include "tensor/all.h"
#include "tensor/cuda/ops_testing.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using ::ember::testing::error_of;
using namespace ::ember::cuda_testing;  // NOLINT

// values() rounded to halves, so that rows have ties, with a NaN in float
// inputs.
Tensor with_ties(ScalarType t) {
  Tensor x = (values({6, 9}, kDouble, 4) * 2).round() / 2;
  if (is_floating_point(t)) x[2][4] = std::numeric_limits<double>::quiet_NaN();
  return x.to(t);
}

TEST(CudaSortOpsTest, CummaxCumminMatchTheCpuExactly) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kNumeric) {
    SCOPED_TRACE(scalar_type_name(t));
    const Tensor x = with_ties(t);
    for (const Tensor& in : {x, x.t()}) {
      for (int64_t dim : {-1, 0}) {
        const auto [v, i] = cummax(in.to(kCuda), dim);
        const auto [cv, ci] = cummax(in, dim);
        expect_matches(v, cv, 0, 0);
        expect_matches(i, ci);
        const auto [w, j] = cummin(in.to(kCuda), dim);
        const auto [cw, cj] = cummin(in, dim);
        expect_matches(w, cw, 0, 0);
        expect_matches(j, cj);
      }
    }
  }
  const Tensor b = values({4, 5}, kBool);
  expect_matches(std::get<1>(cummax(b.to(kCuda), 1)), std::get<1>(cummax(b, 1)));
}

TEST(CudaSortOpsTest, LogcumsumexpMatchesTheCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : {kBFloat16, kFloat, kDouble}) {
    SCOPED_TRACE(scalar_type_name(t));
    Tensor x = values({5, 40}, kDouble, 30);
    x[1][3] = std::numeric_limits<double>::infinity();
    x[2][0] = -std::numeric_limits<double>::infinity();
    x[3][7] = std::numeric_limits<double>::quiet_NaN();
    x = x.to(t);
    const double tol = std::max(rtol_for(t), 1e-13);
    for (int64_t dim : {-1, 0}) {
      expect_matches(logcumsumexp(x.to(kCuda), dim), logcumsumexp(x, dim), tol, tol);
      expect_matches(logcumsumexp(x.t().to(kCuda), dim), logcumsumexp(x.t(), dim), tol, tol);
    }
  }
}

TEST(CudaSortOpsTest, SearchsortedMatchesTheCpuExactly) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kNumeric) {
    SCOPED_TRACE(scalar_type_name(t));
    const Tensor sorted = std::get<0>(with_ties(t).sort(-1));
    const Tensor v = values({6, 7}, t, 5);
    for (bool right : {false, true}) {
      for (bool int32 : {false, true}) {
        expect_matches(searchsorted(sorted.to(kCuda), v.to(kCuda), int32, right),
                       searchsorted(sorted, v, int32, right));
        expect_matches(searchsorted(sorted[0].to(kCuda), v.t().to(kCuda), int32, right),
                       searchsorted(sorted[0], v.t(), int32, right));
      }
    }
    expect_matches(bucketize(v.to(kCuda), sorted[1].to(kCuda)), bucketize(v, sorted[1]));
  }
  // A sorter, and an out-of-range sorter index, raised as on the CPU.
  const Tensor unsorted = tensor({5.0f, 1.0f, 3.0f});
  const Tensor sorter = tensor({1, 2, 0}, kLong);
  const Tensor v = tensor({0.0f, 2.0f, 3.0f, 9.0f});
  expect_matches(
      searchsorted(unsorted.to(kCuda), v.to(kCuda), false, true, std::nullopt, sorter.to(kCuda)),
      searchsorted(unsorted, v, false, true, std::nullopt, sorter));
  EXPECT_EQ(error_of([&] {
              searchsorted(unsorted.to(kCuda), v.to(kCuda), false, false, std::nullopt,
                           tensor({1, 7, 0}, kLong).to(kCuda));
            }),
            "torch.searchsorted(): sorter index 7 is out of range for a boundary of size 3");
}

}  // namespace
}  // namespace ember
