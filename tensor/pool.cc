// 2-D pooling: max (with indices), average, adaptive average. Input
// [N, C, H, W] or [C, H, W]; each (n, c) plane is one unit of work.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tensor/autograd_hook.h"
#include "tensor/copy.h"
#include "tensor/creation.h"
#include "tensor/dispatch.h"
#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/fallback.h"
#include "tensor/math_kernels.h"
#include "tensor/nn_ops.h"
#include "tensor/nn_util.h"
#include "tensor/parallel.h"
#include "tensor/pool_kernels.h"
#include "tensor/record_function.h"

namespace ember {
namespace {

using Pool = detail::PoolGeometry;

// PyTorch's pooling_output_shape.
int64_t pooled(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil) {
  EMBER_CHECK(stride != 0, "stride should not be zero");
  EMBER_CHECK(pad >= 0, "pad must be non-negative, but got pad: ", pad);
  EMBER_CHECK(pad <= k / 2, "pad should be at most half of kernel size, but got pad=", pad,
              " and kernel_size=", k);
  const int64_t num = in + 2 * pad - dil * (k - 1) - 1 + (ceil ? stride - 1 : 0);
  int64_t out = (num >= 0 ? num / stride : -((-num + stride - 1) / stride)) + 1;
  if (ceil && (out - 1) * stride >= in + pad) --out;
  return out;
}

int64_t arg(IntArrayRef v, int i, int64_t dflt) {
  if (v.empty()) return dflt;
  return v.size() == 1 ? v[0] : v[i];
}

Pool make_pool(const Tensor& input, IntArrayRef kernel, IntArrayRef stride, IntArrayRef padding,
               IntArrayRef dilation, bool ceil_mode) {
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4,
              "non-empty 3D or 4D (batch mode) tensor expected for input");
  EMBER_CHECK(!kernel.empty() && kernel.size() <= 2,
              "pool2d: kernel_size must either be a single int, or a tuple of two ints");
  Pool p;
  p.kh = arg(kernel, 0, 1);
  p.kw = arg(kernel, 1, 1);
  p.sh = arg(stride, 0, p.kh);
  p.sw = arg(stride, 1, p.kw);
  p.ph = arg(padding, 0, 0);
  p.pw = arg(padding, 1, 0);
  p.dh = arg(dilation, 0, 1);
  p.dw = arg(dilation, 1, 1);
  p.h = input.size(-2);
  p.w = input.size(-1);
  p.planes = input.dim() == 4 ? input.size(0) * input.size(1) : input.size(0);
  p.oh = pooled(p.h, p.kh, p.ph, p.sh, p.dh, ceil_mode);
  p.ow = pooled(p.w, p.kw, p.pw, p.sw, p.dw, ceil_mode);
  EMBER_CHECK(p.kh > 0 && p.kw > 0, "kernel size should be greater than zero, but got kH: ", p.kh,
              " kW: ", p.kw);
  EMBER_CHECK(p.sh > 0 && p.sw > 0, "stride should be greater than zero, but got dH: ", p.sh,
              " dW: ", p.sw);
  EMBER_CHECK(p.dh > 0 && p.dw > 0,
              "dilation should be greater than zero, but got dilationH: ", p.dh,
              " dilationW: ", p.dw);
  const int64_t c = input.size(-3);
  EMBER_CHECK(p.oh >= 1 && p.ow >= 1, "Given input size: (", c, "x", p.h, "x", p.w,
              "). Calculated output size: (", c, "x", p.oh, "x", p.ow,
              "). Output size is too small");
  return p;
}

DimVector out_sizes(const Tensor& input, int64_t oh, int64_t ow) {
  DimVector s(input.sizes().begin(), input.sizes().end());
  s[s.size() - 2] = oh;
  s[s.size() - 1] = ow;
  return s;
}

DimVector dv(IntArrayRef v) { return DimVector(v.begin(), v.end()); }

// The memory format of a pooling gradient for the input `self`, as
// PyTorch's backward kernels choose it.
MemoryFormat grad_format(const Tensor& self) {
  return self.dim() == 4 ? self.suggest_memory_format() : MemoryFormat::Contiguous;
}

// PyTorch's check of grad_output against the pooled size of self (its
// check_dim_size, with its message): the first dimension that differs.
void check_pooled_size(const Tensor& grad_output, const Tensor& self, const Pool& p) {
  const DimVector want = out_sizes(self, p.oh, p.ow);
  const int64_t n = static_cast<int64_t>(want.size());
  for (int64_t d = 0; d < n; ++d) {
    const int64_t got = grad_output.dim() > d ? grad_output.size(d) : -1;
    EMBER_CHECK(grad_output.dim() == n && got == want[d], "Expected a tensor of dimension ", n,
                " and tensor.size[", d, "] == ", want[d], " but got: dimension ", grad_output.dim(),
                " and tensor.size[", d, "] = ", got);
  }
}

int64_t grain_for(int64_t per_plane) {
  return std::max<int64_t>(1, 8192 / std::max<int64_t>(1, per_plane));
}

#if defined(__AVX2__)
// Note [2x2 max pooling], vectorized for float: eight windows (AVX2) or
// four (SSE) at a time. The even and odd columns of both rows are
// deinterleaved, the first maximum is chosen with compare-and-blend, and
// the winner's offset in the window (0, 1, w, w + 1) is kept in int32
// lanes. A row that is not a multiple of the width ends with one more
// block that overlaps the previous one (the same values written again).
// Returns false, having written garbage, if the row holds a NaN.
struct PoolBlock8 {
  static constexpr int64_t kWidth = 8;
  static void split(const float* p, __m256& even, __m256& odd) {
    const __m256 lo = _mm256_loadu_ps(p), hi = _mm256_loadu_ps(p + 8);
    // [lo0 lo2 hi0 hi2 | lo4 lo6 hi4 hi6] -> [lo0 lo2 lo4 lo6 hi0 hi2 hi4 hi6]
    const __m256 e = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0));
    const __m256 o = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1));
    even = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), _MM_SHUFFLE(3, 1, 2, 0)));
    odd = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(o), _MM_SHUFFLE(3, 1, 2, 0)));
  }
  // Returns the window's unordered (NaN) lanes.
  static __m256 block(const float* r0, const float* r1, int64_t w, int64_t first, float* o,
                      int64_t* id) {
    __m256 a, b, d, e;
    split(r0, a, b);
    split(r1, d, e);
    const __m256 nan =
        _mm256_or_ps(_mm256_cmp_ps(a, b, _CMP_UNORD_Q), _mm256_cmp_ps(d, e, _CMP_UNORD_Q));
    __m256 m = a;
    __m256i off = _mm256_setzero_si256();
    auto take = [&](__m256 v, int64_t k) {
      const __m256 gt = _mm256_cmp_ps(v, m, _CMP_GT_OQ);
      m = _mm256_blendv_ps(m, v, gt);
      off =
          _mm256_blendv_epi8(off, _mm256_set1_epi32(static_cast<int>(k)), _mm256_castps_si256(gt));
    };
    take(b, 1);
    take(d, w);
    take(e, w + 1);
    _mm256_storeu_ps(o, m);
    const __m256i start =
        _mm256_add_epi64(_mm256_set1_epi64x(first), _mm256_setr_epi64x(0, 2, 4, 6));
    _mm256_storeu_si256(
        reinterpret_cast<__m256i*>(id),
        _mm256_add_epi64(start, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(off))));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(id + 4),
                        _mm256_add_epi64(_mm256_add_epi64(start, _mm256_set1_epi64x(8)),
                                         _mm256_cvtepi32_epi64(_mm256_extracti128_si256(off, 1))));
    return nan;
  }
};

