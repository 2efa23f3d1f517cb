#include "nn/functional/linear.h"

#include "tensor/autocast.h"
#include "tensor/linalg.h"
#include "tensor/math.h"
#include "tensor/trilinear.h"

namespace ember {
namespace nn {
namespace functional {

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  EMBER_AUTOCAST(linear, ::ember::nn::functional::linear, input, weight, bias);
  // PyTorch 1.13's aten::linear: addmm for 2-D input with bias, else matmul
  // (+ bias), so grad_fn names match (AddmmBackward0 / MmBackward0 / ...).
  if (input.dim() == 2 && bias.defined()) return ember::addmm(bias, input, weight.t());
  // And the fused path for contiguous 3-D input: view, addmm, view.
  if (input.dim() == 3 && bias.defined() && input.is_contiguous()) {
    const int64_t b = input.size(0), t = input.size(1);
    Tensor out = ember::addmm(bias, input.view({b * t, input.size(2)}), weight.t());
    return out.view({b, t, out.size(1)});
  }
  Tensor out = ember::matmul(input, weight.t());
  if (bias.defined()) out = out + bias;
  return out;
}

Tensor flatten(const Tensor& input, int64_t start_dim, int64_t end_dim) {
  return input.flatten(start_dim, end_dim);
}

Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight,
                const Tensor& bias) {
  EMBER_CHECK(input1.dim() == input2.dim(), "bilinear(): input dimensions do not match: got ",
              input1.dim(), " and ", input2.dim());
  EMBER_CHECK(input1.dim() >= 1 && weight.dim() == 3, "bilinear(): expected inputs of at least "
                                                      "one dim and a 3-D weight");
  for (int64_t i = 0; i + 1 < input1.dim(); ++i) {
    EMBER_CHECK(input1.size(i) == input2.size(i),
                "bilinear(): input batch dimensions do not match: got ", input1.size(i), " and ",
                input2.size(i));
  }
  EMBER_CHECK(input1.size(-1) == weight.size(1),
              "bilinear(): input1 size does not match weight size: got ", input1.size(-1),
              " but expected ", weight.size(1));
  EMBER_CHECK(input2.size(-1) == weight.size(2),
              "bilinear(): input2 size does not match weight size: got ", input2.size(-1),
              " but expected ", weight.size(2));
  EMBER_CHECK(!bias.defined() || bias.size(0) == weight.size(0),
              "bilinear(): bias size does not match weight size: got ",
              bias.defined() ? bias.size(0) : 0, " but expected ", weight.size(0));
  DimVector out_size(input1.sizes().begin(), input1.sizes().end() - 1);
  out_size.push_back(weight.size(0));
  const Tensor x1 = input1.reshape({-1, input1.size(-1)});  // [B, I1]
  const Tensor x2 = input2.reshape({-1, input2.size(-1)});  // [B, I2]
  // 1.13's composition: sum_ij x1[b, i] w[o, i, j] x2[b, j] -> [B, O].
  Tensor out = _trilinear(x1, weight, x2, {1, 3}, {0}, {1, 2}, {2, 3}).reshape(out_size);
  if (bias.defined()) out = out + bias;
  return out;
}

}  // namespace functional
}  // namespace nn
}  // namespace ember
