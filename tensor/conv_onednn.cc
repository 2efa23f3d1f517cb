// CPU convolution through oneDNN's primitives: the bfloat16 route (Note
// [bfloat16 CPU convolution]) and the native channels-last one (Note
// [Native channels-last convolution] in conv.cc), and the bias gradient
// every CPU route shares.
#include <atomic>
#include <functional>
#include <vector>

#include "tensor/conv_cpu.h"
#include "tensor/dispatch.h"
#include "tensor/lane_sum.h"
#include "tensor/math_kernels.h"

namespace ember {
namespace detail {
namespace {

// Note [bfloat16 CPU convolution]: each pass over the samples of a part of
// the batch (the float split, Note [Convolution threads]) through oneDNN's
// bfloat16 primitive; the weight gradient's parts are summed in float and
// rounded once. False where oneDNN has no primitive for the shape (the
// caller then converts to float; what was written is overwritten). Float
// channels-last convolutions take the same route (Note [Native
// channels-last convolution]).
bool onednn_parts(const ConvGeometry& g, bool bf16,
                  const std::function<bool(onednn::ConvShape&, int64_t, int64_t)>& part) {
  const int64_t parts = conv_parts<float>(g);
  std::atomic<bool> ok{true};
  parallel_for(0, parts, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t p = lo; p < hi; ++p) {
      const int64_t s0 = g.n * p / parts, s1 = g.n * (p + 1) / parts;
      onednn::ConvShape s = conv_shape(g, s0, s1);
      s.bf16 = bf16;
      if (!part(s, p, s0)) ok = false;
    }
  });
  return ok;
}

// t's data from sample s0 on, `sample` elements per sample (a sample is
// that many consecutive elements in both layouts).
const void* at_sample(const Tensor& t, int64_t s0, int64_t sample) {
  return static_cast<const char*>(t.data_ptr()) + s0 * sample * t.element_size();
}
void* at_sample(Tensor& t, int64_t s0, int64_t sample) {
  return static_cast<char*>(t.data_ptr()) + s0 * sample * t.element_size();
}

// gb[co] = the sum of gy over samples and positions, gy channels-last: the
// column sums of an [n * oh * ow, co] matrix, in double (vectorized over co).
template <typename T>
void channel_sums_cl(const T* gy, int64_t rows, int64_t co, T* gb) {
  std::vector<double> acc(co, 0.0);
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = gy + r * co;
    for (int64_t c = 0; c < co; ++c) acc[c] += static_cast<double>(row[c]);
  }
  for (int64_t c = 0; c < co; ++c) gb[c] = static_cast<T>(acc[c]);
}

// The bias gradient's per-plane sums (3% of the LeNet step) in lanes
// (tensor/lane_sum.h) of Acc (float for bfloat16 planes).
template <typename Acc, typename T>
Acc plane_sum(const T* p, int64_t n) {
  return lane_sum<Acc>(n, [p](int64_t i) { return static_cast<Acc>(p[i]); });
}

// gb[co] = the sum of gy's planes of channel co over the batch, accumulated
// in Acc and converted once.
template <typename Acc, typename T>
void bias_grad(const ConvGeometry& g, const T* gy, T* gb) {
  const int64_t L = g.l();
  for (int64_t co = 0; co < g.co; ++co) {
    Acc s = 0;
    for (int64_t n = 0; n < g.n; ++n) s += plane_sum<Acc>(gy + (n * g.co + co) * L, L);
    gb[co] = static_cast<T>(s);
  }
}

}  // namespace

void conv_bias_grad(const ConvGeometry& g, const Tensor& gy, Tensor& gb) {
  EMBER_DISPATCH_FLOATING_TYPES(gy.dtype(), "convolution_backward", [&] {
    const scalar_t* p = gy.data_ptr<scalar_t>();
    scalar_t* o = gb.data_ptr<scalar_t>();
    if (g.channels_last) {
      channel_sums_cl(p, g.n * g.l(), g.co, o);
    } else {
      bias_grad<opmath_t<scalar_t>>(g, p, o);
    }
  });
}

bool conv_onednn_forward(const ConvGeometry& g, const Tensor& x, const Tensor& w, const Tensor& b,
                         Tensor& out) {
  const void* bp = b.defined() ? b.data_ptr() : nullptr;
  return onednn_parts(g, x.dtype() == kBFloat16, [&](onednn::ConvShape& s, int64_t, int64_t s0) {
    return onednn::conv_forward(s, at_sample(x, s0, g.c * g.h * g.w), w.data_ptr(), bp,
                                at_sample(out, s0, g.co * g.l()));
  });
}

bool conv_onednn_backward(const ConvGeometry& g, const Tensor& gy, const Tensor& x, const Tensor& w,
                          Tensor& gx, Tensor& gw, Tensor& gb) {
  const int64_t in_sample = g.c * g.h * g.w, out_sample = g.co * g.l();
  const int64_t parts = conv_parts<float>(g);
  // The weight gradient's float parts; a single float one goes straight to gw.
  const bool direct = gw.defined() && parts == 1 && gw.dtype() == kFloat;
  Tensor partial = !gw.defined() ? Tensor()
                   : direct      ? gw
                                 : empty({parts, gw.numel()}, gw.options().dtype(kFloat));
  const bool ok =
      onednn_parts(g, gy.dtype() == kBFloat16, [&](onednn::ConvShape& s, int64_t p, int64_t s0) {
        bool done = true;
        if (gx.defined()) {
          done = onednn::conv_backward_data(s, at_sample(gy, s0, out_sample), w.data_ptr(),
                                            at_sample(gx, s0, in_sample));
        }
        if (done && gw.defined()) {
          done = onednn::conv_backward_weights(s, at_sample(gy, s0, out_sample),
                                               at_sample(x, s0, in_sample),
                                               partial.data_ptr<float>() + p * gw.numel());
        }
        return done;
      });
  if (!ok) return false;
  if (gw.defined() && !direct) {
    // One part (bfloat16 on one thread) is only rounded; several are summed.
    gw.copy_((parts == 1 ? partial : partial.sum(0)).view(gw.sizes()));
  }
  // Summed wider and rounded once, from gy's own memory (a float copy of gy
  // and a general reduction took 15% of ResNet-18's bfloat16 layer2 step).
  if (gb.defined()) conv_bias_grad(g, gy, gb);
  return true;
}

}  // namespace detail
}  // namespace ember
