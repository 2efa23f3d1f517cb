// convolution: im2col + GEMM (Note [Convolution by im2col]), the route each
// pass takes (oneDNN: conv_onednn.cc; small planes: conv_taps.cc), and the ops.
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tensor/autocast.h"
#include "tensor/autograd_hook.h"
#include "tensor/blas.h"
#include "tensor/conv_cpu.h"
#include "tensor/conv_kernels.h"
#include "tensor/conv_taps.h"
#include "tensor/copy.h"
#include "tensor/dispatch.h"
#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/nn_ops.h"
#include "tensor/nn_util.h"
#include "tensor/onednn.h"
#include "tensor/parallel.h"
#include "tensor/record_function.h"
#include "tensor/shape.h"

namespace ember {
namespace {

// Note [Convolution by im2col]: a chunk of the batch is unfolded into one
// column matrix col[C * KH * KW, nb * OH * OW] and multiplied by each
// group's weight rows in ONE GEMM, so the GEMM sees wide matrices (the
// LeNet-sized layers of the benchmark are too small per sample to keep
// oneDNN busy); threads: Note [Convolution threads]. The batch is chunked
// so that col stays under kColBudget elements. 1-D convolution is the 2-D
// one with H = 1.
// 2 MiB of float: with 32 MiB the LeNet step peaked 17 MiB above libtorch
// (col and its result held across the batch) and ran no faster.
constexpr int64_t kColBudget = int64_t{1} << 19;

using Geometry = detail::ConvGeometry;

// The output columns ox whose input column ox * sw + off lies inside the
// row, [lo, hi): the rest read padding. The same for every row of a kernel
// column kj, so computed once per (plane, kj): the copies below run without
// a bounds test per element (and without a division per row).
inline std::pair<int64_t, int64_t> valid_columns(const Geometry& g, int64_t off) {
  return detail::valid_outputs(g.ow, g.w, g.sw, off);
}

// Note [Short rows]: im2col and col2im move one output row at a time, 8
// to 24 elements in LeNet's layers. std::copy became a memmove call per
// row, which perf showed costing more than the copying; float rows are
// copied with AVX2 loads and stores (a masked one for the rest), and
// col2im's sums vectorize in place (src and dst never overlap).
#if defined(__AVX2__)
// The mask of a vector's first n lanes (n in [0, 8]) for maskload/store.
inline __m256i first_lanes(int64_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
#endif

template <typename T>
inline void copy_row(const T* __restrict src, T* __restrict dst, int64_t lo, int64_t hi) {
#if defined(__AVX2__)
  if constexpr (std::is_same<T, float>::value) {
    // Explicit vectors; GCC turned a plain copy loop, and this one, back
    // into a memmove call, unless the index is opaque to it.
    int64_t i = lo;
    for (; i + 8 <= hi; i += 8) {
      _mm256_storeu_ps(dst + i, _mm256_loadu_ps(src + i));
      __asm__("" : "+r"(i));
    }
    if (i < hi) {
      const __m256i mask = first_lanes(hi - i);
      _mm256_maskstore_ps(dst + i, mask, _mm256_maskload_ps(src + i, mask));
    }
    return;
  }
#endif
  std::copy(src + lo, src + hi, dst + lo);
}
template <typename T>
inline void add_row(const T* __restrict src, T* __restrict dst, int64_t lo, int64_t hi) {
  for (int64_t i = lo; i < hi; ++i) dst[i] += src[i];
}

// Stride 1, no padding, no dilation (LeNet's layers, every "valid"
// convolution): each of a unit's oh rows is ow elements read from one
// input row, never padding, so the copies are all there is.
bool dense_rows(const Geometry& g) {
  return g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0 && g.dh == 1 && g.dw == 1;
}

#if defined(__AVX2__)
// Note [Short rows]: oh rows of ow floats from rows `stride` apart into
// consecutive rows (add: dst += src, for col2im), the row's vectors and
// its tail mask worked out once.
struct RowCopier {
  int64_t full;
  __m256i tail;
  bool has_tail;
  explicit RowCopier(int64_t ow) : full(ow / 8), tail(first_lanes(ow % 8)), has_tail(ow % 8 != 0) {}
  void gather(const float* src, int64_t stride, float* dst, int64_t rows, int64_t ow) const {
    for (int64_t r = 0; r < rows; ++r, src += stride, dst += ow) {
      for (int64_t v = 0; v < full; ++v)
        _mm256_storeu_ps(dst + 8 * v, _mm256_loadu_ps(src + 8 * v));
      if (has_tail) {
        _mm256_maskstore_ps(dst + 8 * full, tail, _mm256_maskload_ps(src + 8 * full, tail));
      }
    }
  }
  void scatter_add(const float* src, float* dst, int64_t stride, int64_t rows, int64_t ow) const {
    for (int64_t r = 0; r < rows; ++r, src += ow, dst += stride) {
      for (int64_t v = 0; v < full; ++v) {
        _mm256_storeu_ps(dst + 8 * v,
                         _mm256_add_ps(_mm256_loadu_ps(dst + 8 * v), _mm256_loadu_ps(src + 8 * v)));
      }
      if (has_tail) {
        float* d = dst + 8 * full;
        _mm256_maskstore_ps(
            d, tail,
            _mm256_add_ps(_mm256_maskload_ps(d, tail), _mm256_maskload_ps(src + 8 * full, tail)));
      }
    }
  }
};
#endif

template <typename T>
void im2col(const Geometry& geom, const T* x, int64_t n0, int64_t nb, T* col) {
  const int64_t L = geom.l(), kk = geom.kh * geom.kw, cols = nb * L;
  const int64_t units = geom.ckk() * nb;
#if defined(__AVX2__)
  const bool dense = std::is_same<T, float>::value && dense_rows(geom);
  const RowCopier rows(geom.ow);
#endif
  parallel_for(0, units, std::max<int64_t>(1, 4096 / std::max<int64_t>(L, 1)),
               [&](int64_t b, int64_t e) {
                 const Geometry g = geom;  // local: stores through col cannot alias it
                 for (int64_t u = b; u < e; ++u) {
                   const int64_t r = u / nb, n = u % nb;
                   const int64_t c = r / kk, ki = (r % kk) / g.kw, kj = r % g.kw;
                   const T* plane = x + ((n0 + n) * g.c + c) * g.h * g.w;
                   T* dst = col + r * cols + n * L;
#if defined(__AVX2__)
                   if constexpr (std::is_same<T, float>::value) {
                     if (dense) {  // every row inside the input: copies only
                       rows.gather(plane + ki * g.w + kj, g.w, dst, g.oh, g.ow);
                       continue;
                     }
                   }
#endif
                   const int64_t off = kj * g.dw - g.pw;
                   const auto [lo, hi] = valid_columns(g, off);
                   for (int64_t oy = 0; oy < g.oh; ++oy) {
                     const int64_t iy = oy * g.sh - g.ph + ki * g.dh;
                     T* row = dst + oy * g.ow;
                     if (iy < 0 || iy >= g.h) {
                       std::fill(row, row + g.ow, T(0));
                       continue;
                     }
                     const T* src = plane + iy * g.w;
                     std::fill(row, row + lo, T(0));
                     if (g.sw == 1) {
                       // A loop, not std::copy: rows are short (8-24
                       // elements in LeNet), and memmove's call cost more
                       // than the copy (Note [Short rows]).
                       copy_row(src + off, row, lo, hi);
                     } else {
                       for (int64_t ox = lo; ox < hi; ++ox) row[ox] = src[ox * g.sw + off];
                     }
                     std::fill(row + hi, row + g.ow, T(0));
                   }
                 }
               });
}

// Adds col back into gx (the adjoint of im2col); one (n, c) plane per unit
// so that no two threads write the same element.
template <typename T>
void col2im(const Geometry& geom, const T* col, int64_t n0, int64_t nb, T* gx) {
  const int64_t L = geom.l(), cols = nb * L;
#if defined(__AVX2__)
  const bool dense = std::is_same<T, float>::value && dense_rows(geom);
  const RowCopier rows(geom.ow);
#endif
  parallel_for(0, nb * geom.c, 1, [&](int64_t b, int64_t e) {
    const Geometry g = geom;  // local: stores through gx cannot alias it
    for (int64_t u = b; u < e; ++u) {
      const int64_t n = u / g.c, c = u % g.c;
      T* plane = gx + ((n0 + n) * g.c + c) * g.h * g.w;
      for (int64_t ki = 0; ki < g.kh; ++ki) {
        for (int64_t kj = 0; kj < g.kw; ++kj) {
          const int64_t r = (c * g.kh + ki) * g.kw + kj;
          const T* src = col + r * cols + n * L;
#if defined(__AVX2__)
          if constexpr (std::is_same<T, float>::value) {
            if (dense) {
              rows.scatter_add(src, plane + ki * g.w + kj, g.w, g.oh, g.ow);
              continue;
            }
          }
#endif
          const int64_t off = kj * g.dw - g.pw;
          const auto [lo, hi] = valid_columns(g, off);
          for (int64_t oy = 0; oy < g.oh; ++oy) {
            const int64_t iy = oy * g.sh - g.ph + ki * g.dh;
            if (iy < 0 || iy >= g.h) continue;
            T* dst = plane + iy * g.w;
            const T* s = src + oy * g.ow;
            if (g.sw == 1) {
              add_row(s, dst + off, lo, hi);
            } else {
              for (int64_t ox = lo; ox < hi; ++ox) dst[ox * g.sw + off] += s[ox];
            }
          }
        }
      }
    }
  });
}

int64_t chunk_of(const Geometry& g) {
  const int64_t per_sample = std::max<int64_t>(1, g.ckk() * g.l());
  return std::max<int64_t>(1, std::min(g.n, kColBudget / per_sample));
}

// Samples [s0, s1) of the batch: through oneDNN's primitive where the rule
// says so, else im2col in chunks of at most chunk_of(g).
template <typename T>
void conv_forward_range(const Geometry& g, const T* x, const T* w, const T* bias, T* out,
                        int64_t s0, int64_t s1) {
  if constexpr (std::is_same<T, float>::value) {
    using detail::onednn::ConvPass;
    const detail::onednn::ConvShape s = detail::conv_shape(g, s0, s1);
    if (detail::onednn::use_conv(s, ConvPass::kForward) &&
        detail::onednn::conv_forward(s, x + s0 * g.c * g.h * g.w, w, bias,
                                     out + s0 * g.co * g.l())) {
      return;
    }
  }
  const int64_t L = g.l(), cg = g.c / g.groups, cog = g.co / g.groups;
  const int64_t kg = cg * g.kh * g.kw;
  const int64_t chunk = std::min(chunk_of(g), s1 - s0);
  detail::ConvScratch<T> col(g.ckk() * chunk * L), res(g.co * chunk * L);
  for (int64_t n0 = s0; n0 < s1; n0 += chunk) {
    const int64_t nb = std::min(chunk, s1 - n0), cols = nb * L;
    im2col(g, x, n0, nb, col.data());
    for (int64_t gr = 0; gr < g.groups; ++gr) {
      detail::blas_gemm(false, false, cog, cols, kg, T(1), w + gr * cog * kg, kg,
                      col.data() + gr * kg * cols, cols, T(0), res.data() + gr * cog * cols, cols);
    }
    // res[co, n, l] -> out[n, co, l] (+ bias).
    parallel_for(0, nb * g.co, std::max<int64_t>(1, 4096 / std::max<int64_t>(L, 1)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t u = b; u < e; ++u) {
                     const int64_t n = u / g.co, co = u % g.co;
                     const T* src = res.data() + co * cols + n * L;
                     T* dst = out + ((n0 + n) * g.co + co) * L;
                     const T add = bias ? bias[co] : T(0);
                     for (int64_t l = 0; l < L; ++l) dst[l] = src[l] + add;
                   }
                 });
  }
}

// gx and gw (each optional) over samples [s0, s1); both are overwritten
// (gx only in those samples' rows).
template <typename T>
void conv_backward_range(const Geometry& g, const T* gy, const T* x, const T* w, T* gx, T* gw,
                         int64_t s0, int64_t s1) {
  const int64_t in_sample = g.c * g.h * g.w;
  if constexpr (std::is_same<T, float>::value) {
    using detail::onednn::ConvPass;
    const detail::onednn::ConvShape s = detail::conv_shape(g, s0, s1);
    const T* gys = gy + s0 * g.co * g.l();
    if (gw && detail::onednn::use_conv(s, ConvPass::kBackwardWeights) &&
        detail::onednn::conv_backward_weights(s, gys, x + s0 * in_sample, gw)) {
      gw = nullptr;
    }
    if (gx && detail::onednn::use_conv(s, ConvPass::kBackwardData) &&
        detail::onednn::conv_backward_data(s, gys, w, gx + s0 * in_sample)) {
      gx = nullptr;
    }
    if (!gw && !gx) return;
  }
  // col2im adds into gx.
  if (gx) std::fill(gx + s0 * in_sample, gx + s1 * in_sample, T(0));
  const int64_t L = g.l(), cg = g.c / g.groups, cog = g.co / g.groups;
  const int64_t kg = cg * g.kh * g.kw;
  const int64_t chunk = std::min(chunk_of(g), s1 - s0);
  detail::ConvScratch<T> col(g.ckk() * chunk * L), gym(g.co * chunk * L);
  for (int64_t n0 = s0; n0 < s1; n0 += chunk) {
    const int64_t nb = std::min(chunk, s1 - n0), cols = nb * L;
    // gy[n, co, l] -> gym[co, n, l]
    parallel_for(0, nb * g.co, std::max<int64_t>(1, 4096 / std::max<int64_t>(L, 1)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t u = b; u < e; ++u) {
                     const int64_t n = u / g.co, co = u % g.co;
                     std::memcpy(gym.data() + co * cols + n * L, gy + ((n0 + n) * g.co + co) * L,
                                 L * sizeof(T));
                   }
                 });
    if (gw) {
      im2col(g, x, n0, nb, col.data());
      for (int64_t gr = 0; gr < g.groups; ++gr) {
        detail::blas_gemm(false, true, cog, kg, cols, T(1), gym.data() + gr * cog * cols, cols,
                        col.data() + gr * kg * cols, cols, n0 == s0 ? T(0) : T(1),
                        gw + gr * cog * kg, kg);
      }
    }
    if (gx) {
      for (int64_t gr = 0; gr < g.groups; ++gr) {
        detail::blas_gemm(true, false, kg, cols, cog, T(1), w + gr * cog * kg, kg,
                        gym.data() + gr * cog * cols, cols, T(0), col.data() + gr * kg * cols,
                        cols);
      }
      col2im(g, col.data(), n0, nb, gx);
    }
  }
}

template <typename T>
void conv_forward(const Geometry& g, const T* x, const T* w, const T* bias, T* out) {
  const int64_t parts = detail::conv_parts<T>(g);
  if (parts == 1) return conv_forward_range(g, x, w, bias, out, 0, g.n);
  parallel_for(0, parts, 1, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      conv_forward_range(g, x, w, bias, out, g.n * p / parts, g.n * (p + 1) / parts);
    }
  });
}

