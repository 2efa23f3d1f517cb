// The 1-d, 3-d, adaptive max and fractional max poolings, written on
// //tensor's 2-d kernels and differentiable indexing.
//
// Note [Separable pooling]: a max or average over a box is a max or average
// over depth of the max or average over each (H, W) window, and PyTorch
// 1.13's window sizes, ceil_mode rule and divisors (count_include_pad or
// not) are products of per-dim ones; so a 3-d pool is a 2-d pool of each
// depth plane followed by a 2-d pool of kernel (KD, 1) across depth. For
// max, taking the first maximum of each stage picks the first maximum in
// (d, h, w) order, PyTorch's choice on ties, and the stages' indices
// combine into PyTorch's flat D*H*W index. Adaptive max pooling gathers
// each output's window (padded to the widest by repeating its last
// element, which changes neither the maximum nor the first index of it)
// and takes max over it, one dim at a time. The ops run wherever the 2-d
// kernels and index_select do (CPU and CUDA). On the CPU, the forwards of
// avg_pool3d and adaptive_avg_pool3d (float, double) are 1.13's direct
// loops instead (Note [Average pooling 3-d on the CPU]); their backwards
// stay the stages' adjoints.
//
// Note [Pooling nodes]: as in PyTorch 1.13, the 3-d poolings and the
// adaptive max poolings are each one node (AvgPool3DBackward0,
// MaxPool3DWithIndicesBackward0, AdaptiveAvgPool3DBackward0,
// AdaptiveMaxPool{2,3}DBackward0): their stages run under one OpScope, so
// none of them records, and the op records itself under ATen's name. The
// derivatives (autograd/derivatives/pooling.cc) are 1.13's: the max
// poolings scatter-add the gradient to the saved indices, the average
// poolings apply the stages' adjoints (the 2-d backward kernels), so the
// gradients are differentiable again. The fractional max poolings and the
// 1-d poolings stay compositions (1.13's 1-d ones are views around the 2-d
// ops too).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <tuple>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nn/functional/pooling.h"
#include "tensor/autograd_hook.h"
#include "tensor/creation.h"
#include "tensor/empty.h"
#include "tensor/dispatch.h"
#include "tensor/error.h"
#include "tensor/nn_ops.h"
#include "tensor/nn_util.h"
#include "tensor/parallel.h"
#include "tensor/random.h"
#include "tensor/selection.h"

