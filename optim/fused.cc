#include "optim/fused.h"

#include <atomic>

#include "tensor/error.h"

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

bool use_multi_tensor(const std::vector<Tensor>& params, std::optional<bool> foreach, bool fused,
                      bool kernel_registered) {
  EMBER_CHECK(!(fused && foreach.value_or(false)), "`fused` and `foreach` cannot be `True` together.");
  if (foreach == false || !kernel_registered || params.empty()) return false;
  const Tensor& first = params[0];
  if (!first.is_cuda() || !is_floating_point(first.dtype())) return false;
  for (const Tensor& p : params) {
    const Tensor& g = p.grad();
    if (p.device() != first.device() || p.dtype() != first.dtype() || !p.is_contiguous() ||
        g.device() != first.device() || g.dtype() != first.dtype() || !g.is_contiguous() ||
        g.sizes() != p.sizes()) {
      return false;
    }
  }
  return true;
}

bool buffers_fit(const std::vector<Tensor>& params, const std::vector<Tensor>& buffers) {
  if (buffers.empty()) return true;
  if (buffers.size() != params.size()) return false;
  for (size_t i = 0; i < buffers.size(); ++i) {
    const Tensor& p = params[i];
    const Tensor& b = buffers[i];
    if (b.device() != p.device() || b.dtype() != p.dtype() || !b.is_contiguous() ||
        b.sizes() != p.sizes()) {
      return false;
    }
  }
  return true;
}

}  // namespace detail
}  // namespace optim
}  // namespace ember
