// sort, argsort, topk, kthvalue: row by row along one dimension, rows in
// parallel. NaN orders as the largest value, as in PyTorch.

#include <algorithm>
#include <numeric>
#include <type_traits>
#include <vector>

#include "tensor/autograd_hook.h"
#include "tensor/dim.h"
#include "tensor/dispatch.h"
#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/fallback.h"
#include "tensor/record_function.h"
#include "tensor/selection.h"
#include "tensor/sort_kernels.h"
#include "tensor/strided_walk.h"

namespace ember {

EMBER_DEFINE_KERNEL_TABLE(sort_rows_kernel, SortRowsFn);

namespace {

// Keys are compared in acc_t: float for the 16-bit floating types, uint8
// for bool (std::vector<bool> has no data()).
template <typename T>
using acc_t = std::conditional_t<
    std::is_same<T, Half>::value || std::is_same<T, BFloat16>::value, float,
    std::conditional_t<std::is_same<T, bool>::value, uint8_t, T>>;

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point<T>::value) {
    return v != v;
  } else {
    return false;
  }
}

// ATen's "greater, or NaN" (x above y): NaN above every number. Its
// mirror gt_or_nan(y, x) is ATen's ascending order. Neither breaks ties.
template <typename K>
bool gt_or_nan(K x, K y) {
  return (is_nan(x) && !is_nan(y)) || x > y;
}

// Strict orders with NaN above everything; equal keys fall back to the
// position so that every order is total and results are deterministic.
template <typename K>
struct Ascending {
  const K* keys;
  bool operator()(int64_t a, int64_t b) const {
    const K x = keys[a], y = keys[b];
    const bool nx = is_nan(x), ny = is_nan(y);
    if (nx || ny) return (!nx && ny) || (nx && ny && a < b);
    if (x < y) return true;
    if (y < x) return false;
    return a < b;
  }
};

template <typename K>
struct Descending {
  const K* keys;
  bool operator()(int64_t a, int64_t b) const {
    const K x = keys[a], y = keys[b];
    const bool nx = is_nan(x), ny = is_nan(y);
    if (nx || ny) return (nx && !ny) || (nx && ny && a < b);
    if (y < x) return true;
    if (x < y) return false;
    return a < b;
  }
};

// Geometry of self with a 0-dim tensor read as [1].
DimVector sizes_of(const Tensor& t) {
  DimVector s(t.sizes().begin(), t.sizes().end());
  if (s.empty()) s.push_back(1);
  return s;
}
DimVector strides_of(const Tensor& t) {
  DimVector s(t.strides().begin(), t.strides().end());
  if (s.empty()) s.push_back(1);
  return s;
}

// For each row of self along dim: loads the keys, orders the first `k`
// positions by `largest`/ascending with `select(first, kth, last, cmp)`,
// and writes the first n_out values and indices to the outputs (which have self's shape
// but k along dim).
template <typename Select>
void rows_select(const Tensor& self, int64_t dim, int64_t k, int64_t n_out, bool largest,
                 const Tensor& values, const Tensor& indices, const char* name, bool allow_bool,
                 const Select& select) {
  const DimVector ss = strides_of(self), sizes = sizes_of(self);
  const DimVector vs = strides_of(values), is = strides_of(indices);
  const int64_t len = sizes[dim];
  auto body = [&](auto tag) {
    using scalar_t = decltype(tag);
    using K = acc_t<scalar_t>;
    const scalar_t* sp = self.data_ptr<scalar_t>();
    scalar_t* vp = values.data_ptr<scalar_t>();
    int64_t* ip = indices.data_ptr<int64_t>();
    const int64_t sd = ss[dim], vd = vs[dim], id = is[dim];
    const int64_t n_rows = compute_numel(sizes) / std::max<int64_t>(len, 1);
    if (n_rows == 0 || len == 0) return;
    DimVector outer = sizes;
    outer[dim] = 1;
    parallel_for(0, n_rows, std::max<int64_t>(1, kGrainSize / len), [&](int64_t b, int64_t e) {
      // One buffer per chunk of rows, not per row.
      std::vector<K> keys(len);
      std::vector<int64_t> order(len);
      detail::strided_walk<3>(
          outer, {ss.data(), vs.data(), is.data()}, {0, 0, 0}, b, e,
          [&](const std::array<int64_t, 3>& o) {
            for (int64_t j = 0; j < len; ++j) keys[j] = static_cast<K>(sp[o[0] + j * sd]);
            std::iota(order.begin(), order.end(), 0);
            if (largest) {
              select(order.begin(), order.begin() + k, order.end(), Descending<K>{keys.data()});
            } else {
              select(order.begin(), order.begin() + k, order.end(), Ascending<K>{keys.data()});
            }
            for (int64_t j = 0; j < n_out; ++j) {
              vp[o[1] + j * vd] = sp[o[0] + order[j] * sd];
              ip[o[2] + j * id] = order[j];
            }
          });
    });
  };
  if (allow_bool) {
    EMBER_DISPATCH_ALL_TYPES(self.dtype(), name, [&] { body(scalar_t{}); });
  } else {
    EMBER_DISPATCH_NUMERIC_TYPES(self.dtype(), name, [&] { body(scalar_t{}); });
  }
}