struct PoolBlock4 {
  static constexpr int64_t kWidth = 4;
  static __m256 block(const float* r0, const float* r1, int64_t w, int64_t first, float* o,
                      int64_t* id) {
    auto split = [](const float* p, __m128& even, __m128& odd) {
      const __m128 lo = _mm_loadu_ps(p), hi = _mm_loadu_ps(p + 4);
      even = _mm_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0));
      odd = _mm_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1));
    };
    __m128 a, b, d, e;
    split(r0, a, b);
    split(r1, d, e);
    const __m128 nan = _mm_or_ps(_mm_cmpunord_ps(a, b), _mm_cmpunord_ps(d, e));
    __m128 m = a;
    __m128i off = _mm_setzero_si128();
    auto take = [&](__m128 v, int64_t k) {
      const __m128 gt = _mm_cmpgt_ps(v, m);
      m = _mm_blendv_ps(m, v, gt);
      off = _mm_blendv_epi8(off, _mm_set1_epi32(static_cast<int>(k)), _mm_castps_si128(gt));
    };
    take(b, 1);
    take(d, w);
    take(e, w + 1);
    _mm_storeu_ps(o, m);
    const __m256i start =
        _mm256_add_epi64(_mm256_set1_epi64x(first), _mm256_setr_epi64x(0, 2, 4, 6));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(id),
                        _mm256_add_epi64(start, _mm256_cvtepi32_epi64(off)));
    return _mm256_castps128_ps256(nan);
  }
};

template <typename Block>
bool max_pool_2x2_row_simd(const float* r0, int64_t w, int64_t base, float* o, int64_t* id,
                           int64_t n) {
  constexpr int64_t kW = Block::kWidth;
  const float* r1 = r0 + w;
  __m256 nan = _mm256_setzero_ps();
  for (int64_t ox = 0;; ox += kW) {
    if (ox + kW > n) ox = n - kW;  // the overlapping last block
    nan = _mm256_or_ps(nan,
                       Block::block(r0 + 2 * ox, r1 + 2 * ox, w, base + 2 * ox, o + ox, id + ox));
    if (ox + kW >= n) break;
  }
  return _mm256_movemask_ps(nan) == 0;
}

// bfloat16 to float, 8 at a time (a shift: exact).
inline void widen_bf16(const BFloat16* src, float* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    _mm256_storeu_ps(dst + i, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16)));
  }
  for (; i < n; ++i) dst[i] = static_cast<float>(src[i]);
}

