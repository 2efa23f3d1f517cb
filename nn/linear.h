#ifndef EMBER_NN_LINEAR_H_
#define EMBER_NN_LINEAR_H_

// Linear, Identity and Flatten.

#include <cstdint>

#include "nn/functional/options.h"
#include "nn/module.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {

struct LinearOptions {
  LinearOptions(int64_t in_features, int64_t out_features)
      : in_features_(in_features), out_features_(out_features) {}
  EMBER_ARG(int64_t, in_features);
  EMBER_ARG(int64_t, out_features);
  EMBER_ARG(bool, bias) = true;
};

// y = x W^T + b. W is (out_features, in_features), both drawn from
// U(-1/sqrt(in_features), 1/sqrt(in_features)) as PyTorch does
// (kaiming_uniform_ with a = sqrt(5)).
class LinearImpl : public Module {
 public:
  LinearImpl(int64_t in_features, int64_t out_features)
      : LinearImpl(LinearOptions(in_features, out_features)) {}
  explicit LinearImpl(const LinearOptions& options);

  void reset_parameters();
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;

  LinearOptions options;
  Tensor weight;
  Tensor bias;  // undefined with bias(false)
};
EMBER_MODULE(Linear);

// Returns its input.
class IdentityImpl : public Module {
 public:
  Tensor forward(const Tensor& input) { return input; }
};
EMBER_MODULE(Identity);

struct FlattenOptions {
  EMBER_ARG(int64_t, start_dim) = 1;
  EMBER_ARG(int64_t, end_dim) = -1;
};

class FlattenImpl : public Module {
 public:
  explicit FlattenImpl(const FlattenOptions& options = {}) : options(options) {}
  Tensor forward(const Tensor& input) {
    return input.flatten(options.start_dim(), options.end_dim());
  }
  std::string extra_repr() const override;

  FlattenOptions options;
};
EMBER_MODULE(Flatten);

}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_LINEAR_H_
