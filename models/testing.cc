#include "models/testing.h"

#include <gtest/gtest.h>

#include "tensor/reduce.h"

namespace ember {
namespace models {
namespace testing {

std::string state_dict_shapes(const nn::Module& module) {
  std::string text;
  for (const auto& [name, t] : module.state_dict()) {
    std::string shape;
    for (int64_t d = 0; d < t.dim(); ++d) shape += (d ? ", " : "") + std::to_string(t.size(d));
    text += (text.empty() ? "" : "\n") + name + " [" + shape + "]";
  }
  return text;
}

void expect_gradient_summaries(const nn::Module& module, const nn::testing::GoldenTables& tables,
                               const std::string& prefix, double tol) {
  for (const auto& [name, p] : module.named_parameters()) {
    const Tensor grad = p.grad().to(kDouble);
    const Tensor value = p.detach().to(kDouble);
    const double want_norm = tables.golden(prefix + "grad_norm." + name).values[0];
    EXPECT_NEAR(norm(grad).item<double>(), want_norm, tol * want_norm + 1e-12) << prefix << name;
    const double scale = want_norm * norm(value).item<double>();
    EXPECT_NEAR((grad * value).sum().item<double>(),
                tables.golden(prefix + "grad_dot." + name).values[0], tol * scale + 1e-12)
        << prefix << name;
  }
}

}  // namespace testing
}  // namespace models
}  // namespace ember
