// Ops that run along one dim and keep its length: cumsum, cumprod, softmax,
// log_softmax. The input is viewed as [outer, len, inner] (contiguous); a
// task takes one outer index and a block of up to kBlock inner columns and
// walks len, so every step reads a contiguous strip when inner > 1 and a
// contiguous row when inner == 1.

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "tensor/autocast.h"
#include "tensor/autograd_hook.h"
#include "tensor/dim.h"
#include "tensor/dispatch.h"
#include "tensor/empty.h"
#include "tensor/kernel_table.h"
#include "tensor/loops.h"
#include "tensor/parallel.h"
#include "tensor/reduce.h"
#include "tensor/scan_kernels.h"

namespace ember {
namespace detail {
EMBER_DEFINE_KERNEL_TABLE(scan_stub, ScanKernelFn);
}  // namespace detail

namespace {

using detail::scan_stub;
using detail::ScanKind;
using detail::ScanShape;

constexpr int64_t kBlock = 256;

// Calls f(o, j0, j1) for every (outer index, inner block) in parallel.
template <typename F>
void for_each_line_block(const ScanShape& s, const F& f) {
  const int64_t bw = std::min(kBlock, s.inner);
  const int64_t nblocks = (s.inner + bw - 1) / bw;
  const int64_t ntasks = s.outer * nblocks;
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, s.len * bw));
  parallel_for(0, ntasks, grain, [&](int64_t tb, int64_t te) {
    for (int64_t t = tb; t < te; ++t) {
      int64_t o = t / nblocks;
      int64_t j0 = (t % nblocks) * bw;
      f(o, j0, std::min(s.inner, j0 + bw));
    }
  });
}

template <typename T>
using float_acc_t = std::conditional_t<std::is_same<T, double>::value, double, float>;

template <typename In, typename Out, bool kProd>
void cumulative(const In* x, Out* y, const ScanShape& s) {
  // int64 for integers, double for floating types (PyTorch's CPU acc type).
  using acc_t = std::conditional_t<std::is_integral<Out>::value, int64_t, double>;
  for_each_line_block(s, [&](int64_t o, int64_t j0, int64_t j1) {
    acc_t acc[kBlock];
    const int64_t w = j1 - j0;
    for (int64_t j = 0; j < w; ++j) acc[j] = kProd ? 1 : 0;
    const int64_t base = o * s.len * s.inner + j0;
    for (int64_t l = 0; l < s.len; ++l) {
      const In* xr = x + base + l * s.inner;
      Out* yr = y + base + l * s.inner;
      for (int64_t j = 0; j < w; ++j) {
        acc_t v = static_cast<acc_t>(cast_value<acc_t>(xr[j]));
        if constexpr (kProd) {
          if constexpr (std::is_integral<acc_t>::value) {  // wraps, no UB
            acc[j] = static_cast<int64_t>(static_cast<uint64_t>(acc[j]) * static_cast<uint64_t>(v));
          } else {
            acc[j] *= v;
          }
        } else {
          acc[j] += v;
        }
        if constexpr (std::is_integral<Out>::value || std::is_same<Out, double>::value) {
          yr[j] = acc[j];
        } else {
          yr[j] = static_cast<Out>(static_cast<float>(acc[j]));
        }
      }
    }
  });
}

template <typename T, bool kLog>
void softmax_kernel(const T* x, T* y, const ScanShape& s) {
  using acc_t = float_acc_t<T>;
  for_each_line_block(s, [&](int64_t o, int64_t j0, int64_t j1) {
    acc_t mx[kBlock], sum[kBlock];
    const int64_t w = j1 - j0;
    const int64_t base = o * s.len * s.inner + j0;
    for (int64_t j = 0; j < w; ++j) {
      mx[j] = -std::numeric_limits<acc_t>::infinity();
      sum[j] = 0;
    }
    for (int64_t l = 0; l < s.len; ++l) {
      const T* xr = x + base + l * s.inner;
      for (int64_t j = 0; j < w; ++j) {
        acc_t v = static_cast<acc_t>(xr[j]);
        mx[j] = (v > mx[j] || std::isnan(v)) ? v : mx[j];
      }
    }
    for (int64_t l = 0; l < s.len; ++l) {
      const T* xr = x + base + l * s.inner;
      for (int64_t j = 0; j < w; ++j) sum[j] += std::exp(static_cast<acc_t>(xr[j]) - mx[j]);
    }
    if constexpr (kLog) {
      for (int64_t j = 0; j < w; ++j) sum[j] = std::log(sum[j]);
    } else {
      for (int64_t j = 0; j < w; ++j) sum[j] = 1 / sum[j];
    }
    for (int64_t l = 0; l < s.len; ++l) {
      const T* xr = x + base + l * s.inner;
      T* yr = y + base + l * s.inner;
      for (int64_t j = 0; j < w; ++j) {
        acc_t d = static_cast<acc_t>(xr[j]) - mx[j];
        yr[j] = static_cast<T>(kLog ? d - sum[j] : std::exp(d) * sum[j]);
      }
    }
  });
}

