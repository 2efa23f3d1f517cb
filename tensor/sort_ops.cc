// Reductions and scans that order their input (sort_ops.h), with PyTorch
// 1.13's semantics. The ones PyTorch gives a node of its own (median,
// nanmedian, mode, cummax, cummin, logcumsumexp) record one op with that
// node's derivative (autograd/derivatives/reduce.cc); their forward may be
// a composition, run below autograd. quantile and msort are compositions
// whose gradients are their parts'; aminmax and the unique family record
// 1.13's nodes without a derivative.

#include "tensor/sort_ops.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensor/autograd_hook.h"
#include "tensor/composite_ops.h"
#include "tensor/creation.h"
#include "tensor/dim.h"
#include "tensor/dispatch.h"
#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/fallback.h"
#include "tensor/iterator.h"
#include "tensor/math.h"
#include "tensor/parallel.h"
#include "tensor/record_function.h"
#include "tensor/reduce.h"
#include "tensor/selection.h"
#include "tensor/shape.h"
#include "tensor/sort_ops_kernels.h"

namespace ember {

EMBER_DEFINE_KERNEL_TABLE(cum_extreme_kernel, CumExtremeFn);
EMBER_DEFINE_KERNEL_TABLE(logcumsumexp_kernel, LogcumsumexpFn);
EMBER_DEFINE_KERNEL_TABLE(searchsorted_kernel, SearchsortedFn);
EMBER_DEFINE_KERNEL_TABLE(mode_kernel, ModeFn);
EMBER_DEFINE_KERNEL_TABLE(histc_kernel, HistcFn);
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Keys are compared in float for the 16-bit floating types.
template <typename T>
using key_t =
    std::conditional_t<std::is_same<T, Half>::value || std::is_same<T, BFloat16>::value, float, T>;

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point<T>::value) {
    return v != v;
  } else {
    return false;
  }
}

// self as contiguous rows along dim: [..., len] with dim moved last (a
// 0-dim tensor is one row of one).
Tensor rows_last(const Tensor& self, int64_t dim) {
  if (self.dim() == 0) return self.reshape({1});
  return self.movedim(dim, -1).contiguous();
}
// A result laid out as rows_last's back in self's dims (contiguous).
Tensor from_rows_last(const Tensor& r, const Tensor& self, int64_t dim) {
  if (self.dim() == 0) return r.reshape({});
  return r.movedim(-1, dim).contiguous();
}
// Calls row(r) for each of n_rows rows of length len, in parallel.
template <typename F>
void for_each_row(int64_t n_rows, int64_t len, const F& row) {
  parallel_for(0, n_rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(len, 1)),
               [&](int64_t b, int64_t e) {
                 for (int64_t r = b; r < e; ++r) row(r);
               });
}

void check_nonzero_dim(const Tensor& self, int64_t dim, const char* op) {
  EMBER_CHECK(self.dim() == 0 || self.size(dim) > 0, op, "(): Expected reduction dim ", dim,
              " to have non-zero size.");
}

// The position, in each row's stable ascending sort (NaN last, in order),
// of the element PyTorch's median picks: ATen partitions with nth_element
// under "value, then index", so its median is the (n - 1) / 2-th of that
// total order; a row with NaN gives its first NaN. nanmedian takes the
// (n - nans - 1) / 2-th (0 for a row of NaN). A [..., 1] tensor along dim.
Tensor median_rank(const Tensor& self, int64_t dim, bool ignore_nan) {
  const int64_t n = self.size(dim);
  DimVector one(self.sizes().begin(), self.sizes().end());
  one[dim] = 1;
  const Tensor nans = self.is_floating_point() ? self.isnan().sum({dim}, /*keepdim=*/true)
                                               : zeros(one, self.options().dtype(kLong));
  if (ignore_nan) return (Scalar(n - 1) - nans).clamp_min(0).div(2, "floor");
  return where(nans > 0, Scalar(n) - nans, Scalar((n - 1) / 2));
}

// Note [Median by selection]: on the CPU the element median_rank names is
// found without sorting, as ATen does: the row's non-NaN keys are copied
// and partitioned with nth_element, which gives the k-th smallest value v.
// Keys that compare equal (v and -v for a zero, or equal integers) are
// ordered by position, so the element is the (k - #{key < v})-th of the
// row's keys equal to v, in index order; its value is read from the row,
// which keeps the sign of a zero. A row with NaN gives its first NaN
// (median), or its first NaN when all are NaN (nanmedian).
template <typename T>
int64_t median_index(const T* x, int64_t n, bool ignore_nan, key_t<T>* buf) {
  using K = key_t<T>;
  int64_t m = n;
  if constexpr (std::is_floating_point<K>::value) {
    int64_t first_nan = -1;
    m = 0;
    for (int64_t i = 0; i < n; ++i) {
      const K v = static_cast<K>(x[i]);
      if (v != v) {
        if (first_nan < 0) first_nan = i;
      } else {
        buf[m++] = v;
      }
    }
    if (m < n && (!ignore_nan || m == 0)) return first_nan;
  } else {
    for (int64_t i = 0; i < n; ++i) buf[i] = static_cast<K>(x[i]);
  }
  const int64_t k = (m - 1) / 2;
  std::nth_element(buf, buf + k, buf + m);
  const K v = buf[k];
  int64_t want = k;  // nth_element left every key below v in buf[0, k)
  for (int64_t i = 0; i < k; ++i) want -= buf[i] < v ? 1 : 0;
  for (int64_t i = 0; i < n; ++i) {
    if (static_cast<K>(x[i]) == v) {
      if (want == 0) return i;
      --want;
    }
  }
  return n - 1;  // unreachable: v is one of the row's keys
}

