// Convolution of small planes by one GEMM per kernel tap (Note
// [Convolution by taps]).
#include "tensor/conv_taps.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <vector>

#include "tensor/blas.h"
#include "tensor/conv_cpu.h"
#include "tensor/empty.h"
#include "tensor/onednn.h"
#include "tensor/parallel.h"

namespace ember {
namespace detail {
namespace {

// Note [Convolution by taps]: im2col multiplies the weight by every
// output's c * kh * kw inputs, padding included. Over small planes much of
// that is padding: a 3x3 kernel over ResNet-18's last 2x2 planes (at a
// 64x64 input) pairs each output with 4 of its 9 taps, so 5/9 of the
// multiply-adds add zeros, and oneDNN's direct kernels, which work on
// whole rows, do not skip them either (its weight gradient there was
// slower than im2col: Note [oneDNN convolution rule]). By taps, a
// convolution is the sum over kernel taps (i, j) of a 1x1 convolution
// whose input is shifted by (i * dh - ph, j * dw - pw): for each tap, one
// GEMM over only the positions where the shifted input lies inside the
// plane (a rectangle of outputs, tap.y0..y1 x tap.x0..x1), so nothing
// multiplies padding:
//   forward         y[q, :]   += x[q', :] @ W_t^T   [rows, co] (q' = q shifted)
//   input gradient  gx[q', :] += gy[q, :] @ W_t     [rows, c]
//   weight gradient gW_t       = gy[rows, :]^T @ x[rows', :]  [co, c]
// with W_t = w[:, :, i, j] ([co, c]). The GEMMs want channels innermost, so
// row-major activations are transposed to nhwc and back (at these plane
// sizes they are small beside the weight: 64K floats against 2.4M for
// ResNet-18's 512-channel layers), and a row-major weight to ohwi, where
// W_t is a matrix with rows kh * kw * c apart, and its gradient back (a
// channels-last weight is ohwi already). Every output row of a tap reads a
// different input row, so the scatter-adds of one tap never collide. Taken
// where conv_useful_fraction(g) is small (use_conv_taps).

// One kernel tap and the outputs it pairs with the input: output (y, x),
// y in [y0, y1) and x in [x0, x1), reads input (y * sh + dy, x * sw + dx).
struct Tap {
  int64_t index;  // i * kw + j
  int64_t y0, y1, x0, x1, dy, dx;
  int64_t positions() const { return (y1 - y0) * (x1 - x0); }
};

std::vector<Tap> taps_of(const ConvGeometry& g) {
  std::vector<Tap> taps;
  for (int64_t i = 0; i < g.kh; ++i) {
    for (int64_t j = 0; j < g.kw; ++j) {
      Tap t;
      t.index = i * g.kw + j;
      t.dy = i * g.dh - g.ph;
      t.dx = j * g.dw - g.pw;
      std::tie(t.y0, t.y1) = valid_outputs(g.oh, g.h, g.sh, t.dy);
      std::tie(t.x0, t.x1) = valid_outputs(g.ow, g.w, g.sw, t.dx);
      taps.push_back(t);
    }
  }
  return taps;
}

template <typename T>
using Scratch = ConvScratch<T>;

// out[j][i] = in[i][j] for an 8 x 8 block, rows ld_in and ld_out apart.
inline void transpose_8x8(const float* in, int64_t ld_in, float* out, int64_t ld_out) {
  __m256 r[8], t[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(in + i * ld_in);
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);  // rows i, i+1 interleaved by pairs
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    r[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);  // columns 0 and 4 of rows i..i+3
    r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
    r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int j = 0; j < 4; ++j) {
    _mm256_storeu_ps(out + j * ld_out, _mm256_permute2f128_ps(r[j], r[j + 4], 0x20));
    _mm256_storeu_ps(out + (j + 4) * ld_out, _mm256_permute2f128_ps(r[j], r[j + 4], 0x31));
  }
}

// One [rows, cols] matrix: float in 8 x 8 register blocks (3x faster than
// an element at a time on ResNet-18's 512 x 9 weight planes), the rest
// an element at a time.
template <typename T>
void transpose_one(const T* __restrict in, int64_t rows, int64_t cols, T* __restrict out) {
  int64_t r8 = 0, c8 = 0;
  if constexpr (std::is_same<T, float>::value) {
    r8 = rows / 8 * 8;
    c8 = cols / 8 * 8;
    for (int64_t i = 0; i < r8; i += 8) {
      for (int64_t j = 0; j < c8; j += 8) {
        transpose_8x8(in + i * cols + j, cols, out + j * rows + i, rows);
      }
    }
  }
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = i < r8 ? c8 : 0; j < cols; ++j) out[j * rows + i] = in[i * cols + j];
  }
}