// Note [2x2 max pooling] for bfloat16: chunks of the two rows are
// widened into float buffers (exactly), pooled by the float kernel and
// narrowed back (exactly: each output is one of the inputs). The scalar
// loop took 20% of LeNet's bfloat16 autocast step. Returns false if a chunk
// holds a NaN (the caller's general loop then redoes the row).
bool max_pool_2x2_row_bf16(const BFloat16* r0, int64_t w, int64_t base, BFloat16* o, int64_t* id,
                           int64_t n) {
  constexpr int64_t kChunk = 256;           // outputs per chunk
  constexpr int64_t kRow = 2 * kChunk + 8;  // a widened row: a chunk of up to kChunk + 3
  float rows[2 * kRow];
  float out[kChunk + 4];
  const BFloat16* r1 = r0 + w;
  for (int64_t c0 = 0; c0 < n;) {
    int64_t m = std::min(kChunk, n - c0);
    if (n - c0 - m < 4) m = n - c0;  // no chunk narrower than the 4-wide block
    widen_bf16(r0 + 2 * c0, rows, 2 * m);
    widen_bf16(r1 + 2 * c0, rows + kRow, 2 * m);
    const bool clean = m >= 8 ? max_pool_2x2_row_simd<PoolBlock8>(rows, kRow, 0, out, id + c0, m)
                              : max_pool_2x2_row_simd<PoolBlock4>(rows, kRow, 0, out, id + c0, m);
    if (!clean) return false;
    // Indices into the buffers (row 1 starts at kRow) back to the plane's.
    // (Arithmetic, not a branch: which row won is random.)
    const int64_t first = base + 2 * c0, row_skip = w - kRow;
    for (int64_t i = 0; i < m; ++i) {
      const int64_t k = id[c0 + i];
      id[c0 + i] = first + k + static_cast<int64_t>(k >= kRow) * row_skip;
    }
    for (int64_t i = 0; i < m; ++i) {
      uint32_t u;  // a bfloat16 value widened: its top half is exact
      std::memcpy(&u, &out[i], 4);
      o[c0 + i] = BFloat16::from_bits(static_cast<uint16_t>(u >> 16));
    }
    c0 += m;
  }
  return true;
}
#endif

// Note [2x2 max pooling]: the 2x2 window at stride 2 without padding or
// dilation (every CNN's pooling after a convolution) with its four reads
// unrolled, the same first-maximum selects as the general loop below. Fills
// outputs [0, n) of one output row whose windows lie inside the input (two
// rows starting at r0, `base` the index of r0[0] in its plane) and returns
// how many it filled: none if the row holds a NaN, which the general
// loop's exact rule then handles.
template <typename T>
int64_t max_pool_2x2_row(const T* r0, int64_t w, int64_t base, T* o, int64_t* id, int64_t n) {
  using A = opmath_t<T>;
  const T* r1 = r0 + w;
  bool nan = false;
#if defined(__AVX2__)
  if constexpr (std::is_same<T, float>::value) {
    if (w < (int64_t{1} << 30) && n >= 4) {
      const bool clean = n >= 8 ? max_pool_2x2_row_simd<PoolBlock8>(r0, w, base, o, id, n)
                                : max_pool_2x2_row_simd<PoolBlock4>(r0, w, base, o, id, n);
      return clean ? n : 0;
    }
  }
  if constexpr (std::is_same<T, BFloat16>::value) {
    if (w < (int64_t{1} << 30) && n >= 4) {
      return max_pool_2x2_row_bf16(r0, w, base, o, id, n) ? n : 0;
    }
  }
#endif
  // One window at a time (the compiler made the selects branches).
  for (int64_t ox = 0; ox < n; ++ox) {
    const int64_t c = 2 * ox;
    const A a = static_cast<A>(r0[c]), b = static_cast<A>(r0[c + 1]);
    const A d = static_cast<A>(r1[c]), e = static_cast<A>(r1[c + 1]);
    nan |= (a != a) | (b != b) | (d != d) | (e != e);
    int64_t best = base + c;
    A m = a;
    const bool gb = b > m;
    m = gb ? b : m;
    best = gb ? base + c + 1 : best;
    const bool gd = d > m;
    m = gd ? d : m;
    best = gd ? base + w + c : best;
    const bool ge = e > m;
    m = ge ? e : m;
    best = ge ? base + w + c + 1 : best;
    o[ox] = static_cast<T>(m);
    id[ox] = best;
  }
  return nan ? 0 : n;  // a NaN: the general loop redoes the row
}

