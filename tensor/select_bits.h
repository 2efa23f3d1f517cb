#ifndef EMBER_TENSOR_SELECT_BITS_H_
#define EMBER_TENSOR_SELECT_BITS_H_

// detail::select_bits(m, v, a): m ? v : a computed on the elements' bits,
// for kernels whose loops must vectorize (a private header of the
// libraries that use it: where, masked_fill, the fused activations).

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "tensor/half.h"

namespace ember {
namespace detail {

// m ? v : a on the bits (m is 0 or 1). GCC 12 keeps a select in a loop as
// a branch, or as a masked load it finds no vector type for (1-byte masks
// beside wider elements), and the loop stays scalar: masked_fill of 65536
// floats by a random mask took 250 us, leaky_relu 340 us (the branches
// mispredict). Bit operations it cannot turn back into a branch.
template <typename T>
[[gnu::always_inline]] inline T select_bits(uint8_t m, T v, T a) {
  using U = std::conditional_t<
      sizeof(T) == 1, uint8_t,
      std::conditional_t<sizeof(T) == 2, uint16_t,
                         std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
  static_assert(sizeof(T) == sizeof(U), "select_bits: an element of 1, 2, 4 or 8 bytes");
  const U mask = static_cast<U>(U{0} - static_cast<U>(m));
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
    return T::from_bits(static_cast<U>((v.x & mask) | (a.x & static_cast<U>(~mask))));
  } else {
    U vb, ab;
    std::memcpy(&vb, &v, sizeof(T));
    std::memcpy(&ab, &a, sizeof(T));
    const U r = static_cast<U>((vb & mask) | (ab & static_cast<U>(~mask)));
    T out;
    std::memcpy(&out, &r, sizeof(T));
    return out;
  }
}

}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_SELECT_BITS_H_
