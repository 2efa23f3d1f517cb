#ifndef EMBER_TENSOR_LINALG_LAPACK_H_
#define EMBER_TENSOR_LINALG_LAPACK_H_

// Internal to //tensor's LAPACK-backed ops (linalg_more.cc,
// linalg_spectral.cc, linalg_factor.cc): PyTorch's shared input checks, the
// trip of a batch of matrices to LAPACK's column-major layout and back
// (Note [Column-major batches] in linalg_more.cc), on the CPU or on a device
// with entries in tensor/lapack_kernels.h's tables, and PyTorch's
// per-matrix error prefix. Not for users.

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/fallback.h"
#include "tensor/iterator.h"
#include "tensor/kernel_table.h"
#include "tensor/lapack_kernels.h"
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

// Whether an op on the tensors' device runs `table`'s entry there: true on
// a device with an entry. False on the CPU, and on a device without one,
// whose inputs then go to the CPU with Note [CPU fallback]'s warning (once
// per op). Tensors on two devices are PyTorch's error.
template <typename Fn>
bool on_device(const KernelTable<Fn>& table, const char* op,
               std::initializer_list<Tensor> tensors) {
  const Device d = detail::common_device(tensors);
  if (d.is_cpu()) return false;
  if (table.has(d.type())) return true;
  detail::cpu_fallback(op, tensors);
  return false;
}

// A's matrices column-major in a buffer of their own (the kernels write
// into it): on A's device when on_device, else on the CPU.
inline Tensor column_major(const Tensor& A, bool on_device = false) {
  const Tensor t = (on_device ? A : A.to(kCPU)).mT();
  return t.is_contiguous() ? t.clone() : t.contiguous();
}

// The first positive LAPACK info of a device's `infos` (read back once)
// with its matrix's index, or (0, -1).
inline std::pair<int, int64_t> first_positive_info(const Tensor& infos) {
  const Tensor host = infos.to(kCPU).contiguous();
  const int* p = host.data_ptr<int>();
  for (int64_t i = 0; i < host.numel(); ++i) {
    if (p[i] > 0) return {p[i], i};
  }
  return {0, -1};
}

// getrf on a device (on_device(lapack_getrf, ...)): a's matrices replaced
// by their LU factors; (pivots, infos) on a's device.
inline std::pair<Tensor, Tensor> getrf_on_device(Tensor& a) {
  DimVector shape(a.sizes().begin(), a.sizes().end() - 2);
  const TensorOptions ints = TensorOptions(kInt).device(a.device());
  Tensor infos = empty(shape, ints);
  shape.push_back(std::min(a.size(-1), a.size(-2)));
  Tensor pivots = empty(shape, ints);
  lapack_getrf(a.device())(a, pivots, infos);
  return {pivots, infos};
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
