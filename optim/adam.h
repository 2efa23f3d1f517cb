#ifndef EMBER_OPTIM_ADAM_H_
#define EMBER_OPTIM_ADAM_H_
// torch.optim.Adam and torch.optim.AdamW (PyTorch 1.13, foreach=False),
// libtorch's spelling:
//   optim::Adam opt(params, optim::AdamOptions(1e-3).betas({0.9, 0.999}));
//   optim::AdamW opt(params, optim::AdamWOptions(1e-3));  // weight_decay 1e-2
// State per parameter: step, "exp_avg", "exp_avg_sq", and "max_exp_avg_sq"
// with amsgrad. They differ only in weight decay: Adam adds it to the
// gradient, AdamW decays the parameter itself (decoupled).
//
// Note [Capturable Adam]: capturable(true) is PyTorch 1.13's capturable=True.
// The step count is a float32 tensor of shape [1] on the parameter's device
// (ParamState::device_step, saved as "step" as PyTorch saves it), advanced
// there, and the bias corrections 1 - beta^step are tensor ops on the device
// (or, in the multi-tensor CUDA kernels, read the step from device memory),
// so a step reads nothing on the host: it can be captured into a CUDA graph
// (tensor/cuda/graph.h), and each replay advances the step and takes its
// corrections. Where ember differs from PyTorch 1.13:
// - PyTorch asserts "If capturable=True, params and state_steps must be CUDA
//   tensors."; ember allows capturable on the CPU too, where there is
//   nothing to capture but the results are the same, so the path is tested
//   on any machine (the CPU's fused loop reads the step from the CPU tensor).
// - The corrections are computed in float64 from the float32 step (PyTorch:
//   float32, of shape [1]), as 0-dim tensors, so capturable and
//   non-capturable steps agree to the rounding of the last ops and a 0-dim
//   parameter keeps its shape.
// - The step tensor is created by the group's flag (PyTorch 1.13: the
//   defaults'); a step count loaded by load_state_dict (always read into
//   ParamState::step) moves to the device on the next step, and a device
//   step comes back to the host if the group's capturable is turned off.
// - step() does not check whether a CUDA graph capture is underway
//   (PyTorch refuses to capture a capturable=False instance); capturing a
//   non-capturable step records its corrections as constants (graph.h).

#include <memory>
#include <optional>
#include <tuple>
#include <vector>

#include "optim/optimizer.h"

namespace ember {
namespace optim {

// (beta1, beta2); AdamOptions(1e-3).betas({0.9, 0.999}).
using Betas = std::tuple<double, double>;

namespace detail {
// The checks of the Adam family (Adam, AdamW, Adamax, NAdam, RAdam), in
// PyTorch's order and words: lr, eps, each beta in [0, 1), weight_decay.
void check_adam_options(double lr, double eps, const Betas& betas, double weight_decay);
}  // namespace detail

struct AdamOptions : public OptimizerCloneableOptions<AdamOptions> {
  AdamOptions(double lr = 1e-3);  // NOLINT: as libtorch
  void visit(OptionVisitor& v) override;

  EMBER_ARG(double, lr);
  EMBER_ARG(Betas, betas) = std::make_tuple(0.9, 0.999);
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(bool, amsgrad) = false;
  EMBER_ARG(bool, maximize) = false;
  // Note [Capturable Adam]; saved in the state dict as PyTorch 1.13 saves it.
  EMBER_ARG(bool, capturable) = false;
  // PyTorch 2.x's switches (Note [Multi-tensor updates] in
  // tensor/multi_tensor.h): nullopt takes the multi-tensor kernels where
  // every parameter is on CUDA; fused runs the same one-pass kernels (on
  // the CPU the per-parameter loops already are). Not part of the state
  // dict, which keeps PyTorch 1.13's keys.
  EMBER_ARG(std::optional<bool>, foreach) = std::nullopt;
  EMBER_ARG(bool, fused) = false;
};

struct AdamWOptions : public OptimizerCloneableOptions<AdamWOptions> {
  AdamWOptions(double lr = 1e-3);  // NOLINT: as libtorch
  void visit(OptionVisitor& v) override;

  EMBER_ARG(double, lr);
  EMBER_ARG(Betas, betas) = std::make_tuple(0.9, 0.999);
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 1e-2;
  EMBER_ARG(bool, amsgrad) = false;
  EMBER_ARG(bool, maximize) = false;
  // Note [Capturable Adam]; saved in the state dict as PyTorch 1.13 saves it.
  EMBER_ARG(bool, capturable) = false;
  // PyTorch 2.x's switches (Note [Multi-tensor updates] in
  // tensor/multi_tensor.h): nullopt takes the multi-tensor kernels where
  // every parameter is on CUDA; fused runs the same one-pass kernels (on
  // the CPU the per-parameter loops already are). Not part of the state
  // dict, which keeps PyTorch 1.13's keys.
  EMBER_ARG(std::optional<bool>, foreach) = std::nullopt;
  EMBER_ARG(bool, fused) = false;
};

// Both throw PyTorch's ValueErrors for a negative lr, eps or weight_decay
// and for betas outside [0, 1).
class Adam : public Optimizer {
 public:
  Adam(std::vector<OptimizerParamGroup> groups, const AdamOptions& defaults = {});
  Adam(std::vector<Tensor> params, const AdamOptions& defaults = {})
      : Adam(detail::single_group(std::move(params)), defaults) {}

 protected:
  void step_group(OptimizerParamGroup& group) override;
};

class AdamW : public Optimizer {
 public:
  AdamW(std::vector<OptimizerParamGroup> groups, const AdamWOptions& defaults = {});
  AdamW(std::vector<Tensor> params, const AdamWOptions& defaults = {})
      : AdamW(detail::single_group(std::move(params)), defaults) {}

 protected:
  void step_group(OptimizerParamGroup& group) override;
};

}  // namespace optim
}  // namespace ember

#endif  // EMBER_OPTIM_ADAM_H_