template <typename T>
void max_pool_kernel(const Pool& pool, const T* x, T* out, int64_t* idx) {
  using A = opmath_t<T>;
  parallel_for(0, pool.planes, grain_for(pool.h * pool.w), [&](int64_t b, int64_t e) {
    // A local copy: the stores through out/idx could alias a referenced
    // Pool, which made the compiler reload every field in the inner loop.
    const Pool p = pool;
    for (int64_t pl = b; pl < e; ++pl) {
      const T* in = x + pl * p.h * p.w;
      T* o = out + pl * p.oh * p.ow;
      int64_t* id = idx + pl * p.oh * p.ow;
      for (int64_t oy = 0; oy < p.oh; ++oy) {
        int64_t y0 = oy * p.sh - p.ph;
        const int64_t y1 = std::min(y0 + (p.kh - 1) * p.dh + 1, p.h);
        while (y0 < 0) y0 += p.dh;
        int64_t ox = 0;
        if (p.kh == 2 && p.kw == 2 && p.sh == 2 && p.sw == 2 && p.dh == 1 && p.dw == 1 &&
            p.ph == 0 && p.pw == 0 && 2 * oy + 1 < p.h) {
          ox = max_pool_2x2_row(in + 2 * oy * p.w, p.w, 2 * oy * p.w, o + oy * p.ow, id + oy * p.ow,
                                std::min(p.ow, p.w / 2));
        }
        for (; ox < p.ow; ++ox) {
          int64_t x0 = ox * p.sw - p.pw;
          const int64_t x1 = std::min(x0 + (p.kw - 1) * p.dw + 1, p.w);
          while (x0 < 0) x0 += p.dw;
          // The first maximum wins; NaN wins over everything (PyTorch's rule).
          int64_t best = y0 * p.w + x0;
          A m = -std::numeric_limits<A>::infinity();
          bool nan = false;
          // Selects, not branches (random data mispredicts them); NaN, rare,
          // takes the exact rule below.
          for (int64_t y = y0; y < y1; y += p.dh) {
            const T* row = in + y * p.w;
            for (int64_t xx = x0; xx < x1; xx += p.dw) {
              const A v = static_cast<A>(row[xx]);
              const bool gt = v > m;
              best = gt ? y * p.w + xx : best;
              m = gt ? v : m;
              nan |= v != v;
            }
          }
          if (nan) {
            // PyTorch's rule: the first maximum, and any NaN wins.
            m = -std::numeric_limits<A>::infinity();
            for (int64_t y = y0; y < y1; y += p.dh) {
              for (int64_t xx = x0; xx < x1; xx += p.dw) {
                const A v = static_cast<A>(in[y * p.w + xx]);
                if (v > m || std::isnan(v)) {
                  m = v;
                  best = y * p.w + xx;
                }
              }
            }
          }
          o[oy * p.ow + ox] = static_cast<T>(m);
          id[oy * p.ow + ox] = best;
        }
      }
    }
  });
}

using detail::average;
using detail::avg_windows;

void max_pool_forward_cpu(const Pool& p, const Tensor& x, Tensor& out, Tensor& idx) {
  EMBER_DISPATCH_POOL_TYPES(x.dtype(), "max_pool2d", [&] {
    max_pool_kernel<scalar_t>(p, x.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(),
                              idx.data_ptr<int64_t>());
  });
}

void max_pool_backward_cpu(int64_t planes, int64_t hw, int64_t ohw, const Tensor& gy,
                           const Tensor& id, Tensor& gx) {
  EMBER_DISPATCH_POOL_TYPES(gy.dtype(), "max_pool2d_backward", [&] {
    using A = opmath_t<scalar_t>;
    const scalar_t* g = gy.data_ptr<scalar_t>();
    const int64_t* ix = id.data_ptr<int64_t>();
    scalar_t* o = gx.data_ptr<scalar_t>();
    parallel_for(0, planes, grain_for(hw), [&](int64_t b, int64_t e) {
      for (int64_t pl = b; pl < e; ++pl) {
        for (int64_t j = 0; j < ohw; ++j) {
          // Note [Empty pooling windows] (autograd/derivatives/pooling.cc):
          // an index outside the plane gets nothing.
          const int64_t at = ix[pl * ohw + j];
          if (at < 0 || at >= hw) continue;
          scalar_t& dst = o[pl * hw + at];
          dst = static_cast<scalar_t>(static_cast<A>(dst) + static_cast<A>(g[pl * ohw + j]));
        }
      }
    });
  });
}

}  // namespace

namespace detail {
EMBER_DEFINE_KERNEL_TABLE(max_pool_forward_stub, MaxPoolForwardFn);
EMBER_DEFINE_KERNEL_TABLE(max_pool_backward_stub, MaxPoolBackwardFn);
EMBER_REGISTER_KERNEL(max_pool_forward_stub, kCPU, &max_pool_forward_cpu);
EMBER_REGISTER_KERNEL(max_pool_backward_stub, kCPU, &max_pool_backward_cpu);
}  // namespace detail

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                   IntArrayRef stride, IntArrayRef padding,
                                                   IntArrayRef dilation, bool ceil_mode) {
  const Pool p = make_pool(input, kernel_size, stride, padding, dilation, ceil_mode);
  profiler::RecordFunction prof_range("max_pool2d_with_indices", profiler::RangeKind::kOp, input);
  detail::OpScope scope(input);
  Tensor out, idx;
  if (detail::pool_channels_last(input)) {  // Note [Channels-last pooling]
    const TensorOptions cl = input.options().memory_format(MemoryFormat::ChannelsLast);
    out = empty(out_sizes(input, p.oh, p.ow), cl);
    idx = empty(out_sizes(input, p.oh, p.ow), cl.dtype(kLong));
    detail::max_pool_forward_channels_last(p, input.size(1),
                                           input.contiguous(MemoryFormat::ChannelsLast), out, idx);
  } else {
    Tensor x = input.contiguous();
    out = empty(out_sizes(input, p.oh, p.ow), input.options());
    idx = empty(out_sizes(input, p.oh, p.ow), TensorOptions(kLong).device(input.device()));
    detail::max_pool_forward_stub(input.device())(p, x, out, idx);
    out = detail::in_layout_of_input(out, input);
    idx = detail::in_layout_of_input(idx, input);
  }
  if (scope.active()) {
    scope.record("max_pool2d_with_indices", {input}, {out, idx},
                 {dv(kernel_size), dv(stride), dv(padding), dv(dilation), Scalar(ceil_mode)});
  }
  return {out, idx};
}