namespace ember {
namespace nn {
namespace functional {
namespace {

using ::ember::detail::bracketed;

// PyTorch 1.13's pooling_output_shape, its checks included.
int64_t pooled_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation,
                    bool ceil_mode) {
  EMBER_CHECK(stride != 0, "stride should not be zero");
  EMBER_CHECK(pad <= k / 2, "pad should be at most half of kernel size, but got pad=", pad,
              " and kernel_size=", k);
  const int64_t num = in + 2 * pad - dilation * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  int64_t out = (num >= 0 ? num / stride : -((-num + stride - 1) / stride)) + 1;
  // The last window must start inside the input or its left padding.
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

void check_1d_dims(const Tensor& input, const char* name) {
  EMBER_CHECK(
      input.dim() == 2 || input.dim() == 3, "Expected 2 to 3 dimensions, but got ", input.dim(),
      "-dimensional tensor for argument #1 'self' (while checking arguments for ", name, ")");
}

// The checks of PyTorch's max_pool3d / avg_pool3d (pool3d_shape_check)
// and the output's (D, H, W). x is batched.
std::array<int64_t, 3> pool3d_output(const Tensor& x, const ExpandingArray<3>& k,
                                     const ExpandingArray<3>& s, const ExpandingArray<3>& p,
                                     const ExpandingArray<3>& d, bool ceil_mode, bool avg) {
  std::array<int64_t, 3> in{x.size(2), x.size(3), x.size(4)}, out;
  for (int i = 0; i < 3; ++i) out[i] = pooled_size(in[i], k[i], p[i], s[i], d[i], ceil_mode);
  EMBER_CHECK(k[0] > 0 && k[1] > 0 && k[2] > 0, "kernel size should be greater than zero, but got ",
              "kT: ", k[0], " kH: ", k[1], " kW: ", k[2]);
  EMBER_CHECK(s[0] > 0 && s[1] > 0 && s[2] > 0, "stride should be greater than zero, but got ",
              "dT: ", s[0], " dH: ", s[1], " dW: ", s[2]);
  EMBER_CHECK(d[0] > 0 && d[1] > 0 && d[2] > 0, "dilation should be greater than zero, but got ",
              "dilationT: ", d[0], " dilationH: ", d[1], " dilationW: ", d[2]);
  if (avg) {
    EMBER_CHECK(in[0] >= k[0] && in[1] >= k[1] && in[2] >= k[2], "input image (T: ", in[0],
                " H: ", in[1], " W: ", in[2], ") smaller than kernel size (kT: ", k[0],
                " kH: ", k[1], " kW: ", k[2], ")");
  }
  const int64_t c = x.size(1);
  EMBER_CHECK(out[0] >= 1 && out[1] >= 1 && out[2] >= 1, "Given input size: (", c, "x", in[0], "x",
              in[1], "x", in[2], "). Calculated output size: (", c, "x", out[0], "x", out[1], "x",
              out[2], "). Output size is too small");
  return out;
}

// x batched ([N, C, *]) from a batched or unbatched input of `spatial` dims.
Tensor batched(const Tensor& input, int64_t spatial) {
  return input.dim() == spatial + 1 ? input.unsqueeze(0) : input;
}
Tensor unbatched_like(const Tensor& out, const Tensor& input, int64_t spatial) {
  return input.dim() == spatial + 1 ? out.squeeze(0) : out;
}

// Adaptive max pooling of x along `dim` to `out` windows (Note [Separable
// pooling]): (values, indices along dim).
std::tuple<Tensor, Tensor> adaptive_max_along(const Tensor& x, int64_t dim, int64_t out) {
  const int64_t len = x.size(dim);
  std::vector<int64_t> starts(out), ends(out);
  int64_t width = 1;
  for (int64_t o = 0; o < out; ++o) {
    starts[o] = o * len / out;
    ends[o] = ((o + 1) * len + out - 1) / out;
    width = std::max(width, ends[o] - starts[o]);
  }
  std::vector<int64_t> taps;
  taps.reserve(out * width);
  for (int64_t o = 0; o < out; ++o) {
    for (int64_t k = 0; k < width; ++k)
      taps.push_back(starts[o] + std::min(k, ends[o] - starts[o] - 1));
  }
  DimVector windows(x.sizes().begin(), x.sizes().end());
  windows[dim] = out;
  windows.insert(windows.begin() + dim + 1, width);
  Tensor g = x.index_select(dim, tensor(taps, kLong).to(x.device())).view(windows);
  auto [values, k] = g.max(dim + 1);
  DimVector along(x.dim(), 1);
  along[dim] = out;
  return {values, k + tensor(starts, kLong).to(x.device()).view(along)};
}

// Note [Separable window max]: a max over a box of windows, one spatial dim
// at a time, innermost first. `stage(v, dim, s)` reduces dim `dim` (the
// spatial dim s of S) of v to its windows' (max, index along dim). The
// flat index of the chosen element in its plane is PyTorch's: stage s's
// index lives where the outer dims are still the input's, so it is
// gathered through the outer stages' choices (outermost last).
template <typename Stage>
std::tuple<Tensor, Tensor> separable_window_max(const Tensor& x, int64_t spatial,
                                                const Stage& stage) {
  const int64_t base = x.dim() - spatial;
  std::vector<Tensor> along(spatial);
  Tensor v = x;
  for (int64_t s = spatial - 1; s >= 0; --s) std::tie(v, along[s]) = stage(v, base + s, s);
  Tensor flat;
  for (int64_t s = 0; s < spatial; ++s) {
    Tensor t = along[s];
    for (int64_t j = s - 1; j >= 0; --j) t = t.gather(base + j, along[j]);
    flat = s == 0 ? t : flat * x.size(base + s) + t;
  }
  return {v, flat};
}

// PyTorch's adaptive_max_pool{2,3}d checks: dims, then non-empty planes.
void check_adaptive_max_input(const Tensor& input, int64_t spatial, const char* name) {
  const int64_t dims = input.dim();
  EMBER_CHECK(dims == spatial + 1 || dims == spatial + 2, name, "(): Expected ", spatial + 1,
              "D or ", spatial + 2, "D tensor, but got: ", bracketed(input.sizes()));
  for (int64_t i = 1; i < dims; ++i) {
    EMBER_CHECK(input.size(i) > 0, name,
                "(): Expected input to have non-zero size for non-batch "
                "dimensions, but input has sizes ",
                bracketed(input.sizes()), " with dimension ", i, " being empty");
  }
}

// Adaptive max pooling of a CPU float/double input in one pass, as ATen's
// CPU kernel: per output cell its window [floor(o * in / out),
// ceil((o + 1) * in / out)) along each dim, scanned in row-major order,
// where a value replaces the running maximum when it is greater or NaN (so
// ties keep the first maximum and NaNs the last NaN). The separable
// composition (for other devices and dtypes) keeps the first NaN; both
// agree everywhere else. False where it does not apply.
template <size_t D>
bool adaptive_max_cpu(const Tensor& input, const ExpandingArray<D>& out_size, Tensor* values,
                      Tensor* indices) {
  if (!input.is_cpu() || (input.dtype() != kFloat && input.dtype() != kDouble)) return false;
  std::array<int64_t, 3> in{1, 1, 1}, out{1, 1, 1};
  const int64_t base = input.dim() - static_cast<int64_t>(D);
  for (size_t s = 0; s < D; ++s) {
    in[3 - D + s] = input.size(base + static_cast<int64_t>(s));
    out[3 - D + s] = out_size[s];
    if (out_size[s] < 1) return false;
  }
  DimVector shape(input.sizes().begin(), input.sizes().begin() + base);
  int64_t planes = 1;
  for (int64_t s : shape) planes *= s;
  for (size_t s = 0; s < D; ++s) shape.push_back(out_size[s]);
  const Tensor x = input.contiguous();
  *values = empty(shape, input.options());
  *indices = empty(shape, input.options().dtype(kLong));
  const int64_t plane_in = in[0] * in[1] * in[2], plane_out = out[0] * out[1] * out[2];
  EMBER_DISPATCH_FLOAT_DOUBLE(input.dtype(), "adaptive_max_pool_cpu", [&] {
    using T = scalar_t;
    const T* xp = x.data_ptr<T>();
    T* vp = values->data_ptr<T>();
    int64_t* ip = indices->data_ptr<int64_t>();
    parallel_for(0, planes, std::max<int64_t>(1, 16384 / std::max<int64_t>(plane_in, 1)),
                 [&](int64_t begin, int64_t end) {
                   for (int64_t p = begin; p < end; ++p) {
                     const T* src = xp + p * plane_in;
                     T* v = vp + p * plane_out;
                     int64_t* idx = ip + p * plane_out;
                     for (int64_t od = 0; od < out[0]; ++od) {
                       const int64_t d0 = od * in[0] / out[0];
                       const int64_t d1 = ((od + 1) * in[0] + out[0] - 1) / out[0];
                       for (int64_t oh = 0; oh < out[1]; ++oh) {
                         const int64_t h0 = oh * in[1] / out[1];
                         const int64_t h1 = ((oh + 1) * in[1] + out[1] - 1) / out[1];
                         for (int64_t ow = 0; ow < out[2]; ++ow) {
                           const int64_t w0 = ow * in[2] / out[2];
                           const int64_t w1 = ((ow + 1) * in[2] + out[2] - 1) / out[2];
                           T best = -std::numeric_limits<T>::infinity();
                           int64_t at = (d0 * in[1] + h0) * in[2] + w0;
                           for (int64_t d = d0; d < d1; ++d) {
                             for (int64_t h = h0; h < h1; ++h) {
                               const int64_t row = (d * in[1] + h) * in[2];
                               for (int64_t w = w0; w < w1; ++w) {
                                 const T val = src[row + w];
                                 if (val > best || std::isnan(val)) {
                                   best = val;
                                   at = row + w;
                                 }
                               }
                             }
                           }
                           const int64_t cell = (od * out[1] + oh) * out[2] + ow;
                           v[cell] = best;
                           idx[cell] = at;
                         }
                       }
                     }
                   }
                 });
  });
  return true;
}

template <size_t D>
std::tuple<Tensor, Tensor> adaptive_max_pool_nd(const Tensor& input,
                                                const AdaptivePoolFuncOptions<D>& o,
                                                const char* name) {
  check_adaptive_max_input(input, D, name);
  detail::OpScope scope(input);  // Note [Pooling nodes]
  Tensor values, indices;
  if (!adaptive_max_cpu<D>(input, o.output_size(), &values, &indices)) {
    std::tie(values, indices) =
        separable_window_max(input, D, [&](const Tensor& v, int64_t dim, int64_t s) {
          return adaptive_max_along(v, dim, o.output_size()[s]);
        });
  }
  // 1.13's layouts: a channels-last 4-d input keeps its format (its CPU
  // adaptive_max_pool3d has no channels-last kernel).
  const MemoryFormat f = D == 2 ? input.suggest_memory_format() : MemoryFormat::Contiguous;
  values = values.contiguous(f);
  indices = indices.contiguous(f);
  if (scope.active()) {
    scope.record(name, {input}, {values, indices},
                 {DimVector(o.output_size().begin(), o.output_size().end())});
  }
  return {values, indices};
}

// The window starts of fractional max pooling along one dim: PyTorch's
// generate_intervals, in the input's precision T.
template <typename T>
void fractional_intervals(T sample, int64_t in, int64_t out, int64_t k, int64_t* seq) {
  if (out > 1) {
    const T alpha = static_cast<T>(in - k) / static_cast<T>(out - 1);
    for (int64_t i = 0; i < out - 1; ++i) {
      seq[i] = static_cast<int>((i + sample) * alpha) - static_cast<int>(sample * alpha);
    }
  }
  if (out > 0) seq[out - 1] = in - k;
}

// Max over the windows [start, start + k) of dim `dim` of x [P, ...], with
// starts [P, O] per plane: (values, index along dim).
std::tuple<Tensor, Tensor> fractional_max_along(const Tensor& x, int64_t dim, const Tensor& starts,
                                                int64_t k) {
  const int64_t planes = x.size(0), out = starts.size(1);
  Tensor taps = (starts.unsqueeze(-1) + arange(k, starts.options())).view({planes, out * k});
  DimVector shape(x.dim(), 1), sizes(x.sizes().begin(), x.sizes().end());
  shape[0] = planes;
  shape[dim] = sizes[dim] = out * k;
  DimVector windows = sizes;
  windows[dim] = out;
  windows.insert(windows.begin() + dim + 1, k);
  auto [values, j] = x.gather(dim, taps.view(shape).expand(sizes)).view(windows).max(dim + 1);
  DimVector along(x.dim(), 1);
  along[0] = planes;
  along[dim] = out;
  return {values, j + starts.view(along)};
}

template <typename T>
std::vector<Tensor> fractional_starts(const Tensor& samples, IntArrayRef in, IntArrayRef out,
                                      const int64_t* k, const std::vector<int>& column,
                                      Device device) {
  const int64_t planes = samples.numel() / static_cast<int64_t>(in.size());
  Tensor s =
      samples.detach().to(kCPU).to(std::is_same<T, float>::value ? kFloat : kDouble).contiguous();
  const T* r = s.data_ptr<T>();
  std::vector<Tensor> starts;
  for (size_t d = 0; d < in.size(); ++d) {
    std::vector<int64_t> seq(planes * out[d]);
    for (int64_t p = 0; p < planes; ++p) {
      fractional_intervals<T>(r[p * in.size() + column[d]], in[d], out[d], k[d],
                              seq.data() + p * out[d]);
    }
    starts.push_back(tensor(seq, kLong).view({planes, out[d]}).to(device));
  }
  return starts;
}

// PyTorch 1.13's fractional_max_pool{2,3}d (Python's wrapper, then
// ATen's checks, worded as its kernels word them).
template <size_t D>
std::tuple<Tensor, Tensor> fractional_max_pool_nd(const Tensor& input,
                                                  const FractionalMaxPoolFuncOptions<D>& o) {
  const bool is2d = D == 2;
  const char* name = is2d ? "fractional_max_pool2d" : "fractional_max_pool3d";
  const char* kernel = is2d ? "fractional_max_pool2d()" : "fractional_max_pool3d_out()";
  EMBER_CHECK_VALUE(o.output_size() || o.output_ratio(), name,
                    " requires specifying either an output_size or an output_ratio");
  const int64_t dims = input.dim();
  EMBER_CHECK(dims == D + 1 || dims == D + 2, kernel, ": Expected ", D + 1, "D or ", D + 2,
              "D tensor, but got: ", bracketed(input.sizes()));
  for (int64_t i = 1; i < dims; ++i) {
    EMBER_CHECK(input.size(i) > 0, kernel,
                ": Expected input to have non-zero size for non-batch dimensions, but got",
                bracketed(input.sizes()), " with dimension ", i, " being empty.");
  }
  std::array<int64_t, D> in, out;
  for (size_t d = 0; d < D; ++d) {
    in[d] = input.size(dims - D + d);
    out[d] = o.output_size() ? (*o.output_size())[d]
                             : static_cast<int64_t>(in[d] * (*o.output_ratio())[d]);
  }
  const char* dim_names[] = {"time", "height", "width"};
  for (size_t d = 0; d < D; ++d) {
    const char* what = dim_names[d + 3 - D];
    const int64_t k = o.kernel_size()[d];
    EMBER_CHECK(out[d] + k - 1 <= in[d], kernel, ": pool ", what, " ", k,
                " too large relative to input ", what, " ", in[d]);
  }
  Tensor x = batched(input, D);
  const int64_t n = x.size(0), c = x.size(1);
  Tensor samples = o._random_samples();
  if (!samples.defined()) samples = rand({n, c, static_cast<int64_t>(D)}, input.options());
  EMBER_CHECK(samples.dim() == 3 && samples.size(0) == n && samples.size(1) == c &&
                  samples.size(2) == static_cast<int64_t>(D),
              kernel, ": Expected _random_samples of size [", n, ", ", c, ", ", D, "], but got ",
              bracketed(samples.sizes()));
  // The samples' columns: (W, H) in 2-d, (T, H, W) in 3-d.
  const std::vector<int> column = is2d ? std::vector<int>{1, 0} : std::vector<int>{0, 1, 2};
  const std::vector<Tensor> starts =
      input.scalar_type() == kFloat
          ? fractional_starts<float>(samples, IntArrayRef(in.data(), D), IntArrayRef(out.data(), D),
                                     o.kernel_size().data(), column, x.device())
          : fractional_starts<double>(samples, IntArrayRef(in.data(), D),
                                      IntArrayRef(out.data(), D), o.kernel_size().data(), column,
                                      x.device());
  DimVector planes{n * c};
  planes.insert(planes.end(), in.begin(), in.end());
  auto [values, index] =
      separable_window_max(x.reshape(planes), D, [&](const Tensor& v, int64_t dim, int64_t s) {
        return fractional_max_along(v, dim, starts[s], o.kernel_size()[s]);
      });
  DimVector sizes{n, c};
  sizes.insert(sizes.end(), out.begin(), out.end());
  return {unbatched_like(values.view(sizes), input, D),
          unbatched_like(index.view(sizes), input, D)};
}

// Note [Average pooling 3-d on the CPU]: the two 2-d stages cost about ten
// ops on the small volumes the 3-d poolings mostly see. On the CPU (float,
// double) avg_pool3d is 1.13's frame loop instead (AveragePool3d.cpp): each
// window's sum in the dtype in (d, h, w) order, divided by the override,
// the window's size clipped at input + padding (count_include_pad) or its
// size inside the input; a window wholly in the padding gives 0. Windows
// inside the input along W are summed eight side by side (the same order
// for each, in a fixed-length loop that -O2 vectorizes), the others one
// at a time.
struct AvgPool3dGeometry {
  int64_t in[3], out[3], k[3], s[3], p[3];
  int64_t divisor;  // 0: none
  bool count_include_pad;
  int64_t w_lo, w_hi;  // the outputs whose windows lie inside the input along W
};

// Output ow of the row (d0..d1, h0..h1) whose unclipped depth-height extent
// holds pool_dh places.
template <typename T>
T avg_pool3d_one(const T* ip, const AvgPool3dGeometry& g, int64_t d0, int64_t d1, int64_t h0,
                 int64_t h1, int64_t pool_dh, int64_t ow) {
  const int64_t ih = g.in[1], iw = g.in[2];
  int64_t w0 = ow * g.s[2] - g.p[2];
  int64_t w1 = std::min(w0 + g.k[2], iw + g.p[2]);
  const int64_t pool_w = w1 - w0;
  w0 = std::max<int64_t>(w0, 0);
  w1 = std::min(w1, iw);
  if (w0 >= w1) return T(0);
  T sum = 0;
  for (int64_t z = d0; z < d1; ++z) {
    for (int64_t y = h0; y < h1; ++y) {
      const T* row = ip + (z * ih + y) * iw;
      for (int64_t x = w0; x < w1; ++x) sum += row[x];
    }
  }
  const int64_t factor = g.divisor             ? g.divisor
                         : g.count_include_pad ? pool_dh * pool_w
                                               : (d1 - d0) * (h1 - h0) * (w1 - w0);
  return sum / static_cast<T>(factor);
}

// Planes [lo, hi) of x [planes, D, H, W] into r [planes, out...].
template <typename T>
void avg_pool3d_planes(const T* xp, T* rp, const AvgPool3dGeometry& g, int64_t lo, int64_t hi) {
  const int64_t id = g.in[0], ih = g.in[1], iw = g.in[2];
  const int64_t od_n = g.out[0], oh_n = g.out[1], ow_n = g.out[2];
  const int64_t w_lo = g.w_lo, w_hi = g.w_hi, kw = g.k[2], sw = g.s[2];
  for (int64_t plane = lo; plane < hi; ++plane) {
    const T* ip = xp + plane * id * ih * iw;
    T* op = rp + plane * od_n * oh_n * ow_n;
    for (int64_t od = 0; od < od_n; ++od) {
      for (int64_t oh = 0; oh < oh_n; ++oh, op += ow_n) {
        int64_t d0 = od * g.s[0] - g.p[0], h0 = oh * g.s[1] - g.p[1];
        int64_t d1 = std::min(d0 + g.k[0], id + g.p[0]), h1 = std::min(h0 + g.k[1], ih + g.p[1]);
        const int64_t pool_dh = (d1 - d0) * (h1 - h0);
        d0 = std::max<int64_t>(d0, 0);
        h0 = std::max<int64_t>(h0, 0);
        d1 = std::min(d1, id);
        h1 = std::min(h1, ih);
        if (d0 >= d1 || h0 >= h1) {
          for (int64_t ow = 0; ow < ow_n; ++ow) op[ow] = T(0);
          continue;
        }
        for (int64_t ow = 0; ow < w_lo; ++ow) {
          op[ow] = avg_pool3d_one(ip, g, d0, d1, h0, h1, pool_dh, ow);
        }
        for (int64_t ow = w_hi; ow < ow_n; ++ow) {
          op[ow] = avg_pool3d_one(ip, g, d0, d1, h0, h1, pool_dh, ow);
        }
        // Eight at a time: a fixed-length loop the compiler vectorizes.
        int64_t ow = w_lo;
        if (ow + 8 <= w_hi) {
          const int64_t factor = g.divisor             ? g.divisor
                                 : g.count_include_pad ? pool_dh * kw
                                                       : (d1 - d0) * (h1 - h0) * kw;
          const T f = static_cast<T>(factor);
          // The stride as a constant where it is 1, so that the loads are
          // contiguous.
          auto blocks = [&](auto step) {
            for (; ow + 8 <= w_hi; ow += 8) {
              T acc[8] = {};
              for (int64_t z = d0; z < d1; ++z) {
                for (int64_t y = h0; y < h1; ++y) {
                  const T* row = ip + (z * ih + y) * iw - g.p[2] + ow * step;
                  for (int64_t kx = 0; kx < kw; ++kx) {
                    for (int l = 0; l < 8; ++l) acc[l] += row[kx + l * step];
                  }
                }
              }
              for (int l = 0; l < 8; ++l) op[ow + l] = acc[l] / f;
            }
          };
          if (sw == 1) {
            blocks(std::integral_constant<int64_t, 1>());
          } else {
            blocks(sw);
          }
        }
        for (; ow < w_hi; ++ow) op[ow] = avg_pool3d_one(ip, g, d0, d1, h0, h1, pool_dh, ow);
      }
    }
  }
}

// adaptive_avg_pool3d on the CPU (float, double) as 1.13's frame loop
// (AdaptiveAveragePooling3d.cpp), instead of two adaptive_avg_pool2d
// stages: output o of n along a dim of size len averages [floor(o * len /
// n), ceil((o + 1) * len / n)); each window summed in the dtype in (d, h, w)
// order, then divided by its depth, height and width in turn. x [N, C, D,
// H, W]; the result [N, C, out...], row-major.
Tensor adaptive_avg_pool3d_cpu(const Tensor& input, IntArrayRef os) {
  const Tensor x = input.contiguous();
  const int64_t planes = x.size(0) * x.size(1);
  const int64_t id = x.size(2), ih = x.size(3), iw = x.size(4);
  Tensor r = empty({x.size(0), x.size(1), os[0], os[1], os[2]}, x.options());
  const int64_t per_plane = os[0] * os[1] * os[2];
  EMBER_DISPATCH_FLOAT_DOUBLE(x.dtype(), "adaptive_avg_pool3d_cpu", [&] {
    using T = scalar_t;
    const T* xp = x.data_ptr<T>();
    T* rp = r.data_ptr<T>();
    auto start = [](int64_t o, int64_t n, int64_t len) {
      return (o / n) * len + ((o % n) * len) / n;
    };
    auto end = [](int64_t o, int64_t n, int64_t len) { return 1 + ((o + 1) * len - 1) / n; };
    // The W windows, shared by every row.
    std::vector<int64_t> w0(os[2]), w1(os[2]);
    for (int64_t ow = 0; ow < os[2]; ++ow) {
      w0[ow] = start(ow, os[2], iw);
      w1[ow] = end(ow, os[2], iw);
    }
    parallel_for(0, planes, std::max<int64_t>(1, (int64_t{1} << 14) / (id * ih * iw)),
                 [&](int64_t lo, int64_t hi) {
                   std::vector<T> acc(os[2]);
                   for (int64_t plane = lo; plane < hi; ++plane) {
                     const T* ip = xp + plane * id * ih * iw;
                     T* op = rp + plane * per_plane;
                     for (int64_t od = 0; od < os[0]; ++od) {
                       const int64_t d0 = start(od, os[0], id), d1 = end(od, os[0], id);
                       for (int64_t oh = 0; oh < os[1]; ++oh, op += os[2]) {
                         const int64_t h0 = start(oh, os[1], ih), h1 = end(oh, os[1], ih);
                         // The row's outputs side by side, each summed in
                         // (d, h, w) order: independent chains the CPU
                         // overlaps.
                         std::fill(acc.begin(), acc.end(), T(0));
                         for (int64_t z = d0; z < d1; ++z) {
                           for (int64_t y = h0; y < h1; ++y) {
                             const T* row = ip + (z * ih + y) * iw;
                             for (int64_t ow = 0; ow < os[2]; ++ow) {
                               T a = acc[ow];
                               for (int64_t v = w0[ow]; v < w1[ow]; ++v) a += row[v];
                               acc[ow] = a;
                             }
                           }
                         }
                         for (int64_t ow = 0; ow < os[2]; ++ow) {
                           op[ow] = acc[ow] / static_cast<T>(d1 - d0) / static_cast<T>(h1 - h0) /
                                    static_cast<T>(w1[ow] - w0[ow]);
                         }
                       }
                     }
                   }
                 });
  });
  return r;
}

// x [N, C, D, H, W]; the result [N, C, out...], row-major.
Tensor avg_pool3d_cpu(const Tensor& input, const std::array<int64_t, 3>& out,
                      const ExpandingArray<3>& k, const ExpandingArray<3>& s,
                      const ExpandingArray<3>& p, bool count_include_pad,
                      std::optional<int64_t> divisor) {
  const Tensor x = input.contiguous();
  const int64_t planes = x.size(0) * x.size(1);
  AvgPool3dGeometry g;
  for (int i = 0; i < 3; ++i) {
    g.in[i] = x.size(2 + i);
    g.out[i] = out[i];
    g.k[i] = k[i];
    g.s[i] = s[i];
    g.p[i] = p[i];
  }
  g.divisor = divisor.value_or(0);
  g.count_include_pad = count_include_pad;
  g.w_lo = 0;
  while (g.w_lo < out[2] && g.w_lo * s[2] - p[2] < 0) ++g.w_lo;
  g.w_hi = g.w_lo;
  while (g.w_hi < out[2] && g.w_hi * s[2] - p[2] + k[2] <= g.in[2]) ++g.w_hi;
  Tensor r = empty({x.size(0), x.size(1), out[0], out[1], out[2]}, x.options());
  const int64_t work = std::max<int64_t>(1, out[0] * out[1] * out[2] * k[0] * k[1] * k[2]);
  EMBER_DISPATCH_FLOAT_DOUBLE(x.dtype(), "avg_pool3d_cpu", [&] {
    using T = scalar_t;
    const T* xp = x.data_ptr<T>();
    T* rp = r.data_ptr<T>();
    parallel_for(0, planes, std::max<int64_t>(1, (int64_t{1} << 14) / work),
                 [&](int64_t lo, int64_t hi) { avg_pool3d_planes(xp, rp, g, lo, hi); });
  });
  return r;
}

}  // namespace

// --- 1-d: views of the 2-d kernels -------------------------------------------------------

std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input,
                                                   const MaxPool1dFuncOptions& o) {
  // PyTorch 1.13's check_max_pool1d.
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3,
              "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size "
              "for input, but got:",
              bracketed(input.sizes()));
  const int64_t k = o.kernel_size()[0], s = o.stride()[0], p = o.padding()[0], d = o.dilation()[0];
  EMBER_CHECK(k > 0, "max_pool1d() kernel_size must be greater than zero, but got ", k);
  EMBER_CHECK(s > 0, "max_pool1d() stride must be greater than zero, but got ", s);
  EMBER_CHECK(p >= 0, "max_pool1d() padding must be non-negative, but got ", p);
  EMBER_CHECK(p <= k / 2,
              "max_pool1d() padding should be at most half of kernel size, but got padding=", p,
              " and kernel_size=", k);
  EMBER_CHECK(d > 0, "max_pool1d() dilation must be greater than zero, but got ", d);
  const int64_t ow = pooled_size(input.size(-1), k, p, s, d, o.ceil_mode());
  EMBER_CHECK(ow >= 0, "max_pool1d() Invalid computed output size: ", ow);
  if (ow == 0) {  // PyTorch returns an empty result where the 2-d kernel refuses
    DimVector sizes(input.sizes().begin(), input.sizes().end());
    sizes.back() = 0;
    return {empty(sizes, input.options()), empty(sizes, input.options().dtype(kLong))};
  }
  auto [out, idx] = ember::max_pool2d_with_indices(input.unsqueeze(-2), {1, k}, {1, s}, {0, p},
                                                   {1, d}, o.ceil_mode());
  return {out.squeeze(-2), idx.squeeze(-2)};
}

Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& options) {
  return std::get<0>(max_pool1d_with_indices(input, options));
}

Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& o) {
  check_1d_dims(input, "avg_pool1d");
  return ember::avg_pool2d(input.unsqueeze(-2), {1, o.kernel_size()[0]}, {1, o.stride()[0]},
                           {0, o.padding()[0]}, o.ceil_mode(), o.count_include_pad(),
                           o.divisor_override())
      .squeeze(-2);
}

Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& o) {
  check_1d_dims(input, "adaptive_avg_pool1d");
  return ember::adaptive_avg_pool2d(input.unsqueeze(-2), {1, o.output_size()[0]}).squeeze(-2);
}

