#ifndef EMBER_TENSOR_AUTOGRAD_HOOK_H_
#define EMBER_TENSOR_AUTOGRAD_HOOK_H_

#include "tensor/tensor_impl.h"

namespace ember {

// See Note [Autograd slot]. //autograd installs one AutogradHooks object at
// static-initialization time; without it, tensors cannot require grad.
class AutogradHooks {
 public:
  virtual ~AutogradHooks() = default;
  // Creates or updates the tensor's AutogradMeta.
  virtual void set_requires_grad(TensorImpl* impl, bool requires_grad) = 0;
};

void set_autograd_hooks(AutogradHooks* hooks);
AutogradHooks* autograd_hooks();

}  // namespace ember

#endif  // EMBER_TENSOR_AUTOGRAD_HOOK_H_