// median_rank's element of each row of x along dim (x of dim >= 1, the
// dim's size > 0): values (x's dtype) and int64 indices, keepdim's shape.
std::tuple<Tensor, Tensor> median_rows_cpu(const Tensor& x, int64_t dim, bool ignore_nan) {
  const Tensor rows = rows_last(x, dim);
  const int64_t len = x.size(dim);
  const int64_t n_rows = len == 0 ? 0 : x.numel() / len;
  DimVector one(x.sizes().begin(), x.sizes().end());
  one[dim] = 1;
  Tensor values = empty(one, x.options());
  Tensor indices = empty(one, x.options().dtype(kLong));
  EMBER_DISPATCH_NUMERIC_TYPES(x.dtype(), "median", [&] {
    using K = key_t<scalar_t>;
    const scalar_t* src = rows.data_ptr<scalar_t>();
    scalar_t* val = values.data_ptr<scalar_t>();
    int64_t* ind = indices.data_ptr<int64_t>();
    parallel_for(0, n_rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(len, 1)),
                 [&](int64_t b, int64_t e) {
                   std::vector<K> buf(len);
                   for (int64_t r = b; r < e; ++r) {
                     const scalar_t* row = src + r * len;
                     const int64_t i = median_index(row, len, ignore_nan, buf.data());
                     val[r] = row[i];
                     ind[r] = i;
                   }
                 });
  });
  return {values, indices};
}

Tensor median_all(const Tensor& self, bool ignore_nan, const char* op) {
  profiler::RecordFunction prof_range(op, profiler::RangeKind::kOp, self);
  detail::OpScope scope(self);
  Tensor result;
  if (self.numel() == 0) {  // before the dtype check, as ATen's
    result = full({}, kNaN, self.options().dtype(kFloat)).to(self.dtype());
  } else {
    if (self.dtype() == kBool) detail::throw_not_implemented("median_cpu", kBool);
    const Tensor flat = self.reshape({-1});
    if (self.device().is_cpu()) {
      result = std::get<0>(median_rows_cpu(flat, 0, ignore_nan)).reshape({});
    } else {
      result = std::get<0>(sort(flat)).gather(0, median_rank(flat, 0, ignore_nan)).reshape({});
    }
  }
  if (scope.active()) scope.record(op, {self}, {result});
  return result;
}

std::tuple<Tensor, Tensor> median_dim(const Tensor& self, int64_t dim, bool keepdim,
                                      bool ignore_nan, const char* op) {
  profiler::RecordFunction prof_range(op, profiler::RangeKind::kOp, self);
  detail::OpScope scope(self);
  dim = detail::wrap_dim(dim, self.dim());
  if (self.dtype() == kBool) detail::throw_not_implemented("median_out", kBool);
  check_nonzero_dim(self, dim, ignore_nan ? "nanmedian" : "median");
  const Tensor x = self.dim() == 0 ? self.reshape({1}) : self;
  Tensor values, indices;
  if (x.device().is_cpu()) {
    std::tie(values, indices) = median_rows_cpu(x, dim, ignore_nan);
  } else {
    Tensor sorted, order;
    std::tie(sorted, order) = sort(x, std::optional<bool>(true), dim);  // median_rank's order
    const Tensor k = median_rank(x, dim, ignore_nan);
    values = sorted.gather(dim, k);
    indices = order.gather(dim, k);
  }
  if (self.dim() == 0) {
    values = values.reshape({});
    indices = indices.reshape({});
  } else if (!keepdim) {
    values = values.squeeze(dim);
    indices = indices.squeeze(dim);
  }
  if (scope.active()) {
    scope.record(op, {self}, {values, indices}, {Scalar(dim), Scalar(keepdim)});
  }
  return {values, indices};
}

// Note [PyTorch's mode ties]: ATen's CPU mode sorts (value, index) pairs
// with std::sort under a comparator of values alone, then walks the runs of
// equal values and keeps the first longest run's last pair. Which index
// that is among equal values is std::sort's doing (not the last occurrence
// once a row is longer than 16), so this kernel does the same, step for
// step, with the same standard library (as Note [PyTorch's topk ties]).
// NaN compares unequal to everything, so each NaN is a run of one. The
// CUDA kernel (tensor/cuda/mode_histc.cu) runs libstdc++'s algorithm as
// written out in tensor/cuda/introsort.h, so it returns the same index.
template <typename scalar_t>
void mode_rows(const Tensor& rows, const Tensor& values, const Tensor& indices) {
  using K = key_t<scalar_t>;
  const int64_t len = rows.size(-1), n_rows = rows.numel() / len;
  const scalar_t* x = rows.data_ptr<scalar_t>();
  scalar_t* vp = values.data_ptr<scalar_t>();
  int64_t* ip = indices.data_ptr<int64_t>();
  const int64_t grain = std::max<int64_t>(1, kGrainSize / len);
  parallel_for(0, n_rows, grain, [&](int64_t begin, int64_t end) {
    std::vector<std::pair<K, int64_t>> el(len);  // one buffer per chunk of rows
    for (int64_t r = begin; r < end; ++r) {
      for (int64_t i = 0; i < len; ++i) el[i] = {static_cast<K>(x[r * len + i]), i};
      std::sort(el.begin(), el.end(),
                [](const std::pair<K, int64_t>& a, const std::pair<K, int64_t>& b) {
                  return a.first < b.first;
                });
      K mode = K(0);
      int64_t mode_i = 0, run = 0, best = 0;
      for (int64_t i = 0; i < len; ++i) {
        ++run;
        if (i == len - 1 || el[i].first != el[i + 1].first) {
          if (run > best) {
            mode = el[i].first;
            mode_i = el[i].second;
            best = run;
          }
          run = 0;
        }
      }
      vp[r] = static_cast<scalar_t>(mode);
      ip[r] = mode_i;
    }
  });
}

// ATen's cummax_cummin_helper: a NaN, or a value at least (at most) the
// running one, takes its place and index.
template <typename scalar_t, bool kMax>
void cum_rows(const Tensor& rows, const Tensor& values, const Tensor& indices) {
  using K = key_t<scalar_t>;
  const int64_t len = rows.size(-1), n_rows = rows.numel() / len;
  const scalar_t* x = rows.data_ptr<scalar_t>();
  scalar_t* vp = values.data_ptr<scalar_t>();
  int64_t* ip = indices.data_ptr<int64_t>();
  for_each_row(n_rows, len, [&](int64_t r) {
    const scalar_t* xr = x + r * len;
    scalar_t* vr = vp + r * len;
    int64_t* ir = ip + r * len;
    scalar_t best = xr[0];
    K b = static_cast<K>(best);
    int64_t best_i = 0;
    int64_t i = 0;
    // Until the first NaN: the running key stays in a register (the loop
    // re-read and re-tested it each element: 1.4 times libtorch 1.13).
    for (; i < len; ++i) {
      const K cur = static_cast<K>(xr[i]);
      if (is_nan(cur)) break;
      if (kMax ? cur >= b : cur <= b) {
        b = cur;
        best = xr[i];
        best_i = i;
      }
      vr[i] = best;
      ir[i] = best_i;
    }
    // From a NaN on, only a later NaN takes its place.
    for (; i < len; ++i) {
      if (is_nan(static_cast<K>(xr[i]))) {
        best = xr[i];
        best_i = i;
      }
      vr[i] = best;
      ir[i] = best_i;
    }
  });
}

