#ifndef EMBER_TENSOR_SORT_OPS_H_
#define EMBER_TENSOR_SORT_OPS_H_

// Reductions and scans that order their input (sort_ops.cc): median,
// nanmedian, mode, msort, cummax/cummin, logcumsumexp, quantile,
// nanquantile, aminmax, unique and its libtorch spellings, histc, bincount.
// The semantics are PyTorch 1.13's, ties and NaN included (sort_ops_test.cc
// holds its values, tools/golden/sort_ops.py made them). Most are written
// with sort, gather and scatter, so they run on every device.
// cummax/cummin, logcumsumexp, searchsorted, mode and histc have CPU loops
// and CUDA kernels (sort_ops_kernels.h, tensor/cuda/sort_ops.cu and
// mode_histc.cu) that give the CPU's results (mode's index and histc's
// counts exactly); a device without a kernel reaches the CPU loops through
// Note [CPU fallback].

#include <optional>
#include <string>
#include <tuple>

#include "tensor/tensor.h"

namespace ember {

// The lower median of all elements (NaN if any is NaN; NaN when empty).
Tensor median(const Tensor& self);
// (values, indices) along dim: the lower median of each row, and its index
// in a stable sort (so among equal values the one PyTorch picks); a row with
// NaN gives its first NaN. (PyTorch 1.13 misreads an expanded input here,
// its values then garbage; ember's are the medians.)
std::tuple<Tensor, Tensor> median(const Tensor& self, int64_t dim, bool keepdim = false);
// As median, ignoring NaN (NaN only where a row is all NaN). (PyTorch 1.13
// misreads an expanded input here too.)
Tensor nanmedian(const Tensor& self);
std::tuple<Tensor, Tensor> nanmedian(const Tensor& self, int64_t dim, bool keepdim = false);

// (values, indices): the most frequent value of each row along dim, the
// smallest of several; its index is the one PyTorch 1.13's CPU kernel
// reports (Note [PyTorch's mode ties], sort_ops.cc).
std::tuple<Tensor, Tensor> mode(const Tensor& self, int64_t dim = -1, bool keepdim = false);

// sort(self, 0)'s values.
Tensor msort(const Tensor& self);

// (values, indices): the running maximum (minimum) along dim and the index
// where it was found (the latest of equal values); NaN propagates and keeps
// the index of the latest NaN.
std::tuple<Tensor, Tensor> cummax(const Tensor& self, int64_t dim);
std::tuple<Tensor, Tensor> cummin(const Tensor& self, int64_t dim);

// log(cumsum(exp(self))) along dim, accumulated pairwise so that values far
// below the row's maximum are not lost (float, double, bfloat16).
Tensor logcumsumexp(const Tensor& self, int64_t dim);

// The q-th quantiles (q in [0, 1]: a number, or a tensor of at most one dim
// whose values lead the result's dims) of all elements or along dim;
// interpolation: "linear", "lower", "higher", "midpoint" or "nearest".
// Float and double only. quantile gives NaN for rows with NaN, nanquantile
// ignores NaN.
Tensor quantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim = std::nullopt,
                bool keepdim = false, const std::string& interpolation = "linear");
Tensor quantile(const Tensor& self, double q, std::optional<int64_t> dim = std::nullopt,
                bool keepdim = false, const std::string& interpolation = "linear");
Tensor nanquantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim = std::nullopt,
                   bool keepdim = false, const std::string& interpolation = "linear");
Tensor nanquantile(const Tensor& self, double q, std::optional<int64_t> dim = std::nullopt,
                   bool keepdim = false, const std::string& interpolation = "linear");

// (amin, amax) over all elements or along dim. Unlike PyTorch 1.13 (whose
// aminmax has no derivative), the results are differentiable, as amin's and
// amax's.
std::tuple<Tensor, Tensor> aminmax(const Tensor& self, std::optional<int64_t> dim = std::nullopt,
                                   bool keepdim = false);

