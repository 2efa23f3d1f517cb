#ifndef EMBER_NN_PIXELSHUFFLE_H_
#define EMBER_NN_PIXELSHUFFLE_H_

// PixelShuffle and PixelUnshuffle (libtorch's modules/pixelshuffle.h):
//   nn::PixelShuffle up(2);   // (*, C * 4, H, W) -> (*, C, 2 H, 2 W)

#include <string>

#include "absl/strings/str_cat.h"
#include "nn/functional/pixelshuffle.h"
#include "nn/module.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {

using PixelShuffleOptions = functional::PixelShuffleFuncOptions;
using PixelUnshuffleOptions = functional::PixelUnshuffleFuncOptions;

class PixelShuffleImpl : public Module {
 public:
  explicit PixelShuffleImpl(const PixelShuffleOptions& options) : options(options) {}
  Tensor forward(const Tensor& input) { return functional::pixel_shuffle(input, options); }
  std::string extra_repr() const override {
    return absl::StrCat("upscale_factor=", options.upscale_factor());
  }
  PixelShuffleOptions options;
};
EMBER_MODULE(PixelShuffle);

class PixelUnshuffleImpl : public Module {
 public:
  explicit PixelUnshuffleImpl(const PixelUnshuffleOptions& options) : options(options) {}
  Tensor forward(const Tensor& input) { return functional::pixel_unshuffle(input, options); }
  std::string extra_repr() const override {
    return absl::StrCat("downscale_factor=", options.downscale_factor());
  }
  PixelUnshuffleOptions options;
};
EMBER_MODULE(PixelUnshuffle);

class ChannelShuffleImpl : public Module {
 public:
  explicit ChannelShuffleImpl(int64_t groups) : groups(groups) {}
  Tensor forward(const Tensor& input) { return functional::channel_shuffle(input, groups); }
  std::string extra_repr() const override { return absl::StrCat("groups=", groups); }
  int64_t groups;
};
EMBER_MODULE(ChannelShuffle);

}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_PIXELSHUFFLE_H_
