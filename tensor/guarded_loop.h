#ifndef EMBER_TENSOR_GUARDED_LOOP_H_
#define EMBER_TENSOR_GUARDED_LOOP_H_

// Note [Guarded fast paths]: some binary kernels have a formula that is
// exact and vectorizes on the inputs nearly every program sees, and a
// libm call (scalar: no vector version exists) that is right everywhere.
// fmod is the example: glibc's fmodf is a bit-by-bit loop that took
// 1272 us for 65536 floats where libtorch's Sleef version takes 114 us.
// cpu_kernel_guarded runs
//
//   out = ok(a, b) ? fast(a, b) : exact(a, b)
//
// over blocks of kBlock elements: a first pass asks `ok` of the whole
// block (vectorized, no writes), then a block that is all ok runs `fast`
// as one vectorized loop, and any other block runs `fast` into a buffer
// and calls `exact` for the lanes that are not ok. `ok` and `fast` must be
// branch-free (selects, no calls GCC cannot vectorize); where `ok` holds
// `fast` must give exactly what `exact` gives. An output that is also an
// input (in-place) is fine: lane k reads its inputs before it writes.
// A private header of //tensor:math.

#include <algorithm>
#include <cstdint>

#include "tensor/iterator.h"

namespace ember {
namespace detail {

template <typename T>
struct ContiguousInput {
  const T* p;
  T operator[](int64_t k) const { return p[k]; }
};

template <typename T>
struct BroadcastInput {
  T v;
  T operator[](int64_t) const { return v; }
};

template <typename T, typename A, typename B, typename Ok, typename Fast, typename Exact>
void guarded_run(T* out, int64_t n, A a, B b, const Ok& ok, const Fast& fast, const Exact& exact) {
  constexpr int64_t kBlock = 256;
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t m = std::min(kBlock, n - start);
    T* o = out + start;
    int bad = 0;
    for (int64_t k = 0; k < m; ++k) bad |= !ok(a[start + k], b[start + k]);
    if (!bad) {
      for (int64_t k = 0; k < m; ++k) o[k] = fast(a[start + k], b[start + k]);
      continue;
    }
    T fast_out[kBlock];
    for (int64_t k = 0; k < m; ++k) fast_out[k] = fast(a[start + k], b[start + k]);
    for (int64_t k = 0; k < m; ++k) {
      const T x = a[start + k], y = b[start + k];
      o[k] = ok(x, y) ? fast_out[k] : exact(x, y);
    }
  }
}

// out = ok(a, b) ? fast(a, b) : exact(a, b) for a binary op whose inputs
// and output are all T (Note [Guarded fast paths]).
template <typename T, typename Ok, typename Fast, typename Exact>
void cpu_kernel_guarded(TensorIterator& iter, const Ok& ok, const Fast& fast, const Exact& exact) {
  iter.for_each([&](char** data, const int64_t* strides, int64_t n) {
    T* out = reinterpret_cast<T*>(data[0]);
    const T* a = reinterpret_cast<const T*>(data[1]);
    const T* b = reinterpret_cast<const T*>(data[2]);
    constexpr int64_t kSize = sizeof(T);
    if (strides[0] == kSize && strides[1] == kSize && strides[2] == kSize) {
      guarded_run(out, n, ContiguousInput<T>{a}, ContiguousInput<T>{b}, ok, fast, exact);
    } else if (strides[0] == kSize && strides[1] == kSize && strides[2] == 0) {
      guarded_run(out, n, ContiguousInput<T>{a}, BroadcastInput<T>{*b}, ok, fast, exact);
    } else if (strides[0] == kSize && strides[1] == 0 && strides[2] == kSize) {
      guarded_run(out, n, BroadcastInput<T>{*a}, ContiguousInput<T>{b}, ok, fast, exact);
    } else {
      for (int64_t k = 0; k < n; ++k) {
        const T x = *reinterpret_cast<const T*>(data[1] + k * strides[1]);
        const T y = *reinterpret_cast<const T*>(data[2] + k * strides[2]);
        *reinterpret_cast<T*>(data[0] + k * strides[0]) = ok(x, y) ? fast(x, y) : exact(x, y);
      }
    }
  });
}

}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_GUARDED_LOOP_H_
