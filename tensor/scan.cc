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
#include "tensor/reduce_engine.h"
#include "tensor/scan_kernels.h"
#include "tensor/vec_math.h"
// After <cmath>: double exp vectorizes through libmvec (Note [Vectorized
// libm]).
#include "tensor/simd_math.h"

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

// Calls f(o) for every outer index in parallel (inner == 1: one line each).
template <typename F>
void for_each_line(const ScanShape& s, const F& f) {
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, s.len));
  parallel_for(0, s.outer, grain, [&](int64_t ob, int64_t oe) {
    for (int64_t o = ob; o < oe; ++o) f(o);
  });
}

template <typename In, typename Out, bool kProd>
void cumulative(const In* x, Out* y, const ScanShape& s) {
  // int64 for integers, double for floating types (PyTorch's CPU acc type).
  using acc_t = std::conditional_t<std::is_integral<Out>::value, int64_t, double>;
  auto next = [](acc_t a, acc_t v) -> acc_t {
    if constexpr (kProd && std::is_integral<acc_t>::value) {  // wraps, no UB
      return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(v));
    } else if constexpr (kProd) {
      return a * v;
    } else {
      return a + v;
    }
  };
  auto store = [](acc_t a) -> Out {
    if constexpr (std::is_integral<Out>::value || std::is_same<Out, double>::value) {
      return a;
    } else {
      return static_cast<Out>(static_cast<float>(a));
    }
  };
  if (s.inner == 1) {
    // A contiguous line: the running value stays in a register (through
    // the block path's array it made a store-to-load chain, 3 times
    // libtorch 1.13's time).
    for_each_line(s, [&](int64_t o) {
      const In* xr = x + o * s.len;
      Out* yr = y + o * s.len;
      acc_t acc = kProd ? 1 : 0;
      for (int64_t l = 0; l < s.len; ++l) {
        acc = next(acc, static_cast<acc_t>(cast_value<acc_t>(xr[l])));
        yr[l] = store(acc);
      }
    });
    return;
  }
  for_each_line_block(s, [&](int64_t o, int64_t j0, int64_t j1) {
    acc_t acc[kBlock];
    const int64_t w = j1 - j0;
    for (int64_t j = 0; j < w; ++j) acc[j] = kProd ? 1 : 0;
    const int64_t base = o * s.len * s.inner + j0;
    for (int64_t l = 0; l < s.len; ++l) {
      const In* xr = x + base + l * s.inner;
      Out* yr = y + base + l * s.inner;
      for (int64_t j = 0; j < w; ++j) {
        acc[j] = next(acc[j], static_cast<acc_t>(cast_value<acc_t>(xr[j])));
        yr[j] = store(acc[j]);
      }
    }
  });
}

