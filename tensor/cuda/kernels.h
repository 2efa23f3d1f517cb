#ifndef EMBER_TENSOR_CUDA_KERNELS_H_
#define EMBER_TENSOR_CUDA_KERNELS_H_

// Launchers for the CUDA kernels in kernels.cu. This header is shared by nvcc
// and the host compiler, so it includes nothing of ember: the kernels see
// raw pointers and a coalesced geometry, never a Tensor.

#include <cuda_runtime_api.h>

#include <cstdint>

namespace ember {
namespace cuda {
namespace kernels {

// PyTorch's limit for a kernel's offset calculator.
constexpr int kMaxDims = 25;

// The index space of an elementwise kernel: `ndim` sizes, and the strides (in
// elements) of the output and of one input over it. Dims are coalesced by
// the caller, so a contiguous tensor is one dim of stride 1.
struct Geometry {
  int ndim = 0;
  int64_t numel = 0;
  int64_t sizes[kMaxDims];
  int64_t dst_strides[kMaxDims];
  int64_t src_strides[kMaxDims];
};

// dst[i] = src[i] for elements of `elem_size` bytes (1, 2, 4 or 8): a copy
// moves bytes, so one kernel per element size serves every dtype. dst and
// src are on the current device. Returns the launch status.
cudaError_t launch_strided_copy(void* dst, const void* src, const Geometry& g, int elem_size);

// dst[i] = the element whose bytes are the low `elem_size` bytes of `bits`.
cudaError_t launch_fill(void* dst, const Geometry& g, int elem_size, uint64_t bits);

// --- the elementwise and reduction kernels (Note [CUDA compute kernels]) ----

// ember's ScalarTypes as the kernels know them (the host maps them).
enum class DType : int {
  kBool,
  kUInt8,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kHalf,
  kBFloat16,
  kFloat,
  kDouble,
};

// A TensorIterator's loop after coalescing: dim 0 is the fastest-moving,
// strides in bytes, operand 0 the output. `contiguous`: one dim, every
// operand dense (the kernels then index with i * element size).
constexpr int kMaxLoopDims = 16;
constexpr int kMaxOperands = 4;
struct Elementwise {
  int ntensors = 0;
  int ndim = 0;
  int64_t numel = 0;
  bool contiguous = false;
  int64_t sizes[kMaxLoopDims];
  int64_t strides[kMaxOperands][kMaxLoopDims];
  char* data[kMaxOperands];
};

// out = op(a, b), all of dtype `dtype` (comparisons: out is bool).
enum class BinaryOp {
  kAdd,  // a + alpha * b
  kMul,
  kDiv,  // true division (floating dtypes)
  kMaximum,
  kMinimum,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
};
cudaError_t launch_binary(BinaryOp op, DType dtype, const Elementwise& e, double alpha);

// out = op(a) in dtype `dtype` (floating functions: floating dtypes only).
enum class UnaryOp {
  kNeg,
  kAbs,
  kSqrt,
  kRsqrt,
  kExp,
  kLog,
  kLog1p,
  kSin,
  kCos,
  kTanh,
  kSigmoid,
  kReciprocal,
  kClampMin,  // max(a, scalar)
  kClampMax,  // min(a, scalar)
};
cudaError_t launch_unary(UnaryOp op, DType dtype, const Elementwise& e, double scalar);

// The optimizers' pointwise ops, with a scalar `s`:
//   kLerp     out = a + s * (b - a)   (float and double, as the CPU)
//   kAddcmul  out = a + s * b * c     (numeric dtypes)
//   kAddcdiv  out = a + s * b / c     (floating dtypes)
enum class PointwiseOp {
  kLerp,
  kAddcmul,
  kAddcdiv,
};
cudaError_t launch_pointwise(PointwiseOp op, DType dtype, const Elementwise& e, double s);

// out (dtype `dst`) = in (dtype `src`) converted as static_cast does
// (bool: != 0), for any pair of dtypes.
cudaError_t launch_cast(DType dst, DType src, const Elementwise& e);

// softmax / log_softmax of a contiguous [outer, len, inner] tensor along
// len, in dtype `dtype` (floating), computed in float (double for double).
cudaError_t launch_softmax(bool log, DType dtype, const void* x, void* y, int64_t outer,
                           int64_t len, int64_t inner);

// nll_loss over contiguous x [n, c, k] (floating `dtype`), t [n, k] int64,
// w [c] or null. Per element: loss[i] = -w[t] * x[n, t, k] and weight[i] =
// w[t] (both 0 where t == ignore_index); a target outside [0, c) sets
// bad[0] = 1 and bad[1] to one such target.
cudaError_t launch_nll_forward(DType dtype, const void* x, const int64_t* t, const void* w,
                               void* loss, void* weight, int64_t* bad, int64_t n, int64_t c,
                               int64_t k, int64_t ignore_index);
// gx (zeroed, [n, c, k]) at each target = -w[t] * g, where g = gy[i]
// (per_element) or gy[0] / (divisor ? divisor[0] : 1).
cudaError_t launch_nll_backward(DType dtype, const void* gy, bool per_element,
                                const void* divisor, const int64_t* t, const void* w, void* gx,
                                int64_t n, int64_t c, int64_t k, int64_t ignore_index);

// max_pool2d over `planes` contiguous h x w planes: out and idx (the flat
// index of the window's first maximum, or of a NaN) per output; backward
// adds gy into gx at idx (atomically: windows may overlap).
struct PoolWindow {
  int64_t planes, h, w, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw;
};
cudaError_t launch_max_pool(DType dtype, const void* x, void* out, int64_t* idx,
                            const PoolWindow& p);
cudaError_t launch_max_pool_backward(DType dtype, const void* gy, const int64_t* idx, void* gx,
                                     int64_t planes, int64_t hw, int64_t ohw);

// Convolution by im2col (tensor/cuda/conv.cc). The window geometry of a
// 2-D convolution over input planes h x w, output planes oh x ow.
struct ConvWindow {
  int64_t c, h, w, kh, kw, oh, ow, sh, sw, ph, pw, dh, dw;
};
// col [nb, c * kh * kw, oh * ow] from x [nb, c, h, w] (zero padding).
cudaError_t launch_im2col(DType dtype, const void* x, void* col, int64_t nb, const ConvWindow& g);
// gx [nb, c, h, w] = the sum of col's entries over every window position
// that reads each input element (im2col's adjoint, gathered: no atomics).
cudaError_t launch_col2im(DType dtype, const void* col, void* gx, int64_t nb, const ConvWindow& g);

// A reduction's index space: outputs over the kept dims (row-major, out is
// contiguous), each reducing the reduced dims; strides in elements.
struct Reduction {
  int okept = 0, ored = 0;
  int64_t nout = 1, nred = 1;
  int64_t ksizes[kMaxLoopDims], kstrides[kMaxLoopDims];
  int64_t rsizes[kMaxLoopDims], rstrides[kMaxLoopDims];
};
enum class ReduceOp {
  kSum,  // times `scale` (mean)
  kProd,
  kAmax,
  kAmin,
};
// in has dtype `in_type`; out (contiguous, nout elements) `out_type`:
// sum/prod of bool and integers are int64, everything else keeps the dtype.
// Floating sums accumulate in double. `scratch` holds at least
// reduce_scratch_bytes(r) bytes of device memory.
size_t reduce_scratch_bytes(const Reduction& r);
// max / min with indices (the position in the reduced range, row-major over
// the reduced dims): values (dtype `dtype`, may be null) and int64 indices
// per output. The first extreme wins; a NaN wins over numbers (the first
// NaN). One block per output.
cudaError_t launch_arg_reduce(bool max, DType dtype, const void* in, void* values,
                              int64_t* indices, const Reduction& r);
cudaError_t launch_reduce(ReduceOp op, DType in_type, DType out_type, const void* in, void* out,
                          const Reduction& r, double scale, void* scratch);

}  // namespace kernels
}  // namespace cuda
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_KERNELS_H_
