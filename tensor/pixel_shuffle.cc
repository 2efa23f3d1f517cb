#include "tensor/pixel_shuffle.h"

#include <initializer_list>
#include <numeric>
#include <vector>

#include "absl/strings/str_join.h"
#include "tensor/autograd_hook.h"
#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/record_function.h"
#include "tensor/shape.h"

namespace ember {
namespace {

// ATen's three steps into one new tensor: the last three dims of x seen as
// `split` (five dims), those five permuted as `order`, then merged to
// `merged` (three dims); the batch dims in front stay. One copy, laid out
// as x's suggest_memory_format (1.13's kernels).
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
  const Tensor moved = x.reshape(shape).permute(perm);
  Tensor r = empty(moved.sizes(), x.options());
  r.copy_(moved);
  r = r.view(out);
  const MemoryFormat f = x.suggest_memory_format();
  return f == MemoryFormat::Contiguous ? r : r.contiguous(f);
}

template <typename F>
Tensor recorded(const char* op, const Tensor& self, int64_t factor, F&& forward) {
  profiler::RecordFunction prof_range(op, profiler::RangeKind::kOp, self);
  detail::OpScope scope(self);
  Tensor out = forward();
  if (scope.active()) scope.record(op, {self}, {out}, {Scalar(factor)});
  return out;
}

}  // namespace

Tensor pixel_shuffle(const Tensor& self, int64_t r) {
  EMBER_CHECK(self.dim() >= 3,
              "pixel_shuffle expects input to have at least 3 dimensions, but got input with ",
              self.dim(), " dimension(s)");
  EMBER_CHECK(r > 0, "pixel_shuffle expects a positive upscale_factor, but got ", r);
  const int64_t c = self.size(-3), h = self.size(-2), w = self.size(-1);
  EMBER_CHECK(c % (r * r) == 0,
              "pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
              "square of upscale_factor, but input.size(-3)=",
              c, " is not divisible by ", r * r);
  // (oc, r, r, h, w) -> (oc, h, r, w, r)
  return recorded("pixel_shuffle", self, r, [&] {
    return rearrange(self, {c / (r * r), r, r, h, w}, {0, 3, 1, 4, 2}, {c / (r * r), h * r, w * r});
  });
}

Tensor pixel_unshuffle(const Tensor& self, int64_t r) {
  EMBER_CHECK(self.dim() >= 3,
              "pixel_unshuffle expects input to have at least 3 dimensions, but got input with ",
              self.dim(), " dimension(s)");
  EMBER_CHECK(r > 0, "pixel_unshuffle expects a positive downscale_factor, but got ", r);
  const int64_t c = self.size(-3), h = self.size(-2), w = self.size(-1);
  EMBER_CHECK(h % r == 0, "pixel_unshuffle expects height to be divisible by downscale_factor, ",
              "but input.size(-2)=", h, " is not divisible by ", r);
  EMBER_CHECK(w % r == 0, "pixel_unshuffle expects width to be divisible by downscale_factor, ",
              "but input.size(-1)=", w, " is not divisible by ", r);
  // (c, oh, r, ow, r) -> (c, r, r, oh, ow)
  return recorded("pixel_unshuffle", self, r, [&] {
    return rearrange(self, {c, h / r, r, w / r, r}, {0, 2, 4, 1, 3}, {c * r * r, h / r, w / r});
  });
}

Tensor channel_shuffle(const Tensor& self, int64_t groups) {
  EMBER_CHECK(self.dim() > 2,
              "channel_shuffle expects input to have at least 3 dimensions, but got input with "
              "sizes [",
              absl::StrJoin(self.sizes(), ", "), "]");
  EMBER_CHECK(groups > 0,
              "Number of groups to divide channels in must be positive. Value of "
              "groups:",
              groups);
  const int64_t c = self.size(1);
  EMBER_CHECK(c % groups == 0, "Number of channels must be divisible by groups. Got ", c,
              " channels and ", groups, " groups.");
  // No derivative in 1.13: a NotImplemented node.
  return recorded("channel_shuffle", self, groups, [&] {
    return self.reshape({self.size(0), groups, c / groups, -1})
        .permute({0, 2, 1, 3})
        .contiguous()
        .reshape(self.sizes())
        .contiguous(self.suggest_memory_format());
  });
}

}  // namespace ember