template <typename T>
void conv_backward(const Geometry& g, const T* gy, const T* x, const T* w, T* gx, T* gw) {
  if (!gx && !gw) return;
  const int64_t parts = detail::conv_parts<T>(g);
  if (parts == 1) return conv_backward_range(g, gy, x, w, gx, gw, 0, g.n);
  // Each part writes its own samples of gx and its own partial gw (part 0
  // straight into gw), summed afterwards.
  const int64_t wsize = g.co * (g.c / g.groups) * g.kh * g.kw;
  detail::ConvScratch<T> partial(gw ? (parts - 1) * wsize : 1);
  parallel_for(0, parts, 1, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      T* pgw = !gw ? nullptr : p == 0 ? gw : partial.data() + (p - 1) * wsize;
      conv_backward_range(g, gy, x, w, gx, pgw, g.n * p / parts, g.n * (p + 1) / parts);
    }
  });
  if (gw) {
    for (int64_t p = 1; p < parts; ++p) {
      const T* src = partial.data() + (p - 1) * wsize;
      for (int64_t i = 0; i < wsize; ++i) gw[i] += src[i];
    }
  }
}

// Checks arguments as PyTorch's convolution does and computes the geometry.
Geometry make_geometry(const Tensor& input, const Tensor& weight, const Tensor& bias,
                       IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                       int64_t groups) {
  const int64_t k = weight.dim() - 2;
  EMBER_CHECK(k == 1 || k == 2, "convolution: only 1-D and 2-D convolutions are supported");
  EMBER_CHECK(input.dim() == weight.dim(), "Expected ", weight.dim(), "-dimensional input for ",
              weight.dim(), "-dimensional weight ", detail::bracketed(weight.sizes()), ", but got ",
              input.dim(), "-dimensional input of size ", detail::bracketed(input.sizes()),
              " instead");
  EMBER_CHECK(static_cast<int64_t>(stride.size()) == k &&
                  static_cast<int64_t>(padding.size()) == k &&
                  static_cast<int64_t>(dilation.size()) == k,
              "convolution: expected stride, padding and dilation of length ", k);
  for (int64_t s : stride) EMBER_CHECK(s > 0, "non-positive stride is not supported");
  for (int64_t p : padding) EMBER_CHECK(p >= 0, "negative padding is not supported");
  for (int64_t d : dilation) {
    EMBER_CHECK(d > 0, "dilation should be greater than zero, but got ",
                detail::bracketed(dilation));
  }
  EMBER_CHECK(groups > 0, "non-positive groups is not supported");
  EMBER_CHECK(input.dtype() == weight.dtype(), "expected scalar type ",
              scalar_type_name(input.dtype()), " but found ", scalar_type_name(weight.dtype()));
  EMBER_CHECK(weight.size(0) % groups == 0, "Given groups=", groups,
              ", expected weight to be divisible by ", groups,
              " at dimension 0, but got weight of size [", detail::bracketed(weight.sizes()),
              "] instead");  // PyTorch's doubled brackets
  EMBER_CHECK(input.size(1) == weight.size(1) * groups, "Given groups=", groups,
              ", weight of size ", detail::bracketed(weight.sizes()), ", expected input",
              detail::bracketed(input.sizes()), " to have ", weight.size(1) * groups,
              " channels, but got ", input.size(1), " channels instead");
  if (bias.defined()) {
    EMBER_CHECK(bias.dim() == 1 && bias.size(0) == weight.size(0), "Given weight of size ",
                detail::bracketed(weight.sizes()), ", expected bias to be 1-dimensional with ",
                weight.size(0), " elements, but got bias of size ", detail::bracketed(bias.sizes()),
                " instead");
  }
  Geometry g;
  g.n = input.size(0);
  g.c = input.size(1);
  g.co = weight.size(0);
  g.groups = groups;
  const bool one_d = k == 1;
  g.h = one_d ? 1 : input.size(2);
  g.w = input.size(-1);
  g.kh = one_d ? 1 : weight.size(2);
  g.kw = weight.size(-1);
  g.sh = one_d ? 1 : stride[0];
  g.sw = stride[k - 1];
  g.ph = one_d ? 0 : padding[0];
  g.pw = padding[k - 1];
  g.dh = one_d ? 1 : dilation[0];
  g.dw = dilation[k - 1];
  const int64_t eh = g.h + 2 * g.ph, ew = g.w + 2 * g.pw;
  const int64_t kh = g.dh * (g.kh - 1) + 1, kw = g.dw * (g.kw - 1) + 1;
  if (eh < kh || ew < kw) {
    std::string in = one_d ? absl::StrCat("(", ew, ")") : absl::StrCat("(", eh, " x ", ew, ")");
    std::string ks = one_d ? absl::StrCat("(", kw, ")") : absl::StrCat("(", kh, " x ", kw, ")");
    EMBER_CHECK(false, "Calculated padded input size per channel: ", in, ". Kernel size: ", ks,
                ". Kernel size can't be greater than actual input size");
  }
  g.oh = (eh - kh) / g.sh + 1;
  g.ow = (ew - kw) / g.sw + 1;
  return g;
}

