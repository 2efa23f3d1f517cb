// Note [Batch norm kernels] on the CPU: the three kernels of
// tensor/batch_norm_kernels.h for float and double, so that a training
// step's batch norm is two passes over the activations forward (statistics,
// then out = x * alpha + beta) and two backward, instead of var_mean's
// Welford reduction (a division per element, 9% of a ResNet-18 step) and
// the composed backward's six. As PyTorch's CPU kernels
// (batch_norm_cpu_collect_stats, batch_norm_backward_cpu), sums are taken
// in double: the mean first, then the squared deviations from it.
//
// Note [Channels-last batch norm]: a channels-last input ([N, C, H, W] with
// C innermost in memory) is an [N * H * W, C] matrix; its kernels read and
// write it as it is (PyTorch's batch_norm_cpu_*_channels_last), where
// composing public ops for it cost a Welford reduction and a
// reduction over strided dims each way. The per-channel sums are column
// sums, vectorized over C, with the same numerics as the row-major kernels
// (double sums, the mean first, then the squared deviations from it): the
// rows are cut into blocks of a size fixed by C alone, each block's sums
// are taken in its own double vector, and the blocks are added in order,
// so results do not depend on the number of threads. The output and the
// input gradient are channels-last too.
#include <cstdint>
#include <type_traits>
#include <vector>

#include "tensor/batch_norm_kernels.h"
#include "tensor/dispatch.h"
#include "tensor/lane_sum.h"
#include "tensor/memory_format.h"
#include "tensor/parallel.h"

namespace ember {
namespace {

struct Planes {
  int64_t n, c, plane;                     // [n, c, plane], contiguous
  int64_t m() const { return n * plane; }  // elements per channel
};

Planes planes_of(const Tensor& x) {
  Planes p{x.size(0), x.size(1), 0};
  p.plane = p.n * p.c > 0 ? x.numel() / (p.n * p.c) : 0;
  return p;
}

// Channels per task: at least ~32K elements of work each.
int64_t channel_grain(const Planes& p) {
  return std::max<int64_t>(1, (int64_t{1} << 15) / std::max<int64_t>(p.m(), 1));
}

using detail::lane_sum;  // tensor/lane_sum.h

template <typename T>
double sum_of(const T* p, int64_t len) {
  return lane_sum<double>(len, [p](int64_t i) { return static_cast<double>(p[i]); });
}

template <typename T>
double squared_deviations(const T* p, int64_t len, double center) {
  return lane_sum<double>(len, [p, center](int64_t i) {
    const double d = static_cast<double>(p[i]) - center;
    return d * d;
  });
}

// sum(g * (x - center)).
template <typename T>
double centered_dot(const T* g, const T* x, int64_t len, double center) {
  return lane_sum<double>(len, [g, x, center](int64_t i) {
    return static_cast<double>(g[i]) * (static_cast<double>(x[i]) - center);
  });
}

// --- channels-last: [rows, C] (Note [Channels-last batch norm]) -----------

struct Rows {
  int64_t rows, c;
};
Rows rows_of(const Tensor& x) {
  Rows r{0, x.size(1)};
  r.rows = r.c > 0 ? x.numel() / r.c : 0;
  return r;
}

// out[j * c + ch] (j < k) = the sum over the rows r of what add_row(r, acc)
// adds into acc[j * c + ch]: blocks of ~16K elements, each summed into its
// own zeroed partial, then the partials added in block order.
template <typename AddRow>
void column_sums(const Rows& r, int64_t k, double* out, const AddRow& add_row) {
  const int64_t block = std::max<int64_t>(1, (int64_t{1} << 14) / std::max<int64_t>(r.c, 1));
  const int64_t blocks = (r.rows + block - 1) / block, width = k * r.c;
  std::vector<double> partial(blocks * width, 0.0);
  parallel_for(0, blocks, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      double* acc = partial.data() + i * width;
      for (int64_t row = i * block; row < std::min(r.rows, (i + 1) * block); ++row) {
        add_row(row, acc);
      }
    }
  });
  for (int64_t j = 0; j < width; ++j) out[j] = 0;
  for (int64_t i = 0; i < blocks; ++i) {
    const double* acc = partial.data() + i * width;
    for (int64_t j = 0; j < width; ++j) out[j] += acc[j];
  }
}

