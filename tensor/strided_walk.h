#ifndef EMBER_TENSOR_STRIDED_WALK_H_
#define EMBER_TENSOR_STRIDED_WALK_H_

// Internal helpers of the selection and indexing ops: walking several
// strided operands over one shape in row-major order, and dtype-agnostic
// element copies. Not part of the public API.

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

#include "tensor/error.h"
#include "tensor/parallel.h"
#include "tensor/tensor.h"

namespace ember {
namespace detail {

// Calls f(offsets) for the row-major positions [begin, end) of `shape`,
// where offsets[k] is operand k's element offset: base[k] + sum(idx[d] *
// strides[k][d]). The innermost dimension is a tight loop; the carry
// happens once per row, so no per-element division or allocation.
template <size_t K, typename F>
void strided_walk(IntArrayRef shape, const std::array<const int64_t*, K>& strides,
                  std::array<int64_t, K> base, int64_t begin, int64_t end, const F& f) {
  if (begin >= end) return;
  const int nd = static_cast<int>(shape.size());
  if (nd == 0) {
    f(base);
    return;
  }
  EMBER_CHECK(nd <= 64, "tensors with more than 64 dimensions are not supported");
  int64_t idx[64];
  int64_t rest = begin;
  for (int d = nd - 1; d >= 0; --d) {
    idx[d] = rest % shape[d];
    rest /= shape[d];
    for (size_t k = 0; k < K; ++k) base[k] += idx[d] * strides[k][d];
  }
  const int last = nd - 1;
  std::array<int64_t, K> inner;
  for (size_t k = 0; k < K; ++k) inner[k] = strides[k][last];
  int64_t pos = begin;
  while (pos < end) {
    int64_t n = shape[last] - idx[last];
    if (n > end - pos) n = end - pos;
    std::array<int64_t, K> o = base;
    for (int64_t i = 0; i < n; ++i) {
      f(o);
      for (size_t k = 0; k < K; ++k) o[k] += inner[k];
    }
    pos += n;
    for (size_t k = 0; k < K; ++k) base[k] += n * inner[k];
    idx[last] += n;
    for (int d = last; d > 0 && idx[d] == shape[d]; --d) {
      idx[d] = 0;
      ++idx[d - 1];
      for (size_t k = 0; k < K; ++k) base[k] += strides[k][d - 1] - shape[d] * strides[k][d];
    }
  }
}

// Calls row(offsets) for every position of `sizes` with dimension `dim`
// collapsed to 1; row() then walks that dimension itself. Rows touch
// disjoint parts of the written tensor, so they run in parallel.
template <size_t K, typename F>
void for_each_row(const DimVector& sizes, int64_t dim, const std::array<const int64_t*, K>& strides,
                  const F& row) {
  DimVector outer = sizes;
  const int64_t len = outer[dim];
  outer[dim] = 1;
  const int64_t n = compute_numel(outer);
  if (n == 0 || len == 0) return;
  const int64_t grain = std::max<int64_t>(1, kGrainSize / len);
  parallel_for(0, n, grain, [&](int64_t b, int64_t e) {
    std::array<int64_t, K> base{};
    strided_walk<K>(outer, strides, base, b, e, row);
  });
}

// t's strides aligned to `shape` (which t broadcasts to): 0 where t is
// broadcast. The caller has checked broadcastability.
inline DimVector broadcast_strides(const Tensor& t, IntArrayRef shape) {
  DimVector st(shape.size(), 0);
  const int64_t off = static_cast<int64_t>(shape.size()) - t.dim();
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.sizes()[d] != 1) st[d + off] = t.strides()[d];
  }
  return st;
}

// The first k with ip[k] outside [lo, hi), or n. The common case (all in
// range) is one branch-free pass that vectorizes; only a bad index pays
// for the scan that finds it.
inline int64_t first_outside(const int64_t* ip, int64_t n, int64_t lo, int64_t hi) {
  const uint64_t base = static_cast<uint64_t>(lo);
  const uint64_t span = static_cast<uint64_t>(hi) - base;
  uint64_t bad = 0;
  for (int64_t k = 0; k < n; ++k) bad |= (static_cast<uint64_t>(ip[k]) - base) >= span;
  if (bad == 0) return n;
  for (int64_t k = 0; k < n; ++k) {
    if (ip[k] < lo || ip[k] >= hi) return k;
  }
  return n;
}

// Unsigned integer of a given byte width: selection kernels that only move
// elements (gather, take, index) are instantiated per element size, not
// per dtype.
template <typename F>
void dispatch_by_element_size(int64_t size, const F& f) {
  switch (size) {
    case 1: return f(uint8_t{});
    case 2: return f(uint16_t{});
    case 4: return f(uint32_t{});
    case 8: return f(uint64_t{});
    default: throw Error(absl::StrCat("unsupported element size ", size));
  }
}

}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_STRIDED_WALK_H_