DimVector out_sizes(const Geometry& g, int64_t dims) {
  if (dims == 3) return {g.n, g.co, g.ow};
  return {g.n, g.co, g.oh, g.ow};
}

DimVector to_dims(IntArrayRef v) { return DimVector(v.begin(), v.end()); }

// Checks arguments as PyTorch's transposed convolution does (its
// check_shape_forward, then slow_conv_transpose2d's shape check, whose
// messages name a 1-D convolution's sizes as height 1 and width L) and
// computes the geometry of the convolution it is the input-gradient of:
// that convolution's input is this one's output (c = C_out, h x w the
// output sizes), its output this one's input (co = C_in, oh x ow the input
// sizes). Note [Transposed convolution] in nn_ops.h.
Geometry make_transposed_geometry(const Tensor& input, const Tensor& weight, const Tensor& bias,
                                  IntArrayRef stride, IntArrayRef padding,
                                  IntArrayRef output_padding, IntArrayRef dilation,
                                  int64_t groups) {
  const int64_t k = weight.dim() - 2;
  EMBER_CHECK(k == 1 || k == 2, "conv_transpose: only 1-D and 2-D convolutions are supported");
  EMBER_CHECK(static_cast<int64_t>(stride.size()) == k &&
                  static_cast<int64_t>(padding.size()) == k &&
                  static_cast<int64_t>(output_padding.size()) == k &&
                  static_cast<int64_t>(dilation.size()) == k,
              "conv_transpose: expected stride, padding, output_padding and dilation of length ",
              k);
  for (int64_t p : padding) EMBER_CHECK(p >= 0, "negative padding is not supported");
  for (int64_t s : stride) EMBER_CHECK(s > 0, "non-positive stride is not supported");
  for (int64_t p : output_padding) {
    EMBER_CHECK(p >= 0, "negative output_padding is not supported");
  }
  EMBER_CHECK(groups > 0, "non-positive groups is not supported");
  EMBER_CHECK(input.dim() == weight.dim(), "Expected ", weight.dim(), "-dimensional input for ",
              weight.dim(), "-dimensional weight ", detail::bracketed(weight.sizes()), ", but got ",
              input.dim(), "-dimensional input of size ", detail::bracketed(input.sizes()),
              " instead");
  EMBER_CHECK(weight.size(0) % groups == 0, "Given groups=", groups,
              ", expected weight to be divisible by ", groups,
              " at dimension 0, but got weight of size [", detail::bracketed(weight.sizes()),
              "] instead");  // PyTorch's doubled brackets
  EMBER_CHECK(input.size(1) == weight.size(0), "Given transposed=1, weight of size ",
              detail::bracketed(weight.sizes()), ", expected input",
              detail::bracketed(input.sizes()), " to have ", weight.size(0),
              " channels, but got ", input.size(1), " channels instead");
  const int64_t c_out = weight.size(1) * groups;
  if (bias.defined()) {
    EMBER_CHECK(bias.dim() == 1 && bias.size(0) == c_out, "Given transposed=1, weight of size ",
                detail::bracketed(weight.sizes()), ", expected bias to be 1-dimensional with ",
                c_out, " elements, but got bias of size ", detail::bracketed(bias.sizes()),
                " instead");
  }
  EMBER_CHECK(input.dtype() == weight.dtype(), "expected scalar type ",
              scalar_type_name(input.dtype()), " but found ", scalar_type_name(weight.dtype()));
  // (height, width), a 1-D convolution as height 1.
  auto hw = [k](IntArrayRef v, int64_t one) {
    return std::array<int64_t, 2>{k == 1 ? one : v[0], v[k - 1]};
  };
  const auto s = hw(stride, 1), p = hw(padding, 0), op = hw(output_padding, 0),
             d = hw(dilation, 1), ks = hw(weight.sizes().subspan(2), 1),
             in = hw(input.sizes().subspan(2), 1);
  EMBER_CHECK(d[0] > 0 && d[1] > 0, "dilation should be greater than zero, but got dilation_height: ",
              d[0], ", dilation_width: ", d[1]);
  EMBER_CHECK((op[1] < s[1] || op[1] < d[1]) && (op[0] < s[0] || op[0] < d[0]),
              "output padding must be smaller than either stride or dilation, but got "
              "output_padding_height: ",
              op[0], " output_padding_width: ", op[1], " stride_height: ", s[0],
              " stride_width: ", s[1], " dilation_height: ", d[0], " dilation_width: ", d[1]);
  std::array<int64_t, 2> out;
  for (int i = 0; i < 2; ++i) {
    out[i] = (in[i] - 1) * s[i] - 2 * p[i] + d[i] * (ks[i] - 1) + 1 + op[i];
  }
  EMBER_CHECK(out[0] >= 1 && out[1] >= 1, "Given input size per channel: (", in[0], " x ", in[1],
              "). Calculated output size per channel: (", out[0], " x ", out[1],
              "). Output size is too small");
  Geometry g;
  g.n = input.size(0);
  g.c = c_out;
  g.co = weight.size(0);
  g.groups = groups;
  g.h = out[0];
  g.w = out[1];
  g.kh = ks[0];
  g.kw = ks[1];
  g.sh = s[0];
  g.sw = s[1];
  g.ph = p[0];
  g.pw = p[1];
  g.dh = d[0];
  g.dw = d[1];
  // Not derived from h x w: with output_padding >= stride (allowed below
  // the dilation) that convolution would have more outputs than this
  // input has; the extra ones are zeros of grad_output, and skipped.
  g.oh = in[0];
  g.ow = in[1];
  return g;
}