template <bool kMax>
std::tuple<Tensor, Tensor> cum_max_min(const Tensor& self, int64_t dim, const char* op) {
  profiler::RecordFunction prof_range(op, profiler::RangeKind::kOp, self);
  detail::OpScope scope(self);
  dim = detail::wrap_dim(dim, self.dim());
  Tensor values, indices;
  const bool device_kernel = !self.is_cpu() && cum_extreme_kernel.has(self.device().type());
  if (!device_kernel && detail::cpu_fallback(op, {self})) {
    std::tie(values, indices) =
        detail::to_device(cum_max_min<kMax>(detail::cpu(self), dim, op), self);
  } else {
    const Tensor rows = rows_last(self, dim);
    Tensor v = empty(rows.sizes(), rows.options());
    Tensor ix = empty(rows.sizes(), rows.options().dtype(kLong));
    if (rows.numel() > 0 && device_kernel) {
      cum_extreme_kernel(rows.device())(kMax, rows, v, ix);
    } else if (rows.numel() > 0) {
      EMBER_DISPATCH_ALL_TYPES(self.dtype(), kMax ? "cummax_cpu" : "cummin_cpu",
                               [&] { cum_rows<scalar_t, kMax>(rows, v, ix); });
    }
    values = from_rows_last(v, self, dim);
    indices = from_rows_last(ix, self, dim);
  }
  if (scope.active()) scope.record(op, {self}, {values, indices}, {Scalar(dim)});
  return {values, indices};
}

// ATen's _log_add_exp_helper: equal infinities give x, NaN propagates.
template <typename A>
A log_add_exp(A x, A y) {
  const A lo = std::isnan(y) ? y : std::min(x, y);
  const A hi = std::isnan(y) ? y : std::max(x, y);
  if (lo != hi || std::isfinite(lo)) return std::log1p(std::exp(lo - hi)) + hi;
  return x;
}

// collapse_runs of a 1-d CPU `sorted` (n > 0) in one pass: a run starts
// where an element differs (!=, so each NaN starts its own) from the one
// before; the run's value is its first element. The pass is branch-free:
// starts[g + 1] is scratch until a new run makes it the run's start.
std::tuple<Tensor, Tensor, Tensor> collapse_runs_cpu(const Tensor& sorted, const Tensor& perm,
                                                     IntArrayRef inverse_shape, bool return_inverse,
                                                     bool return_counts) {
  const TensorOptions longs = sorted.options().dtype(kLong);
  const int64_t n = sorted.size(0);
  const int64_t step = sorted.stride(0);
  std::unique_ptr<int64_t[]> starts(new int64_t[n + 1]);
  Tensor inverse = return_inverse ? empty({n}, longs) : empty({0}, longs);
  const Tensor order = perm.defined() ? perm.contiguous() : perm;
  int64_t groups = 0;
  Tensor values;
  EMBER_DISPATCH_ALL_TYPES(sorted.dtype(), "unique_consecutive", [&] {
    using K = key_t<scalar_t>;
    const scalar_t* x = sorted.data_ptr<scalar_t>();
    // kInverse: 0 none, 1 inverse[i], 2 inverse[perm[i]].
    auto scan = [&](auto inverse_mode) {
      constexpr int kInverse = decltype(inverse_mode)::value;
      int64_t* inv = kInverse != 0 ? inverse.data_ptr<int64_t>() : nullptr;
      const int64_t* pp = kInverse == 2 ? order.data_ptr<int64_t>() : nullptr;
      int64_t g = 0;
      starts[0] = 0;
      K prev = static_cast<K>(x[0]);
      if constexpr (kInverse == 1) inv[0] = 0;
      if constexpr (kInverse == 2) inv[pp[0]] = 0;
      for (int64_t i = 1; i < n; ++i) {
        const K cur = static_cast<K>(x[i * step]);
        starts[g + 1] = i;
        g += cur != prev ? 1 : 0;
        prev = cur;
        if constexpr (kInverse == 1) inv[i] = g;
        if constexpr (kInverse == 2) inv[pp[i]] = g;
      }
      groups = g + 1;
    };
    if (!return_inverse) {
      scan(std::integral_constant<int, 0>());
    } else if (!order.defined()) {
      scan(std::integral_constant<int, 1>());
    } else {
      scan(std::integral_constant<int, 2>());
    }
    values = empty({groups}, sorted.options());
    scalar_t* v = values.data_ptr<scalar_t>();
    for (int64_t g = 0; g < groups; ++g) v[g] = x[starts[g] * step];
  });
  Tensor counts = empty({0}, longs);
  if (return_counts) {
    counts = empty({groups}, longs);
    int64_t* c = counts.data_ptr<int64_t>();
    starts[groups] = n;
    for (int64_t g = 0; g < groups; ++g) c[g] = starts[g + 1] - starts[g];
  }
  if (return_inverse) inverse = inverse.reshape(inverse_shape);
  return {values, inverse, counts};
}

// The runs of equal rows of `sorted` ([n] or [n, m]: a row is a slice)
// collapsed: (values, inverse, counts). `perm` maps a position of sorted to
// the element (slice) it came from (undefined: the identity); inverse takes
// inverse_shape.
std::tuple<Tensor, Tensor, Tensor> collapse_runs(const Tensor& sorted, const Tensor& perm,
                                                 IntArrayRef inverse_shape, bool return_inverse,
                                                 bool return_counts) {
  const TensorOptions longs = sorted.options().dtype(kLong);
  const int64_t n = sorted.size(0);
  if (n == 0) {
    // A copy: `sorted` may be a view of the input (unique_consecutive).
    return {sorted.clone(), return_inverse ? empty(inverse_shape, longs) : empty({0}, longs),
            empty({0}, longs)};
  }
  if (sorted.dim() == 1 && sorted.is_cpu()) {
    return collapse_runs_cpu(sorted, perm, inverse_shape, return_inverse, return_counts);
  }
  Tensor differs = sorted.narrow(0, 1, n - 1) != sorted.narrow(0, 0, n - 1);
  if (differs.dim() > 1) differs = differs.flatten(1).any(1);
  const Tensor is_new = cat({ones({1}, sorted.options().dtype(kBool)), differs}, 0);
  const Tensor values = sorted.index_select(0, is_new.nonzero().flatten());
  const Tensor group = is_new.cumsum(0) - 1;
  Tensor inverse = empty({0}, longs), counts = empty({0}, longs);
  if (return_inverse) {
    inverse =
        (perm.defined() ? empty({n}, longs).scatter(0, perm, group) : group).reshape(inverse_shape);
  }
  if (return_counts) {
    counts = zeros({values.size(0)}, longs).scatter_add(0, group, ones({n}, longs));
  }
  return {values, inverse, counts};
}