// dst[s][j][i] = src[s][i][j] for s < batch, i < rows, j < cols.
template <typename T>
void transpose(const T* src, int64_t batch, int64_t rows, int64_t cols, T* dst) {
  const int64_t size = rows * cols;
  parallel_for(0, batch, std::max<int64_t>(1, 32768 / std::max<int64_t>(1, size)),
               [&](int64_t b, int64_t e) {
                 for (int64_t s = b; s < e; ++s) {
                   transpose_one(src + s * size, rows, cols, dst + s * size);
                 }
               });
}

// Where a tap's rows sit in an nhwc activation of h x w planes: row q =
// (n, y, x) of the tap's rectangle is position (y * sy + dy, x * sx + dx).
struct Plane {
  int64_t sy, dy, sx, dx, h, w;
};
Plane input_plane(const ConvGeometry& g, const Tap& t) {
  return {g.sh, t.dy, g.sw, t.dx, g.h, g.w};
}
Plane output_plane(const ConvGeometry& g) { return {1, 0, 1, 0, g.oh, g.ow}; }

// f(q, p) for each row q of the tap's rectangle and its position p in the plane.
template <typename F>
void for_rows(const ConvGeometry& g, const Tap& t, const Plane& pl, F f) {
  int64_t q = 0;
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t y = t.y0; y < t.y1; ++y) {
      const int64_t row = (n * pl.h + y * pl.sy + pl.dy) * pl.w + pl.dx;
      for (int64_t x = t.x0; x < t.x1; ++x) f(q++, row + x * pl.sx);
    }
  }
}

// rows[q, :] = act[p, :] (ch channels).
template <typename T>
void gather(const ConvGeometry& g, const Tap& t, const Plane& pl, const T* act, int64_t ch,
            T* rows) {
  for_rows(g, t, pl,
           [&](int64_t q, int64_t p) { std::memcpy(rows + q * ch, act + p * ch, ch * sizeof(T)); });
}

// act[p, :] += rows[q, :].
template <typename T>
void scatter_add(const ConvGeometry& g, const Tap& t, const Plane& pl, const T* rows, int64_t ch,
                 T* act) {
  for_rows(g, t, pl, [&](int64_t q, int64_t p) {
    const T* __restrict s = rows + q * ch;
    T* __restrict d = act + p * ch;
    for (int64_t c = 0; c < ch; ++c) d[c] += s[c];
  });
}

// The tap covers every output: its rows are the whole nhwc output in order.
bool whole_plane(const ConvGeometry& g, const Tap& t) { return t.positions() == g.l(); }

// The weight as [co, kh * kw, c] (ohwi, PyTorch's channels-last weight):
// tap t's [co, c] matrix W_t starts at t * c with rows kh * kw * c apart.
// A channels-last weight is already that; a row-major one is transposed
// one output channel at a time ([c, k] -> [k, c], in cache).
template <typename T>
const T* weight_ohwi(const ConvGeometry& g, const T* w, Scratch<T>& buf) {
  if (g.weight_channels_last) return w;
  transpose(w, g.co, g.c, g.kh * g.kw, buf.data());
  return buf.data();
}

