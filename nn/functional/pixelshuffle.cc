#include "nn/functional/pixelshuffle.h"

#include "tensor/pixel_shuffle.h"

namespace ember {
namespace nn {
namespace functional {
Tensor pixel_shuffle(const Tensor& input, const PixelShuffleFuncOptions& options) {
  return ::ember::pixel_shuffle(input, options.upscale_factor());
}

Tensor pixel_unshuffle(const Tensor& input, const PixelUnshuffleFuncOptions& options) {
  return ::ember::pixel_unshuffle(input, options.downscale_factor());
}

Tensor channel_shuffle(const Tensor& input, int64_t groups) {
  return ::ember::channel_shuffle(input, groups);
}

}  // namespace functional
}  // namespace nn
}  // namespace ember
