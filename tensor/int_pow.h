#ifndef EMBER_TENSOR_INT_POW_H_
#define EMBER_TENSOR_INT_POW_H_

// Integer pow, shared by the CPU kernel (pointwise.cc) and the CUDA one
// (tensor/cuda/binary_pow.cu, which nvcc compiles with this header as an
// extra input: cuda_library's nvcc_hdrs). Header-only and free of ember's
// other headers so that nvcc can compile it for the device.

#include <type_traits>

#if defined(__CUDACC__)
#define EMBER_HOST_DEVICE __host__ __device__
#else
#define EMBER_HOST_DEVICE
#endif

namespace ember {
namespace detail {

// Power by squaring with PyTorch's answers for negative exponents (1 and -1
// stay units, everything else truncates to 0). The arithmetic is unsigned
// so that overflow wraps, and 8- and 16-bit products are taken in unsigned
// int: promoted to int, 65535 * 65535 would overflow (undefined).
template <typename T>
EMBER_HOST_DEVICE inline T powi(T a, T b) {
  if constexpr (std::is_signed<T>::value) {
    if (b < 0) {
      if (a == 1) return 1;
      if (a == -1) return (-b) % 2 ? T(-1) : T(1);
      return 0;
    }
  }
  using U = std::make_unsigned_t<T>;
  using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
  U result = 1, base = static_cast<U>(a);
  U e = static_cast<U>(b);
  while (e) {
    if (e & 1) result = static_cast<U>(static_cast<W>(result) * base);
    e >>= 1;
    base = static_cast<U>(static_cast<W>(base) * base);
  }
  return static_cast<T>(result);
}

}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_INT_POW_H_
