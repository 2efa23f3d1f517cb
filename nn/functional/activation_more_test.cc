// The activations beyond relu / leaky_relu / gelu against PyTorch
// (tools/golden/nn_ops_more.py): values and gradients on random inputs
// (transposed: non-contiguous), at each kink and far out where a naive
// formula overflows; in-place forms; node names; errors; derivatives to
// second order.
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "gtest/gtest.h"
#include "nn/functional/activation.h"
#include "nn/functional/testing/nn_golden.h"
#include "tensor/all.h"

namespace ember {
namespace {

namespace F = nn::functional;
using testing::check_more_case;
using V = std::vector<Tensor>;
using Fn = std::function<Tensor(const Tensor&)>;

TEST(ActivationMore, EluSeluCelu) {
  check_more_case("elu", 1, {0},
                  [](const V& x) { return F::elu(x[0].t(), F::ELUFuncOptions().alpha(0.7)); });
  check_more_case("selu", 1, {0}, [](const V& x) { return F::selu(x[0]); });
  check_more_case("celu", 1, {0},
                  [](const V& x) { return F::celu(x[0].t(), F::CELUFuncOptions().alpha(1.5)); });
}
TEST(ActivationMore, SiluMish) {
  check_more_case("silu", 1, {0}, [](const V& x) { return F::silu(x[0].t()); });
  check_more_case("mish", 1, {0}, [](const V& x) { return F::mish(x[0]); });
}
TEST(ActivationMore, Softplus) {
  check_more_case("softplus", 1, {0}, [](const V& x) { return F::softplus(x[0].t()); });
  check_more_case("softplus_beta_threshold", 1, {0}, [](const V& x) {
    return F::softplus(x[0], F::SoftplusFuncOptions().beta(2).threshold(5));
  });
}
TEST(ActivationMore, SoftsignTanhshrinkLogsigmoid) {
  check_more_case("softsign", 1, {0}, [](const V& x) { return F::softsign(x[0].t()); });
  check_more_case("tanhshrink", 1, {0}, [](const V& x) { return F::tanhshrink(x[0]); });
  check_more_case("logsigmoid", 1, {0}, [](const V& x) { return F::logsigmoid(x[0].t()); });
}
TEST(ActivationMore, HardtanhRelu6) {
  check_more_case("hardtanh", 1, {0}, [](const V& x) {
    return F::hardtanh(x[0].t(), F::HardtanhFuncOptions().min_val(-0.5).max_val(1.2));
  });
  check_more_case("relu6", 1, {0}, [](const V& x) { return F::relu6(x[0]); });
}
TEST(ActivationMore, HardsigmoidHardswish) {
  // PyTorch 1.13's float64 hardsigmoid gradient uses 1/6 rounded to float.
  check_more_case(
      "hardsigmoid", 1, {0}, [](const V& x) { return F::hardsigmoid(x[0].t()); }, 1e-7);
  check_more_case("hardswish", 1, {0}, [](const V& x) { return F::hardswish(x[0]); });
}
TEST(ActivationMore, Prelu) {
  check_more_case("prelu", 2, {0, 1},
                  [](const V& x) { return F::prelu(x[0].transpose(1, 2), x[1]); });
  check_more_case("prelu_one", 2, {0, 1}, [](const V& x) { return F::prelu(x[0].t(), x[1]); });
  check_more_case("prelu_1d", 2, {0, 1}, [](const V& x) { return F::prelu(x[0], x[1]); });
}
TEST(ActivationMore, Shrinks) {
  check_more_case("softshrink", 1, {0}, [](const V& x) { return F::softshrink(x[0].t(), 0.7); });
  check_more_case("hardshrink", 1, {0}, [](const V& x) { return F::hardshrink(x[0], 0.4); });
}
TEST(ActivationMore, Threshold) {
  check_more_case("threshold", 1, {0}, [](const V& x) {
    return F::threshold(x[0].t(), F::ThresholdFuncOptions(0.3, -2.0));
  });
}

// Each activation at its kinks (PyTorch's gradient conventions there) and
// at +-1e-8, +-20 (softplus' threshold), +-100 and +-1000.
TEST(ActivationMore, EdgeValues) {
  const std::vector<std::pair<std::string, Fn>> fns = {
      {"elu", [](const Tensor& t) { return F::elu(t); }},
      {"selu", [](const Tensor& t) { return F::selu(t); }},
      {"celu", [](const Tensor& t) { return F::celu(t, F::CELUFuncOptions().alpha(0.5)); }},
      {"silu", [](const Tensor& t) { return F::silu(t); }},
      {"mish", [](const Tensor& t) { return F::mish(t); }},
      {"softplus", [](const Tensor& t) { return F::softplus(t); }},
      {"softplus_beta",
       [](const Tensor& t) {
         return F::softplus(t, F::SoftplusFuncOptions().beta(0.5).threshold(10));
       }},
      {"softsign", [](const Tensor& t) { return F::softsign(t); }},
      {"hardtanh", [](const Tensor& t) { return F::hardtanh(t); }},
      {"relu6", [](const Tensor& t) { return F::relu6(t); }},
      {"hardsigmoid", [](const Tensor& t) { return F::hardsigmoid(t); }},
      {"hardswish", [](const Tensor& t) { return F::hardswish(t); }},
      {"logsigmoid", [](const Tensor& t) { return F::logsigmoid(t); }},
      {"tanhshrink", [](const Tensor& t) { return F::tanhshrink(t); }},
      {"softshrink", [](const Tensor& t) { return F::softshrink(t, 1.0); }},
      {"hardshrink", [](const Tensor& t) { return F::hardshrink(t, 1.0); }},
      {"threshold", [](const Tensor& t) { return F::threshold(t, {1.0, -7.0}); }},
      {"relu", [](const Tensor& t) { return F::relu(t); }},
      {"leaky_relu",
       [](const Tensor& t) { return F::leaky_relu(t, F::LeakyReLUFuncOptions().negative_slope(0.1)); }},
  };
  for (const auto& [name, fn] : fns) {
    SCOPED_TRACE(name);
    // PyTorch 1.13's float64 hardsigmoid gradient uses 1/6 rounded to float.
    const double f64_grad_rel = name == "hardsigmoid" ? 1e-7 : 1e-9;
    check_more_case(
        "edge_" + name, 1, {0}, [&fn = fn](const V& x) { return fn(x[0]); }, f64_grad_rel);
  }
}

// relu at exactly 0 has no gradient, through every spelling, and records
// PyTorch's ReluBackward0 (it was clamp_min's ClampBackward1, passing 1).
TEST(ActivationMore, ReluAtZero) {
  const std::vector<std::pair<std::string, Fn>> spellings = {
      {"Tensor::relu", [](const Tensor& t) { return t.relu(); }},
      {"ember::relu", [](const Tensor& t) { return ember::relu(t); }},
      {"F::relu", [](const Tensor& t) { return F::relu(t); }},
      {"F::relu inplace", [](const Tensor& t) { return F::relu(t * 1, true); }},
      {"Tensor::relu_", [](const Tensor& t) { return (t * 1).relu_(); }},
  };
  for (const auto& [name, fn] : spellings) {
    SCOPED_TRACE(name);
    Tensor x = tensor({0.0, -1.0, 2.0, 0.0}).requires_grad_(true);
    Tensor y = fn(x);
    EXPECT_EQ(y.grad_fn()->name(), "ReluBackward0");
    y.sum().backward();
    EXPECT_TRUE(x.grad().equal(tensor({0.0, 0.0, 1.0, 0.0}))) << x.grad();
  }
}

// inplace(true) writes the result into the input and returns it.
TEST(ActivationMore, Inplace) {
  const std::vector<std::pair<Fn, Fn>> pairs = {
      {[](const Tensor& t) { return F::elu(t, F::ELUFuncOptions().inplace(true)); },
       [](const Tensor& t) { return F::elu(t); }},
      {[](const Tensor& t) { return F::selu(t, true); }, [](const Tensor& t) { return F::selu(t); }},
      {[](const Tensor& t) { return F::celu(t, F::CELUFuncOptions().inplace(true)); },
       [](const Tensor& t) { return F::celu(t); }},
      {[](const Tensor& t) { return F::silu(t, true); }, [](const Tensor& t) { return F::silu(t); }},
      {[](const Tensor& t) { return F::mish(t, true); }, [](const Tensor& t) { return F::mish(t); }},
      {[](const Tensor& t) { return F::hardsigmoid(t, true); },
       [](const Tensor& t) { return F::hardsigmoid(t); }},
      {[](const Tensor& t) { return F::hardswish(t, true); },
       [](const Tensor& t) { return F::hardswish(t); }},
      {[](const Tensor& t) { return F::hardtanh(t, F::HardtanhFuncOptions().inplace(true)); },
       [](const Tensor& t) { return F::hardtanh(t); }},
      {[](const Tensor& t) { return F::relu6(t, true); },
       [](const Tensor& t) { return F::relu6(t); }},
      {[](const Tensor& t) { return F::threshold(t, F::ThresholdFuncOptions(0.5, 9).inplace(true)); },
       [](const Tensor& t) { return F::threshold(t, {0.5, 9}); }},
  };
  for (size_t i = 0; i < pairs.size(); ++i) {
    SCOPED_TRACE(i);
    Tensor x = testing::make_input({3, 4}) * 3;
    Tensor want = pairs[i].second(x);
    Tensor r = pairs[i].first(x);
    EXPECT_TRUE(testing::shares_storage(r, x));
    EXPECT_TRUE(x.equal(want));
  }
  // Through autograd: the gradient of the in-place form is the op's.
  Tensor a = randn({5}, kDouble).requires_grad_(true);
  Tensor h = a * 1;
  F::elu(h, F::ELUFuncOptions().inplace(true)).sum().backward();
  Tensor b = a.detach().clone().requires_grad_(true);
  F::elu(b).sum().backward();
  EXPECT_TRUE(a.grad().allclose(b.grad()));
}

TEST(ActivationMore, GradNames) {
  Tensor x = randn({3}).requires_grad_(true);
  const std::vector<std::pair<std::string, Tensor>> got = {
      {"EluBackward0", F::elu(x)},
      {"EluBackward0", F::selu(x)},
      {"CeluBackward0", F::celu(x)},
      {"SiluBackward0", F::silu(x)},
      {"MishBackward0", F::mish(x)},
      {"SoftplusBackward0", F::softplus(x)},
      {"DivBackward0", F::softsign(x)},
      {"HardtanhBackward0", F::hardtanh(x)},
      {"HardtanhBackward0", F::relu6(x)},
      {"HardsigmoidBackward0", F::hardsigmoid(x)},
      {"HardswishBackward0", F::hardswish(x)},
      {"PreluBackward0", F::prelu(x, full({1}, 0.25))},
      {"LogSigmoidBackward0", F::logsigmoid(x)},
      {"SubBackward0", F::tanhshrink(x)},
      {"SoftshrinkBackward0", F::softshrink(x)},
      {"HardshrinkBackward0", F::hardshrink(x)},
      {"ThresholdBackward0", F::threshold(x, {0.1, 2.0})},
  };
  for (const auto& [name, t] : got) EXPECT_EQ(t.grad_fn()->name(), name);
}

TEST(ActivationMore, Errors) {
  using testing::expect_nn_more_error;
  expect_nn_more_error("celu_alpha",
                       [] { F::celu(zeros({3}), F::CELUFuncOptions().alpha(0.0)); });
  expect_nn_more_error("softshrink_lambda", [] { F::softshrink(zeros({3}), -0.5); });
  expect_nn_more_error("prelu_zero_dim", [] { F::prelu(zeros({}), zeros({3})); });
  expect_nn_more_error("prelu_channels", [] { F::prelu(zeros({2, 4}), zeros({3})); });
  expect_nn_more_error("prelu_1d_channels", [] { F::prelu(zeros({3}), zeros({3})); });
}

// First and second derivatives, away from the kinks (where finite
// differences straddle two pieces).
TEST(ActivationMore, GradcheckAndGradgradcheck) {
  manual_seed(0);
  // |x| in [0.2, 4.2] with both signs, kept off +-1, +-3, 0 and 6.
  Tensor base = rand({3, 4}, kDouble) * 0.5 + 0.2;
  Tensor signs = tensor({{1.0, -1.0, 1.0, -1.0}, {-1.0, 1.0, -1.0, 1.0}, {1.0, 1.0, -1.0, -1.0}},
                        kDouble);
  Tensor offsets = tensor({{0.0, 0.0, 1.3, 1.3}, {2.0, 3.3, 0.0, 1.4}, {3.4, 0.0, 2.1, 3.5}},
                          kDouble);
  Tensor x = ((base + offsets) * signs).requires_grad_(true);
  const std::vector<std::pair<std::string, Fn>> fns = {
      {"elu", [](const Tensor& t) { return F::elu(t, F::ELUFuncOptions().alpha(0.7)); }},
      {"selu", [](const Tensor& t) { return F::selu(t); }},
      {"celu", [](const Tensor& t) { return F::celu(t, F::CELUFuncOptions().alpha(1.5)); }},
      {"silu", [](const Tensor& t) { return F::silu(t); }},
      {"mish", [](const Tensor& t) { return F::mish(t); }},
      {"softplus",
       [](const Tensor& t) { return F::softplus(t, F::SoftplusFuncOptions().beta(2).threshold(3)); }},
      {"softsign", [](const Tensor& t) { return F::softsign(t); }},
      {"hardtanh",
       [](const Tensor& t) {
         return F::hardtanh(t, F::HardtanhFuncOptions().min_val(-2.5).max_val(2.5));
       }},
      {"relu6", [](const Tensor& t) { return F::relu6(t * 2); }},
      {"hardsigmoid", [](const Tensor& t) { return F::hardsigmoid(t); }},
      {"hardswish", [](const Tensor& t) { return F::hardswish(t); }},
      {"logsigmoid", [](const Tensor& t) { return F::logsigmoid(t); }},
      {"tanhshrink", [](const Tensor& t) { return F::tanhshrink(t); }},
      {"softshrink", [](const Tensor& t) { return F::softshrink(t, 1.1); }},
      {"hardshrink", [](const Tensor& t) { return F::hardshrink(t, 1.1); }},
      {"threshold", [](const Tensor& t) { return F::threshold(t, {1.1, -3.0}); }},
  };
  autograd::GradcheckOptions o;
  o.check_grad_grad = true;
  for (const auto& [name, fn] : fns) {
    EXPECT_EQ(autograd::gradcheck(
                  [&fn = fn](const autograd::variable_list& v) {
                    return autograd::variable_list{fn(v[0])};
                  },
                  {x}, o),
              "")
        << name;
  }
  Tensor xp = randn({2, 3, 4}, kDouble).requires_grad_(true);
  Tensor w3 = (rand({3}, kDouble) * 0.5).requires_grad_(true);
  Tensor w1 = (rand({1}, kDouble) * 0.5).requires_grad_(true);
  EXPECT_EQ(autograd::gradcheck(
                [](const autograd::variable_list& v) {
                  return autograd::variable_list{F::prelu(v[0], v[1]),
                                                 F::prelu(v[0].transpose(0, 2), v[2])};
                },
                {xp, w3, w1}, o),
            "");
}

// Far out, the first and second derivatives stay finite (no inf * 0 in
// the branch not taken).
TEST(ActivationMore, SecondDerivativesFiniteFarOut) {
  const std::vector<Fn> fns = {
      [](const Tensor& t) { return F::elu(t); },      [](const Tensor& t) { return F::selu(t); },
      [](const Tensor& t) { return F::celu(t); },     [](const Tensor& t) { return F::silu(t); },
      [](const Tensor& t) { return F::mish(t); },     [](const Tensor& t) { return F::softplus(t); },
      [](const Tensor& t) { return F::logsigmoid(t); }};
  for (size_t i = 0; i < fns.size(); ++i) {
    SCOPED_TRACE(i);
    Tensor x = tensor({-1000.0f, -100.0f, 100.0f, 1000.0f}).requires_grad_(true);
    Tensor g = autograd::grad({fns[i](x).sum()}, {x}, {}, true, true)[0];
    Tensor gg = autograd::grad({g.sum()}, {x})[0];
    EXPECT_TRUE(g.isfinite().all().item<bool>()) << g;
    EXPECT_TRUE(gg.isfinite().all().item<bool>()) << gg;
  }
}

}  // namespace
}  // namespace ember
