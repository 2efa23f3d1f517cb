// Module::clone (Note [Cloning modules]): deep copies of layers, users'
// modules and containers, as libtorch's clone() and Python's deepcopy.

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "autograd/autograd.h"
#include "nn/nn.h"
#include "tensor/all.h"
#include "tensor/cuda/cuda.h"

namespace ember {
namespace nn {
namespace {

struct NetImpl : Module {
  explicit NetImpl(int64_t hidden = 6)
      : conv(register_module("conv", Conv2d(Conv2dOptions(1, 2, 3)))),
        bn(register_module("bn", BatchNorm2d(2))),
        head(register_module("head",
                             Sequential(Linear(2 * 4 * 4, hidden), ReLU(), Linear(hidden, 3)))) {
    scale = register_parameter("scale", ones({1}));
  }
  Tensor forward(const Tensor& x) {
    return head->forward(bn->forward(conv->forward(x)).flatten(1)) * scale;
  }
  Conv2d conv;
  BatchNorm2d bn;
  Sequential head;
  Tensor scale;
};
EMBER_MODULE(Net);

// Every tensor of `a` equals `b`'s by name and lives in its own storage.
void expect_deep_copy(Module& a, Module& b) {
  const NamedTensors pa = a.named_parameters(), pb = b.named_parameters();
  ASSERT_EQ(pa.keys(), pb.keys());
  for (size_t i = 0; i < pa.size(); ++i) {
    EXPECT_TRUE(equal(pa[i].value(), pb[i].value())) << pa[i].key();
    EXPECT_NE(pa[i].value().data_ptr(), pb[i].value().data_ptr()) << pa[i].key();
    EXPECT_EQ(pa[i].value().requires_grad(), pb[i].value().requires_grad()) << pa[i].key();
  }
  const NamedTensors ba = a.named_buffers(), bb = b.named_buffers();
  ASSERT_EQ(ba.keys(), bb.keys());
  for (size_t i = 0; i < ba.size(); ++i) {
    EXPECT_TRUE(equal(ba[i].value(), bb[i].value())) << ba[i].key();
    EXPECT_NE(ba[i].value().data_ptr(), bb[i].value().data_ptr()) << ba[i].key();
  }
}

TEST(CloneTest, LayerIsADeepCopy) {
  manual_seed(0);
  Linear fc(4, 3);
  fc->eval();
  auto copy = std::dynamic_pointer_cast<LinearImpl>(fc->clone());
  ASSERT_NE(copy, nullptr);
  expect_deep_copy(*fc, *copy);
  EXPECT_FALSE(copy->is_training());
  // The members a layer computes with are the copy's own tensors.
  EXPECT_EQ(copy->weight.data_ptr(), copy->named_parameters()[0].value().data_ptr());
  const Tensor x = randn({2, 4});
  EXPECT_TRUE(equal(copy->forward(x), fc->forward(x)));
  {
    NoGradGuard no_grad;
    fc->weight.add_(1);
  }
  EXPECT_FALSE(equal(copy->forward(x), fc->forward(x)));  // independent now
}

TEST(CloneTest, UsersModuleWithSubmodulesBuffersAndModes) {
  manual_seed(1);
  Net net(5);
  const Tensor x = randn({4, 1, 6, 6});
  net->forward(x);  // moves BatchNorm's running statistics
  net->scale.set_requires_grad(false);
  net->bn->eval();
  auto copy = std::dynamic_pointer_cast<NetImpl>(net->clone());
  ASSERT_NE(copy, nullptr);
  expect_deep_copy(*net, *copy);
  EXPECT_TRUE(copy->is_training());
  EXPECT_FALSE(copy->bn->is_training());
  EXPECT_TRUE(copy->conv->is_training());
  EXPECT_EQ(copy->head->size(), 3u);  // constructed with hidden = 5 again
  net->eval();
  copy->eval();
  EXPECT_TRUE(equal(copy->forward(x), net->forward(x)));
  // The copy trains on its own.
  copy->train();
  copy->forward(x).sum().backward();
  EXPECT_TRUE(copy->conv->weight.grad().defined());
  EXPECT_FALSE(net->conv->weight.grad().defined());
  // A clone of the clone is a copy too.
  auto again = copy->clone();
  expect_deep_copy(*copy, *again);
}

TEST(CloneTest, ContainersCloneTheirModules) {
  manual_seed(2);
  Sequential seq(Linear(3, 4), Functional(ember::relu), Linear(4, 2));
  auto seq_copy = std::dynamic_pointer_cast<SequentialImpl>(seq->clone());
  ASSERT_NE(seq_copy, nullptr);
  expect_deep_copy(*seq, *seq_copy);
  const Tensor x = randn({5, 3});
  EXPECT_TRUE(equal(seq_copy->forward(x), seq->forward(x)));

  ModuleList list(Linear(2, 2), ReLU());
  auto list_copy = std::dynamic_pointer_cast<ModuleListImpl>(list->clone());
  ASSERT_EQ(list_copy->size(), 2u);
  expect_deep_copy(*list, *list_copy);
  EXPECT_NE(list_copy->ptr(0).get(), list->ptr(0).get());

  ModuleDict dict(NamedModules{{"a", Linear(2, 3).ptr()}, {"b", Conv1d(1, 1, 2).ptr()}});
  auto dict_copy = std::dynamic_pointer_cast<ModuleDictImpl>(dict->clone());
  EXPECT_EQ(dict_copy->keys(), (std::vector<std::string>{"a", "b"}));
  expect_deep_copy(*dict, *dict_copy);

  ParameterList params(randn({2}), randn({3}).requires_grad_(false));
  auto params_copy = params->clone();
  expect_deep_copy(*params, *params_copy);
  ParameterDict pdict(NamedTensors{{"w", randn({2, 2})}});
  expect_deep_copy(*pdict, *pdict->clone());
}

TEST(CloneTest, RecurrentAndAttentionLayers) {
  manual_seed(3);
  LSTM lstm(LSTMOptions(3, 4).num_layers(2));
  auto lstm_copy = std::dynamic_pointer_cast<LSTMImpl>(lstm->clone());
  expect_deep_copy(*lstm, *lstm_copy);
  const Tensor x = randn({5, 2, 3});
  EXPECT_TRUE(equal(std::get<0>(lstm_copy->forward(x)), std::get<0>(lstm->forward(x))));
  MultiheadAttention mha(MultiheadAttentionOptions(8, 2));
  auto mha_copy = std::dynamic_pointer_cast<MultiheadAttentionImpl>(mha->clone());
  expect_deep_copy(*mha, *mha_copy);
  const Tensor q = randn({3, 1, 8});
  EXPECT_TRUE(equal(std::get<0>(mha_copy->forward(q, q, q)), std::get<0>(mha->forward(q, q, q))));
}

TEST(CloneTest, ToADevice) {
  Linear fc(2, 2);
  auto copy = fc->clone(Device(kCPU));
  expect_deep_copy(*fc, *copy);
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device for clone(kCUDA)";
  auto on_gpu = fc->clone(Device(kCUDA));
  EXPECT_TRUE(on_gpu->named_parameters()[0].value().is_cuda());
  EXPECT_TRUE(equal(on_gpu->named_parameters()[0].value().cpu(), fc->weight));
}

// libtorch's way: a Cloneable whose reset() builds the module.
struct ResetNetImpl : Cloneable<ResetNetImpl> {
  explicit ResetNetImpl(int64_t n) : n(n) { reset(); }
  void reset() override {
    fc = register_module("fc", Linear(n, 2));
    offset = register_buffer("offset", zeros({2}));
  }
  Tensor forward(const Tensor& x) { return fc->forward(x) + offset; }
  int64_t n;
  Linear fc{nullptr};
  Tensor offset;
};
EMBER_MODULE(ResetNet);

TEST(CloneTest, LibtorchCloneableWithReset) {
  manual_seed(4);
  // Made without a holder: Cloneable needs none.
  auto net = std::make_shared<ResetNetImpl>(3);
  {
    NoGradGuard no_grad;
    net->offset.fill_(0.5);
  }
  auto copy = std::dynamic_pointer_cast<ResetNetImpl>(net->clone());
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->n, 3);
  expect_deep_copy(*net, *copy);
  // The copy's members are its own registered tensors and modules.
  EXPECT_EQ(copy->fc.get(), copy->named_children()[0].second.get());
  EXPECT_EQ(copy->offset.data_ptr(), copy->named_buffers()[0].value().data_ptr());
  const Tensor x = randn({4, 3});
  EXPECT_TRUE(equal(copy->forward(x), net->forward(x)));
}

TEST(CloneTest, ModulesThatCannotBeClonedSayWhy) {
  auto made_directly = std::make_shared<NetImpl>();
  try {
    made_directly->clone();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("clone() has not been implemented for Net"),
              std::string::npos)
        << e.what();
  }
  // A constructor that keeps the tensor it was given would share it.
  struct KeepsImpl : Module {
    explicit KeepsImpl(Tensor w) { register_parameter("w", w); }
  };
  struct Keeps : ModuleHolder<KeepsImpl> {
    using ModuleHolder<KeepsImpl>::ModuleHolder;
  };
  Keeps keeps(ones({2}));
  try {
    keeps->clone();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("reused the original's tensor 'w'"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace nn
}  // namespace ember
