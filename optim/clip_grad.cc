#include "optim/clip_grad.h"

#include <cmath>

#include "autograd/grad_mode.h"
#include "tensor/empty.h"
#include "tensor/math.h"
#include "tensor/print.h"
#include "tensor/reduce.h"
#include "tensor/shape.h"

namespace ember {
namespace nn {
namespace utils {

Tensor clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  NoGradGuard no_grad;
  std::vector<Tensor> grads;
  for (const auto& p : parameters) {
    if (p.grad().defined()) grads.push_back(p.grad());
  }
  if (grads.empty()) return scalar_tensor(0.);
  const Device device = grads[0].device();
  std::vector<Tensor> norms;
  Tensor total;
  if (std::isinf(norm_type)) {
    for (const auto& g : grads) norms.push_back(g.detach().abs().max().to(device));
    total = norms.size() == 1 ? norms[0] : stack(norms).max();
  } else {
    for (const auto& g : grads) norms.push_back(norm(g.detach(), norm_type).to(device));
    total = norm(stack(norms), norm_type);
  }
  if (error_if_nonfinite) {
    const double t = total.item<double>();
    EMBER_CHECK(std::isfinite(t), "The total norm of order ", python_float_repr(norm_type),
                " for gradients from `parameters` is non-finite, so it cannot be clipped. To "
                "disable this error and scale the gradients by the non-finite norm anyway, set "
                "`error_if_nonfinite=False`");
  }
  // As PyTorch: always multiply (by at most 1), so there is no
  // device-to-host sync on the norm.
  const Tensor coef = (max_norm / (total + 1e-6)).clamp(std::nullopt, 1.0);
  for (auto& g : grads) g.detach().mul_(coef.to(g.device()));
  return total;
}

Tensor clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<Tensor>{parameter}, max_norm, norm_type, error_if_nonfinite);
}

void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value) {
  NoGradGuard no_grad;
  for (const auto& p : parameters) {
    if (p.grad().defined()) p.grad().detach().clamp_(-clip_value, clip_value);
  }
}

void clip_grad_value_(const Tensor& parameter, double clip_value) {
  clip_grad_value_(std::vector<Tensor>{parameter}, clip_value);
}

}  // namespace utils
}  // namespace nn
}  // namespace ember
