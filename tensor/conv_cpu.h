#ifndef EMBER_TENSOR_CONV_CPU_H_
#define EMBER_TENSOR_CONV_CPU_H_

// What the CPU convolution's routes share: conv.cc (im2col + GEMM and the
// ops), conv_onednn.cc (oneDNN's primitives) and conv_taps.cc (Note
// [Convolution by taps]). Internal.

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "tensor/conv_kernels.h"
#include "tensor/empty.h"
#include "tensor/onednn.h"
#include "tensor/parallel.h"

namespace ember {
namespace detail {

// Scratch memory from ember's caching allocator: a std::vector would zero
// it and, at these sizes, page-fault it in from the kernel on every call.
template <typename T>
class ConvScratch {
 public:
  explicit ConvScratch(int64_t n)
      : t_(empty({n}, TensorOptions(std::is_same<T, float>::value ? kFloat : kDouble))) {}
  T* data() { return t_.data_ptr<T>(); }

 private:
  Tensor t_;
};

// Note [Convolution threads]: with more than one thread, float convolutions
// split the batch into one part per thread, each running im2col and
// single-threaded GEMMs inside ember's pool. Letting oneDNN thread the GEMM
// instead put its OpenMP team beside ember's pool: after each GEMM its
// threads spin-wait while ember's run im2col, and on 2 busy cores a LeNet
// step took 20-100 ms instead of ~20. double stays on the GEMM's threads
// (OpenBLAS keeps a pool of its own that must not be entered concurrently).
template <typename T>
int64_t conv_parts(const ConvGeometry& g) {
  if (!std::is_same<T, float>::value || in_parallel_region()) return 1;
  return std::max<int64_t>(1, std::min<int64_t>(get_num_threads(), g.n));
}

// The geometry of samples [s0, s1) in oneDNN's terms (Note [oneDNN
// convolution] in onednn.h).
inline onednn::ConvShape conv_shape(const ConvGeometry& g, int64_t s0, int64_t s1) {
  onednn::ConvShape s{s1 - s0, g.c,  g.h,  g.w,  g.co, g.kh, g.kw, g.oh,
                      g.ow,    g.sh, g.sw, g.ph, g.pw, g.dh, g.dw, g.groups};
  s.channels_last = g.channels_last;
  s.weight_channels_last = g.weight_channels_last;
  return s;
}

// Every pass through oneDNN's primitives, float or bfloat16 tensors laid
// out as g says (Note [bfloat16 CPU convolution], Note [Native
// channels-last convolution]). False where oneDNN has no primitive for
// the shape (the caller takes another route; what was written is
// overwritten). conv_onednn_backward fills each defined output.
bool conv_onednn_forward(const ConvGeometry& g, const Tensor& x, const Tensor& w, const Tensor& b,
                         Tensor& out);
bool conv_onednn_backward(const ConvGeometry& g, const Tensor& gy, const Tensor& x, const Tensor& w,
                          Tensor& gx, Tensor& gw, Tensor& gb);

// gb[co] = the sum of gy (float, double or bfloat16, in g's layout) over
// samples and positions, accumulated wider and rounded once.
void conv_bias_grad(const ConvGeometry& g, const Tensor& gy, Tensor& gb);

}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_CONV_CPU_H_
