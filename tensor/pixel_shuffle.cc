#include "tensor/pixel_shuffle.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <numeric>
#include <vector>

#include "absl/strings/str_join.h"
#include "tensor/autograd_hook.h"
#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/parallel.h"
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

// Note [Pixel shuffle on the CPU]: `rearrange`'s reshape, permute and
// copy_ cost more than the copy itself on the small images these ops
// usually see. On the CPU the five-dim view is described by its sizes and
// strides (in elements, read off x's: splitting a dim of stride s into
// (a, b) gives (s * b, s), which never needs a copy), and copied into a
// new row-major tensor in one loop, batch dims walked as x's strides say.
// The values are the same bits.
struct View5 {
  int64_t size[5];
  int64_t stride[5];
};

// One index of v's first dim: the four dims after it, into dst.
template <typename E>
void gather4(const E* src, E* dst, const View5& v) {
  for (int64_t b = 0; b < v.size[1]; ++b) {
    for (int64_t c = 0; c < v.size[2]; ++c) {
      for (int64_t d = 0; d < v.size[3]; ++d) {
        const E* s = src + b * v.stride[1] + c * v.stride[2] + d * v.stride[3];
        const int64_t n = v.size[4], st = v.stride[4];
        if (st == 1) {
          for (int64_t e = 0; e < n; ++e) dst[e] = s[e];
        } else {
          for (int64_t e = 0; e < n; ++e) dst[e] = s[e * st];
        }
        dst += n;
      }
    }
  }
}

// x's last three dims seen as `v` (strides relative to them), copied for
// each index of the batch dims in front into a new row-major tensor of
// x's batch dims and `merged`; in parallel over (batch index, index of v's
// first dim) slabs.
Tensor gather_cpu(const Tensor& x, const View5& v, std::initializer_list<int64_t> merged) {
  const int64_t batch = x.dim() - 3;
  std::vector<int64_t> out(x.sizes().begin(), x.sizes().begin() + batch);
  out.insert(out.end(), merged);
  Tensor r = empty(out, x.options());
  if (r.numel() == 0) return r;
  const int64_t slab = v.size[1] * v.size[2] * v.size[3] * v.size[4];
  const int64_t slabs = r.numel() / slab;
  const int64_t es = x.element_size();
  EMBER_CHECK(es == 1 || es == 2 || es == 4 || es == 8, "pixel_shuffle: unexpected element size ",
              es);
  const char* src = static_cast<const char*>(x.data_ptr());
  char* dst = static_cast<char*>(r.data_ptr());
  parallel_for(0, slabs, std::max<int64_t>(1, kGrainSize / slab), [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      // The batch index (row-major over x's batch dims) and v's first index.
      int64_t rest = i / v.size[0];
      int64_t offset = (i % v.size[0]) * v.stride[0];
      for (int64_t d = batch - 1; d >= 0; --d) {
        offset += (rest % x.size(d)) * x.stride(d);
        rest /= x.size(d);
      }
      const char* s = src + offset * es;
      char* o = dst + i * slab * es;
      switch (es) {
        case 1:
          gather4(reinterpret_cast<const uint8_t*>(s), reinterpret_cast<uint8_t*>(o), v);
          break;
        case 2:
          gather4(reinterpret_cast<const uint16_t*>(s), reinterpret_cast<uint16_t*>(o), v);
          break;
        case 4:
          gather4(reinterpret_cast<const uint32_t*>(s), reinterpret_cast<uint32_t*>(o), v);
          break;
        default:
          gather4(reinterpret_cast<const uint64_t*>(s), reinterpret_cast<uint64_t*>(o), v);
          break;
      }
    }
  });
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
    if (self.is_cpu()) {
      const int64_t sc = self.stride(-3), sh = self.stride(-2), sw = self.stride(-1);
      const View5 v{{c / (r * r), h, r, w, r}, {sc * r * r, sh, sc * r, sw, sc}};
      return gather_cpu(self, v, {c / (r * r), h * r, w * r});
    }
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
    if (self.is_cpu()) {
      const int64_t sc = self.stride(-3), sh = self.stride(-2), sw = self.stride(-1);
      const View5 v{{c, r, r, h / r, w / r}, {sc, sh, sw, sh * r, sw * r}};
      return gather_cpu(self, v, {c * r * r, h / r, w / r});
    }
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
