#ifndef EMBER_TENSOR_LINALG_LAPACK_H_
#define EMBER_TENSOR_LINALG_LAPACK_H_

// Internal to //tensor's LAPACK-backed ops (linalg_more.cc,
// linalg_spectral.cc, linalg_factor.cc): PyTorch's shared input checks, the
// trip of a batch of matrices to LAPACK's column-major layout on the CPU and
// back (Note [Column-major batches] in linalg_more.cc), and PyTorch's
// per-matrix error prefix. Not for users.

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "tensor/error.h"
#include "tensor/iterator.h"
#include "tensor/shape.h"
#include "tensor/tensor.h"

namespace ember {
namespace linalg_internal {

// PyTorch's squareCheckInputs: "fn: " prefixes the message unless fn is "".
inline void check_square(const char* fn, const Tensor& A, const char* arg = "A") {
  const std::string prefix = fn[0] != '\0' ? absl::StrCat(fn, ": ") : "";
  EMBER_CHECK(A.dim() >= 2, prefix, "The input tensor ", arg, " must have at least 2 dimensions.");
  EMBER_CHECK(A.size(-1) == A.size(-2), prefix,
              "A must be batches of square matrices, but they are ", A.size(-2), " by ", A.size(-1),
              " matrices");
}

inline void check_floating(const char* fn, const Tensor& A) {
  EMBER_CHECK(is_floating_point(A.scalar_type()), fn,
              ": Expected a floating point or complex tensor as input. Got ",
              scalar_type_name(A.scalar_type()));
}

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