// Note [Reduced-precision CPU convolution]: float16, and bfloat16 where
// oneDNN's bfloat16 primitives are not taken (Note [bfloat16 CPU
// convolution] in onednn.h: they are on CPUs with native bfloat16), are
// convolved in float and the result rounded once, so that CPU autocast
// (which runs conv1d/conv2d in bfloat16) works. The op, its recording and
// its dtypes are the reduced-precision op's.
bool reduced_float(ScalarType t) { return t == kBFloat16 || t == kHalf; }
Tensor to_float(const Tensor& t) { return t.defined() ? t.to(kFloat).contiguous() : Tensor(); }
Tensor float_like(const Tensor& t) {
  return t.defined() ? empty(t.sizes(), t.options().dtype(kFloat)) : Tensor();
}
void copy_back(Tensor& dst, const Tensor& src) {
  if (dst.defined()) dst.copy_(src);
}

// float and double convolutions that take Note [Convolution by taps]
// (conv_taps.cc), in either layout.
bool by_taps(const Geometry& g, ScalarType dtype) {
  return (dtype == kFloat || dtype == kDouble) && detail::use_conv_taps(g);
}

void conv_forward_cpu(const Geometry& g, const Tensor& x, const Tensor& w, const Tensor& b,
                      Tensor& out) {
  if (by_taps(g, x.dtype())) {
    EMBER_DISPATCH_FLOAT_DOUBLE(x.dtype(), "convolution", [&] {
      detail::conv_taps_forward<scalar_t>(g, x.data_ptr<scalar_t>(), w.data_ptr<scalar_t>(),
                                          b.defined() ? b.data_ptr<scalar_t>() : nullptr,
                                          out.data_ptr<scalar_t>());
    });
    return;
  }
  if (g.channels_last) {  // Note [Native channels-last convolution]
    if (detail::conv_onednn_forward(g, x, w, b, out)) return;
    Geometry rows = g;  // oneDNN has no primitive for it: through row-major copies
    rows.channels_last = rows.weight_channels_last = false;
    Tensor o = empty(out.sizes(), out.options());
    conv_forward_cpu(rows, x.contiguous(), w.contiguous(), b, o);
    out.copy_(o);
    return;
  }
  if (x.dtype() == kBFloat16 && detail::onednn::use_bf16_conv() &&
      detail::conv_onednn_forward(g, x, w, b, out)) {
    return;
  }
  if (reduced_float(x.dtype())) {
    Tensor of = float_like(out);
    conv_forward_cpu(g, to_float(x), to_float(w), to_float(b), of);
    out.copy_(of);
    return;
  }
  EMBER_DISPATCH_FLOAT_DOUBLE(x.dtype(), "convolution", [&] {
    conv_forward<scalar_t>(g, x.data_ptr<scalar_t>(), w.data_ptr<scalar_t>(),
                           b.defined() ? b.data_ptr<scalar_t>() : nullptr,
                           out.data_ptr<scalar_t>());
  });
}

