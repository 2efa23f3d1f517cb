#include "tensor/im2col.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tensor/autograd_hook.h"
#include "tensor/creation.h"
#include "tensor/error.h"
#include "tensor/nn_util.h"
#include "tensor/record_function.h"

namespace ember {
namespace {

using detail::bracketed;

// Where each column entry sits in the padded plane: the blocks of one
// (ki, kj) tap, row-major, for every tap; and the padded plane's sizes.
struct Blocks {
  int64_t rows, cols, padded_h, padded_w;
  Tensor index;  // int64 [kh * kw * rows * cols], into padded_h * padded_w
};

// 1.13's im2col_shape_check / col2im_shape_check on the parameters; both
// print them in this order.
void check_params(IntArrayRef k, IntArrayRef d, IntArrayRef p, IntArrayRef s) {
  const std::pair<const char*, IntArrayRef> args[] = {
      {"kernel_size", k}, {"dilation", d}, {"padding", p}, {"stride", s}};
  for (const auto& [name, v] : args) {
    EMBER_CHECK(v.size() == 2, "It is expected ", name, " equals to 2, but got size ", v.size());
  }
  EMBER_CHECK(k[0] > 0 && k[1] > 0,
              "kernel size should be greater than zero, but got kernel_height: ", k[0],
              " kernel_width: ", k[1]);
  EMBER_CHECK(s[0] > 0 && s[1] > 0,
              "stride should be greater than zero, but got stride_height: ", s[0],
              " stride_width: ", s[1]);
  EMBER_CHECK(d[0] > 0 && d[1] > 0,
              "dilation should be greater than zero, but got dilation_height: ", d[0],
              " dilation_width: ", d[1]);
  EMBER_CHECK(p[0] >= 0 && p[1] >= 0, "padding should be non-negative, but got pad_height: ", p[0],
              " pad_width: ", p[1]);
}

// 1.13's div_rtn: the division rounds toward negative infinity, so an
// input shorter than the dilated kernel gives no block whatever the stride.
int64_t blocks_along(int64_t size, int64_t k, int64_t d, int64_t p, int64_t s) {
  const int64_t span = size + 2 * p - (d * (k - 1) + 1);
  return (span >= 0 ? span / s : -((-span + s - 1) / s)) + 1;
}

Blocks blocks_of(int64_t h, int64_t w, IntArrayRef k, IntArrayRef d, IntArrayRef p, IntArrayRef s,
                 Device device) {
  Blocks b;
  b.rows = blocks_along(h, k[0], d[0], p[0], s[0]);
  b.cols = blocks_along(w, k[1], d[1], p[1], s[1]);
  b.padded_h = h + 2 * p[0];
  b.padded_w = w + 2 * p[1];
  std::vector<int64_t> where;
  where.reserve(k[0] * k[1] * b.rows * b.cols);
  for (int64_t ki = 0; ki < k[0]; ++ki) {
    for (int64_t kj = 0; kj < k[1]; ++kj) {
      for (int64_t y = 0; y < b.rows; ++y) {
        for (int64_t x = 0; x < b.cols; ++x) {
          where.push_back((y * s[0] + ki * d[0]) * b.padded_w + x * s[1] + kj * d[1]);
        }
      }
    }
  }
  b.index = tensor(where, kLong).to(device);
  return b;
}

OpArgs args_of(IntArrayRef k, IntArrayRef d, IntArrayRef p, IntArrayRef s) {
  return {DimVector(k.begin(), k.end()), DimVector(d.begin(), d.end()),
          DimVector(p.begin(), p.end()), DimVector(s.begin(), s.end())};
}

}  // namespace

Tensor im2col(const Tensor& self, IntArrayRef k, IntArrayRef d, IntArrayRef p, IntArrayRef s) {
  profiler::RecordFunction prof_range("im2col", profiler::RangeKind::kOp, self);
  check_params(k, d, p, s);
  const bool batched = self.dim() == 4;
  EMBER_CHECK(
      (self.dim() == 3 || batched) && self.size(-1) > 0 && self.size(-2) > 0 && self.size(-3) > 0,
      "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
      "dimensions for input, but got: ",
      bracketed(self.sizes()));
  const Tensor x = batched ? self : self.unsqueeze(0);
  const int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  const int64_t rows = blocks_along(h, k[0], d[0], p[0], s[0]),
                cols = blocks_along(w, k[1], d[1], p[1], s[1]);
  EMBER_CHECK(rows >= 1 && cols >= 1, "Given input with spatial size (", h, ", ", w,
              "), kernel_size=(", k[0], ", ", k[1], "), dilation=(", d[0], ", ", d[1],
              "), padding=(", p[0], ", ", p[1],
              "), calculated shape of the array of sliding "
              "blocks as (",
              rows, ", ", cols, "), but its components must be at least one.");
  detail::OpScope scope(self);
  const Blocks b = blocks_of(h, w, k, d, p, s, x.device());
  Tensor planes = x;
  if (p[0] != 0 || p[1] != 0) {
    planes = zeros({n, c, b.padded_h, b.padded_w}, x.options());
    planes.narrow(2, p[0], h).narrow(3, p[1], w).copy_(x);
  }
  Tensor out = planes.reshape({n, c, b.padded_h * b.padded_w})
                   .index_select(2, b.index)
                   .view({n, c * k[0] * k[1], rows * cols});
  if (!batched) out = out.squeeze(0);
  if (scope.active()) scope.record("im2col", {self}, {out}, args_of(k, d, p, s));
  return out;
}

Tensor col2im(const Tensor& self, IntArrayRef size, IntArrayRef k, IntArrayRef d, IntArrayRef p,
              IntArrayRef s) {
  profiler::RecordFunction prof_range("col2im", profiler::RangeKind::kOp, self);
  EMBER_CHECK(size.size() == 2, "It is expected output_size equals to 2, but got size ",
              size.size());
  check_params(k, d, p, s);
  const bool batched = self.dim() == 3;
  EMBER_CHECK((self.dim() == 2 || batched) && self.size(-1) > 0 && self.size(-2) > 0,
              "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
              "non-zero dimensions for input, but got: ",
              bracketed(self.sizes()));
  const Tensor x = batched ? self : self.unsqueeze(0);
  const int64_t kk = k[0] * k[1];
  EMBER_CHECK(x.size(1) % kk == 0,
              "Expected size of input's dimension 1 to be divisible by the product of "
              "kernel_size, but got input.size(1)=",
              x.size(1), " and kernel_size=(", k[0], ", ", k[1], ").");
  const int64_t rows = blocks_along(size[0], k[0], d[0], p[0], s[0]),
                cols = blocks_along(size[1], k[1], d[1], p[1], s[1]);
  // 1.13 checks the block count before its sign.
  EMBER_CHECK(x.size(2) == rows * cols, "Given output_size=(", size[0], ", ", size[1],
              "), kernel_size=(", k[0], ", ", k[1], "), dilation=(", d[0], ", ", d[1],
              "), padding=(", p[0], ", ", p[1], "), stride=(", s[0], ", ", s[1],
              "), expected size of input's dimension 2 to match the calculated number of "
              "sliding blocks ",
              rows, " * ", cols, " = ", rows * cols, ", but got input.size(2)=", x.size(2), ".");
  EMBER_CHECK(rows >= 1 && cols >= 1, "Given output_size=(", size[0], ", ", size[1],
              "), kernel_size=(", k[0], ", ", k[1], "), dilation=(", d[0], ", ", d[1],
              "), padding=(", p[0], ", ", p[1], "), stride=(", s[0], ", ", s[1],
              "), calculated shape of the array of sliding blocks as (", rows, ", ", cols,
              "), which is too small (non-positive).");
  detail::OpScope scope(self);
  const Blocks b = blocks_of(size[0], size[1], k, d, p, s, x.device());
  const int64_t n = x.size(0), c = x.size(1) / kk;
  Tensor planes = zeros({n, c, b.padded_h * b.padded_w}, x.options())
                      .index_add_(2, b.index, x.reshape({n, c, kk * rows * cols}))
                      .view({n, c, b.padded_h, b.padded_w})
                      .narrow(2, p[0], size[0])
                      .narrow(3, p[1], size[1]);
  if (p[0] != 0 || p[1] != 0) planes = planes.contiguous();
  if (!batched) planes = planes.squeeze(0);
  if (scope.active()) {
    OpArgs args = args_of(k, d, p, s);
    args.insert(args.begin(), DimVector(size.begin(), size.end()));
    scope.record("col2im", {self}, {planes}, std::move(args));
  }
  return planes;
}

}  // namespace ember
