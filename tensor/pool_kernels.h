#ifndef EMBER_TENSOR_POOL_KERNELS_H_
#define EMBER_TENSOR_POOL_KERNELS_H_

// The per-device kernel tables of max pooling (pool.cc). Internal; the CUDA
// backend registers its kernels from tensor/cuda/.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "tensor/dispatch.h"
#include "tensor/kernel_table.h"
#include "tensor/tensor.h"

// float, double and bfloat16 (PyTorch 1.13's CPU pooling dtypes) and
// float16 (PyTorch 2.x's, which mixed-precision training on the CPU needs).
// bfloat16 and float16 windows are summed and compared in float and rounded
// once, as PyTorch's: the forwards equal its results.
#define EMBER_DISPATCH_POOL_TYPES(TYPE, NAME, ...)                                 \
  EMBER_PRIVATE_SWITCH(TYPE, NAME,                                                 \
                       EMBER_PRIVATE_CASE(Float, float, __VA_ARGS__)               \
                           EMBER_PRIVATE_CASE(Double, double, __VA_ARGS__)         \
                               EMBER_PRIVATE_CASE(BFloat16, BFloat16, __VA_ARGS__) \
                                   EMBER_PRIVATE_CASE(Half, Half, __VA_ARGS__))

namespace ember {
namespace detail {

// `planes` planes of h x w pooled to oh x ow.
struct PoolGeometry {
  int64_t planes, h, w, oh, ow;
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
};

// x contiguous; out and idx (int64, the flat index in the plane) contiguous,
// on x's device. The first maximum of a window wins, and any NaN.
using MaxPoolForwardFn = void (*)(const PoolGeometry& p, const Tensor& x, Tensor& out,
                                  Tensor& idx);
// gx (zeros, contiguous, planes x hw) += gy at idx (planes x ohw).
using MaxPoolBackwardFn = void (*)(int64_t planes, int64_t hw, int64_t ohw, const Tensor& gy,
                                   const Tensor& idx, Tensor& gx);
EMBER_DECLARE_KERNEL_TABLE(max_pool_forward_stub, MaxPoolForwardFn);
EMBER_DECLARE_KERNEL_TABLE(max_pool_backward_stub, MaxPoolBackwardFn);

// Note [Channels-last pooling] (pool_channels_last.cc): whether `input`
// (or indices) is a 4-D CPU tensor whose strides are channels-last, which
// the kernels below pool on its nhwc memory.
bool pool_channels_last(const Tensor& input);
// max_pool2d of x ([N, C, H, W], channels-last contiguous, `channels` = C)
// into out and idx (channels-last, idx the flat h * W + w in the plane, as
// PyTorch's), with the row-major kernel's rule (the first maximum, a NaN).
void max_pool_forward_channels_last(const PoolGeometry& p, int64_t channels, const Tensor& x,
                                    Tensor& out, Tensor& idx);
// gx (zeros, channels-last) += gy at idx (both channels-last contiguous).
void max_pool_backward_channels_last(const Tensor& gy, const Tensor& idx, Tensor& gx);

// avg_pool2d (PyTorch's window rule: the divisor counts padding with
// count_include_pad, `divisor` overrides it). x and out contiguous; the
// backward's gx (zeros, contiguous) receives gy (contiguous) spread over
// each window. Dilation is 1.
using AvgPoolForwardFn = void (*)(const PoolGeometry& p, bool count_include_pad,
                                  std::optional<int64_t> divisor, const Tensor& x, Tensor& out);
using AvgPoolBackwardFn = void (*)(const PoolGeometry& p, bool count_include_pad,
                                   std::optional<int64_t> divisor, const Tensor& gy, Tensor& gx);
EMBER_DECLARE_KERNEL_TABLE(avg_pool_forward_stub, AvgPoolForwardFn);
EMBER_DECLARE_KERNEL_TABLE(avg_pool_backward_stub, AvgPoolBackwardFn);

// PyTorch's avg_pool2d window rule (the divisor counts padding unless told).
template <typename Visit>
inline void avg_windows(const PoolGeometry& p, bool count_include_pad,
                        std::optional<int64_t> divisor, int64_t oy, int64_t ox,
                        const Visit& visit) {
  int64_t y0 = oy * p.sh - p.ph, x0 = ox * p.sw - p.pw;
  int64_t y1 = std::min(y0 + p.kh, p.h + p.ph), x1 = std::min(x0 + p.kw, p.w + p.pw);
  const int64_t pool_size = (y1 - y0) * (x1 - x0);
  y0 = std::max<int64_t>(y0, 0);
  x0 = std::max<int64_t>(x0, 0);
  y1 = std::min(y1, p.h);
  x1 = std::min(x1, p.w);
  if (y0 >= y1 || x0 >= x1) return;
  const int64_t div = divisor ? *divisor : count_include_pad ? pool_size : (y1 - y0) * (x1 - x0);
  visit(y0, y1, x0, x1, div);
}

// A window's sum divided as PyTorch divides it: by multiplying with the
// reciprocal for floating types, by C++'s truncating division for int64.
template <typename T>
inline T average(T sum, int64_t div) {
  if constexpr (std::is_integral<T>::value) {
    return sum / static_cast<T>(div);
  } else {
    return sum * (T(1) / static_cast<T>(div));
  }
}

// max_pool2d's, avg_pool2d's and adaptive_avg_pool2d's kernels on
// channels-last inputs are below their geometries.

// adaptive_avg_pool2d of `planes` contiguous h x w planes to oh x ow, each
// output the mean of [floor(o * in / out), ceil((o + 1) * in / out)) in both
// dims; the backward's gx (zeros) receives each gy / window size.
struct AdaptiveGeometry {
  int64_t planes, h, w, oh, ow;
};
using AdaptivePoolFn = void (*)(const AdaptiveGeometry& g, const Tensor& in, Tensor& out);
EMBER_DECLARE_KERNEL_TABLE(adaptive_avg_pool_forward_stub, AdaptivePoolFn);
EMBER_DECLARE_KERNEL_TABLE(adaptive_avg_pool_backward_stub, AdaptivePoolFn);

// Note [Channels-last pooling]: the average poolings on channels-last
// tensors (x, out, gy, gx all channels-last contiguous; gx zeros), with the
// row-major kernels' sums in their order.
void avg_pool_forward_channels_last(const PoolGeometry& p, int64_t channels, bool count_include_pad,
                                    std::optional<int64_t> divisor, const Tensor& x, Tensor& out);
void avg_pool_backward_channels_last(const PoolGeometry& p, int64_t channels,
                                     bool count_include_pad, std::optional<int64_t> divisor,
                                     const Tensor& gy, Tensor& gx);
void adaptive_avg_pool_forward_channels_last(const AdaptiveGeometry& g, int64_t channels,
                                             const Tensor& x, Tensor& out);
void adaptive_avg_pool_backward_channels_last(const AdaptiveGeometry& g, int64_t channels,
                                              const Tensor& gy, Tensor& gx);

}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_POOL_KERNELS_H_
