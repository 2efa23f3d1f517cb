#ifndef EMBER_OPTIM_NADAM_H_
#define EMBER_OPTIM_NADAM_H_
// torch.optim.NAdam (PyTorch 1.13, foreach=False), libtorch's spelling:
//   optim::NAdam opt(params, optim::NAdamOptions(2e-3).momentum_decay(4e-3));
// State per parameter: step, "mu_product" (a number, see ParamState),
// "exp_avg", "exp_avg_sq". PyTorch 1.13's NAdam has no maximize option.

#include <memory>
#include <vector>

#include "optim/adam.h"
#include "optim/optimizer.h"

namespace ember {
namespace optim {

struct NAdamOptions : public OptimizerCloneableOptions<NAdamOptions> {
  NAdamOptions(double lr = 2e-3);  // NOLINT: as libtorch
  void visit(OptionVisitor& v) override;

  EMBER_ARG(double, lr);
  EMBER_ARG(Betas, betas) = std::make_tuple(0.9, 0.999);
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(double, momentum_decay) = 4e-3;
};

class NAdam : public Optimizer {
 public:
  // Throws PyTorch's ValueErrors as Adam does, and for a negative
  // momentum_decay.
  NAdam(std::vector<OptimizerParamGroup> groups, const NAdamOptions& defaults = {});
  NAdam(std::vector<Tensor> params, const NAdamOptions& defaults = {})
      : NAdam(detail::single_group(std::move(params)), defaults) {}

 protected:
  void step_group(OptimizerParamGroup& group) override;
};

}  // namespace optim
}  // namespace ember

#endif  // EMBER_OPTIM_NADAM_H_
