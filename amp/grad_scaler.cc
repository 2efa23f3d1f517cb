#include "amp/grad_scaler.h"

#include <iostream>
#include <vector>

#include "tensor/creation.h"
#include "tensor/cuda/cuda.h"
#include "tensor/error.h"
#include "tensor/math.h"
#include "tensor/reduce.h"
#include "tensor/selection.h"

namespace ember {
namespace amp {

GradScaler::GradScaler(const std::string& device, GradScalerOptions options)
    : enabled_(options.enabled()),
      init_scale_(options.init_scale()),
      growth_factor_(options.growth_factor()),
      backoff_factor_(options.backoff_factor()),
      growth_interval_(options.growth_interval()) {
  EMBER_CHECK(device == "cuda" || device == "cpu",
              "GradScaler: device must be \"cuda\" or \"cpu\", got \"", device, "\"");
  if (enabled_ && device == "cuda" && !cuda::is_available()) {
    std::cerr << "UserWarning: torch.cuda.amp.GradScaler is enabled, but CUDA is not available."
                 "  Disabling.\n";
    enabled_ = false;
  }
  if (enabled_) {
    EMBER_CHECK(growth_factor_ > 1.0, "The growth factor must be > 1.0.");
    EMBER_CHECK(backoff_factor_ < 1.0, "The backoff factor must be < 1.0.");
  }
}

void GradScaler::lazy_init(const Device& device) {
  scale_ = full({1}, init_scale_, TensorOptions(kFloat).device(device));
  growth_tracker_ = full({1}, init_growth_tracker_, TensorOptions(kInt).device(device));
}

Tensor GradScaler::scale(const Tensor& outputs) {
  if (!enabled_) return outputs;
  if (!scale_.defined()) lazy_init(outputs.device());
  return outputs * scale_.to(outputs.device());
}

GradScaler::PerOptimizer& GradScaler::state_of(optim::Optimizer& optimizer) {
  return per_optimizer_[&optimizer];
}

void GradScaler::unscale_(optim::Optimizer& optimizer) {
  if (!enabled_) return;
  EMBER_CHECK(scale_.defined(),
              "Attempted unscale_ but _scale is None.  This may indicate your script did not use "
              "scaler.scale(loss or outputs) earlier in the iteration.");
  PerOptimizer& state = state_of(optimizer);
  EMBER_CHECK(state.stage != Stage::kUnscaled,
              "unscale_() has already been called on this optimizer since the last update().");
  EMBER_CHECK(state.stage != Stage::kStepped, "unscale_() is being called after step().");
  // The reciprocal in double, rounded once to float, as PyTorch.
  const Tensor inv_scale = scale_.to(kDouble).reciprocal().to(kFloat);
  Tensor found;  // stays undefined without gradients
  for (optim::OptimizerParamGroup& group : optimizer.param_groups()) {
    for (Tensor& p : group.params()) {
      Tensor& g = p.mutable_grad();
      if (!g.defined()) continue;
      if (g.dtype() == kHalf) throw Error("Attempting to unscale FP16 gradients.");
      // PyTorch's _amp_foreach_non_finite_check_and_unscale_: flag any
      // inf/NaN, then multiply every gradient (flagged ones too).
      Tensor bad = isfinite(g).logical_not().any().to(kFloat).to(scale_.device()).reshape({1});
      found = found.defined() ? maximum(found, bad) : bad;
      g.mul_(inv_scale.to(g.device()));
    }
  }
  state.found_inf = found;
  state.stage = Stage::kUnscaled;
}

Tensor GradScaler::step(optim::Optimizer& optimizer) {
  if (!enabled_) return optimizer.step();
  PerOptimizer& state = state_of(optimizer);
  EMBER_CHECK(state.stage != Stage::kStepped,
              "step() has already been called since the last update().");
  if (state.stage == Stage::kReady) unscale_(optimizer);
  EMBER_CHECK(state.found_inf.defined(), "No inf checks were recorded for this optimizer.");
  Tensor result;
  // The one read from the device, as PyTorch's _maybe_opt_step.
  if (state.found_inf.item<double>() == 0) result = optimizer.step();
  state.stage = Stage::kStepped;
  return result;
}

void GradScaler::update() {
  if (!enabled_) return;
  EMBER_CHECK(scale_.defined(),
              "Attempted update but _scale is None.  This may indicate your script did not use "
              "scaler.scale(loss or outputs) earlier in the iteration.");
  Tensor found;
  for (auto& kv : per_optimizer_) {
    if (!kv.second.found_inf.defined()) continue;
    found = found.defined() ? found + kv.second.found_inf : kv.second.found_inf;
  }
  EMBER_CHECK(found.defined(), "No inf checks were recorded prior to update.");
  // PyTorch's _amp_update_scale_, as device ops: no value leaves the device.
  const Tensor bad = found.gt(0);
  const Tensor successful = growth_tracker_ + 1;
  const Tensor grow = successful.eq(growth_interval_).logical_and(bad.logical_not());
  Tensor grown = scale_ * growth_factor_;
  grown = where(isfinite(grown), grown, scale_);  // a growth that overflows keeps the scale
  const Tensor next = where(bad, scale_ * backoff_factor_, where(grow, grown, scale_));
  scale_.copy_(next);
  growth_tracker_.copy_(where(bad.logical_or(grow), zeros_like(successful), successful));
  per_optimizer_.clear();
}

void GradScaler::update(double new_scale) {
  if (!enabled_) return;
  EMBER_CHECK(scale_.defined(),
              "Attempted update but _scale is None.  This may indicate your script did not use "
              "scaler.scale(loss or outputs) earlier in the iteration.");
  scale_.fill_(new_scale);
  per_optimizer_.clear();
}

void GradScaler::update(const Tensor& new_scale) {
  if (!enabled_) return;
  EMBER_CHECK(scale_.defined(),
              "Attempted update but _scale is None.  This may indicate your script did not use "
              "scaler.scale(loss or outputs) earlier in the iteration.");
  const char* reason =
      "new_scale should be a float or a 1-element torch.cuda.FloatTensor or torch.FloatTensor "
      "with requires_grad=False.";
  EMBER_CHECK(new_scale.device().type() == scale_.device().type(), reason);
  EMBER_CHECK(new_scale.numel() == 1, reason);
  EMBER_CHECK(!new_scale.requires_grad(), reason);
  scale_.copy_(new_scale.reshape({1}));
  per_optimizer_.clear();
}

double GradScaler::get_scale() const {
  if (!enabled_) return 1.0;
  return scale_.defined() ? scale_.item<double>() : init_scale_;
}

int64_t GradScaler::growth_tracker() const {
  return growth_tracker_.defined() ? growth_tracker_.item<int64_t>() : init_growth_tracker_;
}

GradScalerState GradScaler::state_dict() const {
  if (!enabled_) return {};
  return {{"scale", get_scale()},
          {"growth_factor", growth_factor_},
          {"backoff_factor", backoff_factor_},
          {"growth_interval", static_cast<double>(growth_interval_)},
          {"_growth_tracker", static_cast<double>(growth_tracker())}};
}

void GradScaler::load_state_dict(const GradScalerState& state) {
  if (!enabled_) return;
  EMBER_CHECK(!state.empty(),
              "The source state dict is empty, possibly because it was saved from a disabled "
              "instance of GradScaler.");
  auto get = [&](const char* key) {
    auto it = state.find(key);
    EMBER_CHECK(it != state.end(), "GradScaler state dict has no \"", key, "\"");
    return it->second;
  };
  init_scale_ = get("scale");
  if (scale_.defined()) scale_.fill_(init_scale_);
  growth_factor_ = get("growth_factor");
  backoff_factor_ = get("backoff_factor");
  growth_interval_ = static_cast<int64_t>(get("growth_interval"));
  init_growth_tracker_ = static_cast<int64_t>(get("_growth_tracker"));
  if (growth_tracker_.defined()) growth_tracker_.fill_(init_growth_tracker_);
}

}  // namespace amp
}  // namespace ember