void conv_backward_cpu(const Geometry& g, const Tensor& gy, const Tensor& x, const Tensor& w,
                       Tensor& gx, Tensor& gw, Tensor& gb) {
  if (by_taps(g, gy.dtype())) {
    EMBER_DISPATCH_FLOAT_DOUBLE(gy.dtype(), "convolution_backward", [&] {
      const scalar_t* gyp = gy.data_ptr<scalar_t>();
      detail::conv_taps_backward<scalar_t>(g, gyp, x.defined() ? x.data_ptr<scalar_t>() : nullptr,
                                           w.data_ptr<scalar_t>(),
                                           gx.defined() ? gx.data_ptr<scalar_t>() : nullptr,
                                           gw.defined() ? gw.data_ptr<scalar_t>() : nullptr);
    });
    if (gb.defined()) detail::conv_bias_grad(g, gy, gb);
    return;
  }
  if (g.channels_last) {  // Note [Native channels-last convolution]
    if (detail::conv_onednn_backward(g, gy, x, w, gx, gw, gb)) return;
    Geometry rows = g;
    rows.channels_last = rows.weight_channels_last = false;
    Tensor gxr = gx.defined() ? empty(gx.sizes(), gx.options()) : Tensor();
    conv_backward_cpu(rows, gy.contiguous(), x.defined() ? x.contiguous() : x, w.contiguous(), gxr,
                      gw, gb);
    if (gx.defined()) gx.copy_(gxr);
    return;
  }
  if (gy.dtype() == kBFloat16 && detail::onednn::use_bf16_conv() &&
      detail::conv_onednn_backward(g, gy, x, w, gx, gw, gb)) {
    return;
  }
  if (reduced_float(gy.dtype())) {  // Note [Reduced-precision CPU convolution]
    Tensor gxf = float_like(gx), gwf = float_like(gw), gbf = float_like(gb);
    conv_backward_cpu(g, to_float(gy), to_float(x), to_float(w), gxf, gwf, gbf);
    copy_back(gx, gxf);
    copy_back(gw, gwf);
    copy_back(gb, gbf);
    return;
  }
  EMBER_DISPATCH_FLOAT_DOUBLE(gy.dtype(), "convolution_backward", [&] {
    conv_backward<scalar_t>(g, gy.data_ptr<scalar_t>(),
                            x.defined() ? x.data_ptr<scalar_t>() : nullptr, w.data_ptr<scalar_t>(),
                            gx.defined() ? gx.data_ptr<scalar_t>() : nullptr,
                            gw.defined() ? gw.data_ptr<scalar_t>() : nullptr);
  });
  if (gb.defined()) detail::conv_bias_grad(g, gy, gb);
}