// sort(stable=true): the whole row under Ascending/Descending, whose ties
// fall back to the position, so std::sort gives the stable order.
struct StableSort {
  template <typename It, typename Cmp>
  void operator()(It first, It /*kth*/, It last, const Cmp& cmp) const {
    std::sort(first, last, cmp);
  }
};

// sort(stable=false), 1.13's default. Note [PyTorch's unstable sort]: 1.13's
// CPU sort runs std::sort on (value, index) pairs under a comparator of
// values alone (NaN above everything) unless stable is asked for, so among
// equal values of a row longer than 16 (where libstdc++'s introsort starts
// partitioning) the indices come in the algorithm's order, not their own:
// `tensor([1., 0.] * 20).sort()` gives indices 1, 39, 37, ... in 1.13.
// std::sort on the positions under the same comparisons moves them the same
// way, so ember gives 1.13's indices (built with the same standard library,
// GCC's libstdc++, as Debian's PyTorch). Rows of 16 or fewer come out stable.
struct UnstableSort {
  template <typename It, typename K>
  void operator()(It first, It /*kth*/, It last, const Descending<K>& c) const {
    std::sort(first, last,
              [keys = c.keys](int64_t a, int64_t b) { return gt_or_nan(keys[a], keys[b]); });
  }
  template <typename It, typename K>
  void operator()(It first, It /*kth*/, It last, const Ascending<K>& c) const {
    std::sort(first, last,
              [keys = c.keys](int64_t a, int64_t b) { return gt_or_nan(keys[b], keys[a]); });
  }
};

// Note [PyTorch's topk ties]: topk selects as ATen's topk_impl_loop does,
// so that equal values give PyTorch's indices (pruning masks, beam search):
// libstdc++'s partial_sort when k * 64 <= n, else nth_element and, if
// sorted, a sort of the first k - 1, all under a comparator of values
// alone (NaN above everything), never positions. Which of several equal
// values comes first is then the algorithm's, as in PyTorch built with
// the same standard library (Debian's, GCC's libstdc++).
struct TopKSelect {
  bool sorted;
  template <typename It, typename K>
  void operator()(It first, It kth, It last, const Descending<K>& c) const {
    run(first, kth, last,
        [keys = c.keys](int64_t a, int64_t b) { return gt_or_nan(keys[a], keys[b]); });
  }
  template <typename It, typename K>
  void operator()(It first, It kth, It last, const Ascending<K>& c) const {
    run(first, kth, last,
        [keys = c.keys](int64_t a, int64_t b) { return gt_or_nan(keys[b], keys[a]); });
  }
  template <typename It, typename Less>
  void run(It first, It kth, It last, const Less& less) const {
    const auto k = kth - first, n = last - first;
    if (k == 0) return;
    if (k * 64 <= n) {
      std::partial_sort(first, kth, last, less);
    } else {
      std::nth_element(first, kth - 1, last, less);
      if (sorted) std::sort(first, kth - 1, less);
    }
  }
};

// kthvalue: the k-th smallest moved to the front (rows_select writes the
// first). Note [PyTorch's kthvalue ties]: ATen's quick_select_template
// (Sedgewick's quickselect, median-of-three pivot) on (value, index) pairs
// under "greater, or NaN", step for step, so that among equal values the
// index returned is PyTorch's.
struct QuickSelect {
  template <typename It, typename K>
  void operator()(It first, It kth, It last, const Ascending<K>& c) const {
    int64_t* arr = &*first;
    const K* keys = c.keys;
    auto gt = [keys, arr](int64_t i, int64_t j) { return gt_or_nan(keys[arr[i]], keys[arr[j]]); };
    auto swap = [arr](int64_t i, int64_t j) { std::swap(arr[i], arr[j]); };
    const int64_t k = (kth - first) - 1;
    int64_t L = 0, R = (last - first) - 1;
    while (R > L) {
      if (R == L + 1) {
        if (gt(L, R)) swap(L, R);
        break;
      }
      swap((L + R) >> 1, L + 1);
      if (gt(L + 1, R)) swap(L + 1, R);
      if (gt(L, R)) swap(L, R);
      if (gt(L + 1, L)) swap(L + 1, L);
      int64_t i = L + 1, j = R;
      const K pivot = keys[arr[L]];
      while (true) {
        do {
          ++i;
        } while (gt_or_nan(pivot, keys[arr[i]]));
        do {
          --j;
        } while (gt_or_nan(keys[arr[j]], pivot));
        if (j < i) break;
        swap(i, j);
      }
      swap(L, j);
      if (j <= k) L = i;
      if (j >= k) R = j - 1;
    }
    *first = arr[k];
  }
  // (rows_select instantiates both orders; kthvalue asks for ascending.)
  template <typename It, typename K>
  void operator()(It, It, It, const Descending<K>&) const {
    EMBER_CHECK(false, "kthvalue selects in ascending order only");
  }
};

