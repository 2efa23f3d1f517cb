#ifndef EMBER_NN_NORMALIZATION_H_
#define EMBER_NN_NORMALIZATION_H_

// BatchNorm1d/2d/3d, LayerNorm and GroupNorm (InstanceNorm:
// nn/instancenorm.h).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nn/functional/normalization.h"
#include "nn/functional/options.h"
#include "nn/module.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {

struct BatchNormOptions {
  /* implicit */ BatchNormOptions(int64_t num_features)  // NOLINT
      : num_features_(num_features) {}
  EMBER_ARG(int64_t, num_features);
  EMBER_ARG(double, eps) = 1e-5;
  // nullopt: a cumulative average (PyTorch's momentum=None).
  EMBER_ARG(std::optional<double>, momentum) = 0.1;
  EMBER_ARG(bool, affine) = true;
  EMBER_ARG(bool, track_running_stats) = true;
};

// PyTorch's _NormBase, what BatchNorm and InstanceNorm (nn/instancenorm.h)
// share: parameters weight (ones) and bias (zeros) [num_features] when
// options.affine(); buffers running_mean (zeros), running_var (ones) and
// num_batches_tracked (kLong 0) when options.track_running_stats(), in
// PyTorch's order.
template <typename Options>
class NormImplBase : public Module {
 public:
  explicit NormImplBase(const Options& options);

  void reset_running_stats();
  void reset_parameters();

  Options options;
  Tensor weight, bias;
  Tensor running_mean, running_var, num_batches_tracked;
};

// Training normalizes with the batch's statistics and updates the running
// ones; eval uses the running ones.
class BatchNormImplBase : public NormImplBase<BatchNormOptions> {
 public:
  using NormImplBase<BatchNormOptions>::NormImplBase;

  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;

 protected:
  virtual void check_input_dim(const Tensor& input) const = 0;
};

// Input [N, C] or [N, C, L].
class BatchNorm1dImpl : public BatchNormImplBase {
 public:
  using BatchNormImplBase::BatchNormImplBase;

 protected:
  void check_input_dim(const Tensor& input) const override;
};
EMBER_MODULE(BatchNorm1d);

// Input [N, C, H, W].
class BatchNorm2dImpl : public BatchNormImplBase {
 public:
  using BatchNormImplBase::BatchNormImplBase;

 protected:
  void check_input_dim(const Tensor& input) const override;
};
EMBER_MODULE(BatchNorm2d);

// Input [N, C, D, H, W].
class BatchNorm3dImpl : public BatchNormImplBase {
 public:
  using BatchNormImplBase::BatchNormImplBase;

 protected:
  void check_input_dim(const Tensor& input) const override;
};
EMBER_MODULE(BatchNorm3d);

struct LayerNormOptions {
  /* implicit */ LayerNormOptions(std::vector<int64_t> normalized_shape)  // NOLINT
      : normalized_shape_(std::move(normalized_shape)) {}
  EMBER_ARG(std::vector<int64_t>, normalized_shape);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(bool, elementwise_affine) = true;
};

// Normalizes over the last normalized_shape.size() dims; weight (ones) and
// bias (zeros) of that shape when elementwise_affine.
class LayerNormImpl : public Module {
 public:
  explicit LayerNormImpl(const LayerNormOptions& options);
  Tensor forward(const Tensor& input);
  void reset_parameters();
  std::string extra_repr() const override;

  LayerNormOptions options;
  Tensor weight, bias;
};
EMBER_MODULE(LayerNorm);

struct GroupNormOptions {
  GroupNormOptions(int64_t num_groups, int64_t num_channels)
      : num_groups_(num_groups), num_channels_(num_channels) {}
  EMBER_ARG(int64_t, num_groups);
  EMBER_ARG(int64_t, num_channels);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(bool, affine) = true;
};

// Normalizes each group of num_channels / num_groups channels; weight
// (ones) and bias (zeros) [num_channels] when affine.
class GroupNormImpl : public Module {
 public:
  GroupNormImpl(int64_t num_groups, int64_t num_channels)
      : GroupNormImpl(GroupNormOptions(num_groups, num_channels)) {}
  explicit GroupNormImpl(const GroupNormOptions& options);
  Tensor forward(const Tensor& input);
  void reset_parameters();
  std::string extra_repr() const override;

  GroupNormOptions options;
  Tensor weight, bias;
};
EMBER_MODULE(GroupNorm);

using LocalResponseNormOptions = functional::LocalResponseNormFuncOptions;
class LocalResponseNormImpl : public Module {
 public:
  explicit LocalResponseNormImpl(const LocalResponseNormOptions& options) : options(options) {}
  Tensor forward(const Tensor& input) { return functional::local_response_norm(input, options); }
  std::string extra_repr() const override;
  LocalResponseNormOptions options;
};
EMBER_MODULE(LocalResponseNorm);

// libtorch's CrossMapLRN2dOptions, except that k is a double (libtorch's
// is an int64_t; Python's module takes a float).
struct CrossMapLRN2dOptions {
  /* implicit */ CrossMapLRN2dOptions(int64_t size) : size_(size) {}  // NOLINT
  EMBER_ARG(int64_t, size);
  EMBER_ARG(double, alpha) = 1e-4;
  EMBER_ARG(double, beta) = 0.75;
  EMBER_ARG(double, k) = 1;
};

// The legacy (Lua Torch) cross-channel LRN over [N, C, H, W], PyTorch's
// torch.nn.CrossMapLRN2d, kept exactly: its forward's running window (whose
// first channels' sums keep the leading squares: not LocalResponseNorm's
// centred window) and its hand-written backward (which is not that
// forward's derivative; finite differences disagree with it, as with
// PyTorch's). See cross_map_lrn2d in normalization.cc.
class CrossMapLRN2dImpl : public Module {
 public:
  explicit CrossMapLRN2dImpl(const CrossMapLRN2dOptions& options) : options(options) {}
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  CrossMapLRN2dOptions options;
};
EMBER_MODULE(CrossMapLRN2d);

extern template class NormImplBase<BatchNormOptions>;

}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_NORMALIZATION_H_
