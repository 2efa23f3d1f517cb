// F::grid_sample and F::affine_grid against PyTorch 1.13
// (tools/golden/grid_sample.py): outputs and the gradients for input and
// grid in float32 and float64 over every mode x padding_mode x
// align_corners, grids outside [-1, 1], nearest's ties, NaN and infinities,
// non-contiguous inputs; float64 gradcheck; the errors.

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "nn/functional/testing/nn_golden.h"
#include "nn/functional/vision.h"
#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

namespace F = nn::functional;
using testing::check_case_in;
using In = std::vector<Tensor>;
using V = autograd::variable_list;

const testing::GoldenEntry kGolden[] = {
#include "nn/functional/testdata/grid_sample_golden.inc"
};
const testing::GoldenError kErrors[] = {
#include "nn/functional/testdata/grid_sample_errors_golden.inc"
};

struct Mode {
  const char* name;
  InterpolateMode mode;
};
const Mode kModes[] = {{"bilinear", kBilinear}, {"nearest", kNearest}, {"bicubic", kBicubic}};
struct Pad {
  const char* name;
  F::GridSamplePaddingMode mode;
};
const Pad kPads[] = {{"zeros", kZeros}, {"border", kBorder}, {"reflection", kReflection}};

F::GridSampleFuncOptions opts(InterpolateMode m, const F::GridSamplePaddingMode& p, bool ac) {
  return F::GridSampleFuncOptions().mode(m).padding_mode(p).align_corners(ac);
}

testing::CaseFn sampler(InterpolateMode m, const F::GridSamplePaddingMode& p, bool ac) {
  return [=](const In& in) { return F::grid_sample(in[0], in[1], opts(m, p, ac)); };
}

std::string ac_name(bool ac) { return ac ? "ac" : "noac"; }

TEST(GridSample, EveryModePaddingAndAlignment) {
  for (const Mode& m : kModes) {
    for (const Pad& p : kPads) {
      for (bool ac : {false, true}) {
        const std::string sfx = std::string(m.name) + "_" + p.name + "_" + ac_name(ac);
        check_case_in(kGolden, "2d_" + sfx, 2, {0, 1}, sampler(m.mode, p.mode, ac));
        if (m.mode != kBicubic) {
          check_case_in(kGolden, "3d_" + sfx, 2, {0, 1}, sampler(m.mode, p.mode, ac));
        }
      }
    }
  }
}

TEST(GridSample, FarOutsideTheInput) {
  for (const Pad& p : kPads) {
    for (bool ac : {false, true}) {
      const std::string sfx = std::string(p.name) + "_" + ac_name(ac);
      check_case_in(kGolden, "2d_far_bilinear_" + sfx, 2, {0, 1}, sampler(kBilinear, p.mode, ac));
      check_case_in(kGolden, "2d_far_bicubic_" + sfx, 2, {0, 1}, sampler(kBicubic, p.mode, ac));
    }
  }
}

// 2-D rounds ties to even, 3-D away from zero, as 1.13's two CPU kernels.
TEST(GridSample, NearestTies) {
  for (const Pad& p : kPads) {
    for (bool ac : {false, true}) {
      const std::string sfx = std::string(p.name) + "_" + ac_name(ac);
      check_case_in(kGolden, "2d_ties_nearest_" + sfx, 2, {0}, sampler(kNearest, p.mode, ac));
      check_case_in(kGolden, "3d_ties_nearest_" + sfx, 2, {0}, sampler(kNearest, p.mode, ac));
    }
  }
}

// Note [grid_sampler as 1.13 computes it] (tensor/grid_sampler_math.h).
TEST(GridSample, NanAndInfinitiesInTheGrid) {
  for (const Pad& p : kPads) {
    for (bool ac : {false, true}) {
      const std::string sfx = std::string(p.name) + "_" + ac_name(ac);
      const bool zeros = std::string(p.name) == "zeros";
      for (const Mode& m : kModes) {
        std::vector<int> grads;
        if (zeros && m.mode != kBicubic) grads = {0, 1};
        check_case_in(kGolden, std::string("2d_nonfinite_") + m.name + "_" + sfx, 2, grads,
                      sampler(m.mode, p.mode, ac));
        if (m.mode == kBicubic) continue;
        check_case_in(kGolden, std::string("3d_nonfinite_") + m.name + "_" + sfx, 2,
                      zeros ? std::vector<int>{0, 1} : std::vector<int>{},
                      sampler(m.mode, p.mode, ac));
      }
    }
  }
}