// PyTorch's sort makes its results like self (preserve_format: a
// transposed or channels-last input gives results of the same strides);
// rows_select writes row-major ones.
Tensor like_self(const Tensor& out, const Tensor& self) {
  if (self.is_contiguous()) return out;
  Tensor r = empty_like(self, out.options());
  r.copy_(out);
  return r;
}

// Note [Device sort]: on a device with a sort kernel (tensor/sort_kernels.h)
// sort, topk and kthvalue sort whole rows there: self's dim moved last and
// made contiguous, each row in the CPU's total order. Returns the first
// `take` columns from `start` of the sorted values and indices, back in
// self's dims (contiguous); a 0-dim self reads as one row of one.
// topk and kthvalue take the first columns of that order (selected without
// a sort for small k: Note [Small-k topk]); their values are the CPU's,
// and among equal values the index is the one the stable order puts at that
// place (the CPU's partial_sort / quickselect may name another equal
// element: Note [PyTorch's topk ties], [PyTorch's kthvalue ties]).
std::tuple<Tensor, Tensor> device_sorted(const Tensor& self, int64_t dim, bool descending,
                                         int64_t start, int64_t take) {
  const Tensor rows = self.dim() == 0 ? self.reshape({1}) : self.movedim(dim, -1).contiguous();
  // The kernel gives the first `cols` columns (Note [Small-k topk] in
  // tensor/cuda/topk.cu selects few without sorting).
  const int64_t len = rows.size(-1);
  const int64_t cols = self.dim() == 0 ? 1 : std::max<int64_t>(std::min(start + take, len), 1);
  DimVector out_sizes(rows.sizes().begin(), rows.sizes().end());
  out_sizes.back() = cols;
  Tensor v = empty(out_sizes, rows.options());
  Tensor ix = empty(out_sizes, rows.options().dtype(kLong));
  if (rows.numel() > 0) sort_rows_kernel(rows.device())(rows, descending, cols, v, ix);
  // A 0-dim self has one element to give whatever k (topk's k = 0 too).
  if (self.dim() == 0) return {v.reshape({}), ix.reshape({})};
  if (start != 0 || take != cols) {
    v = v.narrow(-1, start, take);
    ix = ix.narrow(-1, start, take);
  }
  return {v.movedim(-1, dim).contiguous(), ix.movedim(-1, dim).contiguous()};
}

bool has_device_sort(const Tensor& self) {
  return !self.is_cpu() && sort_rows_kernel.has(self.device().type());
}

}  // namespace

std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending) {
  return sort(self, std::optional<bool>(false), dim, descending);
}

std::tuple<Tensor, Tensor> sort(const Tensor& self, std::optional<bool> stable_opt, int64_t dim,
                                bool descending) {
  // A stable sort orders by (value, position); an unstable one as 1.13's
  // (Note [PyTorch's unstable sort]). The device sort is stable either way.
  const bool stable = stable_opt.value_or(false);
  profiler::RecordFunction prof_range("sort", profiler::RangeKind::kOp, self);
  detail::OpScope scope(self);
  dim = detail::wrap_dim(dim, self.dim());
  Tensor values, indices;
  if (has_device_sort(self)) {
    const int64_t len = self.dim() == 0 ? 1 : self.sizes()[dim];
    std::tie(values, indices) = device_sorted(self, dim, descending, 0, len);
  } else if (detail::cpu_fallback("sort", {self})) {
    std::tie(values, indices) =
        detail::to_device(sort(detail::cpu(self), stable_opt, dim, descending), self);
  } else {
    values = empty(self.sizes(), self.options());
    indices = empty(self.sizes(), TensorOptions(kLong));
    const int64_t len = self.dim() == 0 ? 1 : self.sizes()[dim];
    if (stable) {
      rows_select(self, dim, len, len, descending, values, indices, "sort", true, StableSort{});
    } else {
      rows_select(self, dim, len, len, descending, values, indices, "sort", true, UnstableSort{});
    }
  }
  values = like_self(values, self);
  indices = like_self(indices, self);
  // Only the values are differentiable (Note [Op recording]); args: dim, keepdim.
  if (scope.active()) scope.record("sort", {self}, {values, indices}, {Scalar(dim), Scalar(true)});
  return {values, indices};
}

