#ifndef EMBER_TENSOR_GRID_SAMPLER_MATH_H_
#define EMBER_TENSOR_GRID_SAMPLER_MATH_H_

// The per-point arithmetic of grid_sampler_2d/3d and their backwards
// (tensor/grid_sampler.cc), shared by the CPU loops and the CUDA kernels
// (tensor/cuda/grid_sampler.cu, which nvcc compiles with this header as an
// extra input, as special_math.h). Header-only and free of ember's other
// headers so that nvcc can compile it for the device.
//
// Note [grid_sampler as 1.13 computes it]: PyTorch 1.13's CPU kernels are
// two different codes, and their results differ where the grid holds NaN or
// infinities; ember follows each.
//  - 2-D (the vectorized GridSamplerKernel.cpp): unnormalize as
//    (g + 1) * scale (- 0.5); clipping sends NaN to 0; reflection's NaN
//    stays NaN until that clip; every bilinear/bicubic tap is multiplied by
//    its weight even outside the input (read as 0), so a NaN or infinite
//    coordinate with zeros padding gives NaN; nearest rounds half to even.
//  - 3-D (the scalar GridSampler.cpp): unnormalize as ((g + 1) * size - 1)
//    / 2; clipping is min(size - 1, max(x, 0)), which sends NaN to size - 1;
//    taps outside the input are skipped, so NaN with zeros padding gives 0;
//    nearest rounds half away from zero (std::round).
// Bounds are tested on the floored coordinates in floating point before
// any integer conversion, so no coordinate is ever converted out of range.

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define EMBER_GS_HD __host__ __device__ __forceinline__
#else
#define EMBER_GS_HD inline
#endif

