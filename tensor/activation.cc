// gelu and leaky_relu, recorded once each (GeluBackward0,
// LeakyReluBackward0); forward composed of public ops.
#include <cmath>

#include "tensor/autograd_hook.h"
#include "tensor/error.h"
#include "tensor/math.h"
#include "tensor/nn_ops.h"
#include "tensor/selection.h"

namespace ember {

Tensor gelu(const Tensor& self, const std::string& approximate) {
  EMBER_CHECK(approximate == "none" || approximate == "tanh",
              "approximate argument must be either none or tanh.");
  detail::OpScope scope(self);
  Tensor out;
  if (approximate == "none") {
    out = self * 0.5 * (1 + (self * M_SQRT1_2).erf());
  } else {
    const double k = std::sqrt(2.0 / M_PI);
    out = self * 0.5 * (1 + ((self + self * self * self * 0.044715) * k).tanh());
  }
  if (scope.active()) scope.record("gelu", {self}, {out}, {approximate});
  return out;
}

Tensor leaky_relu(const Tensor& self, const Scalar& negative_slope) {
  detail::OpScope scope(self);
  Tensor out = where(self > 0, self, self * negative_slope);
  if (scope.active()) scope.record("leaky_relu", {self}, {out}, {negative_slope});
  return out;
}

}  // namespace ember