// --- adaptive max ----------------------------------------------------------------------------

std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool1dFuncOptions& o) {
  check_1d_dims(input, "adaptive_max_pool1d");
  EMBER_CHECK(input.size(-1) > 0,
              "adaptive_max_pool1d(): Expected input to have non-zero size for non-batch "
              "dimensions, but input has sizes ",
              bracketed(input.sizes()), " with dimension ", input.dim() - 1, " being empty");
  EMBER_CHECK(o.output_size()[0] >= 0,
              "adaptive_max_pool1d: elements of output_size must be "
              "greater than or equal to 0 but received {",
              o.output_size()[0], "}");
  // 1.13's: squeeze(adaptive_max_pool2d(unsqueeze(input, -2), {1, L}), -2),
  // with the 2-d op one node (Note [Pooling nodes]) and its layout.
  Tensor x = input.unsqueeze(-2);
  Tensor values, indices;
  {
    detail::OpScope scope(x);
    if (!adaptive_max_cpu<1>(input, o.output_size(), &values, &indices)) {
      std::tie(values, indices) = adaptive_max_along(input, input.dim() - 1, o.output_size()[0]);
    }
    const MemoryFormat f = x.suggest_memory_format();
    values = values.unsqueeze(-2).contiguous(f);
    indices = indices.unsqueeze(-2).contiguous(f);
    if (scope.active()) {
      scope.record("adaptive_max_pool2d", {x}, {values, indices},
                   {DimVector{1, o.output_size()[0]}});
    }
  }
  return {values.squeeze(-2), indices.squeeze(-2)};
}

