#ifndef EMBER_OPTIM_OPTIMIZER_H_
#define EMBER_OPTIM_OPTIMIZER_H_
// The Optimizer base of //optim: parameter groups with per-group options,
// per-parameter state, zero_grad, step, state_dict / load_state_dict, as
// PyTorch 1.13's torch.optim.Optimizer behaves and libtorch spells it:
//
//   optim::SGD opt(model->parameters(), optim::SGDOptions(0.01).momentum(0.9));
//   opt.zero_grad();  loss.backward();  opt.step();
//
// Deviations from libtorch, for a simpler shape:
// - Per-parameter state is one generic ParamState (step + named buffers in
//   PyTorch's names) instead of a class per optimizer.
// - zero_grad() sets grads to None by default (PyTorch 2.x's default).
// - The state dict is OptimizerStateDict, PyTorch's structure, with a flat
//   named-tensor form for checkpoints (Note [Optimizer state keys]).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "tensor/arg.h"
#include "tensor/named_tensors.h"
#include "tensor/tensor.h"

namespace ember {


namespace optim {

// A param-group option as PyTorch's state_dict holds it: a number, a flag,
// a pair of numbers (Adam's betas), an integer (LBFGS's max_iter) or a
// string (LBFGS's line_search_fn).
using OptionValue = std::variant<double, bool, std::tuple<double, double>, int64_t, std::string>;

// Visits an options struct's hyper-parameters by their PyTorch names; the
// state dict code reads and writes options through it, once for all kinds.
class OptionVisitor {
 public:
  virtual ~OptionVisitor() = default;
  virtual void field(const char* name, double& value) = 0;
  virtual void field(const char* name, bool& value) = 0;
  virtual void field(const char* name, std::tuple<double, double>& value) = 0;
  virtual void field(const char* name, int64_t& value) = 0;
  // PyTorch's None is no entry: a reader saves nothing for nullopt, and a
  // writer sets nullopt where the saved options have no such key.
  virtual void field(const char* name, std::optional<std::string>& value) = 0;
};

class OptimizerOptions {
 public:
  virtual ~OptimizerOptions() = default;
  virtual std::unique_ptr<OptimizerOptions> clone() const = 0;
  virtual void visit(OptionVisitor& v) = 0;
  virtual double get_lr() const = 0;
  virtual void set_lr(double lr) = 0;
};

template <typename Derived>
class OptimizerCloneableOptions : public OptimizerOptions {
 public:
  std::unique_ptr<OptimizerOptions> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
  double get_lr() const override { return static_cast<const Derived&>(*this).lr(); }
  void set_lr(double lr) override { static_cast<Derived&>(*this).lr(lr); }
};

// Parameters optimized with the same options. Without options, the
// optimizer's defaults fill them in when the group is added.
class OptimizerParamGroup {
 public:
  OptimizerParamGroup(std::vector<Tensor> params)  // NOLINT: as libtorch
      : params_(std::move(params)) {}
  OptimizerParamGroup(std::vector<Tensor> params, std::unique_ptr<OptimizerOptions> options)
      : params_(std::move(params)), options_(std::move(options)) {}
  OptimizerParamGroup(const OptimizerParamGroup& o);
  OptimizerParamGroup& operator=(const OptimizerParamGroup& o);
  OptimizerParamGroup(OptimizerParamGroup&&) = default;
  OptimizerParamGroup& operator=(OptimizerParamGroup&&) = default;

  bool has_options() const { return options_ != nullptr; }
  OptimizerOptions& options();
  const OptimizerOptions& options() const;
  void set_options(std::unique_ptr<OptimizerOptions> options) { options_ = std::move(options); }
  std::vector<Tensor>& params() { return params_; }
  const std::vector<Tensor>& params() const { return params_; }

  // PyTorch's group['initial_lr']: set by the first LR scheduler attached
  // to the optimizer, saved in the state dict with the other options.
  std::optional<double> initial_lr;

 private:
  std::vector<Tensor> params_;
  std::unique_ptr<OptimizerOptions> options_;
};

// What an optimizer keeps for one parameter: the step count (Adam, AdamW,
// RMSprop...) and buffers under PyTorch's names (momentum_buffer, exp_avg,
// exp_avg_sq, max_exp_avg_sq, square_avg, grad_avg, sum, acc_delta,
// exp_inf, ax). Per-parameter numbers that PyTorch keeps as 0-dim tensors
// (NAdam's mu_product, ASGD's eta and mu) are 0-dim float64 CPU buffers,
// read and written through scalar() / set_scalar().
struct ParamState {
  std::optional<int64_t> step;
  // A capturable optimizer's step count instead (Adam's and AdamW's
  // capturable=true): a float32 tensor of shape [1] on the parameter's
  // device, advanced there, as PyTorch 1.13 keeps it; `step` is then empty.
  // state_dict() saves it as "step" as it is; load_state_dict() reads any
  // saved step into `step`, and the optimizer moves it back to the device.
  Tensor device_step;
  std::vector<std::pair<std::string, Tensor>> buffers;