Tensor max_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(
      max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode));
}

Tensor max_pool2d_with_indices_backward(const Tensor& grad_output, IntArrayRef input_sizes,
                                        const Tensor& indices) {
  // Recorded (Note [Differentiable backward kernels] in nn_ops.h).
  EMBER_CHECK(grad_output.sizes() == indices.sizes() &&
                  static_cast<int64_t>(input_sizes.size()) == indices.dim() &&
                  input_sizes.size() >= 2 &&
                  input_sizes.subspan(0, input_sizes.size() - 2) ==
                      indices.sizes().subspan(0, input_sizes.size() - 2),
              "max_pool2d_with_indices_backward: grad_output of size ",
              detail::bracketed(grad_output.sizes()), " and indices of size ",
              detail::bracketed(indices.sizes()), " do not match an input of size ",
              detail::bracketed(input_sizes));
  profiler::RecordFunction prof_range("max_pool2d_with_indices_backward", profiler::RangeKind::kOp,
                                      grad_output);
  detail::OpScope scope(grad_output);
  if (detail::pool_channels_last(indices) && grad_output.is_cpu()) {
    // Note [Channels-last pooling]: the input's format, which the indices have.
    const MemoryFormat cl = MemoryFormat::ChannelsLast;
    Tensor gx = zeros(input_sizes, grad_output.options().memory_format(cl));
    detail::max_pool_backward_channels_last(grad_output.contiguous(cl), indices.contiguous(cl), gx);
    if (scope.active()) {
      scope.record("max_pool2d_with_indices_backward", {grad_output, indices}, {gx},
                   {dv(input_sizes)});
    }
    return gx;
  }
  Tensor gy = grad_output.contiguous(), id = indices.contiguous();
  Tensor gx = zeros(input_sizes, grad_output.options());
  const int64_t hw = input_sizes[input_sizes.size() - 2] * input_sizes.back();
  const int64_t planes = hw == 0 ? 0 : gx.numel() / hw;
  const int64_t ohw = planes == 0 ? 0 : gy.numel() / planes;
  detail::common_device({gy, id});
  detail::max_pool_backward_stub(gy.device())(planes, hw, ohw, gy, id, gx);
  // The input's memory format, which the indices have (PyTorch's backward
  // takes it from self).
  gx = detail::in_layout_of_input(gx, indices);
  if (scope.active()) {
    scope.record("max_pool2d_with_indices_backward", {grad_output, indices}, {gx},
                 {dv(input_sizes)});
  }
  return gx;
}

Tensor max_pool2d_with_indices_backward(const Tensor& grad_output, const Tensor& self,
                                        IntArrayRef kernel_size, IntArrayRef stride,
                                        IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                        const Tensor& indices) {
  const Pool p = make_pool(self, kernel_size, stride, padding, dilation, ceil_mode);
  check_pooled_size(grad_output, self, p);
  const MemoryFormat f = grad_format(self);
  return max_pool2d_with_indices_backward(grad_output.contiguous(f), self.sizes(),
                                          indices.contiguous(f))
      .contiguous(f);
}

