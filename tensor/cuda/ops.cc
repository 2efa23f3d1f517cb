// Note [CUDA compute kernels]: the CUDA backend registers kernels for the
// elementwise ops and reductions into the same tables the CPU kernels use
// (Note [Kernel tables]), so everything device-independent (broadcasting,
// type promotion, output allocation, autograd recording) is shared. The op
// builds its TensorIterator as for the CPU; here its coalesced loop becomes
// a kernels::Elementwise and one kernel launch (binary.cu, unary.cu,
// cast.cu, reduce.cu here; the rest from ops_more.cc). What is covered:
// every elementwise kernel table and every reduction, that is
//  - arithmetic: add/sub (alpha), mul, true division, div with 'trunc' and
//    'floor' rounding (floor_divide), remainder, fmod, pow (tensor and
//    number exponents, square), atan2, maximum/minimum, fmax/fmin,
//    lerp/addcmul/addcdiv (the optimizers' updates), clamp with number or
//    tensor bounds (clamp_min/clamp_max, relu);
//  - unary: neg, abs, sign, sqrt, rsqrt, reciprocal, exp, exp2, expm1, log,
//    log2, log10, log1p, sin, cos, tan, asin, acos, atan, sinh, cosh, tanh,
//    sigmoid, erf, floor, ceil, round (half to even; with decimals), trunc,
//    frac;
//  - comparisons, logical_and/or/xor/not, bitwise_and/or/xor/not, isnan/
//    isinf/isfinite, isclose (so allclose, equal), where, masked_fill;
//  - every dtype conversion;
//  - sum/mean/prod/amax/amin/max/min (with indices)/argmax/argmin/all/any/
//    count_nonzero, var/std (var_mean/std_mean), norm, logsumexp
//    (reduce_stats.cu);
// so nn's batch_norm/layer_norm and the activations composed of these ops
// run on the device too. Integer division by zero raises ZeroDivisionError
// as on the CPU (one synchronization; ops_more.cc). Matrix products go to
// cuBLAS (blas.cc); cumsum, cumprod (scan.cu), softmax, log_softmax,
// nll_loss (so cross_entropy), max_pool2d, avg_pool2d and
// adaptive_avg_pool2d (with their backwards) are in nn_ops.cc, convolution
// (cuDNN, cudnn_conv.cc, else im2col + cuBLAS) in conv.cc; gather, scatter_
// (src and value), scatter_add_, index_select (so embedding), index_add_
// (so embedding's backward), index_copy_, index_fill_, take and tril/triu in
// index_ops.cc, with device-side index checks (Note [Device-side index
// checks]). Random fills (uniform_, normal_, bernoulli_ with a number or
// tensor p, random_, exponential_, so rand/randn/randint/normal/the _like
// factories and dropout) draw from the device's Philox generator in
// random.cu (random.cc; Note [Device random numbers] in tensor/random.cc);
// randperm draws its keys there and argsorts them. An op that dispatches
// through a kernel table without a CUDA entry throws "Could not run ...
// with arguments from the 'CUDA' backend". Ops whose loops are not in a
// table yet (index/index_put_, sort/topk/kthvalue, nonzero/masked_select/
// masked_scatter_/where(cond)) run on the CPU with copies and warn once
// (Note [CPU fallback], tensor/fallback.h); //tensor:device_guard_test
// holds every op to one of the two.
//
// Kernels run on the current device's default stream, asynchronously;
// copies to the host synchronize. A 0-dim CPU operand (a wrapped number) is
// copied to the device by the iterator (Note [Iterator devices]): one small
// asynchronous host-to-device copy per such op (Note [Pageable uploads] in
// copy.cc), which PyTorch avoids by passing the value as a kernel argument.

#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "tensor/cuda/context.h"
#include "tensor/cuda/kernels.h"
#include "tensor/cuda/launch.h"
#include "tensor/dispatch.h"
#include "tensor/empty.h"
#include "tensor/math_kernels.h"
#include "tensor/reduce_engine.h"