// (values, inverse, counts) of the distinct elements, sorted; inverse has
// self's shape, and inverse / counts are empty ([0]) unless asked for.
// sorted=false gives them sorted too (PyTorch's CPU order for it is a hash
// set's, its CUDA order sorted). NaN: each NaN is distinct, after every
// number (PyTorch 1.13's CPU kernel misplaces NaN and miscounts it). With
// dim: unique_dim. torch.unique's arguments; libtorch spells it _unique2.
// The values are differentiable here, as the sort and index_select they
// come from (PyTorch 1.13 records a node whose backward raises); so is
// bincount's result with weights.
std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& self, bool sorted = true,
                                          bool return_inverse = false, bool return_counts = false,
                                          std::optional<int64_t> dim = std::nullopt);
std::tuple<Tensor, Tensor, Tensor> _unique2(const Tensor& self, bool sorted = true,
                                            bool return_inverse = false,
                                            bool return_counts = false);
std::tuple<Tensor, Tensor> _unique(const Tensor& self, bool sorted = true,
                                   bool return_inverse = false);
// The distinct slices along dim, in lexicographic order; inverse and counts
// are per slice. A NaN sorts after every number and differs from itself (so
// slices with NaN are all distinct), where 1.13's comparison sort leaves
// them wherever its undefined order puts them.
std::tuple<Tensor, Tensor, Tensor> unique_dim(const Tensor& self, int64_t dim, bool sorted = true,
                                              bool return_inverse = false,
                                              bool return_counts = false);
// Runs of equal consecutive elements (slices with dim) collapsed to one.
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& self,
                                                      bool return_inverse = false,
                                                      bool return_counts = false,
                                                      std::optional<int64_t> dim = std::nullopt);
std::tuple<Tensor, Tensor, Tensor> unique_dim_consecutive(const Tensor& self, int64_t dim,
                                                          bool return_inverse = false,
                                                          bool return_counts = false);

// A histogram of bins equal bins over [min, max] (both 0, or equal: the
// data's range); elements outside are ignored, max falls in the last bin,
// and NaN in the first (as PyTorch 1.13's CPU kernel). Float, double and
// bfloat16, each bin found as 1.13 finds it (Note [histc's bins],
// sort_ops.cc): by interpolation in the dtype, so an element near an edge
// may sit in the bin beside the one the edges give.
Tensor histc(const Tensor& self, int64_t bins = 100, const Scalar& min = 0, const Scalar& max = 0);

// Occurrences (or summed weights) of each value of a 1-D tensor of
// non-negative integers, at least minlength bins. Float weights give float,
// other weights double, none int64.
Tensor bincount(const Tensor& self, const std::optional<Tensor>& weights = std::nullopt,
                int64_t minlength = 0);

// torch.searchsorted: for each value of self, the index in the last dim of
// sorted_sequence (1-D, or with self's leading dims) where it would go to
// keep the order: the first element >= it, or > it when right (side
// "right"); NaN goes last. The two are compared in their common dtype;
// sorter (int64, sorted_sequence's shape) gives the order of an unsorted
// sequence. int64 indices, or int32 with out_int32. (An out-of-range sorter
// index is an error; PyTorch 1.13 reads out of bounds.)
Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& self, bool out_int32 = false,
                    bool right = false, const std::optional<std::string>& side = std::nullopt,
                    const std::optional<Tensor>& sorter = std::nullopt);
Tensor searchsorted(const Tensor& sorted_sequence, const Scalar& self, bool out_int32 = false,
                    bool right = false, const std::optional<std::string>& side = std::nullopt,
                    const std::optional<Tensor>& sorter = std::nullopt);
// searchsorted(boundaries, self) for 1-D boundaries.
Tensor bucketize(const Tensor& self, const Tensor& boundaries, bool out_int32 = false,
                 bool right = false);
Tensor bucketize(const Scalar& self, const Tensor& boundaries, bool out_int32 = false,
                 bool right = false);

}  // namespace ember

#endif  // EMBER_TENSOR_SORT_OPS_H_