// Note [Native channels-last convolution]: PyTorch users put a network in
// channels-last memory (memory_format=channels_last) to make it faster, so
// a CPU convolution of a channels-last input does not copy it to row-major
// and its result back (Note [Result layout]) where oneDNN runs every pass
// asked for: float32 where Note [oneDNN convolution rule] takes oneDNN for
// each of them, bfloat16 where its primitives are taken (Note [bfloat16 CPU
// convolution]). The input, output and their gradients are then described
// to oneDNN as its plain nhwc layout, reordered straight to and from the
// blocked one its kernels use (onednn.cc), and the bias gradient is a
// column sum over the [n * oh * ow, co] rows. Elsewhere (im2col + GEMM, the
// double path, CUDA) the channels-last tensors are still copied: im2col's
// unfolding and its GEMM are written for row-major planes. A channels-last
// weight is oneDNN's ohwi as it is (PyTorch's model.to(channels_last)
// makes one: ResNet-18's last layers hold more weight than activations);
// the weight gradient stays [co, c / groups, kh, kw] (Note [Result
// layout]).
// Where oneDNN is taken, nhwc is also what its kernels read (onednn.cc):
// no reorder at all, so 1x1 kernels take it too (Note [oneDNN convolution
// rule]).

// Whether the convolution of `input` runs natively channels-last (every
// pass asked for through oneDNN).
bool native_channels_last(const Geometry& g, const Tensor& input, bool forward, bool want_gx,
                          bool want_gw) {
  if (!input.is_cpu() || input.dim() != 4 ||
      input.suggest_memory_format() != MemoryFormat::ChannelsLast) {
    return false;
  }
  if (input.dtype() == kBFloat16) return detail::onednn::use_bf16_conv();
  if (by_taps(g, input.dtype())) return true;  // Note [Convolution by taps]: either layout
  if (input.dtype() != kFloat) return false;
  using detail::onednn::ConvPass;
  detail::onednn::ConvShape s = detail::conv_shape(g, 0, g.n);
  s.channels_last = true;
  return (!forward || detail::onednn::use_conv(s, ConvPass::kForward)) &&
         (!want_gx || detail::onednn::use_conv(s, ConvPass::kBackwardData)) &&
         (!want_gw || detail::onednn::use_conv(s, ConvPass::kBackwardWeights));
}

