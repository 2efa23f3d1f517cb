#ifndef EMBER_OPTIM_SGD_H_
#define EMBER_OPTIM_SGD_H_
// torch.optim.SGD (PyTorch 1.13, foreach=False), libtorch's spelling:
//   optim::SGD opt(params, optim::SGDOptions(0.01).momentum(0.9).nesterov(true));
// State per parameter: "momentum_buffer" (when momentum != 0).

#include <memory>
#include <optional>
#include <vector>

#include "optim/optimizer.h"

namespace ember {
namespace optim {

struct SGDOptions : public OptimizerCloneableOptions<SGDOptions> {
  SGDOptions(double lr);  // NOLINT: as libtorch, SGDOptions(0.01)
  void visit(OptionVisitor& v) override;

  EMBER_ARG(double, lr);
  EMBER_ARG(double, momentum) = 0;
  EMBER_ARG(double, dampening) = 0;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(bool, nesterov) = false;
  EMBER_ARG(bool, maximize) = false;
  // PyTorch 2.x's foreach (Note [Multi-tensor updates] in
  // tensor/multi_tensor.h): nullopt takes the multi-tensor kernel where
  // every parameter is on CUDA. Not part of the state dict (1.13's keys).
  EMBER_ARG(std::optional<bool>, foreach) = std::nullopt;
};

class SGD : public Optimizer {
 public:
  // Throws PyTorch's ValueErrors for a negative lr, momentum or
  // weight_decay, and for nesterov without momentum or with dampening.
  SGD(std::vector<OptimizerParamGroup> groups, const SGDOptions& defaults);
  SGD(std::vector<Tensor> params, const SGDOptions& defaults)
      : SGD(detail::single_group(std::move(params)), defaults) {}

 protected:
  void step_group(OptimizerParamGroup& group) override;
};

}  // namespace optim
}  // namespace ember

#endif  // EMBER_OPTIM_SGD_H_
