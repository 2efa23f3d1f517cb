#ifndef EMBER_TENSOR_LINALG_LAPACK_H_
#define EMBER_TENSOR_LINALG_LAPACK_H_

// Internal to the LAPACK-backed ops (linalg_more.cc, linalg_factor.cc): the
// batch layout their CPU kernels share (Note [Column-major batches] in
// linalg_more.cc) and PyTorch's per-matrix error prefix. Not for users.

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "tensor/iterator.h"
#include "tensor/shape.h"
#include "tensor/tensor.h"

namespace ember {
namespace linalg_internal {

// "fn: " or "fn: (Batch element i): ", the start of a per-matrix error.
inline std::string error_prefix(const char* fn, bool batched, int64_t i) {
  return batched ? absl::StrCat(fn, ": (Batch element ", i, "): ") : absl::StrCat(fn, ": ");
}

// A's matrices column-major on the CPU, in a buffer of their own: the
// kernels write into it.
inline Tensor column_major(const Tensor& A) {
  const Tensor t = A.to(kCPU).mT();
  return t.is_contiguous() ? t.clone() : t.contiguous();
}

// Back from column_major's layout, on `device`.
inline Tensor from_column_major(const Tensor& buf, Device device) { return buf.mT().to(device); }

// The number of matrices in t (..., r, c).
inline int64_t batch_count(const Tensor& t) {
  int64_t count = 1;
  for (int64_t d = 0; d + 2 < t.dim(); ++d) count *= t.size(d);
  return count;
}

// The shape A's and B's batch dims broadcast to, followed by `rows`, `cols`.
inline DimVector broadcast_batch(const Tensor& A, const Tensor& B, int64_t rows, int64_t cols) {
  const IntArrayRef a = A.sizes(), b = B.sizes();
  DimVector out = infer_size(a.slice(0, a.size() - 2), b.slice(0, b.size() - 2));
  out.push_back(rows);
  out.push_back(cols);
  return out;
}

}  // namespace linalg_internal
}  // namespace ember

#endif  // EMBER_TENSOR_LINALG_LAPACK_H_
