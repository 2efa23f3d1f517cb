#ifndef EMBER_NN_LINEAR_H_
#define EMBER_NN_LINEAR_H_

// Linear, Identity, Flatten and Unflatten.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

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
struct BilinearOptions {
  BilinearOptions(int64_t in1_features, int64_t in2_features, int64_t out_features)
      : in1_features_(in1_features), in2_features_(in2_features), out_features_(out_features) {}
  EMBER_ARG(int64_t, in1_features);
  EMBER_ARG(int64_t, in2_features);
  EMBER_ARG(int64_t, out_features);
  EMBER_ARG(bool, bias) = true;
};

// weight [out, in1, in2] and bias [out], both uniform in +-1/sqrt(in1) as
// PyTorch initializes them (bit for bit under manual_seed).
class BilinearImpl : public Module {
 public:
  BilinearImpl(int64_t in1_features, int64_t in2_features, int64_t out_features)
      : BilinearImpl(BilinearOptions(in1_features, in2_features, out_features)) {}
  explicit BilinearImpl(const BilinearOptions& options);

  void reset_parameters();
  Tensor forward(const Tensor& input1, const Tensor& input2);
  std::string extra_repr() const override;

  BilinearOptions options;
  Tensor weight;
  Tensor bias;  // undefined with bias(false)
};
EMBER_MODULE(Bilinear);

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

struct UnflattenOptions {
  UnflattenOptions(int64_t dim, std::vector<int64_t> sizes)
      : dim_(dim), sizes_(std::move(sizes)) {}
  EMBER_ARG(int64_t, dim);
  EMBER_ARG(std::vector<int64_t>, sizes);  // one may be -1 (inferred)
};

// Splits dim `dim` into `sizes` (Tensor::unflatten):
//   nn::Unflatten(nn::UnflattenOptions(1, {2, 3}))
// PyTorch's named-tensor form (a dim name and (name, size) pairs) is left
// out.
class UnflattenImpl : public Module {
 public:
  UnflattenImpl(int64_t dim, std::vector<int64_t> sizes)
      : UnflattenImpl(UnflattenOptions(dim, std::move(sizes))) {}
  explicit UnflattenImpl(UnflattenOptions options) : options(std::move(options)) {}
  Tensor forward(const Tensor& input) { return input.unflatten(options.dim(), options.sizes()); }
  std::string extra_repr() const override;

  UnflattenOptions options;
};
EMBER_MODULE(Unflatten);

}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_LINEAR_H_
