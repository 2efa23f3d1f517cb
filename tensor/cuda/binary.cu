// Binary elementwise kernels: arithmetic, maximum/minimum, comparisons.

#include "tensor/cuda/elementwise.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

template <typename T>
struct AddOp {
  opmath_t<T> alpha;
  __device__ T operator()(T a, T b) const {
    using acc = opmath_t<T>;
    return static_cast<T>(static_cast<acc>(a) + alpha * static_cast<acc>(b));
  }
};
struct BoolAddOp {
  bool alpha;
  __device__ bool operator()(bool a, bool b) const { return a || (alpha && b); }
};

template <typename T>
struct MulOp {
  __device__ T operator()(T a, T b) const {
    using acc = opmath_t<T>;
    return static_cast<T>(static_cast<acc>(a) * static_cast<acc>(b));
  }
};
struct BoolMulOp {
  __device__ bool operator()(bool a, bool b) const { return a && b; }
};

template <typename T>
struct DivOp {
  __device__ T operator()(T a, T b) const {
    using acc = opmath_t<T>;
    return static_cast<T>(static_cast<acc>(a) / static_cast<acc>(b));
  }
};

// NaN-propagating, as torch.maximum / torch.minimum.
template <typename T, bool kMax>
struct MinMaxOp {
  __device__ T operator()(T a, T b) const {
    using acc = opmath_t<T>;
    const acc x = static_cast<acc>(a), y = static_cast<acc>(b);
    if (is_nan(x)) return a;
    if (is_nan(y)) return b;
    return (kMax ? x > y : x < y) ? a : b;
  }
};

template <typename T, BinaryOp kOp>
struct CompareOp {
  __device__ bool operator()(T a, T b) const {
    using acc = opmath_t<T>;
    const acc x = static_cast<acc>(a), y = static_cast<acc>(b);
    switch (kOp) {
      case BinaryOp::kEq: return x == y;
      case BinaryOp::kNe: return x != y;
      case BinaryOp::kLt: return x < y;
      case BinaryOp::kLe: return x <= y;
      case BinaryOp::kGt: return x > y;
      default: return x >= y;
    }
  }
};

template <BinaryOp kOp>
cudaError_t compare(DType dtype, const Elementwise& e) {
  return dispatch<kAllKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return run_binary<bool, T>(e, CompareOp<T, kOp>{});
  });
}

}  // namespace

cudaError_t launch_binary(BinaryOp op, DType dtype, const Elementwise& e, double alpha) {
  switch (op) {
    case BinaryOp::kAdd:
      if (dtype == DType::kBool) return run_binary<bool, bool>(e, BoolAddOp{alpha != 0});
      return dispatch<kNumericKinds>(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        return run_binary<T, T>(e, AddOp<T>{static_cast<opmath_t<T>>(alpha)});
      });
    case BinaryOp::kMul:
      if (dtype == DType::kBool) return run_binary<bool, bool>(e, BoolMulOp{});
      return dispatch<kNumericKinds>(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        return run_binary<T, T>(e, MulOp<T>{});
      });
    case BinaryOp::kDiv:
      return dispatch<kFloatingKinds>(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        return run_binary<T, T>(e, DivOp<T>{});
      });
    case BinaryOp::kMaximum:
      return dispatch<kAllKinds>(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        return run_binary<T, T>(e, MinMaxOp<T, true>{});
      });
    case BinaryOp::kMinimum:
      return dispatch<kAllKinds>(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        return run_binary<T, T>(e, MinMaxOp<T, false>{});
      });
    case BinaryOp::kEq: return compare<BinaryOp::kEq>(dtype, e);
    case BinaryOp::kNe: return compare<BinaryOp::kNe>(dtype, e);
    case BinaryOp::kLt: return compare<BinaryOp::kLt>(dtype, e);
    case BinaryOp::kLe: return compare<BinaryOp::kLe>(dtype, e);
    case BinaryOp::kGt: return compare<BinaryOp::kGt>(dtype, e);
    case BinaryOp::kGe: return compare<BinaryOp::kGe>(dtype, e);
  }
  return cudaErrorInvalidValue;
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
