#include "nn/test_golden_attention.h"

#include "autograd/autograd.h"
#include "autograd/grad_mode.h"
#include "nn/test_golden.h"
#include "nn/test_golden_more.h"

namespace ember {
namespace nn {
namespace testing {
namespace attention {
namespace {

using ::ember::testing::GoldenEntry;
using ::ember::testing::GoldenError;
using ::ember::testing::matches_golden;
using ::ember::testing::near_golden;

const GoldenEntry kGolden[] = {
#include "nn/testdata/attention_golden.inc"
};

const GoldenError kErrors[] = {
#include "nn/testdata/attention_errors_golden.inc"
};

const GoldenString kStrings[] = {
#include "nn/testdata/attention_strings_golden.inc"
};

constexpr GoldenTables kTables(kGolden, kErrors, kStrings);

bool starts_with(const char* s, const std::string& prefix) {
  return std::string(s).rfind(prefix, 0) == 0;
}

}  // namespace

const GoldenEntry& golden(const std::string& name) { return kTables.golden(name); }

bool has_golden(const std::string& name) {
  for (const GoldenEntry& e : kGolden) {
    if (name == e.name) return true;
  }
  return false;
}

std::string golden_string(const std::string& name) { return kTables.golden_string(name); }

void expect_golden_error(const std::string& name, const std::function<void()>& f) {
  kTables.expect_golden_error(name, f);
}

void expect_init(const std::string& prefix, const Module& m) {
  SCOPED_TRACE(prefix);
  for (const auto& [key, t] : m.named_parameters()) {
    EXPECT_TRUE(matches_golden(t, golden(prefix + ".init." + key))) << key;
  }
  EXPECT_EQ(more::params_string(m), golden_string(prefix + ".params"));
  EXPECT_EQ(more::state_dict_keys(m), golden_string(prefix + ".state_dict"));
  EXPECT_EQ(more::repr(m), golden_string(prefix + ".repr"));
}

void load_init(const std::string& prefix, Module& m) {
  NoGradGuard no_grad;
  for (auto& [key, t] : m.named_parameters()) t.copy_(golden_tensor(prefix + ".init." + key));
}

std::map<std::string, Tensor> inputs(const std::string& prefix) {
  std::map<std::string, Tensor> out;
  const std::string p = prefix + ".input.";
  for (const GoldenEntry& e : kGolden) {
    if (starts_with(e.name, p)) {
      out[std::string(e.name).substr(p.size())] =
          ::ember::testing::golden_tensor(e).requires_grad_();
    }
  }
  return out;
}

void expect_forward_backward(const std::string& prefix, Module& m,
                             const std::map<std::string, Tensor>& inputs, const Tensor& out,
                             const Tensor& weights, double rel) {
  SCOPED_TRACE(prefix);
  EXPECT_TRUE(near_golden(out, golden(prefix + ".out"), kFloat, rel));
  Tensor loss = (out * golden_tensor(prefix + ".w")).sum();
  EXPECT_EQ(weights.defined(), has_golden(prefix + ".weights"));
  if (weights.defined()) {
    EXPECT_TRUE(near_golden(weights, golden(prefix + ".weights"), kFloat, rel));
    loss = loss + (weights * golden_tensor(prefix + ".w2")).sum();
  }
  loss.backward();
  for (const auto& [key, p] : m.named_parameters()) {
    const std::string name = prefix + ".grad." + key;
    if (!has_golden(name)) {
      EXPECT_FALSE(p.grad().defined()) << key;
      continue;
    }
    EXPECT_TRUE(near_golden(p.grad(), golden(name), kFloat, rel)) << key;
  }
  for (const auto& [key, x] : inputs) {
    EXPECT_TRUE(near_golden(x.grad(), golden(prefix + ".grad_input." + key), kFloat, rel)) << key;
  }
}

}  // namespace attention
}  // namespace testing
}  // namespace nn
}  // namespace ember
