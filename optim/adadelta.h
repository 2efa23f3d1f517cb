#ifndef EMBER_OPTIM_ADADELTA_H_
#define EMBER_OPTIM_ADADELTA_H_
// torch.optim.Adadelta (PyTorch 1.13, foreach=False), libtorch's spelling:
//   optim::Adadelta opt(params, optim::AdadeltaOptions(1.0).rho(0.95));
// State per parameter: step, "square_avg", "acc_delta".

#include <memory>
#include <vector>

#include "optim/optimizer.h"

namespace ember {
namespace optim {

struct AdadeltaOptions : public OptimizerCloneableOptions<AdadeltaOptions> {
  AdadeltaOptions(double lr = 1.0);  // NOLINT: as libtorch
  void visit(OptionVisitor& v) override;

  EMBER_ARG(double, lr);
  EMBER_ARG(double, rho) = 0.9;
  EMBER_ARG(double, eps) = 1e-6;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(bool, maximize) = false;
};

class Adadelta : public Optimizer {
 public:
  // Throws PyTorch's ValueErrors for a negative lr, eps or weight_decay and
  // for rho outside [0, 1].
  Adadelta(std::vector<OptimizerParamGroup> groups, const AdadeltaOptions& defaults = {});
  Adadelta(std::vector<Tensor> params, const AdadeltaOptions& defaults = {})
      : Adadelta(detail::single_group(std::move(params)), defaults) {}

 protected:
  void step_group(OptimizerParamGroup& group) override;
};

}  // namespace optim
}  // namespace ember

#endif  // EMBER_OPTIM_ADADELTA_H_