// unique_dim and unique_dim_consecutive: slices along dim as rows [n, m],
// sorted lexicographically (a stable sort per column, last column first)
// unless consecutive. Inverse and counts are always computed, as ATen's.
std::tuple<Tensor, Tensor, Tensor> unique_slices(const Tensor& self, int64_t dim,
                                                 bool consecutive) {
  dim = detail::wrap_dim(dim, self.dim());
  if (self.numel() == 0) {
    const int64_t zero_dims = std::count(self.sizes().begin(), self.sizes().end(), 0);
    EMBER_CHECK(self.dim() == 0 || self.size(dim) != 0 || zero_dims == 1,
                "Number of zero sized dimensions is more than one, so unique cannot be applied ");
    EMBER_CHECK(self.dim() == 0 || self.size(dim) == 0,
                "There are 0 sized dimensions, and they aren't selected, so unique cannot be "
                "applied");
    const TensorOptions longs = self.options().dtype(kLong);
    return {empty(self.sizes(), self.options()), empty({0}, longs), empty({0}, longs)};
  }
  // ATen swaps dim with the first (not moves it), which orders each slice's
  // elements for the lexicographic comparison, and gives the result the
  // swapped strides.
  const Tensor moved = self.dim() == 0 ? self.reshape({1}) : self.transpose(0, dim);
  const int64_t n = moved.size(0);
  const Tensor rows = moved.reshape({n, -1});
  Tensor perm;
  Tensor sorted = rows;
  if (!consecutive && n > 0) {
    perm = arange(n, rows.options().dtype(kLong));
    for (int64_t c = rows.size(1) - 1; c >= 0; --c) {
      const Tensor key = rows.select(1, c).index_select(0, perm);
      perm = perm.index_select(0, argsort(key, /*stable=*/true, 0));
    }
    sorted = rows.index_select(0, perm);
  }
  Tensor values, inverse, counts;
  std::tie(values, inverse, counts) = collapse_runs(sorted, perm, {n}, true, true);
  DimVector out(moved.sizes().begin(), moved.sizes().end());
  out[0] = values.size(0);
  values = values.reshape(out);
  if (self.dim() > 0) values = values.transpose(0, dim);
  return {values, inverse, counts};
}

// ATen's quantile_impl, op for op (its gradient is the composition's).
Tensor quantile_impl(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                     const std::string& interpolation, bool ignore_nan) {
  EMBER_CHECK(self.numel() > 0, "quantile() input tensor must be non-empty");
  EMBER_CHECK(q.dim() <= 1, "quantile() q must be a scalar or 1D tensor");
  EMBER_CHECK(self.dtype() == kFloat || self.dtype() == kDouble,
              "quantile() input tensor must be either float or double dtype");
  EMBER_CHECK(self.dtype() == q.dtype(),
              "quantile() q tensor must be same dtype as the input tensor");
  EMBER_CHECK(self.device() == q.device(),
              "quantile() q tensor must be on the same device as the input tensor");
  EMBER_CHECK(interpolation == "linear" || interpolation == "lower" || interpolation == "higher" ||
                  interpolation == "midpoint" || interpolation == "nearest",
              "quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, "
              "but got ",
              interpolation);
  const int64_t wrapped = detail::wrap_dim(dim.value_or(0), self.dim());
  // The result's shape: q's length, then the reduced shape.
  std::vector<int64_t> out_shape;
  if (dim && self.dim() > 0) {
    out_shape.assign(self.sizes().begin(), self.sizes().end());
    if (keepdim) {
      out_shape[wrapped] = 1;
    } else {
      out_shape.erase(out_shape.begin() + wrapped);
    }
  } else if (keepdim) {
    out_shape.assign(self.dim(), 1);
  }
  if (q.dim() > 0) out_shape.insert(out_shape.begin(), q.numel());
  // Checking q's range reads it, so (as ATen) only on the CPU.
  if (self.is_cpu()) {
    EMBER_CHECK(q.ge(0).logical_and(q.le(1)).all().item<bool>(),
                "quantile() q values must be in the range [0, 1]");
  }
  Tensor sorted;
  if (!dim) {
    sorted = std::get<0>(sort(self.flatten()));
  } else if (wrapped == self.dim() - 1) {
    sorted = std::get<0>(sort(self));
  } else {
    sorted = std::get<0>(sort(self.unsqueeze(-1).transpose(wrapped, -1)));
  }
  if (q.dim() == 0) out_shape.insert(out_shape.begin(), q.numel());
  // sorted as [*, n]: the result's shape after q's, and the row.
  std::vector<int64_t> in_shape(out_shape.begin() + 1, out_shape.end());
  in_shape.push_back(sorted.size(-1));
  sorted = sorted.reshape(in_shape);
  EMBER_CHECK(sorted.size(-1) <= (int64_t{1} << 24), "quantile() input tensor is too large");
  // q in [0, 1] as ranks in [0, n - 1]: of the non-NaN values for
  // nanquantile (0 when all are NaN), the last (a NaN) for a row with NaN.
  Tensor ranks;
  if (ignore_nan) {
    ranks = q * (sorted.isnan().logical_not().sum({-1}, /*keepdim=*/true) - 1);
    ranks = ranks.masked_fill(ranks < 0, 0);
  } else {
    const int64_t last = sorted.size(-1) - 1;
    const std::vector<Tensor> b = broadcast_tensors({q * last, sorted.isnan().any(-1, true)});
    ranks = b[0].masked_fill(b[1], last);
  }
  if (interpolation == "lower") {
    ranks = ranks.floor();
  } else if (interpolation == "higher") {
    ranks = ranks.ceil();
  } else if (interpolation == "nearest") {
    ranks = ranks.round();
  }
  const Tensor below = ranks.to(kLong);
  Tensor result = sorted.gather(-1, below);
  if (interpolation == "linear" || interpolation == "midpoint") {
    const Tensor weights = interpolation == "midpoint" ? full_like(ranks, 0.5) : ranks - below;
    const Tensor above = sorted.gather(-1, ranks.ceil().to(kLong));
    result = lerp(result, above, weights);
  }
  // In place on the fresh result, as 1.13 (SqueezeBackward3 last).
  if (q.dim() == 0) return result.squeeze_(-1);
  return result.unsqueeze_(0).transpose_(0, -1).squeeze_(-1);
}