// The weight as the kernel takes it; sets g.weight_channels_last.
Tensor weight_for(Geometry& g, const Tensor& weight) {
  g.weight_channels_last =
      g.channels_last && weight.suggest_memory_format() == MemoryFormat::ChannelsLast;
  return weight.contiguous(g.weight_channels_last ? MemoryFormat::ChannelsLast
                                                  : MemoryFormat::Contiguous);
}

// The layout of a convolution's result and input gradient, as 1.13's
// CPU backends choose it (thnn_conv_use_channels_last and
// mkldnn_conv_use_channels_last): channels-last for a 4-D convolution whose
// input or weight is channels-last (model.to(channels_last) with a
// contiguous batch gives channels-last activations); otherwise the input's.
Tensor in_conv_layout(const Tensor& t, const Tensor& input, const Tensor& weight) {
  if (t.defined() && input.dim() == 4 && weight.dim() == 4 &&
      weight.suggest_memory_format() == MemoryFormat::ChannelsLast) {
    return t.contiguous(MemoryFormat::ChannelsLast);
  }
  return detail::in_layout_of_input(t, input);
}

MemoryFormat format_of(const Geometry& g) {
  return g.channels_last ? MemoryFormat::ChannelsLast : MemoryFormat::Contiguous;
}

}  // namespace

namespace detail {
EMBER_DEFINE_KERNEL_TABLE(conv_forward_stub, ConvForwardFn);
EMBER_DEFINE_KERNEL_TABLE(conv_backward_stub, ConvBackwardFn);
EMBER_REGISTER_KERNEL(conv_forward_stub, kCPU, &conv_forward_cpu);
EMBER_REGISTER_KERNEL(conv_backward_stub, kCPU, &conv_backward_cpu);
}  // namespace detail

