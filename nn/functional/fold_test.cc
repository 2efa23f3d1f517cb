// F::fold / F::unfold against PyTorch (tools/golden/nn_ops_extra.py) and
// finite differences.
#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "gtest/gtest.h"
#include "nn/functional/fold.h"
#include "nn/functional/testing/nn_golden.h"
#include "tensor/all.h"

namespace ember {
namespace {

namespace F = nn::functional;
using testing::check_extra_case;
using testing::expect_nn_extra_error;
using V = std::vector<Tensor>;

TEST(Unfold, MatchesPyTorch) {
  check_extra_case("unfold_basic", 1, {0}, [](const V& x) { return F::unfold(x[0], {2, 3}); });
  check_extra_case("unfold_options", 1, {0}, [](const V& x) {
    return F::unfold(x[0].transpose(2, 3),
                     F::UnfoldFuncOptions(3).dilation({1, 2}).padding(1).stride({2, 1}));
  });
  check_extra_case("unfold_unbatched", 1, {0},
                   [](const V& x) { return F::unfold(x[0], F::UnfoldFuncOptions(2).stride(2)); });
}

TEST(Fold, MatchesPyTorch) {
  check_extra_case("fold_basic", 1, {0},
                   [](const V& x) { return F::fold(x[0], F::FoldFuncOptions({4, 5}, {2, 3})); });
  check_extra_case("fold_options", 1, {0}, [](const V& x) {
    return F::fold(x[0], F::FoldFuncOptions({5, 6}, 3).dilation({1, 2}).padding(1).stride({2, 1}));
  });
  check_extra_case("fold_unbatched", 1, {0}, [](const V& x) {
    return F::fold(x[0].t(), F::FoldFuncOptions({4, 5}, 2).stride(2));
  });
}

TEST(FoldUnfold, Gradcheck) {
  manual_seed(0);
  Tensor x = randn({1, 2, 4, 5}, kDouble).requires_grad_(true);
  EXPECT_EQ(autograd::gradcheck(
                [](const V& v) {
                  return V{F::unfold(v[0], F::UnfoldFuncOptions({2, 3}).padding(1).stride(2))};
                },
                {x}),
            "");
  Tensor c = randn({1, 8, 4}, kDouble).requires_grad_(true);
  EXPECT_EQ(autograd::gradcheck(
                [](const V& v) {
                  return V{F::fold(v[0], F::FoldFuncOptions({3, 4}, 2).dilation({1, 2}))};
                },
                {c}),
            "");
}

TEST(FoldUnfold, Errors) {
  auto r = [](IntArrayRef s) { return zeros(s); };
  expect_nn_extra_error("unfold_dims", [&] { F::unfold(r({2, 3, 4, 5, 6}), 2); });
  expect_nn_extra_error("unfold_small", [&] { F::unfold(r({1, 2, 3, 3}), 4); });
  expect_nn_extra_error("unfold_stride",
                        [&] { F::unfold(r({1, 2, 3, 3}), F::UnfoldFuncOptions(2).stride(0)); });
  expect_nn_extra_error("unfold_padding",
                        [&] { F::unfold(r({1, 2, 3, 3}), F::UnfoldFuncOptions(2).padding(-1)); });
  expect_nn_extra_error("fold_dims", [&] { F::fold(r({2, 3, 4, 5}), F::FoldFuncOptions(4, 2)); });
  expect_nn_extra_error("fold_divisible", [&] { F::fold(r({1, 5, 4}), F::FoldFuncOptions(3, 2)); });
  expect_nn_extra_error("fold_blocks", [&] { F::fold(r({1, 8, 5}), F::FoldFuncOptions(3, 2)); });
  expect_nn_extra_error("fold_dilation",
                        [&] { F::fold(r({1, 8, 4}), F::FoldFuncOptions(3, 2).dilation(0)); });
  expect_nn_extra_error("fold_blocks_floor", [&] {
    F::fold(r({1, 4, 2}), F::FoldFuncOptions({6, 2}, 2).dilation(2).stride(2));
  });
}

}  // namespace
}  // namespace ember
