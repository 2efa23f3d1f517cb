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

// The CPU copy (Note [Pixel shuffle on the CPU]) against reshape, permute
// and contiguous, on batch dims that are not in order, a channels-last
// input (whose result is channels-last too), odd sizes and dtypes of each
// element size.
TEST(PixelShuffle, CpuCopyIsThePermutation) {
  const Tensor base = arange(2 * 3 * 18 * 5 * 7, kDouble).view({2, 3, 18, 5, 7});
  const Tensor batched = base.transpose(0, 1);  // [3, 2, 18, 5, 7], batch dims out of order
  for (ScalarType t : {kDouble, kFloat, kHalf, kInt, kBool, kLong}) {
    const Tensor x = batched.to(t);
    const Tensor want = x.reshape({3, 2, 2, 3, 3, 5, 7})
                            .permute({0, 1, 2, 5, 3, 6, 4})
                            .contiguous()
                            .reshape({3, 2, 2, 15, 21});
    const Tensor got = F::pixel_shuffle(x, 3);
    EXPECT_TRUE(got.is_contiguous());
    EXPECT_TRUE(got.equal(want)) << scalar_type_name(t);
    EXPECT_TRUE(F::pixel_unshuffle(got, 3).equal(x)) << scalar_type_name(t);
  }
  const Tensor cl = base[0].contiguous(MemoryFormat::ChannelsLast);
  const Tensor out = F::pixel_shuffle(cl, 3);
  EXPECT_TRUE(out.is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_TRUE(out.equal(F::pixel_shuffle(cl.contiguous(), 3)));
  const Tensor back = F::pixel_unshuffle(out, 3);
  EXPECT_TRUE(back.is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_TRUE(back.equal(cl));
  EXPECT_EQ(F::pixel_shuffle(zeros({0, 4, 2, 2}), 2).sizes(), IntArrayRef({0, 1, 4, 4}));
  // Large enough to be split across two threads.
  const int threads = get_num_threads();
  set_num_threads(2);
  const Tensor big = randn({64, 3, 12, 40, 48}).transpose(0, 1);  // [3, 64, 12, 40, 48]
  const Tensor shuffled = F::pixel_shuffle(big, 2);
  const Tensor unshuffled = F::pixel_unshuffle(big, 4);
  set_num_threads(threads);
  EXPECT_TRUE(shuffled.equal(big.reshape({3, 64, 3, 2, 2, 40, 48})
                                 .permute({0, 1, 2, 5, 3, 6, 4})
                                 .reshape({3, 64, 3, 80, 96})));
  EXPECT_TRUE(unshuffled.equal(big.reshape({3, 64, 12, 10, 4, 12, 4})
                                   .permute({0, 1, 2, 4, 6, 3, 5})
                                   .reshape({3, 64, 192, 10, 12})));
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