namespace {

// --- the CPU kernels of the average poolings (Note [Kernel tables]) ---------

void avg_pool_forward_cpu(const Pool& p, bool count_include_pad,
                          std::optional<int64_t> divisor_override, const Tensor& x, Tensor& out) {
  // PyTorch 1.13 averages int64 too (truncating), not the other integers.
  auto body = [&](auto zero) {
    using scalar_t = decltype(zero);
    const scalar_t* xp = x.data_ptr<scalar_t>();
    scalar_t* op = out.data_ptr<scalar_t>();
    parallel_for(0, p.planes, grain_for(p.h * p.w), [&](int64_t b, int64_t e) {
      for (int64_t pl = b; pl < e; ++pl) {
        const scalar_t* in = xp + pl * p.h * p.w;
        for (int64_t oy = 0; oy < p.oh; ++oy) {
          for (int64_t ox = 0; ox < p.ow; ++ox) {
            scalar_t& o = op[(pl * p.oh + oy) * p.ow + ox];
            o = 0;
            avg_windows(p, count_include_pad, divisor_override, oy, ox,
                        [&](int64_t y0, int64_t y1, int64_t x0, int64_t x1, int64_t div) {
                          opmath_t<scalar_t> sum = 0;
                          for (int64_t y = y0; y < y1; ++y) {
                            for (int64_t xx = x0; xx < x1; ++xx) sum += in[y * p.w + xx];
                          }
                          o = static_cast<scalar_t>(average(sum, div));
                        });
          }
        }
      }
    });
  };
  switch (x.dtype()) {
    case kFloat: body(float{}); break;
    case kDouble: body(double{}); break;
    case kBFloat16: body(BFloat16{}); break;
    case kHalf: body(Half{}); break;
    case kLong: body(int64_t{}); break;
    default: detail::throw_not_implemented("avg_pool2d", x.dtype());
  }
}

void avg_pool_backward_cpu(const Pool& p, bool count_include_pad,
                           std::optional<int64_t> divisor_override, const Tensor& gy, Tensor& gx) {
  EMBER_DISPATCH_POOL_TYPES(gy.dtype(), "avg_pool2d_backward", [&] {
    using A = opmath_t<scalar_t>;
    const scalar_t* g = gy.data_ptr<scalar_t>();
    scalar_t* o = gx.data_ptr<scalar_t>();
    parallel_for(0, p.planes, grain_for(p.h * p.w), [&](int64_t b, int64_t e) {
      for (int64_t pl = b; pl < e; ++pl) {
        scalar_t* in = o + pl * p.h * p.w;
        for (int64_t oy = 0; oy < p.oh; ++oy) {
          for (int64_t ox = 0; ox < p.ow; ++ox) {
            const A gv = static_cast<A>(g[(pl * p.oh + oy) * p.ow + ox]);
            avg_windows(p, count_include_pad, divisor_override, oy, ox,
                        [&](int64_t y0, int64_t y1, int64_t x0, int64_t x1, int64_t div) {
                          const A s = A(1) / static_cast<A>(div);
                          for (int64_t y = y0; y < y1; ++y) {
                            for (int64_t xx = x0; xx < x1; ++xx) {
                              scalar_t& dst = in[y * p.w + xx];
                              dst = static_cast<scalar_t>(static_cast<A>(dst) + gv * s);
                            }
                          }
                        });
          }
        }
      }
    });
  });
}

// Adaptive windows: [floor(o * in / out), ceil((o + 1) * in / out)).
int64_t a_start(int64_t o, int64_t in, int64_t out) { return (o * in) / out; }
int64_t a_end(int64_t o, int64_t in, int64_t out) { return ((o + 1) * in + out - 1) / out; }

void adaptive_avg_pool_forward_cpu(const detail::AdaptiveGeometry& a, const Tensor& x,
                                   Tensor& out) {
  const int64_t h = a.h, w = a.w, oh = a.oh, ow = a.ow;
  EMBER_DISPATCH_POOL_TYPES(x.dtype(), "adaptive_avg_pool2d", [&] {
    using A = opmath_t<scalar_t>;
    const scalar_t* xp = x.data_ptr<scalar_t>();
    scalar_t* op = out.data_ptr<scalar_t>();
    parallel_for(0, a.planes, grain_for(h * w), [&](int64_t b, int64_t e) {
      for (int64_t pl = b; pl < e; ++pl) {
        for (int64_t oy = 0; oy < oh; ++oy) {
          const int64_t y0 = a_start(oy, h, oh), y1 = a_end(oy, h, oh);
          for (int64_t ox = 0; ox < ow; ++ox) {
            const int64_t x0 = a_start(ox, w, ow), x1 = a_end(ox, w, ow);
            A sum = 0;
            for (int64_t y = y0; y < y1; ++y) {
              for (int64_t xx = x0; xx < x1; ++xx) sum += xp[(pl * h + y) * w + xx];
            }
            op[(pl * oh + oy) * ow + ox] =
                static_cast<scalar_t>(sum / static_cast<A>((y1 - y0) * (x1 - x0)));
          }
        }
      }
    });
  });
}

void adaptive_avg_pool_backward_cpu(const detail::AdaptiveGeometry& a, const Tensor& gy,
                                    Tensor& gx) {
  const int64_t h = a.h, w = a.w, oh = a.oh, ow = a.ow;
  EMBER_DISPATCH_POOL_TYPES(gy.dtype(), "adaptive_avg_pool2d_backward", [&] {
    using A = opmath_t<scalar_t>;
    const scalar_t* g = gy.data_ptr<scalar_t>();
    scalar_t* o = gx.data_ptr<scalar_t>();
    parallel_for(0, a.planes, grain_for(h * w), [&](int64_t b, int64_t e) {
      for (int64_t pl = b; pl < e; ++pl) {
        for (int64_t oy = 0; oy < oh; ++oy) {
          const int64_t y0 = a_start(oy, h, oh), y1 = a_end(oy, h, oh);
          for (int64_t ox = 0; ox < ow; ++ox) {
            const int64_t x0 = a_start(ox, w, ow), x1 = a_end(ox, w, ow);
            const A v = static_cast<A>(g[(pl * oh + oy) * ow + ox]) /
                        static_cast<A>((y1 - y0) * (x1 - x0));
            for (int64_t y = y0; y < y1; ++y) {
              for (int64_t xx = x0; xx < x1; ++xx) {
                scalar_t& dst = o[(pl * h + y) * w + xx];
                dst = static_cast<scalar_t>(static_cast<A>(dst) + v);
              }
            }
          }
        }
      }
    });
  });
}

}  // namespace

