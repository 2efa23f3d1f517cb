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

// The calling thread's current stream on the current device, which every
// launch uses: kernel<<<grid, block, shmem, current_stream()>>> (Note [CUDA
// streams] in stream.cc; defined there).
cudaStream_t current_stream();

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

// cumsum (prod false) / cumprod of a contiguous [outer, len, inner] tensor
// of `dtype` along len into y: int64 for bool and integers, else `dtype`.
cudaError_t launch_cumulative(bool prod, DType dtype, const void* x, void* y, int64_t outer,
                              int64_t len, int64_t inner);

// sort_ops.cu: one thread per row of contiguous [rows, len] operands.
cudaError_t launch_cum_extreme(bool is_max, DType dtype, const void* x, void* values,
                               int64_t* indices, int64_t rows, int64_t len);
cudaError_t launch_logcumsumexp(DType dtype, const void* x, void* y, int64_t rows, int64_t len);
// One thread per value; bad[0..1] gets (1, index) for an out-of-range sorter
// entry.
cudaError_t launch_searchsorted(DType dtype, bool out_int32, const void* boundaries,
                                const void* input, const int64_t* sorter, void* out, int64_t numel,
                                int64_t n, int64_t row_len, bool per_row, bool right,
                                unsigned long long* bad);

// mode_histc.cu. mode: one thread per row of contiguous [rows, len] x;
// keys (opmath of dtype) and ix are [rows, len] workspaces. histc: x and
// edges (bins + 1) of dtype (float, double, bfloat16); counts: zeroed
// [n_blocks, bins], n_blocks = 1 or the number of kHistcBlock-element
// chunks of x; hist: zeroed [bins], receives the CPU loop's sums.
constexpr int64_t kHistcBlock = 32768;  // the CPU loop's chunk (kGrainSize)
cudaError_t launch_mode(DType dtype, const void* x, void* values, int64_t* indices, void* keys,
                        int64_t* ix, int64_t rows, int64_t len);
cudaError_t launch_histc(DType dtype, const void* x, const void* edges, int64_t numel, int64_t bins,
                         int64_t n_blocks, unsigned int* counts, void* hist);

// softmax / log_softmax of a contiguous [outer, len, inner] tensor along
// len, in dtype `dtype` (floating), computed in float (double for double).
cudaError_t launch_softmax(bool log, DType dtype, const void* x, void* y, int64_t outer,
                           int64_t len, int64_t inner);

// nll_loss over contiguous x [n, c, k] (floating `dtype`), t [n, k] int64,
// w [c] or null. Per element: loss[i] = -w[t] * x[n, t, k] and weight[i] =
// w[t] (both 0 where t == ignore_index); a target outside [0, c) is
// recorded in *bad, the device's index record (check kNllTargetCheck:
// Note [Device-side index checks] in index_ops.cc).
struct IndexErrorRecord;
constexpr int32_t kNllTargetCheck = 5;  // ember::detail::IndexCheck::kNllTarget
cudaError_t launch_nll_forward(DType dtype, const void* x, const int64_t* t, const void* w,
                               void* loss, void* weight, IndexErrorRecord* bad, int64_t n,
                               int64_t c, int64_t k, int64_t ignore_index);
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

// avg_pool2d (pool.cu) over `planes` contiguous h x w planes (PoolWindow's
// dilation unused), PyTorch's window rule: the divisor is `divisor` when
// positive, else the window's size counting padding (count_include_pad) or
// not. float and double; the forward also int64 (truncating). One thread
// per output sums its window in the CPU's order; the backward gathers, one
// thread per input element adding gy * (1 / divisor) over the windows that
// hold it in the CPU's order (no atomics).
cudaError_t launch_avg_pool(DType dtype, const void* x, void* out, const PoolWindow& p,
                            bool count_include_pad, int64_t divisor);
