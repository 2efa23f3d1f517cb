#ifndef EMBER_TENSOR_SELECTION_H_
#define EMBER_TENSOR_SELECTION_H_

// Selection ops: picking, filling and scattering elements by masks and
// index tensors, and sorting. The Tensor methods are declared in tensor.h
// (`x.gather(1, idx)`); these are the free-function spellings
// (`ember::gather(x, 1, idx)`) and the ops that have no method form
// (`where`). Semantics, dtype rules and error messages are PyTorch 1.13's.

#include <cstdint>
#include <tuple>
#include <vector>

#include "tensor/kernel_table.h"
#include "tensor/tensor.h"

namespace ember {

class TensorIterator;

// Elementwise `condition ? self : other`, broadcasting all three; self and
// other are promoted to their result_type (numbers as wrapped scalars).
// condition must be bool (uint8 is accepted, as PyTorch 1.13 still does).
Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other);
Tensor where(const Tensor& condition, const Scalar& self, const Tensor& other);
Tensor where(const Tensor& condition, const Tensor& self, const Scalar& other);
Tensor where(const Tensor& condition, const Scalar& self, const Scalar& other);
// The coordinates of the nonzero elements, one int64 tensor per dimension
// (torch.where(cond) / nonzero(as_tuple=True)).
std::vector<Tensor> where(const Tensor& condition);
// int64 [n, dim] coordinates of the nonzero elements, in row-major order.
Tensor nonzero(const Tensor& self);

Tensor masked_select(const Tensor& self, const Tensor& mask);
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value);
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value);
// On CUDA: atomics order scatter_add's additions differently from run to
// run, and index values are checked on the device (Tensor::scatter_add_).
Tensor take(const Tensor& self, const Tensor& index);
Tensor gather(const Tensor& self, int64_t dim, const Tensor& index);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index);

// libtorch's overloads: sort(self, dim, descending) and sort(self, stable,
// dim, descending), where Python's torch.sort takes stable as a keyword
// after them. (A third positional argument used to mean stable here; in
// libtorch `x.sort(true, 0, false)` is a stable sort along dim 0.) As in
// 1.13, a sort is stable (ties keep their order) only when asked: the
// default (stable = false or nullopt) orders the ties of a row longer than
// 16 as 1.13's std::sort does on the CPU (Note [PyTorch's unstable sort] in
// sort.cc); on CUDA every sort is stable. The results take self's strides
// when it is dense (PyTorch's preserve_format), as the values and indices
// of PyTorch's sort do. argsort(self, int) settles libtorch's ambiguous
// `argsort(0)` (int64_t dim or bool stable) for an int literal: a dim.
std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim = -1, bool descending = false);
std::tuple<Tensor, Tensor> sort(const Tensor& self, std::optional<bool> stable, int64_t dim = -1,
                                bool descending = false);
Tensor argsort(const Tensor& self, int64_t dim = -1, bool descending = false);
Tensor argsort(const Tensor& self, bool stable, int64_t dim = -1, bool descending = false);
inline Tensor argsort(const Tensor& self, int dim) {
  return argsort(self, static_cast<int64_t>(dim));
}
// On CUDA (Note [Device sort] in sort.cc) sort, argsort, topk and kthvalue
// sort each row on the device (a stable radix sort) and give the CPU's
// values and, for sort, its indices bit for bit. topk and kthvalue select
// by a full sort (PyTorch's radix select would be faster for small k);
// topk(sorted=false) returns them sorted, and where several elements equal
// the value picked, their index names the one the stable order puts there,
// which may differ from the CPU's (as PyTorch's CUDA and CPU results do).
// nonzero, where(cond) and masked_select read only the number of selected
// elements back to the host; masked_scatter_ reads it to check source's
// length, and raises before writing anything.
std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim = -1,
                                bool largest = true, bool sorted = true);
std::tuple<Tensor, Tensor> kthvalue(const Tensor& self, int64_t k, int64_t dim = -1,
                                    bool keepdim = false);

// Kernel tables (Note [Kernel tables]). The shape/dtype checks and output
// allocation run once in selection.cc / gather.cc; these are the loops.
// where: iterator over (out, condition(bool), self, other) of one dtype.
EMBER_DECLARE_KERNEL_TABLE(where_kernel, void (*)(TensorIterator&));
// masked_fill: iterator over (out, mask(bool), self).
EMBER_DECLARE_KERNEL_TABLE(masked_fill_kernel, void (*)(TensorIterator&, const Scalar&));

}  // namespace ember

#endif  // EMBER_TENSOR_SELECTION_H_
