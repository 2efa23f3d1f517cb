#ifndef EMBER_NN_FUNCTIONAL_DROPOUT_H_
#define EMBER_NN_FUNCTIONAL_DROPOUT_H_

#include "nn/functional/options.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {
namespace functional {

struct DropoutFuncOptions {
  EMBER_ARG(double, p) = 0.5;
  EMBER_ARG(bool, training) = true;
  EMBER_ARG(bool, inplace) = false;
};
// In training, zeroes each element with probability p (drawn from the
// default generator as PyTorch's bernoulli_(1 - p), so manual_seed gives
// PyTorch's mask) and scales the rest by 1 / (1 - p); otherwise the input.
Tensor dropout(const Tensor& input, const DropoutFuncOptions& options = {});

}  // namespace functional
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_FUNCTIONAL_DROPOUT_H_
