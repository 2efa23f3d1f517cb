#ifndef EMBER_OPTIM_RMSPROP_H_
#define EMBER_OPTIM_RMSPROP_H_
// torch.optim.RMSprop (PyTorch 1.13, foreach=False), libtorch's spelling:
//   optim::RMSprop opt(params, optim::RMSpropOptions(1e-2).momentum(0.9).centered(true));
// State per parameter: step, "square_avg", "momentum_buffer" (momentum > 0),
// "grad_avg" (centered).

#include <memory>
#include <vector>

#include "optim/optimizer.h"

namespace ember {
namespace optim {

struct RMSpropOptions : public OptimizerCloneableOptions<RMSpropOptions> {
  RMSpropOptions(double lr = 1e-2);  // NOLINT: as libtorch
  void visit(OptionVisitor& v) override;

  EMBER_ARG(double, lr);
  EMBER_ARG(double, alpha) = 0.99;
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(double, momentum) = 0;
  EMBER_ARG(bool, centered) = false;
  EMBER_ARG(bool, maximize) = false;
};

class RMSprop : public Optimizer {
 public:
  // Throws PyTorch's ValueErrors for a negative lr, eps, momentum,
  // weight_decay or alpha.
  RMSprop(std::vector<OptimizerParamGroup> groups, const RMSpropOptions& defaults = {});
  RMSprop(std::vector<Tensor> params, const RMSpropOptions& defaults = {})
      : RMSprop(detail::single_group(std::move(params)),
                defaults) {}

 protected:
  void step_group(OptimizerParamGroup& group) override;
};

}  // namespace optim
}  // namespace ember

#endif  // EMBER_OPTIM_RMSPROP_H_
