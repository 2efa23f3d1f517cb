// pixel_shuffle / pixel_unshuffle against PyTorch
// (tools/golden/nn_ops_misc.py): values and gradients with batch dims,
// unbatched and non-contiguous inputs; errors; each undoes the other.
#include "nn/functional/pixelshuffle.h"

#include <vector>

#include "autograd/autograd.h"
#include "gtest/gtest.h"
#include "nn/functional/testing/nn_golden.h"
#include "tensor/all.h"

namespace ember {
namespace {

namespace F = nn::functional;
using testing::check_misc_case;
using testing::expect_nn_misc_error;
using V = std::vector<Tensor>;

TEST(PixelShuffle, MatchesPyTorch) {
  check_misc_case("pixel_shuffle", 1, {0}, [](const V& x) { return F::pixel_shuffle(x[0], 2); });
  check_misc_case("pixel_shuffle_batch_dims", 1, {0},
                   [](const V& x) { return F::pixel_shuffle(x[0].transpose(3, 4), 3); });
  check_misc_case("pixel_shuffle_unbatched", 1, {0},
                   [](const V& x) { return F::pixel_shuffle(x[0], 2); });
  check_misc_case("pixel_unshuffle", 1, {0},
                   [](const V& x) { return F::pixel_unshuffle(x[0], 2); });
  check_misc_case("pixel_unshuffle_batch_dims", 1, {0},
                   [](const V& x) { return F::pixel_unshuffle(x[0].transpose(3, 4), 3); });
}

TEST(PixelShuffle, UnshuffleUndoesShuffle) {
  const Tensor x = randn({2, 18, 3, 4});
  EXPECT_TRUE(F::pixel_unshuffle(F::pixel_shuffle(x, 3), 3).equal(x));
}

TEST(PixelShuffle, Errors) {
  expect_nn_misc_error("pixel_shuffle_channels", [] { F::pixel_shuffle(zeros({1, 3, 2, 2}), 2); });
  expect_nn_misc_error("pixel_shuffle_dims", [] { F::pixel_shuffle(zeros({4, 2}), 2); });
  expect_nn_misc_error("pixel_shuffle_factor", [] { F::pixel_shuffle(zeros({1, 4, 2, 2}), 0); });
  expect_nn_misc_error("pixel_unshuffle_height", [] {
    F::pixel_unshuffle(zeros({1, 3, 3, 2}), 2);
  });
  expect_nn_misc_error("pixel_unshuffle_width", [] {
    F::pixel_unshuffle(zeros({1, 3, 2, 3}), 2);
  });
  expect_nn_misc_error("pixel_unshuffle_dims", [] { F::pixel_unshuffle(zeros({4, 2}), 2); });
  expect_nn_misc_error("pixel_unshuffle_factor", [] {
    F::pixel_unshuffle(zeros({1, 4, 2, 2}), -1);
  });
}

}  // namespace
}  // namespace ember