Tensor quantile_number(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim,
                       const std::string& interpolation, bool ignore_nan) {
  EMBER_CHECK(q >= 0 && q <= 1, "quantile() q must be in the range [0, 1] but got ", q);
  return quantile_impl(self, full({}, q, self.options()), dim, keepdim, interpolation, ignore_nan);
}

}  // namespace

Tensor median(const Tensor& self) { return median_all(self, false, "median"); }
std::tuple<Tensor, Tensor> median(const Tensor& self, int64_t dim, bool keepdim) {
  return median_dim(self, dim, keepdim, false, "median_dim");
}
Tensor nanmedian(const Tensor& self) { return median_all(self, true, "nanmedian"); }
std::tuple<Tensor, Tensor> nanmedian(const Tensor& self, int64_t dim, bool keepdim) {
  return median_dim(self, dim, keepdim, true, "nanmedian_dim");
}

std::tuple<Tensor, Tensor> mode(const Tensor& self, int64_t dim, bool keepdim) {
  profiler::RecordFunction prof_range("mode", profiler::RangeKind::kOp, self);
  detail::OpScope scope(self);
  dim = detail::wrap_dim(dim, self.dim());
  check_nonzero_dim(self, dim, "mode");
  Tensor values, indices;
  const bool device_kernel = !self.is_cpu() && mode_kernel.has(self.device().type());
  if (!device_kernel && detail::cpu_fallback("mode", {self})) {
    std::tie(values, indices) =
        detail::to_device(mode(detail::cpu(self), dim, /*keepdim=*/true), self);
  } else {
    const Tensor rows = rows_last(self, dim);
    DimVector out(self.sizes().begin(), self.sizes().end());
    if (self.dim() > 0) out[dim] = 1;
    values = empty(out, self.options());
    indices = empty(out, self.options().dtype(kLong));
    if (values.numel() > 0 && device_kernel) {
      mode_kernel(rows.device())(rows, values, indices);
    } else if (values.numel() > 0) {
      EMBER_DISPATCH_ALL_TYPES(self.dtype(), "mode_cpu",
                               [&] { mode_rows<scalar_t>(rows, values, indices); });
    }
  }
  if (!keepdim && self.dim() > 0) {
    values = values.squeeze(dim);
    indices = indices.squeeze(dim);
  }
  if (scope.active()) {
    scope.record("mode", {self}, {values, indices}, {Scalar(dim), Scalar(keepdim)});
  }
  return {values, indices};
}

Tensor msort(const Tensor& self) { return std::get<0>(sort(self, 0)); }

std::tuple<Tensor, Tensor> cummax(const Tensor& self, int64_t dim) {
  return cum_max_min<true>(self, dim, "cummax");
}
std::tuple<Tensor, Tensor> cummin(const Tensor& self, int64_t dim) {
  return cum_max_min<false>(self, dim, "cummin");
}

Tensor logcumsumexp(const Tensor& self, int64_t dim) {
  profiler::RecordFunction prof_range("logcumsumexp", profiler::RangeKind::kOp, self);
  detail::OpScope scope(self);
  dim = detail::wrap_dim(dim, self.dim());
  Tensor result;
  const bool device_kernel = !self.is_cpu() && logcumsumexp_kernel.has(self.device().type());
  if (!device_kernel && detail::cpu_fallback("logcumsumexp", {self})) {
    result = detail::to_device(logcumsumexp(detail::cpu(self), dim), self);
  } else {
    // ATen's CPU kernel takes float, double and bfloat16 (not half).
    const ScalarType t = self.dtype();
    if (t != kFloat && t != kDouble && t != kBFloat16) {
      detail::throw_not_implemented("logcumsumexp_out_cpu", t);
    }
    const Tensor rows = rows_last(self, dim);
    Tensor out = empty(rows.sizes(), rows.options());
    if (rows.numel() > 0 && device_kernel) {
      logcumsumexp_kernel(rows.device())(rows, out);
    } else if (rows.numel() > 0) {
      EMBER_DISPATCH_FLOATING_TYPES(t, "logcumsumexp_out_cpu", [&] {
        using A = key_t<scalar_t>;
        const int64_t len = rows.size(-1);
        const scalar_t* x = rows.data_ptr<scalar_t>();
        scalar_t* y = out.data_ptr<scalar_t>();
        for_each_row(rows.numel() / len, len, [&](int64_t r) {
          // The running value is kept in scalar_t, as ATen's.
          scalar_t acc = static_cast<scalar_t>(-std::numeric_limits<A>::infinity());
          for (int64_t i = 0; i < len; ++i) {
            acc = static_cast<scalar_t>(
                log_add_exp(static_cast<A>(acc), static_cast<A>(x[r * len + i])));
            y[r * len + i] = acc;
          }
        });
      });
    }
    result = from_rows_last(out, self, dim);
  }
  if (scope.active()) scope.record("logcumsumexp", {self}, {result}, {Scalar(dim)});
  return result;
}

Tensor quantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                const std::string& interpolation) {
  return quantile_impl(self, q, dim, keepdim, interpolation, false);
}
Tensor quantile(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim,
                const std::string& interpolation) {
  return quantile_number(self, q, dim, keepdim, interpolation, false);
}
Tensor nanquantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                   const std::string& interpolation) {
  return quantile_impl(self, q, dim, keepdim, interpolation, true);
}
Tensor nanquantile(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim,
                   const std::string& interpolation) {
  return quantile_number(self, q, dim, keepdim, interpolation, true);
}

