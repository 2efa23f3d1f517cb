// Every layer starts with PyTorch's parameters under manual_seed, lists
// them (and its buffers) in PyTorch's order, and prints as PyTorch.

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <sstream>
#include <string>

#include "nn/nn.h"
#include "nn/test_golden.h"
#include "tensor/all.h"

namespace ember {
namespace nn {
namespace {

using ::ember::testing::matches_golden;
using testing::golden;
using testing::golden_string;

// Seed 003's LeNet.
struct NetImpl : Module {
  NetImpl()
      : conv1(register_module("conv1", Conv2d(1, 6, 5))),
        conv2(register_module("conv2", Conv2d(6, 16, 5))),
        fc1(register_module("fc1", Linear(16 * 5 * 5, 120))),
        fc2(register_module("fc2", Linear(120, 84))),
        fc3(register_module("fc3", Linear(84, 10))) {}
  Conv2d conv1, conv2;
  Linear fc1, fc2, fc3;
};
EMBER_MODULE(Net);

// The layers of tools/golden/nn_modules.py's LAYERS, each made after
// manual_seed(0).
std::shared_ptr<Module> make_layer(const std::string& name) {
  manual_seed(0);
  if (name == "linear") return Linear(3, 2).ptr();
  if (name == "linear_nobias") return Linear(LinearOptions(4, 5).bias(false)).ptr();
  if (name == "conv1d") return Conv1d(Conv1dOptions(2, 4, 3).padding(1)).ptr();
  if (name == "conv2d") return Conv2d(1, 6, 5).ptr();
  if (name == "conv2d_groups") {
    return Conv2d(Conv2dOptions(4, 6, {3, 2}).stride({2, 1}).padding({1, 0}).groups(2).bias(
                      false))
        .ptr();
  }
  if (name == "conv2d_same") {
    return Conv2d(Conv2dOptions(2, 3, 3).padding(kSame).dilation(2)).ptr();
  }
  if (name == "embedding") return Embedding(10, 3).ptr();
  if (name == "embedding_pad") return Embedding(EmbeddingOptions(6, 4).padding_idx(-2)).ptr();
  if (name == "batchnorm1d") return BatchNorm1d(4).ptr();
  if (name == "batchnorm2d") return BatchNorm2d(BatchNormOptions(3).momentum(std::nullopt)).ptr();
  if (name == "layernorm") return LayerNorm(LayerNormOptions({2, 3})).ptr();
  if (name == "net") return Net().ptr();
  ADD_FAILURE() << "no layer " << name;
  return nullptr;
}

const char* const kLayers[] = {"linear",        "linear_nobias", "conv1d",      "conv2d",
                               "conv2d_groups", "conv2d_same",   "embedding",   "embedding_pad",
                               "batchnorm1d",   "batchnorm2d",   "layernorm",   "net"};

std::string joined_keys(const NamedTensors& named) {
  std::string out;
  for (const auto& kv : named) out += (out.empty() ? "" : "\n") + kv.first;
  return out;
}

TEST(LayersInitTest, ParametersAndBuffersEqualPyTorchsUnderManualSeed) {
  for (const char* name : kLayers) {
    SCOPED_TRACE(name);
    std::shared_ptr<Module> m = make_layer(name);
    NamedTensors all = m->named_parameters();
    for (auto& b : m->named_buffers()) all.push_back(b);
    for (const auto& [key, t] : all) {
      SCOPED_TRACE(key);
      const std::string prefix = std::string("init.") + name + "." + key;
      if (t.numel() > 2000) {  // the generator stored the last 100 values
        EXPECT_TRUE(matches_golden(t.reshape({-1}).slice(0, -100, std::nullopt),
                                   golden(prefix + ".tail")));
      } else {
        EXPECT_TRUE(matches_golden(t, golden(prefix)));
      }
    }
    EXPECT_EQ(joined_keys(m->named_parameters()), golden_string(std::string("params.") + name));
    EXPECT_EQ(joined_keys(m->state_dict()), golden_string(std::string("state_dict.") + name));
  }
}

TEST(LayersInitTest, ParametersRequireGradAndBuffersDoNot) {
  BatchNorm1d bn(4);
  for (const Tensor& p : bn->parameters()) EXPECT_TRUE(p.requires_grad());
  for (const Tensor& b : bn->buffers()) EXPECT_FALSE(b.requires_grad());
  EXPECT_EQ(bn->num_batches_tracked.dtype(), kLong);
  Linear fc(LinearOptions(3, 2).bias(false));
  EXPECT_FALSE(fc->bias.defined());
  EXPECT_EQ(fc->parameters().size(), 1u);
}

std::string repr(const Module& m) {
  std::ostringstream os;
  os << m;
  return os.str();
}

TEST(LayersInitTest, PrintsLeNetAsTheSeed) {
  Net net;
  std::ostringstream os;
  os << net;
  EXPECT_EQ(os.str(), golden_string("repr.net"));
  EXPECT_EQ(os.str(),
            "Net(\n"
            "  (conv1): Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1))\n"
            "  (conv2): Conv2d(6, 16, kernel_size=(5, 5), stride=(1, 1))\n"
            "  (fc1): Linear(in_features=400, out_features=120, bias=True)\n"
            "  (fc2): Linear(in_features=120, out_features=84, bias=True)\n"
            "  (fc3): Linear(in_features=84, out_features=10, bias=True)\n"
            ")");
}

TEST(LayersInitTest, PrintsEveryLayerAsPyTorch) {
  Sequential seq(Conv2d(Conv2dOptions(1, 20, 5).stride(2).padding(1)), ReLU(), MaxPool2d(2),
                 BatchNorm2d(20), AvgPool2d(AvgPool2dOptions(3).stride(2).padding(1)),
                 AdaptiveAvgPool2d(AdaptiveAvgPool2dOptions({2, 3})), Flatten(), Dropout(0.5),
                 Linear(LinearOptions(120, 8).bias(false)),
                 LeakyReLU(LeakyReLUOptions().negative_slope(0.2)), GELU(),
                 GELU(GELUOptions().approximate("tanh")), Tanh(), Sigmoid(), Identity(),
                 Softmax(1), LogSoftmax(1), ReLU(true));
  EXPECT_EQ(repr(*seq), golden_string("repr.sequential"));

  ModuleList convs(Conv1d(Conv1dOptions(2, 4, 3).padding(1)),
                   Conv2d(Conv2dOptions(4, 6, {3, 2}).stride({2, 1}).padding({1, 0}).groups(2)
                              .bias(false)),
                   Conv2d(Conv2dOptions(2, 3, 3).padding(kSame).dilation(2)),
                   Conv2d(Conv2dOptions(2, 3, 3).padding(kValid)));
  EXPECT_EQ(repr(*convs), golden_string("repr.convs"));

  ModuleList padding_modes(
      Conv2d(Conv2dOptions(2, 3, 3).padding({1, 2}).padding_mode(kReflect)),
      Conv2d(Conv2dOptions(2, 3, {2, 3}).padding(kSame).padding_mode(kCircular)),
      Conv1d(Conv1dOptions(2, 3, 3).stride(2).padding(2).padding_mode(kReplicate)));
  EXPECT_EQ(repr(*padding_modes), golden_string("repr.conv_padding_modes"));

  // Sizes print as given: one int as the int, a pair as a tuple.
  ModuleList pools(MaxPool2d(MaxPool2dOptions({2, 2})),
                   MaxPool2d(MaxPool2dOptions({3, 2}).stride(1).padding({1, 0})),
                   AvgPool2d(AvgPool2dOptions({2, 2}).padding(1)));
  EXPECT_EQ(repr(*pools), golden_string("repr.pools_given_as_tuples"));

  ModuleList norms(
      BatchNorm1d(4), BatchNorm2d(BatchNormOptions(3).momentum(std::nullopt)),
      BatchNorm1d(BatchNormOptions(2).eps(1e-3).affine(false).track_running_stats(false)),
      LayerNorm(LayerNormOptions({2, 3})),
      LayerNorm(LayerNormOptions({5}).elementwise_affine(false)), Embedding(10, 3),
      Embedding(EmbeddingOptions(6, 4).padding_idx(-2)), Dropout(0.25),
      MaxPool2d(MaxPool2dOptions(3).stride(2).padding(1).ceil_mode(true)));
  EXPECT_EQ(repr(*norms), golden_string("repr.norms"));

  ModuleList losses{MSELoss(), L1Loss(), SmoothL1Loss(), CrossEntropyLoss(), NLLLoss(), BCELoss(),
                    BCEWithLogitsLoss()};
  EXPECT_EQ(repr(*losses), golden_string("repr.losses"));

  EXPECT_EQ(repr(*Sequential()), golden_string("repr.empty"));
  EXPECT_EQ(repr(*Linear(3, 2)), golden_string("repr.linear"));
  EXPECT_EQ(repr(*Sequential(Linear(3, 4), Sequential(ReLU(), Linear(4, 2)))),
            golden_string("repr.nested"));
}

TEST(LayersInitTest, ConstructionErrorsArePyTorchs) {
  using ::ember::testing::expect_error;
  expect_error<ValueError>([] { Conv2d(Conv2dOptions(3, 4, 3).groups(2)); },
                           "in_channels must be divisible by groups");
  expect_error<ValueError>([] { Conv2d(Conv2dOptions(4, 3, 3).groups(2)); },
                           "out_channels must be divisible by groups");
  expect_error<ValueError>([] { Conv2d(Conv2dOptions(4, 4, 3).groups(0)); },
                           "groups must be a positive integer");
  expect_error<ValueError>([] { Conv2d(Conv2dOptions(2, 2, 3).padding(kSame).stride(2)); },
                           "padding='same' is not supported for strided convolutions");
  expect_error<ValueError>([] { Dropout(1.5); },
                           "dropout probability has to be between 0 and 1, but got 1.5");
  expect_error<ValueError>([] { Embedding(EmbeddingOptions(3, 2).padding_idx(3)); },
                           "Padding_idx must be within num_embeddings");
}

TEST(LayersInitTest, LossWeightsAreBuffers) {
  CrossEntropyLoss ce(CrossEntropyLossOptions().weight(ember::ones({3})));
  ASSERT_EQ(ce->state_dict().size(), 1u);
  EXPECT_EQ(ce->state_dict()[0].first, "weight");
  EXPECT_TRUE(MSELoss()->state_dict().empty());
  // to() converts the buffer in place, so the options the loss calls with
  // hold the converted weight.
  ce->to(kDouble);
  EXPECT_EQ(ce->options.weight().dtype(), kDouble);
  BCEWithLogitsLoss bce(BCEWithLogitsLossOptions().pos_weight(ember::ones({2})));
  EXPECT_EQ(bce->named_buffers().at(0).first, "pos_weight");
}

TEST(LayersInitTest, ContainersIndexAndNameTheirChildren) {
  Sequential seq(Linear(3, 4), ReLU());
  seq->push_back("head", Linear(4, 2));
  EXPECT_EQ(seq->size(), 3u);
  EXPECT_EQ(seq[0].name(), "Linear");
  EXPECT_EQ(seq->at<LinearImpl>(2).options.out_features(), 2);
  EXPECT_EQ(seq->ptr(-1)->name(), "Linear");
  std::vector<std::string> keys;
  for (const auto& kv : seq->named_parameters()) keys.push_back(kv.first);
  EXPECT_EQ(keys, (std::vector<std::string>{"0.weight", "0.bias", "head.weight", "head.bias"}));
  ::ember::testing::expect_error<IndexError>([&] { seq->ptr(3); }, "index 3 is out of range");

  ModuleList list;
  list->push_back(Linear(1, 1));
  list->push_back(std::make_shared<ReLUImpl>());
  EXPECT_EQ(list->size(), 2u);
  EXPECT_NE(list->ptr(1)->as<ReLU>(), nullptr);
  int n = 0;
  for (const auto& m : *list) n += m->parameters().size();
  EXPECT_EQ(n, 2);
}

}  // namespace
}  // namespace nn
}  // namespace ember