namespace detail {
EMBER_DEFINE_KERNEL_TABLE(avg_pool_forward_stub, AvgPoolForwardFn);
EMBER_DEFINE_KERNEL_TABLE(avg_pool_backward_stub, AvgPoolBackwardFn);
EMBER_DEFINE_KERNEL_TABLE(adaptive_avg_pool_forward_stub, AdaptivePoolFn);
EMBER_DEFINE_KERNEL_TABLE(adaptive_avg_pool_backward_stub, AdaptivePoolFn);
EMBER_REGISTER_KERNEL(avg_pool_forward_stub, kCPU, &avg_pool_forward_cpu);
EMBER_REGISTER_KERNEL(avg_pool_backward_stub, kCPU, &avg_pool_backward_cpu);
EMBER_REGISTER_KERNEL(adaptive_avg_pool_forward_stub, kCPU, &adaptive_avg_pool_forward_cpu);
EMBER_REGISTER_KERNEL(adaptive_avg_pool_backward_stub, kCPU, &adaptive_avg_pool_backward_cpu);
}  // namespace detail

Tensor avg_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                  std::optional<int64_t> divisor_override) {
  EMBER_CHECK(!divisor_override || *divisor_override != 0, "divisor must be not zero");
  const Pool p = make_pool(input, kernel_size, stride, padding, {}, ceil_mode);
  profiler::RecordFunction prof_range("avg_pool2d", profiler::RangeKind::kOp, input);
  detail::OpScope scope(input);
  Tensor out;
  if (detail::pool_channels_last(input)) {  // Note [Channels-last pooling]
    out = empty(out_sizes(input, p.oh, p.ow),
                input.options().memory_format(MemoryFormat::ChannelsLast));
    detail::avg_pool_forward_channels_last(p, input.size(1), count_include_pad, divisor_override,
                                           input.contiguous(MemoryFormat::ChannelsLast), out);
  } else {
    Tensor x = input.contiguous();
    out = empty(out_sizes(input, p.oh, p.ow), x.options());
    detail::avg_pool_forward_stub(input.device())(p, count_include_pad, divisor_override, x, out);
    out = detail::in_layout_of_input(out, input);
  }
  if (scope.active()) {
    OpArgs args{dv(kernel_size), dv(stride), dv(padding), Scalar(ceil_mode),
                Scalar(count_include_pad)};
    args.push_back(divisor_override ? OpArg(Scalar(*divisor_override)) : OpArg());
    scope.record("avg_pool2d", {input}, {out}, std::move(args));
  }
  return out;
}

Tensor avg_pool2d_backward(const Tensor& grad_output, IntArrayRef input_sizes,
                           IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                           bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override) {
  // Note [Channels-last pooling]: a channels-last grad_output (this op has
  // no input to ask) gets its gradient pooled back in channels-last memory.
  const bool cl = detail::pool_channels_last(grad_output) && input_sizes.size() == 4;
  Tensor gx = zeros(input_sizes, grad_output.options().memory_format(
                                     cl ? MemoryFormat::ChannelsLast : MemoryFormat::Contiguous));
  const Pool p = make_pool(gx, kernel_size, stride, padding, {}, ceil_mode);
  EMBER_CHECK(grad_output.sizes() == IntArrayRef(out_sizes(gx, p.oh, p.ow)),
              "avg_pool2d_backward: grad_output of size ", detail::bracketed(grad_output.sizes()),
              " does not match the output ", detail::bracketed(out_sizes(gx, p.oh, p.ow)));
  profiler::RecordFunction prof_range("avg_pool2d_backward", profiler::RangeKind::kOp, grad_output);
  detail::OpScope scope(grad_output);  // Note [Differentiable backward kernels]
  if (cl) {
    detail::avg_pool_backward_channels_last(p, gx.size(1), count_include_pad, divisor_override,
                                            grad_output.contiguous(MemoryFormat::ChannelsLast), gx);
  } else {
    Tensor gy = grad_output.contiguous();
    detail::avg_pool_backward_stub(gy.device())(p, count_include_pad, divisor_override, gy, gx);
  }
  if (scope.active()) {
    OpArgs args{dv(input_sizes), dv(kernel_size), dv(stride), dv(padding), Scalar(ceil_mode),
                Scalar(count_include_pad)};
    args.push_back(divisor_override ? OpArg(Scalar(*divisor_override)) : OpArg());
    scope.record("avg_pool2d_backward", {grad_output}, {gx}, std::move(args));
  }
  return gx;
}

Tensor avg_pool2d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                           IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                           bool count_include_pad, std::optional<int64_t> divisor_override) {
  const Pool p = make_pool(self, kernel_size, stride, padding, {}, ceil_mode);
  check_pooled_size(grad_output, self, p);
  const MemoryFormat f = grad_format(self);
  return avg_pool2d_backward(grad_output.contiguous(f), self.sizes(), kernel_size, stride, padding,
                             ceil_mode, count_include_pad, divisor_override)
      .contiguous(f);
}

