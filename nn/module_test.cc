#include "nn/module.h"

#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "nn/test_golden.h"
#include "tensor/all.h"

namespace ember {
namespace nn {
namespace {

using testing::expect_golden_error;
using testing::golden_string;
using ::ember::testing::expect_error;

// Stand-ins for Linear and BatchNorm1d with the same tensors, so that the
// Module machinery is tested without the layers.
struct FcImpl : Module {
  FcImpl(int64_t in, int64_t out) : Module("Linear") {
    weight = register_parameter("weight", ember::zeros({out, in}));
    bias = register_parameter("bias", ember::zeros({out}));
  }
  std::string extra_repr() const override { return "in_features=3"; }
  Tensor forward(const Tensor& x) { return x.matmul(weight.t()) + bias; }
  Tensor weight, bias;
};
EMBER_MODULE(Fc);

struct NormImpl : Module {
  explicit NormImpl(int64_t n) {
    register_parameter("weight", ember::ones({n}));
    register_parameter("bias", ember::zeros({n}));
    register_buffer("running_mean", ember::zeros({n}));
    register_buffer("running_var", ember::ones({n}));
    register_buffer("num_batches_tracked", ember::zeros({}, kLong));
    register_buffer("scratch", ember::zeros({n}), /*persistent=*/false);
  }
};
EMBER_MODULE(Norm);

// load_state_dict's golden errors come from this module in PyTorch.
struct SmallImpl : Module {
  explicit SmallImpl(int64_t out = 3, bool extra = false) {
    fc = register_module("fc", Fc(3, out));
    bn = register_module("bn", Norm(out));
    if (extra) register_module("head", Fc(out, 1));
  }
  Fc fc = nullptr;
  Norm bn = nullptr;
};
EMBER_MODULE(Small);

std::vector<std::string> keys(const NamedTensors& named) {
  std::vector<std::string> out;
  for (const auto& kv : named) out.push_back(kv.first);
  return out;
}

std::string joined(const NamedTensors& named) {
  std::string out;
  for (const auto& k : keys(named)) out += (out.empty() ? "" : "\n") + k;
  return out;
}

TEST(ModuleTest, StateDictKeysAreParametersThenBuffersPerModule) {
  Small small;
  EXPECT_EQ(joined(small->state_dict()), golden_string("state_dict.small"));
  // The non-persistent buffer is a buffer, but not state.
  EXPECT_EQ(keys(small->named_buffers()),
            (std::vector<std::string>{"bn.running_mean", "bn.running_var",
                                      "bn.num_batches_tracked", "bn.scratch"}));
  EXPECT_EQ(keys(small->named_parameters()),
            (std::vector<std::string>{"fc.weight", "fc.bias", "bn.weight", "bn.bias"}));
  EXPECT_EQ(keys(small->named_parameters(/*recurse=*/false)), std::vector<std::string>{});
}

TEST(ModuleTest, StateDictAliasesTheModulesTensors) {
  Small small;
  NamedTensors sd = small->state_dict();
  sd[0].second.fill_(2);
  EXPECT_EQ(small->fc->weight.sum().item<float>(), 18);
  EXPECT_FALSE(sd[0].second.requires_grad());
  EXPECT_TRUE(small->fc->weight.requires_grad());
}

TEST(ModuleTest, ParametersAreTheMembersAndSharedOnesComeOnce) {
  Small small;
  std::vector<Tensor> params = small->parameters();
  ASSERT_EQ(params.size(), 4u);
  EXPECT_TRUE(params[0].is_same(small->fc->weight));
  EXPECT_TRUE(params[1].is_same(small->fc->bias));
  EXPECT_TRUE(params[0].requires_grad());
  EXPECT_TRUE(params[0].is_leaf());

  struct TiedImpl : Module {
    TiedImpl() {
      a = register_module("a", Fc(2, 2));
      b = register_module("b", Fc(2, 2));
      b->register_parameter("weight", a->weight);
    }
    Fc a = nullptr, b = nullptr;
  };
  auto tied = std::make_shared<TiedImpl>();
  EXPECT_EQ(keys(tied->named_parameters()),
            (std::vector<std::string>{"a.weight", "a.bias", "b.bias"}));
  EXPECT_EQ(keys(tied->state_dict()),
            (std::vector<std::string>{"a.weight", "a.bias", "b.weight", "b.bias"}));
}

TEST(ModuleTest, RegisterParameterWithoutGradAndNone) {
  struct MImpl : Module {
    MImpl() {
      register_parameter("frozen", ember::ones({2}), /*requires_grad=*/false);
      register_parameter("bias", Tensor());
    }
  };
  MImpl m;
  ASSERT_EQ(m.parameters().size(), 1u);
  EXPECT_FALSE(m.parameters()[0].requires_grad());
  EXPECT_EQ(keys(m.state_dict()), std::vector<std::string>{"frozen"});
}

TEST(ModuleTest, RegistrationErrors) {
  Small small;
  expect_error([&] { small->register_module("fc", Fc(1, 1)); },
                        "Submodule 'fc' already defined");
  expect_error([&] { small->register_parameter("a.b", ember::ones({1})); },
                        "parameter name can't contain \".\"");
  expect_error([&] { small->register_buffer("", ember::ones({1})); },
                        "buffer name can't be empty string \"\"");
  Tensor leaf = ember::ones({1}).requires_grad_();
  expect_error([&] { small->register_parameter("w", leaf * 2); },
               "Cannot assign non-leaf Tensor to parameter 'w'. Model parameters must be created "
               "explicitly. To express 'w' as a function of another Tensor, compute the value in "
               "the forward() method.");
  Fc empty = nullptr;
  EXPECT_TRUE(empty.is_empty());
  expect_error([&] { empty->forward(ember::ones({1})); }, "Accessing empty ModuleHolder");
}

TEST(ModuleTest, ChildrenModulesAndApply) {
  Small small(3, /*extra=*/true);
  std::vector<std::string> names;
  for (const auto& c : small->named_children()) names.push_back(c.first);
  EXPECT_EQ(names, (std::vector<std::string>{"fc", "bn", "head"}));
  EXPECT_EQ(small->children().size(), 3u);
  names.clear();
  for (const auto& m : small->named_modules()) names.push_back(m.first + ":" + m.second->name());
  EXPECT_EQ(names, (std::vector<std::string>{":Small", "fc:Linear", "bn:Norm", "head:Linear"}));
  EXPECT_EQ(small->modules(/*include_self=*/false).size(), 3u);
  EXPECT_EQ(small->modules()[0].get(), small.get());

  std::vector<std::string> order;
  small->apply([&](Module& m) { order.push_back(m.name()); });
  EXPECT_EQ(order, (std::vector<std::string>{"Linear", "Norm", "Linear", "Small"}));

  EXPECT_TRUE(small->get_parameter("head.bias").is_same(small->get_submodule("head")
                                                             ->as<Fc>()->bias));
  EXPECT_EQ(small->get_buffer("bn.running_var").sum().item<float>(), 3);
  EXPECT_EQ(small->get_submodule("bn")->as<Fc>(), nullptr);
  EXPECT_NE(small->get_submodule("bn")->as<NormImpl>(), nullptr);
  expect_error([&] { small->get_submodule("fc.x"); }, "Linear has no attribute `x`");
}

TEST(ModuleTest, TrainAndEvalReachEveryModule) {
  Small small;
  EXPECT_TRUE(small->is_training());
  small->eval();
  EXPECT_FALSE(small->is_training());
  EXPECT_FALSE(small->fc->is_training());
  EXPECT_FALSE(small->bn->is_training());
  small->train();
  EXPECT_TRUE(small->bn->is_training());
}

TEST(ModuleTest, ZeroGradSetsToNoneOrZeroes) {
  Small small;
  Tensor x = ember::ones({2, 3});
  small->fc(x).sum().backward();
  ASSERT_TRUE(small->fc->weight.grad().defined());
  small->zero_grad(/*set_to_none=*/false);
  ASSERT_TRUE(small->fc->weight.grad().defined());
  EXPECT_EQ(small->fc->weight.grad().abs().sum().item<float>(), 0);
  EXPECT_EQ(small->fc->bias.grad().abs().sum().item<float>(), 0);
  small->fc(x).sum().backward();
  EXPECT_EQ(small->fc->bias.grad().sum().item<float>(), 6);
  small->zero_grad();
  EXPECT_FALSE(small->fc->weight.grad().defined());
  EXPECT_FALSE(small->fc->bias.grad().defined());
}

TEST(ModuleTest, ToDoubleKeepsHandlesAndConvertsOnlyFloatingTensors) {
  Small small;
  Tensor weight = small->fc->weight;
  small->fc->weight.detach().fill_(0.25);
  small->fc(ember::ones({1, 3})).sum().backward();
  small->to(kDouble);
  EXPECT_EQ(weight.dtype(), kDouble);  // the handle taken before sees it
  EXPECT_TRUE(weight.is_same(small->parameters()[0]));
  EXPECT_TRUE(weight.requires_grad());
  EXPECT_TRUE(weight.is_leaf());
  EXPECT_EQ(weight.grad().dtype(), kDouble);
  EXPECT_EQ(weight.sum().item<double>(), 2.25);
  EXPECT_EQ(small->get_buffer("bn.running_var").dtype(), kDouble);
  EXPECT_EQ(small->get_buffer("bn.num_batches_tracked").dtype(), kLong);
  // Training goes on in double, into the same leaves.
  small->zero_grad();
  Tensor out = small->fc(ember::ones({1, 3}, kDouble)).sum();
  out.backward();
  EXPECT_EQ(out.dtype(), kDouble);
  EXPECT_EQ(weight.grad().dtype(), kDouble);
  EXPECT_EQ(weight.grad().sum().item<double>(), 9);
  small->to(kFloat);
  EXPECT_EQ(weight.dtype(), kFloat);
  small->to(Device(kCPU));
  EXPECT_EQ(weight.dtype(), kFloat);
}

TEST(ModuleTest, LoadStateDictCopiesInPlace) {
  Small a, b;
  for (Tensor& p : a->parameters()) p.detach().uniform_(-1, 1);
  a->get_buffer("bn.num_batches_tracked").fill_(7);
  Tensor weight = b->fc->weight;
  b->load_state_dict(a->state_dict());
  EXPECT_TRUE(weight.is_same(b->fc->weight));
  EXPECT_TRUE(b->fc->weight.equal(a->fc->weight));
  EXPECT_TRUE(b->fc->weight.requires_grad());
  EXPECT_EQ(b->get_buffer("bn.num_batches_tracked").item<int64_t>(), 7);
  // The copy is not recorded.
  EXPECT_EQ(b->fc->weight.grad_fn(), nullptr);
}

TEST(ModuleTest, LoadStateDictConvertsDtypesAndTakesOldScalarCheckpoints) {
  Small small;
  NamedTensors sd;
  for (const auto& [k, t] : Small()->state_dict()) {
    sd.emplace_back(k, ember::full_like(t, 3).to(kDouble));
  }
  // Checkpoints from before 0-dim tensors held num_batches_tracked as [1].
  sd[6].second = ember::full({1}, 5, kLong);
  small->load_state_dict(sd);
  EXPECT_EQ(small->fc->weight.dtype(), kFloat);
  EXPECT_EQ(small->fc->weight.sum().item<float>(), 27);
  EXPECT_EQ(small->get_buffer("bn.num_batches_tracked").item<int64_t>(), 5);
  EXPECT_EQ(small->get_buffer("bn.num_batches_tracked").dim(), 0);
}

TEST(ModuleTest, LoadStateDictErrorsArePyTorchs) {
  NamedTensors sd = Small()->state_dict();
  NamedTensors no_bias = sd;
  no_bias.erase(no_bias.begin() + 1);
  expect_golden_error("load.missing", [&] { Small()->load_state_dict(no_bias); });
  NamedTensors extra = sd;
  extra.emplace_back("fc.scale", ember::zeros({1}));
  extra.emplace_back("x", ember::zeros({1}));
  expect_golden_error("load.unexpected", [&] { Small()->load_state_dict(extra); });
  expect_golden_error("load.size", [&] { Small(2)->load_state_dict(sd); });
  expect_golden_error("load.size_nonstrict",
                      [&] { Small(2)->load_state_dict(sd, /*strict=*/false); });
  NamedTensors both;
  for (const auto& kv : extra) {
    if (kv.first != "bn.running_var") both.push_back(kv);
  }
  expect_golden_error("load.all", [&] { Small(2, true)->load_state_dict(both); });
  // Not strict: missing and unexpected keys are fine.
  Small()->load_state_dict(no_bias, /*strict=*/false);
  Small()->load_state_dict(extra, /*strict=*/false);
}

std::string str(const IncompatibleKeys& keys) {
  std::ostringstream os;
  os << keys;
  return os.str();
}

TEST(ModuleTest, LoadStateDictNotStrictReturnsWhatDidNotMatch) {
  NamedTensors sd = Small()->state_dict();
  NamedTensors no_bias = sd;
  no_bias.erase(no_bias.begin() + 1);
  IncompatibleKeys keys = Small()->load_state_dict(no_bias, /*strict=*/false);
  EXPECT_EQ(keys.missing_keys, std::vector<std::string>{"fc.bias"});
  EXPECT_TRUE(keys.unexpected_keys.empty());
  EXPECT_EQ(str(keys), golden_string("load.nonstrict.missing"));

  NamedTensors extra = sd;
  extra.emplace_back("fc.scale", ember::zeros({1}));
  extra.emplace_back("x", ember::zeros({1}));
  keys = Small()->load_state_dict(extra, /*strict=*/false);
  EXPECT_EQ(str(keys), golden_string("load.nonstrict.unexpected"));

  NamedTensors both;
  for (const auto& kv : extra) {
    if (kv.first != "bn.running_var") both.push_back(kv);
  }
  Small with_head(3, true);
  Tensor untouched = with_head->get_parameter("head.weight").detach().clone();
  keys = with_head->load_state_dict(both, /*strict=*/false);
  EXPECT_EQ(str(keys), golden_string("load.nonstrict.both"));
  // What did match was loaded; what had no value kept its own.
  EXPECT_TRUE(with_head->fc->weight.equal(sd[0].second));
  EXPECT_TRUE(with_head->get_parameter("head.weight").equal(untouched));

  keys = Small()->load_state_dict(sd, /*strict=*/false);
  EXPECT_TRUE(keys.empty());
  EXPECT_EQ(str(keys), golden_string("load.nonstrict.none"));
  // Strict and matching: nothing to report either.
  EXPECT_TRUE(Small()->load_state_dict(sd).empty());
}

TEST(ModuleTest, PrintsTheTreeAsPyTorch) {
  Small small(3, true);
  std::ostringstream os;
  os << small;
  EXPECT_EQ(os.str(),
            "Small(\n"
            "  (fc): Linear(in_features=3)\n"
            "  (bn): Norm()\n"
            "  (head): Linear(in_features=3)\n"
            ")");
  struct OuterImpl : Module {
    OuterImpl() { register_module("inner", std::make_shared<SmallImpl>()); }
    std::string extra_repr() const override { return "a=1\nb=2"; }
  };
  EXPECT_EQ(OuterImpl().repr(),
            "Outer(\n"
            "  a=1\n"
            "  b=2\n"
            "  (inner): Small(\n"
            "    (fc): Linear(in_features=3)\n"
            "    (bn): Norm()\n"
            "  )\n"
            ")");
  EXPECT_EQ(Norm(1)->repr(), "Norm()");
  EXPECT_EQ(Fc(1, 1)->repr(), "Linear(in_features=3)");
}

TEST(ModuleHolderTest, CopiesShareTheModule) {
  Fc a(2, 3);
  Fc b = a;
  EXPECT_EQ(a.get(), b.get());
  EXPECT_TRUE(static_cast<bool>(a));
  Tensor y = a(ember::ones({4, 2}));
  EXPECT_EQ(y.sizes(), (IntArrayRef{4, 3}));
  auto ptr = std::make_shared<FcImpl>(1, 1);
  Fc wrapped(ptr);
  EXPECT_EQ(wrapped.get(), ptr.get());
}

}  // namespace
}  // namespace nn
}  // namespace ember

