// Note [Channels-last pooling]: max_pool2d and its backward on a
// channels-last CPU input ([N, C, H, W] with C innermost in memory) pool the
// nhwc memory as it is, where copying it to row-major and the result back
// (Note [Result layout]) cost more than the pooling. A window's position
// holds the C values of every channel side by side, so each output position
// is one pass over its window with the channels as the vector lanes, and
// the maximum of each channel is chosen with selects, by the row-major
// kernel's rule (PyTorch's): the first maximum wins, a NaN wins over
// everything (the last NaN, as `v > m || isnan(v)`). Indices are PyTorch's,
// the flat h * W + w within the plane, in channels-last memory too. The
// backward adds each output's gradient at its index, output positions in
// order per channel: the same sums, in the same order, as the row-major
// kernel. avg_pool2d and adaptive_avg_pool2d (not its 1x1 case, a mean)
// sum each window with the channels as lanes the same way, positions in the
// row-major kernels' order, so their results are those kernels' bits; their
// backwards spread each gradient over its window likewise, one sample per
// task.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "tensor/error.h"
#include "tensor/math_kernels.h"
#include "tensor/parallel.h"
#include "tensor/pool_kernels.h"

namespace ember {
namespace detail {

bool pool_channels_last(const Tensor& input) {
  return input.is_cpu() && input.dim() == 4 &&
         input.suggest_memory_format() == MemoryFormat::ChannelsLast;
}

namespace {

// One output position's window over channels [c0, c0 + n) (n <= kLanes;
// L = n when it is a compile-time block, 0 otherwise): the maxima and the
// window position of each, held in local lanes (int32 positions, the
// width of a float, so the selects vectorize).
constexpr int64_t kLanes = 16;
struct Window {
  int64_t y0, y1, x0, x1, dh, dw, w;
};

template <typename T, int64_t L>
inline void window_max(const T* plane, int64_t c, int64_t n, const Window& win, T* dst,
                       int64_t* idx) {
  using A = opmath_t<T>;
  if constexpr (L > 0) n = L;
  A m[kLanes];
  int32_t id[kLanes];
  const int32_t first = static_cast<int32_t>(win.y0 * win.w + win.x0);
  for (int64_t j = 0; j < n; ++j) {
    m[j] = -std::numeric_limits<A>::infinity();
    id[j] = first;
  }
  for (int64_t y = win.y0; y < win.y1; y += win.dh) {
    for (int64_t xx = win.x0; xx < win.x1; xx += win.dw) {
      const int32_t at = static_cast<int32_t>(y * win.w + xx);
      const T* __restrict v = plane + at * c;
      for (int64_t j = 0; j < n; ++j) {
        const A val = static_cast<A>(v[j]);
        const bool take = val > m[j] || val != val;
        m[j] = take ? val : m[j];
        id[j] = take ? at : id[j];
      }
    }
  }
  for (int64_t j = 0; j < n; ++j) {
    dst[j] = static_cast<T>(m[j]);
    idx[j] = id[j];
  }
}

#if defined(__AVX2__)
// window_max for 8 float channels in AVX2 registers (GCC left the lanes
// above scalar: 70% of a batch norm + max pool step).
inline void window_max8(const float* plane, int64_t c, const Window& win, float* dst,
                        int64_t* idx) {
  __m256 m = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
  __m256i id = _mm256_set1_epi32(static_cast<int32_t>(win.y0 * win.w + win.x0));
  for (int64_t y = win.y0; y < win.y1; y += win.dh) {
    for (int64_t xx = win.x0; xx < win.x1; xx += win.dw) {
      const int32_t at = static_cast<int32_t>(y * win.w + xx);
      const __m256 v = _mm256_loadu_ps(plane + at * c);
      // v > m, or v is NaN (PyTorch's rule)
      const __m256 take =
          _mm256_or_ps(_mm256_cmp_ps(v, m, _CMP_GT_OQ), _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
      m = _mm256_blendv_ps(m, v, take);
      id = _mm256_blendv_epi8(id, _mm256_set1_epi32(at), _mm256_castps_si256(take));
    }
  }
  _mm256_storeu_ps(dst, m);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(idx),
                      _mm256_cvtepi32_epi64(_mm256_castsi256_si128(id)));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(idx + 4),
                      _mm256_cvtepi32_epi64(_mm256_extracti128_si256(id, 1)));
}
#endif

template <typename T>
void max_pool_cl(const PoolGeometry& pool, int64_t c, const T* x, T* out, int64_t* idx) {
  const int64_t n = c > 0 ? pool.planes / c : 0;
  const int64_t per_row = std::max<int64_t>(1, pool.ow * c);
  parallel_for(0, n * pool.oh, std::max<int64_t>(1, 8192 / per_row), [&](int64_t b, int64_t e) {
    const PoolGeometry p = pool;  // local: stores through out cannot alias it
    for (int64_t u = b; u < e; ++u) {
      const int64_t s = u / p.oh, oy = u % p.oh;
      Window win{oy * p.sh - p.ph, 0, 0, 0, p.dh, p.dw, p.w};
      win.y1 = std::min(win.y0 + (p.kh - 1) * p.dh + 1, p.h);
      while (win.y0 < 0) win.y0 += p.dh;
      const T* plane = x + s * p.h * p.w * c;
      for (int64_t ox = 0; ox < p.ow; ++ox) {
        win.x0 = ox * p.sw - p.pw;
        win.x1 = std::min(win.x0 + (p.kw - 1) * p.dw + 1, p.w);
        while (win.x0 < 0) win.x0 += p.dw;
        const int64_t o = ((s * p.oh + oy) * p.ow + ox) * c;
        int64_t c0 = 0;
#if defined(__AVX2__)
        if constexpr (std::is_same<T, float>::value) {
          for (; c0 + 8 <= c; c0 += 8) {
            window_max8(plane + c0, c, win, out + o + c0, idx + o + c0);
          }
        }
#endif
        for (; c0 + kLanes <= c; c0 += kLanes) {
          window_max<T, kLanes>(plane + c0, c, kLanes, win, out + o + c0, idx + o + c0);
        }
        if (c0 < c) window_max<T, 0>(plane + c0, c, c - c0, win, out + o + c0, idx + o + c0);
      }
    }
  });
}

template <typename T>
void max_pool_cl_dispatch(const PoolGeometry& p, int64_t c, const T* x, T* out, int64_t* idx) {
  // int32 window positions (window_max): planes of 2^31 elements and more
  // do not occur in pooling.
  EMBER_CHECK(p.h * p.w < (int64_t{1} << 31), "max_pool2d: planes of ", p.h, " x ", p.w,
              " are too large for the channels-last kernel");
  max_pool_cl(p, c, x, out, idx);
}

}  // namespace

void max_pool_forward_channels_last(const PoolGeometry& p, int64_t channels, const Tensor& x,
                                    Tensor& out, Tensor& idx) {
  EMBER_DISPATCH_POOL_TYPES(x.dtype(), "max_pool2d", [&] {
    max_pool_cl_dispatch<scalar_t>(p, channels, x.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(),
                                   idx.data_ptr<int64_t>());
  });
}

void max_pool_backward_channels_last(const Tensor& gy, const Tensor& idx, Tensor& gx) {
  const int64_t n = gx.size(0), c = gx.size(1), hw = gx.size(2) * gx.size(3);
  const int64_t ohw = gy.size(2) * gy.size(3);
  EMBER_DISPATCH_POOL_TYPES(gy.dtype(), "max_pool2d_backward", [&] {
    using A = opmath_t<scalar_t>;
    const scalar_t* g = gy.data_ptr<scalar_t>();
    const int64_t* ix = idx.data_ptr<int64_t>();
    scalar_t* o = gx.data_ptr<scalar_t>();
    // One sample per task: no two tasks write the same element.
    parallel_for(0, n, 1, [&](int64_t b, int64_t e) {
      for (int64_t s = b; s < e; ++s) {
        scalar_t* plane = o + s * hw * c;
        for (int64_t j = 0; j < ohw; ++j) {
          const int64_t off = (s * ohw + j) * c;
          for (int64_t ch = 0; ch < c; ++ch) {
            // Note [Empty pooling windows] (autograd/derivatives/pooling.cc).
            if (ix[off + ch] < 0 || ix[off + ch] >= hw) continue;
            scalar_t& dst = plane[ix[off + ch] * c + ch];
            dst = static_cast<scalar_t>(static_cast<A>(dst) + static_cast<A>(g[off + ch]));
          }
        }
      }
    });
  });
}

namespace {

// Adaptive windows: [floor(o * in / out), ceil((o + 1) * in / out)).
int64_t a_start(int64_t o, int64_t in, int64_t out) { return (o * in) / out; }
int64_t a_end(int64_t o, int64_t in, int64_t out) { return ((o + 1) * in + out - 1) / out; }

// The per-channel sums of the window [y0, y1) x [x0, x1) of a sample's
// [h, w, c] plane into acc, positions in the row-major kernels' order.
template <typename T, typename A>
void window_sums(const T* plane, int64_t w, int64_t c, int64_t y0, int64_t y1, int64_t x0,
                 int64_t x1, A* __restrict acc) {
  for (int64_t ch = 0; ch < c; ++ch) acc[ch] = A(0);
  for (int64_t y = y0; y < y1; ++y) {
    for (int64_t xx = x0; xx < x1; ++xx) {
      const T* __restrict v = plane + (y * w + xx) * c;
      for (int64_t ch = 0; ch < c; ++ch) acc[ch] += static_cast<A>(v[ch]);
    }
  }
}

// dst[ch] += add[ch] over the window, in opmath. add holds the products
// already (the row-major kernels multiply once per window): a product
// formed here would be contracted into an FMA with the sum, and round
// differently.
template <typename T, typename A>
void window_add(T* plane, int64_t w, int64_t c, int64_t y0, int64_t y1, int64_t x0, int64_t x1,
                const A* add) {
  for (int64_t y = y0; y < y1; ++y) {
    for (int64_t xx = x0; xx < x1; ++xx) {
      T* __restrict dst = plane + (y * w + xx) * c;
      for (int64_t ch = 0; ch < c; ++ch) {
        dst[ch] = static_cast<T>(static_cast<A>(dst[ch]) + add[ch]);
      }
    }
  }
}

// Output rows (sample, oy) per task.
int64_t row_grain(int64_t ow, int64_t c) {
  return std::max<int64_t>(1, 8192 / std::max<int64_t>(1, ow * c));
}

template <typename T>
void avg_forward_cl(const PoolGeometry& p, int64_t c, bool count_include_pad,
                    std::optional<int64_t> divisor, const T* x, T* out) {
  using A = opmath_t<T>;
  const int64_t n = c > 0 ? p.planes / c : 0;
  parallel_for(0, n * p.oh, row_grain(p.ow, c), [&](int64_t b, int64_t e) {
    std::vector<A> acc(c);
    for (int64_t u = b; u < e; ++u) {
      const int64_t s = u / p.oh, oy = u % p.oh;
      const T* plane = x + s * p.h * p.w * c;
      for (int64_t ox = 0; ox < p.ow; ++ox) {
        T* dst = out + ((s * p.oh + oy) * p.ow + ox) * c;
        std::fill(dst, dst + c, T(0));
        avg_windows(p, count_include_pad, divisor, oy, ox,
                    [&](int64_t y0, int64_t y1, int64_t x0, int64_t x1, int64_t div) {
                      window_sums(plane, p.w, c, y0, y1, x0, x1, acc.data());
                      for (int64_t ch = 0; ch < c; ++ch) {
                        dst[ch] = static_cast<T>(average(acc[ch], div));
                      }
                    });
      }
    }
  });
}

template <typename T>
void avg_backward_cl(const PoolGeometry& p, int64_t c, bool count_include_pad,
                     std::optional<int64_t> divisor, const T* gy, T* gx) {
  using A = opmath_t<T>;
  const int64_t n = c > 0 ? p.planes / c : 0;
  parallel_for(0, n, 1, [&](int64_t b, int64_t e) {  // a sample per task: no shared writes
    std::vector<A> share(c);
    for (int64_t s = b; s < e; ++s) {
      T* plane = gx + s * p.h * p.w * c;
      for (int64_t oy = 0; oy < p.oh; ++oy) {
        for (int64_t ox = 0; ox < p.ow; ++ox) {
          const T* g = gy + ((s * p.oh + oy) * p.ow + ox) * c;
          avg_windows(p, count_include_pad, divisor, oy, ox,
                      [&](int64_t y0, int64_t y1, int64_t x0, int64_t x1, int64_t div) {
                        const A scale = A(1) / static_cast<A>(div);
                        for (int64_t ch = 0; ch < c; ++ch) {
                          share[ch] = static_cast<A>(g[ch]) * scale;
                        }
                        window_add(plane, p.w, c, y0, y1, x0, x1, share.data());
                      });
        }
      }
    }
  });
}

template <typename T>
void adaptive_forward_cl(const AdaptiveGeometry& a, int64_t c, const T* x, T* out) {
  using A = opmath_t<T>;
  const int64_t n = c > 0 ? a.planes / c : 0;
  parallel_for(0, n * a.oh, row_grain(a.ow, c), [&](int64_t b, int64_t e) {
    std::vector<A> acc(c);
    for (int64_t u = b; u < e; ++u) {
      const int64_t s = u / a.oh, oy = u % a.oh;
      const int64_t y0 = a_start(oy, a.h, a.oh), y1 = a_end(oy, a.h, a.oh);
      for (int64_t ox = 0; ox < a.ow; ++ox) {
        const int64_t x0 = a_start(ox, a.w, a.ow), x1 = a_end(ox, a.w, a.ow);
        window_sums(x + s * a.h * a.w * c, a.w, c, y0, y1, x0, x1, acc.data());
        T* dst = out + ((s * a.oh + oy) * a.ow + ox) * c;
        const A count = static_cast<A>((y1 - y0) * (x1 - x0));
        for (int64_t ch = 0; ch < c; ++ch) dst[ch] = static_cast<T>(acc[ch] / count);
      }
    }
  });
}

template <typename T>
void adaptive_backward_cl(const AdaptiveGeometry& a, int64_t c, const T* gy, T* gx) {
  using A = opmath_t<T>;
  const int64_t n = c > 0 ? a.planes / c : 0;
  parallel_for(0, n, 1, [&](int64_t b, int64_t e) {
    std::vector<A> share(c);
    for (int64_t s = b; s < e; ++s) {
      for (int64_t oy = 0; oy < a.oh; ++oy) {
        const int64_t y0 = a_start(oy, a.h, a.oh), y1 = a_end(oy, a.h, a.oh);
        for (int64_t ox = 0; ox < a.ow; ++ox) {
          const int64_t x0 = a_start(ox, a.w, a.ow), x1 = a_end(ox, a.w, a.ow);
          const T* g = gy + ((s * a.oh + oy) * a.ow + ox) * c;
          const A count = static_cast<A>((y1 - y0) * (x1 - x0));
          T* plane = gx + s * a.h * a.w * c;
          for (int64_t ch = 0; ch < c; ++ch) share[ch] = static_cast<A>(g[ch]) / count;
          window_add(plane, a.w, c, y0, y1, x0, x1, share.data());
        }
      }
    }
  });
}

}  // namespace

void avg_pool_forward_channels_last(const PoolGeometry& p, int64_t channels, bool count_include_pad,
                                    std::optional<int64_t> divisor, const Tensor& x, Tensor& out) {
  auto body = [&](auto zero) {
    using scalar_t = decltype(zero);
    avg_forward_cl<scalar_t>(p, channels, count_include_pad, divisor, x.data_ptr<scalar_t>(),
                             out.data_ptr<scalar_t>());
  };
  // avg_pool2d's dtypes (pool.cc): the pooling ones and int64.
  if (x.dtype() == kLong) return body(int64_t{});
  EMBER_DISPATCH_POOL_TYPES(x.dtype(), "avg_pool2d", [&] { body(scalar_t{}); });
}

void avg_pool_backward_channels_last(const PoolGeometry& p, int64_t channels,
                                     bool count_include_pad, std::optional<int64_t> divisor,
                                     const Tensor& gy, Tensor& gx) {
  EMBER_DISPATCH_POOL_TYPES(gy.dtype(), "avg_pool2d_backward", [&] {
    avg_backward_cl<scalar_t>(p, channels, count_include_pad, divisor, gy.data_ptr<scalar_t>(),
                              gx.data_ptr<scalar_t>());
  });
}

void adaptive_avg_pool_forward_channels_last(const AdaptiveGeometry& g, int64_t channels,
                                             const Tensor& x, Tensor& out) {
  EMBER_DISPATCH_POOL_TYPES(x.dtype(), "adaptive_avg_pool2d", [&] {
    adaptive_forward_cl<scalar_t>(g, channels, x.data_ptr<scalar_t>(), out.data_ptr<scalar_t>());
  });
}

void adaptive_avg_pool_backward_channels_last(const AdaptiveGeometry& g, int64_t channels,
                                              const Tensor& gy, Tensor& gx) {
  EMBER_DISPATCH_POOL_TYPES(gy.dtype(), "adaptive_avg_pool2d_backward", [&] {
    adaptive_backward_cl<scalar_t>(g, channels, gy.data_ptr<scalar_t>(), gx.data_ptr<scalar_t>());
  });
}

}  // namespace detail
}  // namespace ember