// An activation of ch channels and `plane` positions per sample in nhwc:
// `act` itself where g is channels-last, else a transposed copy.
template <typename T>
const T* nhwc(const ConvGeometry& g, const T* act, int64_t ch, int64_t plane, Scratch<T>& buf) {
  if (g.channels_last) return act;
  transpose(act, g.n, ch, plane, buf.data());
  return buf.data();
}

int64_t most_rows(const ConvGeometry& g, const std::vector<Tap>& taps) {
  int64_t most = 0;
  for (const Tap& t : taps) most = std::max(most, g.n * t.positions());
  return most;
}

// Note [Convolution by taps]: taken where at most this fraction of
// im2col's multiply-adds read the input. On ResNet-18 at 64x64 inputs (its
// 2x2 and 4x4 planes at 4/9 and 0.69) the step took 15% less time at one
// thread and 20% less at two, on AVX-512 and AVX2 alike; letting in its
// 8x8 planes (0.84) as well saved another 2% at one thread but cost 15% at
// two (the batch split of Note [Convolution threads] uses the two cores
// better than splitting each tap's GEMM).
constexpr double kMostUseful = 0.75;

}  // namespace

double conv_useful_fraction(const ConvGeometry& g) {
  const int64_t all = g.kh * g.kw * g.l();
  if (all == 0) return 1.0;
  // A tap's rectangle is its valid rows times its valid columns, so the
  // sum over taps is the product of the sums over kernel rows and columns.
  int64_t rows = 0, cols = 0;
  for (int64_t i = 0; i < g.kh; ++i) {
    const auto [lo, hi] = valid_outputs(g.oh, g.h, g.sh, i * g.dh - g.ph);
    rows += hi - lo;
  }
  for (int64_t j = 0; j < g.kw; ++j) {
    const auto [lo, hi] = valid_outputs(g.ow, g.w, g.sw, j * g.dw - g.pw);
    cols += hi - lo;
  }
  return static_cast<double>(rows * cols) / static_cast<double>(all);
}

bool use_conv_taps(const ConvGeometry& g) {
  if (g.groups != 1 || g.kh * g.kw == 1 || g.n * g.l() == 0 || g.c < 32 || g.co < 32 ||
      onednn::conv_pinned()) {
    return false;
  }
  return conv_useful_fraction(g) <= kMostUseful;
}

template <typename T>
void conv_taps_forward(const ConvGeometry& g, const T* x, const T* w, const T* bias, T* out) {
  const std::vector<Tap> taps = taps_of(g);
  const int64_t k = g.kh * g.kw, rows_max = most_rows(g, taps), out_rows = g.n * g.l();
  const bool rm = !g.channels_last;
  Scratch<T> wbuf(g.weight_channels_last ? 0 : g.co * k * g.c),
      xbuf(rm ? g.n * g.c * g.h * g.w : 0), abuf(rm ? out_rows * g.co : 0), xr(rows_max * g.c),
      yr(rows_max * g.co);
  const T* wo = weight_ohwi(g, w, wbuf);
  const T* xs = nhwc(g, x, g.c, g.h * g.w, xbuf);
  T* acc = rm ? abuf.data() : out;  // nhwc [n * oh * ow, co]
  for (int64_t r = 0; r < out_rows; ++r) {
    if (bias) {
      std::memcpy(acc + r * g.co, bias, g.co * sizeof(T));
    } else {
      std::fill(acc + r * g.co, acc + (r + 1) * g.co, T(0));
    }
  }
  for (const Tap& t : taps) {
    const int64_t rows = g.n * t.positions();
    if (rows == 0) continue;
    gather(g, t, input_plane(g, t), xs, g.c, xr.data());
    const T* wt = wo + t.index * g.c;  // W_t, rows k * c apart
    if (whole_plane(g, t)) {
      blas_gemm(false, true, rows, g.co, g.c, T(1), xr.data(), g.c, wt, k * g.c, T(1), acc, g.co);
    } else {
      blas_gemm(false, true, rows, g.co, g.c, T(1), xr.data(), g.c, wt, k * g.c, T(0), yr.data(),
                g.co);
      scatter_add(g, t, output_plane(g), yr.data(), g.co, acc);
    }
  }
  if (rm) transpose(acc, g.n, g.l(), g.co, out);
}

