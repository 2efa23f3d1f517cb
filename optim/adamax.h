#ifndef EMBER_OPTIM_ADAMAX_H_
#define EMBER_OPTIM_ADAMAX_H_
// torch.optim.Adamax (PyTorch 1.13, foreach=False), libtorch's spelling:
//   optim::Adamax opt(params, optim::AdamaxOptions(2e-3).betas({0.9, 0.999}));
// State per parameter: step, "exp_avg", "exp_inf" (the decayed infinity
// norm of the gradients).

#include <memory>
#include <vector>

#include "optim/adam.h"
#include "optim/optimizer.h"

namespace ember {
namespace optim {

struct AdamaxOptions : public OptimizerCloneableOptions<AdamaxOptions> {
  AdamaxOptions(double lr = 2e-3);  // NOLINT: as libtorch
  void visit(OptionVisitor& v) override;

  EMBER_ARG(double, lr);
  EMBER_ARG(Betas, betas) = std::make_tuple(0.9, 0.999);
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(bool, maximize) = false;
};

class Adamax : public Optimizer {
 public:
  // Throws PyTorch's ValueErrors as Adam does.
  Adamax(std::vector<OptimizerParamGroup> groups, const AdamaxOptions& defaults = {});
  Adamax(std::vector<Tensor> params, const AdamaxOptions& defaults = {})
      : Adamax(detail::single_group(std::move(params)), defaults) {}

 protected:
  void step_group(OptimizerParamGroup& group) override;
};

}  // namespace optim
}  // namespace ember

#endif  // EMBER_OPTIM_ADAMAX_H_