  // The buffer `name`, or nullptr.
  Tensor* find(const std::string& name);
  // The buffer `name`, created as zeros like `like` when missing.
  Tensor& zeros_if_missing(const std::string& name, const Tensor& like);
  // The 0-dim buffer `name` as a number, created holding `init` when missing.
  double scalar(const std::string& name, double init);
  void set_scalar(const std::string& name, double value);
};

// Note [Optimizer state keys]: PyTorch's optimizer state_dict is
//   {"state": {index: {"step": ..., "exp_avg": tensor, ...}},
//    "param_groups": [{"lr": 0.1, "betas": (0.9, 0.999), ..., "params": [0, 1]}]}
// with parameters numbered in order across the groups. The flat form for
// checkpoints (to_named_tensors) names each value:
//   state.<index>.<buffer>      the buffer tensor, as the optimizer holds it
//   state.<index>.step          0-dim int64; a capturable optimizer's is
//                               float32 of shape [1] on the parameter's
//                               device, as PyTorch 1.13's
//   param_groups.<g>.<option>   0-dim float64 for numbers, 0-dim int64 for
//                               integers, 0-dim bool for flags, 1-D float64
//                               for pairs (betas), 1-D uint8 for strings
//                               (their UTF-8 bytes)
//   param_groups.<g>.params     1-D int64: the group's parameter indices
// in that order (state by index, then the groups); a state list is numbered
// (LBFGS's state.0.old_dirs.<i>, see lbfgs.h). from_named_tensors reads
// it back. A PyTorch state dict flattened the same way loads too: its float
// step becomes an integer, options ember lacks (foreach, differentiable...)
// are ignored, and None values must be left out.
struct OptimizerStateDict {
  struct ParamGroup {
    std::vector<std::pair<std::string, OptionValue>> options;  // "initial_lr" included
    std::vector<int64_t> params;
  };
  // Per parameter index: "step" (0-dim int64 tensor, or ParamState's
  // device_step) and the buffers.
  std::map<int64_t, std::vector<std::pair<std::string, Tensor>>> state;
  std::vector<ParamGroup> param_groups;

  NamedTensors to_named_tensors() const;
  static OptimizerStateDict from_named_tensors(const NamedTensors& named);
};

class Optimizer {
 public:
  using LossClosure = std::function<Tensor()>;

  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;
  virtual ~Optimizer() = default;

  // Adds a group; missing options come from the defaults. PyTorch's errors:
  // an empty list, a non-leaf tensor, a parameter already in another group.
  void add_param_group(const OptimizerParamGroup& group);

  // Clears every parameter's .grad: to None (set_to_none) or to zeros.
  void zero_grad(bool set_to_none = true);

  // Runs the closure (with grad enabled) when given, then updates every
  // parameter that has a grad, in place and without recording autograd.
  // Returns the closure's loss (undefined without one). LBFGS, which
  // evaluates the closure itself, overrides it.
  virtual Tensor step(const LossClosure& closure = nullptr);

  std::vector<OptimizerParamGroup>& param_groups() { return param_groups_; }
  const std::vector<OptimizerParamGroup>& param_groups() const { return param_groups_; }
  const OptimizerOptions& defaults() const { return *defaults_; }
  // The state of parameter p, or nullptr before its first update.
  ParamState* state(const Tensor& p);
  // Every parameter, group after group.
  std::vector<Tensor> parameters() const;

  OptimizerStateDict state_dict() const;
  // Restores options and state saved by state_dict() of an optimizer with
  // the same group sizes (PyTorch's ValueErrors otherwise). Floating-point
  // buffers take each parameter's dtype and device, except the per-parameter
  // numbers of ParamState::scalar (0-dim, kept float64 on the CPU). Checked
  // before anything changes, each error naming the flat key
  // ("state.0.momentum_buffer", Note [Optimizer state keys]): options by the
  // optimizer's own rules (Note [Option checks]), a step that is not a
  // non-negative integer, a buffer whose shape is not its parameter's or
  // that is not floating point for a floating-point parameter.
  void load_state_dict(const OptimizerStateDict& state_dict);

 protected:
  Optimizer(std::vector<OptimizerParamGroup> groups, std::unique_ptr<OptimizerOptions> defaults);

  // Note [Option checks]: an optimizer states its option rules (PyTorch's
  // ValueErrors, "Invalid learning rate: -0.1") once, here, from its
  // constructor: they are applied at once to the defaults and every group,
  // and later to every group load_state_dict restores, so a checkpoint
  // holding lr = NaN is refused at load time as the same value in code is.
  template <typename O>
  void set_option_check(void (*check)(const O&)) {
    option_check_ = [check](const OptimizerOptions& o) { check(static_cast<const O&>(o)); };
    option_check_(*defaults_);
    for (const auto& g : param_groups_) option_check_(g.options());
  }

  // Updates the group's parameters that have a grad; runs under NoGradGuard.
  virtual void step_group(OptimizerParamGroup& group) = 0;
  // The state of p, created empty on first use.
  ParamState& state_for(const Tensor& p) { return state_[p.unsafeGetTensorImpl()]; }
  // The saved state entry `name` (not "step") of parameter p (index `index`
  // in the dict), checked and converted as load_state_dict describes. LBFGS,
  // whose state spans all its parameters, has its own rule.
  virtual Tensor load_state_entry(const Tensor& p, int64_t index, const std::string& name,
                                  const Tensor& saved) const;

 private:
  std::unique_ptr<OptimizerOptions> defaults_;
  std::function<void(const OptimizerOptions&)> option_check_;
  std::vector<OptimizerParamGroup> param_groups_;
  std::unordered_map<const TensorImpl*, ParamState> state_;
};

namespace detail {
// Throws PyTorch's ValueError "<what>: <value>" (value as Python prints a
// float) unless ok: "Invalid learning rate: -0.1".
void check_option(bool ok, const char* what, double value);
// The one group of an optimizer built from a parameter list (PyTorch's
// error for an empty list).
std::vector<OptimizerParamGroup> single_group(std::vector<Tensor> params);
}  // namespace detail

}  // namespace optim
}  // namespace ember

#endif  // EMBER_OPTIM_OPTIMIZER_H_