std::tuple<Tensor, Tensor> aminmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  if (!dim) {
    EMBER_CHECK(self.numel() > 0,
                "aminmax(): cannot compute aminmax over an empty dimension as the operation has "
                "no identity.");
  }
  const int64_t d = dim ? detail::wrap_dim(*dim, self.dim()) : 0;
  EMBER_CHECK(!dim || self.dim() == 0 || self.size(d) > 0, "aminmax: Expected reduction dim ", d,
              " to have non-zero size.");
  // 1.13 has no derivative for aminmax: a node whose backward raises
  // "derivative for aten::aminmax is not implemented" (Note [Op recording]).
  detail::OpScope scope(self);
  Tensor mn, mx;
  if (!dim) {
    mn = amin(self, {}, keepdim);
    mx = amax(self, {}, keepdim);
  } else if (self.dim() == 0) {
    mn = self.clone();
    mx = self.clone();
  } else {
    mn = amin(self, {d}, keepdim);
    mx = amax(self, {d}, keepdim);
  }
  if (scope.active()) scope.record("aminmax", {self}, {mn, mx});
  return {mn, mx};
}

namespace {

// The unique family: `f` runs below autograd and the result is recorded as
// `op`, PyTorch's node without a derivative (autograd/derivatives/sort_ops.cc).
template <typename F>
std::tuple<Tensor, Tensor, Tensor> record_unique(const char* op, const Tensor& self, F&& f) {
  profiler::RecordFunction prof_range(op, profiler::RangeKind::kOp, self);
  detail::OpScope scope(self);
  std::tuple<Tensor, Tensor, Tensor> r = f();
  if (scope.active()) scope.record(op, {self}, {std::get<0>(r), std::get<1>(r), std::get<2>(r)});
  return r;
}

std::tuple<Tensor, Tensor, Tensor> sorted_unique(const Tensor& self, bool return_inverse,
                                                 bool return_counts) {
  const Tensor flat = self.reshape({-1});
  Tensor sorted, perm;
  std::tie(sorted, perm) = sort(flat);
  return collapse_runs(sorted, perm, self.sizes(), return_inverse, return_counts);
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> _unique2(const Tensor& self, bool /*sorted*/,
                                            bool return_inverse, bool return_counts) {
  return record_unique("_unique2", self,
                       [&] { return sorted_unique(self, return_inverse, return_counts); });
}
std::tuple<Tensor, Tensor> _unique(const Tensor& self, bool /*sorted*/, bool return_inverse) {
  Tensor values, inverse, counts;
  std::tie(values, inverse, counts) =
      record_unique("_unique", self, [&] { return sorted_unique(self, return_inverse, false); });
  return {values, inverse};
}
std::tuple<Tensor, Tensor, Tensor> unique_dim(const Tensor& self, int64_t dim, bool /*sorted*/,
                                              bool /*return_inverse*/, bool /*return_counts*/) {
  return record_unique("unique_dim", self,
                       [&] { return unique_slices(self, dim, /*consecutive=*/false); });
}
std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& self, bool sorted, bool return_inverse,
                                          bool return_counts, std::optional<int64_t> dim) {
  if (dim) return unique_dim(self, *dim, sorted, return_inverse, return_counts);
  return _unique2(self, sorted, return_inverse, return_counts);
}
std::tuple<Tensor, Tensor, Tensor> unique_dim_consecutive(const Tensor& self, int64_t dim,
                                                          bool /*return_inverse*/,
                                                          bool /*return_counts*/) {
  return record_unique("unique_dim_consecutive", self,
                       [&] { return unique_slices(self, dim, /*consecutive=*/true); });
}
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& self, bool return_inverse,
                                                      bool return_counts,
                                                      std::optional<int64_t> dim) {
  // With a dim 1.13 still records UniqueConsecutiveBackward0 (the nested
  // unique_dim_consecutive runs below autograd).
  return record_unique("unique_consecutive", self, [&] {
    if (dim) return unique_slices(self, *dim, /*consecutive=*/true);
    return collapse_runs(self.reshape({-1}), Tensor(), self.sizes(), return_inverse, return_counts);
  });
}