void scan_cpu(ScanKind kind, const Tensor& in, const ScanShape& s, Tensor& out) {
  switch (kind) {
    case ScanKind::kCumsum:
    case ScanKind::kCumprod: {
      const bool prod = kind == ScanKind::kCumprod;
      EMBER_DISPATCH_ALL_TYPES(in.dtype(), prod ? "cumprod_cpu" : "cumsum_out_cpu", [&] {
        using out_t = std::conditional_t<std::is_integral<scalar_t>::value, int64_t, scalar_t>;
        if (prod) {
          cumulative<scalar_t, out_t, true>(in.data_ptr<scalar_t>(), out.data_ptr<out_t>(), s);
        } else {
          cumulative<scalar_t, out_t, false>(in.data_ptr<scalar_t>(), out.data_ptr<out_t>(), s);
        }
      });
      return;
    }
    case ScanKind::kSoftmax:
    case ScanKind::kLogSoftmax: {
      const bool log = kind == ScanKind::kLogSoftmax;
      // PyTorch's kernel names, for its "not implemented for 'Long'" error.
      const bool lastdim = s.inner == 1;
      const char* name = log ? (lastdim ? "log_softmax_lastdim_kernel_impl" : "log_softmax_kernel_impl")
                             : (lastdim ? "softmax_lastdim_kernel_impl" : "softmax_kernel_impl");
      EMBER_DISPATCH_FLOATING_TYPES(in.dtype(), name, [&] {
        if (log) {
          softmax_kernel<scalar_t, true>(in.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), s);
        } else {
          softmax_kernel<scalar_t, false>(in.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), s);
        }
      });
      return;
    }
  }
}
EMBER_REGISTER_KERNEL(scan_stub, kCPU, &scan_cpu);

Tensor scan(ScanKind kind, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  EMBER_CHECK(self.defined(), "expected a defined tensor");
  int64_t d = detail::wrap_dim(dim, self.dim());
  Tensor in = dtype && *dtype != self.dtype() ? self.to(*dtype) : self;
  in = in.contiguous();
  ScanShape s;
  for (int64_t i = 0; i < in.dim(); ++i) {
    if (i < d) s.outer *= in.sizes()[i];
    if (i == d) s.len = in.sizes()[i];
    if (i > d) s.inner *= in.sizes()[i];
  }
  ScalarType out_dtype = in.dtype();
  if ((kind == ScanKind::kCumsum || kind == ScanKind::kCumprod) &&
      is_integral(in.dtype(), /*include_bool=*/true)) {
    out_dtype = kLong;
  }
  Tensor out = empty(in.sizes(), TensorOptions(out_dtype).device(in.device()));
  // Nothing to compute: PyTorch returns before its kernels' dtype checks
  // (softmax of an empty int64 tensor is an empty int64 tensor).
  if (in.numel() == 0) return out;
  scan_stub(in.device())(kind, in, s, out);
  // An integer input with an integer dtype other than int64 (cumsum(dtype=
  // kInt) of an int tensor) computes in int64 and narrows at the end.
  return dtype && out.dtype() != *dtype ? out.to(*dtype) : out;
}

}  // namespace

Tensor cumsum(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  EMBER_AUTOCAST(cumsum, ::ember::cumsum, self, dim, dtype);
  return detail::record_out_op(
      "cumsum", Tensor(), {self}, [&] { return scan(ScanKind::kCumsum, self, dim, dtype); },
      [&] { return OpArgs{Scalar(self.dim() == 0 ? 0 : detail::wrap_dim(dim, self.dim()))}; });
}
Tensor cumprod(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  EMBER_AUTOCAST(cumprod, ::ember::cumprod, self, dim, dtype);
  return detail::record_out_op(
      "cumprod", Tensor(), {self}, [&] { return scan(ScanKind::kCumprod, self, dim, dtype); },
      [&] { return OpArgs{Scalar(self.dim() == 0 ? 0 : detail::wrap_dim(dim, self.dim()))}; });
}
Tensor softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  EMBER_AUTOCAST(softmax, ::ember::softmax, self, dim, dtype);
  return detail::record_out_op(
      "softmax", Tensor(), {self}, [&] { return scan(ScanKind::kSoftmax, self, dim, dtype); },
      [&] { return OpArgs{Scalar(self.dim() == 0 ? 0 : detail::wrap_dim(dim, self.dim()))}; });
}
Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  EMBER_AUTOCAST(log_softmax, ::ember::log_softmax, self, dim, dtype);
  return detail::record_out_op(
      "log_softmax", Tensor(), {self}, [&] { return scan(ScanKind::kLogSoftmax, self, dim, dtype); },
      [&] { return OpArgs{Scalar(self.dim() == 0 ? 0 : detail::wrap_dim(dim, self.dim()))}; });
}

}  // namespace ember
