#ifndef EMBER_OPTIM_MOMENTS_H_
#define EMBER_OPTIM_MOMENTS_H_
// Note [Adam moments]: Adam, AdamW, NAdam and RAdam move the same two
// averages of the gradient before each applies its own step:
//   grad = grad + weight_decay * param        (when weight_decay != 0)
//   exp_avg    = exp_avg * beta1 + (1 - beta1) * grad
//   exp_avg_sq = exp_avg_sq * beta2 + (1 - beta2) * grad * grad
// written here once as PyTorch 1.13's single-tensor code does it, for the
// fused loops (one element) and for the tensor-op path (Note [Fused
// updates]). Adamax keeps an infinity norm instead and has its own loop.
// Internal to //optim.

#include <cstdint>
#include <utility>

#include "optim/adam.h"
#include "optim/fused.h"
#include "optim/optimizer.h"

namespace ember {
namespace optim {
namespace detail {

// The coefficients in the parameter's type, passed by value so that the
// loops keep them in registers (see sgd.cc).
template <typename T>
struct MomentScalars {
  T beta1, one_m_beta1, beta2, one_m_beta2, weight_decay;

  static MomentScalars of(const Betas& betas, double weight_decay) {
    const double beta1 = std::get<0>(betas), beta2 = std::get<1>(betas);
    return {static_cast<T>(beta1), static_cast<T>(1 - beta1), static_cast<T>(beta2),
            static_cast<T>(1 - beta2), static_cast<T>(weight_decay)};
  }
};

// One element: moves m and v and returns the gradient they took (with
// weight decay when kWd).
template <bool kWd, typename T>
inline T update_moments(const MomentScalars<T>& s, T param, T g, T& m, T& v) {
  const T grad = kWd ? g + s.weight_decay * param : g;
  m = m * s.beta1 + s.one_m_beta1 * grad;
  v = v * s.beta2 + s.one_m_beta2 * grad * grad;
  return grad;
}

// The same with tensor ops, op for op as PyTorch; returns the gradient.
Tensor update_moments(const Betas& betas, double weight_decay, const Tensor& param,
                      const Tensor& grad, Tensor& exp_avg, Tensor& exp_avg_sq);

// A parameter's "exp_avg" and "exp_avg_sq", created as zeros (and step as
// 0) on its first update; step is not advanced.
std::pair<Tensor*, Tensor*> moments_of(ParamState& st, const Tensor& param);

// Runs chunk(p, g, m, v, n) over the elements of a fusable parameter, its
// grad and its moments (as T pointers, in chunks across the thread budget),
// then marks what it wrote.
template <typename T, typename Chunk>
void for_each_moment_chunk(Tensor& param, const Tensor& grad, Tensor& exp_avg, Tensor& exp_avg_sq,
                           const Chunk& chunk) {
  T* p = param.data_ptr<T>();
  const T* g = grad.data_ptr<T>();
  T* m = exp_avg.data_ptr<T>();
  T* v = exp_avg_sq.data_ptr<T>();
  for_each_chunk(param.numel(), [=](int64_t begin, int64_t end) {
    chunk(p + begin, g + begin, m + begin, v + begin, end - begin);
  });
  mark_written(param);
  mark_written(exp_avg);
  mark_written(exp_avg_sq);
}

}  // namespace detail
}  // namespace optim
}  // namespace ember

#endif  // EMBER_OPTIM_MOMENTS_H_
