#ifndef EMBER_OPTIM_RADAM_H_
#define EMBER_OPTIM_RADAM_H_
// torch.optim.RAdam (PyTorch 1.13, foreach=False), libtorch's spelling:
//   optim::RAdam opt(params, optim::RAdamOptions(1e-3).weight_decay(1e-4));
// State per parameter: step, "exp_avg", "exp_avg_sq". While the variance
// estimate is not yet tractable (rho_t <= 5, the first steps), the update
// is plain momentum SGD on the bias-corrected average. PyTorch 1.13's RAdam
// has no maximize option.

#include <memory>
#include <vector>

#include "optim/adam.h"
#include "optim/optimizer.h"

namespace ember {
namespace optim {

struct RAdamOptions : public OptimizerCloneableOptions<RAdamOptions> {
  RAdamOptions(double lr = 1e-3);  // NOLINT: as libtorch
  void visit(OptionVisitor& v) override;

  EMBER_ARG(double, lr);
  EMBER_ARG(Betas, betas) = std::make_tuple(0.9, 0.999);
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 0;
};

class RAdam : public Optimizer {
 public:
  // Throws PyTorch's ValueErrors as Adam does.
  RAdam(std::vector<OptimizerParamGroup> groups, const RAdamOptions& defaults = {});
  RAdam(std::vector<Tensor> params, const RAdamOptions& defaults = {})
      : RAdam(detail::single_group(std::move(params)), defaults) {}

 protected:
  void step_group(OptimizerParamGroup& group) override;
};

}  // namespace optim
}  // namespace ember

#endif  // EMBER_OPTIM_RADAM_H_
