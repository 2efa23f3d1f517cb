// nn::MultiheadAttention against PyTorch 1.13 (tools/golden/attention.py):
// initialization under manual_seed, names and printed form, outputs,
// attention weights and gradients for each option and mask kind, dropout's
// draws, errors, and gradcheck in float64.

#include "nn/attention.h"

#include <gtest/gtest.h>

#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "nn/functional/attention.h"
#include "nn/test_golden_attention.h"
#include "tensor/all.h"

namespace ember {
namespace nn {
namespace {

namespace ga = ::ember::nn::testing::attention;

struct Call {
  Tensor key_padding_mask;
  bool need_weights = true;
  Tensor attn_mask;
  bool average_attn_weights = true;
};

Tensor optional_golden(const std::string& name) {
  return ga::has_golden(name) ? ga::golden_tensor(name) : Tensor();
}

// Builds the case's module under manual_seed(0), checks its initial state,
// runs it on the stored inputs (query, key and value one tensor where
// PyTorch's case shared them) after manual_seed(1), and checks the results.
void check_case(const std::string& name, const MultiheadAttentionOptions& options, Call call = {}) {
  const std::string prefix = "mha." + name;
  manual_seed(0);
  MultiheadAttention m(options);
  ga::expect_init(prefix, *m);
  auto in = ga::inputs(prefix);
  Tensor q = in["query"];
  Tensor k = in.count("key") ? in["key"] : q;
  Tensor v = in.count("value") ? in["value"] : k;
  if (!call.key_padding_mask.defined()) {
    call.key_padding_mask = optional_golden(prefix + ".key_padding_mask");
  }
  if (!call.attn_mask.defined()) call.attn_mask = optional_golden(prefix + ".attn_mask");
  manual_seed(1);
  auto [out, weights] = m(q, k, v, call.key_padding_mask, call.need_weights, call.attn_mask,
                          call.average_attn_weights);
  ga::expect_forward_backward(prefix, *m, in, out, weights);
}

TEST(MultiheadAttentionTest, SelfAttention) { check_case("self", MultiheadAttentionOptions(8, 2)); }

TEST(MultiheadAttentionTest, CrossAttentionWithPaddingAndFloatMaskPerHeadWeights) {
  Call call;
  call.average_attn_weights = false;
  check_case("cross_masks", MultiheadAttentionOptions(8, 2), call);
}

TEST(MultiheadAttentionTest, BatchFirstBoolMaskWithoutWeights) {
  Call call;
  call.need_weights = false;
  check_case("batch_first_nw", MultiheadAttentionOptions(8, 4).batch_first(true), call);
}

TEST(MultiheadAttentionTest, KeyIsValue) { check_case("kv_same", MultiheadAttentionOptions(8, 2)); }

TEST(MultiheadAttentionTest, SeparateProjectionsForOtherKeyAndValueWidths) {
  check_case("kdim_vdim", MultiheadAttentionOptions(8, 2).kdim(5).vdim(7).bias(false));
}

TEST(MultiheadAttentionTest, BiasKVAndZeroAttention) {
  check_case("bias_kv_zero_attn",
             MultiheadAttentionOptions(8, 2).add_bias_kv(true).add_zero_attn(true));
}

TEST(MultiheadAttentionTest, Unbatched) { check_case("unbatched", MultiheadAttentionOptions(8, 2)); }

// Dropout on the attention weights draws PyTorch's mask under manual_seed,
// through both paths (explicit weights, and scaled_dot_product_attention).
TEST(MultiheadAttentionTest, DropoutDrawsPyTorchsMask) {
  check_case("dropout", MultiheadAttentionOptions(8, 2).dropout(0.25));
  Call call;
  call.need_weights = false;
  check_case("dropout_nw", MultiheadAttentionOptions(8, 2).dropout(0.25), call);
}

TEST(MultiheadAttentionTest, EvalModeDisablesDropout) {
  MultiheadAttention m(MultiheadAttentionOptions(8, 2).dropout(0.5));
  m->eval();
  Tensor x = randn({4, 2, 8});
  auto [a, wa] = m(x, x, x);
  auto [b, wb] = m(x, x, x);
  EXPECT_TRUE(equal(a, b));
  EXPECT_TRUE(allclose(wa.sum({-1}), ones({2, 4})));
}

// Both paths agree: the explicit one (need_weights) and the one through
// scaled_dot_product_attention.
TEST(MultiheadAttentionTest, PathsAgree) {
  MultiheadAttention m(MultiheadAttentionOptions(8, 2));
  Tensor q = randn({4, 3, 8}), kv = randn({6, 3, 8});
  Tensor mask = randn({4, 6});
  Tensor kpm = zeros({3, 6}, kBool);
  kpm.select(0, 0).narrow(0, 4, 2).fill_(true);
  Tensor a = std::get<0>(m(q, kv, kv, kpm, true, mask));
  Tensor b = std::get<0>(m(q, kv, kv, kpm, false, mask));
  EXPECT_TRUE(allclose(a, b, 1e-5, 1e-6));
}

TEST(MultiheadAttentionTest, Errors) {
  ga::expect_golden_error("mha_divisible", [] { MultiheadAttention(10, 3); });
  MultiheadAttention mha(8, 2);
  auto call = [&](Tensor q, Tensor k, Tensor v, Tensor kpm = {}, Tensor mask = {}) {
    return [=]() mutable { mha(q, k, v, kpm, true, mask); };
  };
  ga::expect_golden_error("mha_query_dim", call(zeros({2, 3, 4, 8}), zeros({2, 3, 4, 8}),
                                                zeros({2, 3, 4, 8})));
  ga::expect_golden_error("mha_key_dim", call(zeros({4, 2, 8}), zeros({5, 8}), zeros({5, 8})));
  ga::expect_golden_error("mha_embed_dim",
                          call(zeros({4, 2, 6}), zeros({5, 2, 6}), zeros({5, 2, 6})));
  ga::expect_golden_error("mha_attn_mask_2d", call(zeros({4, 2, 8}), zeros({5, 2, 8}),
                                                   zeros({5, 2, 8}), {}, zeros({4, 4})));
  ga::expect_golden_error("mha_attn_mask_3d", call(zeros({4, 2, 8}), zeros({5, 2, 8}),
                                                   zeros({5, 2, 8}), {}, zeros({2, 4, 5})));
  ga::expect_golden_error("mha_kpm_dim", call(zeros({4, 2, 8}), zeros({5, 2, 8}),
                                              zeros({5, 2, 8}), zeros({2, 5, 1}, kBool)));
  ga::expect_golden_error("mha_kpm_shape", call(zeros({4, 2, 8}), zeros({5, 2, 8}),
                                                zeros({5, 2, 8}), zeros({2, 4}, kBool)));
  ga::expect_golden_error("mha_kv_shape",
                          call(zeros({4, 2, 8}), zeros({5, 2, 8}), zeros({6, 2, 8})));
  ga::expect_golden_error("mha_mask_dtype", call(zeros({4, 2, 8}), zeros({5, 2, 8}),
                                                 zeros({5, 2, 8}), {}, zeros({4, 5}, kLong)));
}

// The functional form's gradients against finite differences in float64,
// with masks, bias_k/bias_v and zero attention, through both paths.
TEST(MultiheadAttentionTest, Gradcheck) {
  manual_seed(7);
  MultiheadAttention m(MultiheadAttentionOptions(4, 2).add_bias_kv(true).add_zero_attn(true));
  m->to(kDouble);
  Tensor q = randn({3, 2, 4}, kDouble).requires_grad_();
  Tensor k = randn({5, 2, 4}, kDouble).requires_grad_();
  Tensor v = randn({5, 2, 4}, kDouble).requires_grad_();
  Tensor mask = randn({3, 5}, kDouble);
  Tensor kpm = zeros({2, 5}, kBool);
  kpm.select(0, 1).narrow(0, 3, 2).fill_(true);
  for (bool need_weights : {true, false}) {
    auto fn = [&](const autograd::variable_list& in) -> autograd::variable_list {
      functional::MultiheadAttentionForwardFuncOptions o(4, 2, in[3], in[4], in[5], in[6], true,
                                                         0.0, in[7], in[8]);
      o.key_padding_mask(kpm).attn_mask(mask).need_weights(need_weights);
      auto [out, w] = functional::multi_head_attention_forward(in[0], in[1], in[2], o);
      return {out};
    };
    autograd::variable_list all = {q, k, v};
    for (Tensor p : {m->in_proj_weight, m->in_proj_bias, m->bias_k, m->bias_v,
                     m->out_proj->weight, m->out_proj->bias}) {
      all.push_back(p.detach().clone().requires_grad_());
    }
    EXPECT_EQ(autograd::gradcheck(fn, all), "") << need_weights;
  }
}

}  // namespace
}  // namespace nn
}  // namespace ember