namespace ember {
namespace nn {
namespace {

TEST(ModuleCudaTest, ToCudaAndBackKeepsHandlesAndValues) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  Small small;
  for (Tensor& p : small->parameters()) p.detach().uniform_(-1, 1);
  const NamedTensors before = small->state_dict();
  std::vector<Tensor> cpu_values;
  for (const auto& kv : before) cpu_values.push_back(kv.second.clone());
  Tensor weight = small->fc->weight;
  small->fc(ember::ones({2, 3})).sum().backward();
  small->to(Device(kCUDA));
  EXPECT_TRUE(weight.is_cuda());
  EXPECT_TRUE(weight.grad().is_cuda());
  EXPECT_TRUE(weight.requires_grad());
  EXPECT_TRUE(small->get_buffer("bn.num_batches_tracked").is_cuda());
  // (No forward here: //tensor's CUDA backend has no mm yet.)
  small->to(Device(kCPU), kDouble);
  EXPECT_TRUE(weight.is_cpu());
  EXPECT_EQ(weight.dtype(), kDouble);
  const NamedTensors after = small->state_dict();
  for (size_t i = 0; i < after.size(); ++i) {
    SCOPED_TRACE(after[i].first);
    EXPECT_TRUE(after[i].second.to(cpu_values[i].dtype()).equal(cpu_values[i]));
  }
}

}  // namespace
}  // namespace nn
}  // namespace ember