Tensor argsort(const Tensor& self, int64_t dim, bool descending) {
  return std::get<1>(sort(self, dim, descending));
}
Tensor argsort(const Tensor& self, bool stable, int64_t dim, bool descending) {
  return std::get<1>(sort(self, std::optional<bool>(stable), dim, descending));
}

std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim, bool largest,
                                bool sorted) {
  profiler::RecordFunction prof_range("topk", profiler::RangeKind::kOp, self);
  detail::OpScope scope(self);
  dim = detail::wrap_dim(dim, self.dim());
  const int64_t len = self.dim() == 0 ? 1 : self.sizes()[dim];
  EMBER_CHECK(k >= 0 && k <= len, "selected index k out of range");
  DimVector out_sizes(self.sizes().begin(), self.sizes().end());
  if (self.dim() > 0) out_sizes[dim] = k;
  Tensor values, indices;
  if (has_device_sort(self)) {
    if (self.dtype() == kBool) detail::throw_not_implemented("topk_out_cuda", kBool);
    std::tie(values, indices) = device_sorted(self, dim, largest, 0, k);
  } else if (detail::cpu_fallback("topk", {self})) {
    std::tie(values, indices) =
        detail::to_device(topk(detail::cpu(self), k, dim, largest, sorted), self);
  } else {
    values = empty(out_sizes, self.options());
    indices = empty(out_sizes, TensorOptions(kLong));
    rows_select(self, dim, k, k, largest, values, indices, "topk_cpu", false, TopKSelect{sorted});
  }
  if (scope.active()) scope.record("topk", {self}, {values, indices}, {Scalar(dim), Scalar(true)});
  return {values, indices};
}

std::tuple<Tensor, Tensor> kthvalue(const Tensor& self, int64_t k, int64_t dim, bool keepdim) {
  profiler::RecordFunction prof_range("kthvalue", profiler::RangeKind::kOp, self);
  detail::OpScope scope(self);
  dim = detail::wrap_dim(dim, self.dim());
  const int64_t len = self.dim() == 0 ? 1 : self.sizes()[dim];
  EMBER_CHECK(k >= 1 && k <= len, "kthvalue(): selected number k out of range for dimension ",
              dim);
  DimVector out_sizes(self.sizes().begin(), self.sizes().end());
  if (self.dim() > 0) out_sizes[dim] = 1;
  Tensor values, indices;
  if (has_device_sort(self)) {
    if (self.dtype() == kBool) detail::throw_not_implemented("kthvalue_cuda", kBool);
    std::tie(values, indices) = device_sorted(self, dim, false, k - 1, 1);
  } else if (detail::cpu_fallback("kthvalue", {self})) {
    std::tie(values, indices) =
        detail::to_device(kthvalue(detail::cpu(self), k, dim, /*keepdim=*/true), self);
  } else {
    values = empty(out_sizes, self.options());
    indices = empty(out_sizes, TensorOptions(kLong));
    rows_select(self, dim, k, 1, false, values, indices, "kthvalue_cpu", false, QuickSelect{});
  }
  if (!keepdim && self.dim() > 0) {
    values = values.squeeze(dim);
    indices = indices.squeeze(dim);
  }
  if (scope.active()) {
    scope.record("kthvalue", {self}, {values, indices}, {Scalar(dim), Scalar(keepdim)});
  }
  return {values, indices};
}

std::tuple<Tensor, Tensor> Tensor::sort(int64_t dim, bool descending) const {
  return ::ember::sort(*this, dim, descending);
}
std::tuple<Tensor, Tensor> Tensor::sort(std::optional<bool> stable, int64_t dim,
                                        bool descending) const {
  return ::ember::sort(*this, stable, dim, descending);
}
Tensor Tensor::argsort(int64_t dim, bool descending) const {
  return ::ember::argsort(*this, dim, descending);
}
Tensor Tensor::argsort(bool stable, int64_t dim, bool descending) const {
  return ::ember::argsort(*this, stable, dim, descending);
}
std::tuple<Tensor, Tensor> Tensor::topk(int64_t k, int64_t dim, bool largest, bool sorted) const {
  return ::ember::topk(*this, k, dim, largest, sorted);
}
std::tuple<Tensor, Tensor> Tensor::kthvalue(int64_t k, int64_t dim, bool keepdim) const {
  return ::ember::kthvalue(*this, k, dim, keepdim);
}

}  // namespace ember
