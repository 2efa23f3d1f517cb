#ifndef EMBER_AUTOGRAD_ENGINE_H_
#define EMBER_AUTOGRAD_ENGINE_H_
// The backward engine and the functional API (torch.autograd.backward /
// torch.autograd.grad). See Note [Autograd design] in engine.cc.
#include <functional>
#include <optional>

#include "autograd/node.h"

namespace ember {
namespace autograd {

// torch.autograd.backward: accumulates d(sum of tensors * grad_tensors) into
// the leaves' .grad. An undefined grad_tensors entry means ones for a
// one-element tensor. retain_graph defaults to create_graph.
void backward(const variable_list& tensors, const variable_list& grad_tensors = {},
              std::optional<bool> retain_graph = std::nullopt, bool create_graph = false);

// torch.autograd.grad: the gradients of `outputs` with respect to `inputs`,
// without touching any .grad. With create_graph the results carry a graph
// (higher derivatives). An input the outputs do not depend on is an error
// unless allow_unused (its result is then undefined).
variable_list grad(const variable_list& outputs, const variable_list& inputs,
                   const variable_list& grad_outputs = {},
                   std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
                   bool allow_unused = false);

// Queues `callback` to run once the current backward pass has finished
// (PyTorch's Variable._execution_engine.queue_callback). Only valid while a
// backward pass runs (from a hook or a node).
void queue_callback(std::function<void()> callback);

}  // namespace autograd
}  // namespace ember

#endif  // EMBER_AUTOGRAD_ENGINE_H_