cudaError_t launch_avg_pool_backward(DType dtype, const void* gy, void* gx, const PoolWindow& p,
                                     bool count_include_pad, int64_t divisor);
// adaptive_avg_pool2d of `planes` contiguous h x w planes to oh x ow
// (float, double), forward and backward as above.
cudaError_t launch_adaptive_avg_pool(bool backward, DType dtype, const void* in, void* out,
                                     int64_t planes, int64_t h, int64_t w, int64_t oh,
                                     int64_t ow);

// Convolution by im2col (tensor/cuda/conv.cc). The window geometry of a
// 2-D convolution over input planes h x w, output planes oh x ow.
struct ConvWindow {
  int64_t c, h, w, kh, kw, oh, ow, sh, sw, ph, pw, dh, dw;
};
// col [c * kh * kw, nb, oh * ow] from x [nb, c, h, w] (zero padding): the
// samples side by side in each row, so that one matrix product covers the
// chunk (conv.cc).
cudaError_t launch_im2col(DType dtype, const void* x, void* col, int64_t nb, const ConvWindow& g);
// gx [nb, c, h, w] = the sum of col's entries (same layout) over every
// window position that reads each input element (im2col's adjoint,
// gathered: no atomics).
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

// --- var/std, norm, logsumexp (reduce_stats.cu) ------------------------------
// Per output, in double as the CPU: Welford's mean and squared deviations
// (merged with Chan's formula), the p-norm, and a running max with the sum
// of exp(x - max). Same geometry and splitting as launch_reduce; `scratch`
// holds stats_scratch_bytes(r) bytes of device memory.
size_t stats_scratch_bytes(const Reduction& r);
// var (or std with take_sqrt) = m2 / max(0, n - correction); mean (may be
// null) NaN for an empty range. Both in the input's floating dtype.
cudaError_t launch_var(DType dtype, const void* in, void* var, void* mean, const Reduction& r,
                       int64_t correction, bool take_sqrt, void* scratch);
cudaError_t launch_norm(DType dtype, const void* in, void* out, const Reduction& r, double p,
                        void* scratch);
cudaError_t launch_logsumexp(DType dtype, const void* in, void* out, const Reduction& r,
                             void* scratch);

// --- the remaining elementwise ops ------------------------------------------
// `dtype` is the inputs' (the iterator's common) dtype; a dtype the CPU
// kernel does not dispatch returns cudaErrorInvalidValue. A number the CPU
// kernel converts to the operands' type (Scalar::to<scalar_t>) is converted
// on the host and passed as its bytes, low bytes first (ScalarBits), so the
// conversion is the CPU's to the bit.
using ScalarBits = uint64_t;

// unary_math.cu: floating functions (floating dtypes; half and bfloat16 in
// float).
enum class MathOp {
  kExp2,
  kExpm1,
  kLog2,
  kLog10,
  kTan,
  kAsin,
  kAcos,
  kAtan,
  kSinh,
  kCosh,
  kErf,
  kErfc,
  kAsinh,
  kAcosh,
  kAtanh,
};
cudaError_t launch_math(MathOp op, DType dtype, const Elementwise& e);

// unary_misc.cu. Rounding (floating dtypes; round is half to even).
enum class RoundOp {
  kFloor,
  kCeil,
  kRound,
  kTrunc,
  kFrac,  // x - trunc(x)
};
cudaError_t launch_round(RoundOp op, DType dtype, const Elementwise& e);
// round(x * ten_pow) / ten_pow, or round(x / ten_pow) * ten_pow when `neg`
// (negative decimals), in the opmath type.
cudaError_t launch_round_decimals(DType dtype, const Elementwise& e, double ten_pow, bool neg);
// kSign: numeric and bool (NaN gives 0); kLogicalNot, kIsnan, kIsinf,
// kIsfinite: every dtype, bool out; kBitwiseNot: integral and bool.
enum class MiscUnaryOp {
  kSign,
  kLogicalNot,
  kBitwiseNot,
  kIsnan,
  kIsinf,
  kIsfinite,
};
cudaError_t launch_misc_unary(MiscUnaryOp op, DType dtype, const Elementwise& e);