Tensor adaptive_max_pool1d(const Tensor& input, const AdaptiveMaxPool1dFuncOptions& options) {
  return std::get<0>(adaptive_max_pool1d_with_indices(input, options));
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool2dFuncOptions& o) {
  return adaptive_max_pool_nd(input, o, "adaptive_max_pool2d");
}

Tensor adaptive_max_pool2d(const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options) {
  return std::get<0>(adaptive_max_pool2d_with_indices(input, options));
}

std::tuple<Tensor, Tensor> adaptive_max_pool3d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool3dFuncOptions& o) {
  return adaptive_max_pool_nd(input, o, "adaptive_max_pool3d");
}

Tensor adaptive_max_pool3d(const Tensor& input, const AdaptiveMaxPool3dFuncOptions& options) {
  return std::get<0>(adaptive_max_pool3d_with_indices(input, options));
}

// --- fractional max: per-plane windows, Note [Separable window max] ---------------------------

std::tuple<Tensor, Tensor> fractional_max_pool2d_with_indices(
    const Tensor& input, const FractionalMaxPool2dFuncOptions& options) {
  return fractional_max_pool_nd(input, options);
}

std::tuple<Tensor, Tensor> fractional_max_pool3d_with_indices(
    const Tensor& input, const FractionalMaxPool3dFuncOptions& options) {
  return fractional_max_pool_nd(input, options);
}

