// grid_sampler.cu against the CPU kernels (tensor/grid_sampler.cc): the
// output, grad_input and grad_grid over every mode x padding x
// align_corners, 2-D and 3-D, float, double and half, non-contiguous input and
// grid, and NaN / infinities in the grid. Needs a GPU, skips without one.

#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <limits>
#include <tuple>

#include "tensor/all.h"
#include "tensor/cuda/ops_testing.h"

namespace ember {
namespace {

using namespace ::ember::cuda_testing;  // NOLINT

using View = std::function<Tensor(const Tensor&)>;
const View kAsIs = [](const Tensor& t) { return t; };

struct Tols {
  double rtol, atol;
};
// grad_input's atomic adds and nvcc's fused multiply-adds round differently.
Tols tols_for(ScalarType t) { return t == kFloat ? Tols{1e-4, 1e-4} : Tols{1e-10, 1e-10}; }

Tensor sample(const Tensor& x, const Tensor& g, int64_t mode, int64_t pad, bool align) {
  return grid_sampler(x, g, mode, pad, align);
}

std::tuple<Tensor, Tensor> sample_backward(const Tensor& go, const Tensor& x, const Tensor& g,
                                           int64_t mode, int64_t pad, bool align,
                                           std::array<bool, 2> mask) {
  if (x.dim() == 5) return grid_sampler_3d_backward(go, x, g, mode, pad, align, mask);
  return grid_sampler_2d_backward(go, x, g, mode, pad, align, mask);
}

// input_view(input) and grid_view(grid) on both devices, the CUDA ones
// built on the device so that they keep the views' strides.
void compare_all_modes(const Tensor& input, const Tensor& grid, const View& input_view,
                       const View& grid_view) {
  const Tensor x = input_view(input), g = grid_view(grid);
  const Tensor xc = input_view(input.to(kCuda)), gc = grid_view(grid.to(kCuda));
  ASSERT_EQ(xc.strides(), x.strides());
  ASSERT_EQ(gc.strides(), g.strides());
  const bool three_d = x.dim() == 5;
  const Tols tol = tols_for(x.dtype());
  for (int64_t mode : {0, 1, 2}) {
    if (three_d && mode == 2) continue;  // bicubic is 4-D only
    for (int64_t pad : {0, 1, 2}) {
      for (bool align : {false, true}) {
        SCOPED_TRACE(::testing::Message()
                     << "mode " << mode << " padding " << pad << " align_corners " << align);
        const Tensor out = sample(x, g, mode, pad, align);
        const Tensor out_c = sample(xc, gc, mode, pad, align);
        expect_matches(out_c, out, tol.rtol, tol.atol);
        const Tensor go = values(out.sizes(), x.dtype(), 1);
        auto [gi, gg] = sample_backward(go, x, g, mode, pad, align, {true, true});
        auto [gi_c, gg_c] = sample_backward(go.to(kCuda), xc, gc, mode, pad, align, {true, true});
        expect_matches(gi_c, gi, tol.rtol, tol.atol);
        expect_matches(gg_c, gg, tol.rtol, tol.atol);
        // Without grad_input the kernel gets no pointer for it.
        auto [no_gi, gg_only] =
            sample_backward(go.to(kCuda), xc, gc, mode, pad, align, {false, true});
        EXPECT_FALSE(no_gi.defined());
        expect_matches(gg_only, gg, tol.rtol, tol.atol);
      }
    }
  }
}

TEST(GridSamplerCudaTest, TwoDMatchesCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : {kFloat, kDouble}) {
    SCOPED_TRACE(scalar_type_name(t));
    // Grid values beyond [-1, 1] reach every padding rule.
    compare_all_modes(values({2, 3, 5, 7}, t, 1), values({2, 4, 6, 2}, t, 1.3), kAsIs, kAsIs);
  }
}

TEST(GridSamplerCudaTest, ThreeDMatchesCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : {kFloat, kDouble}) {
    SCOPED_TRACE(scalar_type_name(t));
    compare_all_modes(values({2, 3, 4, 5, 6}, t, 1), values({2, 3, 4, 5, 3}, t, 1.3), kAsIs, kAsIs);
  }
}

TEST(GridSamplerCudaTest, NonContiguousMatchesCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  // Input channels-last by a permute; grid's (x, y[, z]) strided inside a
  // wider last dim and its rows transposed.
  const View input_2d = [](const Tensor& t) { return t.permute({0, 3, 1, 2}); };
  const View grid_2d = [](const Tensor& t) { return t.narrow(-1, 1, 2).transpose(1, 2); };
  compare_all_modes(values({2, 5, 7, 3}, kDouble, 1), values({2, 6, 4, 3}, kDouble, 1.3), input_2d,
                    grid_2d);
  const View input_3d = [](const Tensor& t) { return t.permute({0, 4, 1, 2, 3}); };
  const View grid_3d = [](const Tensor& t) { return t.slice(-1, 0, 6, 2).transpose(1, 3); };
  compare_all_modes(values({2, 4, 5, 6, 3}, kFloat, 1), values({2, 5, 4, 3, 6}, kFloat, 1.3),
                    input_3d, grid_3d);
}