template <typename T>
void stats_channels_last(const Tensor& x, Tensor& mean, Tensor& var) {
  const Rows r = rows_of(x);
  const T* xp = x.data_ptr<T>();
  const int64_t c = r.c;
  std::vector<double> mu(c), sq(c);
  column_sums(r, 1, mu.data(), [xp, c](int64_t row, double* __restrict acc) {
    const T* __restrict p = xp + row * c;
    for (int64_t ch = 0; ch < c; ++ch) acc[ch] += static_cast<double>(p[ch]);
  });
  const double m = static_cast<double>(r.rows);
  for (double& v : mu) v /= m;
  const double* center = mu.data();
  column_sums(r, 1, sq.data(), [xp, c, center](int64_t row, double* __restrict acc) {
    const T* __restrict p = xp + row * c;
    for (int64_t ch = 0; ch < c; ++ch) {
      const double d = static_cast<double>(p[ch]) - center[ch];
      acc[ch] += d * d;
    }
  });
  T* mp = mean.data_ptr<T>();
  T* vp = var.data_ptr<T>();
  for (int64_t ch = 0; ch < c; ++ch) {
    mp[ch] = static_cast<T>(mu[ch]);
    vp[ch] = static_cast<T>(sq[ch] / m);
  }
}

template <typename T>
void backward_reduce_channels_last(const Tensor& gy, const Tensor& x, const Tensor& mean,
                                   Tensor& gsum, Tensor& dotp) {
  const Rows r = rows_of(x);
  const T* gp = gy.data_ptr<T>();
  const T* xp = x.data_ptr<T>();
  const T* mp = mean.data_ptr<T>();
  const int64_t c = r.c;
  std::vector<double> center(mp, mp + c), sums(2 * c);
  const double* mu = center.data();
  column_sums(r, 2, sums.data(), [gp, xp, mu, c](int64_t row, double* __restrict acc) {
    const T* __restrict g = gp + row * c;
    const T* __restrict v = xp + row * c;
    double* __restrict dot = acc + c;
    for (int64_t ch = 0; ch < c; ++ch) {
      const double gd = static_cast<double>(g[ch]);
      acc[ch] += gd;
      dot[ch] += gd * (static_cast<double>(v[ch]) - mu[ch]);
    }
  });
  T* sp = gsum.data_ptr<T>();
  T* dp = dotp.data_ptr<T>();
  for (int64_t ch = 0; ch < c; ++ch) {
    sp[ch] = static_cast<T>(sums[ch]);
    dp[ch] = static_cast<T>(sums[c + ch]);
  }
}

// affine_cpu's formula on [rows, C]: the per-channel vectors line up with
// each row, so every row is one vectorized loop.
template <typename T>
void affine_channels_last(const T* up, const T* vp, const T* ap, const T* bp, const T* mp,
                          const T* dp, T* op, const Rows& r) {
  const int64_t c = r.c;
  std::vector<T> center(c, T(0));
  if (mp != nullptr) center.assign(mp, mp + c);
  const T* cp = center.data();
  const int64_t grain = std::max<int64_t>(1, 4096 / std::max<int64_t>(c, 1));
  parallel_for(0, r.rows, grain, [&](int64_t lo, int64_t hi) {
    for (int64_t row = lo; row < hi; ++row) {
      const T* __restrict src = up + row * c;
      T* __restrict dst = op + row * c;
      if (vp == nullptr || bp == nullptr) {
        for (int64_t ch = 0; ch < c; ++ch) dst[ch] = src[ch] * ap[ch] + dp[ch];
      } else {
        const T* __restrict src2 = vp + row * c;
        for (int64_t ch = 0; ch < c; ++ch) {
          dst[ch] = src[ch] * ap[ch] + (src2[ch] - cp[ch]) * bp[ch] + dp[ch];
        }
      }
    }
  });
}

// --- the kernels -------------------------------------------------------------

void stats_cpu(const Tensor& x, Tensor& mean, Tensor& var) {
  if (!x.is_contiguous()) {
    EMBER_DISPATCH_FLOAT_DOUBLE(x.dtype(), "batch_norm_stats",
                                [&] { stats_channels_last<scalar_t>(x, mean, var); });
    return;
  }
  const Planes p = planes_of(x);
  EMBER_DISPATCH_FLOAT_DOUBLE(x.dtype(), "batch_norm_stats", [&] {
    const scalar_t* xp = x.data_ptr<scalar_t>();
    scalar_t* mp = mean.data_ptr<scalar_t>();
    scalar_t* vp = var.data_ptr<scalar_t>();
    const double m = static_cast<double>(p.m());
    parallel_for(0, p.c, channel_grain(p), [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) {
        double s = 0;
        for (int64_t n = 0; n < p.n; ++n) s += sum_of(xp + (n * p.c + c) * p.plane, p.plane);
        const double mu = s / m;
        double q = 0;
        for (int64_t n = 0; n < p.n; ++n) {
          q += squared_deviations(xp + (n * p.c + c) * p.plane, p.plane, mu);
        }
        mp[c] = static_cast<scalar_t>(mu);
        vp[c] = static_cast<scalar_t>(q / m);
      }
    });
  });
}