namespace ember {
namespace grid_sample {

// ATen's GridSamplerInterpolation / GridSamplerPadding values.
constexpr int64_t kBilinear = 0;
constexpr int64_t kNearest = 1;
constexpr int64_t kBicubic = 2;
constexpr int64_t kZeros = 0;
constexpr int64_t kBorder = 1;
constexpr int64_t kReflection = 2;

// Input [N, C, (D,) H, W] by strides; grid [N, (oD,) oH, oW, 2|3] by
// strides; output and gradients contiguous. 2-D: D = oD = 1, strides of D 0.
struct Geometry {
  int64_t N, C, D, H, W;
  int64_t oD, oH, oW;
  int64_t isN, isC, isD, isH, isW;
  int64_t gsN, gsD, gsH, gsW, gsK;
  int64_t interp, padding;
  bool align_corners;
  bool three_d;
  EMBER_GS_HD int64_t points() const { return oD * oH * oW; }
};

template <typename T>
EMBER_GS_HD bool finite_isnan(T x) {
  return x != x;
}

// --- 2-D: the vectorized kernel's coordinate rules -------------------------
template <typename T>
struct Loc2d {
  T max_val, scale, low, twice_span;
  bool empty;
  bool align;
  EMBER_GS_HD Loc2d(int64_t size, bool align_corners) : align(align_corners) {
    max_val = static_cast<T>(size - 1);
    if (align_corners) {
      scale = static_cast<T>(size - 1) / 2;
      low = 0;
      twice_span = static_cast<T>(size - 1) * 2;
      empty = size <= 1;
    } else {
      scale = static_cast<T>(size) / 2;
      low = static_cast<T>(-0.5);
      twice_span = static_cast<T>(size) * 2;
      empty = size <= 0;
    }
  }
  EMBER_GS_HD T unnormalize(T g) const {
    return align ? (g + 1) * scale : (g + 1) * scale - T(0.5);
  }
  // clamp_min(0, x) keeps 0 for NaN; clamp_max then bounds infinities.
  EMBER_GS_HD T clip(T x) const {
    T c = x > T(0) ? x : T(0);
    return c < max_val ? c : max_val;
  }
  EMBER_GS_HD T reflect(T x) const {
    if (align && empty) return 0;
    const T a = fabs(x - low);
    const T extra = a - trunc(a / twice_span) * twice_span;
    const T other = twice_span - extra;
    T m = extra < other ? extra : other;
    if (finite_isnan(extra) || finite_isnan(other)) m = extra + other;  // NaN propagates
    return m + low;
  }
  EMBER_GS_HD T coordinates(T x, int64_t padding) const {
    if (padding == kBorder) return clip(x);
    if (padding == kReflection) return clip(reflect(x));
    return x;
  }
  // The source coordinate and d(coordinate)/d(grid).
  EMBER_GS_HD T apply_get_grad(T g, int64_t padding, T* mult) const {
    T x = unnormalize(g);
    T m = scale;
    if (padding == kZeros) {
      *mult = m;
      return x;
    }
    if (padding == kReflection) {
      if (align && empty) {
        *mult = 0;
        return 0;
      }
      const T in = x - low;
      const bool neg = in < T(0);
      const T a = fabs(in);
      const T extra = a - trunc(a / twice_span) * twice_span;
      const T reflected = twice_span - extra;
      const bool flip = extra > reflected;
      x = (flip ? reflected : extra) + low;
      m = (flip != neg) ? -m : m;
    }
    // maximum/minimum propagate NaN; the borders count as outside.
    T lo = finite_isnan(x) ? x : (x > T(0) ? x : T(0));
    T res = finite_isnan(lo) ? lo : (lo < max_val ? lo : max_val);
    const bool inside = !(lo == T(0)) && !(res == max_val);
    *mult = inside ? m : T(0);
    return res;
  }
};

template <typename T>
EMBER_GS_HD bool in_bounds(T y, T x, int64_t H, int64_t W) {
  return x >= T(0) && x <= static_cast<T>(W - 1) && y >= T(0) && y <= static_cast<T>(H - 1);
}

template <typename T>
EMBER_GS_HD void cubic_coefficients(T c[4], T t) {
  const T A = T(-0.75);
  T x = t + 1;
  c[0] = ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;
  x = t;
  c[1] = ((A + 2) * x - (A + 3)) * x * x + 1;
  x = 1 - t;
  c[2] = ((A + 2) * x - (A + 3)) * x * x + 1;
  x = 2 - t;
  c[3] = ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;
}

template <typename T>
EMBER_GS_HD void cubic_coefficients_grad(T c[4], T t) {
  const T A = T(-0.75);
  T x = -1 - t;
  c[0] = (-3 * A * x - 10 * A) * x - 8 * A;
  x = 0 - t;
  c[1] = (-3 * (A + 2) * x - 2 * (A + 3)) * x;
  x = 1 - t;
  c[2] = (3 * (A + 2) * x - 2 * (A + 3)) * x;
  x = 2 - t;
  c[3] = (3 * A * x - 10 * A) * x + 8 * A;
}

// The four bilinear taps around (x, y) (nw, ne, sw, se; n: y0, w: x0), as
// the forward and the backward both need them: the distances, the weights,
// which taps lie inside the input, and their integer coordinates (0 for a
// row or column with no tap inside, so nothing out of range is converted).
template <typename T>
struct Bilinear2d {
  T w, e, n, s;      // x - x0, 1 - w, y - y0, 1 - n
  T nw, ne, sw, se;  // the weights
  bool onw, one, osw, ose;
  int64_t ix, iy, ix1, iy1;
  EMBER_GS_HD Bilinear2d(T x, T y, int64_t H, int64_t W) {
    const T x0 = floor(x), y0 = floor(y);
    w = x - x0;
    e = 1 - w;
    n = y - y0;
    s = 1 - n;
    nw = s * e;
    ne = s * w;
    sw = n * e;
    se = n * w;
    onw = in_bounds(y0, x0, H, W);
    one = in_bounds(y0, x0 + 1, H, W);
    osw = in_bounds(y0 + 1, x0, H, W);
    ose = in_bounds(y0 + 1, x0 + 1, H, W);
    ix = onw || osw ? static_cast<int64_t>(x0) : 0;
    iy = onw || one ? static_cast<int64_t>(y0) : 0;
    ix1 = one || ose ? static_cast<int64_t>(x0) + 1 : 0;
    iy1 = osw || ose ? static_cast<int64_t>(y0) + 1 : 0;
  }
  // The taps' values in one channel p (strides sH, sW); 0 outside.
  EMBER_GS_HD void read(const T* p, int64_t sH, int64_t sW, T* vnw, T* vne, T* vsw, T* vse) const {
    *vnw = onw ? p[iy * sH + ix * sW] : T(0);
    *vne = one ? p[iy * sH + ix1 * sW] : T(0);
    *vsw = osw ? p[iy1 * sH + ix * sW] : T(0);
    *vse = ose ? p[iy1 * sH + ix1 * sW] : T(0);
  }
};

// One output point of grid_sampler_2d: all C channels. in: the batch's
// input; out: the point's first channel, channels out_sC apart.
template <typename T>
EMBER_GS_HD void sample_2d(const Geometry& g, const T* in, T gx, T gy, T* out, int64_t out_sC) {
  const Loc2d<T> lw(g.W, g.align_corners), lh(g.H, g.align_corners);
  if (g.interp == kBicubic) {
    const T x = lw.unnormalize(gx), y = lh.unnormalize(gy);
    const T ix = floor(x), iy = floor(y);
    T cx[4], cy[4];
    cubic_coefficients(cx, x - ix);
    cubic_coefficients(cy, y - iy);
    int64_t off[4][4];
    bool ok[4][4];
    for (int j = 0; j < 4; ++j) {
      const T yy = lh.coordinates(iy + T(j - 1), g.padding);
      for (int i = 0; i < 4; ++i) {
        const T xx = lw.coordinates(ix + T(i - 1), g.padding);
        ok[j][i] = in_bounds(yy, xx, g.H, g.W);
        off[j][i] =
            ok[j][i] ? static_cast<int64_t>(yy) * g.isH + static_cast<int64_t>(xx) * g.isW : 0;
      }
    }
    for (int64_t c = 0; c < g.C; ++c) {
      const T* p = in + c * g.isC;
      T row[4];
      for (int j = 0; j < 4; ++j) {
        T v[4];
        for (int i = 0; i < 4; ++i) v[i] = ok[j][i] ? p[off[j][i]] : T(0);
        row[j] = cx[0] * v[0] + cx[1] * v[1] + cx[2] * v[2] + cx[3] * v[3];
      }
      out[c * out_sC] = cy[0] * row[0] + cy[1] * row[1] + cy[2] * row[2] + cy[3] * row[3];
    }
    return;
  }
  const T x = lw.coordinates(lw.unnormalize(gx), g.padding);
  const T y = lh.coordinates(lh.unnormalize(gy), g.padding);
  if (g.interp == kNearest) {
    const T nx = nearbyint(x), ny = nearbyint(y);
    const bool ok = in_bounds(ny, nx, g.H, g.W);
    const int64_t o = ok ? static_cast<int64_t>(ny) * g.isH + static_cast<int64_t>(nx) * g.isW : 0;
    for (int64_t c = 0; c < g.C; ++c) out[c * out_sC] = ok ? in[c * g.isC + o] : T(0);
    return;
  }
  const Bilinear2d<T> b(x, y, g.H, g.W);
  for (int64_t c = 0; c < g.C; ++c) {
    T vnw, vne, vsw, vse;
    b.read(in + c * g.isC, g.isH, g.isW, &vnw, &vne, &vsw, &vse);
    out[c * out_sC] = vnw * b.nw + vne * b.ne + vsw * b.sw + vse * b.se;
  }
}

// The gradients of one output point of grid_sampler_2d: gin (the batch's
// contiguous [C, H, W] gradient, or null) receives through add(ptr, v);
// ggrid[0], ggrid[1] get d/dgx, d/dgy. gout: the point's first channel.
template <typename T, typename Add>
EMBER_GS_HD void sample_2d_backward(const Geometry& g, const T* in, const T* gout, int64_t gout_sC,
                                    T* gin, T gx, T gy, T* ggrid, Add add) {
  const Loc2d<T> lw(g.W, g.align_corners), lh(g.H, g.align_corners);
  const int64_t HW = g.H * g.W;
  if (g.interp == kBicubic) {
    const T x = lw.unnormalize(gx), y = lh.unnormalize(gy);
    const T ix = floor(x), iy = floor(y);
    const T tx = x - ix, ty = y - iy;
    T cx[4], cy[4], dx[4], dy[4];
    cubic_coefficients(cx, tx);
    cubic_coefficients(cy, ty);
    cubic_coefficients_grad(dx, tx);
    cubic_coefficients_grad(dy, ty);
    T sx = 0, sy = 0;
    for (int64_t c = 0; c < g.C; ++c) {
      const T go = gout[c * gout_sC];
      const T* p = in + c * g.isC;
      for (int i = 0; i < 4; ++i) {
        const T xx = lw.coordinates(ix + T(i - 1), g.padding);
        for (int j = 0; j < 4; ++j) {
          const T yy = lh.coordinates(iy + T(j - 1), g.padding);
          const bool ok = in_bounds(yy, xx, g.H, g.W);
          const int64_t px = ok ? static_cast<int64_t>(xx) : 0,
                        py = ok ? static_cast<int64_t>(yy) : 0;
          if (gin != nullptr && ok) add(gin + c * HW + py * g.W + px, go * cx[i] * cy[j]);
          const T v = ok ? p[py * g.isH + px * g.isW] : T(0);
          sx = sx - v * go * dx[i] * cy[j];
          sy = sy - v * go * dy[j] * cx[i];
        }
      }
    }
    ggrid[0] = sx * lw.scale;
    ggrid[1] = sy * lh.scale;
    return;
  }
  if (g.interp == kNearest) {
    if (gin != nullptr) {
      const T x = lw.coordinates(lw.unnormalize(gx), g.padding);
      const T y = lh.coordinates(lh.unnormalize(gy), g.padding);
      const T nx = nearbyint(x), ny = nearbyint(y);
      if (in_bounds(ny, nx, g.H, g.W)) {
        const int64_t o = static_cast<int64_t>(ny) * g.W + static_cast<int64_t>(nx);
        for (int64_t c = 0; c < g.C; ++c) add(gin + c * HW + o, gout[c * gout_sC]);
      }
    }
    ggrid[0] = 0;
    ggrid[1] = 0;
    return;
  }
  T mx, my;
  const T x = lw.apply_get_grad(gx, g.padding, &mx);
  const T y = lh.apply_get_grad(gy, g.padding, &my);
  const Bilinear2d<T> b(x, y, g.H, g.W);
  T sx = 0, sy = 0;
  for (int64_t c = 0; c < g.C; ++c) {
    const T go = gout[c * gout_sC];
    if (gin != nullptr) {
      T* q = gin + c * HW;
      if (b.onw) add(q + b.iy * g.W + b.ix, go * b.nw);
      if (b.one) add(q + b.iy * g.W + b.ix1, go * b.ne);
      if (b.osw) add(q + b.iy1 * g.W + b.ix, go * b.sw);
      if (b.ose) add(q + b.iy1 * g.W + b.ix1, go * b.se);
    }
    T vnw, vne, vsw, vse;
    b.read(in + c * g.isC, g.isH, g.isW, &vnw, &vne, &vsw, &vse);
    sx = sx + ((vne - vnw) * b.s + (vse - vsw) * b.n) * go;
    sy = sy + ((vsw - vnw) * b.e + (vse - vne) * b.w) * go;
  }
  ggrid[0] = sx * mx;
  ggrid[1] = sy * my;
}

// --- 3-D: the scalar kernel's coordinate rules -----------------------------
template <typename T>
EMBER_GS_HD T unnormalize_3d(T g, int64_t size, bool align) {
  return align ? ((g + 1) / 2) * static_cast<T>(size - 1)
               : ((g + 1) * static_cast<T>(size) - 1) / 2;
}
// min(size - 1, max(x, 0)) as std::min/std::max order them (NaN -> size - 1).
template <typename T>
EMBER_GS_HD T clip_3d(T x, int64_t size) {
  const T c = x < T(0) ? T(0) : x;
  const T hi = static_cast<T>(size - 1);
  return c < hi ? c : hi;
}
// Reflection about [twice_low / 2, twice_high / 2]; *sign: d/dx (+-1).
template <typename T>
EMBER_GS_HD T reflect_3d(T in, int64_t twice_low, int64_t twice_high, T* sign) {
  if (twice_low == twice_high) {
    *sign = 0;
    return 0;
  }
  const T lo = static_cast<T>(twice_low) / 2;
  const T span = static_cast<T>(twice_high - twice_low) / 2;
  in = in - lo;
  T s = 1;
  if (in < T(0)) {
    s = -1;
    in = -in;
  }
  const T extra = fmod(in, span);
  const T flips = floor(in / span);
  const bool odd = fmod(flips, T(2)) != T(0);
  *sign = odd ? -s : s;
  return odd ? span - extra + lo : extra + lo;
}
// The source coordinate and, when mult is given, d(coordinate)/d(grid).
template <typename T>
EMBER_GS_HD T source_3d(T g, int64_t size, int64_t padding, bool align, T* mult) {
  T x = unnormalize_3d(g, size, align);
  T m = align ? static_cast<T>(size - 1) / 2 : static_cast<T>(size) / 2;
  if (padding == kReflection) {
    T s;
    x = align ? reflect_3d(x, 0, 2 * (size - 1), &s) : reflect_3d(x, -1, 2 * size - 1, &s);
    m = m * s;
  }
  if (padding == kBorder || padding == kReflection) {
    // clip_coordinates_set_grad: the borders count as outside.
    const T hi = static_cast<T>(size - 1);
    if (x <= T(0)) {
      x = 0;
      m = 0;
    } else if (x >= hi) {
      x = hi;
      m = 0;
    } else if (mult == nullptr) {
      x = clip_3d(x, size);  // NaN -> size - 1, as the forward's clip
    }
  }
  if (mult != nullptr) *mult = m;
  return x;
}

template <typename T>
EMBER_GS_HD bool in_bounds_3d(T z, T y, T x, int64_t D, int64_t H, int64_t W) {
  return in_bounds(y, x, H, W) && z >= T(0) && z <= static_cast<T>(D - 1);
}

// The eight trilinear corners from (x0, y0, z0) in ATen's order (bit 0: x1,
// bit 1: y1, bit 2: z1): which lie inside, their offsets in the input (by
// its strides) and, when goff is given, in a contiguous [D, H, W]; 0 for a
// corner outside.
template <typename T>
EMBER_GS_HD void corners_3d(const Geometry& g, T x0, T y0, T z0, bool ok[8], int64_t off[8],
                            int64_t* goff) {
  for (int k = 0; k < 8; ++k) {
    const T cx = (k & 1) ? x0 + 1 : x0, cy = (k & 2) ? y0 + 1 : y0, cz = (k & 4) ? z0 + 1 : z0;
    ok[k] = in_bounds_3d(cz, cy, cx, g.D, g.H, g.W);
    const int64_t ix = ok[k] ? static_cast<int64_t>(cx) : 0,
                  iy = ok[k] ? static_cast<int64_t>(cy) : 0,
                  iz = ok[k] ? static_cast<int64_t>(cz) : 0;
    off[k] = iz * g.isD + iy * g.isH + ix * g.isW;
    if (goff != nullptr) goff[k] = (iz * g.H + iy) * g.W + ix;
  }
}

template <typename T>
EMBER_GS_HD void sample_3d(const Geometry& g, const T* in, T gx, T gy, T gz, T* out,
                           int64_t out_sC) {
  const T x = source_3d(gx, g.W, g.padding, g.align_corners, static_cast<T*>(nullptr));
  const T y = source_3d(gy, g.H, g.padding, g.align_corners, static_cast<T*>(nullptr));
  const T z = source_3d(gz, g.D, g.padding, g.align_corners, static_cast<T*>(nullptr));
  if (g.interp == kNearest) {
    const T nx = round(x), ny = round(y), nz = round(z);
    const bool ok = in_bounds_3d(nz, ny, nx, g.D, g.H, g.W);
    const int64_t o = ok ? static_cast<int64_t>(nz) * g.isD + static_cast<int64_t>(ny) * g.isH +
                               static_cast<int64_t>(nx) * g.isW
                         : 0;
    for (int64_t c = 0; c < g.C; ++c) out[c * out_sC] = ok ? in[c * g.isC + o] : T(0);
    return;
  }
  const T x0 = floor(x), y0 = floor(y), z0 = floor(z);
  const T x1 = x0 + 1, y1 = y0 + 1, z1 = z0 + 1;
  // Corners in ATen's order: tnw tne tsw tse bnw bne bsw bse (t: z0, n: y0, w: x0).
  T wt[8];
  wt[0] = (x1 - x) * (y1 - y) * (z1 - z);
  wt[1] = (x - x0) * (y1 - y) * (z1 - z);
  wt[2] = (x1 - x) * (y - y0) * (z1 - z);
  wt[3] = (x - x0) * (y - y0) * (z1 - z);
  wt[4] = (x1 - x) * (y1 - y) * (z - z0);
  wt[5] = (x - x0) * (y1 - y) * (z - z0);
  wt[6] = (x1 - x) * (y - y0) * (z - z0);
  wt[7] = (x - x0) * (y - y0) * (z - z0);
  bool ok[8];
  int64_t off[8];
  corners_3d(g, x0, y0, z0, ok, off, static_cast<int64_t*>(nullptr));
  for (int64_t c = 0; c < g.C; ++c) {
    const T* p = in + c * g.isC;
    T acc = 0;
    for (int k = 0; k < 8; ++k) {
      if (ok[k]) acc += p[off[k]] * wt[k];
    }
    out[c * out_sC] = acc;
  }
}

template <typename T, typename Add>
EMBER_GS_HD void sample_3d_backward(const Geometry& g, const T* in, const T* gout, int64_t gout_sC,
                                    T* gin, T gx, T gy, T gz, T* ggrid, Add add) {
  const int64_t DHW = g.D * g.H * g.W;
  T mx, my, mz;
  const T x = source_3d(gx, g.W, g.padding, g.align_corners, &mx);
  const T y = source_3d(gy, g.H, g.padding, g.align_corners, &my);
  const T z = source_3d(gz, g.D, g.padding, g.align_corners, &mz);
  if (g.interp == kNearest) {
    if (gin != nullptr) {
      const T nx = round(x), ny = round(y), nz = round(z);
      if (in_bounds_3d(nz, ny, nx, g.D, g.H, g.W)) {
        const int64_t o = (static_cast<int64_t>(nz) * g.H + static_cast<int64_t>(ny)) * g.W +
                          static_cast<int64_t>(nx);
        for (int64_t c = 0; c < g.C; ++c) add(gin + c * DHW + o, gout[c * gout_sC]);
      }
    }
    ggrid[0] = ggrid[1] = ggrid[2] = 0;
    return;
  }
  const T x0 = floor(x), y0 = floor(y), z0 = floor(z);
  const T x1 = x0 + 1, y1 = y0 + 1, z1 = z0 + 1;
  // Distances to the far (a) and near (b) side of each axis.
  const T ax[2] = {x1 - x, x - x0}, ay[2] = {y1 - y, y - y0}, az[2] = {z1 - z, z - z0};
  const T sgn[2] = {-1, 1};
  bool ok[8];
  int64_t off[8], goff[8];
  corners_3d(g, x0, y0, z0, ok, off, goff);
  T sx = 0, sy = 0, sz = 0;
  for (int64_t c = 0; c < g.C; ++c) {
    const T go = gout[c * gout_sC];
    const T* p = in + c * g.isC;
    for (int k = 0; k < 8; ++k) {
      if (!ok[k]) continue;
      const int bx = k & 1, by = (k >> 1) & 1, bz = (k >> 2) & 1;
      if (gin != nullptr) add(gin + c * DHW + goff[k], ax[bx] * ay[by] * az[bz] * go);
      const T v = p[off[k]] * go;
      sx += sgn[bx] * v * ay[by] * az[bz];
      sy += sgn[by] * v * ax[bx] * az[bz];
      sz += sgn[bz] * v * ax[bx] * ay[by];
    }
  }
  ggrid[0] = sx * mx;
  ggrid[1] = sy * my;
  ggrid[2] = sz * mz;
}

}  // namespace grid_sample
}  // namespace ember

#undef EMBER_GS_HD

#endif  // EMBER_TENSOR_GRID_SAMPLER_MATH_H_
