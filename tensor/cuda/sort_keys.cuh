#ifndef EMBER_TENSOR_CUDA_SORT_KEYS_CUH_
#define EMBER_TENSOR_CUDA_SORT_KEYS_CUH_

// The order-preserving unsigned keys of sort.cu (its header comment says
// how each dtype maps), shared with topk.cu's small-k selection. nvcc only.

#include <cstdint>

#include "tensor/cuda/kernels.h"

namespace ember {
namespace cuda {
namespace kernels {

enum class KeyKind : int { kUnsigned, kSigned, kFloating };

// How a dtype's bits become a key. inf_bits: the magnitude bits of
// infinity (a larger magnitude is NaN); key_bits: the key's width (1 for
// bool, whose bytes are 0 or 1).
struct KeySpec {
  KeyKind kind;
  uint64_t inf_bits;
  int key_bits;
  bool descending;
};

template <typename U>
__device__ __forceinline__ U order_key(U b, const KeySpec& s) {
  constexpr U kSign = static_cast<U>(U(1) << (8 * sizeof(U) - 1));
  U k = b;
  if (s.kind == KeyKind::kSigned) {
    k = static_cast<U>(b ^ kSign);
  } else if (s.kind == KeyKind::kFloating) {
    const U mag = static_cast<U>(b & static_cast<U>(~kSign));
    if (mag > static_cast<U>(s.inf_bits)) {
      k = static_cast<U>(~U(0));
    } else if (mag == 0) {
      k = kSign;
    } else {
      k = (b & kSign) != 0 ? static_cast<U>(~b) : static_cast<U>(b | kSign);
    }
  }
  if (s.descending) {
    const U low = s.key_bits >= 8 * static_cast<int>(sizeof(U))
                      ? static_cast<U>(~U(0))
                      : static_cast<U>((U(1) << s.key_bits) - 1);
    k = static_cast<U>(k ^ low);
  }
  return k;
}

// The key of `dtype`'s elements; *size: their bytes.
inline KeySpec key_spec(DType dtype, bool descending, int* size) {
  KeySpec s{KeyKind::kUnsigned, 0, 0, descending};
  int& n = *size;
  switch (dtype) {
    case DType::kBool:
      n = 1, s.key_bits = 1;
      break;
    case DType::kUInt8:
      n = 1;
      break;
    case DType::kInt8:
      n = 1, s.kind = KeyKind::kSigned;
      break;
    case DType::kInt16:
      n = 2, s.kind = KeyKind::kSigned;
      break;
    case DType::kInt32:
      n = 4, s.kind = KeyKind::kSigned;
      break;
    case DType::kInt64:
      n = 8, s.kind = KeyKind::kSigned;
      break;
    case DType::kHalf:
      n = 2, s.kind = KeyKind::kFloating, s.inf_bits = 0x7c00;
      break;
    case DType::kBFloat16:
      n = 2, s.kind = KeyKind::kFloating, s.inf_bits = 0x7f80;
      break;
    case DType::kFloat:
      n = 4, s.kind = KeyKind::kFloating, s.inf_bits = 0x7f800000;
      break;
    case DType::kDouble:
      n = 8, s.kind = KeyKind::kFloating, s.inf_bits = 0x7ff0000000000000ULL;
      break;
  }
  if (s.key_bits == 0) s.key_bits = 8 * n;
  return s;
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_SORT_KEYS_CUH_
