// float64 gradients (and gradients of gradients) of tensor/shape_more.h's
// differentiable composites against finite differences: they have no
// derivative of their own, so this checks that each is built from ops that
// carry the gradient (values and messages: tensor/shape_more_test.cc).
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "gtest/gtest.h"
#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using autograd::variable_list;

Tensor leaf(IntArrayRef sizes, int64_t seed) {
  // make_input's values plus a seed-dependent offset, so no two are tied.
  return (testing::make_input(sizes, kDouble, seed) +
          arange(testing::make_input(sizes, kDouble).numel(), kDouble).reshape(sizes) * 0.01)
      .requires_grad_();
}

void check(const std::string& name, const autograd::GradcheckFn& fn, const variable_list& in) {
  autograd::GradcheckOptions o;
  o.check_grad_grad = true;
  EXPECT_EQ(autograd::gradcheck(fn, in, o), "") << name;
}

TEST(ShapeMoreGrad, Composites) {
  check("block_diag", [](const variable_list& x) { return variable_list{block_diag(x)}; },
        {leaf({2, 3}, 1), leaf({3}, 2), leaf({}, 3)});
  check("column_stack", [](const variable_list& x) { return variable_list{column_stack(x)}; },
        {leaf({3}, 1), leaf({3, 2}, 2)});
  check("dstack", [](const variable_list& x) { return variable_list{dstack(x)}; },
        {leaf({2, 3}, 1), leaf({2, 3}, 2)});
  check("cartesian_prod", [](const variable_list& x) { return variable_list{cartesian_prod(x)}; },
        {leaf({3}, 1), leaf({2}, 2)});
  check("combinations",
        [](const variable_list& x) { return variable_list{combinations(x[0], 2, true)}; },
        {leaf({4}, 1)});
  check("meshgrid", [](const variable_list& x) { return meshgrid(x, "xy"); },
        {leaf({3}, 1), leaf({2}, 2)});
  check("vander", [](const variable_list& x) { return variable_list{vander(x[0], 4)}; },
        {leaf({3}, 1)});
  check("chain_matmul", [](const variable_list& x) { return variable_list{chain_matmul(x)}; },
        {leaf({2, 3}, 1), leaf({3, 4}, 2), leaf({4, 2}, 3), leaf({2, 2}, 4)});
  check("linalg_multi_dot",
        [](const variable_list& x) { return variable_list{linalg_multi_dot(x)}; },
        {leaf({3}, 1), leaf({3, 4}, 2), leaf({4, 2}, 3), leaf({2, 5}, 4), leaf({5}, 5)});
  check("linalg_multi_dot 3",
        [](const variable_list& x) { return variable_list{linalg_multi_dot(x)}; },
        {leaf({2, 3}, 1), leaf({3, 4}, 2), leaf({4}, 3)});
  check("trapezoid x", [](const variable_list& x) { return variable_list{trapezoid(x[0], x[1])}; },
        {leaf({2, 4}, 1), leaf({4}, 2)});
  check("trapezoid dx",
        [](const variable_list& x) { return variable_list{trapezoid(x[0], 0.5, 0)}; },
        {leaf({3, 4}, 1)});
  check("cumulative_trapezoid x",
        [](const variable_list& x) { return variable_list{cumulative_trapezoid(x[0], x[1])}; },
        {leaf({2, 4}, 1), leaf({2, 4}, 2)});
  check("cumulative_trapezoid dx",
        [](const variable_list& x) { return variable_list{cumulative_trapezoid(x[0], 2)}; },
        {leaf({3, 4}, 1)});
  check("adjoint", [](const variable_list& x) { return variable_list{x[0].adjoint()}; },
        {leaf({2, 2, 3}, 1)});
}

}  // namespace
}  // namespace ember