// binary_more.cu. Divisions with rounding and remainders (integral and
// floating): an integer division by zero writes 0 and sets *zero_div
// (device memory; may be null for floating dtypes), for the host to raise
// ZeroDivisionError as the CPU does.
enum class DivModOp {
  kTrunc,      // div(rounding_mode='trunc')
  kFloor,      // div(rounding_mode='floor'), floor_divide
  kRemainder,  // the sign of the divisor (Python's %)
  kFmod,       // the sign of the dividend
};
cudaError_t launch_div(DivModOp op, DType dtype, const Elementwise& e, int32_t* zero_div);
// atan2 (floating); fmax / fmin (every dtype; a NaN loses to a number).
enum class BinaryMathOp {
  kAtan2,
  kFmax,
  kFmin,
};
cudaError_t launch_binary_math(BinaryMathOp op, DType dtype, const Elementwise& e);

// special.cu: tensor/special.h's ops (tensor/special_math.h's arithmetic).
// Floating, one operand (n: polygamma's order).
enum class SpecialOp {
  kErfinv,
  kLgamma,
  kDigamma,
  kPolygamma,
  kI0,
  kI1,
  kSinc,
};
cudaError_t launch_special(SpecialOp op, int64_t n, DType dtype, const Elementwise& e);
// Any dtype in, bool out.
cudaError_t launch_signbit(DType dtype, const Elementwise& e);
// copysign / hypot / igamma / igammac (floating), nextafter (float, double,
// bfloat16), gcd / lcm / shifts (integral).
enum class SpecialBinaryOp {
  kCopysign,
  kHypot,
  kNextafter,
  kGcd,
  kLcm,
  kLshift,
  kRshift,
  kIgamma,  // igamma / igammac: floating
  kIgammac,
};
cudaError_t launch_special_binary(SpecialBinaryOp op, DType dtype, const Elementwise& e);

// binary_pow.cu. tensor ** tensor (integral: exact, by squaring, with
// PyTorch's answers for negative exponents; floating: pow in the opmath
// type).
cudaError_t launch_pow(DType dtype, const Elementwise& e);
// tensor ** number: integral dtypes take `int_exp` (the exponent's bits in
// the dtype); floating ones `exp` (the number as a double: it picks the fast
// paths sqrt, rsqrt, reciprocal, square, cube, 1/square) and, for half and
// bfloat16, `exp_in_dtype` (the number rounded to the dtype, in float).
cudaError_t launch_pow_scalar(DType dtype, const Elementwise& e, ScalarBits int_exp, double exp,
                              double exp_in_dtype);

// logical.cu. logical_and/or/xor (every dtype, bool out) and bitwise_and/
// or/xor (integral and bool).
enum class LogicalOp {
  kAnd,
  kOr,
  kXor,
};
cudaError_t launch_logical(LogicalOp op, DType dtype, const Elementwise& e);
cudaError_t launch_bitwise(LogicalOp op, DType dtype, const Elementwise& e);
// isclose (Note [isclose], tensor/compare.cc): bool out; rtol and atol are
// already rounded to the compute type (the dtype, or for integral and bool
// inputs float, or double when `double_compute`: the default dtype);
// `exact_only`: both were 0 before rounding (only equality counts).
cudaError_t launch_isclose(DType dtype, const Elementwise& e, double rtol, double atol,
                           bool equal_nan, bool exact_only, bool double_compute);

