#ifndef EMBER_TENSOR_REDUCE_OPS_H_
#define EMBER_TENSOR_REDUCE_OPS_H_

// torch.Tensor methods ember lacked (issue 22): scatter_reduce and
// index_reduce (reductions into self along one dim), igamma/igammac (the
// regularized incomplete gamma functions, arithmetic in special_math.h,
// kernels on the CPU and CUDA), histogram and histogramdd. Semantics, dtypes and error
// messages are PyTorch 1.13's (tensor/reduce_ops_test.cc, goldens from
// tools/golden/reduce_ops.py); derivatives in autograd/derivatives/
// reduce_ops.cc. The Tensor methods and in-place forms are in tensor.h.
//
// Deliberate differences from PyTorch 1.13:
// - scatter_reduce/index_reduce on CUDA combine with atomics (as
//   PyTorch's CUDA kernels): the order in which values reach one position
//   varies from run to run, so floating "sum", "prod" and "mean" may differ
//   from the CPU's (and between runs) in the last bits; integer results and
//   amax/amin are the CPU's exactly. An index out of range is found on the
//   device and raised (the CPU's message) at the next synchronization
//   (Note [Device-side index checks]), after the other positions were
//   reduced; the CPU raises before changing self.
// - scatter_reduce's double backward for "prod" where two or more zeros of
//   src go to one position: PyTorch raises a delayed error, ember
//   differentiates the formula as written (its result there is 0).
// - histogram(dd)'s range is a std::optional<std::vector<double>> where
//   libtorch takes an optional ArrayRef<double>; histogram(x, 4, {{0., 4.}})
//   reads the same. On CUDA it raises PyTorch's dispatcher error (1.13 has
//   no CUDA histogram).
// - histogram(dd)'s results never require grad (PyTorch gives them a
//   NotImplemented grad_fn that fails in backward).
// - histogram(dd) ignores a point with NaN in any dimension (what 1.13's
//   kernel means to do). 1.13 lets NaN through its range check into the
//   bin search: with given edges it lands in the last bin, with equal bins
//   the cast of NaN to an integer makes the bin undefined.
// - igamma/igammac near the peak x ~ a for a > 20: PyTorch's asymptotic
//   series is off by up to ~1e-9 relative there; ember's series and
//   continued fraction stay within ~1e-12 of the exact value (mpmath).

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "tensor/tensor.h"

namespace ember {

// self with src's elements reduced into the positions index names along
// dim (self[index[i][j]][j] = reduce(self[...], src[i][j]) for dim 0),
// reduce one of "sum", "prod", "mean", "amax", "amin". include_self=false
// leaves self's value out of the positions scattered to (the others keep
// it). "mean" on integers floors; amax/amin propagate NaN. index is int64,
// src has self's dtype, and index is no larger than src (and than self
// apart from dim).
Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                      const std::string& reduce, bool include_self = true);

// self with the slices of source along dim reduced into self's slices
// index[i] (int32 or int64, a vector with source.size(dim) entries; source's
// slices broadcast to self's), reduce one of "prod", "mean", "amax", "amin".
Tensor index_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                    const std::string& reduce, bool include_self = true);

// P(a, x) and Q(a, x) = 1 - P with a = self, x = other (floating dtypes
// after type promotion; integers are refused, as PyTorch 1.13's kernels).
// Differentiable with respect to other only, as PyTorch.
Tensor igamma(const Tensor& self, const Tensor& other);
Tensor igammac(const Tensor& self, const Tensor& other);
inline Tensor special_gammainc(const Tensor& self, const Tensor& other) {
  return igamma(self, other);
}
inline Tensor special_gammaincc(const Tensor& self, const Tensor& other) {
  return igammac(self, other);
}

// (hist, bin_edges) of self's elements (float or double, CPU only): `bins`
// equal bins over range (default [min, max] of self; a degenerate range
// widens by 1/2 each way), or the given monotonic edges. The last bin
// includes its right edge; elements outside are ignored. weight (self's
// shape and dtype) weights each element; density normalizes to a density.
std::tuple<Tensor, Tensor> histogram(const Tensor& self, int64_t bins = 100,
                                     const std::optional<std::vector<double>>& range = std::nullopt,
                                     const std::optional<Tensor>& weight = std::nullopt,
                                     bool density = false);
std::tuple<Tensor, Tensor> histogram(const Tensor& self, const Tensor& bins,
                                     const std::optional<Tensor>& weight = std::nullopt,
                                     bool density = false);

// (hist, bin_edges) of the N-dimensional points in self's rows (self
// [..., N], float or double, CPU only; all but the last dimension are
// flattened into M points): bins equal bins per dimension (one count for
// all, or one per dimension) over range ([lo0, hi0, lo1, hi1, ...],
// default each dimension's [min, max]; a degenerate range widens by 1/2),
// or the given monotonic edges per dimension (range is then ignored, as
// 1.13). hist has shape [bins0, bins1, ...]; a point outside any
// dimension's outer edges is ignored, the last bin of each dimension
// includes its right edge. weight (self's shape without its last
// dimension) weights each point; density divides by the total and by each
// bin's volume. Not differentiable (1.13's results never require grad
// either way; see histogram above). Deviation: where bins has not one
// count per dimension 1.13 reads past it or ignores the rest; ember raises
// its "expected N sequences of bin edges" error.
std::tuple<Tensor, std::vector<Tensor>> histogramdd(
    const Tensor& self, IntArrayRef bins,
    const std::optional<std::vector<double>>& range = std::nullopt,
    const std::optional<Tensor>& weight = std::nullopt, bool density = false);
std::tuple<Tensor, std::vector<Tensor>> histogramdd(
    const Tensor& self, int64_t bins,
    const std::optional<std::vector<double>>& range = std::nullopt,
    const std::optional<Tensor>& weight = std::nullopt, bool density = false);
std::tuple<Tensor, std::vector<Tensor>> histogramdd(
    const Tensor& self, TensorList bins,
    const std::optional<std::vector<double>>& range = std::nullopt,
    const std::optional<Tensor>& weight = std::nullopt, bool density = false);

}  // namespace ember

#endif  // EMBER_TENSOR_REDUCE_OPS_H_
