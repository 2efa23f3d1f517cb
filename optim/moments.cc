#include "optim/moments.h"

namespace ember {
namespace optim {
namespace detail {

Tensor update_moments(const Betas& betas, double weight_decay, const Tensor& param,
                      const Tensor& grad, Tensor& exp_avg, Tensor& exp_avg_sq) {
  const double beta1 = std::get<0>(betas), beta2 = std::get<1>(betas);
  Tensor g = weight_decay != 0 ? grad.add(param, weight_decay) : grad;
  exp_avg.mul_(beta1).add_(g, 1 - beta1);
  exp_avg_sq.mul_(beta2).addcmul_(g, g, 1 - beta2);
  return g;
}

std::pair<Tensor*, Tensor*> moments_of(ParamState& st, const Tensor& param) {
  if (!st.step) st.step = 0;
  st.zeros_if_missing("exp_avg", param);
  st.zeros_if_missing("exp_avg_sq", param);
  // Looked up after both exist: creating one may move the other.
  return {st.find("exp_avg"), st.find("exp_avg_sq")};
}

}  // namespace detail
}  // namespace optim
}  // namespace ember