TEST(GridSample, NonContiguousInputAndGrid) {
  for (const Mode& m : kModes) {
    const InterpolateMode mode = m.mode;
    check_case_in(kGolden, std::string("2d_strided_") + m.name, 2, {0, 1}, [=](const In& in) {
      Tensor x = in[0].permute({0, 3, 2, 1});
      Tensor g = in[1].slice(3, 0, 4, 2);
      EXPECT_FALSE(x.is_contiguous());
      EXPECT_FALSE(g.is_contiguous());
      return F::grid_sample(x, g, opts(mode, kReflection, false));
    });
    if (mode == kBicubic) continue;
    check_case_in(kGolden, std::string("3d_strided_") + m.name, 2, {0, 1}, [=](const In& in) {
      return F::grid_sample(in[0].permute({0, 4, 3, 2, 1}), in[1].slice(4, 1, 6, 2),
                            opts(mode, kBorder, true));
    });
  }
}

TEST(GridSample, SizeOneAndEmpty) {
  for (const Mode& m : kModes) {
    for (const Pad& p : kPads) {
      check_case_in(kGolden, std::string("2d_size1_") + m.name + "_" + p.name, 2, {0, 1},
                    sampler(m.mode, p.mode, true));
    }
  }
  check_case_in(kGolden, "2d_empty_grid", 2, {0, 1}, sampler(kBilinear, kZeros, false));
  check_case_in(kGolden, "2d_zero_channels", 2, {0, 1}, sampler(kBilinear, kZeros, false));
}

TEST(AffineGrid, MatchesPyTorch) {
  for (bool ac : {false, true}) {
    const std::string sfx = ac_name(ac);
    check_case_in(kGolden, "affine_2d_" + sfx, 1, {0}, [=](const In& in) {
      return F::affine_grid(in[0], {2, 3, 4, 5}, ac);
    });
    check_case_in(kGolden, "affine_2d_size1_" + sfx, 1, {0}, [=](const In& in) {
      return F::affine_grid(in[0], {2, 1, 1, 3}, ac);
    });
    check_case_in(kGolden, "affine_3d_" + sfx, 1, {0}, [=](const In& in) {
      return F::affine_grid(in[0], {1, 2, 2, 3, 4}, ac);
    });
    check_case_in(kGolden, "affine_3d_size1_" + sfx, 1, {0}, [=](const In& in) {
      return F::affine_grid(in[0], {1, 2, 1, 3, 1}, ac);
    });
  }
}

TEST(AffineGrid, SpatialTransformer) {
  check_case_in(kGolden, "stn", 2, {0, 1}, [](const In& in) {
    Tensor grid = F::affine_grid(in[1], {2, 3, 3, 4}, false);
    return F::grid_sample(in[0], grid, F::GridSampleFuncOptions().align_corners(false));
  });
}

// Points away from the kinks (integers after unnormalizing, the borders),
// where finite differences see the derivative.
Tensor smooth_grid(IntArrayRef sizes) {
  manual_seed(3);
  return (rand(sizes, kDouble) * 2.2 - 1.1).requires_grad_(true);
}

TEST(GridSample, GradcheckEveryCombination) {
  for (const Mode& m : kModes) {
    for (const Pad& p : kPads) {
      for (bool ac : {false, true}) {
        SCOPED_TRACE(std::string(m.name) + " " + p.name + " " + ac_name(ac));
        const F::GridSampleFuncOptions o = opts(m.mode, p.mode, ac);
        manual_seed(1);
        Tensor x = randn({2, 2, 3, 4}, kDouble).requires_grad_(true);
        Tensor g = smooth_grid({2, 3, 2, 2});
        auto fn = [o](const V& v) { return V{F::grid_sample(v[0], v[1], o)}; };
        EXPECT_EQ(autograd::gradcheck(fn, {x, g}), "");
        if (m.mode == kBicubic) continue;
        Tensor x3 = randn({1, 2, 3, 3, 4}, kDouble).requires_grad_(true);
        Tensor g3 = smooth_grid({1, 2, 2, 2, 3});
        EXPECT_EQ(autograd::gradcheck(fn, {x3, g3}), "");
      }
    }
  }
}

TEST(AffineGrid, Gradcheck) {
  manual_seed(2);
  autograd::GradcheckOptions grad_grad;
  grad_grad.check_grad_grad = true;
  for (bool ac : {false, true}) {
    Tensor t2 = randn({2, 2, 3}, kDouble).requires_grad_(true);
    EXPECT_EQ(autograd::gradcheck(
                  [ac](const V& v) {
                    return V{F::affine_grid(v[0], {2, 1, 3, 4}, ac)};
                  },
                  {t2}, {.check_grad_grad = true}),
              "");
    Tensor t3 = randn({1, 3, 4}, kDouble).requires_grad_(true);
    EXPECT_EQ(autograd::gradcheck(
                  [ac](const V& v) {
                    return V{F::affine_grid(v[0], {1, 1, 2, 3, 2}, ac)};
                  },
                  {t3}),
              "");
  }
}