// ternary.cu. where (out, bool condition, self, other) and masked_fill
// (out, bool mask, self) move elements: one kernel per element size.
cudaError_t launch_where(int elem_size, const Elementwise& e);
cudaError_t launch_masked_fill(int elem_size, const Elementwise& e, ScalarBits value);
// clamp with both bounds numbers (numeric dtypes): min(max(x, lo), hi) as
// std::min/std::max (a NaN x stays; a NaN bound is ignored).
cudaError_t launch_clamp(DType dtype, const Elementwise& e, ScalarBits lo, ScalarBits hi);
// clamp with tensor bounds (out, self, min, max; numeric dtypes): a NaN
// bound is the result.
cudaError_t launch_clamp_tensor(DType dtype, const Elementwise& e);

// --- index ops (index.cu, index_add.cu; Note [Index kernels on devices] in
// tensor/index_kernels.h, Note [Device-side index checks] in index_ops.cc) --

// What a kernel records, in device memory, for the first index it finds out
// of range (flag 0 -> 1 by atomicCAS; the rest written by that thread only).
struct IndexErrorRecord {
  int32_t flag;
  int32_t check;  // ember::detail::IndexCheck
  int64_t value, dim, bound;
};

// A walk over `ndim` dims (dim 0 the fastest-moving; strides in elements of
// dst, index and src). Per position: v = index[...] (+ bound when `wrap`
// and v < 0); out of [0, bound) records an error and moves nothing.
struct IndexLoop {
  int ndim = 0;
  int64_t numel = 0;
  int64_t sizes[kMaxLoopDims];
  int64_t strides[3][kMaxLoopDims];
  void* dst = nullptr;
  const int64_t* index = nullptr;
  const void* src = nullptr;
  int64_t dim_stride = 0, bound = 0, dim = 0;
  int32_t check = 0;
  bool wrap = false;
};
enum class IndexMode {
  kGather,   // dst[p] = src[p + v * dim_stride]
  kScatter,  // dst[p + v * dim_stride] = src[p]
  kFill,     // dst[p + v * dim_stride] = value
};
// Moves bytes: one kernel per element size (1, 2, 4 or 8). `value`: kFill's
// element, low bytes first.
cudaError_t launch_index_move(IndexMode mode, int elem_size, const IndexLoop& l,
                              ScalarBits value, IndexErrorRecord* err);
// dst[p + v * dim_stride] += alpha * src[p] with atomics (every dtype;
// bool: |= alpha && src). Each addition rounds as the CPU's does (half and
// bfloat16: in float, rounded once), but their order varies from run to
// run: floating results may differ in the last bits between runs.
cudaError_t launch_index_add(DType dtype, const IndexLoop& l, ScalarBits alpha,
                             IndexErrorRecord* err);
// scatter_reduce.cu: dst (contiguous) reduced into along l, op one of
// ember::detail::ScatterReduceOp (sum, prod, mean, amax, amin) with
// atomics; without include_self the positions scattered to are first set
// to the op's identity. kMean: counts (int32, zeroed, dst's numel) gets the
// number of values per position, then dst is divided by it.
cudaError_t launch_scatter_reduce(DType dtype, int op, bool include_self, const IndexLoop& l,
                                  int32_t* counts, int64_t dst_numel, IndexErrorRecord* err);

// multinomial.cu: probs contiguous [rows, categories] (floating dtype),
// cum a [rows, categories] workspace of float (double for double); u and
// out [rows, samples]. bad (one word, set to ~0 before) gets the least
// row * 4 + code of an invalid row (1: entry < 0 or NaN, 2: infinite, 3:
// sum <= 0).
cudaError_t launch_multinomial(DType dtype, const void* probs, void* cum, const double* u,
                               int64_t* out, int64_t rows, int64_t categories, int64_t samples,
                               unsigned long long* bad);
// Zeroes in each contiguous m x n matrix of r (batch of them) the entries
// with j > i + diagonal (lower) or j < i + diagonal (upper).
cudaError_t launch_triangle(int elem_size, void* r, int64_t batch, int64_t m, int64_t n,
                            int64_t diagonal, bool lower);

}  // namespace kernels
}  // namespace cuda
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_KERNELS_H_
