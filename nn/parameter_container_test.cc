// ParameterList and ParameterDict: registration under PyTorch's names,
// libtorch's accessors, state_dict, to(), and Python's repr.

#include <gtest/gtest.h>

#include "nn/container.h"
#include "nn/linear.h"
#include "tensor/all.h"

namespace ember {
namespace {

TEST(ParameterListTest, RegistersInOrderAndIndexes) {
  nn::ParameterList list(ones({3, 4}).requires_grad_(), zeros({2}));
  list->append(full({1}, 7.0).requires_grad_());
  ASSERT_EQ(list->size(), 3u);
  EXPECT_EQ(list->named_parameters().keys(), (std::vector<std::string>{"0", "1", "2"}));
  EXPECT_TRUE(list[0].requires_grad());
  EXPECT_FALSE(list[1].requires_grad());  // libtorch keeps the tensor's flag
  EXPECT_EQ(list[-1].item<float>(), 7.f);
  EXPECT_THROW(list[3], IndexError);
  EXPECT_THROW(list[-4], IndexError);
  int n = 0;
  for (auto& p : *list) {
    EXPECT_EQ(p.key(), std::to_string(n));
    ++n;
  }
  EXPECT_EQ(n, 3);
  nn::ParameterList more;
  more->extend(std::vector<Tensor>{ones({1}), ones({2})});
  list->extend(*more);
  EXPECT_EQ(list->size(), 5u);
  EXPECT_EQ(list->state_dict().keys().back(), "4");
  // Registered parameters: to() converts them, and iteration sees that.
  list->to(kDouble);
  for (auto& p : *list) EXPECT_EQ(p.value().dtype(), kDouble);
}

TEST(ParameterListTest, PrintsAsPyTorch) {
  nn::ParameterList list(ones({3, 4}), ones({2}, kDouble));
  EXPECT_EQ(list->repr(),
            "ParameterList(\n"
            "    (0): Parameter containing: [torch.float32 of size 3x4]\n"
            "    (1): Parameter containing: [torch.float64 of size 2]\n"
            ")");
}

TEST(ParameterDictTest, InsertPopUpdateAndLookups) {
  nn::ParameterDict dict;
  dict->insert("weight", ones({2, 3}).requires_grad_());
  dict->insert("bias", zeros({2}));
  EXPECT_EQ(dict->keys(), (std::vector<std::string>{"weight", "bias"}));
  EXPECT_TRUE(dict->contains("bias"));
  EXPECT_EQ(dict["weight"].sizes(), IntArrayRef({2, 3}));
  dict->insert("weight", full({1}, 3.0));  // replaces, in place in the order
  EXPECT_EQ(dict->keys(), (std::vector<std::string>{"weight", "bias"}));
  EXPECT_EQ(dict->get("weight").item<float>(), 3.f);
  Tensor b = dict->pop("bias");
  EXPECT_EQ(b.sizes(), IntArrayRef({2}));
  EXPECT_FALSE(dict->contains("bias"));
  EXPECT_EQ(dict->find("bias"), nullptr);
  EXPECT_THROW(dict->get("bias"), Error);
  NamedTensors extra;
  extra.emplace_back("a", ones({1}));
  extra.emplace_back("b", ones({2}));
  dict->update(extra);
  EXPECT_EQ(dict->size(), 3u);
  EXPECT_EQ(dict->state_dict().keys(), (std::vector<std::string>{"weight", "a", "b"}));
  EXPECT_THROW(dict->insert("a.b", ones({1})), Error);  // a parameter name
  dict->clear();
  EXPECT_TRUE(dict->empty());
}

TEST(ParameterDictTest, AsAChildAndPrinted) {
  struct Net : nn::Module {
    Net() {
      params = register_module("params", nn::ParameterDict());
      params->insert("scale", ones({3}));
    }
    nn::ParameterDict params{nullptr};
  } net;
  EXPECT_EQ(net.named_parameters().keys(), (std::vector<std::string>{"params.scale"}));
  // One entry prints on one line, as Python's repr does (checked with 1.13).
  EXPECT_EQ(net.params->repr(),
            "ParameterDict(  (scale): Parameter containing: [torch.FloatTensor of size 3])");
}

}  // namespace
}  // namespace ember