template <typename T>
void conv_taps_backward(const ConvGeometry& g, const T* gy, const T* x, const T* w, T* gx, T* gw) {
  if (!gx && !gw) return;
  const std::vector<Tap> taps = taps_of(g);
  const int64_t k = g.kh * g.kw, rows_max = most_rows(g, taps), in_plane = g.h * g.w;
  const bool rm = !g.channels_last;
  Scratch<T> gybuf(rm ? g.n * g.co * g.l() : 0), xbuf(rm && gw ? g.n * g.c * in_plane : 0),
      gxbuf(rm && gx ? g.n * g.c * in_plane : 0),
      wbuf(gx && !g.weight_channels_last ? g.co * k * g.c : 0), dwo(gw ? g.co * k * g.c : 0),
      gr(rows_max * g.co), xr(gw ? rows_max * g.c : 0), dxr(gx ? rows_max * g.c : 0);
  const T* gys = nhwc(g, gy, g.co, g.l(), gybuf);
  const T* xs = gw ? nhwc(g, x, g.c, in_plane, xbuf) : nullptr;
  const T* wo = gx ? weight_ohwi(g, w, wbuf) : nullptr;
  T* gxs = !gx ? nullptr : rm ? gxbuf.data() : gx;  // nhwc
  if (gx) std::fill(gxs, gxs + g.n * in_plane * g.c, T(0));
  for (const Tap& t : taps) {
    const int64_t rows = g.n * t.positions();
    T* dwt = gw ? dwo.data() + t.index * g.c : nullptr;  // gW_t in ohwi, rows k * c apart
    if (rows == 0) {                                     // the tap reads only padding: gW_t is zero
      if (gw) {
        for (int64_t o = 0; o < g.co; ++o) std::fill_n(dwt + o * k * g.c, g.c, T(0));
      }
      continue;
    }
    const T* grows = gys;
    if (!whole_plane(g, t)) {
      gather(g, t, output_plane(g), gys, g.co, gr.data());
      grows = gr.data();
    }
    if (gw) {
      gather(g, t, input_plane(g, t), xs, g.c, xr.data());
      blas_gemm(true, false, g.co, g.c, rows, T(1), grows, g.co, xr.data(), g.c, T(0), dwt,
                k * g.c);
    }
    if (gx) {
      blas_gemm(false, false, rows, g.c, g.co, T(1), grows, g.co, wo + t.index * g.c, k * g.c, T(0),
                dxr.data(), g.c);
      scatter_add(g, t, input_plane(g, t), dxr.data(), g.c, gxs);
    }
  }
  // The gradient is row-major whatever the weight's layout (Note [Result layout]).
  if (gw) transpose(dwo.data(), g.co, k, g.c, gw);  // [co][k][c] -> [co][c][k]
  if (gx && rm) transpose(gxs, g.n, in_plane, g.c, gx);
}

template void conv_taps_forward<float>(const ConvGeometry&, const float*, const float*,
                                       const float*, float*);
template void conv_taps_forward<double>(const ConvGeometry&, const double*, const double*,
                                        const double*, double*);
template void conv_taps_backward<float>(const ConvGeometry&, const float*, const float*,
                                        const float*, float*, float*);
template void conv_taps_backward<double>(const ConvGeometry&, const double*, const double*,
                                         const double*, double*, double*);

}  // namespace detail
}  // namespace ember
