// The grad_fn nodes user-level calls record, against PyTorch 1.13
// (tools/golden/grad_fn_names.py): the result's node and the ones below it
// along the first input, as `x.grad_fn` shows them in Python.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "autograd/node.h"
#include "gtest/gtest.h"
#include "nn/functional/activation.h"
#include "nn/functional/conv.h"
#include "nn/functional/embedding.h"
#include "nn/functional/linear.h"
#include "nn/functional/loss.h"
#include "nn/functional/normalization.h"
#include "nn/functional/padding.h"
#include "nn/functional/pooling.h"
#include "tensor/all.h"

namespace ember {
namespace {

namespace F = nn::functional;

struct Case {
  const char* name;
  const char* chain;
};

const Case kCases[] = {
#include "nn/functional/testdata/grad_fn_names_golden.inc"
};

// "A <- B <- C": the node, then its first input's (skipping leaves), three deep.
std::string chain(const Tensor& t) {
  std::string out;
  std::shared_ptr<autograd::Node> fn = t.grad_fn();
  for (int depth = 0; fn != nullptr && depth < 3; ++depth) {
    out += (out.empty() ? "" : " <- ") + fn->name();
    std::shared_ptr<autograd::Node> next;
    for (const auto& e : fn->next_edges()) {
      if (e.function != nullptr && e.function->name() != "torch::autograd::AccumulateGrad") {
        next = e.function;
        break;
      }
    }
    fn = next;
  }
  return out;
}

Tensor r(std::vector<int64_t> sizes) { return randn(sizes).requires_grad_(true); }
Tensor idx(std::vector<int64_t> v) { return tensor(v, kLong); }

const std::map<std::string, std::function<Tensor()>>& calls() {
  static const auto* m = new std::map<std::string, std::function<Tensor()>>{
      {"matmul_1d_1d", [] { return r({3}).matmul(r({3})); }},
      {"matmul_2d_2d", [] { return r({2, 3}).matmul(r({3, 4})); }},
      {"matmul_1d_2d", [] { return r({3}).matmul(r({3, 4})); }},
      {"matmul_2d_1d", [] { return r({2, 3}).matmul(r({3})); }},
      {"matmul_3d_2d", [] { return r({5, 2, 3}).matmul(r({3, 4})); }},
      {"matmul_3d_3d", [] { return r({5, 2, 3}).matmul(r({5, 3, 4})); }},
      {"matmul_3d_1d", [] { return r({5, 2, 3}).matmul(r({3})); }},
      {"mm", [] { return mm(r({2, 3}), r({3, 4})); }},
      {"mv", [] { return mv(r({2, 3}), r({3})); }},
      {"dot", [] { return dot(r({3}), r({3})); }},
      {"bmm", [] { return bmm(r({2, 2, 3}), r({2, 3, 4})); }},
      {"addmm", [] { return addmm(r({2, 4}), r({2, 3}), r({3, 4})); }},
      {"linear_nobias_2d", [] { return F::linear(r({2, 3}), r({4, 3})); }},
      {"linear_bias_2d", [] { return F::linear(r({2, 3}), r({4, 3}), r({4})); }},
      {"linear_nobias_3d", [] { return F::linear(r({5, 2, 3}), r({4, 3})); }},
      {"linear_bias_3d", [] { return F::linear(r({5, 2, 3}), r({4, 3}), r({4})); }},
      {"group_norm", [] { return F::group_norm(r({2, 4, 3}), F::GroupNormFuncOptions(2)); }},
      {"group_norm_affine",
       [] {
         return F::group_norm(r({2, 4, 3}),
                              F::GroupNormFuncOptions(2).weight(r({4})).bias(r({4})));
       }},
      {"layer_norm", [] { return F::layer_norm(r({2, 3}), F::LayerNormFuncOptions({3})); }},
      {"batch_norm",
       [] {
         return F::batch_norm(r({2, 3}), Tensor(), Tensor(),
                              F::BatchNormFuncOptions().training(true));
       }},
      {"pad_reflect_2d",
       [] { return F::pad(r({1, 1, 3, 3}), F::PadFuncOptions({1, 1, 1, 1}).mode(ember::kReflect)); }},
      {"pad_reflect_1d",
       [] { return F::pad(r({1, 2, 3}), F::PadFuncOptions({1, 1}).mode(ember::kReflect)); }},
      {"pad_replicate_2d",
       [] {
         return F::pad(r({1, 1, 3, 3}), F::PadFuncOptions({1, 1, 1, 1}).mode(ember::kReplicate));
       }},
      {"pad_replicate_1d",
       [] { return F::pad(r({1, 2, 3}), F::PadFuncOptions({1, 1}).mode(ember::kReplicate)); }},
      {"pad_constant", [] { return F::pad(r({1, 1, 3, 3}), F::PadFuncOptions({1, 1, 1, 1})); }},
      {"relu", [] { return F::relu(r({3})); }},
      {"relu6", [] { return F::relu6(r({3})); }},
      {"hardtanh", [] { return F::hardtanh(r({3})); }},
      {"gelu", [] { return F::gelu(r({3})); }},
      {"silu", [] { return F::silu(r({3})); }},
      {"softmax", [] { return F::softmax(r({2, 3}), 1); }},
      {"log_softmax", [] { return F::log_softmax(r({2, 3}), 1); }},
      {"cross_entropy", [] { return F::cross_entropy(r({2, 3}), idx({0, 1})); }},
      {"nll_loss", [] { return F::nll_loss(r({2, 3}), idx({0, 1})); }},
      {"mse_loss", [] { return F::mse_loss(r({3}), randn({3})); }},
      {"conv2d", [] { return F::conv2d(r({1, 1, 3, 3}), r({1, 1, 2, 2})); }},
      {"max_pool2d", [] { return F::max_pool2d(r({1, 1, 4, 4}), F::MaxPool2dFuncOptions(2)); }},
      {"avg_pool2d", [] { return F::avg_pool2d(r({1, 1, 4, 4}), F::AvgPool2dFuncOptions(2)); }},
      {"embedding", [] { return F::embedding(idx({0, 1}), r({3, 2})); }},
      {"sum", [] { return r({3}).sum(); }},
      {"sum_dim", [] { return r({2, 3}).sum({1}); }},
      {"mean", [] { return r({3}).mean(); }},
      {"view", [] { return r({2, 3}).view({6}); }},
      {"reshape_contiguous", [] { return r({2, 3}).reshape({6}); }},
      {"flatten", [] { return r({2, 3, 4}).flatten(1); }},
      {"t", [] { return r({2, 3}).t(); }},
      {"transpose", [] { return r({2, 3}).transpose(0, 1); }},
      {"permute", [] { return r({2, 3, 4}).permute({2, 0, 1}); }},
      {"select", [] { return r({3, 4})[1]; }},
      {"index_tensor", [] { return r({3, 4}).index({idx({0, 2})}); }},
      {"cat", [] { return cat({r({2}), r({3})}); }},
      {"stack", [] { return stack({r({2}), r({2})}); }},
      {"expand", [] { return r({3, 1}).expand({3, 4}); }},
      {"unsqueeze", [] { return r({3}).unsqueeze(0); }},
      {"squeeze_dim", [] { return r({1, 3}).squeeze(0); }},
      {"add", [] { return r({3}) + r({3}); }},
      {"mul_scalar", [] { return r({3}) * 2; }},
      {"pow", [] { return r({3}).pow(2); }},
      {"exp", [] { return r({3}).exp(); }},
      {"tanh", [] { return r({3}).tanh(); }},
      {"sigmoid", [] { return r({3}).sigmoid(); }},
      {"clamp", [] { return r({3}).clamp(-1, 1); }},
      {"clamp_min", [] { return r({3}).clamp_min(0); }},
      {"abs", [] { return r({3}).abs(); }},
      {"where", [] { return where(tensor({true, false}), r({2}), r({2})); }},
      {"masked_fill", [] { return r({3}).masked_fill(tensor({true, false, true}), 0.0); }},
      {"max_all", [] { return r({3}).max(); }},
      {"max_dim", [] { return std::get<0>(r({2, 3}).max(1)); }},
      {"amax", [] { return r({2, 3}).amax({1}); }},
      {"norm", [] { return r({3}).norm(); }},
      {"var", [] { return r({3}).var(); }},
      {"std", [] { return r({3}).std(); }},
      {"logsumexp", [] { return r({2, 3}).logsumexp({1}); }},
      {"cumsum", [] { return r({3}).cumsum(0); }},
  };
  return *m;
}

TEST(GradFnNames, MatchPyTorch) {
  EXPECT_EQ(std::size(kCases), calls().size());
  for (const Case& c : kCases) {
    auto it = calls().find(c.name);
    ASSERT_NE(it, calls().end()) << c.name;
    EXPECT_EQ(chain(it->second()), c.chain) << c.name;
  }
}

}  // namespace
}  // namespace ember