// Note [Softmax along a contiguous line]: softmax over the last dim (inner
// == 1) walks each line three times with the loops the compiler
// vectorizes: the max in lanes (a NaN, whose payload the element rule
// picks, sends the line to the block path), the sum of exp(x - max) in
// lanes with exp_f (Note [Vectorizable exp and erfc]; softmax of float
// keeps the exponentials in the output), then the output. The block path
// walked a 65536-element line one element at a time with calls to expf:
// 10 times libtorch 1.13's time. double's std::exp vectorizes through
// libmvec (Note [Vectorized libm]) and its max through vector types: the
// double line ran scalar exp calls and a branchy max, 3.3 times 1.13's
// time.
template <typename T, bool kLog>
bool softmax_line(const T* xr, T* yr, int64_t len) {
  using acc_t = float_acc_t<T>;
  constexpr int kLanes = 128 / sizeof(acc_t);  // four AVX2 registers
  acc_t lanes[kLanes];
  acc_t mx = -std::numeric_limits<acc_t>::infinity();
  bool nan = false;
  int64_t i = 0;
  if constexpr (std::is_same<T, acc_t>::value) {
    // float and double as vector types: GCC left the select loop over
    // double lanes scalar, with branches (Note [Vectorized max and min]).
    i = reduce_detail::vector_best<true>(xr, len, &mx, &nan);
  } else {
    acc_t nan_seen[kLanes];  // a NaN the lane saw, else 0
    for (int l = 0; l < kLanes; ++l) {
      lanes[l] = -std::numeric_limits<acc_t>::infinity();
      nan_seen[l] = 0;
    }
    for (; i + kLanes <= len; i += kLanes) {
      for (int l = 0; l < kLanes; ++l) {
        const acc_t v = static_cast<acc_t>(xr[i + l]);
        lanes[l] = v > lanes[l] ? v : lanes[l];
        nan_seen[l] = v != v ? v : nan_seen[l];
      }
    }
    for (int l = 0; l < kLanes; ++l) {
      mx = lanes[l] > mx ? lanes[l] : mx;
      nan |= nan_seen[l] != nan_seen[l];
    }
  }
  for (; i < len; ++i) {
    const acc_t v = static_cast<acc_t>(xr[i]);
    mx = v > mx ? v : mx;
    nan |= v != v;
  }
  if (nan) return false;
  // Stores exp(x - max) in the output where it keeps its value (float,
  // double): the last pass then only scales. float16 / bfloat16 softmax
  // keeps them in a float scratch line (up to kScratchLine elements) instead
  // of computing them twice: bfloat16's line took 1.76 times 1.13's time.
  constexpr bool kKeepExp = !kLog && std::is_same<T, acc_t>::value;
  constexpr bool kScratch = !kLog && !kKeepExp;
  constexpr int64_t kScratchLine = int64_t{1} << 16;
  auto exp_pass = [&](auto* dst) {
    constexpr bool kStore = !std::is_same<decltype(dst), std::nullptr_t*>::value;
    int64_t j = 0;
    acc_t total = 0;
    if (len >= kLanes) {
      for (int l = 0; l < kLanes; ++l) lanes[l] = 0;
      const int64_t whole = len / kLanes * kLanes;
      if constexpr (kStore) {
        // The exponentials as a plain map, then their sum in the same
        // lanes: one loop of both kept double's lanes in shuffles around
        // the libmvec calls (1.3 times 1.13's time).
        for (int64_t m = 0; m < whole; ++m)
          dst[m] = detail::vec_exp(static_cast<acc_t>(xr[m]) - mx);
        for (; j < whole; j += kLanes) {
          for (int l = 0; l < kLanes; ++l) lanes[l] += dst[j + l];
        }
      } else {
        for (; j < whole; j += kLanes) {
          for (int l = 0; l < kLanes; ++l) {
            lanes[l] += detail::vec_exp(static_cast<acc_t>(xr[j + l]) - mx);
          }
        }
      }
      for (int w = kLanes / 2; w > 0; w /= 2) {
        for (int l = 0; l < w; ++l) lanes[l] += lanes[l + w];
      }
      total = lanes[0];
    }
    // Then one register at a time: a line shorter than kLanes (softmax over
    // a last dim of 16) took every exponential one by one, 4 times 1.13's
    // time.
    constexpr int kVec = 32 / sizeof(acc_t);
    if (j + kVec <= len) {
      acc_t vec[kVec] = {};
      for (; j + kVec <= len; j += kVec) {
        for (int l = 0; l < kVec; ++l) {
          const acc_t e = detail::vec_exp(static_cast<acc_t>(xr[j + l]) - mx);
          if constexpr (kStore) dst[j + l] = e;
          vec[l] += e;
        }
      }
      for (int l = 0; l < kVec; ++l) total += vec[l];
    }
    for (; j < len; ++j) {
      const acc_t e = detail::vec_exp(static_cast<acc_t>(xr[j]) - mx);
      if constexpr (kStore) dst[j] = e;
      total += e;
    }
    return total;
  };
  acc_t* ex = nullptr;
  acc_t sum;
  if constexpr (kKeepExp) {
    sum = exp_pass(yr);
  } else if constexpr (kScratch) {
    if (len <= kScratchLine) {
      thread_local std::vector<acc_t> scratch;
      if (static_cast<int64_t>(scratch.size()) < len) scratch.resize(len);
      ex = scratch.data();
      sum = exp_pass(ex);
    } else {
      sum = exp_pass(static_cast<std::nullptr_t*>(nullptr));
    }
  } else {
    sum = exp_pass(static_cast<std::nullptr_t*>(nullptr));
  }
  if constexpr (kLog) {
    const acc_t lsum = std::log(sum);
    for (i = 0; i < len; ++i) yr[i] = static_cast<T>((static_cast<acc_t>(xr[i]) - mx) - lsum);
  } else if constexpr (kKeepExp) {
    const acc_t inv = 1 / sum;
    for (i = 0; i < len; ++i) yr[i] = yr[i] * inv;
  } else if (ex != nullptr) {
    const acc_t inv = 1 / sum;
    for (i = 0; i < len; ++i) yr[i] = static_cast<T>(ex[i] * inv);
  } else {
    const acc_t inv = 1 / sum;
    for (i = 0; i < len; ++i) {
      yr[i] = static_cast<T>(detail::vec_exp(static_cast<acc_t>(xr[i]) - mx) * inv);
    }
  }
  return true;
}

template <typename T, bool kLog>
void softmax_blocks(const T* x, T* y, const ScanShape& s) {
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
      for (int64_t j = 0; j < w; ++j) sum[j] += detail::vec_exp(static_cast<acc_t>(xr[j]) - mx[j]);
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
        yr[j] = static_cast<T>(kLog ? d - sum[j] : detail::vec_exp(d) * sum[j]);
      }
    }
  });
}

template <typename T, bool kLog>
void softmax_kernel(const T* x, T* y, const ScanShape& s) {
  if (s.inner != 1) {
    softmax_blocks<T, kLog>(x, y, s);
    return;
  }
  for_each_line(s, [&](int64_t o) {
    const T* xr = x + o * s.len;
    T* yr = y + o * s.len;
    if (softmax_line<T, kLog>(xr, yr, s.len)) return;
    ScanShape line;
    line.len = s.len;
    softmax_blocks<T, kLog>(xr, yr, line);  // a NaN: the element rule decides
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
