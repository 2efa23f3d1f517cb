// float64 gradients (and gradients of gradients) of tensor/view_copy.h's
// *_copy ops against finite differences: each records a node of its own
// (Note [View copies]) with its view's formula; detach_copy's node has no
// derivative, as 1.13's (values and errors: tensor/view_copy_test.cc).
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
using testing::error_of;

Tensor leaf(IntArrayRef sizes, int64_t seed = 1) {
  return (testing::make_input(sizes, kDouble, seed) +
          arange(testing::make_input(sizes, kDouble).numel(), kDouble).reshape(sizes) * 0.01)
      .requires_grad_();
}

void check(const std::string& name, const std::function<Tensor(const Tensor&)>& f,
           const Tensor& x) {
  autograd::GradcheckOptions o;
  o.check_grad_grad = true;
  EXPECT_EQ(
      autograd::gradcheck([&](const variable_list& v) { return variable_list{f(v[0])}; }, {x}, o),
      "")
      << name;
}

void check_list(const std::string& name, const std::function<std::vector<Tensor>(const Tensor&)>& f,
                const Tensor& x) {
  autograd::GradcheckOptions o;
  o.check_grad_grad = true;
  EXPECT_EQ(autograd::gradcheck([&](const variable_list& v) { return f(v[0]); }, {x}, o), "")
      << name;
}

TEST(ViewCopyGrad, Gradcheck) {
  const Tensor x = leaf({3, 4});
  // A transposed, offset input: the gradient must reach self's own layout.
  const Tensor xt = leaf({4, 5}).detach().t().slice(0, 1, std::nullopt).requires_grad_();
  check(
      "as_strided_copy",
      [](const Tensor& t) {
        return as_strided_copy(t, {2, 2}, {1, 2}, 1);
      },
      x);
  check(
      "as_strided_copy overlap",
      [](const Tensor& t) {
        return as_strided_copy(t, {3, 2}, {1, 1});
      },
      x);
  check(
      "diagonal_copy", [](const Tensor& t) { return diagonal_copy(t, 1, -1, 0); }, xt);
  check(
      "expand_copy",
      [](const Tensor& t) {
        return expand_copy(t, {2, 3, 4});
      },
      leaf({3, 1}));
  check(
      "permute_copy",
      [](const Tensor& t) {
        return permute_copy(t, {-1, 0, 1});
      },
      leaf({2, 3, 4}));
  check(
      "select_copy", [](const Tensor& t) { return select_copy(t, 1, -1); }, xt);
  check(
      "slice_copy", [](const Tensor& t) { return slice_copy(t, 1, -3, std::nullopt, 2); }, x);
  check(
      "squeeze_copy", [](const Tensor& t) { return squeeze_copy(t); }, leaf({3, 1, 2}));
  check(
      "squeeze_copy dim", [](const Tensor& t) { return squeeze_copy(t, -2); }, leaf({3, 1, 2}));
  check(
      "t_copy", [](const Tensor& t) { return t_copy(t); }, xt);
  check(
      "transpose_copy", [](const Tensor& t) { return transpose_copy(t, 0, -1); }, leaf({2, 3, 4}));
  check(
      "unfold_copy", [](const Tensor& t) { return unfold_copy(t, 1, 2, 1); }, x);
  check(
      "unsqueeze_copy", [](const Tensor& t) { return unsqueeze_copy(t, -1); }, xt);
  check(
      "view_copy",
      [](const Tensor& t) {
        return view_copy(t, {6, 2});
      },
      x);
  check(
      "view_copy not viewable", [](const Tensor& t) { return view_copy(t, {-1}); }, xt);
  check(
      "alias_copy", [](const Tensor& t) { return alias_copy(t); }, xt);
  check_list(
      "split_copy", [](const Tensor& t) { return split_copy(t, 3, 1); }, x);
  check_list(
      "split_with_sizes_copy",
      [](const Tensor& t) {
        return split_with_sizes_copy(t, {1, 0, 2}, 0);
      },
      x);
  check_list(
      "unbind_copy", [](const Tensor& t) { return unbind_copy(t, -1); }, xt);
}

TEST(ViewCopyGrad, NodeNames) {
  const Tensor x = leaf({3, 4});
  EXPECT_EQ(permute_copy(x, {1, 0}).grad_fn()->name(), "PermuteBackward0_copy");
  EXPECT_EQ(squeeze_copy(x, 0).grad_fn()->name(), "SqueezeBackward1_copy");
  EXPECT_EQ(split_copy(x, 2, 1)[1].grad_fn()->name(), "SplitBackward0_copy");
  // view_copy to another dtype is not differentiable.
  EXPECT_FALSE(view_copy(x, kLong).requires_grad());
}

// 1.13 records detach_copy with no derivative: the result requires grad and
// backward through it fails.
TEST(ViewCopyGrad, DetachCopyHasNoDerivative) {
  const Tensor x = leaf({3, 4});
  const Tensor y = detach_copy(x);
  ASSERT_TRUE(y.requires_grad());
  EXPECT_EQ(y.grad_fn()->name(), "torch::autograd::NotImplemented");
  EXPECT_EQ(error_of([&] { y.sum().backward(); }),
            "derivative for aten::detach_copy is not implemented");
}

}  // namespace
}  // namespace ember
