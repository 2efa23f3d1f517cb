#ifndef EMBER_AMP_GRAD_SCALER_H_
#define EMBER_AMP_GRAD_SCALER_H_

// torch.amp.GradScaler (torch.cuda.amp.GradScaler) in C++: dynamic loss
// scaling, so that float16 gradients neither underflow nor overflow.
//
//   amp::GradScaler scaler;                     // "cuda", PyTorch's defaults
//   for (...) {
//     opt.zero_grad();
//     Tensor loss = ...;                        // under autocast
//     scaler.scale(loss).backward();
//     scaler.unscale_(opt);                     // optional: then clip
//     nn::utils::clip_grad_norm_(model->parameters(), 1.0);
//     scaler.step(opt);                         // skipped if a grad is inf/NaN
//     scaler.update();
//   }
//
// As PyTorch: the scale (float32, shape [1]) and the growth tracker (int32,
// shape [1]) live on the device of the first scaled output and are updated
// there without reading them back (update() is PyTorch's
// _amp_update_scale_: after an inf/NaN the scale is multiplied by
// backoff_factor and the tracker reset; after growth_interval clean steps in
// a row it is multiplied by growth_factor, unless that overflows). step()
// reads the found-inf flag once, as PyTorch's does, to decide whether to
// call optimizer.step(). A disabled scaler passes everything through.
//
// The stages of each optimizer between two update() calls follow
// PyTorch's rules and errors: unscale_ at most once, before step; step at
// most once.

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>

#include "optim/optimizer.h"
#include "tensor/device.h"
#include "tensor/tensor.h"

namespace ember {
namespace amp {

struct GradScalerOptions {
  GradScalerOptions() = default;
#define EMBER_GRAD_SCALER_ARG(T, name, init) \
  GradScalerOptions& name(T v) {             \
    name##_ = v;                             \
    return *this;                            \
  }                                          \
  T name() const { return name##_; }         \
  T name##_ = init;
  EMBER_GRAD_SCALER_ARG(double, init_scale, 65536.0)
  EMBER_GRAD_SCALER_ARG(double, growth_factor, 2.0)
  EMBER_GRAD_SCALER_ARG(double, backoff_factor, 0.5)
  EMBER_GRAD_SCALER_ARG(int64_t, growth_interval, 2000)
  EMBER_GRAD_SCALER_ARG(bool, enabled, true)
#undef EMBER_GRAD_SCALER_ARG
};

// PyTorch's state_dict: {"scale", "growth_factor", "backoff_factor",
// "growth_interval", "_growth_tracker"} as numbers; empty when disabled.
using GradScalerState = std::map<std::string, double>;

class GradScaler {
 public:
  // device: "cuda" (torch.cuda.amp.GradScaler) or "cpu". Enabled on a
  // device type that is not available, it warns and disables itself, as
  // PyTorch does. Throws for growth_factor <= 1 or backoff_factor not in
  // (0, 1), as PyTorch.
  explicit GradScaler(const std::string& device = "cuda",
                      GradScalerOptions options = GradScalerOptions());
  explicit GradScaler(GradScalerOptions options) : GradScaler("cuda", options) {}

  // outputs * scale (outputs unchanged when disabled). The first call puts
  // the scale and the tracker on outputs' device.
  Tensor scale(const Tensor& outputs);
  // Divides the optimizer's gradients by the scale in place and records
  // whether any is inf or NaN. float16 gradients are refused ("Attempting
  // to unscale FP16 gradients.").
  void unscale_(optim::Optimizer& optimizer);
  // unscale_ if not done yet, then optimizer.step() unless a gradient was
  // inf or NaN. Returns the step's result (undefined when skipped).
  Tensor step(optim::Optimizer& optimizer);
  // The next scale from the steps since the last update (on the device).
  void update();
  // Sets the scale to new_scale instead (a number, or a one-element tensor
  // on the scale's device).
  void update(double new_scale);
  void update(const Tensor& new_scale);

  // The current scale (reads it from the device): init_scale before the
  // first scale(), 1.0 when disabled.
  double get_scale() const;
  double get_growth_factor() const { return growth_factor_; }
  void set_growth_factor(double v) { growth_factor_ = v; }
  double get_backoff_factor() const { return backoff_factor_; }
  void set_backoff_factor(double v) { backoff_factor_ = v; }
  int64_t get_growth_interval() const { return growth_interval_; }
  void set_growth_interval(int64_t v) { growth_interval_ = v; }
  bool is_enabled() const { return enabled_; }

  GradScalerState state_dict() const;
  // Throws for an empty state ("The source state dict is empty, possibly
  // because it was saved from a disabled instance of GradScaler.").
  void load_state_dict(const GradScalerState& state);

 private:
  enum class Stage { kReady, kUnscaled, kStepped };
  struct PerOptimizer {
    Stage stage = Stage::kReady;
    Tensor found_inf;  // float32 [1] on the scale's device: > 0 if any grad was not finite
  };

  void lazy_init(const Device& device);
  PerOptimizer& state_of(optim::Optimizer& optimizer);
  int64_t growth_tracker() const;

  bool enabled_;
  double init_scale_, growth_factor_, backoff_factor_;
  int64_t growth_interval_;
  int64_t init_growth_tracker_ = 0;
  Tensor scale_;           // float32 [1]
  Tensor growth_tracker_;  // int32 [1]
  std::unordered_map<const optim::Optimizer*, PerOptimizer> per_optimizer_;
};

}  // namespace amp
}  // namespace ember

#endif  // EMBER_AMP_GRAD_SCALER_H_
