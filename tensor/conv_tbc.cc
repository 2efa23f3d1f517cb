// conv_tbc and conv_tbc_backward (nn_ops.h): a 1-D convolution over
// [time, batch, channels] inputs, written as PyTorch 1.13 computes it (one
// matrix product per kernel tap over the time steps that tap reaches), with
// ember's device ops, so it runs wherever addmm and mm do. Recorded as one
// op (ConvTbcBackward0, autograd/derivatives/nn.cc).

#include <algorithm>

#include "tensor/autograd_hook.h"
#include "tensor/creation.h"
#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/linalg.h"
#include "tensor/nn_ops.h"
#include "tensor/shape.h"

namespace ember {

namespace {

// Tap k of a kernel of width kw, padding pad, over ilen input steps and
// olen output steps: input rows [in, in + len) reach output rows
// [out, out + len); len <= 0 when the tap reaches nothing.
struct Tap {
  int64_t in, out, len;
};
Tap tap(int64_t k, int64_t pad, int64_t ilen, int64_t olen) {
  const int64_t in = std::max<int64_t>(0, k - pad), out = std::max<int64_t>(0, pad - k);
  return {in, out, std::min(ilen + pad - k, olen) - out};
}

}  // namespace

Tensor conv_tbc(const Tensor& self, const Tensor& weight, const Tensor& bias, int64_t pad) {
  EMBER_CHECK(self.dim() == 3, "Input must have 3 dims: time, batch, in_channel");
  EMBER_CHECK(weight.dim() == 3,
              "Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.");
  EMBER_CHECK(bias.dim() == 1, "Bias must be 1-D");
  const int64_t ilen = self.size(0), batch = self.size(1), in_planes = self.size(2);
  const int64_t kw = weight.size(0), out_planes = weight.size(2);
  const int64_t olen = ilen - kw + 1 + pad * 2;
  EMBER_CHECK(in_planes == weight.size(1),
              "Input dim 2 (input channels) is not == dim 1 in the weight tensor");
  EMBER_CHECK(out_planes == bias.size(0),
              "Bias size must equal dim 2 in the weight tensor (output channels).");
  return detail::record_out_op(
      "conv_tbc", Tensor(), {self, weight, bias},
      [&] {
        Tensor out = empty({olen, batch, out_planes}, self.options());
        out.copy_(bias.expand(out.sizes()));
        for (int64_t k = 0; k < kw; ++k) {
          const Tap t = tap(k, pad, ilen, olen);
          if (t.len <= 0) continue;
          out.narrow(0, t.out, t.len)
              .view({t.len * batch, out_planes})
              .addmm_(self.narrow(0, t.in, t.len).reshape({t.len * batch, in_planes}),
                      weight.select(0, k));
        }
        return out;
      },
      [&] { return OpArgs{Scalar(pad)}; });
}

// Out of place, with differentiable ops: a gradient computed under
// create_graph can be differentiated again.
std::tuple<Tensor, Tensor, Tensor> conv_tbc_backward(const Tensor& self, const Tensor& input,
                                                     const Tensor& weight, const Tensor& bias,
                                                     int64_t pad) {
  const int64_t ilen = input.size(0), batch = input.size(1), in_planes = input.size(2);
  const int64_t kw = weight.size(0), out_planes = weight.size(2);
  const int64_t olen = ilen - kw + 1 + pad * 2;
  Tensor grad_input = zeros_like(input);
  std::vector<Tensor> grad_weight_taps;
  for (int64_t k = 0; k < kw; ++k) {
    const Tap t = tap(k, pad, ilen, olen);
    if (t.len <= 0) {
      grad_weight_taps.push_back(zeros_like(weight.select(0, k)));
      continue;
    }
    const Tensor g = self.narrow(0, t.out, t.len).reshape({t.len * batch, out_planes});
    const Tensor gi = g.mm(weight.select(0, k).t()).view({t.len, batch, in_planes});
    // gi placed at input rows [t.in, t.in + t.len), zero elsewhere.
    grad_input =
        grad_input + cat({zeros({t.in, batch, in_planes}, input.options()), gi,
                          zeros({ilen - t.in - t.len, batch, in_planes}, input.options())});
    const Tensor x = input.narrow(0, t.in, t.len).reshape({t.len * batch, in_planes});
    grad_weight_taps.push_back(x.t().mm(g));
  }
  Tensor grad_weight = kw > 0 ? stack(grad_weight_taps) : zeros_like(weight);
  Tensor grad_bias = self.sum(0).sum(0).to(bias.dtype());
  return {grad_input, grad_weight, grad_bias};
}

}  // namespace ember
