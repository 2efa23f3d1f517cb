#ifndef EMBER_OPTIM_ADAGRAD_H_
#define EMBER_OPTIM_ADAGRAD_H_
// torch.optim.Adagrad (PyTorch 1.13, foreach=False, dense gradients),
// libtorch's spelling:
//   optim::Adagrad opt(params, optim::AdagradOptions(1e-2).lr_decay(1e-3));
// State per parameter: step and "sum", created for every parameter when the
// optimizer is built (as PyTorch does, so a fresh state dict holds them),
// "sum" filled with initial_accumulator_value: the optimizer's default, as in
// PyTorch 1.13, which ignores a param group's own value for it.

#include <memory>
#include <vector>

#include "optim/optimizer.h"

namespace ember {
namespace optim {

struct AdagradOptions : public OptimizerCloneableOptions<AdagradOptions> {
  AdagradOptions(double lr = 1e-2);  // NOLINT: as libtorch
  void visit(OptionVisitor& v) override;

  EMBER_ARG(double, lr);
  EMBER_ARG(double, lr_decay) = 0;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(double, initial_accumulator_value) = 0;
  EMBER_ARG(double, eps) = 1e-10;
  EMBER_ARG(bool, maximize) = false;
};

class Adagrad : public Optimizer {
 public:
  // Throws PyTorch's ValueErrors for a negative lr, lr_decay, weight_decay,
  // initial_accumulator_value or eps.
  Adagrad(std::vector<OptimizerParamGroup> groups, const AdagradOptions& defaults = {});
  Adagrad(std::vector<Tensor> params, const AdagradOptions& defaults = {})
      : Adagrad(detail::single_group(std::move(params)), defaults) {}

 protected:
  void step_group(OptimizerParamGroup& group) override;
};

}  // namespace optim
}  // namespace ember

#endif  // EMBER_OPTIM_ADAGRAD_H_