// 1.13 has no derivative for grid_sampler_2d_backward.
TEST(GridSample, DoubleBackwardIsNotImplemented) {
  manual_seed(0);
  Tensor x = randn({1, 1, 3, 3}, kDouble).requires_grad_(true);
  Tensor g = smooth_grid({1, 2, 2, 2});
  Tensor y = grid_sampler(x, g, 0, 0, false);
  V gr = autograd::grad({y.sum()}, {x, g}, {}, std::nullopt, /*create_graph=*/true);
  ASSERT_TRUE(gr[1].requires_grad());
  testing::expect_error([&] { gr[1].sum().backward(); },
                        "derivative for aten::grid_sampler_2d_backward is not implemented");
}

TEST(GridSample, BackwardOutputMask) {
  manual_seed(0);
  Tensor x = randn({1, 2, 3, 3}, kDouble);
  Tensor g = rand({1, 2, 2, 2}, kDouble) * 2 - 1;
  Tensor go = randn({1, 2, 2, 2}, kDouble);
  auto [gi, gg] = grid_sampler_2d_backward(go, x, g, 0, 0, false, {true, false});
  EXPECT_TRUE(gi.defined());
  EXPECT_FALSE(gg.defined());
  auto [gi2, gg2] = grid_sampler_2d_backward(go, x, g, 0, 0, false, {false, true});
  EXPECT_FALSE(gi2.defined());
  auto [gi3, gg3] = grid_sampler_2d_backward(go, x, g, 0, 0, false, {true, true});
  testing::expect_values(gi, gi3);
  testing::expect_values(gg2, gg3);
  EXPECT_EQ(gg3.sizes(), g.sizes());
}

TEST(GridSample, Errors) {
  Tensor x = rand({2, 3, 4, 5}), g = rand({2, 6, 7, 2});
  Tensor x3 = rand({2, 3, 4, 5, 6}), g3 = rand({2, 1, 6, 7, 3});
  auto e = [](const char* name, const std::function<void()>& f) {
    testing::expect_golden_error(kErrors, name, f);
  };
  e("batch", [&] { grid_sampler(x, g.slice(0, 0, 1), 0, 0, false); });
  e("last_dim_2d", [&] { grid_sampler(x, rand({2, 6, 7, 3}), 0, 0, false); });
  e("last_dim_3d", [&] { grid_sampler(x3, rand({2, 1, 6, 7, 2}), 0, 0, false); });
  e("grid_dims", [&] { grid_sampler(x, rand({2, 6, 7, 3, 2}), 0, 0, false); });
  e("input_3d", [&] { grid_sampler(rand({2, 3, 4}), rand({2, 6, 2}), 0, 0, false); });
  e("empty_spatial", [&] { grid_sampler(rand({2, 3, 0, 5}), g, 0, 0, false); });
  e("bicubic_3d", [&] { grid_sampler(x3, g3, 2, 0, false); });
  e("sampler_2d_of_5d", [&] { grid_sampler_2d(x3, g3, 0, 0, false); });
  e("sampler_3d_of_4d", [&] { grid_sampler_3d(x, g, 0, 0, false); });
  e("dtype_mismatch_2d", [&] { grid_sampler(x, g.to(kDouble), 0, 0, false); });
  e("dtype_mismatch_3d", [&] { grid_sampler(x3.to(kDouble), g3, 0, 0, false); });
  e("half_2d", [&] { grid_sampler(x.to(kHalf), g.to(kHalf), 0, 0, false); });
  e("int_2d", [&] { grid_sampler(x.to(kInt), g.to(kInt), 0, 0, false); });
  e("half_3d", [&] { grid_sampler(x3.to(kHalf), g3.to(kHalf), 0, 0, false); });
  e("int_3d", [&] { grid_sampler(x3.to(kInt), g3.to(kInt), 0, 0, false); });
  e("mode", [&] { F::grid_sample(x, g, F::GridSampleFuncOptions().mode(kTrilinear)); });
  e("padding_mode",
    [&] { F::grid_sample(x, g, F::GridSampleFuncOptions().padding_mode(kReflect)); });
  e("theta_int", [&] { F::affine_grid(zeros({2, 2, 3}, kInt), {2, 3, 4, 5}, false); });
  e("theta_2d_shape", [&] { F::affine_grid(rand({2, 3, 3}), {2, 3, 4, 5}, false); });
  e("theta_3d_shape", [&] { F::affine_grid(rand({2, 2, 3}), {2, 3, 4, 5, 6}, false); });
  e("affine_size_3", [&] { F::affine_grid(rand({2, 2, 3}), {2, 3, 4}, false); });
  e("affine_size_0", [&] { F::affine_grid(rand({2, 2, 3}), {2, 3, 0, 5}, false); });
  e("generator_size_3", [&] { affine_grid_generator(rand({2, 2, 3}), {2, 3, 4}, false); });
  // ember checks the mode numbers 1.13 passes through unchecked.
  EXPECT_THROW(grid_sampler(x, g, 3, 0, false), Error);
  EXPECT_THROW(grid_sampler(x, g, 0, -1, false), Error);
}

}  // namespace
}  // namespace ember
