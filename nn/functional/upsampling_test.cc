// F::interpolate against PyTorch (tools/golden/nn_ops_extra.py) and finite
// differences.
#include <limits>
#include <vector>

#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "gtest/gtest.h"
#include "nn/functional/testing/nn_golden.h"
#include "nn/functional/upsampling.h"
#include "tensor/all.h"

namespace ember {
namespace {

namespace F = nn::functional;
using testing::check_extra_case;
using testing::expect_nn_extra_error;
using V = std::vector<Tensor>;
using Sizes = std::vector<int64_t>;
using Scales = std::vector<double>;

F::InterpolateFuncOptions by_size(Sizes s, InterpolateMode m = kNearest) {
  return F::InterpolateFuncOptions().size(s).mode(m);
}
F::InterpolateFuncOptions by_scale(Scales s, InterpolateMode m = kNearest) {
  return F::InterpolateFuncOptions().scale_factor(s).mode(m);
}
void check(const std::string& name, const F::InterpolateFuncOptions& o, bool transpose = false) {
  check_extra_case(name, 1, {0}, [&](const V& x) {
    return F::interpolate(transpose ? x[0].transpose(2, 3) : x[0], o);
  });
}

TEST(Interpolate, Nearest) {
  check("interp_nearest1d_size", by_size({7}));
  check("interp_nearest1d_scale", by_scale({2.5}));
  check("interp_nearest1d_scale_down", by_scale({0.3}));
  check("interp_nearest2d_down", by_size({3, 4}));
  check("interp_nearest2d_scale_recompute", by_scale({1.7, 2.0}).recompute_scale_factor(true),
        /*transpose=*/true);
  check("interp_nearest3d", by_size({3, 5, 2}));
  check("interp_nearest_exact2d", by_size({5, 3}, kNearestExact));
  check("interp_nearest_exact1d_scale", by_scale({1.6}, kNearestExact));
}

TEST(Interpolate, Linear) {
  check("interp_linear", by_size({8}, kLinear));
  check("interp_linear_align", by_size({8}, kLinear).align_corners(true));
  check("interp_linear_down_scale", by_scale({0.45}, kLinear));
  check("interp_linear_same", by_size({5}, kLinear));
  check("interp_linear_scale_recompute", by_scale({1.7}, kLinear).recompute_scale_factor(true));
  check("interp_bilinear", by_size({5, 7}, kBilinear));
  check("interp_bilinear_align", by_size({3, 6}, kBilinear).align_corners(true), /*transpose=*/true);
  check("interp_bilinear_scale", by_scale({2.5, 0.6}, kBilinear));
  check("interp_trilinear", by_size({3, 4, 5}, kTrilinear));
  check("interp_trilinear_align", by_scale({1.5, 2, 0.5}, kTrilinear).align_corners(true));
}

TEST(Interpolate, Bicubic) {
  check("interp_bicubic", by_size({7, 9}, kBicubic));
  check("interp_bicubic_align", by_size({3, 8}, kBicubic).align_corners(true));
  check("interp_bicubic_scale", by_scale({1.5}, kBicubic));
  check("interp_bicubic_down", by_size({3, 2}, kBicubic));
}

// The CPU loops (Note [Upsampling on the CPU]): a NaN spreads to the
// outputs that read it, the result does not depend on the number of
// threads, and a channels-last input gives the contiguous input's numbers
// in a channels-last result.
TEST(Interpolate, CpuLoopsKeepNaNThreadsAndLayouts) {
  const int threads = get_num_threads();
  for (ScalarType t : {kFloat, kDouble}) {
    Tensor x = randn({2, 3, 40, 50}, t);
    x[0][1][5][7].fill_(std::numeric_limits<double>::quiet_NaN());
    for (InterpolateMode m : {kNearest, kNearestExact, kBilinear, kBicubic}) {
      const auto o = by_size({97, 61}, m);
      set_num_threads(1);
      const Tensor one = F::interpolate(x, o);
      set_num_threads(2);
      const Tensor two = F::interpolate(x, o);
      const Tensor cl = F::interpolate(x.contiguous(MemoryFormat::ChannelsLast), o);
      set_num_threads(threads);
      EXPECT_TRUE(one.isnan().any().item<bool>());
      EXPECT_TRUE(one.isnan().equal(two.isnan()));
      EXPECT_TRUE(one.nan_to_num(0).equal(two.nan_to_num(0)));
      EXPECT_TRUE(one.nan_to_num(0).equal(cl.nan_to_num(0)));
      EXPECT_EQ(cl.is_contiguous(MemoryFormat::ChannelsLast), m != kBicubic);
    }
  }
}

TEST(Interpolate, Area) {
  check("interp_area2d", by_size({3, 2}, kArea));
  check("interp_area1d_scale", by_scale({0.5}, kArea));
}

TEST(Interpolate, Gradcheck) {
  manual_seed(0);
  Tensor x = randn({1, 2, 3, 4}, kDouble).requires_grad_(true);
  for (InterpolateMode m : {kNearest, kBilinear, kBicubic}) {
    for (bool align : {false, true}) {
      if (m == kNearest && align) continue;
      F::InterpolateFuncOptions o = by_size({5, 3}, m);
      if (m != kNearest) o.align_corners(align);
      EXPECT_EQ(autograd::gradcheck([&](const V& v) { return V{F::interpolate(v[0], o)}; }, {x}), "")
          << interpolate_mode_name(m) << align;
    }
  }
}

TEST(Interpolate, Errors) {
  auto r = [](IntArrayRef s) { return zeros(s); };
  expect_nn_extra_error("interp_linear_4d", [&] { F::interpolate(r({1, 2, 3, 3}), by_size({4}, kLinear)); });
  expect_nn_extra_error("interp_bilinear_3d", [&] { F::interpolate(r({1, 2, 3}), by_size({4}, kBilinear)); });
  expect_nn_extra_error("interp_bicubic_5d",
                        [&] { F::interpolate(r({1, 2, 3, 3, 3}), by_size({4}, kBicubic)); });
  expect_nn_extra_error("interp_trilinear_4d",
                        [&] { F::interpolate(r({1, 2, 3, 3}), by_size({4}, kTrilinear)); });
  expect_nn_extra_error("interp_2d_input", [&] { F::interpolate(r({2, 3}), by_size({4})); });
  expect_nn_extra_error("interp_align_nearest",
                        [&] { F::interpolate(r({1, 2, 3}), by_size({4}).align_corners(true)); });
  expect_nn_extra_error("interp_both",
                        [&] { F::interpolate(r({1, 2, 3}), by_size({4}).scale_factor(Scales{2.0})); });
  expect_nn_extra_error("interp_neither", [&] { F::interpolate(r({1, 2, 3})); });
  expect_nn_extra_error("interp_size_len", [&] { F::interpolate(r({1, 2, 3, 3}), by_size({4, 4, 4})); });
  expect_nn_extra_error("interp_scale_len",
                        [&] { F::interpolate(r({1, 2, 3, 3}), by_scale({2.0, 2.0, 2.0})); });
  expect_nn_extra_error("interp_recompute_size", [&] {
    F::interpolate(r({1, 2, 3}), by_size({4}).recompute_scale_factor(true));
  });
  expect_nn_extra_error("interp_zero_size", [&] { F::interpolate(r({1, 2, 3, 3}), by_size({0, 2})); });
  expect_nn_extra_error("interp_area_empty_backward", [&] {
    Tensor x = r({1, 2, 1, 3}).requires_grad_();
    F::interpolate(x, by_size({1, 0}).mode(kArea)).sum().backward();
  });
}

}  // namespace
}  // namespace ember