Tensor histc(const Tensor& self, int64_t bins, const Scalar& min, const Scalar& max) {
  profiler::RecordFunction prof_range("histc", profiler::RangeKind::kOp, self);
  const bool device_kernel = !self.is_cpu() && histc_kernel.has(self.device().type());
  if (!device_kernel && detail::cpu_fallback("histc", {self})) {
    return detail::to_device(histc(detail::cpu(self), bins, min, max), self);
  }
  if (self.dtype() != kFloat && self.dtype() != kDouble && self.dtype() != kBFloat16) {
    detail::throw_not_implemented("histogram_cpu", self.dtype());
  }
  EMBER_CHECK(bins > 0, "torch.histogram(): bins must be > 0, but got ", bins, " for dimension 0");
  // ATen's histc_select_outer_bin_edges: equal bounds take the data's range,
  // an empty range widens by one either side.
  double lo = min.toDouble(), hi = max.toDouble();
  if (lo == hi && self.numel() > 0) {
    lo = amin(self).item<double>();
    hi = amax(self).item<double>();
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  EMBER_CHECK(std::isfinite(lo) && std::isfinite(hi), "torch.histc: range of [", lo, ", ", hi,
              "] is not finite");
  EMBER_CHECK(lo < hi, "torch.histc: max must be larger than min");
  Tensor hist = zeros({bins}, self.options());
  const Tensor x = self.contiguous();
  if (device_kernel) {
    // The CPU's edges (below), computed here and moved to the device.
    const Tensor edges = linspace(lo, hi, bins + 1, TensorOptions(self.dtype()));
    if (x.numel() > 0) histc_kernel(x.device())(x, edges.to(x.device()), hist);
    return hist;
  }
  EMBER_DISPATCH_FLOATING_TYPES(self.dtype(), "histogram_cpu", [&] {
    // Note [histc's bins]: 1.13's histc (unlike histogram) takes a bin by
    // linear interpolation alone, in scalar_t (each step of bfloat16
    // rounds to it): ((x - left) / (right - left)) * bins, truncated, the
    // division first; left and right are the ends of linspace(lo, hi,
    // bins + 1) as PyTorch computes it (so where its last edge rounds below
    // the maximum, the maximum is left out, as there). The last bin holds
    // its right edge. So a value just below an edge can land in the next
    // bin, as in 1.13.
    using A = key_t<scalar_t>;
    auto rnd = [](A v) { return static_cast<A>(static_cast<scalar_t>(v)); };
    const Tensor edges = linspace(lo, hi, bins + 1, TensorOptions(self.dtype()));
    const A left = static_cast<A>(edges.data_ptr<scalar_t>()[0]);
    const A right = static_cast<A>(edges.data_ptr<scalar_t>()[bins]);
    const A width = rnd(right - left), nbins = rnd(static_cast<A>(bins));
    const scalar_t* xp = x.data_ptr<scalar_t>();
    scalar_t* hp = hist.data_ptr<scalar_t>();
    // Counted in scalar_t per block of ATen's grain, blocks then added.
    std::vector<A> local(bins);
    for (int64_t b = 0; b < x.numel(); b += kGrainSize) {
      std::fill(local.begin(), local.end(), A(0));
      for (int64_t i = b; i < std::min(x.numel(), b + kGrainSize); ++i) {
        const A e = static_cast<A>(xp[i]);
        if (e < left || e > right) continue;
        int64_t pos = 0;
        // PyTorch 1.13's range check lets NaN through, and it lands in the
        // first bin (histc of [nan, 1.5] over [1, 2] in 3 bins: [2, 1, 0]).
        if (e == e) {
          pos = static_cast<int64_t>(rnd(rnd(rnd(e - left) / width) * nbins));
          if (pos == bins) pos -= 1;
        }
        local[pos] = rnd(local[pos] + 1);
      }
      for (int64_t j = 0; j < bins; ++j) {
        hp[j] = static_cast<scalar_t>(static_cast<A>(hp[j]) + local[j]);
      }
    }
  });
  return hist;
}

Tensor bincount(const Tensor& self, const std::optional<Tensor>& weights_opt, int64_t minlength) {
  profiler::RecordFunction prof_range("bincount", profiler::RangeKind::kOp, self);
  if (!is_integral(self.dtype(), /*include_bool=*/false)) {
    detail::throw_not_implemented("bincount_cpu", self.dtype());
  }
  EMBER_CHECK(minlength >= 0, "minlength should be >= 0");
  const TensorOptions longs = self.options().dtype(kLong);
  // As ATen's: an empty input gives int64 zeros, weights or not.
  if (self.dim() == 1 && self.numel() == 0) return zeros({minlength}, longs);
  EMBER_CHECK(self.dim() == 1 && self.min().item<int64_t>() >= 0,
              "bincount only supports 1-d non-negative integral inputs.");
  const Tensor weights = weights_opt.value_or(Tensor());
  EMBER_CHECK(!weights.defined() || (weights.dim() == 1 && weights.size(0) == self.size(0)),
              "weights should be 1-d and have the same length as input");
  const int64_t nbins = std::max(self.max().item<int64_t>() + 1, minlength);
  const Tensor index = self.to(kLong);
  if (!weights.defined()) return zeros({nbins}, longs).scatter_add(0, index, ones_like(index));
  const ScalarType t = weights.dtype() == kFloat ? kFloat : kDouble;
  return zeros({nbins}, weights.options().dtype(t)).scatter_add(0, index, weights.to(t));
}

// --- methods ------------------------------------------------------------------

Tensor Tensor::median() const { return ::ember::median(*this); }
std::tuple<Tensor, Tensor> Tensor::median(int64_t dim, bool keepdim) const {
  return ::ember::median(*this, dim, keepdim);
}
Tensor Tensor::nanmedian() const { return ::ember::nanmedian(*this); }
std::tuple<Tensor, Tensor> Tensor::nanmedian(int64_t dim, bool keepdim) const {
  return ::ember::nanmedian(*this, dim, keepdim);
}
std::tuple<Tensor, Tensor> Tensor::mode(int64_t dim, bool keepdim) const {
  return ::ember::mode(*this, dim, keepdim);
}
Tensor Tensor::msort() const { return ::ember::msort(*this); }
std::tuple<Tensor, Tensor> Tensor::cummax(int64_t dim) const { return ::ember::cummax(*this, dim); }
std::tuple<Tensor, Tensor> Tensor::cummin(int64_t dim) const { return ::ember::cummin(*this, dim); }
Tensor Tensor::logcumsumexp(int64_t dim) const { return ::ember::logcumsumexp(*this, dim); }
Tensor Tensor::quantile(const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                        const std::string& interpolation) const {
  return ::ember::quantile(*this, q, dim, keepdim, interpolation);
}
Tensor Tensor::quantile(double q, std::optional<int64_t> dim, bool keepdim,
                        const std::string& interpolation) const {
  return ::ember::quantile(*this, q, dim, keepdim, interpolation);
}
Tensor Tensor::nanquantile(const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                           const std::string& interpolation) const {
  return ::ember::nanquantile(*this, q, dim, keepdim, interpolation);
}
Tensor Tensor::nanquantile(double q, std::optional<int64_t> dim, bool keepdim,
                           const std::string& interpolation) const {
  return ::ember::nanquantile(*this, q, dim, keepdim, interpolation);
}
std::tuple<Tensor, Tensor> Tensor::aminmax(std::optional<int64_t> dim, bool keepdim) const {
  return ::ember::aminmax(*this, dim, keepdim);
}
Tensor Tensor::histc(int64_t bins, const Scalar& min, const Scalar& max) const {
  return ::ember::histc(*this, bins, min, max);
}
Tensor Tensor::bincount(const std::optional<Tensor>& weights, int64_t minlength) const {
  return ::ember::bincount(*this, weights, minlength);
}

// --- searchsorted / bucketize ----------------------------------------------------

namespace {

// PyTorch's checks (its searchsorted_pre_check), in its order.
void check_searchsorted(const Tensor& boundaries, const Tensor& input, bool out_int32, bool right,
                        const std::optional<std::string>& side,
                        const std::optional<Tensor>& sorter) {
  if (side.has_value()) {
    EMBER_CHECK(*side == "left" || *side == "right",
                "torch.searchsorted(): side can only be 'left' or 'right' but got ", *side);
    EMBER_CHECK(!right || *side == "right",
                "torch.searchsorted(): side and right can't be set to opposites, got side of ",
                *side, " while right was True");
  }
  if (sorter.has_value() && sorter->defined()) {
    EMBER_CHECK(sorter->sizes() == boundaries.sizes(),
                "torch.searchsorted(): boundary and sorter must have the same size, but got "
                "boundary tensor ",
                detail::sizes_str(boundaries.sizes()), "and got sorter tensor ",
                detail::sizes_str(sorter->sizes()));
    EMBER_CHECK(sorter->dtype() == kLong,
                "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype ",
                scalar_type_name(sorter->dtype()));
  }
  EMBER_CHECK(input.dim() > 0 || boundaries.dim() == 1,
              "torch.searchsorted(): input value can be a scalar only when boundaries tensor "
              "dimension is 1, but we got boundaries tensor dim(",
              boundaries.dim(), ") and input value's dim(", input.dim(), ") numel(", input.numel(),
              ")");
  EMBER_CHECK(boundaries.dim() != 0,
              "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
              "dimension");
  bool leading_match = boundaries.dim() == input.dim();
  for (int64_t d = 0; leading_match && d + 1 < boundaries.dim(); ++d) {
    leading_match = boundaries.size(d) == input.size(d);
  }
  EMBER_CHECK(boundaries.dim() == 1 || leading_match,
              "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
              "dimensions of boundaries tensor and input value tensor must match, but we got "
              "boundaries tensor ",
              detail::sizes_str(boundaries.sizes()), " and input value tensor ",
              detail::sizes_str(input.sizes()));
  if (out_int32) {
    EMBER_CHECK(boundaries.size(-1) < INT32_MAX,
                "torch.searchsorted(): the size of boundaries' last dimension should be less "
                "than ",
                INT32_MAX, ", but we got ", boundaries.size(-1));
  }
}

// For each element of the contiguous input, the index of the first
// boundary of its row that is >= it (> it when right), through sorter when
// given; the comparisons are ATen's (!(b >= v)), so NaN goes last.
template <typename T, typename Out>
void searchsorted_cpu(const Tensor& bd, const Tensor& in, const Tensor& sorter, bool right,
                      Tensor& out) {
  const T* b = bd.data_ptr<T>();
  const T* v = in.data_ptr<T>();
  const int64_t* s = sorter.defined() ? sorter.data_ptr<int64_t>() : nullptr;
  Out* o = out.data_ptr<Out>();
  const int64_t n = bd.size(-1);
  const int64_t row_len = in.dim() == 0 ? 1 : in.size(-1);
  const bool per_row = bd.dim() > 1;
  for (int64_t i = 0; i < in.numel(); ++i) {
    const int64_t base = per_row ? (i / row_len) * n : 0;
    const T val = v[i];
    int64_t lo = 0, hi = n;
    while (lo < hi) {
      const int64_t mid = lo + ((hi - lo) >> 1);
      int64_t at = mid;
      if (s != nullptr) {
        at = s[base + mid];
        EMBER_CHECK_INDEX(at >= 0 && at < n, "torch.searchsorted(): sorter index ", at,
                          " is out of range for a boundary of size ", n);
      }
      const T m = b[base + at];
      const bool go_right = right ? !(m > val) : !(m >= val);
      if (go_right) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    o[i] = static_cast<Out>(lo);
  }
}

// common: the dtype both are compared in (result_type, a scalar input
// counting as a wrapped number).
Tensor searchsorted_impl(const Tensor& boundaries, const Tensor& input, ScalarType common,
                         bool out_int32, bool right, const std::optional<std::string>& side,
                         const std::optional<Tensor>& sorter) {
  check_searchsorted(boundaries, input, out_int32, right, side, sorter);
  const Tensor sorter_t = sorter.has_value() ? *sorter : Tensor();
  const bool device_kernel = !input.is_cpu() && searchsorted_kernel.has(input.device().type()) &&
                             boundaries.device() == input.device() &&
                             (!sorter_t.defined() || sorter_t.device() == input.device());
  if (!device_kernel && detail::cpu_fallback("searchsorted", {boundaries, input, sorter_t})) {
    return detail::to_device(
        searchsorted_impl(
            detail::cpu(boundaries), detail::cpu(input), common, out_int32, right, side,
            sorter_t.defined() ? std::optional<Tensor>(detail::cpu(sorter_t)) : std::nullopt),
        boundaries);
  }
  const bool is_right = right || (side.has_value() && *side == "right");
  const Tensor bd = boundaries.to(common).contiguous();
  const Tensor in = input.to(common).contiguous();
  const Tensor so = sorter_t.defined() ? sorter_t.contiguous() : Tensor();
  Tensor out = empty(input.sizes(), input.options().dtype(out_int32 ? kInt : kLong));
  if (in.numel() == 0) return out;
  if (device_kernel) {
    if (common == kBool) detail::throw_not_implemented("searchsorted_cuda", common);
    searchsorted_kernel(input.device())(bd, in, so, is_right, out);
    return out;
  }
  EMBER_DISPATCH_NUMERIC_TYPES(common, "searchsorted_out_cpu", [&] {
    if (out_int32) {
      searchsorted_cpu<scalar_t, int32_t>(bd, in, so, is_right, out);
    } else {
      searchsorted_cpu<scalar_t, int64_t>(bd, in, so, is_right, out);
    }
  });
  return out;
}

}  // namespace

Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& self, bool out_int32, bool right,
                    const std::optional<std::string>& side, const std::optional<Tensor>& sorter) {
  profiler::RecordFunction prof_range("searchsorted", profiler::RangeKind::kOp, self);
  return searchsorted_impl(sorted_sequence, self, result_type({sorted_sequence, self}), out_int32,
                           right, side, sorter);
}

Tensor searchsorted(const Tensor& sorted_sequence, const Scalar& self, bool out_int32, bool right,
                    const std::optional<std::string>& side, const std::optional<Tensor>& sorter) {
  const Tensor wrapped = wrapped_scalar_tensor(self);
  const ScalarType common = result_type({sorted_sequence, wrapped});
  return searchsorted_impl(sorted_sequence, wrapped.to(sorted_sequence.device()), common, out_int32,
                           right, side, sorter);
}

Tensor bucketize(const Tensor& self, const Tensor& boundaries, bool out_int32, bool right) {
  EMBER_CHECK(boundaries.dim() == 1, "boundaries tensor must be 1 dimension, but got dim(",
              boundaries.dim(), ")");
  return searchsorted(boundaries, self, out_int32, right);
}

Tensor bucketize(const Scalar& self, const Tensor& boundaries, bool out_int32, bool right) {
  EMBER_CHECK(boundaries.dim() == 1, "boundaries tensor must be 1 dimension, but got dim(",
              boundaries.dim(), ")");
  return searchsorted(boundaries, self, out_int32, right);
}

}  // namespace ember