namespace ember {
namespace cuda {
namespace detail {

kernels::ScalarBits scalar_bits(const Scalar& s, ScalarType t) {
  kernels::ScalarBits bits = 0;
  EMBER_DISPATCH_ALL_TYPES(t, "scalar", [&] {
    const scalar_t v = s.to<scalar_t>();
    static_assert(sizeof(v) <= sizeof(bits), "a scalar fits in 8 bytes");
    std::memcpy(&bits, &v, sizeof(v));
  });
  return bits;
}

kernels::DType kernel_dtype(ScalarType t) {
  using kernels::DType;
  switch (t) {
    case kBool: return DType::kBool;
    case kByte: return DType::kUInt8;
    case kChar: return DType::kInt8;
    case kShort: return DType::kInt16;
    case kInt: return DType::kInt32;
    case kLong: return DType::kInt64;
    case kHalf: return DType::kHalf;
    case kBFloat16: return DType::kBFloat16;
    case kFloat: return DType::kFloat;
    case kDouble: return DType::kDouble;
    default:
      throw Error(absl::StrCat("CUDA kernels do not support dtype ", scalar_type_name(t)));
  }
}

kernels::Elementwise make_elementwise(const TensorIterator& iter) {
  kernels::Elementwise e;
  e.ntensors = iter.ntensors();
  EMBER_CHECK(e.ntensors <= kernels::kMaxOperands, "CUDA kernels take at most ",
              kernels::kMaxOperands, " operands");
  IntArrayRef shape = iter.loop_shape();
  EMBER_CHECK(static_cast<int>(shape.size()) <= kernels::kMaxLoopDims,
              "CUDA kernels support at most ", kernels::kMaxLoopDims, " non-collapsible dims");
  e.ndim = static_cast<int>(shape.size());
  e.numel = iter.numel();
  for (int d = 0; d < e.ndim; ++d) e.sizes[d] = shape[d];
  e.contiguous = e.ndim == 1;
  for (int i = 0; i < e.ntensors; ++i) {
    IntArrayRef strides = iter.loop_strides(i);
    for (int d = 0; d < e.ndim; ++d) e.strides[i][d] = strides[d];
    e.data[i] = static_cast<char*>(iter.operand(i).data_ptr());
    if (e.ndim == 1 && e.numel > 1 && strides[0] != element_size(iter.dtype(i))) {
      e.contiguous = false;
    }
  }
  return e;
}

void check_launch(cudaError_t err, const char* name, ScalarType dtype) {
  if (err == cudaErrorInvalidValue) {
    cudaGetLastError();  // a refused dtype launches nothing; clear anyway
    ember::detail::throw_not_implemented(name, dtype);
  }
  check(err);
}

}  // namespace detail

namespace {

using detail::check_launch;
using detail::kernel_dtype;
using detail::make_elementwise;
using kernels::BinaryOp;
using kernels::UnaryOp;

void binary(TensorIterator& iter, BinaryOp op, double alpha, const char* name) {
  if (iter.numel() == 0) return;
  detail::DeviceGuard guard(iter.device().index());
  const ScalarType t = iter.input_dtype(0);
  check_launch(kernels::launch_binary(op, kernel_dtype(t), make_elementwise(iter), alpha), name, t);
}

void unary(TensorIterator& iter, UnaryOp op, double scalar, const char* name) {
  if (iter.numel() == 0) return;
  detail::DeviceGuard guard(iter.device().index());
  const ScalarType t = iter.input_dtype(0);
  check_launch(kernels::launch_unary(op, kernel_dtype(t), make_elementwise(iter), scalar), name, t);
}

void add_cuda(TensorIterator& iter, const Scalar& alpha) {
  binary(iter, BinaryOp::kAdd, alpha.toDouble(), "add_cuda");
}

template <BinaryOp kOp>
void binary_cuda(TensorIterator& iter) {
  static constexpr const char* kNames[] = {"add_cuda", "mul_cuda",     "div_true_cuda",
                                           "maximum_cuda", "minimum_cuda", "eq_cuda",
                                           "ne_cuda",  "lt_cuda",      "le_cuda",
                                           "gt_cuda",  "ge_cuda"};
  binary(iter, kOp, 1.0, kNames[static_cast<int>(kOp)]);
}

template <UnaryOp kOp>
void unary_cuda(TensorIterator& iter) {
  static constexpr const char* kNames[] = {
      "neg_cuda", "abs_cuda", "sqrt_cuda", "rsqrt_cuda",   "exp_cuda",       "log_cuda",
      "log1p_cuda", "sin_cuda", "cos_cuda", "tanh_cuda", "sigmoid_cuda", "reciprocal_cuda"};
  unary(iter, kOp, 0.0, kNames[static_cast<int>(kOp)]);
}

void pointwise(TensorIterator& iter, kernels::PointwiseOp op, const Scalar& s, const char* name) {
  if (iter.numel() == 0) return;
  detail::DeviceGuard guard(iter.device().index());
  const ScalarType t = iter.input_dtype(0);
  check_launch(kernels::launch_pointwise(op, kernel_dtype(t), make_elementwise(iter), s.toDouble()),
               name, t);
}
void lerp_cuda(TensorIterator& iter, const Scalar& weight) {
  pointwise(iter, kernels::PointwiseOp::kLerp, weight, "lerp_kernel_scalar");
}
void addcmul_cuda(TensorIterator& iter, const Scalar& value) {
  pointwise(iter, kernels::PointwiseOp::kAddcmul, value, "addcmul_cuda");
}
void addcdiv_cuda(TensorIterator& iter, const Scalar& value) {
  pointwise(iter, kernels::PointwiseOp::kAddcdiv, value, "addcdiv_cuda");
}

void clamp_min_cuda(TensorIterator& iter, const Scalar& min) {
  unary(iter, UnaryOp::kClampMin, min.toDouble(), "clamp_min_cuda");
}
void clamp_max_cuda(TensorIterator& iter, const Scalar& max) {
  unary(iter, UnaryOp::kClampMax, max.toDouble(), "clamp_max_cuda");
}

// --- reductions -----------------------------------------------------------------

using reduce_detail::DimMask;
using reduce_detail::ReduceArgs;
using reduce_detail::ReduceKind;

const char* reduce_name(ReduceKind kind) {
  switch (kind) {
    case ReduceKind::kSum: return "sum";
    case ReduceKind::kProd: return "prod";
    case ReduceKind::kAmax: return "amax";
    case ReduceKind::kAmin: return "amin";
    case ReduceKind::kMax: return "max";
    case ReduceKind::kMin: return "min";
    case ReduceKind::kArgmax: return "argmax";
    case ReduceKind::kArgmin: return "argmin";
    case ReduceKind::kVar: return "var";
    case ReduceKind::kNorm: return "norm";
    case ReduceKind::kLogSumExp: return "logsumexp";
    case ReduceKind::kAll: return "all";
    case ReduceKind::kAny: return "any";
    case ReduceKind::kCountNonzero: return "count_nonzero";
  }
  return "reduction";
}

kernels::Reduction make_reduction(const Tensor& in, const DimMask& mask) {
  reduce_detail::ReducePlan p = reduce_detail::make_plan(in, mask);
  kernels::Reduction r;
  EMBER_CHECK(p.osz.size() <= kernels::kMaxLoopDims && p.rsz.size() <= kernels::kMaxLoopDims,
              "CUDA reductions support at most ", kernels::kMaxLoopDims,
              " non-collapsible kept and reduced dims");
  r.okept = static_cast<int>(p.osz.size());
  r.ored = static_cast<int>(p.rsz.size());
  r.nout = p.nout;
  r.nred = p.nred;
  for (int d = 0; d < r.okept; ++d) {
    r.ksizes[d] = p.osz[d];
    r.kstrides[d] = p.ostr[d];
  }
  for (int d = 0; d < r.ored; ++d) {
    r.rsizes[d] = p.rsz[d];
    r.rstrides[d] = p.rstr[d];
  }
  return r;
}

// values (may be undefined) and indices of the max or min along mask.
void launch_arg_reduction(bool max, const Tensor& in, const DimMask& mask, const Tensor& values,
                          const Tensor& indices, const char* name) {
  const kernels::Reduction r = make_reduction(in, mask);
  if (r.nout == 0) return;
  detail::DeviceGuard guard(in.device().index());
  check_launch(kernels::launch_arg_reduce(max, kernel_dtype(in.dtype()), in.data_ptr(),
                                          values.defined() ? values.data_ptr() : nullptr,
                                          indices.data_ptr<int64_t>(), r),
               name, in.dtype());
}

void launch_reduction(kernels::ReduceOp op, const Tensor& in, const DimMask& mask, double scale,
                      const Tensor& out, const char* name) {
  const kernels::Reduction r = make_reduction(in, mask);
  if (r.nout == 0) return;
  detail::DeviceGuard guard(in.device().index());
  const size_t scratch_bytes = kernels::reduce_scratch_bytes(r);
  Tensor scratch;
  if (scratch_bytes > 0) {
    scratch = empty({static_cast<int64_t>(scratch_bytes)}, TensorOptions(kByte).device(in.device()));
  }
  check_launch(kernels::launch_reduce(op, kernel_dtype(in.dtype()), kernel_dtype(out.dtype()),
                                      in.data_ptr(), out.data_ptr(), r, scale,
                                      scratch.defined() ? scratch.data_ptr() : nullptr),
               name, in.dtype());
}

// var/std (outs[1]: the mean, may be undefined), norm, logsumexp
// (reduce_stats.cu): floating inputs, outputs of the input's dtype.
void launch_stats(ReduceKind kind, const Tensor& in, const DimMask& mask, const ReduceArgs& args,
                  Tensor* outs) {
  const kernels::Reduction r = make_reduction(in, mask);
  if (r.nout == 0) return;
  detail::DeviceGuard guard(in.device().index());
  const size_t scratch_bytes = kernels::stats_scratch_bytes(r);
  Tensor scratch;
  if (scratch_bytes > 0) {
    scratch = empty({static_cast<int64_t>(scratch_bytes)}, TensorOptions(kByte).device(in.device()));
  }
  void* s = scratch.defined() ? scratch.data_ptr() : nullptr;
  const kernels::DType t = kernel_dtype(in.dtype());
  switch (kind) {
    case ReduceKind::kVar:
      check_launch(kernels::launch_var(t, in.data_ptr(), outs[0].data_ptr(),
                                       outs[1].defined() ? outs[1].data_ptr() : nullptr, r,
                                       args.correction, args.take_sqrt, s),
                   args.take_sqrt ? "std_cuda" : "var_cuda", in.dtype());
      return;
    case ReduceKind::kNorm:
      check_launch(kernels::launch_norm(t, in.data_ptr(), outs[0].data_ptr(), r, args.p, s),
                   "norm_cuda", in.dtype());
      return;
    default:
      check_launch(kernels::launch_logsumexp(t, in.data_ptr(), outs[0].data_ptr(), r, s),
                   "logsumexp_cuda", in.dtype());
      return;
  }
}

void reduce_cuda(ReduceKind kind, const Tensor& in, const DimMask& mask, const ReduceArgs& args,
                 Tensor* outs) {
  using kernels::ReduceOp;
  switch (kind) {
    case ReduceKind::kSum:
      launch_reduction(ReduceOp::kSum, in, mask, args.scale, outs[0], "sum_cuda");
      return;
    case ReduceKind::kProd:
      launch_reduction(ReduceOp::kProd, in, mask, 1.0, outs[0], "prod_cuda");
      return;
    case ReduceKind::kAmax:
      launch_reduction(ReduceOp::kAmax, in, mask, 1.0, outs[0], "amax_cuda");
      return;
    case ReduceKind::kAmin:
      launch_reduction(ReduceOp::kAmin, in, mask, 1.0, outs[0], "amin_cuda");
      return;
    case ReduceKind::kAll:
    case ReduceKind::kAny: {
      // all = min over x != 0, any = max, in bool; then the output's dtype
      // (uint8 input gives uint8, as PyTorch).
      Tensor truth = in.dtype() == kBool ? in : in.ne(0);
      Tensor result = outs[0].dtype() == kBool ? outs[0] : empty(outs[0].sizes(), truth.options());
      launch_reduction(kind == ReduceKind::kAll ? ReduceOp::kAmin : ReduceOp::kAmax, truth, mask,
                       1.0, result, kind == ReduceKind::kAll ? "all_cuda" : "any_cuda");
      if (!result.is_same(outs[0])) outs[0].copy_(result);
      return;
    }
    case ReduceKind::kMax:
    case ReduceKind::kMin:
      launch_arg_reduction(kind == ReduceKind::kMax, in, mask, outs[0], outs[1],
                           kind == ReduceKind::kMax ? "max_cuda" : "min_cuda");
      return;
    case ReduceKind::kArgmax:
    case ReduceKind::kArgmin:
      launch_arg_reduction(kind == ReduceKind::kArgmax, in, mask, Tensor(), outs[0],
                           kind == ReduceKind::kArgmax ? "argmax_cuda" : "argmin_cuda");
      return;
    case ReduceKind::kCountNonzero:
      launch_reduction(ReduceOp::kSum, in.dtype() == kBool ? in : in.ne(0), mask, 1.0, outs[0],
                       "count_nonzero_cuda");
      return;
    case ReduceKind::kVar:
    case ReduceKind::kNorm:
    case ReduceKind::kLogSumExp:
      launch_stats(kind, in, mask, args, outs);
      return;
  }
  throw Error(absl::StrCat("Could not run 'aten::", reduce_name(kind),
                           "' with arguments from the 'CUDA' backend."));
}

}  // namespace
}  // namespace cuda

EMBER_REGISTER_KERNEL(add_kernel, kCUDA, &cuda::add_cuda);
EMBER_REGISTER_KERNEL(mul_kernel, kCUDA, &cuda::binary_cuda<cuda::kernels::BinaryOp::kMul>);
EMBER_REGISTER_KERNEL(div_true_kernel, kCUDA, &cuda::binary_cuda<cuda::kernels::BinaryOp::kDiv>);
EMBER_REGISTER_KERNEL(maximum_kernel, kCUDA,
                      &cuda::binary_cuda<cuda::kernels::BinaryOp::kMaximum>);
EMBER_REGISTER_KERNEL(minimum_kernel, kCUDA,
                      &cuda::binary_cuda<cuda::kernels::BinaryOp::kMinimum>);
EMBER_REGISTER_KERNEL(eq_kernel, kCUDA, &cuda::binary_cuda<cuda::kernels::BinaryOp::kEq>);
EMBER_REGISTER_KERNEL(ne_kernel, kCUDA, &cuda::binary_cuda<cuda::kernels::BinaryOp::kNe>);
EMBER_REGISTER_KERNEL(lt_kernel, kCUDA, &cuda::binary_cuda<cuda::kernels::BinaryOp::kLt>);
EMBER_REGISTER_KERNEL(le_kernel, kCUDA, &cuda::binary_cuda<cuda::kernels::BinaryOp::kLe>);
EMBER_REGISTER_KERNEL(gt_kernel, kCUDA, &cuda::binary_cuda<cuda::kernels::BinaryOp::kGt>);
EMBER_REGISTER_KERNEL(ge_kernel, kCUDA, &cuda::binary_cuda<cuda::kernels::BinaryOp::kGe>);

EMBER_REGISTER_KERNEL(neg_kernel, kCUDA, &cuda::unary_cuda<cuda::kernels::UnaryOp::kNeg>);
EMBER_REGISTER_KERNEL(abs_kernel, kCUDA, &cuda::unary_cuda<cuda::kernels::UnaryOp::kAbs>);
EMBER_REGISTER_KERNEL(sqrt_kernel, kCUDA, &cuda::unary_cuda<cuda::kernels::UnaryOp::kSqrt>);
EMBER_REGISTER_KERNEL(rsqrt_kernel, kCUDA, &cuda::unary_cuda<cuda::kernels::UnaryOp::kRsqrt>);
EMBER_REGISTER_KERNEL(exp_kernel, kCUDA, &cuda::unary_cuda<cuda::kernels::UnaryOp::kExp>);
EMBER_REGISTER_KERNEL(log_kernel, kCUDA, &cuda::unary_cuda<cuda::kernels::UnaryOp::kLog>);
EMBER_REGISTER_KERNEL(log1p_kernel, kCUDA, &cuda::unary_cuda<cuda::kernels::UnaryOp::kLog1p>);
EMBER_REGISTER_KERNEL(sin_kernel, kCUDA, &cuda::unary_cuda<cuda::kernels::UnaryOp::kSin>);
EMBER_REGISTER_KERNEL(cos_kernel, kCUDA, &cuda::unary_cuda<cuda::kernels::UnaryOp::kCos>);
EMBER_REGISTER_KERNEL(tanh_kernel, kCUDA, &cuda::unary_cuda<cuda::kernels::UnaryOp::kTanh>);
EMBER_REGISTER_KERNEL(sigmoid_kernel, kCUDA,
                      &cuda::unary_cuda<cuda::kernels::UnaryOp::kSigmoid>);
EMBER_REGISTER_KERNEL(reciprocal_kernel, kCUDA,
                      &cuda::unary_cuda<cuda::kernels::UnaryOp::kReciprocal>);
EMBER_REGISTER_KERNEL(clamp_min_scalar_kernel, kCUDA, &cuda::clamp_min_cuda);
EMBER_REGISTER_KERNEL(lerp_scalar_kernel, kCUDA, &cuda::lerp_cuda);
EMBER_REGISTER_KERNEL(addcmul_kernel, kCUDA, &cuda::addcmul_cuda);
EMBER_REGISTER_KERNEL(addcdiv_kernel, kCUDA, &cuda::addcdiv_cuda);
EMBER_REGISTER_KERNEL(clamp_max_scalar_kernel, kCUDA, &cuda::clamp_max_cuda);

namespace reduce_detail {
EMBER_REGISTER_KERNEL(reduce_stub, kCUDA, &cuda::reduce_cuda);
}  // namespace reduce_detail

}  // namespace ember
