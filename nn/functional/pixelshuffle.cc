#include "nn/functional/pixelshuffle.h"

#include <initializer_list>
#include <numeric>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tensor/error.h"

namespace ember {
namespace nn {
namespace functional {
namespace {

// ATen's three steps: reshape the last three dims to `split` (five dims),
// permute those five as `order` (indices into them), reshape them to
// `merged` (three dims); the batch dims in front stay.
Tensor rearrange(const Tensor& x, std::initializer_list<int64_t> split,
                 std::initializer_list<int64_t> order, std::initializer_list<int64_t> merged) {
  const int64_t batch = x.dim() - 3;
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().begin() + batch);
  std::vector<int64_t> perm(batch);
  std::iota(perm.begin(), perm.end(), 0);
  std::vector<int64_t> out = shape;
  shape.insert(shape.end(), split);
  for (int64_t i : order) perm.push_back(batch + i);
  out.insert(out.end(), merged);
  return x.reshape(shape).permute(perm).reshape(out);
}

}  // namespace

Tensor pixel_shuffle(const Tensor& input, const PixelShuffleFuncOptions& options) {
  const int64_t r = options.upscale_factor();
  EMBER_CHECK(input.dim() >= 3,
              "pixel_shuffle expects input to have at least 3 dimensions, but got input with ",
              input.dim(), " dimension(s)");
  EMBER_CHECK(r > 0, "pixel_shuffle expects a positive upscale_factor, but got ", r);
  const int64_t c = input.size(-3), h = input.size(-2), w = input.size(-1);
  EMBER_CHECK(c % (r * r) == 0,
              "pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
              "square of upscale_factor, but input.size(-3)=",
              c, " is not divisible by ", r * r);
  // (oc, r, r, h, w) -> (oc, h, r, w, r)
  return rearrange(input, {c / (r * r), r, r, h, w}, {0, 3, 1, 4, 2}, {c / (r * r), h * r, w * r});
}

Tensor pixel_unshuffle(const Tensor& input, const PixelUnshuffleFuncOptions& options) {
  const int64_t r = options.downscale_factor();
  EMBER_CHECK(input.dim() >= 3,
              "pixel_unshuffle expects input to have at least 3 dimensions, but got input with ",
              input.dim(), " dimension(s)");
  EMBER_CHECK(r > 0, "pixel_unshuffle expects a positive downscale_factor, but got ", r);
  const int64_t c = input.size(-3), h = input.size(-2), w = input.size(-1);
  EMBER_CHECK(h % r == 0, "pixel_unshuffle expects height to be divisible by downscale_factor, ",
              "but input.size(-2)=", h, " is not divisible by ", r);
  EMBER_CHECK(w % r == 0, "pixel_unshuffle expects width to be divisible by downscale_factor, ",
              "but input.size(-1)=", w, " is not divisible by ", r);
  // (c, oh, r, ow, r) -> (c, r, r, oh, ow)
  return rearrange(input, {c, h / r, r, w / r, r}, {0, 2, 4, 1, 3}, {c * r * r, h / r, w / r});
}

Tensor channel_shuffle(const Tensor& input, int64_t groups) {
  EMBER_CHECK(input.dim() > 2,
              "channel_shuffle expects input to have at least 3 dimensions, but got input with "
              "sizes [",
              absl::StrJoin(input.sizes(), ", "), "]");
  EMBER_CHECK(groups > 0, "Number of groups to divide channels in must be positive. Value of "
                          "groups:",
              groups);
  const int64_t c = input.size(1);
  EMBER_CHECK(c % groups == 0, "Number of channels must be divisible by groups. Got ", c,
              " channels and ", groups, " groups.");
  return input.reshape({input.size(0), groups, c / groups, -1})
      .permute({0, 2, 1, 3})
      .contiguous()
      .reshape(input.sizes())
      .contiguous(input.suggest_memory_format());
}

}  // namespace functional
}  // namespace nn
}  // namespace ember
