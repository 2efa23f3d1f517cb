#ifndef EMBER_OPTIM_RPROP_H_
#define EMBER_OPTIM_RPROP_H_
// torch.optim.Rprop, resilient backpropagation (PyTorch 1.13,
// foreach=False), libtorch's spelling:
//   optim::Rprop opt(params, optim::RpropOptions(1e-2).etas({0.5, 1.2}));
// Each element keeps its own step size: times etaplus while the gradient
// keeps its sign, times etaminus (and no move) when it flips, clamped to
// step_sizes; the parameter moves by the step size against the gradient's
// sign. State per parameter: step, "prev" (the last gradient used, 0 where
// it flipped) and "step_size".

#include <memory>
#include <tuple>
#include <vector>

#include "optim/optimizer.h"

namespace ember {
namespace optim {

// RpropOptions' pairs of numbers: (etaminus, etaplus) and the (smallest,
// largest) step size.
using RpropPair = std::tuple<double, double>;

struct RpropOptions : public OptimizerCloneableOptions<RpropOptions> {
  RpropOptions(double lr = 1e-2);  // NOLINT: as libtorch
  void visit(OptionVisitor& v) override;

  EMBER_ARG(double, lr);
  EMBER_ARG(RpropPair, etas) = std::make_tuple(0.5, 1.2);
  EMBER_ARG(RpropPair, step_sizes) = std::make_tuple(1e-6, 50.0);
  EMBER_ARG(bool, maximize) = false;
};

class Rprop : public Optimizer {
 public:
  // Throws PyTorch's ValueErrors for a negative lr and unless
  // 0 < etaminus < 1 < etaplus.
  Rprop(std::vector<OptimizerParamGroup> groups, const RpropOptions& defaults = {});
  Rprop(std::vector<Tensor> params, const RpropOptions& defaults = {})
      : Rprop(detail::single_group(std::move(params)), defaults) {}

 protected:
  void step_group(OptimizerParamGroup& group) override;
};

}  // namespace optim
}  // namespace ember

#endif  // EMBER_OPTIM_RPROP_H_
