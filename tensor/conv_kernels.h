#ifndef EMBER_TENSOR_CONV_KERNELS_H_
#define EMBER_TENSOR_CONV_KERNELS_H_

// The per-device kernel tables of convolution (conv.cc). Internal; the CUDA
// backend registers its kernels from tensor/cuda/.

#include <algorithm>
#include <cstdint>
#include <utility>

#include "tensor/kernel_table.h"
#include "tensor/tensor.h"

namespace ember {
namespace detail {

// A 2-D convolution (1-D is H = 1): input [n, c, h, w], weight
// [co, c / groups, kh, kw], output [n, co, oh, ow].
struct ConvGeometry {
  int64_t n, c, h, w;  // input
  int64_t co, kh, kw;  // weight
  int64_t oh, ow;      // output
  int64_t sh, sw, ph, pw, dh, dw, groups;
  // x, out, gy and gx are channels-last ([n, h, w, c] in memory): only the
  // CPU kernels' oneDNN route sets it (Note [Native channels-last
  // convolution] in conv.cc); every other kernel sees contiguous tensors.
  bool channels_last = false;
  // With channels_last: w is channels-last too ([co, kh, kw, c / groups]).
  bool weight_channels_last = false;
  int64_t ckk() const { return c * kh * kw; }
  int64_t l() const { return oh * ow; }
};

// The outputs o in [0, out) whose input o * stride + off lies in [0, in),
// as [lo, hi) (empty: lo == hi): the rest of a kernel tap's outputs read
// padding.
inline std::pair<int64_t, int64_t> valid_outputs(int64_t out, int64_t in, int64_t stride,
                                                 int64_t off) {
  const int64_t lo = off >= 0 ? 0 : std::min<int64_t>(out, (-off + stride - 1) / stride);
  const int64_t last = in - 1 - off;  // the largest o * stride allowed
  const int64_t hi = last < 0 ? 0 : std::min<int64_t>(out, last / stride + 1);
  return {lo, std::max(lo, hi)};
}

// Contiguous tensors (channels-last ones where g.channels_last) of one
// floating dtype; b may be undefined.
using ConvForwardFn = void (*)(const ConvGeometry& g, const Tensor& x, const Tensor& w,
                               const Tensor& b, Tensor& out);
// Fills each defined output: gx [n, c, h, w] (needs gy and w only), gw
// (needs gy and x), gb [co].
using ConvBackwardFn = void (*)(const ConvGeometry& g, const Tensor& gy, const Tensor& x,
                                const Tensor& w, Tensor& gx, Tensor& gw, Tensor& gb);
EMBER_DECLARE_KERNEL_TABLE(conv_forward_stub, ConvForwardFn);
EMBER_DECLARE_KERNEL_TABLE(conv_backward_stub, ConvBackwardFn);

}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_CONV_KERNELS_H_
