#ifndef EMBER_OPTIM_LBFGS_H_
#define EMBER_OPTIM_LBFGS_H_
// torch.optim.LBFGS (PyTorch 1.13), libtorch's spelling:
//   optim::LBFGS opt(params, optim::LBFGSOptions(1).line_search_fn("strong_wolfe"));
//   Tensor loss = opt.step([&] { opt.zero_grad(); Tensor l = f(); l.backward(); return l; });
// step(closure) runs up to max_iter iterations, evaluating the closure as
// often as it needs (at most about max_eval times), and returns the loss of
// the first evaluation.
//
// The state is global, kept (as PyTorch keeps it) under the first
// parameter: "func_evals" and "n_iter" (0-dim int64), "t", "H_diag",
// "prev_loss" (numbers: 0-dim float64 on the CPU), "d" and
// "prev_flat_grad" (1-D, all parameters' elements flattened in order, in the
// parameters' dtype and device), and the history as numbered entries
// "old_dirs.<i>", "old_stps.<i>" (like "d") and "ro.<i>" (numbers), oldest
// first, as PyTorch's lists would flatten. Deviations from PyTorch:
// - The numbers are doubles: for float32 parameters PyTorch keeps ro, H_diag
//   and t as float32 0-dim tensors (float64 parameters agree exactly).
// - PyTorch's scratch list "al" is not kept: each step rewrites it before
//   reading it (a loaded "al.<i>" is accepted and dropped).
// - A group added after construction (add_param_group) makes step() raise
//   the constructor's ValueError, where PyTorch fails an assert.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "optim/optimizer.h"

namespace ember {
namespace optim {

struct LBFGSOptions : public OptimizerCloneableOptions<LBFGSOptions> {
  LBFGSOptions(double lr = 1);  // NOLINT: as libtorch
  void visit(OptionVisitor& v) override;

  EMBER_ARG(double, lr);
  EMBER_ARG(int64_t, max_iter) = 20;
  // nullopt: max_iter * 5 / 4, filled in when the optimizer is built.
  EMBER_ARG(std::optional<int64_t>, max_eval) = std::nullopt;
  EMBER_ARG(double, tolerance_grad) = 1e-7;
  EMBER_ARG(double, tolerance_change) = 1e-9;
  EMBER_ARG(int64_t, history_size) = 100;
  // nullopt (a fixed step of lr) or "strong_wolfe"; PyTorch checks the name
  // only when a step needs the line search.
  EMBER_ARG(std::optional<std::string>, line_search_fn) = std::nullopt;
};

class LBFGS : public Optimizer {
 public:
  // Throws PyTorch's ValueError for more than one parameter group.
  LBFGS(std::vector<OptimizerParamGroup> groups, const LBFGSOptions& defaults = {});
  LBFGS(std::vector<Tensor> params, const LBFGSOptions& defaults = {})
      : LBFGS(detail::single_group(std::move(params)), defaults) {}

  // The closure is required (PyTorch's TypeError without one, through an
  // Optimizer&; LBFGS's own step has no default argument, as libtorch's).
  Tensor step(const LossClosure& closure) override;

 protected:
  // Never called: step() does the work for the one group.
  void step_group(OptimizerParamGroup& group) override;
  // d, prev_flat_grad and the history are flat over all parameters.
  Tensor load_state_entry(const Tensor& p, int64_t index, const std::string& name,
                          const Tensor& saved) const override;

 private:
  // All parameters' elements.
  int64_t numel() const;
};

}  // namespace optim
}  // namespace ember

#endif  // EMBER_OPTIM_LBFGS_H_