Tensor fractional_max_pool2d(const Tensor& input, const FractionalMaxPool2dFuncOptions& options) {
  return std::get<0>(fractional_max_pool2d_with_indices(input, options));
}

Tensor fractional_max_pool3d(const Tensor& input, const FractionalMaxPool3dFuncOptions& options) {
  return std::get<0>(fractional_max_pool3d_with_indices(input, options));
}

// --- 3-d: two 2-d stages ---------------------------------------------------------------------

std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input,
                                                   const MaxPool3dFuncOptions& o) {
  EMBER_CHECK(input.dim() == 4 || input.dim() == 5,
              "non-empty 4D or 5D (batch mode) tensor expected for input");
  detail::OpScope scope(input);  // Note [Pooling nodes]
  Tensor x = batched(input, 3);
  const auto &k = o.kernel_size(), &s = o.stride(), &p = o.padding(), &d = o.dilation();
  const auto out = pool3d_output(x, k, s, p, d, o.ceil_mode(), /*avg=*/false);
  const int64_t n = x.size(0), c = x.size(1), depth = x.size(2), h = x.size(3), w = x.size(4);
  auto [planes, hw] =
      ember::max_pool2d_with_indices(x.reshape({n, c * depth, h, w}), {k[1], k[2]}, {s[1], s[2]},
                                     {p[1], p[2]}, {d[1], d[2]}, o.ceil_mode());
  const int64_t area = out[1] * out[2];
  auto [result, at] = ember::max_pool2d_with_indices(
      planes.view({n, c, depth, area}), {k[0], 1}, {s[0], 1}, {p[0], 0}, {d[0], 1}, o.ceil_mode());
  // `at` indexes (depth, oh * OW + ow) planes; the chosen depth's (h, w)
  // index is in `hw`.
  Tensor at_flat = at.reshape({n, c, out[0] * area});
  Tensor at_depth = at_flat.floor_divide(area);
  Tensor chosen_hw;
  if (p[0] > 0 && d[0] > 1) {
    // Note [Empty pooling windows] (autograd/derivatives/pooling.cc): a
    // dilated depth window can hold padding only; its index from the depth
    // stage is its first tap, past the last plane. 1.13's index for it is
    // that tap's depth with the (h, w) window's first tap.
    Tensor empty_depth = at_depth.ge(depth);
    chosen_hw = hw.reshape({n, c, depth * area}).gather(2, at_flat.masked_fill(empty_depth, 0));
    std::vector<int64_t> first_tap(area);
    for (int64_t oh = 0; oh < out[1]; ++oh) {
      for (int64_t ow = 0; ow < out[2]; ++ow) {
        int64_t th = oh * s[1] - p[1], tw = ow * s[2] - p[2];
        while (th < 0) th += d[1];
        while (tw < 0) tw += d[2];
        first_tap[oh * out[2] + ow] = th * w + tw;
      }
    }
    Tensor first = tensor(first_tap, kLong).to(x.device()).repeat({out[0]});
    chosen_hw = where(empty_depth, first, chosen_hw);
  } else {
    chosen_hw = hw.reshape({n, c, depth * area}).gather(2, at_flat);
  }
  Tensor index = at_depth * (h * w) + chosen_hw;
  DimVector sizes{n, c, out[0], out[1], out[2]};
  Tensor values = unbatched_like(result.view(sizes), input, 3);
  Tensor indices = unbatched_like(index.view(sizes), input, 3);
  if (scope.active()) {
    scope.record(
        "max_pool3d_with_indices", {input}, {values, indices},
        {DimVector(k.begin(), k.end()), DimVector(s.begin(), s.end()),
         DimVector(p.begin(), p.end()), DimVector(d.begin(), d.end()), Scalar(o.ceil_mode())});
  }
  return {values, indices};
}

