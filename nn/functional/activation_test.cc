#include "nn/functional/activation.h"

#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "gtest/gtest.h"
#include "nn/functional/dropout.h"
#include "nn/functional/linear.h"
#include "nn/functional/testing/nn_golden.h"
#include "tensor/all.h"

namespace ember {
namespace {

namespace F = nn::functional;
using testing::check_case;
using V = std::vector<Tensor>;

TEST(Activation, Relu) {
  check_case("relu", 1, {0}, [](const V& x) { return F::relu(x[0].t()); });
}
TEST(Activation, ReluInplace) {
  Tensor x = testing::case_input("relu", "f32", 0);
  Tensor r = F::relu(x, F::ReLUFuncOptions(true));
  EXPECT_TRUE(testing::shares_storage(r, x));
  EXPECT_EQ(x.min().item<float>(), 0.0f);
}
TEST(Activation, LeakyRelu) {
  check_case("leaky_relu", 1, {0}, [](const V& x) {
    return F::leaky_relu(x[0], F::LeakyReLUFuncOptions().negative_slope(0.2));
  });
}
TEST(Activation, Gelu) {
  check_case("gelu", 1, {0}, [](const V& x) { return F::gelu(x[0].t()); });
  check_case("gelu_tanh", 1, {0},
             [](const V& x) { return F::gelu(x[0], F::GELUFuncOptions().approximate("tanh")); });
}
TEST(Activation, SigmoidTanhSoftmax) {
  check_case("sigmoid", 1, {0}, [](const V& x) { return F::sigmoid(x[0]); });
  check_case("tanh", 1, {0}, [](const V& x) { return F::tanh(x[0]); });
  check_case("softmax", 1, {0}, [](const V& x) { return F::softmax(x[0], 1); });
  check_case("log_softmax", 1, {0},
             [](const V& x) { return F::log_softmax(x[0].transpose(0, 1), -1); });
}
TEST(Linear, LeadingDimsAndBias) {
  check_case("linear", 3, {0, 1, 2}, [](const V& x) { return F::linear(x[0], x[1], x[2]); });
  check_case("linear_2d_nobias", 2, {0, 1}, [](const V& x) { return F::linear(x[0], x[1]); });
}
TEST(Dropout, MatchesPyTorchUnderManualSeed) {
  manual_seed(0);
  Tensor out = F::dropout(testing::make_input({4, 5}, kFloat), F::DropoutFuncOptions().p(0.3));
  EXPECT_TRUE(testing::near_golden(out, testing::nn_golden("dropout/out"), kFloat, 1e-6));
}
TEST(Dropout, EvalAndInplace) {
  Tensor x = randn({3, 4});
  EXPECT_TRUE(F::dropout(x, F::DropoutFuncOptions().training(false)).equal(x));
  Tensor y = x.clone();
  Tensor r = F::dropout(y, F::DropoutFuncOptions().p(1.0).inplace(true));
  EXPECT_TRUE(testing::shares_storage(r, y));
  EXPECT_EQ(y.abs().sum().item<float>(), 0.0f);
}
TEST(Activation, GradNames) {
  Tensor x = randn({3}).requires_grad_(true);
  EXPECT_EQ(F::gelu(x).grad_fn()->name(), "GeluBackward0");
  EXPECT_EQ(F::leaky_relu(x).grad_fn()->name(), "LeakyReluBackward0");
  EXPECT_EQ(F::dropout(x).grad_fn()->name(), "MulBackward0");
}
TEST(Activation, Errors) {
  testing::expect_nn_error("gelu_approximate",
                           [] { F::gelu(zeros({2}), F::GELUFuncOptions().approximate("foo")); });
  testing::expect_nn_error("dropout_p",
                           [] { F::dropout(zeros({2}), F::DropoutFuncOptions().p(1.5)); });
}
TEST(Activation, Gradcheck) {
  Tensor x = randn({3, 4}, TensorOptions(kDouble).requires_grad(true));
  for (auto f : std::vector<std::function<Tensor(const Tensor&)>>{
           [](const Tensor& t) { return F::gelu(t); },
           [](const Tensor& t) { return F::gelu(t, F::GELUFuncOptions().approximate("tanh")); },
           [](const Tensor& t) {
             return F::leaky_relu(t, F::LeakyReLUFuncOptions().negative_slope(0.3));
           }}) {
    EXPECT_EQ(
        autograd::gradcheck(
            [&](const autograd::variable_list& v) { return autograd::variable_list{f(v[0])}; },
            {x}),
        "");
  }
}

// glu against PyTorch (tools/golden/nn_ops_misc.py) and finite differences.
TEST(Activation, Glu) {
  using V = std::vector<Tensor>;
  testing::check_misc_case("glu", 1, {0}, [](const V& x) { return F::glu(x[0]); });
  testing::check_misc_case("glu_dim0_noncontig", 1, {0},
                            [](const V& x) { return F::glu(x[0].t(), 0); });
  testing::check_misc_case("glu_3d", 1, {0}, [](const V& x) { return F::glu(x[0], 1); });
  testing::expect_nn_misc_error("glu_odd", [] { F::glu(zeros({2, 3}), 1); });
  testing::expect_nn_misc_error("glu_scalar", [] { F::glu(zeros({})); });
  autograd::GradcheckOptions o;
  o.check_grad_grad = true;
  EXPECT_EQ(autograd::gradcheck(
                [](const autograd::variable_list& v) {
                  return autograd::variable_list{F::glu(v[0], -2)};
                },
                {randn({4, 3}, TensorOptions(kDouble).requires_grad(true))}, o),
            "");
}

}  // namespace
}  // namespace ember
