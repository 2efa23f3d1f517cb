#include "optim/fused.h"

#include <atomic>

namespace ember {
namespace optim {
namespace detail {
namespace {
std::atomic<bool> g_fused{true};
}  // namespace

bool fused_kernels_enabled() { return g_fused.load(std::memory_order_relaxed); }
void set_fused_kernels_enabled(bool enabled) { g_fused.store(enabled); }

bool fusable(const Tensor& p, const Tensor& grad, std::initializer_list<const Tensor*> buffers) {
  if (!fused_kernels_enabled()) return false;
  const ScalarType t = p.dtype();
  if (t != kFloat && t != kDouble) return false;
  if (!p.device().is_cpu() || !p.is_contiguous()) return false;
  auto same = [&](const Tensor& o) {
    return o.dtype() == t && o.device().is_cpu() && o.is_contiguous() && o.sizes() == p.sizes();
  };
  if (!same(grad)) return false;
  for (const Tensor* b : buffers) {
    if (!same(*b)) return false;
  }
  return true;
}

}  // namespace detail
}  // namespace optim
}  // namespace ember
