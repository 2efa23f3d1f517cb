#ifndef EMBER_TENSOR_PIXEL_SHUFFLE_H_
#define EMBER_TENSOR_PIXEL_SHUFFLE_H_

// pixel_shuffle / pixel_unshuffle / channel_shuffle as ATen 1.13 has them
// (nn::functional's wrap these): each a new tensor in the input's
// suggest_memory_format (a channels-last input gives a channels-last
// result), recorded as its own node (PixelShuffleBackward0, whose gradient
// is pixel_unshuffle of the incoming one, and the reverse);
// channel_shuffle records a node without a derivative, as 1.13.
//   pixel_shuffle(x, 2)   // [*, C * 4, H, W] -> [*, C, 2 H, 2 W]

#include <cstdint>

#include "tensor/tensor.h"

namespace ember {

Tensor pixel_shuffle(const Tensor& self, int64_t upscale_factor);
Tensor pixel_unshuffle(const Tensor& self, int64_t downscale_factor);
// input [N, C, *]: the channels in `groups` groups, interleaved.
Tensor channel_shuffle(const Tensor& self, int64_t groups);

}  // namespace ember

#endif  // EMBER_TENSOR_PIXEL_SHUFFLE_H_
