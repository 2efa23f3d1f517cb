#ifndef EMBER_AUTOGRAD_GRADCHECK_H_
#define EMBER_AUTOGRAD_GRADCHECK_H_
// torch.autograd.gradcheck: compares the analytical gradients of `fn` with
// central finite differences, input by input, element by element. Inputs
// should be float64 and require grad (the others are held fixed).
#include <functional>
#include <string>

#include "autograd/node.h"

namespace ember {
namespace autograd {

struct GradcheckOptions {
  double eps = 1e-6;
  double atol = 1e-5;
  double rtol = 1e-3;
  // Checks the gradient of the gradient too: gradgradcheck below, with
  // random grad_outputs.
  bool check_grad_grad = false;
};

using GradcheckFn = std::function<variable_list(const variable_list&)>;

// Returns "" when every gradient matches, else a description of the first
// mismatch (PyTorch raises; a message is easier to assert in tests).
std::string gradcheck(const GradcheckFn& fn, const variable_list& inputs,
                      const GradcheckOptions& options = {});

// torch.autograd.gradgradcheck: gradcheck of the function
//   (inputs..., grad_outputs...) -> the gradients of fn's outputs with
//   respect to the inputs that require grad, for grad_outputs,
// computed with create_graph, so that the derivative formulas' own
// derivatives are compared with finite differences of the first
// derivatives, with respect to the inputs and to the incoming gradients
// (those that require grad). Empty grad_outputs: random float64 ones that
// require grad, one per floating-point output (undefined for the others).
std::string gradgradcheck(const GradcheckFn& fn, const variable_list& inputs,
                          const variable_list& grad_outputs = {},
                          const GradcheckOptions& options = {});

}  // namespace autograd
}  // namespace ember

#endif  // EMBER_AUTOGRAD_GRADCHECK_H_
