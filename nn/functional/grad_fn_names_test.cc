// The grad_fn nodes user-level calls record, against PyTorch 1.13
// (tools/golden/grad_fn_names.py): the result's node and the ones below it
// along the first input, as `x.grad_fn` shows them in Python.
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "autograd/autograd.h"
#include "autograd/derivatives.h"
#include "autograd/node.h"
#include "gtest/gtest.h"
#include "nn/functional/activation.h"
#include "nn/functional/conv.h"
#include "nn/functional/embedding.h"
#include "nn/functional/fold.h"
#include "nn/functional/linear.h"
#include "nn/functional/loss.h"
#include "nn/functional/normalization.h"
#include "nn/functional/padding.h"
#include "nn/functional/pooling.h"
#include "nn/functional/vision.h"
#include "nn/rnn_functional.h"
#include "tensor/pixel_shuffle.h"
#include "tensor/trilinear.h"
#include "tensor/upsample.h"
#include "tensor/all.h"
#include "tensor/distributions.h"

namespace ember {
namespace {

namespace F = nn::functional;
using indexing::Slice;

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
    // Python shows C++'s torch::autograd::NotImplemented as NotImplemented.
    std::string name = fn->name();
    if (name.rfind("torch::autograd::", 0) == 0) name = name.substr(17);
    out += (out.empty() ? "" : " <- ") + name;
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
// A symmetric positive-definite leaf.
Tensor spd() { return (eye(3) * 2 + 0.1).requires_grad_(true); }
Tensor mask23() { return tensor({true, false, true, false, false, true}).view({2, 3}); }

// An in-place op on a non-leaf: y = x * 1; f(y).
Tensor inplace(void (*f)(Tensor&), std::vector<int64_t> sizes) {
  Tensor y = r(sizes) * 1;
  f(y);
  return y;
}

// The gradient of f at x for grad_output g, recorded (create_graph): the
// node of a backward's own op.
Tensor grad_of(Tensor (*f)(const Tensor&), const Tensor& x, const Tensor& g) {
  return autograd::grad({f(x)}, {x}, {g}, std::nullopt, /*create_graph=*/true)[0];
}

// Flat recurrent parameters (nn/rnn_functional.h): per direction w_ih, w_hh[,
// b_ih, b_hh][, w_hr].
std::vector<Tensor> rnn_params(int64_t gates, int64_t input_size, int64_t hidden, int64_t dirs = 1,
                               bool bias = true, int64_t proj = 0) {
  const int64_t out = proj > 0 ? proj : hidden;
  std::vector<Tensor> ps;
  for (int64_t d = 0; d < dirs; ++d) {
    ps.push_back(r({gates * hidden, input_size}));
    ps.push_back(r({gates * hidden, out}));
    if (bias) {
      ps.push_back(r({gates * hidden}));
      ps.push_back(r({gates * hidden}));
    }
    if (proj > 0) ps.push_back(r({proj, hidden}));
  }
  return ps;
}
Tensor lengths211() { return tensor(std::vector<int64_t>{2, 1, 1}, kLong); }

const std::map<std::string, std::function<Tensor()>>& calls() {
  static const auto* m = new std::map<std::string, std::function<Tensor()>>{
      {"matmul_1d_1d", [] { return r({3}).matmul(r({3})); }},
      {"matmul_2d_2d",
       [] {
         return r({2, 3}).matmul(r({3, 4}));
       }},
      {"matmul_1d_2d",
       [] {
         return r({3}).matmul(r({3, 4}));
       }},
      {"matmul_2d_1d",
       [] {
         return r({2, 3}).matmul(r({3}));
       }},
      {"matmul_3d_2d",
       [] {
         return r({5, 2, 3}).matmul(r({3, 4}));
       }},
      {"matmul_3d_3d",
       [] {
         return r({5, 2, 3}).matmul(r({5, 3, 4}));
       }},
      {"matmul_3d_1d",
       [] {
         return r({5, 2, 3}).matmul(r({3}));
       }},
      {"mm",
       [] {
         return mm(r({2, 3}), r({3, 4}));
       }},
      {"mv",
       [] {
         return mv(r({2, 3}), r({3}));
       }},
      {"dot", [] { return dot(r({3}), r({3})); }},
      {"bmm",
       [] {
         return bmm(r({2, 2, 3}), r({2, 3, 4}));
       }},
      {"addmm",
       [] {
         return addmm(r({2, 4}), r({2, 3}), r({3, 4}));
       }},
      {"linear_nobias_2d",
       [] {
         return F::linear(r({2, 3}), r({4, 3}));
       }},
      {"linear_bias_2d",
       [] {
         return F::linear(r({2, 3}), r({4, 3}), r({4}));
       }},
      {"linear_nobias_3d",
       [] {
         return F::linear(r({5, 2, 3}), r({4, 3}));
       }},
      {"linear_bias_3d",
       [] {
         return F::linear(r({5, 2, 3}), r({4, 3}), r({4}));
       }},
      {"group_norm",
       [] {
         return F::group_norm(r({2, 4, 3}), F::GroupNormFuncOptions(2));
       }},
      {"group_norm_affine",
       [] {
         return F::group_norm(r({2, 4, 3}),
                              F::GroupNormFuncOptions(2).weight(r({4})).bias(r({4})));
       }},
      {"weight_norm_dim0", [] { return _weight_norm(r({3, 4, 2}), r({3, 1, 1}), 0); }},
      {"weight_norm_dim1", [] { return _weight_norm(r({3, 4, 2}), r({1, 4, 1}), 1); }},
      {"weight_norm_interface",
       [] { return std::get<0>(_weight_norm_interface(r({3, 4}), r({1, 4}), 1)); }},
      {"norm_except_dim_0", [] { return norm_except_dim(r({3, 4, 2}), 2, 0); }},
      {"norm_except_dim_1", [] { return norm_except_dim(r({3, 4, 2}), 2, 1); }},
      {"norm_except_dim_all", [] { return norm_except_dim(r({3, 4, 2}), 2, -1); }},
      {"native_group_norm_rstd",
       [] {
         return std::get<2>(native_group_norm(r({2, 4, 3}), r({4}), Tensor(), 2, 4, 3, 2, 1e-5));
       }},
      {"layer_norm",
       [] {
         return F::layer_norm(r({2, 3}), F::LayerNormFuncOptions({3}));
       }},
      {"batch_norm",
       [] {
         return F::batch_norm(r({2, 3}), Tensor(), Tensor(),
                              F::BatchNormFuncOptions().training(true));
       }},
      {"pad_reflect_2d",
       [] {
         return F::pad(r({1, 1, 3, 3}), F::PadFuncOptions({1, 1, 1, 1}).mode(ember::kReflect));
       }},
      {"pad_reflect_1d",
       [] {
         return F::pad(r({1, 2, 3}), F::PadFuncOptions({1, 1}).mode(ember::kReflect));
       }},
      {"pad_replicate_2d",
       [] {
         return F::pad(r({1, 1, 3, 3}), F::PadFuncOptions({1, 1, 1, 1}).mode(ember::kReplicate));
       }},
      {"pad_replicate_1d",
       [] {
         return F::pad(r({1, 2, 3}), F::PadFuncOptions({1, 1}).mode(ember::kReplicate));
       }},
      {"pad_constant",
       [] {
         return F::pad(r({1, 1, 3, 3}), F::PadFuncOptions({1, 1, 1, 1}));
       }},
      {"relu", [] { return F::relu(r({3})); }},
      {"relu6", [] { return F::relu6(r({3})); }},
      {"hardtanh", [] { return F::hardtanh(r({3})); }},
      {"gelu", [] { return F::gelu(r({3})); }},
      {"silu", [] { return F::silu(r({3})); }},
      {"softmax",
       [] {
         return F::softmax(r({2, 3}), 1);
       }},
      {"log_softmax",
       [] {
         return F::log_softmax(r({2, 3}), 1);
       }},
      {"cross_entropy",
       [] {
         return F::cross_entropy(r({2, 3}), idx({0, 1}));
       }},
      {"nll_loss",
       [] {
         return F::nll_loss(r({2, 3}), idx({0, 1}));
       }},
      {"mse_loss", [] { return F::mse_loss(r({3}), randn({3})); }},
      {"conv2d",
       [] {
         return F::conv2d(r({1, 1, 3, 3}), r({1, 1, 2, 2}));
       }},
      {"max_pool2d",
       [] {
         return F::max_pool2d(r({1, 1, 4, 4}), F::MaxPool2dFuncOptions(2));
       }},
      {"avg_pool2d",
       [] {
         return F::avg_pool2d(r({1, 1, 4, 4}), F::AvgPool2dFuncOptions(2));
       }},
      {"embedding",
       [] {
         return F::embedding(idx({0, 1}), r({3, 2}));
       }},
      {"sum", [] { return r({3}).sum(); }},
      {"sum_dim",
       [] {
         return r({2, 3}).sum({1});
       }},
      {"mean", [] { return r({3}).mean(); }},
      {"view",
       [] {
         return r({2, 3}).view({6});
       }},
      {"reshape_contiguous",
       [] {
         return r({2, 3}).reshape({6});
       }},
      {"flatten",
       [] {
         return r({2, 3, 4}).flatten(1);
       }},
      {"t",
       [] {
         return r({2, 3}).t();
       }},
      {"transpose",
       [] {
         return r({2, 3}).transpose(0, 1);
       }},
      {"permute",
       [] {
         return r({2, 3, 4}).permute({2, 0, 1});
       }},
      {"select",
       [] {
         return r({3, 4})[1];
       }},
      {"index_tensor",
       [] {
         return r({3, 4}).index({idx({0, 2})});
       }},
      {"cat",
       [] {
         return cat({r({2}), r({3})});
       }},
      {"stack",
       [] {
         return stack({r({2}), r({2})});
       }},
      {"expand",
       [] {
         return r({3, 1}).expand({3, 4});
       }},
      {"unsqueeze", [] { return r({3}).unsqueeze(0); }},
      {"squeeze_dim",
       [] {
         return r({1, 3}).squeeze(0);
       }},
      {"add", [] { return r({3}) + r({3}); }},
      {"mul_scalar", [] { return r({3}) * 2; }},
      {"pow", [] { return r({3}).pow(2); }},
      {"exp", [] { return r({3}).exp(); }},
      {"tanh", [] { return r({3}).tanh(); }},
      {"sigmoid", [] { return r({3}).sigmoid(); }},
      {"clamp", [] { return r({3}).clamp(-1, 1); }},
      {"clamp_min", [] { return r({3}).clamp_min(0); }},
      {"abs", [] { return r({3}).abs(); }},
      {"where",
       [] {
         return where(tensor({true, false}), r({2}), r({2}));
       }},
      {"masked_fill",
       [] {
         return r({3}).masked_fill(tensor({true, false, true}), 0.0);
       }},
      {"max_all", [] { return r({3}).max(); }},
      {"max_dim",
       [] {
         return std::get<0>(r({2, 3}).max(1));
       }},
      {"amax",
       [] {
         return r({2, 3}).amax({1});
       }},
      {"norm", [] { return r({3}).norm(); }},
      {"var", [] { return r({3}).var(); }},
      {"std", [] { return r({3}).std(); }},
      {"logsumexp",
       [] {
         return r({2, 3}).logsumexp({1});
       }},
      {"cumsum", [] { return r({3}).cumsum(0); }},
      // --- every other derivative-table entry a public call reaches ---
      // pointwise.cc
      {"sub", [] { return r({3}) - r({3}); }},
      {"mul", [] { return r({3}) * r({3}); }},
      {"div", [] { return r({3}) / r({3}); }},
      {"div_rounding", [] { return r({3}).div(r({3}), "floor"); }},
      {"rsub", [] { return 2.5 - r({3}); }},
      {"neg", [] { return -r({3}); }},
      {"sqrt", [] { return r({3}).sqrt(); }},
      {"rsqrt", [] { return r({3}).rsqrt(); }},
      {"exp2", [] { return r({3}).exp2(); }},
      {"expm1", [] { return r({3}).expm1(); }},
      {"log", [] { return r({3}).log(); }},
      {"log2", [] { return r({3}).log2(); }},
      {"log10", [] { return r({3}).log10(); }},
      {"log1p", [] { return r({3}).log1p(); }},
      {"sin", [] { return r({3}).sin(); }},
      {"cos", [] { return r({3}).cos(); }},
      {"tan", [] { return r({3}).tan(); }},
      {"asin", [] { return r({3}).asin(); }},
      {"acos", [] { return r({3}).acos(); }},
      {"atan", [] { return r({3}).atan(); }},
      {"sinh", [] { return r({3}).sinh(); }},
      {"cosh", [] { return r({3}).cosh(); }},
      {"erf", [] { return r({3}).erf(); }},
      {"erfc", [] { return r({3}).erfc(); }},
      {"asinh", [] { return r({3}).asinh(); }},
      {"acosh", [] { return r({3}).acosh(); }},
      {"atanh", [] { return r({3}).atanh(); }},
      {"reciprocal", [] { return r({3}).reciprocal(); }},
      {"floor", [] { return r({3}).floor(); }},
      {"ceil", [] { return r({3}).ceil(); }},
      {"round", [] { return r({3}).round(); }},
      {"trunc", [] { return r({3}).trunc(); }},
      {"sign", [] { return r({3}).sign(); }},
      {"frac", [] { return r({3}).frac(); }},
      {"relu_tensor", [] { return r({3}).relu(); }},
      {"round_decimals", [] { return r({3}).round(1); }},
      {"pow_tensor", [] { return r({3}).pow(r({3})); }},
      {"clamp_max", [] { return r({3}).clamp_max(0); }},
      {"clamp_tensor", [] { return r({3}).clamp(r({3}), r({3})); }},
      {"maximum", [] { return maximum(r({3}), r({3})); }},
      {"minimum", [] { return minimum(r({3}), r({3})); }},
      {"atan2", [] { return atan2(r({3}), r({3})); }},
      {"lerp", [] { return r({3}).lerp(r({3}), 0.3); }},
      {"addcmul", [] { return addcmul(r({3}), r({3}), r({3}), 0.5); }},
      {"addcdiv", [] { return addcdiv(r({3}), r({3}), r({3}), 0.5); }},
      {"masked_fill_tensor",
       [] {
         return r({2, 3}).masked_fill(mask23(), r({}));
       }},
      {"to", [] { return r({3}).to(kDouble); }},
      {"clone", [] { return r({3}).clone(); }},
      {"copy_", [] { return inplace([](Tensor& y) { y.copy_(r({3})); }, {3}); }},
      {"fill_", [] { return inplace([](Tensor& y) { y.fill_(1.5); }, {3}); }},
      {"fill_tensor_", [] { return inplace([](Tensor& y) { y.fill_(r({})); }, {3}); }},
      {"zero_", [] { return inplace([](Tensor& y) { y.zero_(); }, {3}); }},
      {"uniform_", [] { return inplace([](Tensor& y) { y.uniform_(-1, 2); }, {3}); }},
      {"normal_", [] { return inplace([](Tensor& y) { y.normal_(1, 2); }, {3}); }},
      {"bernoulli_", [] { return inplace([](Tensor& y) { y.bernoulli_(0.5); }, {3}); }},
      {"random_", [] { return inplace([](Tensor& y) { y.random_(0, 5); }, {3}); }},
      {"exponential_", [] { return inplace([](Tensor& y) { y.exponential_(2); }, {3}); }},
      {"cauchy_", [] { return inplace([](Tensor& y) { y.cauchy_(); }, {3}); }},
      {"log_normal_", [] { return inplace([](Tensor& y) { y.log_normal_(); }, {3}); }},
      {"geometric_", [] { return inplace([](Tensor& y) { y.geometric_(0.3); }, {3}); }},
      {"remainder", [] { return r({3}).remainder(r({3})); }},
      {"remainder_scalar", [] { return r({3}).remainder(0.7); }},
      {"fmod", [] { return r({3}).fmod(r({3})); }},
      {"fmod_scalar", [] { return r({3}).fmod(0.7); }},
      {"fmax", [] { return fmax(r({3}), r({3})); }},
      {"fmin", [] { return fmin(r({3}), r({3})); }},
      // special.cc
      {"erfinv", [] { return r({3}).erfinv(); }},
      {"lgamma", [] { return r({3}).lgamma(); }},
      {"digamma", [] { return r({3}).digamma(); }},
      {"i0", [] { return r({3}).i0(); }},
      {"sinc", [] { return r({3}).sinc(); }},
      {"polygamma", [] { return polygamma(2, r({3})); }},
      {"special_i1", [] { return special_i1(r({3})); }},
      {"copysign", [] { return r({3}).copysign(r({3})); }},
      {"copysign_scalar", [] { return r({3}).copysign(-1.5); }},
      {"hypot", [] { return r({3}).hypot(r({3})); }},
      {"ldexp",
       [] {
         return r({3}).ldexp(tensor({1, 2, 3}, kLong));
       }},
      {"float_power", [] { return r({3}).float_power(r({3})); }},
      // reduce.cc
      {"mean_dim",
       [] {
         return r({2, 3}).mean({0});
       }},
      {"prod_all", [] { return r({3}).prod(); }},
      {"prod_dim",
       [] {
         return r({2, 3}).prod(1);
       }},
      {"min_all", [] { return r({3}).min(); }},
      {"min_dim",
       [] {
         return std::get<0>(r({2, 3}).min(0, true));
       }},
      {"amin",
       [] {
         return r({2, 3}).amin({0});
       }},
      {"var_dim",
       [] {
         return r({2, 3}).var({1});
       }},
      {"softmax_method",
       [] {
         return r({2, 3}).softmax(0);
       }},
      {"cumprod", [] { return r({3}).cumprod(0); }},
      {"var_mean",
       [] {
         return std::get<0>(var_mean(r({2, 3}), {1}));
       }},
      {"std_mean",
       [] {
         return std::get<0>(std_mean(r({2, 3}), {1}));
       }},
      // linalg.cc
      {"outer", [] { return outer(r({3}), r({2})); }},
      // nn.cc
      {"conv1d",
       [] {
         return F::conv1d(r({1, 2, 5}), r({3, 2, 2}), F::Conv1dFuncOptions().bias(r({3})));
       }},
      {"conv_transpose2d",
       [] {
         return F::conv_transpose2d(r({1, 2, 3, 3}), r({2, 3, 2, 2}));
       }},
      {"conv_tbc", [] { return conv_tbc(r({4, 2, 3}), r({2, 3, 5}), r({5}), 1); }},
      {"convolution_backward",
       [] {
         return grad_of([](const Tensor& x) { return F::conv2d(x, r({2, 1, 2, 2})); },
                        r({1, 1, 3, 3}), r({1, 2, 2, 2}));
       }},
      {"max_pool2d_with_indices_backward",
       [] {
         return grad_of([](const Tensor& x) { return F::max_pool2d(x, F::MaxPool2dFuncOptions(2)); },
                        r({1, 1, 4, 4}), r({1, 1, 2, 2}));
       }},
      {"native_dropout", [] { return std::get<0>(native_dropout(r({3}), 0.5, true)); }},
      {"native_dropout_eval", [] { return std::get<0>(native_dropout(r({3}), 0.5, false)); }},
      {"native_dropout_double_backward",
       [] {
         return grad_of([](const Tensor& x) { return std::get<0>(native_dropout(x, 0.5, true)); },
                        r({3}), r({3}));
       }},
      {"native_dropout_backward",
       [] { return native_dropout_backward(r({3}), tensor({true, false, true}), 2.0); }},
      {"grid_sample_2d",
       [] {
         return F::grid_sample(r({1, 2, 3, 4}), r({1, 2, 2, 2}),
                               F::GridSampleFuncOptions().align_corners(false));
       }},
      {"grid_sample_3d",
       [] {
         return F::grid_sample(r({1, 2, 2, 3, 4}), r({1, 1, 2, 2, 3}),
                               F::GridSampleFuncOptions().align_corners(true));
       }},
      {"affine_grid_2d", [] { return F::affine_grid(r({2, 2, 3}), {2, 1, 3, 4}, false); }},
      {"affine_grid_3d", [] { return F::affine_grid(r({1, 3, 4}), {1, 1, 2, 3, 4}, true); }},
      {"avg_pool2d_backward",
       [] {
         return grad_of([](const Tensor& x) { return F::avg_pool2d(x, F::AvgPool2dFuncOptions(2)); },
                        r({1, 1, 4, 4}), r({1, 1, 2, 2}));
       }},
      {"adaptive_avg_pool2d",
       [] {
         return F::adaptive_avg_pool2d(r({1, 2, 5, 4}), F::AdaptiveAvgPool2dFuncOptions({3, 2}));
       }},
      {"adaptive_avg_pool2d_1",
       [] {
         return F::adaptive_avg_pool2d(r({1, 2, 5, 4}), F::AdaptiveAvgPool2dFuncOptions(1));
       }},
      {"adaptive_avg_pool2d_1_channels_last",
       [] {
         return F::adaptive_avg_pool2d(r({2, 5, 4, 3}).permute({0, 3, 1, 2}),
                                       F::AdaptiveAvgPool2dFuncOptions(1));
       }},
      {"adaptive_avg_pool1d_1",
       [] {
         return F::adaptive_avg_pool1d(r({2, 3, 4}), F::AdaptiveAvgPool1dFuncOptions(1));
       }},
      {"adaptive_avg_pool2d_backward",
       [] {
         return grad_of(
             [](const Tensor& x) {
               return F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions({3, 2}));
             },
             r({1, 2, 5, 4}), r({1, 2, 3, 2}));
       }},
      {"gelu_tanh", [] { return F::gelu(r({3}), F::GELUFuncOptions().approximate("tanh")); }},
      {"leaky_relu",
       [] { return F::leaky_relu(r({3}), F::LeakyReLUFuncOptions().negative_slope(0.2)); }},
      {"batch_norm_eval",
       [] {
         return F::batch_norm(r({2, 3}), zeros({3}), ones({3}),
                              F::BatchNormFuncOptions().weight(r({3})).bias(r({3})));
       }},
      {"layer_norm_affine",
       [] {
         return F::layer_norm(r({2, 3}), F::LayerNormFuncOptions({3}).weight(r({3})).bias(r({3})));
       }},
      {"nll_loss_none",
       [] {
         return F::nll_loss(r({2, 3}), idx({0, 1}), F::NLLLossFuncOptions().reduction(kNone));
       }},
      {"nll_loss2d",
       [] {
         return F::nll_loss(r({2, 3, 2, 2}), idx({0, 2, 1, 1, 2, 0, 0, 1}).view({2, 2, 2}));
       }},
      {"nll_loss_backward",
       [] {
         return grad_of([](const Tensor& x) { return F::nll_loss(x, idx({0, 1})); }, r({2, 3}), r({}));
       }},
      {"nll_loss2d_backward",
       [] {
         return grad_of(
             [](const Tensor& x) {
               return F::nll_loss(x, idx({0, 2, 1, 0}).view({2, 1, 2}),
                                  F::NLLLossFuncOptions().reduction(kNone));
             },
             r({2, 3, 1, 2}), r({2, 1, 2}));
       }},
      {"ctc_loss",
       [] {
         return F::ctc_loss(r({5, 2, 4}).log_softmax(2), idx({1, 2, 3, 0}).view({2, 2}), idx({5, 4}),
                            idx({2, 1}));
       }},
      {"ctc_loss_sum",
       [] {
         return F::ctc_loss(r({5, 2, 4}).log_softmax(2), idx({1, 2, 3, 0}).view({2, 2}), idx({5, 4}),
                            idx({2, 1}), F::CTCLossFuncOptions().reduction(kSum));
       }},
      {"mse_loss_none",
       [] { return F::mse_loss(r({3}), randn({3}), F::MSELossFuncOptions().reduction(kNone)); }},
      {"smooth_l1_loss", [] { return F::smooth_l1_loss(r({3}), randn({3})); }},
      {"instance_norm", [] { return F::instance_norm(r({2, 3, 4})); }},
      {"huber_loss",
       [] { return F::huber_loss(r({3}), randn({3}), F::HuberLossFuncOptions().delta(0.5)); }},
      {"binary_cross_entropy",
       [] { return F::binary_cross_entropy(rand({3}).requires_grad_(true), rand({3})); }},
      {"binary_cross_entropy_with_logits",
       [] { return F::binary_cross_entropy_with_logits(r({3}), rand({3})); }},
      {"pad_reflect_3d",
       [] {
         return F::pad(r({1, 1, 2, 3, 3}), F::PadFuncOptions({1, 1, 1, 1, 1, 1}).mode(ember::kReflect));
       }},
      {"pad_replicate_3d",
       [] {
         return F::pad(r({1, 1, 2, 3, 3}),
                       F::PadFuncOptions({1, 1, 1, 1, 1, 1}).mode(ember::kReplicate));
       }},
      // activation.cc
      {"elu", [] { return F::elu(r({3})); }},
      {"celu", [] { return F::celu(r({3}), F::CELUFuncOptions().alpha(1.5)); }},
      {"selu", [] { return F::selu(r({3})); }},
      {"mish", [] { return F::mish(r({3})); }},
      {"softplus",
       [] { return F::softplus(r({3}), F::SoftplusFuncOptions().beta(2).threshold(3)); }},
      {"logsigmoid", [] { return F::logsigmoid(r({3})); }},
      {"hardsigmoid", [] { return F::hardsigmoid(r({3})); }},
      {"hardswish", [] { return F::hardswish(r({3})); }},
      {"softshrink", [] { return F::softshrink(r({3}), 0.5); }},
      {"hardshrink", [] { return F::hardshrink(r({3}), 0.5); }},
      {"threshold", [] { return F::threshold(r({3}), F::ThresholdFuncOptions(0.5, -2.0)); }},
      {"prelu",
       [] {
         return F::prelu(r({2, 3}), r({3}));
       }},
      // shape.cc
      {"reshape_noncontiguous",
       [] {
         return r({3, 2}).t().reshape({6});
       }},
      {"ellipsis", [] { return r({3}).index({"..."}); }},
      {"split", [] { return r({5}).split(2)[0]; }},
      {"chunk", [] { return r({6}).chunk(3)[0]; }},
      {"split_with_sizes",
       [] {
         return r({5}).split_with_sizes({2, 3})[0];
       }},
      {"unbind",
       [] {
         return r({2, 3}).unbind(1)[0];
       }},
      {"squeeze",
       [] {
         return r({1, 3, 1}).squeeze();
       }},
      {"slice", [] { return r({5}).index({Slice(1, 4, 2)}); }},
      {"narrow", [] { return r({5}).narrow(0, 1, 2); }},
      {"diagonal",
       [] {
         return r({3, 3}).diagonal(1);
       }},
      {"index_colon_int",
       [] {
         return r({2, 3}).index({Slice(), 1});
       }},
      {"index_range_int",
       [] {
         return r({2, 3}).index({Slice(0, 2), 1});
       }},
      {"index_range",
       [] {
         return r({2, 3}).index({Slice(0, 2)});
       }},
      {"index_colon_range",
       [] {
         return r({2, 3}).index({Slice(), Slice(0, 2)});
       }},
      {"index_int_colon",
       [] {
         return r({2, 3}).index({1, Slice()});
       }},
      {"index_ellipsis_int",
       [] {
         return r({2, 3}).index({"...", 1});
       }},
      {"index_none",
       [] {
         return r({2, 3}).index({indexing::None});
       }},
      {"index_colon_none",
       [] {
         return r({2, 3}).index({Slice(), indexing::None});
       }},
      {"index_colon_tensor",
       [] {
         return r({2, 3}).index({Slice(), idx({0, 2})});
       }},
      {"select_backward",
       [] {
         return grad_of([](const Tensor& x) { return x.select(1, 2); }, r({2, 3}), r({2}));
       }},
      {"slice_backward",
       [] {
         return grad_of([](const Tensor& x) { return x.index({Slice(0, 3, 2)}); },
                        r({3, 2}), r({2, 2}));
       }},
      {"diagonal_backward",
       [] {
         return grad_of([](const Tensor& x) { return x.diagonal(-1); }, r({3, 3}), r({2}));
       }},
      {"index_backward",
       [] {
         return grad_of([](const Tensor& x) { return x.index({idx({1, 1, 0})}); }, r({2, 3}),
                        r({3, 3}));
       }},
      {"index_select_backward",
       [] {
         return grad_of([](const Tensor& x) { return x.index_select(0, idx({1, 1})); }, r({2, 3}),
                        r({2, 3}));
       }},
      {"masked_select_backward",
       [] {
         return grad_of([](const Tensor& x) { return x.masked_select(mask23()); }, r({2, 3}), r({3}));
       }},
      {"index_bool",
       [] {
         return r({2, 3}).index({mask23()});
       }},
      {"index_select",
       [] {
         return r({2, 3}).index_select(1, idx({2, 0}));
       }},
      {"masked_select",
       [] {
         return r({2, 3}).masked_select(mask23());
       }},
      {"gather",
       [] {
         return r({2, 3}).gather(1, idx({0, 2, 2, 1}).view({2, 2}));
       }},
      {"scatter",
       [] {
         return r({2, 3}).scatter(1, idx({0, 2, 1, 0}).view({2, 2}), r({2, 2}));
       }},
      {"scatter_value",
       [] {
         return r({2, 3}).scatter(1, idx({0, 2, 1, 0}).view({2, 2}), 1.5);
       }},
      {"scatter_add",
       [] {
         return r({2, 3}).scatter_add(1, idx({0, 0, 1, 1}).view({2, 2}), r({2, 2}));
       }},
      {"sort",
       [] {
         return std::get<0>(r({2, 3}).sort(1, true));
       }},
      {"topk",
       [] {
         return std::get<0>(r({3, 4}).topk(2, 0));
       }},
      {"kthvalue",
       [] {
         return std::get<0>(r({3, 4}).kthvalue(2, 1));
       }},
      {"median",
       [] {
         return r({3, 4}).median();
       }},
      {"median_dim",
       [] {
         return std::get<0>(r({3, 4}).median(1));
       }},
      {"nanmedian",
       [] {
         return r({3, 4}).nanmedian();
       }},
      {"nanmedian_dim",
       [] {
         return std::get<0>(r({3, 4}).nanmedian(0, true));
       }},
      {"mode",
       [] {
         return std::get<0>(r({3, 4}).mode(1));
       }},
      {"cummax",
       [] {
         return std::get<0>(r({3, 4}).cummax(1));
       }},
      {"cummin",
       [] {
         return std::get<0>(r({3, 4}).cummin(0));
       }},
      {"logcumsumexp",
       [] {
         return r({3, 4}).logcumsumexp(1);
       }},
      {"msort",
       [] {
         return r({3, 4}).msort();
       }},
      {"as_strided",
       [] {
         return r({2, 3}).as_strided({2, 2}, {1, 2}, 1);
       }},
      {"unfold",
       [] {
         return r({2, 4}).unfold(1, 2, 1);
       }},
      {"flip",
       [] {
         return r({2, 3}).flip({0, 1});
       }},
      {"roll",
       [] {
         return r({2, 3}).roll({1}, {0});
       }},
      {"repeat",
       [] {
         return r({2, 3}).repeat({2, 1, 2});
       }},
      {"tril",
       [] {
         return r({3, 3}).tril();
       }},
      {"triu",
       [] {
         return r({3, 3}).triu(1);
       }},
      {"diag",
       [] {
         return r({3, 3}).diag(1);
       }},
      {"diag_1d", [] { return r({3}).diag(); }},
      {"take",
       [] {
         return r({2, 3}).take(idx({5, 0}));
       }},
      {"squeeze_",
       [] {
         return inplace([](Tensor& y) { y.squeeze_(); }, {1, 3, 1});
       }},
      {"squeeze_dim_",
       [] {
         return inplace([](Tensor& y) { y.squeeze_(0); }, {1, 3});
       }},
      {"unsqueeze_", [] { return inplace([](Tensor& y) { y.unsqueeze_(0); }, {3}); }},
      {"transpose_",
       [] {
         return inplace([](Tensor& y) { y.transpose_(0, 1); }, {2, 3});
       }},
      {"t_",
       [] {
         return inplace([](Tensor& y) { y.t_(); }, {2, 3});
       }},
      {"as_strided_",
       [] {
         return inplace([](Tensor& y) { y.as_strided_({2, 2}, {1, 2}, 1); }, {2, 3});
       }},
      {"index_put_",
       [] {
         return inplace([](Tensor& y) { index_put_(y, {idx({2, 0})}, r({2})); }, {3});
       }},
      {"setitem",
       [] {
         return inplace([](Tensor& y) { y.index_put_({idx({2, 0})}, r({2})); }, {3});
       }},
      {"index_add_",
       [] {
         return inplace([](Tensor& y) { y.index_add_(1, idx({2, 0}), r({2, 2}), 2.0); }, {2, 3});
       }},
      {"index_fill_",
       [] {
         return inplace([](Tensor& y) { y.index_fill_(1, idx({2, 0}), 0.5); }, {2, 3});
       }},
      {"index_copy_",
       [] {
         return inplace([](Tensor& y) { y.index_copy_(0, idx({2, 0}), r({2, 2})); }, {3, 2});
       }},
      {"masked_scatter_",
       [] {
         return inplace([](Tensor& y) { y.masked_scatter_(mask23(), r({2, 2})); }, {2, 3});
       }},
      // shape_ops.h
      {"trace",
       [] {
         return r({3, 3}).trace();
       }},
      {"addmv",
       [] {
         return r({2}).addmv(r({2, 3}), r({3}));
       }},
      {"addmv_",
       [] {
         return inplace([](Tensor& y) { y.addmv_(r({2, 3}), r({3})); }, {2});
       }},
      {"addr",
       [] {
         return r({2, 3}).addr(r({2}), r({3}));
       }},
      {"addr_",
       [] {
         return inplace([](Tensor& y) { y.addr_(r({2}), r({3})); }, {2, 3});
       }},
      {"addbmm",
       [] {
         return r({2, 4}).addbmm(r({5, 2, 3}), r({5, 3, 4}));
       }},
      {"addbmm_",
       [] {
         return inplace([](Tensor& y) { y.addbmm_(r({5, 2, 3}), r({5, 3, 4})); }, {2, 4});
       }},
      {"diag_embed",
       [] {
         return r({2, 3}).diag_embed();
       }},
      {"select_scatter",
       [] {
         return r({2, 3}).select_scatter(r({3}), 0, 0);
       }},
      {"slice_scatter",
       [] {
         return r({4, 3}).slice_scatter(r({2, 3}), 0, 0, 2, 1);
       }},
      {"diagonal_scatter",
       [] {
         return r({3, 3}).diagonal_scatter(r({3}));
       }},
      {"tile",
       [] {
         return r({2, 3}).tile({2});
       }},
      {"take_along_dim",
       [] {
         return r({2, 3}).take_along_dim(idx({0, 1}).view({2, 1}), 1);
       }},
      {"swapaxes",
       [] {
         return r({2, 3}).swapaxes(0, 1);
       }},
      {"moveaxis",
       [] {
         return r({2, 3, 4}).moveaxis({0, 1}, {2, 0});
       }},
      {"fliplr",
       [] {
         return r({2, 3}).fliplr();
       }},
      {"matrix_power",
       [] {
         return r({3, 3}).matrix_power(3);
       }},
      {"rot90",
       [] {
         return r({2, 3}).rot90();
       }},
      {"rot90_2",
       [] {
         return r({2, 3}).rot90(2);
       }},
      {"unsafe_split",
       [] {
         return r({4, 3}).unsafe_split(2)[1];
       }},
      {"unsafe_chunk",
       [] {
         return r({4, 3}).unsafe_chunk(2)[1];
       }},
      {"unsafe_split_with_sizes",
       [] {
         return r({4, 3}).unsafe_split_with_sizes({1, 3})[1];
       }},
      {"angle", [] { return r({3}).angle(); }},
      {"as_strided_scatter",
       [] {
         return r({3, 4}).as_strided_scatter(r({2}), {2}, {5}, 1);
       }},
      {"ravel",
       [] {
         return r({2, 3}).ravel();
       }},
      {"repeat_interleave_dim",
       [] {
         return r({2, 3}).repeat_interleave(2, 1);
       }},
      {"sum_to_size",
       [] {
         return r({2, 3}).sum_to_size({1, 3});
       }},
      {"diagflat",
       [] {
         return r({2, 2}).diagflat();
       }},
      {"broadcast_to",
       [] {
         return r({3}).broadcast_to({2, 3});
       }},
      // linalg_more.cc
      {"inverse",
       [] {
         return r({3, 3}).inverse();
       }},
      {"linalg_inv",
       [] {
         return linalg_inv(r({2, 3, 3}));
       }},
      {"det",
       [] {
         return r({3, 3}).det();
       }},
      {"linalg_det",
       [] {
         return linalg_det(r({2, 3, 3}));
       }},
      {"slogdet",
       [] {
         return std::get<1>(r({3, 3}).slogdet());
       }},
      {"logdet",
       [] {
         return r({3, 3}).logdet();
       }},
      {"linalg_solve",
       [] {
         return linalg_solve(r({3, 3}), r({3, 2}));
       }},
      {"triangular_solve",
       [] {
         return std::get<0>(triangular_solve(r({3, 2}), r({3, 3})));
       }},
      {"cholesky", [] { return spd().cholesky(); }},
      {"linalg_cholesky", [] { return linalg_cholesky(spd()); }},
      {"cholesky_solve",
       [] {
         return cholesky_solve(r({3, 2}), spd());
       }},
      {"cholesky_inverse", [] { return cholesky_inverse(spd()); }},
      // linalg_spectral.cc
      {"linalg_svd",
       [] {
         return std::get<1>(linalg_svd(r({3, 2})));
       }},
      {"svd",
       [] {
         return std::get<1>(r({3, 2}).svd());
       }},
      {"svd_no_uv",
       [] {
         return std::get<1>(r({3, 2}).svd(true, false));
       }},
      {"linalg_svdvals",
       [] {
         return linalg_svdvals(r({2, 3}));
       }},
      {"linalg_eigh",
       [] {
         return std::get<0>(linalg_eigh(r({3, 3})));
       }},
      {"linalg_eigvalsh",
       [] {
         return linalg_eigvalsh(r({3, 3}));
       }},
      {"symeig",
       [] {
         return std::get<0>(r({3, 3}).symeig(true));
       }},
      {"linalg_pinv",
       [] {
         return linalg_pinv(r({3, 2}));
       }},
      {"linalg_pinv_hermitian",
       [] { return linalg_pinv(spd(), std::optional<Tensor>(), std::nullopt, true); }},
      {"pinverse",
       [] {
         return r({2, 3}).pinverse();
       }},
      {"linalg_lstsq",
       [] {
         return std::get<0>(linalg_lstsq(r({3, 2}), r({3, 2})));
       }},
      {"matrix_exp",
       [] {
         return r({3, 3}).matrix_exp();
       }},
      {"linalg_matrix_exp",
       [] {
         return linalg_matrix_exp(r({3, 3}));
       }},
      // linalg_factor.cc
      {"linalg_qr",
       [] {
         return std::get<0>(linalg_qr(r({3, 3})));
       }},
      {"qr",
       [] {
         return std::get<1>(r({3, 2}).qr());
       }},
      {"geqrf",
       [] {
         return std::get<0>(r({3, 3}).geqrf());
       }},
      {"orgqr",
       [] {
         return r({3, 2}).orgqr(r({2}));
       }},
      {"linalg_householder_product",
       [] {
         return linalg_householder_product(r({3, 2}), r({1}));
       }},
      {"ormqr",
       [] {
         return r({3, 2}).ormqr(r({2}), r({3, 2}));
       }},
      {"linalg_lu_factor",
       [] {
         return std::get<0>(linalg_lu_factor(r({3, 3})));
       }},
      {"linalg_lu_factor_ex",
       [] {
         return std::get<0>(linalg_lu_factor_ex(r({2, 3})));
       }},
      {"lu",
       [] {
         return std::get<0>(r({3, 3}).lu());
       }},
      {"lu_unpack",
       [] {
         auto [LU, piv] = linalg_lu_factor(r({3, 3}));
         return std::get<1>(lu_unpack(LU, piv));
       }},
      {"linalg_lu",
       [] {
         return std::get<2>(linalg_lu(r({3, 3})));
       }},
      {"lu_solve",
       [] {
         const Tensor b = r({3, 2});
         auto [LU, piv] = linalg_lu_factor(r({3, 3}));
         return b.lu_solve(LU, piv);
       }},
      {"linalg_lu_solve",
       [] {
         auto [LU, piv] = linalg_lu_factor(r({3, 3}));
         return linalg_lu_solve(LU, piv, r({3, 2}));
       }},
      // reduce_ops.cc
      {"scatter_reduce",
       [] {
         return r({3, 4}).scatter_reduce(0, tensor({0, 2, 0, 1}, kLong).view({1, 4}), r({1, 4}),
                                         "amax");
       }},
      {"scatter_reduce_",
       [] {
         Tensor y = r({3, 4}) * 1;
         y.scatter_reduce_(1, tensor({0, 3, 1}, kLong).view({3, 1}), r({3, 1}), "mean", false);
         return y;
       }},
      {"index_reduce",
       [] {
         return r({4, 3}).index_reduce(0, tensor({0, 2}, kLong), r({2, 3}), "prod");
       }},
      {"igamma",
       [] {
         return igamma(tensor({1.5f, 2.f}), r({2}).exp());
       }},
      {"igammac",
       [] {
         return special_gammaincc(tensor({1.5f, 2.f}), r({2}));
       }},
      // composite.cc
      {"nansum", [] { return r({2, 3}).nansum({1}); }},
      {"nanmean", [] { return r({2, 3}).nanmean(); }},
      {"nan_to_num", [] { return r({3}).nan_to_num(); }},
      {"logaddexp", [] { return r({3}).logaddexp(r({3})); }},
      {"logaddexp2", [] { return r({3}).logaddexp2(r({3})); }},
      {"xlogy", [] { return r({3}).xlogy(r({3})); }},
      {"xlogy_scalar_other", [] { return r({3}).xlogy(2.0); }},
      {"xlogy_scalar_self", [] { return xlogy(2.0, r({3})); }},
      {"deg2rad", [] { return r({3}).deg2rad(); }},
      {"rad2deg", [] { return r({3}).rad2deg(); }},
      {"sgn", [] { return r({3}).sgn(); }},
      {"logit", [] { return r({3}).logit(0.1); }},
      {"lerp_tensor", [] { return r({3}).lerp(r({3}), r({3})); }},
      {"cross", [] { return r({2, 3}).cross(r({2, 3})); }},
      {"dist", [] { return r({3}).dist(r({3}), 3); }},
      {"baddbmm", [] { return r({2, 2, 2}).baddbmm(r({2, 2, 3}), r({2, 3, 2})); }},
      {"heaviside", [] { return r({3}).heaviside(r({3})); }},
      {"pow_scalar_self", [] { return pow(2.5, r({3})); }},
      {"float_power_scalar_self", [] { return float_power(0.5, r({3})); }},
      {"nextafter", [] { return r({3}).nextafter(r({3})); }},
      {"kron", [] { return r({2, 3}).kron(r({3, 2})); }},
      {"diff_n0", [] { return r({3}).diff(0); }},
      {"quantile", [] { return r({4, 3}).quantile(0.3); }},
      {"quantile_q1d_dim", [] { return r({4, 3}).quantile(tensor({0.1f, 0.5f}), 0); }},
      {"matrix_power_0", [] { return r({3, 3}).matrix_power(0); }},
      {"aminmax", [] { return std::get<0>(r({3, 4}).aminmax()); }},
      {"pixel_shuffle", [] { return pixel_shuffle(r({1, 8, 2, 3}), 2); }},
      {"pixel_unshuffle", [] { return pixel_unshuffle(r({1, 2, 4, 6}), 2); }},
      {"channel_shuffle", [] { return channel_shuffle(r({1, 4, 2, 3}), 2); }},
      {"aminmax_dim", [] { return std::get<1>(r({3, 4}).aminmax(1)); }},
      {"narrow_copy", [] { return r({3, 4}).narrow_copy(1, 1, 2); }},
      {"unique", [] { return std::get<0>(unique(r({5}))); }},
      {"_unique", [] { return std::get<0>(_unique(r({5}))); }},
      {"unique_dim", [] { return std::get<0>(unique(r({3, 2}), true, false, false, 0)); }},
      {"unique_consecutive", [] { return std::get<0>(unique_consecutive(r({5}))); }},
      {"unique_consecutive_dim",
       [] { return std::get<0>(unique_consecutive(r({2, 3}), false, false, 1)); }},
      {"unique_dim_consecutive", [] { return std::get<0>(unique_dim_consecutive(r({3, 2}), 0)); }},
      // shape_more.cc
      {"linalg_multi_dot", [] { return linalg_multi_dot({r({3}), r({3, 4}), r({4, 2}), r({2})}); }},
      {"linalg_multi_dot_mat", [] { return linalg_multi_dot({r({2, 3}), r({3, 4})}); }},
      // distributions.cc
      {"poisson", [] { return poisson(r({3}).exp()); }},
      // view_copy.cc
      {"as_strided_copy", [] { return as_strided_copy(r({3, 4}), {2, 2}, {1, 2}, 1); }},
      {"diagonal_copy", [] { return diagonal_copy(r({3, 4})); }},
      {"expand_copy", [] { return expand_copy(r({3, 1}), {3, 4}); }},
      {"permute_copy", [] { return permute_copy(r({3, 4}), {1, 0}); }},
      {"select_copy", [] { return select_copy(r({3, 4}), 0, 1); }},
      {"slice_copy", [] { return slice_copy(r({3, 4}), 1, 0, 3, 2); }},
      {"split_copy", [] { return split_copy(r({3, 4}), 2, 1)[1]; }},
      {"split_with_sizes_copy", [] { return split_with_sizes_copy(r({3, 4}), {1, 3}, 1)[0]; }},
      {"squeeze_copy", [] { return squeeze_copy(r({1, 4})); }},
      {"squeeze_copy_dim", [] { return squeeze_copy(r({1, 4}), 0); }},
      {"t_copy", [] { return t_copy(r({3, 4})); }},
      {"transpose_copy", [] { return transpose_copy(r({3, 4}), 0, 1); }},
      {"unbind_copy", [] { return unbind_copy(r({3, 4}), 1)[2]; }},
      {"unfold_copy", [] { return unfold_copy(r({3, 4}), 1, 2, 1); }},
      {"unsqueeze_copy", [] { return unsqueeze_copy(r({3, 4}), 0); }},
      {"view_copy", [] { return view_copy(r({3, 4}), {12}); }},
      {"alias_copy", [] { return alias_copy(r({3, 4})); }},
      {"rnn_tanh_cell",
       [] { return rnn_tanh_cell(r({3, 4}), r({3, 5}), r({5, 4}), r({5, 5}), r({5}), r({5})); }},
      {"rnn_relu_cell_nobias",
       [] { return rnn_relu_cell(r({3, 4}), r({3, 5}), r({5, 4}), r({5, 5})); }},
      {"gru_cell",
       [] { return gru_cell(r({3, 4}), r({3, 5}), r({15, 4}), r({15, 5}), r({15}), r({15})); }},
      {"lstm_cell_h",
       [] {
         return std::get<0>(lstm_cell(r({3, 4}), {r({3, 5}), r({3, 5})}, r({20, 4}), r({20, 5})));
       }},
      {"lstm_cell_c",
       [] {
         return std::get<1>(lstm_cell(r({3, 4}), {r({3, 5}), r({3, 5})}, r({20, 4}), r({20, 5})));
       }},
      {"rnn_tanh_output",
       [] {
         return std::get<0>(rnn_tanh(r({3, 2, 4}), r({1, 2, 5}), rnn_params(1, 4, 5), true, 1, 0.0,
                                     false, false, false));
       }},
      {"rnn_relu_h_n",
       [] {
         return std::get<1>(rnn_relu(r({3, 2, 4}), r({1, 2, 5}), rnn_params(1, 4, 5, 1, false),
                                     false, 1, 0.0, false, false, false));
       }},
      {"rnn_tanh_bidirectional_output",
       [] {
         return std::get<0>(rnn_tanh(r({3, 2, 4}), r({2, 2, 5}), rnn_params(1, 4, 5, 2), true, 1,
                                     0.0, false, true, false));
       }},
      {"gru_batch_first_output",
       [] {
         return std::get<0>(gru(r({2, 3, 4}), r({1, 2, 5}), rnn_params(3, 4, 5), true, 1, 0.0,
                                false, false, true));
       }},
      {"gru_h_n",
       [] {
         return std::get<1>(gru(r({3, 2, 4}), r({1, 2, 5}), rnn_params(3, 4, 5), true, 1, 0.0,
                                false, false, false));
       }},
      {"lstm_output",
       [] {
         return std::get<0>(lstm(r({3, 2, 4}), {r({1, 2, 5}), r({1, 2, 5})}, rnn_params(4, 4, 5),
                                 true, 1, 0.0, false, false, false));
       }},
      {"lstm_c_n",
       [] {
         return std::get<2>(lstm(r({3, 2, 4}), {r({1, 2, 5}), r({1, 2, 5})}, rnn_params(4, 4, 5),
                                 true, 1, 0.0, false, false, false));
       }},
      {"lstm_batch_first_output",
       [] {
         return std::get<0>(lstm(r({2, 3, 4}), {r({1, 2, 5}), r({1, 2, 5})}, rnn_params(4, 4, 5),
                                 true, 1, 0.0, false, false, true));
       }},
      {"lstm_proj_h_n",
       [] {
         return std::get<1>(lstm(r({3, 2, 4}), {r({1, 2, 3}), r({1, 2, 5})},
                                 rnn_params(4, 4, 5, 1, true, 3), true, 1, 0.0, false, false,
                                 false));
       }},
      {"gru_packed_output",
       [] {
         return std::get<0>(gru(r({4, 4}), lengths211(), r({1, 2, 5}), rnn_params(3, 4, 5), true, 1,
                                0.0, false, false));
       }},
      {"lstm_packed_h_n",
       [] {
         return std::get<1>(lstm(r({4, 4}), lengths211(), {r({1, 2, 5}), r({1, 2, 5})},
                                 rnn_params(4, 4, 5), true, 1, 0.0, false, false));
       }},
      {"rnn_relu_packed_bidirectional_output",
       [] {
         return std::get<0>(rnn_relu(r({4, 4}), lengths211(), r({2, 2, 5}), rnn_params(1, 4, 5, 2),
                                     true, 1, 0.0, false, true));
       }},
      {"upsample_nearest1d", [] { return upsample_nearest1d(r({2, 1, 3}), {5}); }},
      {"upsample_nearest1d_vec", [] { return upsample_nearest1d(r({2, 1, 3}), std::nullopt, std::vector<double>{1.5}); }},
      {"upsample_nearest1d_backward", [] { return grad_of([](const Tensor& x) { return upsample_nearest1d(x, {5}); }, r({2, 1, 3}), r({2, 1, 5})); }},
      {"upsample_nearest1d_backward_vec", [] { return grad_of([](const Tensor& x) { return upsample_nearest1d(x, UpsampleSize(std::vector<int64_t>{5}), std::nullopt); }, r({2, 1, 3}), r({2, 1, 5})); }},
      {"upsample_nearest2d", [] { return upsample_nearest2d(r({2, 1, 3, 3}), {5, 2}); }},
      {"upsample_nearest2d_vec", [] { return upsample_nearest2d(r({2, 1, 3, 3}), std::nullopt, std::vector<double>{1.5, 1.5}); }},
      {"upsample_nearest2d_backward", [] { return grad_of([](const Tensor& x) { return upsample_nearest2d(x, {5, 2}); }, r({2, 1, 3, 3}), r({2, 1, 5, 2})); }},
      {"upsample_nearest2d_backward_vec", [] { return grad_of([](const Tensor& x) { return upsample_nearest2d(x, UpsampleSize(std::vector<int64_t>{5, 2}), std::nullopt); }, r({2, 1, 3, 3}), r({2, 1, 5, 2})); }},
      {"upsample_nearest3d", [] { return upsample_nearest3d(r({2, 1, 3, 3, 3}), {5, 2, 4}); }},
      {"upsample_nearest3d_vec", [] { return upsample_nearest3d(r({2, 1, 3, 3, 3}), std::nullopt, std::vector<double>{1.5, 1.5, 1.5}); }},
      {"upsample_nearest3d_backward", [] { return grad_of([](const Tensor& x) { return upsample_nearest3d(x, {5, 2, 4}); }, r({2, 1, 3, 3, 3}), r({2, 1, 5, 2, 4})); }},
      {"upsample_nearest3d_backward_vec", [] { return grad_of([](const Tensor& x) { return upsample_nearest3d(x, UpsampleSize(std::vector<int64_t>{5, 2, 4}), std::nullopt); }, r({2, 1, 3, 3, 3}), r({2, 1, 5, 2, 4})); }},
      {"_upsample_nearest_exact1d", [] { return _upsample_nearest_exact1d(r({2, 1, 3}), {5}); }},
      {"_upsample_nearest_exact1d_vec", [] { return _upsample_nearest_exact1d(r({2, 1, 3}), std::nullopt, std::vector<double>{1.5}); }},
      {"_upsample_nearest_exact1d_backward", [] { return grad_of([](const Tensor& x) { return _upsample_nearest_exact1d(x, {5}); }, r({2, 1, 3}), r({2, 1, 5})); }},
      {"_upsample_nearest_exact1d_backward_vec", [] { return grad_of([](const Tensor& x) { return _upsample_nearest_exact1d(x, UpsampleSize(std::vector<int64_t>{5}), std::nullopt); }, r({2, 1, 3}), r({2, 1, 5})); }},
      {"_upsample_nearest_exact2d", [] { return _upsample_nearest_exact2d(r({2, 1, 3, 3}), {5, 2}); }},
      {"_upsample_nearest_exact2d_vec", [] { return _upsample_nearest_exact2d(r({2, 1, 3, 3}), std::nullopt, std::vector<double>{1.5, 1.5}); }},
      {"_upsample_nearest_exact2d_backward", [] { return grad_of([](const Tensor& x) { return _upsample_nearest_exact2d(x, {5, 2}); }, r({2, 1, 3, 3}), r({2, 1, 5, 2})); }},
      {"_upsample_nearest_exact2d_backward_vec", [] { return grad_of([](const Tensor& x) { return _upsample_nearest_exact2d(x, UpsampleSize(std::vector<int64_t>{5, 2}), std::nullopt); }, r({2, 1, 3, 3}), r({2, 1, 5, 2})); }},
      {"_upsample_nearest_exact3d", [] { return _upsample_nearest_exact3d(r({2, 1, 3, 3, 3}), {5, 2, 4}); }},
      {"_upsample_nearest_exact3d_vec", [] { return _upsample_nearest_exact3d(r({2, 1, 3, 3, 3}), std::nullopt, std::vector<double>{1.5, 1.5, 1.5}); }},
      {"_upsample_nearest_exact3d_backward", [] { return grad_of([](const Tensor& x) { return _upsample_nearest_exact3d(x, {5, 2, 4}); }, r({2, 1, 3, 3, 3}), r({2, 1, 5, 2, 4})); }},
      {"_upsample_nearest_exact3d_backward_vec", [] { return grad_of([](const Tensor& x) { return _upsample_nearest_exact3d(x, UpsampleSize(std::vector<int64_t>{5, 2, 4}), std::nullopt); }, r({2, 1, 3, 3, 3}), r({2, 1, 5, 2, 4})); }},
      {"upsample_linear1d", [] { return upsample_linear1d(r({2, 1, 3}), {5}, true); }},
      {"upsample_linear1d_vec", [] { return upsample_linear1d(r({2, 1, 3}), std::nullopt, true, std::vector<double>{1.5}); }},
      {"upsample_linear1d_backward", [] { return grad_of([](const Tensor& x) { return upsample_linear1d(x, {5}, true); }, r({2, 1, 3}), r({2, 1, 5})); }},
      {"upsample_linear1d_backward_vec", [] { return grad_of([](const Tensor& x) { return upsample_linear1d(x, UpsampleSize(std::vector<int64_t>{5}), true, std::nullopt); }, r({2, 1, 3}), r({2, 1, 5})); }},
      {"upsample_bilinear2d", [] { return upsample_bilinear2d(r({2, 1, 3, 3}), {5, 2}, false); }},
      {"upsample_bilinear2d_vec", [] { return upsample_bilinear2d(r({2, 1, 3, 3}), std::nullopt, false, std::vector<double>{1.5, 1.5}); }},
      {"upsample_bilinear2d_backward", [] { return grad_of([](const Tensor& x) { return upsample_bilinear2d(x, {5, 2}, false); }, r({2, 1, 3, 3}), r({2, 1, 5, 2})); }},
      {"upsample_bilinear2d_backward_vec", [] { return grad_of([](const Tensor& x) { return upsample_bilinear2d(x, UpsampleSize(std::vector<int64_t>{5, 2}), false, std::nullopt); }, r({2, 1, 3, 3}), r({2, 1, 5, 2})); }},
      {"upsample_bicubic2d", [] { return upsample_bicubic2d(r({2, 1, 3, 3}), {5, 2}, true); }},
      {"upsample_bicubic2d_vec", [] { return upsample_bicubic2d(r({2, 1, 3, 3}), std::nullopt, true, std::vector<double>{1.5, 1.5}); }},
      {"upsample_bicubic2d_backward", [] { return grad_of([](const Tensor& x) { return upsample_bicubic2d(x, {5, 2}, true); }, r({2, 1, 3, 3}), r({2, 1, 5, 2})); }},
      {"upsample_bicubic2d_backward_vec", [] { return grad_of([](const Tensor& x) { return upsample_bicubic2d(x, UpsampleSize(std::vector<int64_t>{5, 2}), true, std::nullopt); }, r({2, 1, 3, 3}), r({2, 1, 5, 2})); }},
      {"upsample_trilinear3d", [] { return upsample_trilinear3d(r({2, 1, 3, 3, 3}), {5, 2, 4}, false); }},
      {"upsample_trilinear3d_vec", [] { return upsample_trilinear3d(r({2, 1, 3, 3, 3}), std::nullopt, false, std::vector<double>{1.5, 1.5, 1.5}); }},
      {"upsample_trilinear3d_backward", [] { return grad_of([](const Tensor& x) { return upsample_trilinear3d(x, {5, 2, 4}, false); }, r({2, 1, 3, 3, 3}), r({2, 1, 5, 2, 4})); }},
      {"upsample_trilinear3d_backward_vec", [] { return grad_of([](const Tensor& x) { return upsample_trilinear3d(x, UpsampleSize(std::vector<int64_t>{5, 2, 4}), false, std::nullopt); }, r({2, 1, 3, 3, 3}), r({2, 1, 5, 2, 4})); }},
      {"F_unfold",
       [] { return F::unfold(r({2, 3, 5, 5}), F::UnfoldFuncOptions(2).padding(1).stride(2)); }},
      {"F_unfold_unbatched",
       [] { return F::unfold(r({3, 5, 5}), F::UnfoldFuncOptions({2, 3}).dilation({2, 1})); }},
      {"F_fold",
       [] { return F::fold(r({2, 12, 9}), F::FoldFuncOptions(5, 2).padding(1).stride(2)); }},
      {"F_fold_unbatched",
       [] { return F::fold(r({12, 9}), F::FoldFuncOptions(5, 2).padding(1).stride(2)); }},
      {"bilinear_bias", [] { return F::bilinear(r({2, 3}), r({2, 4}), r({5, 3, 4}), r({5})); }},
      {"bilinear_nobias_3d",
       [] { return F::bilinear(r({2, 2, 3}), r({2, 2, 4}), r({5, 3, 4})); }},
      {"_trilinear",
       [] { return _trilinear(r({2, 3}), r({5, 3, 4}), r({2, 4}), {1, 3}, {0}, {1, 2}, {2, 3}); }},
      // Note [Pooling nodes] (nn/functional/pooling_nd.cc).
      {"max_pool3d",
       [] {
         return F::max_pool3d(r({1, 2, 3, 4, 4}), F::MaxPool3dFuncOptions(2).stride(1));
       }},
      {"max_pool3d_unbatched",
       [] {
         return F::max_pool3d(r({2, 3, 4, 4}), F::MaxPool3dFuncOptions({2, 1, 2}));
       }},
      {"avg_pool3d",
       [] {
         return F::avg_pool3d(r({1, 2, 3, 4, 4}), F::AvgPool3dFuncOptions(2).stride(1).padding(1));
       }},
      {"avg_pool3d_unbatched",
       [] {
         return F::avg_pool3d(r({2, 3, 4, 4}), F::AvgPool3dFuncOptions(2).divisor_override(3));
       }},
      {"adaptive_avg_pool3d",
       [] {
         return F::adaptive_avg_pool3d(r({1, 2, 3, 4, 5}),
                                       F::AdaptiveAvgPool3dFuncOptions({2, 3, 2}));
       }},
      {"adaptive_avg_pool3d_unbatched",
       [] { return F::adaptive_avg_pool3d(r({2, 3, 4, 5}), F::AdaptiveAvgPool3dFuncOptions(2)); }},
      {"adaptive_avg_pool3d_1",
       [] {
         return F::adaptive_avg_pool3d(r({1, 2, 3, 4, 5}), F::AdaptiveAvgPool3dFuncOptions(1));
       }},
      {"adaptive_max_pool1d",
       [] { return F::adaptive_max_pool1d(r({2, 3, 7}), F::AdaptiveMaxPool1dFuncOptions(3)); }},
      {"adaptive_max_pool2d",
       [] {
         return F::adaptive_max_pool2d(r({1, 2, 5, 4}), F::AdaptiveMaxPool2dFuncOptions({3, 2}));
       }},
      {"adaptive_max_pool2d_channels_last",
       [] {
         return F::adaptive_max_pool2d(r({2, 5, 4, 3}).permute({0, 3, 1, 2}),
                                       F::AdaptiveMaxPool2dFuncOptions({2, 3}));
       }},
      {"adaptive_max_pool3d",
       [] {
         return F::adaptive_max_pool3d(r({1, 2, 3, 4, 5}),
                                       F::AdaptiveMaxPool3dFuncOptions({2, 3, 2}));
       }},
      {"adaptive_max_pool3d_unbatched",
       [] { return F::adaptive_max_pool3d(r({2, 3, 4, 5}), F::AdaptiveMaxPool3dFuncOptions(2)); }},
      {"cdist_batch", [] { return cdist(r({2, 3, 4}), r({5, 4})); }},
      {"cdist_p0", [] { return cdist(r({3, 4}), r({5, 4}), 0); }},
      {"cdist_empty", [] { return cdist(r({0, 4}), r({5, 4})); }},
      {"cdist_mm", [] { return cdist(r({30, 4}), r({5, 4})); }},
      {"cdist_mm_batch", [] { return cdist(r({2, 30, 4}), r({5, 4})); }},
      {"cdist_mm_mode", [] { return cdist(r({3, 4}), r({5, 4}), 2, 1); }},
      {"cdist_no_mm", [] { return cdist(r({30, 4}), r({5, 4}), 2, 2); }},
      {"pdist", [] { return pdist(r({4, 3})); }},
      {"pdist_one_row", [] { return pdist(r({1, 3})); }},
      {"pdist_transposed", [] { return pdist(r({3, 4}).t(), 1); }},
      {"conv3d",
       [] {
         return F::conv3d(r({1, 2, 4, 3, 3}), r({3, 2, 2, 2, 2}),
                          F::Conv3dFuncOptions().bias(r({3})).stride({2, 1, 1}));
       }},
      {"conv3d_groups_nobias",
       [] {
         return F::conv3d(r({1, 4, 3, 3, 3}), r({2, 2, 2, 1, 2}), F::Conv3dFuncOptions().groups(2));
       }},
      {"conv_transpose3d",
       [] {
         return F::conv_transpose3d(
             r({1, 2, 3, 2, 3}), r({2, 3, 2, 2, 2}),
             F::ConvTranspose3dFuncOptions().bias(r({3})).stride(2).output_padding(1));
       }},
      {"conv_transpose3d_groups_nobias",
       [] {
         return F::conv_transpose3d(r({1, 4, 2, 2, 2}), r({4, 1, 2, 2, 2}),
                                    F::ConvTranspose3dFuncOptions().groups(2).padding(1));
       }},
      {"embedding_bag_sum",
       [] {
         return F::embedding_bag(idx({1, 2, 4, 5, 4, 3, 2, 9}), r({10, 3}),
                                 F::EmbeddingBagFuncOptions().offsets(idx({0, 2, 2, 5})).mode(kSum));
       }},
      {"embedding_bag_mean",
       [] {
         return F::embedding_bag(
             idx({1, 2, 4, 5, 4, 3, 2, 9}), r({10, 3}),
             F::EmbeddingBagFuncOptions().offsets(idx({0, 2, 2, 5})).padding_idx(4));
       }},
      {"embedding_bag_max",
       [] {
         return F::embedding_bag(idx({1, 2, 4, 5, 4, 3, 2, 9}), r({10, 3}),
                                 F::EmbeddingBagFuncOptions().offsets(idx({0, 2, 2, 5})).mode(kMax));
       }},
      {"embedding_bag_2d",
       [] {
         return F::embedding_bag(idx({1, 2, 4, 5, 4, 3, 2, 9}).view({2, 4}), r({10, 3}),
                                 F::EmbeddingBagFuncOptions().mode(kMax));
       }},
      {"embedding_bag_per_sample_weights",
       [] {
         return F::embedding_bag(idx({1, 2, 4, 5, 4, 3, 2, 9}), r({10, 3}),
                                 F::EmbeddingBagFuncOptions()
                                     .offsets(idx({0, 2, 2, 5}))
                                     .mode(kSum)
                                     .per_sample_weights(r({8})));
       }},
      // Losses and activations (tools/golden/grad_fn_names.py says which).
      {"glu", [] { return F::glu(r({2, 4})); }},
      {"glu_dim0", [] { return F::glu(r({4, 3}), F::GLUFuncOptions(0)); }},
      {"multi_margin_loss", [] { return F::multi_margin_loss(r({2, 3}), idx({0, 2})); }},
      {"multi_margin_loss_p2_none_1d",
       [] {
         return F::multi_margin_loss(r({3}), tensor(int64_t{1}),
                                     F::MultiMarginLossFuncOptions().p(2).reduction(kNone));
       }},
      {"multilabel_margin_loss",
       [] {
         return F::multilabel_margin_loss(r({2, 3}), idx({0, -1, 1, 2, 1, -1}).view({2, 3}));
       }},
      {"rrelu_eval", [] { return F::rrelu(r({3})); }},
      {"rrelu_training", [] { return F::rrelu(r({3}), F::RReLUFuncOptions().training(true)); }},
      {"rrelu_inplace", [] { return F::rrelu(r({3}) * 1, F::RReLUFuncOptions().inplace(true)); }},
      {"rrelu_inplace_training",
       [] {
         return F::rrelu(r({3}) * 1, F::RReLUFuncOptions().training(true).inplace(true));
       }},
      {"pad_circular_1d",
       [] { return F::pad(r({1, 2, 5}), F::PadFuncOptions({1, 2}).mode(ember::kCircular)); }},
      {"pad_circular_2d_negative",
       [] {
         return F::pad(r({1, 1, 3, 4}), F::PadFuncOptions({-1, 2, 1, 0}).mode(ember::kCircular));
       }},
      {"pad_circular_3d",
       [] {
         return F::pad(r({1, 1, 2, 3, 3}),
                       F::PadFuncOptions({1, 1, 0, 1, 1, 0}).mode(ember::kCircular));
       }},
      {"pad_circular_zero",
       [] { return F::pad(r({1, 2, 3}), F::PadFuncOptions({0, 0}).mode(ember::kCircular)); }},
      {"cross_entropy_probs", [] { return F::cross_entropy(r({2, 3}), rand({2, 3})); }},
      {"cross_entropy_probs_none",
       [] {
         return F::cross_entropy(r({2, 3}), rand({2, 3}),
                                 F::CrossEntropyFuncOptions().reduction(kNone));
       }},
      {"cross_entropy_probs_sum_weight",
       [] {
         return F::cross_entropy(r({2, 3}), rand({2, 3}),
                                 F::CrossEntropyFuncOptions().weight(rand({3})).reduction(kSum));
       }},
      {"cross_entropy_probs_smoothing_1d",
       [] {
         return F::cross_entropy(r({3}), rand({3}),
                                 F::CrossEntropyFuncOptions().label_smoothing(0.2));
       }},
      {"cross_entropy_probs_empty", [] { return F::cross_entropy(r({0, 3}), rand({0, 3})); }},
      {"cross_entropy_3d",
       [] { return F::cross_entropy(r({2, 3, 4}), idx({0, 1, 2, 1, 2, 0, 0, 1}).view({2, 4})); }},
      {"cross_entropy_3d_smoothing_none",
       [] {
         return F::cross_entropy(
             r({2, 3, 4}), idx({0, 1, 2, 1, 2, 0, 0, 1}).view({2, 4}),
             F::CrossEntropyFuncOptions().reduction(kNone).label_smoothing(0.1));
       }},
      {"nll_loss_3d",
       [] { return F::nll_loss(r({2, 3, 4}), idx({0, 1, 2, 1, 2, 0, 0, 1}).view({2, 4})); }},
      {"nll_loss_3d_none",
       [] {
         return F::nll_loss(r({2, 3, 4}), idx({0, 1, 2, 1, 2, 0, 0, 1}).view({2, 4}),
                            F::NLLLossFuncOptions().reduction(kNone));
       }},
      {"nll_loss_3d_transposed",
       [] {
         return F::nll_loss(r({2, 4, 3}).transpose(1, 2),
                            idx({0, 1, 2, 1, 2, 0, 0, 1}).view({2, 4}));
       }},
      {"nll_loss_5d_none",
       [] {
         return F::nll_loss(r({1, 3, 2, 1, 2}), idx({0, 1, 2, 1}).view({1, 2, 1, 2}),
                            F::NLLLossFuncOptions().reduction(kNone));
       }},
      {"glu_backward",
       [] { return grad_of([](const Tensor& x) { return F::glu(x); }, r({2, 4}), r({2, 2})); }},
      {"multi_margin_loss_backward",
       [] {
         return grad_of([](const Tensor& x) { return F::multi_margin_loss(x, idx({0, 2})); },
                        r({2, 3}), r({}));
       }},
      {"rrelu_backward",
       [] { return grad_of([](const Tensor& x) { return F::rrelu(x); }, r({3}), r({3})); }},
      {"kl_div_batchmean",
       [] {
         return F::kl_div(r({2, 3}), rand({2, 3}), F::KLDivFuncOptions().reduction(kBatchMean));
       }},
      {"multilabel_soft_margin_loss",
       [] {
         const Tensor t = tensor({0.0f, 1.0f, 1.0f, 1.0f, 0.0f, 0.0f}).view({2, 3});
         return F::multilabel_soft_margin_loss(r({2, 3}), t);
       }},
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

// The golden covers the whole derivative table: a new entry needs a case
// here and in tools/golden/grad_fn_names.py, or a reason there.
TEST(GradFnNames, EveryRegisteredNodeHasACase) {
  // No PyTorch 1.13 counterpart (the script says why).
  const std::set<std::string> kLeftOut = {"_scaled_dot_product_flash_attention"};
  std::set<std::string> golden;
  for (const Case& c : kCases) {
    for (absl::string_view n : absl::StrSplit(c.chain, " <- ")) golden.emplace(n);
  }
  for (const std::string& op : autograd::registered_derivatives()) {
    if (kLeftOut.count(op)) continue;
    EXPECT_TRUE(golden.count(autograd::find_derivative(op)->node_name))
        << "no grad_fn case records " << autograd::find_derivative(op)->node_name << " ('" << op
        << "')";
  }
}

}  // namespace
}  // namespace ember