Tensor convolution(const Tensor& input, const Tensor& weight, const Tensor& bias,
                   IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  EMBER_AUTOCAST(convolution, ::ember::convolution, input, weight, bias, stride, padding, dilation,
                 groups);
  Geometry g = make_geometry(input, weight, bias, stride, padding, dilation, groups);
  profiler::RecordFunction prof_range("convolution", profiler::RangeKind::kOp, input, weight, bias);
  detail::OpScope scope(input, weight, bias);
  g.channels_last = native_channels_last(g, input, true, false, false);
  const MemoryFormat f = format_of(g);
  Tensor x = input.contiguous(f), w = weight_for(g, weight);
  Tensor b = bias.defined() ? bias.to(input.dtype()).contiguous() : Tensor();
  Tensor out = empty(out_sizes(g, input.dim()), input.options().memory_format(f));
  detail::conv_forward_stub(input.device())(g, x, w, b, out);
  if (!g.channels_last) out = in_conv_layout(out, input, weight);
  if (scope.active()) {
    scope.record("convolution", {input, weight, bias}, {out},
                 {to_dims(stride), to_dims(padding), to_dims(dilation), Scalar(groups)});
  }
  return out;
}

std::tuple<Tensor, Tensor, Tensor> convolution_backward(const Tensor& grad_output,
                                                        const Tensor& input, const Tensor& weight,
                                                        IntArrayRef stride, IntArrayRef padding,
                                                        IntArrayRef dilation, int64_t groups,
                                                        std::array<bool, 3> mask) {
  Geometry g = make_geometry(input, weight, Tensor(), stride, padding, dilation, groups);
  // Recorded (Note [Differentiable backward kernels] in nn_ops.h).
  profiler::RecordFunction prof_range("convolution_backward", profiler::RangeKind::kOp, grad_output,
                                      input, weight);
  detail::OpScope scope(grad_output, input, weight);
  g.channels_last = native_channels_last(g, input, false, mask[0], mask[1]);
  const MemoryFormat f = format_of(g);
  Tensor gy = grad_output.to(input.dtype()).contiguous(f);
  EMBER_CHECK(gy.sizes() == IntArrayRef(out_sizes(g, input.dim())),
              "convolution_backward: grad_output of size ", detail::bracketed(gy.sizes()),
              " does not match the output");
  Tensor x = input.contiguous(f), w = weight_for(g, weight);
  Tensor gx = mask[0] ? empty(input.sizes(), input.options().memory_format(f)) : Tensor();
  Tensor gw = mask[1] ? empty(weight.sizes(), weight.options()) : Tensor();
  Tensor gb = mask[2] ? empty({g.co}, input.options()) : Tensor();
  detail::conv_backward_stub(input.device())(g, gy, x, w, gx, gw, gb);
  if (!g.channels_last) gx = in_conv_layout(gx, input, weight);
  if (scope.active()) {
    scope.record("convolution_backward", {grad_output, input, weight}, {gx, gw, gb},
                 {to_dims(stride), to_dims(padding), to_dims(dilation), Scalar(groups)});
  }
  return {gx, gw, gb};
}

Tensor conv_transpose(const Tensor& input, const Tensor& weight, const Tensor& bias,
                      IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding,
                      IntArrayRef dilation, int64_t groups) {
  EMBER_AUTOCAST(conv_transpose, ::ember::conv_transpose, input, weight, bias, stride, padding,
                 output_padding, dilation, groups);
  const Geometry g = make_transposed_geometry(input, weight, bias, stride, padding,
                                              output_padding, dilation, groups);
  profiler::RecordFunction prof_range("conv_transpose", profiler::RangeKind::kOp, input, weight,
                                      bias);
  detail::OpScope scope(input, weight, bias);
  Tensor x = input.contiguous(), w = weight.contiguous();
  const int64_t k = weight.dim() - 2;
  DimVector sizes{g.n, g.c};
  if (k == 2) sizes.push_back(g.h);
  sizes.push_back(g.w);
  Tensor out = empty(sizes, input.options());
  // The input-gradient of the convolution: gemm and col2im.
  Tensor no_x, no_gw, no_gb;
  detail::conv_backward_stub(input.device())(g, x, no_x, w, out, no_gw, no_gb);
  if (bias.defined()) {
    Tensor b = bias.to(input.dtype()).contiguous();
    if (!out.is_cpu() || reduced_float(out.dtype())) {
      out.add_(k == 2 ? b.view({1, g.c, 1, 1}) : b.view({1, g.c, 1}));
    } else {
      EMBER_DISPATCH_FLOAT_DOUBLE(input.dtype(), "conv_transpose", [&] {
        const scalar_t* bp = b.data_ptr<scalar_t>();
        scalar_t* o = out.data_ptr<scalar_t>();
        const int64_t plane = g.h * g.w;
        parallel_for(0, g.n * g.c, std::max<int64_t>(1, 4096 / std::max<int64_t>(plane, 1)),
                     [&](int64_t b0, int64_t e0) {
                       for (int64_t u = b0; u < e0; ++u) {
                         const scalar_t add = bp[u % g.c];
                         scalar_t* dst = o + u * plane;
                         for (int64_t l = 0; l < plane; ++l) dst[l] += add;
                       }
                     });
      });
    }
  }
  if (scope.active()) {
    scope.record("conv_transpose", {input, weight, bias}, {out},
                 {to_dims(stride), to_dims(padding), to_dims(output_padding), to_dims(dilation),
                  Scalar(groups)});
  }
  return out;
}

}  // namespace ember
