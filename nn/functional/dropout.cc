#include "nn/functional/dropout.h"

#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/math.h"

namespace ember {
namespace nn {
namespace functional {

Tensor dropout(const Tensor& input, const DropoutFuncOptions& options) {
  const double p = options.p();
  EMBER_CHECK_VALUE(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
  if (!options.training() || p == 0 || input.numel() == 0) return input;
  // PyTorch 1.13's CPU _dropout_impl: noise = bernoulli_(1 - p) / (1 - p),
  // then input * noise (MulBackward0); the same draws under manual_seed.
  if (p == 1) {
    Tensor zeros = input * 0;
    if (!options.inplace()) return zeros;
    Tensor t = input;
    return t.mul_(0);
  }
  Tensor noise = empty_like(input);
  noise.bernoulli_(1 - p);
  noise.div_(1 - p);
  if (!options.inplace()) return input * noise;
  Tensor t = input;
  return t.mul_(noise);
}

}  // namespace functional
}  // namespace nn
}  // namespace ember
