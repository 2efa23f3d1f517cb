#ifndef EMBER_OPTIM_ASGD_H_
#define EMBER_OPTIM_ASGD_H_
// torch.optim.ASGD, averaged SGD (PyTorch 1.13, foreach=False), libtorch's
// spelling:
//   optim::ASGD opt(params, optim::ASGDOptions(1e-2).t0(100));
// State per parameter: step, "eta" and "mu" (numbers, see ParamState), and
// "ax", the running average of the parameter once step > t0.

#include <memory>
#include <vector>

#include "optim/optimizer.h"

namespace ember {
namespace optim {

struct ASGDOptions : public OptimizerCloneableOptions<ASGDOptions> {
  ASGDOptions(double lr = 1e-2);  // NOLINT: as libtorch
  void visit(OptionVisitor& v) override;

  EMBER_ARG(double, lr);
  EMBER_ARG(double, lambd) = 1e-4;
  EMBER_ARG(double, alpha) = 0.75;
  EMBER_ARG(double, t0) = 1e6;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(bool, maximize) = false;
};

class ASGD : public Optimizer {
 public:
  // Throws PyTorch's ValueErrors for a negative lr or weight_decay.
  ASGD(std::vector<OptimizerParamGroup> groups, const ASGDOptions& defaults = {});
  ASGD(std::vector<Tensor> params, const ASGDOptions& defaults = {})
      : ASGD(detail::single_group(std::move(params)), defaults) {}

 protected:
  void step_group(OptimizerParamGroup& group) override;
};

}  // namespace optim
}  // namespace ember

#endif  // EMBER_OPTIM_ASGD_H_
