// lerp, addcmul, addcdiv: what the optimizers' tensor-op path (Note [Fused
// updates]) needs besides arithmetic, so that SGD, Adam(W) and RMSprop
// update CUDA parameters.

#include "tensor/cuda/elementwise.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

// The form exact at both ends (weight 0 and 1), as the CPU kernel.
template <typename T>
struct LerpOp {
  T w;
  __device__ T operator()(T self, T end) const {
    // PyTorch 1.13's branch: weight < 0.5 (not |weight|), as the CPU's.
    return w < T(0.5) ? self + w * (end - self) : end - (end - self) * (T(1) - w);
  }
};

template <typename T>
struct AddcmulOp {
  opmath_t<T> v;
  __device__ T operator()(T s, T t1, T t2) const {
    using acc = opmath_t<T>;
    return static_cast<T>(static_cast<acc>(s) + v * static_cast<acc>(t1) * static_cast<acc>(t2));
  }
};

template <typename T>
struct AddcdivOp {
  opmath_t<T> v;
  __device__ T operator()(T s, T t1, T t2) const {
    using acc = opmath_t<T>;
    return static_cast<T>(static_cast<acc>(s) + v * static_cast<acc>(t1) / static_cast<acc>(t2));
  }
};

}  // namespace

cudaError_t launch_pointwise(PointwiseOp op, DType dtype, const Elementwise& e, double s) {
  switch (op) {
    case PointwiseOp::kLerp:
      if (dtype == DType::kFloat) return run_binary<float, float>(e, LerpOp<float>{float(s)});
      if (dtype == DType::kDouble) return run_binary<double, double>(e, LerpOp<double>{s});
      return cudaErrorInvalidValue;
    case PointwiseOp::kAddcmul:
      return dispatch<kNumericKinds>(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        // The value is first converted to the tensor's dtype, as on the CPU.
        return run_ternary<T>(e, AddcmulOp<T>{static_cast<opmath_t<T>>(static_cast<T>(s))});
      });
    case PointwiseOp::kAddcdiv:
      return dispatch<kFloatingKinds>(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        return run_ternary<T>(e, AddcdivOp<T>{static_cast<opmath_t<T>>(static_cast<T>(s))});
      });
  }
  return cudaErrorInvalidValue;
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