void backward_reduce_cpu(const Tensor& gy, const Tensor& x, const Tensor& mean, Tensor& gsum,
                         Tensor& dotp) {
  if (!x.is_contiguous()) {
    EMBER_DISPATCH_FLOAT_DOUBLE(x.dtype(), "batch_norm_backward_reduce", [&] {
      backward_reduce_channels_last<scalar_t>(gy, x, mean, gsum, dotp);
    });
    return;
  }
  const Planes p = planes_of(x);
  EMBER_DISPATCH_FLOAT_DOUBLE(x.dtype(), "batch_norm_backward_reduce", [&] {
    const scalar_t* gp = gy.data_ptr<scalar_t>();
    const scalar_t* xp = x.data_ptr<scalar_t>();
    const scalar_t* mp = mean.data_ptr<scalar_t>();
    scalar_t* sp = gsum.data_ptr<scalar_t>();
    scalar_t* dp = dotp.data_ptr<scalar_t>();
    parallel_for(0, p.c, channel_grain(p), [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) {
        const double mu = static_cast<double>(mp[c]);
        double s = 0, d = 0;
        for (int64_t n = 0; n < p.n; ++n) {
          const int64_t off = (n * p.c + c) * p.plane;
          s += sum_of(gp + off, p.plane);
          d += centered_dot(gp + off, xp + off, p.plane, mu);
        }
        sp[c] = static_cast<scalar_t>(s);
        dp[c] = static_cast<scalar_t>(d);
      }
    });
  });
}

// out = u * a[c] + (v - m[c]) * b[c] + d[c], in the input's dtype.
void affine_cpu(const Tensor& u, const Tensor& v, const Tensor& a, const Tensor& b, const Tensor& m,
                const Tensor& d, Tensor& out) {
  const Planes p = planes_of(u);
  EMBER_DISPATCH_FLOAT_DOUBLE(u.dtype(), "batch_norm_elemt", [&] {
    const scalar_t* up = u.data_ptr<scalar_t>();
    const scalar_t* vp = v.defined() ? v.data_ptr<scalar_t>() : nullptr;
    const scalar_t* ap = a.data_ptr<scalar_t>();
    const scalar_t* bp = b.defined() ? b.data_ptr<scalar_t>() : nullptr;
    const scalar_t* mp = m.defined() ? m.data_ptr<scalar_t>() : nullptr;
    const scalar_t* dp = d.data_ptr<scalar_t>();
    scalar_t* op = out.data_ptr<scalar_t>();
    if (!u.is_contiguous()) {
      affine_channels_last(up, vp, ap, bp, mp, dp, op, rows_of(u));
      return;
    }
    const int64_t grain = std::max<int64_t>(1, 4096 / std::max<int64_t>(p.plane, 1));
    parallel_for(0, p.n * p.c, grain, [&](int64_t lo, int64_t hi) {
      for (int64_t k = lo; k < hi; ++k) {
        const int64_t c = k % p.c, off = k * p.plane;
        const scalar_t alpha = ap[c];
        const scalar_t* __restrict src = up + off;
        scalar_t* __restrict dst = op + off;
        if (vp == nullptr || bp == nullptr) {
          const scalar_t beta = dp[c];
          for (int64_t i = 0; i < p.plane; ++i) dst[i] = src[i] * alpha + beta;
        } else {
          const scalar_t* __restrict src2 = vp + off;
          const scalar_t beta = bp[c], center = mp ? mp[c] : scalar_t(0), shift = dp[c];
          for (int64_t i = 0; i < p.plane; ++i) {
            dst[i] = src[i] * alpha + (src2[i] - center) * beta + shift;
          }
        }
      }
    });
  });
}

}  // namespace

namespace detail {
EMBER_REGISTER_KERNEL(batch_norm_stats_kernel, kCPU, &stats_cpu);
EMBER_REGISTER_KERNEL(batch_norm_affine_kernel, kCPU, &affine_cpu);
EMBER_REGISTER_KERNEL(batch_norm_backward_reduce_kernel, kCPU, &backward_reduce_cpu);
}  // namespace detail
}  // namespace ember
