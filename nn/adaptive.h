#ifndef EMBER_NN_ADAPTIVE_H_
#define EMBER_NN_ADAPTIVE_H_

// AdaptiveLogSoftmaxWithLoss (Grave et al., "Efficient softmax approximation
// for GPUs"): a head over the `cutoffs[0]` most frequent classes plus one
// entry per cluster, and per cluster a two-layer projection (in_features ->
// in_features / div_value^(i+1) -> cluster size) for its own classes.
//   nn::AdaptiveLogSoftmaxWithLoss asm_(
//       nn::AdaptiveLogSoftmaxWithLossOptions(512, 10000, {100, 1000}).div_value(2.0));
//   auto [output, loss] = asm_(hidden, target);  // output [N]: each target's log-probability
// PyTorch's parameters (head.weight, head.bias with head_bias, tail.i.0.weight,
// tail.i.1.weight) and their initialization, drawn in PyTorch's order (so
// bit for bit under manual_seed). Written from differentiable ops: the
// gradients are the composite's.
//
// Deviation from libtorch: ASMoutput::loss is a Tensor (0-d), so that
// loss.backward() works; libtorch's is a double.

#include <cstdint>
#include <vector>

#include "nn/container.h"
#include "nn/linear.h"
#include "nn/module.h"
#include "tensor/arg.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {

struct AdaptiveLogSoftmaxWithLossOptions {
  /* implicit */ AdaptiveLogSoftmaxWithLossOptions(int64_t in_features, int64_t n_classes,
                                                   std::vector<int64_t> cutoffs)
      : in_features_(in_features), n_classes_(n_classes), cutoffs_(std::move(cutoffs)) {}
  EMBER_ARG(int64_t, in_features);
  EMBER_ARG(int64_t, n_classes);
  // Increasing, unique, in [1, n_classes - 1].
  EMBER_ARG(std::vector<int64_t>, cutoffs);
  EMBER_ARG(double, div_value) = 4.;
  EMBER_ARG(bool, head_bias) = false;
};

// Python's _ASMoutput named tuple: `output` holds each target's
// log-probability ([N], or 0-d for an unbatched input), `loss` their
// negated mean.
struct ASMoutput {
  ASMoutput(Tensor output, Tensor loss) : output(std::move(output)), loss(std::move(loss)) {}
  Tensor output;
  Tensor loss;
};

class AdaptiveLogSoftmaxWithLossImpl : public Module {
 public:
  AdaptiveLogSoftmaxWithLossImpl(int64_t in_features, int64_t n_classes,
                                 std::vector<int64_t> cutoffs)
      : AdaptiveLogSoftmaxWithLossImpl(
            AdaptiveLogSoftmaxWithLossOptions(in_features, n_classes, std::move(cutoffs))) {}
  explicit AdaptiveLogSoftmaxWithLossImpl(AdaptiveLogSoftmaxWithLossOptions options);

  // input [N, in_features] with target [N], or [in_features] with a 0-d
  // target; targets in [0, n_classes).
  ASMoutput forward(const Tensor& input, const Tensor& target);
  // Every class's log-probability: [N, n_classes] for input [N, in_features].
  Tensor log_prob(const Tensor& input);
  // The most likely class of each row of input [N, in_features].
  Tensor predict(const Tensor& input);
  // Re-draws the head's and the clusters' parameters.
  void reset_parameters();

  AdaptiveLogSoftmaxWithLossOptions options;
  // options.cutoffs() followed by n_classes.
  std::vector<int64_t> cutoffs;
  int64_t shortlist_size;
  int64_t n_clusters;
  int64_t head_size;
  Linear head = nullptr;
  ModuleList tail = nullptr;

 private:
  Tensor full_log_prob(const Tensor& input, const Tensor& head_output);
  Tensor cluster(int64_t i, const Tensor& input);
};
EMBER_MODULE(AdaptiveLogSoftmaxWithLoss);

}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_ADAPTIVE_H_
