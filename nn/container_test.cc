// ModuleDict (nn/container.h) against PyTorch's nn.ModuleDict
// (tools/golden/nn_modules.py).
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "nn/nn.h"
#include "nn/test_golden.h"
#include "tensor/all.h"

namespace ember {
namespace nn {
namespace {

using testing::golden_string;

std::string repr(const Module& m) {
  std::ostringstream os;
  os << m;
  return os.str();
}

std::string joined_keys(const NamedTensors& named) {
  std::string s;
  for (const auto& kv : named) s += (s.empty() ? "" : "\n") + kv.first;
  return s;
}

// PyTorch: ModuleDict({'conv': Conv2d(1, 2, 3), 'act': ReLU()}); d['fc'] =
// Linear(2, 2); d['conv'] = Conv2d(1, 3, 3); d.pop('act').
TEST(ModuleDictTest, OrderReplaceAndPopAsPyTorch) {
  ModuleDict d(NamedModules{{"conv", Conv2d(1, 2, 3).ptr()}, {"act", ReLU().ptr()}});
  d->insert("fc", Linear(2, 2));
  d->insert("conv", Conv2d(1, 3, 3));  // replaced in place: stays first
  std::shared_ptr<Module> act = d->pop("act");
  EXPECT_NE(act->as<ReLUImpl>(), nullptr);
  EXPECT_EQ(repr(*d), golden_string("repr.module_dict"));
  EXPECT_EQ(joined_keys(d->state_dict()), golden_string("state_dict.module_dict"));
  EXPECT_EQ(d->keys(), (std::vector<std::string>{"conv", "fc"}));
  EXPECT_EQ(d->size(), 2u);
  EXPECT_EQ(d->parameters().size(), 4u);
  EXPECT_EQ(d->at<Conv2dImpl>("conv").weight.size(0), 3);
  EXPECT_TRUE(d->contains("fc"));
  EXPECT_FALSE(d->contains("act"));
  EXPECT_EQ(repr(*ModuleDict()), golden_string("repr.module_dict_empty"));
}

TEST(ModuleDictTest, IterationValuesAndUpdate) {
  ModuleDict a(NamedModules{{"x", Linear(1, 1).ptr()}});
  ModuleDict b(NamedModules{{"y", Linear(2, 2).ptr()}, {"x", Linear(3, 3).ptr()}});
  a->update(*b);  // "y" appended, "x" replaced where it was
  std::vector<std::string> order;
  for (const auto& [key, module] : *a) order.push_back(key);
  EXPECT_EQ(order, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(a->at<LinearImpl>("x").weight.size(0), 3);
  EXPECT_TRUE(a->values()[1].get() == b->ptr("y").get());  // shared, not copied
  a->clear();
  EXPECT_TRUE(a->is_empty());
  EXPECT_TRUE(a->parameters().empty());
  EXPECT_EQ(repr(*a), "ModuleDict()");
}

TEST(ModuleDictTest, Errors) {
  ModuleDict d(NamedModules{{"fc", Linear(2, 2).ptr()}});
  try {
    (*d)["nope"];
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "ModuleDict has no module 'nope'");
  }
  EXPECT_THROW(d->pop("nope"), Error);
  EXPECT_THROW(d->insert("a.b", Linear(1, 1)), Error);  // add_module's rules
  EXPECT_THROW(d->insert("", Linear(1, 1)), Error);
  EXPECT_THROW(d->at<ReLUImpl>("fc"), Error);
  EXPECT_EQ(d->size(), 1u);  // nothing half-added
}

}  // namespace
}  // namespace nn
}  // namespace ember
