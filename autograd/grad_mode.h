#ifndef EMBER_AUTOGRAD_GRAD_MODE_H_
#define EMBER_AUTOGRAD_GRAD_MODE_H_
// Thread-local grad mode, as libtorch spells it: ember::GradMode,
// ember::NoGradGuard, ember::AutoGradMode, and ember::EnableGradGuard
// (torch.enable_grad). The flag itself lives in //tensor
// (detail::autograd_tls) because every op reads it (Note [Op recording]).
#include "tensor/autograd_hook.h"

namespace ember {

struct GradMode {
  static bool is_enabled() { return !detail::autograd_tls().grad_disabled; }
  static void set_enabled(bool enabled) { detail::autograd_tls().grad_disabled = !enabled; }
};

// Sets grad mode for its scope and restores the previous mode after.
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : prev_(GradMode::is_enabled()) {
    GradMode::set_enabled(enabled);
  }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;
  ~AutoGradMode() { GradMode::set_enabled(prev_); }

 private:
  bool prev_;
};

// torch.no_grad(): ops in scope record nothing.
class NoGradGuard : public AutoGradMode {
 public:
  NoGradGuard() : AutoGradMode(false) {}
};

// torch.enable_grad(): recording back on inside a NoGradGuard.
class EnableGradGuard : public AutoGradMode {
 public:
  EnableGradGuard() : AutoGradMode(true) {}
};

}  // namespace ember

#endif  // EMBER_AUTOGRAD_GRAD_MODE_H_
