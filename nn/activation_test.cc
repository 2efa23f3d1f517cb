// The activation layers of nn/activation.h added after ReLU / LeakyReLU /
// GELU against PyTorch (tools/golden/nn_modules_more.py): forward values,
// PReLU's parameter, printed forms, in-place forms.

#include <gtest/gtest.h>

#include <string>

#include "autograd/autograd.h"
#include "nn/activation.h"
#include "nn/container.h"
#include "nn/test_golden_more.h"
#include "tensor/all.h"

namespace ember {
namespace nn {
namespace {

using ::ember::testing::matches_golden;
using ::ember::testing::near_golden;
namespace g = testing::more;

template <typename M>
void expect_act(const std::string& name, M m) {
  SCOPED_TRACE(name);
  Tensor out = m(g::golden_tensor("act.input"));
  EXPECT_TRUE(near_golden(out, g::golden("act." + name + ".output"), kFloat, 1e-6));
}

TEST(ActivationLayersTest, ForwardMatchesPyTorch) {
  expect_act("elu", ELU(ELUOptions().alpha(0.5)));
  expect_act("selu", SELU());
  expect_act("celu", CELU(CELUOptions().alpha(2.0)));
  expect_act("silu", SiLU());
  expect_act("mish", Mish());
  expect_act("softplus", Softplus(SoftplusOptions().beta(2).threshold(1.5)));
  expect_act("softsign", Softsign());
  expect_act("hardtanh", Hardtanh(HardtanhOptions().min_val(-0.5).max_val(0.75)));
  expect_act("relu6", ReLU6());
  expect_act("hardsigmoid", Hardsigmoid());
  expect_act("hardswish", Hardswish());
  expect_act("logsigmoid", LogSigmoid());
  expect_act("tanhshrink", Tanhshrink());
  expect_act("softshrink", Softshrink(0.3));
  expect_act("hardshrink", Hardshrink(0.6));
  expect_act("threshold", Threshold(0.25, -3.0));
}

TEST(ActivationLayersTest, PReLUParameter) {
  for (const char* name : {"prelu", "prelu3"}) {
    SCOPED_TRACE(name);
    PReLU m = std::string(name) == "prelu" ? PReLU() : PReLU(PReLUOptions().num_parameters(3).init(0.1));
    EXPECT_TRUE(matches_golden(m->weight, g::golden(std::string("init.") + name + ".weight")));
    EXPECT_EQ(g::params_string(*m), g::golden_string(std::string("params.") + name));
    EXPECT_EQ(g::state_dict_keys(*m), g::golden_string(std::string("state_dict.") + name));
    Tensor out = m(g::golden_tensor(std::string("forward.") + name + ".input"));
    EXPECT_TRUE(near_golden(out, g::golden(std::string("forward.") + name + ".output"), kFloat,
                            1e-6));
    out.sum().backward();
    EXPECT_TRUE(m->weight.grad().defined());
  }
}

TEST(ActivationLayersTest, PrintsAsPyTorch) {
  ModuleList acts(
      ELU(), ELU(ELUOptions().alpha(0.5).inplace(true)), SELU(), SELU(true), CELU(),
      CELU(CELUOptions().alpha(2.0)), SiLU(), SiLU(true), Mish(), Mish(true), Softplus(),
      Softplus(SoftplusOptions().beta(2).threshold(1.5)), Softsign(), Hardtanh(),
      Hardtanh(HardtanhOptions().min_val(-0.5).max_val(0.75).inplace(true)), ReLU6(), ReLU6(true),
      Hardsigmoid(), Hardswish(true), PReLU(), PReLU(PReLUOptions().num_parameters(3).init(0.1)),
      LogSigmoid(), Tanhshrink(), Softshrink(), Softshrink(0.3), Hardshrink(0.6),
      Threshold(0.25, -3.0), Threshold(ThresholdOptions(1, 20).inplace(true)));
  EXPECT_EQ(g::repr(*acts), g::golden_string("repr.activations"));
}

TEST(ActivationLayersTest, InplaceWritesTheInput) {
  Tensor x = g::golden_tensor("act.input").clone();
  Tensor r = ReLU6(true)(x);
  EXPECT_TRUE(::ember::testing::shares_storage(r, x));
  EXPECT_LE(x.max().item<float>(), 6.0f);
}

TEST(ActivationLayersTest, HardtanhRejectsMaxBelowMin) {
  ::ember::testing::expect_error<ValueError>(
      [] { Hardtanh(HardtanhOptions().min_val(2).max_val(1)); },
      "Hardtanh: max_val (1.0) must not be smaller than min_val (2.0)");
}

}  // namespace
}  // namespace nn
}  // namespace ember
