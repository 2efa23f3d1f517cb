// Note [Layer norm kernels] on the CPU: the forward and backward kernels of
// tensor/layer_norm_kernels.h for float and double, one row (the
// normalized dims) at a time, where the composed path took about seven
// passes forward and twelve backward (layer norm's statistics alone, a
// Welford reduction, were 2.7% of a GPT training step).
//
// Numerics, as PyTorch's CPU kernels and ember's composed path: each row's
// mean, then the mean of its squared deviations from it, summed in double
// (rstd = 1 / sqrt(var + eps)); the elementwise maps in the input's dtype.
// The backward, with g = gy * weight and xhat = (x - mean) * rstd:
//   gx = rstd * (g - mean(g) - xhat * mean(g * xhat))
// with both row means summed in double, and the weight and bias gradients
// (column sums of gy * xhat and gy over the rows) summed in double over
// fixed chunks of rows, then chunk by chunk in order: the results do not
// depend on the number of threads.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "tensor/dispatch.h"
#include "tensor/lane_sum.h"
#include "tensor/layer_norm_kernels.h"
#include "tensor/parallel.h"

namespace ember {
namespace {

using detail::lane_sum;

// Rows whose weight and bias gradients are summed together before the
// chunks are added in order.
constexpr int64_t kRowChunk = 32;

// Rows per task: at least ~16K elements of work each.
int64_t row_grain(int64_t d) {
  return std::max<int64_t>(1, (int64_t{1} << 14) / std::max<int64_t>(d, 1));
}

void forward_cpu(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps, Tensor& out,
                 Tensor& mean, Tensor& rstd) {
  const int64_t rows = mean.numel(), d = x.numel() / rows;
  EMBER_DISPATCH_FLOAT_DOUBLE(x.dtype(), "layer_norm", [&] {
    using T = scalar_t;
    const T* xp = x.data_ptr<T>();
    const T* wp = weight.defined() ? weight.data_ptr<T>() : nullptr;
    const T* bp = bias.defined() ? bias.data_ptr<T>() : nullptr;
    T* op = out.data_ptr<T>();
    T* mp = mean.data_ptr<T>();  // float for float, double for double: the input's dtype
    T* rp = rstd.data_ptr<T>();
    parallel_for(0, rows, row_grain(d), [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) {
        const T* __restrict xr = xp + r * d;
        T* __restrict yr = op + r * d;
        const double mu =
            lane_sum<double>(d, [xr](int64_t i) { return static_cast<double>(xr[i]); }) / d;
        const double var = lane_sum<double>(d,
                                            [xr, mu](int64_t i) {
                                              const double c = static_cast<double>(xr[i]) - mu;
                                              return c * c;
                                            }) /
                           d;
        const T m = static_cast<T>(mu);
        const T s = static_cast<T>(1.0 / std::sqrt(var + eps));
        mp[r] = m;
        rp[r] = s;
        if (wp != nullptr && bp != nullptr) {
          for (int64_t i = 0; i < d; ++i) yr[i] = (xr[i] - m) * s * wp[i] + bp[i];
        } else if (wp != nullptr) {
          for (int64_t i = 0; i < d; ++i) yr[i] = (xr[i] - m) * s * wp[i];
        } else if (bp != nullptr) {
          for (int64_t i = 0; i < d; ++i) yr[i] = (xr[i] - m) * s + bp[i];
        } else {
          for (int64_t i = 0; i < d; ++i) yr[i] = (xr[i] - m) * s;
        }
      }
    });
  });
}

void backward_cpu(const Tensor& gy, const Tensor& x, const Tensor& mean, const Tensor& rstd,
                  const Tensor& weight, Tensor& gx, Tensor& gw, Tensor& gb) {
  const int64_t rows = mean.numel(), d = x.numel() / rows;
  const int64_t chunks = (rows + kRowChunk - 1) / kRowChunk;
  EMBER_DISPATCH_FLOAT_DOUBLE(x.dtype(), "layer_norm_backward", [&] {
    using T = scalar_t;
    const T* gp = gy.data_ptr<T>();
    const T* xp = x.data_ptr<T>();
    const T* mp = mean.data_ptr<T>();
    const T* rp = rstd.data_ptr<T>();
    const T* wp = weight.defined() ? weight.data_ptr<T>() : nullptr;
    T* gxp = gx.defined() ? gx.data_ptr<T>() : nullptr;
    // Per chunk of rows: the partial column sums of gy * xhat and gy.
    std::vector<double> pw(gw.defined() ? chunks * d : 0), pb(gb.defined() ? chunks * d : 0);
    const int64_t grain = std::max<int64_t>(1, row_grain(d) / kRowChunk);
    parallel_for(0, chunks, grain, [&](int64_t lo, int64_t hi) {
      for (int64_t c = lo; c < hi; ++c) {
        double* __restrict cw = pw.empty() ? nullptr : pw.data() + c * d;
        double* __restrict cb = pb.empty() ? nullptr : pb.data() + c * d;
        for (int64_t r = c * kRowChunk; r < std::min(rows, (c + 1) * kRowChunk); ++r) {
          const T* __restrict gr = gp + r * d;
          const T* __restrict xr = xp + r * d;
          const T m = mp[r], s = rp[r];
          if (cw != nullptr) {
            for (int64_t i = 0; i < d; ++i) {
              cw[i] += static_cast<double>(gr[i]) * static_cast<double>((xr[i] - m) * s);
            }
          }
          if (cb != nullptr) {
            for (int64_t i = 0; i < d; ++i) cb[i] += static_cast<double>(gr[i]);
          }
          if (gxp == nullptr) continue;
          auto g = [gr, wp](int64_t i) {
            return wp != nullptr ? static_cast<double>(gr[i]) * static_cast<double>(wp[i])
                                 : static_cast<double>(gr[i]);
          };
          // mean(g) and mean(g * (x - mean)) * rstd = mean(g * xhat).
          const double mg = lane_sum<double>(d, g) / d;
          const double mgx =
              lane_sum<double>(
                  d, [&g, xr, m](int64_t i) { return g(i) * static_cast<double>(xr[i] - m); }) /
              d * static_cast<double>(s);
          const T a = static_cast<T>(mg), b = static_cast<T>(mgx);
          T* __restrict out = gxp + r * d;
          if (wp != nullptr) {
            for (int64_t i = 0; i < d; ++i) {
              out[i] = s * (gr[i] * wp[i] - a - (xr[i] - m) * s * b);
            }
          } else {
            for (int64_t i = 0; i < d; ++i) out[i] = s * (gr[i] - a - (xr[i] - m) * s * b);
          }
        }
      }
    });
    // The chunks' partial sums, added in order.
    const std::pair<const std::vector<double>*, Tensor*> sums[] = {{&pw, &gw}, {&pb, &gb}};
    for (const auto& sum : sums) {
      const std::vector<double>& partial = *sum.first;
      if (partial.empty()) continue;
      T* dst = sum.second->data_ptr<T>();
      parallel_for(0, d, 1024, [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i) {
          double t = 0;
          for (int64_t c = 0; c < chunks; ++c) t += partial[c * d + i];
          dst[i] = static_cast<T>(t);
        }
      });
    }
  });
}

}  // namespace

namespace detail {
EMBER_REGISTER_KERNEL(layer_norm_forward_kernel, kCPU, &forward_cpu);
EMBER_REGISTER_KERNEL(layer_norm_backward_kernel, kCPU, &backward_cpu);
}  // namespace detail
}  // namespace ember