Tensor adaptive_avg_pool2d(const Tensor& input, IntArrayRef output_size) {
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4,
              "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got [",
              absl::StrJoin(input.sizes(), ", "), "]");
  EMBER_CHECK(output_size.size() == 2, "adaptive_avg_pool2d: output_size must be 2");
  const int64_t oh = output_size[0], ow = output_size[1];
  if (oh == 1 && ow == 1) {
    // As PyTorch's at::adaptive_avg_pool2d: a 1x1 output is the mean over
    // the plane (grad_fn MeanBackward1), a channels-last input's result
    // restrided in place (AsStridedBackward1 <- MeanBackward1).
    Tensor out = input.mean({-1, -2}, /*keepdim=*/true);
    if (input.suggest_memory_format() == MemoryFormat::ChannelsLast) {
      const int64_t n = input.size(0), c = input.size(1);
      out.as_strided_({n, c, 1, 1}, {c, 1, c, c});
    }
    return out;
  }
  const int64_t h = input.size(-2), w = input.size(-1);
  const int64_t planes = input.dim() == 4 ? input.size(0) * input.size(1) : input.size(0);
  profiler::RecordFunction prof_range("adaptive_avg_pool2d", profiler::RangeKind::kOp, input);
  detail::OpScope scope(input);
  Tensor out;
  if (detail::pool_channels_last(input)) {  // Note [Channels-last pooling]
    out =
        empty(out_sizes(input, oh, ow), input.options().memory_format(MemoryFormat::ChannelsLast));
    detail::adaptive_avg_pool_forward_channels_last(
        {planes, h, w, oh, ow}, input.size(1), input.contiguous(MemoryFormat::ChannelsLast), out);
  } else {
    Tensor x = input.contiguous();
    out = empty(out_sizes(input, oh, ow), x.options());
    detail::adaptive_avg_pool_forward_stub(input.device())({planes, h, w, oh, ow}, x, out);
    out = detail::in_layout_of_input(out, input);
  }
  if (scope.active()) scope.record("adaptive_avg_pool2d", {input}, {out}, {dv(output_size)});
  return out;
}

Tensor adaptive_avg_pool2d_backward(const Tensor& grad_output, IntArrayRef input_sizes) {
  EMBER_CHECK((input_sizes.size() == 3 || input_sizes.size() == 4) &&
                  grad_output.dim() == static_cast<int64_t>(input_sizes.size()) &&
                  grad_output.sizes().subspan(0, input_sizes.size() - 2) ==
                      input_sizes.subspan(0, input_sizes.size() - 2),
              "adaptive_avg_pool2d_backward: grad_output of size ",
              detail::bracketed(grad_output.sizes()), " does not match an input of size ",
              detail::bracketed(input_sizes));
  // 1.13's: an empty output (output_size 0) has no gradient to give.
  for (int64_t i = 1; i < grad_output.dim(); ++i) {
    EMBER_CHECK(grad_output.size(i) > 0,
                "adaptive_avg_pool2d_backward(): Expected grad_output to have non-zero size for "
                "non-batch dimensions, but grad_output has sizes ",
                detail::bracketed(grad_output.sizes()), " with dimension ", i, " being empty");
  }
  profiler::RecordFunction prof_range("adaptive_avg_pool2d_backward", profiler::RangeKind::kOp,
                                      grad_output);
  detail::OpScope scope(grad_output);  // Note [Differentiable backward kernels]
  // Note [Channels-last pooling]: as avg_pool2d_backward.
  const bool cl = detail::pool_channels_last(grad_output) && input_sizes.size() == 4;
  Tensor gx = zeros(input_sizes, grad_output.options().memory_format(
                                     cl ? MemoryFormat::ChannelsLast : MemoryFormat::Contiguous));
  const int64_t h = input_sizes[input_sizes.size() - 2], w = input_sizes.back();
  const int64_t oh = grad_output.size(-2), ow = grad_output.size(-1);
  const int64_t planes = h * w == 0 ? 0 : gx.numel() / (h * w);
  if (cl) {
    detail::adaptive_avg_pool_backward_channels_last(
        {planes, h, w, oh, ow}, gx.size(1), grad_output.contiguous(MemoryFormat::ChannelsLast), gx);
  } else {
    Tensor gy = grad_output.contiguous();
    detail::adaptive_avg_pool_backward_stub(gy.device())({planes, h, w, oh, ow}, gy, gx);
  }
  if (scope.active()) {
    scope.record("adaptive_avg_pool2d_backward", {grad_output}, {gx}, {dv(input_sizes)});
  }
  return gx;
}

Tensor _adaptive_avg_pool2d_backward(const Tensor& grad_output, const Tensor& self) {
  EMBER_CHECK(self.dim() == grad_output.dim(),
              "_adaptive_avg_pool2d_backward: grad_output of size ",
              detail::bracketed(grad_output.sizes()), " does not match an input of size ",
              detail::bracketed(self.sizes()));
  const MemoryFormat f = grad_format(self);
  return adaptive_avg_pool2d_backward(grad_output.contiguous(f), self.sizes()).contiguous(f);
}

}  // namespace ember
