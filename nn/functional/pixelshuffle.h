#ifndef EMBER_NN_FUNCTIONAL_PIXELSHUFFLE_H_
#define EMBER_NN_FUNCTIONAL_PIXELSHUFFLE_H_

// torch.nn.functional.pixel_shuffle / pixel_unshuffle (libtorch's
// functional/pixelshuffle.h): (*, C * r^2, H, W) <-> (*, C, H * r, W * r),
// any number of leading batch dims. Views and copies only, so the
// gradient is the inverse rearrangement.

#include <cstdint>

#include "nn/functional/options.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {
namespace functional {

struct PixelShuffleFuncOptions {
  /* implicit */ PixelShuffleFuncOptions(int64_t upscale_factor)  // NOLINT
      : upscale_factor_(upscale_factor) {}
  EMBER_ARG(int64_t, upscale_factor);
};
Tensor pixel_shuffle(const Tensor& input, const PixelShuffleFuncOptions& options);

// torch.nn.functional.channel_shuffle / nn.ChannelShuffle: the C channels
// of an [N, C, *] input, seen as [groups, C / groups], transposed.
Tensor channel_shuffle(const Tensor& input, int64_t groups);

struct PixelUnshuffleFuncOptions {
  /* implicit */ PixelUnshuffleFuncOptions(int64_t downscale_factor)  // NOLINT
      : downscale_factor_(downscale_factor) {}
  EMBER_ARG(int64_t, downscale_factor);
};
Tensor pixel_unshuffle(const Tensor& input, const PixelUnshuffleFuncOptions& options);

}  // namespace functional
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_FUNCTIONAL_PIXELSHUFFLE_H_