Tensor max_pool3d(const Tensor& input, const MaxPool3dFuncOptions& options) {
  return std::get<0>(max_pool3d_with_indices(input, options));
}

Tensor avg_pool3d(const Tensor& input, const AvgPool3dFuncOptions& o) {
  const std::optional<int64_t> divisor = o.divisor_override();
  EMBER_CHECK(!divisor || *divisor != 0, "divisor must be not zero");
  EMBER_CHECK(input.dim() == 4 || input.dim() == 5,
              "non-empty 4D or 5D (batch mode) tensor expected for input");
  detail::OpScope scope(input);  // Note [Pooling nodes]
  Tensor x = batched(input, 3);
  const auto &k = o.kernel_size(), &s = o.stride(), &p = o.padding();
  const auto out = pool3d_output(x, k, s, p, ExpandingArray<3>(1), o.ceil_mode(), /*avg=*/true);
  const int64_t n = x.size(0), c = x.size(1), depth = x.size(2);
  Tensor result;
  if (x.is_cpu() && (x.dtype() == kFloat || x.dtype() == kDouble)) {
    result =
        unbatched_like(avg_pool3d_cpu(x, out, k, s, p, o.count_include_pad(), divisor), input, 3);
  } else {
    // With divisor_override, both stages sum and the override divides once.
    const std::optional<int64_t> stage_divisor = divisor ? std::optional<int64_t>(1) : std::nullopt;
    Tensor planes = ember::avg_pool2d(x.reshape({n, c * depth, x.size(3), x.size(4)}), {k[1], k[2]},
                                      {s[1], s[2]}, {p[1], p[2]}, o.ceil_mode(),
                                      o.count_include_pad(), stage_divisor);
    result = ember::avg_pool2d(planes.view({n, c, depth, out[1] * out[2]}), {k[0], 1}, {s[0], 1},
                               {p[0], 0}, o.ceil_mode(), o.count_include_pad(), stage_divisor);
    if (divisor) result = result / static_cast<double>(*divisor);
    result = unbatched_like(result.view({n, c, out[0], out[1], out[2]}), input, 3);
  }
  if (scope.active()) {
    OpArgs args{DimVector(k.begin(), k.end()), DimVector(s.begin(), s.end()),
                DimVector(p.begin(), p.end()), Scalar(o.ceil_mode()),
                Scalar(o.count_include_pad())};
    args.push_back(divisor ? OpArg(Scalar(*divisor)) : OpArg());
    scope.record("avg_pool3d", {input}, {result}, std::move(args));
  }
  return result;
}

