#ifndef EMBER_NN_INSTANCENORM_H_
#define EMBER_NN_INSTANCENORM_H_

// InstanceNorm1d, InstanceNorm2d and InstanceNorm3d: each sample's channels normalized over
// their own spatial dims (F::instance_norm).
//   nn::InstanceNorm2d norm(nn::InstanceNorm2dOptions(64).affine(true));
// PyTorch's defaults: no affine parameters and no running statistics.
// With affine, weight (ones) and bias (zeros) [num_features]; with
// track_running_stats, buffers running_mean (zeros), running_var (ones) and
// num_batches_tracked (kLong 0, kept for state_dict compatibility: instance
// norm does not count batches), used in eval mode and updated in training
// with the samples' average statistics.

#include <cstdint>
#include <string>

#include "nn/functional/options.h"
#include "nn/module.h"
#include "nn/normalization.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {

struct InstanceNormOptions {
  /* implicit */ InstanceNormOptions(int64_t num_features)  // NOLINT
      : num_features_(num_features) {}
  EMBER_ARG(int64_t, num_features);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(double, momentum) = 0.1;
  EMBER_ARG(bool, affine) = false;
  EMBER_ARG(bool, track_running_stats) = false;
};
using InstanceNorm1dOptions = InstanceNormOptions;
using InstanceNorm2dOptions = InstanceNormOptions;
using InstanceNorm3dOptions = InstanceNormOptions;

// Parameters, buffers and their reset: NormImplBase (nn/normalization.h).
class InstanceNormImplBase : public NormImplBase<InstanceNormOptions> {
 public:
  using NormImplBase<InstanceNormOptions>::NormImplBase;

  // An unbatched input (one dim less) is normalized as a batch of one.
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;

 protected:
  // The dims of an unbatched input; a batched one has one more.
  virtual int64_t no_batch_dim() const = 0;
};

// Input [N, C, L] or [C, L].
class InstanceNorm1dImpl : public InstanceNormImplBase {
 public:
  using InstanceNormImplBase::InstanceNormImplBase;

 protected:
  int64_t no_batch_dim() const override { return 2; }
};
EMBER_MODULE(InstanceNorm1d);

// Input [N, C, H, W] or [C, H, W].
class InstanceNorm2dImpl : public InstanceNormImplBase {
 public:
  using InstanceNormImplBase::InstanceNormImplBase;

 protected:
  int64_t no_batch_dim() const override { return 3; }
};
EMBER_MODULE(InstanceNorm2d);

// Input [N, C, D, H, W] or [C, D, H, W].
class InstanceNorm3dImpl : public InstanceNormImplBase {
 public:
  using InstanceNormImplBase::InstanceNormImplBase;

 protected:
  int64_t no_batch_dim() const override { return 4; }
};
EMBER_MODULE(InstanceNorm3d);

extern template class NormImplBase<InstanceNormOptions>;

}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_INSTANCENORM_H_