// Note [grid_sampler as 1.13 computes it]: NaN and infinities come out as
// on the CPU (NaN for 2-D zeros padding, the clipped border elsewhere).
TEST(GridSamplerCudaTest, NanAndInfinityInGridMatchCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  Tensor g2 = values({1, 3, 4, 2}, kDouble, 1.3);
  g2.select(1, 0).select(1, 0).select(1, 0).fill_(nan);
  g2.select(1, 1).select(1, 2).select(1, 1).fill_(nan);
  g2.select(1, 2).select(1, 3).select(1, 0).fill_(inf);
  g2.select(1, 2).select(1, 1).select(1, 1).fill_(-inf);
  compare_all_modes(values({1, 2, 4, 5}, kDouble, 1), g2, kAsIs, kAsIs);
  Tensor g3 = values({1, 2, 3, 4, 3}, kDouble, 1.3);
  g3.select(1, 0).select(1, 0).select(1, 0).select(1, 2).fill_(nan);
  g3.select(1, 1).select(1, 2).select(1, 3).select(1, 0).fill_(inf);
  g3.select(1, 1).select(1, 1).select(1, 1).select(1, 1).fill_(-inf);
  compare_all_modes(values({1, 2, 3, 4, 5}, kDouble, 1), g3, kAsIs, kAsIs);
}

// Every point on the same few input elements: grad_input's atomic adds
// collide, and still sum to the CPU's.
TEST(GridSamplerCudaTest, CollidingGradientsSumAsOnCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const Tensor g = values({2, 64, 64, 2}, kDouble, 0.05);
  compare_all_modes(values({2, 3, 4, 4}, kDouble, 1), g, kAsIs, kAsIs);
}

TEST(GridSamplerCudaTest, OutputStaysOnTheDevice) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const Tensor x = values({1, 2, 3, 3}, kFloat, 1).to(kCuda);
  const Tensor g = values({1, 2, 2, 2}, kFloat, 1).to(kCuda);
  const Tensor out = grid_sampler(x, g, 0, 0, false);
  EXPECT_TRUE(out.is_cuda());
  auto [gi, gg] = grid_sampler_2d_backward(ones_like(out), x, g, 0, 0, false, {true, true});
  EXPECT_TRUE(gi.is_cuda());
  EXPECT_TRUE(gg.is_cuda());
}

// Half on CUDA (as 1.13's CUDA kernels) computes in float: against the
// CPU's float result on the same half-rounded values, within half's
// rounding of the results.
TEST(GridSamplerCudaTest, HalfMatchesTheCpuInFloat) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (bool three_d : {false, true}) {
    SCOPED_TRACE(three_d ? "3-D" : "2-D");
    const Tensor x =
        values(three_d ? IntArrayRef{2, 3, 3, 4, 5} : IntArrayRef{2, 3, 5, 7}, kFloat, 1).to(kHalf);
    const Tensor g =
        values(three_d ? IntArrayRef{2, 2, 3, 4, 3} : IntArrayRef{2, 4, 6, 2}, kFloat, 1.3)
            .to(kHalf);
    for (int64_t mode : {0, 1}) {
      for (int64_t pad : {0, 1, 2}) {
        SCOPED_TRACE(::testing::Message() << "mode " << mode << " padding " << pad);
        const Tensor out_c = sample(x.to(kCuda), g.to(kCuda), mode, pad, false);
        ASSERT_EQ(out_c.dtype(), kHalf);
        const Tensor out = sample(x.to(kFloat), g.to(kFloat), mode, pad, false);
        expect_matches(out_c.to(kFloat), out, 1e-2, 1e-2);
        const Tensor go = values(out.sizes(), kFloat, 1).to(kHalf);
        auto [gi_c, gg_c] =
            sample_backward(go.to(kCuda), x.to(kCuda), g.to(kCuda), mode, pad, false, {true, true});
        ASSERT_EQ(gi_c.dtype(), kHalf);
        ASSERT_EQ(gg_c.dtype(), kHalf);
        auto [gi, gg] = sample_backward(go.to(kFloat), x.to(kFloat), g.to(kFloat), mode, pad, false,
                                        {true, true});
        expect_matches(gi_c.to(kFloat), gi, 1e-2, 1e-2);
        expect_matches(gg_c.to(kFloat), gg, 2e-2, 2e-2);
      }
    }
  }
}

// CUDA takes float, double and half (1.13's CUDA dispatch): others raise,
// and so does a grid of another dtype than the input's.
TEST(GridSamplerCudaTest, DtypeErrors) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const Tensor x = values({1, 2, 3, 3}, kFloat, 1).to(kCuda);
  const Tensor g = values({1, 2, 2, 2}, kFloat, 1).to(kCuda);
  EXPECT_THROW(grid_sampler(x.to(kBFloat16), g.to(kBFloat16), 0, 0, false), Error);
  EXPECT_THROW(grid_sampler(x, g.to(kDouble), 0, 0, false), Error);
  EXPECT_THROW(grid_sampler(x.to(kHalf), g, 0, 0, false), Error);
}

}  // namespace
}  // namespace ember