Tensor adaptive_avg_pool3d(const Tensor& input, const AdaptiveAvgPool3dFuncOptions& o) {
  EMBER_CHECK(input.dim() == 4 || input.dim() == 5,
              "adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got ",
              bracketed(input.sizes()));
  for (int64_t i = 1; i < input.dim(); ++i) {
    EMBER_CHECK(input.size(i) > 0,
                "adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch "
                "dimensions, but input has sizes ",
                bracketed(input.sizes()), " with dimension ", i, " being empty");
  }
  const auto& os = o.output_size();
  // As 1.13's at::adaptive_avg_pool3d: a 1x1x1 output is the mean over the
  // volume (MeanBackward1).
  if (os[0] == 1 && os[1] == 1 && os[2] == 1) return input.mean({-1, -2, -3}, /*keepdim=*/true);
  detail::OpScope scope(input);  // Note [Pooling nodes]
  Tensor x = batched(input, 3);
  const int64_t n = x.size(0), c = x.size(1), depth = x.size(2);
  Tensor result;
  if (x.is_cpu() && (x.dtype() == kFloat || x.dtype() == kDouble)) {
    result = unbatched_like(adaptive_avg_pool3d_cpu(x, {os[0], os[1], os[2]}), input, 3);
  } else {
    Tensor planes =
        ember::adaptive_avg_pool2d(x.reshape({n, c * depth, x.size(3), x.size(4)}), {os[1], os[2]});
    // Adaptive pooling of a dim onto its own length is the identity.
    result = ember::adaptive_avg_pool2d(planes.view({n, c, depth, os[1] * os[2]}),
                                        {os[0], os[1] * os[2]});
    result = unbatched_like(result.view({n, c, os[0], os[1], os[2]}), input, 3);
  }
  if (scope.active()) {
    scope.record("adaptive_avg_pool3d", {input}, {result}, {DimVector(os.begin(), os.end())});
  }
  return result;
}

}  // namespace functional
}  // namespace nn
}  // namespace ember
