#ifndef EMBER_NN_DROPOUT_H_
#define EMBER_NN_DROPOUT_H_

// Dropout: zeroes elements with probability p while training (the mask
// drawn from the default generator, so manual_seed gives PyTorch's), and
// is the identity in eval mode.

#include <string>

#include "nn/functional/options.h"
#include "nn/module.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {

struct DropoutOptions {
  /* implicit */ DropoutOptions(double p = 0.5) : p_(p) {}  // NOLINT
  EMBER_ARG(double, p);
  EMBER_ARG(bool, inplace) = false;
};

class DropoutImpl : public Module {
 public:
  // ValueError unless 0 <= p <= 1.
  explicit DropoutImpl(const DropoutOptions& options = {});
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  DropoutOptions options;
};
EMBER_MODULE(Dropout);

}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_DROPOUT_H_
