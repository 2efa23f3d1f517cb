// The registry-driven gradient test: every case is checked against central
// finite differences in float64 (first and, where marked, second order:
// gradgradcheck, which differentiates the incoming gradients too),
// with contiguous, non-contiguous (transposed) and broadcast inputs. Every
// entry of the derivative table (autograd/derivatives/*.cc) needs at least
// one case here: EveryRegisteredDerivativeHasACase fails otherwise.
#include <limits>
#include <set>

#include "autograd/autograd.h"
#include "autograd/derivatives.h"
#include "gtest/gtest.h"
#include "nn/functional/activation.h"
#include "nn/functional/aten.h"
#include "nn/functional/conv.h"
#include "nn/functional/embedding.h"
#include "nn/functional/loss.h"
#include "nn/functional/normalization.h"
#include "nn/functional/padding.h"
#include "nn/functional/pooling.h"
#include "tensor/all.h"
#include "tensor/attention.h"
#include "tensor/ctc_loss.h"
#include "tensor/distributions.h"
#include "tensor/im2col.h"
#include "tensor/trilinear.h"
#include "tensor/pixel_shuffle.h"
#include "tensor/upsample.h"

namespace ember {
namespace {

namespace F = nn::functional;

using autograd::variable_list;

struct Case {
  const char* op;  // the derivative-table entry it exercises
  std::function<variable_list(const variable_list&)> fn;
  std::function<variable_list()> inputs;
  bool second_order = true;
  double eps = 1e-6, atol = 1e-5;
};

Tensor leaf(Tensor t) { return t.to(kDouble).requires_grad_(); }
Tensor r(IntArrayRef s) { return randn(s, kDouble); }
// A non-contiguous leaf: the transpose of a [n, m] tensor.
Tensor rt(int64_t m, int64_t n) { return leaf(r({n, m})).t(); }
Tensor pos(IntArrayRef s) { return leaf(rand(s, kDouble) + 0.5); }
Tensor dleaf(std::vector<double> v) { return leaf(tensor(v)); }
Tensor longs(std::vector<int64_t> v) { return tensor(v); }
// n I + noise: invertible, det > 0, far from singular.
Tensor wellcond(IntArrayRef s) {
  return leaf(r(s) * 0.3 + static_cast<double>(s.back()) * eye(s.back(), kDouble));
}
Tensor mask23() { return tensor({true, false, true, false, false, true}).view({2, 3}); }

// The vector-Jacobian product of f at x[0] with the vector x[1], kept
// differentiable. Its check differentiates the backward formula with
// respect to the incoming gradient, which is what the *_backward entries
// (the backward's own recorded ops) are for.
std::function<variable_list(const variable_list&)> vjp_of(std::function<Tensor(const Tensor&)> f) {
  return [f](const variable_list& x) {
    EnableGradGuard enable;  // finite differences call this under no_grad
    Tensor y = f(x[0]);
    return variable_list{autograd::grad({y}, {x[0]}, {x[1]}, true, true, true)[0]};
  };
}

// y = x * 1 filled in place by `fill` (seeded), plus x: the fill's
// gradient is zero, x's one.
std::function<variable_list(const variable_list&)> random_fill(void (*fill)(Tensor&)) {
  return [fill](const variable_list& x) {
    manual_seed(7);
    Tensor y = x[0] * 1;
    fill(y);
    return variable_list{y * y + x[0]};
  };
}

// A node PyTorch records without a derivative: `f`'s result requires grad
// and backward through it raises PyTorch's message; what is gradchecked is
// only the pass-through of x[0].
Case refused(const char* op, std::function<Tensor(const Tensor&)> f,
             std::function<variable_list()> inputs, std::string message = "") {
  if (message.empty()) message = std::string("the derivative for '") + op + "' is not implemented.";
  auto fn = [op, f, message](const variable_list& x) {
    EnableGradGuard enable;
    const Tensor y = f(x[0].detach().requires_grad_());
    EXPECT_TRUE(y.requires_grad()) << op;
    std::string msg;
    try {
      y.sum().backward();
    } catch (const Error& e) {
      msg = e.what();
    }
    EXPECT_EQ(msg, message);
    return variable_list{x[0] * 1};
  };
  return {op, fn, std::move(inputs)};
}

// tensor/upsample.h: each op, its .vec overload and both backwards, on
// fixed inputs (they draw nothing), upsampling and downsampling.
void add_upsample_cases(std::vector<Case>& all) {
  using V = variable_list;
  using detail::UpsampleMode;
  struct Op {
    const char* name;
    UpsampleMode mode;
    int64_t dims;
  };
  static const Op kOps[] = {{"upsample_nearest1d", UpsampleMode::kNearest, 1},
                            {"upsample_nearest2d", UpsampleMode::kNearest, 2},
                            {"upsample_nearest3d", UpsampleMode::kNearest, 3},
                            {"_upsample_nearest_exact1d", UpsampleMode::kNearestExact, 1},
                            {"_upsample_nearest_exact2d", UpsampleMode::kNearestExact, 2},
                            {"_upsample_nearest_exact3d", UpsampleMode::kNearestExact, 3},
                            {"upsample_linear1d", UpsampleMode::kLinear, 1},
                            {"upsample_bilinear2d", UpsampleMode::kLinear, 2},
                            {"upsample_bicubic2d", UpsampleMode::kCubic, 2},
                            {"upsample_trilinear3d", UpsampleMode::kLinear, 3}};
  static std::vector<std::string> names;  // Case keeps a const char*
  names.reserve(4 * std::size(kOps));
  for (const Op& o : kOps) {
    // Input spatial size 3 (4 in 1-d) to 5, 2 and 3 per dim.
    DimVector in = {2, 1}, out, down;
    const int64_t up_sizes[] = {5, 2, 4};
    for (int64_t i = 0; i < o.dims; ++i) {
      in.push_back(o.dims == 1 ? 4 : 3);
      out.push_back(up_sizes[i]);
    }
    auto input = [in] {
      const int64_t n = compute_numel(in);
      return V{leaf((arange(n, kDouble) * 0.7).sin().view(in))};
    };
    for (bool vec : {false, true}) {
      detail::UpsampleOp op;
      op.mode = o.mode;
      op.dims = o.dims;
      op.vec = vec;
      op.align_corners = o.mode == UpsampleMode::kLinear;  // both settings are exercised
      op.scales.assign(o.dims, std::nullopt);
      if (vec) op.scales[0] = 1.6;
      names.push_back(std::string(o.name) + (vec ? ".vec" : ""));
      all.push_back({names.back().c_str(),
                     [op, out](const V& x) { return V{detail::upsample(x[0], op, out)}; }, input});
      DimVector grad_sizes = {2, 1};
      grad_sizes.insert(grad_sizes.end(), out.begin(), out.end());
      names.push_back(std::string(o.name) + "_backward" + (vec ? ".vec" : ""));
      all.push_back(
          {names.back().c_str(),
           [op, out, in](const V& x) { return V{detail::upsample_backward(x[0], op, out, in)}; },
           [grad_sizes] {
             const int64_t n = compute_numel(grad_sizes);
             return V{leaf((arange(n, kDouble) * 0.3).cos().view(grad_sizes))};
           }});
    }
  }
}

std::vector<Case> cases() {
  using V = variable_list;
  auto un = [](Tensor (*f)(const Tensor&)) {
    return [f](const V& x) { return V{f(x[0])}; };
  };
  std::vector<Case> all = {
      {"add", [](const V& x) { return V{x[0].add(x[1], 2.5)}; },
       [] {
         return V{leaf(r({2, 3})), leaf(r({3}))};
       }},
      {"sub", [](const V& x) { return V{x[0] - x[1]}; },
       [] {
         return V{rt(2, 3), leaf(r({2, 1}))};
       }},
      {"mul", [](const V& x) { return V{x[0] * x[1]}; },
       [] {
         return V{rt(2, 3), leaf(r({3}))};
       }},
      {"div", [](const V& x) { return V{x[0] / x[1]}; },
       [] {
         return V{leaf(r({2, 3})), pos({3})};
       }},
      {"neg", un(&neg), [] { return V{rt(2, 3)}; }},
      {"abs", un(&abs), [] { return V{pos({4})}; }},
      {"sqrt", un(&sqrt),
       [] {
         return V{pos({2, 3})};
       }},
      {"rsqrt", un(&rsqrt), [] { return V{pos({3})}; }},
      {"exp", un(&exp), [] { return V{rt(2, 3)}; }},
      {"exp2", un(&exp2), [] { return V{leaf(r({3}))}; }},
      {"expm1", un(&expm1), [] { return V{leaf(r({3}))}; }},
      {"log", un(&log), [] { return V{pos({3})}; }},
      {"log2", un(&log2), [] { return V{pos({3})}; }},
      {"log10", un(&log10), [] { return V{pos({3})}; }},
      {"log1p", un(&log1p), [] { return V{pos({3})}; }},
      {"sin", un(&sin), [] { return V{rt(2, 2)}; }},
      {"cos", un(&cos), [] { return V{leaf(r({3}))}; }},
      {"tan", un(&tan), [] { return V{leaf(rand({3}, kDouble) - 0.5)}; }},
      {"asin", un(&asin), [] { return V{leaf(rand({3}, kDouble) - 0.5)}; }},
      {"asinh", un(&asinh), [] { return V{leaf(r({3}))}; }},
      {"acosh", un(&acosh), [] { return V{leaf(rand({3}, kDouble) + 1.5)}; }},
      {"atanh", un(&atanh), [] { return V{leaf(rand({3}, kDouble) - 0.5)}; }},
      {"erfc", un(&erfc), [] { return V{leaf(r({3}))}; }},
      // tensor/special.h
      {"erfinv", un(&erfinv), [] { return V{leaf(rand({3}, kDouble) * 1.6 - 0.8)}; }},
      {"lgamma", un(&lgamma), [] { return V{pos({3})}; }},
      {"digamma", un(&digamma), [] { return V{leaf(r({3}) * 0.3 - 1.5)}; }},
      {"polygamma",
       [](const V& x) {
         return V{polygamma(2, x[0]), polygamma(1, x[0])};
       },
       [] { return V{pos({3})}; }},
      {"i0", un(&i0), [] { return V{leaf(r({3}) * 3)}; }},
      {"special_i1", un(&special_i1),
       [] {
         return V{leaf(tensor({-2.5, 0.0, 1.25, 35.0}))};
       }},
      {"sinc", un(&sinc),
       [] {
         return V{leaf(tensor({-1.3, 0.4, 2.2}))};
       }},
      {"copysign", [](const V& x) { return V{copysign(x[0], x[1])}; },
       [] {
         return V{leaf(r({2, 3})), leaf(r({3}))};
       }},
      {"copysign_scalar", [](const V& x) { return V{copysign(x[0], -1.5)}; },
       [] { return V{rt(2, 3)}; }},
      {"hypot", [](const V& x) { return V{hypot(x[0], x[1])}; },
       [] {
         return V{leaf(r({2, 3})), pos({3})};
       }},
      {"acos", un(&acos), [] { return V{leaf(rand({3}, kDouble) - 0.5)}; }},
      {"atan", un(&atan), [] { return V{leaf(r({3}))}; }},
      {"sinh", un(&sinh), [] { return V{leaf(r({3}))}; }},
      {"cosh", un(&cosh), [] { return V{leaf(r({3}))}; }},
      {"tanh", un(&tanh), [] { return V{rt(3, 2)}; }},
      {"sigmoid", un(&sigmoid), [] { return V{leaf(r({3}))}; }},
      {"erf", un(&erf), [] { return V{leaf(r({3}))}; }},
      {"reciprocal", un(&reciprocal), [] { return V{pos({3})}; }},
      {"pow", [](const V& x) { return V{x[0].pow(3)}; }, [] { return V{rt(2, 3)}; }},
      {"pow_tensor", [](const V& x) { return V{x[0].pow(x[1])}; },
       [] {
         return V{pos({2, 3}), leaf(r({3}))};
       }},
      {"pow_scalar_self",
       [](const V& x) {
         return V{pow(2.5, x[0]), float_power(0.5, x[0])};
       },
       [] {
         return V{leaf(tensor({-1.0, 0.5, 2.0}, kDouble))};  // fixed: draws nothing
       }},
      {"clamp", [](const V& x) { return V{x[0].clamp(-0.5, 0.5)}; },
       [] {
         return V{leaf(tensor({-1.0, -0.2, 0.3, 0.9}))};
       },
       false},
      {"clamp_min", [](const V& x) { return V{x[0].clamp_min(-0.5)}; },
       [] {
         return V{leaf(tensor({-1.0, -0.2, 0.3, 0.9}))};
       },
       false},
      {"clamp_max", [](const V& x) { return V{x[0].clamp_max(0.5)}; },
       [] {
         return V{leaf(tensor({-1.0, -0.2, 0.3, 0.9}))};
       },
       false},
      {"maximum", [](const V& x) { return V{maximum(x[0], x[1])}; },
       [] {
         return V{leaf(tensor({1.0, -2.0, 3.0})), leaf(tensor({0.0, 1.0, 5.0}))};
       },
       false},
      {"minimum", [](const V& x) { return V{minimum(x[0], x[1])}; },
       [] {
         return V{leaf(tensor({1.0, -2.0, 3.0})), leaf(tensor({0.0, 1.0, 5.0}))};
       },
       false},
      {"atan2", [](const V& x) { return V{atan2(x[0], x[1])}; },
       [] {
         return V{leaf(r({3})), pos({3})};
       }},
      {"addcmul", [](const V& x) { return V{addcmul(x[0], x[1], x[2], 0.5)}; },
       [] {
         return V{leaf(r({3})), leaf(r({2, 3})), leaf(r({3}))};
       }},
      {"addcdiv", [](const V& x) { return V{addcdiv(x[0], x[1], x[2], 0.5)}; },
       [] {
         return V{leaf(r({3})), leaf(r({2, 3})), pos({3})};
       }},
      // Through float32 the finite differences need a larger step.
      {"to", [](const V& x) { return V{x[0].to(kFloat).to(kDouble) * 1}; },
       [] {
         return V{leaf(tensor({0.5, 0.25}))};
       },
       true, 1e-3, 1e-3},
      {"clone", [](const V& x) { return V{x[0].clone()}; }, [] { return V{rt(2, 3)}; }},
      {"sum_all", [](const V& x) { return V{x[0].sum()}; }, [] { return V{rt(2, 3)}; }},
      {"sum", [](const V& x) { return V{x[0].sum({1}, true)}; }, [] { return V{rt(2, 3)}; }},
      {"mean_all", [](const V& x) { return V{x[0].mean()}; }, [] { return V{rt(2, 3)}; }},
      {"mean", [](const V& x) { return V{x[0].mean({0})}; }, [] { return V{rt(2, 3)}; }},
      {"prod", [](const V& x) { return V{x[0].prod(1)}; },
       [] {
         return V{leaf(r({2, 3}))};
       }},
      {"max_all", [](const V& x) { return V{x[0].max()}; }, [] { return V{leaf(r({5}))}; }},
      {"min_all", [](const V& x) { return V{x[0].min()}; }, [] { return V{leaf(r({5}))}; }},
      {"max_dim", [](const V& x) { return V{std::get<0>(x[0].max(1))}; },
       [] { return V{rt(3, 4)}; }},
      {"min_dim", [](const V& x) { return V{std::get<0>(x[0].min(0, true))}; },
       [] { return V{rt(3, 4)}; }},
      {"amax", [](const V& x) { return V{x[0].amax({1})}; },
       [] {
         return V{leaf(r({3, 4}))};
       }},
      {"amin", [](const V& x) { return V{x[0].amin({0}, true)}; },
       [] {
         return V{leaf(r({3, 4}))};
       }},
      {"var", [](const V& x) { return V{x[0].var({1})}; }, [] { return V{rt(3, 4)}; }},
      {"std", [](const V& x) { return V{x[0].std()}; }, [] { return V{leaf(r({5}))}; }},
      {"norm",
       [](const V& x) {
         return V{x[0].norm(2, {1}), x[0].norm(3), x[0].norm(1)};
       },
       [] {
         return V{leaf(r({2, 3}))};
       }},
      {"logsumexp", [](const V& x) { return V{x[0].logsumexp({1})}; }, [] { return V{rt(3, 2)}; }},
      {"softmax", [](const V& x) { return V{x[0].softmax(1)}; }, [] { return V{rt(3, 2)}; }},
      {"log_softmax", [](const V& x) { return V{x[0].log_softmax(0)}; },
       [] { return V{rt(3, 2)}; }},
      {"cumsum", [](const V& x) { return V{x[0].cumsum(1)}; }, [] { return V{rt(3, 2)}; }},
      {"mm", [](const V& x) { return V{x[0].mm(x[1])}; },
       [] {
         return V{rt(2, 3), leaf(r({3, 2}))};
       }},
      {"bmm", [](const V& x) { return V{x[0].bmm(x[1])}; },
       [] {
         return V{leaf(r({2, 2, 3})), leaf(r({2, 3, 2}))};
       }},
      {"mv", [](const V& x) { return V{x[0].mv(x[1])}; },
       [] {
         return V{rt(2, 3), leaf(r({3}))};
       }},
      {"dot", [](const V& x) { return V{x[0].dot(x[1])}; },
       [] {
         return V{leaf(r({3})), leaf(r({3}))};
       }},
      // outer is a composite: a reshape times vec2.
      {"mul", [](const V& x) { return V{x[0].outer(x[1])}; },
       [] {
         return V{leaf(r({3})), leaf(r({2}))};
       }},
      {"addmm", [](const V& x) { return V{addmm(x[0], x[1], x[2], 0.5, 2)}; },
       [] {
         return V{leaf(r({2})), rt(2, 3), leaf(r({3, 2}))};
       }},
      // matmul's batched and folded products end in an unsafe_view (Note
      // [matmul is a composite]): broadcast batches, 3-D @ 1-D / 2-D, 1-D /
      // 2-D @ 3-D.
      {"unsafe_view",
       [](const V& x) {
         return V{x[0].matmul(x[1]), x[1].matmul(x[2]), x[3].matmul(x[1]),
                  x[1].matmul(x[4]), x[5].matmul(x[1])};
       },
       [] {
         return V{leaf(r({2, 1, 2, 3})), leaf(r({3, 3, 2})), leaf(r({2})), leaf(r({3})),
                  leaf(r({2, 4})), leaf(r({2, 3}))};
       }},
      {"view",
       [](const V& x) {
         return V{x[0].view({3, 2}), x[0].reshape({6})};
       },
       [] {
         return V{leaf(r({2, 3}))};
       }},
      {"squeeze", [](const V& x) { return V{x[0].squeeze() * 2}; },
       [] {
         return V{leaf(r({1, 3, 1}))};
       }},
      {"squeeze_dim", [](const V& x) { return V{x[0].squeeze(0) * 2}; },
       [] {
         return V{leaf(r({1, 3}))};
       }},
      {"unsqueeze", [](const V& x) { return V{x[0].unsqueeze(1) * 2}; },
       [] { return V{rt(2, 3)}; }},
      {"expand",
       [](const V& x) {
         return V{x[0].expand({2, 2, 3}) * 2};
       },
       [] {
         return V{leaf(r({2, 1, 3}))};
       }},
      {"transpose", [](const V& x) { return V{x[0].transpose(0, 2) * 2}; },
       [] {
         return V{leaf(r({2, 3, 2}))};
       }},
      {"permute",
       [](const V& x) {
         return V{x[0].permute({2, 0, 1}) * 2, x[0].permute({-1, 0, -2})};  // dims as given
       },
       [] {
         return V{leaf(r({2, 3, 2}))};
       }},
      {"select", [](const V& x) { return V{x[0].select(1, -1) * 2}; }, [] { return V{rt(3, 2)}; }},
      {"slice",
       [](const V& x) {
         return V{x[0].slice(1, 1, 5, 2) * 2, x[0].narrow(0, 1, 1) * 3};
       },
       [] {
         return V{leaf(r({2, 5}))};
       }},
      {"diagonal", [](const V& x) { return V{x[0].diagonal(1) * 2}; },
       [] {
         return V{leaf(r({3, 3}))};
       }},
      {"reshape_alias",
       [](const V& x) {
         return V{x[0].reshape({3, 2}), x[0].flatten()};
       },
       [] {
         return V{leaf(r({2, 3}))};
       }},
      {"unsafe_view", [](const V& x) { return V{x[0].reshape({6})}; }, [] { return V{rt(2, 3)}; }},
      {"alias", [](const V& x) { return V{x[0].index({"..."}) * 2}; }, [] { return V{rt(2, 3)}; }},
      {"t",
       [](const V& x) {
         return V{x[0].t() * 2, x[1].t() * 3};
       },
       [] {
         return V{rt(2, 3), leaf(r({3}))};
       }},
      {"split", [](const V& x) { return x[0].split(2, 1); }, [] { return V{rt(2, 5)}; }},
      {"split", [](const V& x) { return V{x[0].chunk(3, 0)[1] * 2}; }, [] { return V{rt(3, 2)}; }},
      {"split_with_sizes",
       [](const V& x) {
         return x[0].split_with_sizes({1, 3}, 1);
       },
       [] { return V{rt(2, 4)}; }},
      {"unbind",
       [](const V& x) {
         std::vector<Tensor> p = x[0].unbind(1);
         return V{p[0] * p[2], p[1]};
       },
       [] { return V{rt(2, 3)}; }},
      {"rsub",
       [](const V& x) {
         return V{2.5 - x[0], rsub(x[0], 1.5, 3)};
       },
       [] { return V{rt(2, 3)}; }},
      {"div_rounding",
       [](const V& x) {
         return V{x[0].div(x[1], "floor"), x[0].div(0.7, "trunc")};
       },
       [] {
         return V{leaf(tensor({{0.3, 1.7, -0.4}, {2.2, -1.3, 0.5}})), dleaf({0.7, 0.9, 1.1})};
       }},
      // --- piecewise-constant and piecewise-linear ops (away from kinks) ---
      {"floor", un(&floor),
       [] {
         return V{dleaf({0.3, 1.6, -2.2})};
       }},
      {"ceil", un(&ceil),
       [] {
         return V{dleaf({0.3, 1.6, -2.2})};
       }},
      {"round", un(&round),
       [] {
         return V{dleaf({0.3, 1.6, -2.2})};
       }},
      {"round_decimals", [](const V& x) { return V{x[0].round(1)}; },
       [] {
         return V{dleaf({0.33, 1.62, -2.27})};
       }},
      {"trunc", un(&trunc),
       [] {
         return V{dleaf({0.3, 1.6, -2.2})};
       }},
      {"sign", un(&sign),
       [] {
         return V{dleaf({0.3, 1.6, -2.2})};
       }},
      {"frac", un(&frac),
       [] {
         return V{dleaf({0.3, 1.6, -2.2})};
       }},
      {"relu", un(&relu),
       [] {
         return V{dleaf({0.3, -1.6, 2.2})};
       }},
      {"remainder", [](const V& x) { return V{x[0].remainder(x[1])}; },
       [] {
         return V{leaf(tensor({{0.3, 1.7, -0.4}, {2.2, -1.3, 0.5}})), dleaf({0.7, 0.9, 1.1})};
       }},
      {"remainder_scalar", [](const V& x) { return V{x[0].remainder(0.7)}; },
       [] {
         return V{dleaf({0.3, 1.6, -0.5})};
       }},
      {"fmod", [](const V& x) { return V{x[0].fmod(x[1])}; },
       [] {
         return V{leaf(tensor({{0.3, 1.7, -0.4}, {2.2, -1.3, 0.5}})), dleaf({0.7, 0.9, 1.1})};
       }},
      {"fmod_scalar", [](const V& x) { return V{x[0].fmod(0.7)}; },
       [] {
         return V{dleaf({0.3, 1.6, -0.5})};
       }},
      {"fmax", [](const V& x) { return V{fmax(x[0], x[1])}; },
       [] {
         return V{dleaf({1.0, -2.0, 3.0}), leaf(tensor({{0.0, 1.0, 5.0}, {2.0, -3.0, 0.0}}))};
       }},
      {"fmin", [](const V& x) { return V{fmin(x[0], x[1])}; },
       [] {
         return V{dleaf({1.0, -2.0, 3.0}), leaf(tensor({{0.0, 1.0, 5.0}, {2.0, -3.0, 0.0}}))};
       }},
      {"clamp_tensor",
       [](const V& x) {
         return V{x[0].clamp(x[1], x[2]), x[0].clamp(x[1], Tensor())};
       },
       [] {
         return V{leaf(tensor({{-1.0, 0.2, 0.9}, {2.0, -0.1, 0.4}})), dleaf({-0.5, 0.0, 0.5}),
                  dleaf({0.5, 1.0, 0.1})};
       }},
      {"lerp", [](const V& x) { return V{x[0].lerp(x[1], 0.3)}; },
       [] {
         return V{rt(2, 3), leaf(r({3}))};
       }},
      {"where", [](const V& x) { return V{where(mask23(), x[0], x[1])}; },
       [] {
         return V{rt(2, 3), leaf(r({3}))};
       }},
      {"masked_fill", [](const V& x) { return V{x[0].masked_fill(mask23(), 2.0)}; },
       [] { return V{rt(2, 3)}; }},
      {"masked_fill_tensor",
       [](const V& x) {
         Tensor y = x[0] * 1;
         y.masked_fill_(mask23(), x[1]);
         return V{x[0].masked_fill(mask23(), x[1]), y};
       },
       [] {
         return V{rt(2, 3), leaf(tensor(0.5))};
       }},
      // --- in-place writes ---
      {"copy_",
       [](const V& x) {
         Tensor y = x[0] * 1;
         y.copy_(x[1]);
         return V{y};
       },
       [] {
         return V{rt(2, 3), leaf(r({3}))};
       }},
      {"fill_",
       [](const V& x) {
         Tensor y = x[0] * 1;
         y.fill_(1.5);
         return V{y + x[0]};
       },
       [] { return V{rt(2, 3)}; }},
      {"fill_tensor_",
       [](const V& x) {
         Tensor y = x[0] * 1;
         y.fill_(x[1]);
         return V{y};
       },
       [] {
         return V{rt(2, 3), leaf(tensor(0.5))};
       }},
      {"zero_",
       [](const V& x) {
         Tensor y = x[0] * 1;
         y.zero_();
         return V{y + x[0]};
       },
       [] { return V{rt(2, 3)}; }},
      // Random fills: seeded, so that every evaluation draws the same.
      {"uniform_", random_fill([](Tensor& y) { y.uniform_(-1, 2); }), [] { return V{rt(2, 3)}; }},
      {"normal_", random_fill([](Tensor& y) { y.normal_(1, 2); }), [] { return V{rt(2, 3)}; }},
      {"bernoulli_", random_fill([](Tensor& y) { y.bernoulli_(0.5); }), [] { return V{rt(2, 3)}; }},
      {"random_", random_fill([](Tensor& y) { y.random_(0, 5); }), [] { return V{rt(2, 3)}; }},
      {"exponential_", random_fill([](Tensor& y) { y.exponential_(2); }),
       [] { return V{rt(2, 3)}; }},
      {"cauchy_", random_fill([](Tensor& y) { y.cauchy_(0.5, 2); }), [] { return V{rt(2, 3)}; }},
      {"log_normal_", random_fill([](Tensor& y) { y.log_normal_(); }), [] { return V{rt(2, 3)}; }},
      {"geometric_", random_fill([](Tensor& y) { y.geometric_(0.3); }), [] { return V{rt(2, 3)}; }},
      {"native_dropout",
       [](const V& x) {
         manual_seed(7);
         return V{std::get<0>(native_dropout(x[0], 0.4, true)),
                  std::get<0>(native_dropout(x[0], 0.4, false))};
       },
       [] { return V{rt(3, 4)}; }},
      {"native_dropout_backward",
       [](const V& x) {
         const Tensor mask = tensor({true, false, true, true, false, true}).reshape({2, 3});
         return V{native_dropout_backward(x[0], mask, 2.5)};
       },
       [] { return V{rt(2, 3)}; }},
      {"index_put",
       [](const V& x) {
         Tensor y = x[0] * 1, z = x[0] * 1;
         index_put_(y, {longs({2, 0})}, x[1]);
         index_put_(z, {Tensor(), longs({1, 1, 0})}, x[1].t(), /*accumulate=*/true);
         return V{y, z};
       },
       [] {
         return V{rt(3, 3), leaf(r({3}))};
       }},
      {"index_add",
       [](const V& x) {
         Tensor y = x[0] * 1;
         y.index_add_(1, longs({2, 0, 2}), x[1], 2.0);
         return V{y};
       },
       [] {
         return V{rt(2, 3), leaf(r({2, 3}))};
       }},
      {"index_fill",
       [](const V& x) {
         Tensor y = x[0] * 1;
         y.index_fill_(1, longs({2, 0}), 0.5);
         return V{y};
       },
       [] { return V{rt(2, 3)}; }},
      {"index_copy",
       [](const V& x) {
         Tensor y = x[0] * 1;
         y.index_copy_(0, longs({2, 0}), x[1]);
         return V{y};
       },
       [] {
         return V{rt(3, 2), leaf(r({2, 2}))};
       }},
      {"masked_scatter",
       [](const V& x) {
         Tensor y = x[0] * 1;
         y.masked_scatter_(mask23(), x[1]);
         return V{y};
       },
       [] {
         return V{rt(2, 3), leaf(r({2, 2}))};
       }},
      // --- joins, gathers, scatters, selections ---
      {"cat",
       [](const V& x) {
         return V{cat({x[0], x[1]}, 1), cat({x[1], x[0]}, -1)};
       },
       [] {
         return V{rt(2, 3), leaf(r({2, 2}))};
       }},
      {"stack",
       [](const V& x) {
         return V{stack({x[0], x[1]}, 1)};
       },
       [] {
         return V{rt(2, 3), leaf(r({2, 3}))};
       }},
      {"index",
       [](const V& x) {
         return V{x[0].index({indexing::Slice(), longs({2, 0, 2})}), x[0].index({mask23()}),
                  index(x[0], {Tensor(), longs({1, 0})})};
       },
       [] { return V{rt(2, 3)}; }},
      {"index_select",
       [](const V& x) {
         return V{x[0].index_select(1, longs({2, 0, 2}))};
       },
       [] { return V{rt(2, 3)}; }},
      {"masked_select",
       [](const V& x) {
         return V{x[0].masked_select(tensor({true, false, true}))};
       },
       [] { return V{rt(2, 3)}; }},
      {"gather",
       [](const V& x) {
         return V{x[0].gather(1, longs({0, 2, 2, 1}).view({2, 2}))};
       },
       [] { return V{rt(2, 3)}; }},
      {"scatter",
       [](const V& x) {
         return V{x[0].scatter(1, longs({0, 2, 1, 0}).view({2, 2}), x[1])};
       },
       [] {
         return V{rt(2, 3), leaf(r({2, 2}))};
       }},
      {"scatter_value",
       [](const V& x) {
         return V{x[0].scatter(1, longs({0, 2, 1, 0}).view({2, 2}), 1.5)};
       },
       [] { return V{rt(2, 3)}; }},
      {"scatter_add",
       [](const V& x) {
         Tensor y = x[0] * 1;
         y.scatter_add_(0, longs({1, 0}).view({1, 2}), x[1]);
         return V{x[0].scatter_add(1, longs({0, 0, 1, 1}).view({2, 2}), x[1]), y};
       },
       [] {
         return V{rt(2, 3), leaf(r({2, 2}))};
       }},
      {"take",
       [](const V& x) {
         return V{x[0].take(longs({5, 0, -1, 0}).view({2, 2}))};
       },
       [] { return V{rt(2, 3)}; }},
      {"sort", [](const V& x) { return V{std::get<0>(x[0].sort(1, true))}; },
       [] { return V{rt(3, 4)}; }},
      {"topk", [](const V& x) { return V{std::get<0>(x[0].topk(2, 0))}; },
       [] { return V{rt(3, 4)}; }},
      {"kthvalue",
       [](const V& x) {
         return V{std::get<0>(x[0].kthvalue(2, 1)), std::get<0>(x[0].kthvalue(1, 0, true))};
       },
       [] { return V{rt(3, 4)}; }},
      // tensor/sort_ops.h: nodes of their own (random inputs have no ties).
      {"median", [](const V& x) { return V{x[0].median()}; }, [] { return V{rt(3, 4)}; }},
      {"nanmedian", [](const V& x) { return V{x[0].nanmedian()}; }, [] { return V{rt(2, 3)}; }},
      {"median_dim",
       [](const V& x) {
         return V{std::get<0>(x[0].median(1)), std::get<0>(x[0].median(0, true))};
       },
       [] { return V{rt(3, 4)}; }},
      {"nanmedian_dim",
       [](const V& x) {
         return V{std::get<0>(x[0].nanmedian(-1)), std::get<0>(x[0].nanmedian(0, true))};
       },
       [] { return V{rt(3, 4)}; }},
      {"mode",
       [](const V& x) {
         return V{std::get<0>(x[0].mode(1)), std::get<0>(x[0].mode(0, true))};
       },
       [] { return V{rt(3, 4)}; }},
      {"cummax",
       [](const V& x) {
         return V{std::get<0>(x[0].cummax(1)), std::get<0>(x[0].cummax(0))};
       },
       [] { return V{rt(3, 4)}; }},
      {"cummin",
       [](const V& x) {
         return V{std::get<0>(x[0].cummin(1)), std::get<0>(x[0].cummin(-2))};
       },
       [] { return V{rt(3, 4)}; }},
      {"logcumsumexp",
       [](const V& x) {
         return V{x[0].logcumsumexp(1), x[0].logcumsumexp(0)};
       },
       [] { return V{rt(3, 4)}; }},
      // tensor/reduce_ops.h: every reduce, with and without self (random
      // inputs have no ties); prod also with zeros in self and src.
      {"scatter_reduce",
       [](const V& x) {
         const Tensor idx = tensor({0, 2, 0, 1, 2, 2, 0, 1}, kLong).view({2, 4});
         V out;
         for (const char* red : {"sum", "prod", "mean", "amax", "amin"}) {
           for (bool inc : {true, false})
             out.push_back(x[0].scatter_reduce(0, idx, x[1], red, inc));
         }
         out.push_back(
             x[0].scatter_reduce(1, idx.t().narrow(0, 0, 3), x[1].t().narrow(0, 0, 3), "prod"));
         return out;
       },
       [] {
         return V{rt(3, 4), leaf(r({2, 4}))};
       }},
      {"scatter_reduce",
       [](const V& x) {
         const Tensor idx = tensor({0, 2, 0, 1, 2, 2, 0, 1}, kLong).view({2, 4});
         return V{x[0].scatter_reduce(0, idx, x[1], "prod"),
                  x[0].scatter_reduce(0, idx, x[1], "prod", false)};
       },
       [] {
         return V{dleaf({0, 1.5, -2, 0.5, 1, 0, 2, -1, 3, 0.7, 1.1, 0}).view({3, 4}),
                  dleaf({0, 2, 1.3, -1, 0.9, -0.4, 0, 2.2}).view({2, 4})};
       }},
      {"index_reduce",
       [](const V& x) {
         const Tensor idx = tensor({0, 2, 0, 3, 2}, kLong);
         V out;
         for (const char* red : {"prod", "mean", "amax", "amin"}) {
           for (bool inc : {true, false}) out.push_back(x[0].index_reduce(0, idx, x[1], red, inc));
         }
         out.push_back(x[0].index_reduce(1, tensor({1, 0}, kInt), x[2], "mean"));  // broadcast
         return out;
       },
       [] {
         return V{rt(4, 3), leaf(r({5, 3})), leaf(r({1, 2}))};
       }},
      {"igamma",
       [](const V& x) {
         const Tensor a = tensor({1.5, 2.0, 0.7, 3.0}, kDouble);
         return V{igamma(a, x[0]), special_gammainc(a.view({4, 1}), x[0])};
       },
       [] { return V{pos({4})}; }},
      {"igammac",
       [](const V& x) {
         const Tensor a = tensor({1.5, 2.0, 0.7, 3.0}, kDouble);
         return V{a.igammac(x[0]), special_gammaincc(a.view({4, 1}), x[0])};
       },
       [] { return V{pos({4})}; }},
      // --- rearranging copies and the remaining views ---
      {"flip",
       [](const V& x) {
         return V{x[0].flip({0, 1})};
       },
       [] { return V{rt(2, 3)}; }},
      {"roll",
       [](const V& x) {
         return V{x[0].roll({1, -1}, {0, 1}), x[0].roll({2}, {})};
       },
       [] { return V{rt(2, 3)}; }},
      {"repeat",
       [](const V& x) {
         return V{x[0].repeat({2, 1, 2})};
       },
       [] { return V{rt(2, 3)}; }},
      {"tril",
       [](const V& x) {
         return V{x[0].tril(), x[0].tril(-1)};
       },
       [] { return V{rt(3, 3)}; }},
      {"triu", [](const V& x) { return V{x[0].triu(1)}; }, [] { return V{rt(3, 3)}; }},
      {"diag",
       [](const V& x) {
         return V{x[0].diag(1), x[0].diag().diag(-1)};
       },
       [] { return V{rt(3, 3)}; }},
      {"as_strided",
       [](const V& x) {
         return V{x[0].as_strided({2, 2}, {1, 2}, 1), x[0].as_strided({3, 2}, {1, 1}),
                  x[1].expand({2, 3}).as_strided({2, 2}, {1, 1})};
       },
       [] {
         return V{leaf(r({2, 3})), leaf(r({3}))};
       }},
      {"unfold", [](const V& x) { return V{x[0].unfold(1, 2, 1)}; }, [] { return V{rt(2, 4)}; }},
      {"squeeze_",
       [](const V& x) {
         Tensor y = x[0] * 1;
         y.squeeze_();
         return V{y * y};
       },
       [] {
         return V{leaf(r({1, 3, 1}))};
       }},
      {"squeeze_dim_",
       [](const V& x) {
         Tensor y = x[0] * 1;
         y.squeeze_(2);
         return V{y * y};
       },
       [] {
         return V{leaf(r({1, 3, 1}))};
       }},
      {"unsqueeze_",
       [](const V& x) {
         Tensor y = x[0] * 1;
         y.unsqueeze_(0);
         return V{y * y};
       },
       [] { return V{rt(2, 3)}; }},
      {"transpose_",
       [](const V& x) {
         Tensor y = x[0] * 1;
         y.transpose_(0, 1);
         return V{y * y};
       },
       [] { return V{rt(2, 3)}; }},
      {"t_",
       [](const V& x) {
         Tensor y = x[0] * 1;
         y.t_();
         return V{y * y};
       },
       [] { return V{rt(2, 3)}; }},
      {"as_strided_",
       [](const V& x) {
         Tensor y = x[0] * 1, z = x[0] * 1;
         y.as_strided_({2, 2}, {1, 2}, 1);
         z.as_strided_({3, 2}, {1, 1});
         return V{y * y, z};
       },
       [] { return V{rt(2, 3)}; }},
      // adaptive_avg_pool2d to 1x1 is a mean, restrided in place for a
      // channels-last input (AsStridedBackward1 <- MeanBackward1).
      {"as_strided_",
       [](const V& x) {
         return V{adaptive_avg_pool2d(x[0], {1, 1}), adaptive_avg_pool2d(x[0].contiguous(), {1, 1})};
       },
       [] {
         return V{leaf(r({2, 3, 2, 3})).permute({0, 3, 1, 2})};
       }},
      // --- scans and reductions with two outputs ---
      {"cumprod", [](const V& x) { return V{x[0].cumprod(1)}; }, [] { return V{rt(3, 4)}; }},
      {"cumprod", [](const V& x) { return V{x[0].cumprod(0)}; },
       [] {
         return V{dleaf({0.5, 0.0, 2.0, -1.5})};
       }},
      {"prod_all", [](const V& x) { return V{x[0].prod()}; },
       [] {
         return V{leaf(tensor({{0.5, 0.0, 2.0}, {0.0, 3.0, 1.5}}))};
       }},
      {"prod", [](const V& x) { return V{x[0].prod(0)}; },
       [] {
         return V{leaf(tensor({{0.5, 0.0, 2.0}, {0.0, 3.0, 1.5}}))};
       }},
      {"var_mean",
       [](const V& x) {
         auto [v, m] = var_mean(x[0], {1});
         auto [v2, m2] = var_mean(x[0], {}, false, true);
         return V{v, m, v2, m2};
       },
       [] { return V{rt(3, 4)}; }},
      {"std_mean",
       [](const V& x) {
         auto [s, m] = std_mean(x[0], {0}, true, true);
         return V{s, m};
       },
       [] { return V{rt(3, 4)}; }},
      // --- nn ops, and their backward kernels as ops of their own (Note
      // [Differentiable backward kernels] in tensor/nn_ops.h) ---
      // native_group_norm's mean and rstd are differentiable too; input of
      // any shape read as [N, C, HxW].
      {"native_group_norm",
       [](const V& x) {
         auto [out, mean, rstd] = native_group_norm(x[0], x[1], Tensor(), 2, 4, 6, 2, 1e-5);
         auto [out2, mean2, rstd2] =
             native_group_norm(x[0].reshape({4, 12}), Tensor(), x[2], 2, 4, 6, 4, 1e-5);
         return V{F::group_norm(x[0], F::GroupNormFuncOptions(2).weight(x[1]).bias(x[2])),
                  F::group_norm(x[0].transpose(2, 3), F::GroupNormFuncOptions(4)),
                  out,
                  mean,
                  rstd,
                  out2,
                  mean2 * rstd2};
       },
       [] {
         return V{leaf(r({2, 4, 3, 2})), leaf(r({4})), leaf(r({4}))};
       }},
      // Note [Pads are single nodes]: every mode and rank, cropping too.
      {"constant_pad_nd",
       [](const V& x) {
         return V{F::pad(x[0], F::PadFuncOptions({1, 2, -1, 1}).value(0.5)),
                  F::pad(x[0], F::PadFuncOptions({}))};
       },
       [] {
         return V{leaf(r({2, 3, 4}))};
       }},
      {"reflection_pad1d",
       [](const V& x) {
         return V{F::pad(x[0], F::PadFuncOptions({2, 1}).mode(kReflect))};
       },
       [] {
         return V{leaf(r({2, 4}))};
       }},
      {"reflection_pad2d",
       [](const V& x) {
         return V{F::pad(x[0], F::PadFuncOptions({1, 2, 2, 0}).mode(kReflect))};
       },
       [] {
         return V{leaf(r({1, 2, 3, 4}))};
       }},
      {"reflection_pad3d",
       [](const V& x) {
         return V{F::pad(x[0], F::PadFuncOptions({1, 1, 0, 1, 1, 0}).mode(kReflect))};
       },
       [] {
         return V{leaf(r({2, 2, 3, 3}))};
       }},
      {"replication_pad1d",
       [](const V& x) {
         return V{F::pad(x[0], F::PadFuncOptions({3, 1}).mode(kReplicate))};
       },
       [] {
         return V{leaf(r({1, 2, 3}))};
       }},
      {"replication_pad2d",
       [](const V& x) {
         return V{F::pad(x[0], F::PadFuncOptions({1, 0, 2, 2}).mode(kReplicate))};
       },
       [] {
         return V{leaf(r({2, 3, 2}))};
       }},
      {"replication_pad3d",
       [](const V& x) {
         return V{F::pad(x[0], F::PadFuncOptions({0, 1, 1, 1, 2, 0}).mode(kReplicate))};
       },
       [] {
         return V{leaf(r({1, 2, 2, 3}))};
       }},
      {"convolution",
       [](const V& x) {
         return V{convolution(x[0], x[1], x[2], {1, 2}, {1, 0}, {1, 1}, 1),
                  convolution(x[0].select(3, 0), x[3], Tensor(), {2}, {1}, {2}, 2)};
       },
       [] {
         return V{leaf(r({2, 2, 3, 2})).transpose(0, 1), leaf(r({3, 2, 2, 2})),
                  leaf(r({3})), leaf(r({4, 1, 2}))};
       }},
      {"convolution_backward",
       [](const V& x) {
         auto [gi, gw, gb] = convolution_backward(x[0], x[1], x[2], {1, 2}, {1, 0}, {1, 1}, 1,
                                                  {true, true, true});
         return V{gi, gw, gb};
       },
       [] {
         return V{leaf(r({2, 3, 4, 1})), leaf(r({2, 2, 3, 2})), leaf(r({3, 2, 2, 2}))};
       }},
      {"max_pool2d_with_indices",
       [](const V& x) {
         return V{std::get<0>(max_pool2d_with_indices(x[0], {2, 2}, {2, 1}, {1, 0}, {1, 1}, false)),
                  std::get<0>(max_pool2d_with_indices(x[0], {2, 2}, {}, {0, 0}, {1, 2}, true))};
       },
       [] {
         return V{leaf(r({1, 2, 4, 5}))};
       }},
      {"max_pool2d_with_indices_backward",
       [](const V& x) {
         Tensor idx = std::get<1>(max_pool2d_with_indices(x[1], {2, 2}, {2, 1}, {1, 0}, {1, 1}, false));
         return V{max_pool2d_with_indices_backward(x[0], x[1].sizes(), idx)};
       },
       [] {
         return V{leaf(r({1, 2, 3, 4})), r({1, 2, 4, 5})};
       }},
      {"avg_pool2d",
       [](const V& x) {
         return V{avg_pool2d(x[0], {3, 2}, {2, 1}, {1, 0}, false, true, std::nullopt),
                  avg_pool2d(x[0], {2, 2}, {2, 2}, {1, 1}, true, false, std::nullopt),
                  avg_pool2d(x[0], {2, 2}, {}, {0, 0}, false, true, 3)};
       },
       [] {
         return V{leaf(r({1, 2, 4, 5}))};
       }},
      {"avg_pool2d_backward",
       [](const V& x) {
         return V{avg_pool2d_backward(x[0], {1, 2, 4, 5}, {2, 2}, {2, 2}, {1, 1}, true, false,
                                      std::nullopt)};
       },
       [] {
         return V{leaf(r({1, 2, 3, 3}))};
       }},
      {"adaptive_avg_pool2d",
       [](const V& x) {
         return V{adaptive_avg_pool2d(x[0], {3, 2})};
       },
       [] {
         return V{leaf(r({2, 5, 4})).transpose(0, 1)};
       }},
      {"adaptive_avg_pool2d_backward",
       [](const V& x) {
         return V{adaptive_avg_pool2d_backward(x[0], {5, 2, 4})};
       },
       [] {
         return V{leaf(r({5, 3, 2}))};
       }},
      {"gelu",
       [](const V& x) {
         return V{gelu(x[0]), gelu(x[0], "tanh")};
       },
       [] { return V{rt(2, 3)}; }},
      {"leaky_relu", [](const V& x) { return V{leaky_relu(x[0], 0.2)}; },
       [] {
         return V{dleaf({0.3, -1.6, 2.2, -0.4})};
       }},
      // Activations, away from their kinks (0, +-1, +-3, 6, the bounds).
      {"elu", [](const V& x) { return V{elu(x[0], 0.7, 1.2, 0.8)}; },
       [] {
         return V{dleaf({0.3, -1.6, 2.2, -0.4, 4.1, -3.7})};
       }},
      {"celu", [](const V& x) { return V{celu(x[0], 1.5)}; },
       [] {
         return V{dleaf({0.3, -1.6, 2.2, -0.4, 4.1, -3.7})};
       }},
      {"silu", [](const V& x) { return V{silu(x[0])}; },
       [] {
         return V{dleaf({0.3, -1.6, 2.2, -0.4, 4.1, -3.7})};
       }},
      {"mish", [](const V& x) { return V{mish(x[0])}; },
       [] {
         return V{dleaf({0.3, -1.6, 2.2, -0.4, 4.1, -3.7})};
       }},
      {"softplus", [](const V& x) { return V{softplus(x[0], 2, 3)}; },
       [] {
         return V{dleaf({0.3, -1.6, 2.2, -0.4, 4.1, -3.7})};
       }},
      {"log_sigmoid", [](const V& x) { return V{log_sigmoid(x[0])}; },
       [] {
         return V{dleaf({0.3, -1.6, 2.2, -0.4, 4.1, -3.7})};
       }},
      {"hardtanh", [](const V& x) { return V{hardtanh(x[0], -2, 2.5)}; },
       [] {
         return V{dleaf({0.3, -1.6, 2.2, -0.4, 4.1, -3.7})};
       }},
      {"hardsigmoid", [](const V& x) { return V{hardsigmoid(x[0])}; },
       [] {
         return V{dleaf({0.3, -1.6, 2.2, -0.4, 4.1, -3.7})};
       }},
      {"hardswish", [](const V& x) { return V{hardswish(x[0])}; },
       [] {
         return V{dleaf({0.3, -1.6, 2.2, -0.4, 4.1, -3.7})};
       }},
      {"softshrink", [](const V& x) { return V{softshrink(x[0], 0.5)}; },
       [] {
         return V{dleaf({0.3, -1.6, 2.2, -0.4, 4.1, -3.7})};
       }},
      {"hardshrink", [](const V& x) { return V{hardshrink(x[0], 0.5)}; },
       [] {
         return V{dleaf({0.3, -1.6, 2.2, -0.4, 4.1, -3.7})};
       }},
      {"threshold", [](const V& x) { return V{threshold(x[0], 0.5, -2)}; },
       [] {
         return V{dleaf({0.3, -1.6, 2.2, -0.4, 4.1, -3.7})};
       }},
      {"prelu",
       [](const V& x) {
         return V{prelu(x[0], x[1]), prelu(x[0].select(0, 1), x[2])};
       },
       [] {
         return V{leaf(r({2, 3, 2})), leaf(rand({3}, kDouble)), leaf(rand({1}, kDouble))};
       }},
      // Transposed convolution (Note [Transposed convolution] in
      // tensor/nn_ops.h), with output_padding below the stride and below the
      // dilation.
      {"conv_transpose",
       [](const V& x) {
         return V{conv_transpose(x[0], x[1], x[2], {2, 1}, {1, 0}, {1, 0}, {1, 1}, 1),
                  conv_transpose(x[0].select(3, 0), x[3], Tensor(), {1}, {0}, {1}, {2}, 2)};
       },
       [] {
         return V{leaf(r({2, 2, 3, 2})).transpose(2, 3), leaf(r({2, 3, 2, 2})), leaf(r({3})),
                  leaf(r({2, 1, 2}))};
       }},
      // conv_tbc: padding that widens, crops (negative) and a tap that
      // reaches nothing; second order through conv_tbc_backward's ops.
      {"conv_tbc",
       [](const V& x) {
         return V{conv_tbc(x[0], x[1], x[2], 1), conv_tbc(x[0], x[1].narrow(0, 0, 2), x[2], -1),
                  conv_tbc(x[0].narrow(0, 0, 1), x[1], x[2], 1), conv_tbc(x[0], x[1], x[2], 4)};
       },
       [] {
         return V{leaf(r({2, 4, 3})).transpose(0, 1), leaf(r({3, 3, 2})), leaf(r({2}))};
       }},
      // Weight norm's fused node over the first and last dims (second order:
      // norms recomputed under create_graph), and _weight_norm's dispatch.
      // norm_except_dim(v, pow, -1): libtorch's norm.Scalar (NormBackward0).
      {"norm_scalar", [](const V& x) { return V{norm_except_dim(x[0], 3, -1)}; },
       [] { return V{rt(3, 2)}; }},
      {"_weight_norm_interface",
       [](const V& x) {
         return V{std::get<0>(_weight_norm_interface(x[0], x[1], 0)),
                  std::get<0>(_weight_norm_interface(x[0], x[2], 2)),
                  _weight_norm(x[0], x[1].reshape({3, 1, 1}), 0), _weight_norm(x[0], x[3], 1),
                  norm_except_dim(x[0], 3, 1)};
       },
       [] {
         return V{leaf(r({3, 4, 2})), leaf(r({3}) + 2), leaf(r({1, 1, 2}) + 2),
                  leaf(r({1, 4, 1}) + 2)};
       }},
      // Batch/layer norm, second order too (Note [Norm statistics under
      // create_graph] in autograd/derivatives/nn.cc).
      {"native_batch_norm",
       [](const V& x) {
         Tensor train = std::get<0>(native_batch_norm(x[0], x[1], x[2], Tensor(), Tensor(), true, 0.1, 1e-5));
         Tensor eval = std::get<0>(native_batch_norm(x[0], x[1], x[2], tensor({0.5, -0.5}, kDouble),
                                                     tensor({2.0, 0.5}, kDouble), false, 0.1, 1e-5));
         return V{train, eval};
       },
       [] {
         return V{leaf(r({3, 2, 2})), leaf(r({2})), leaf(r({2}))};
       }},
      // Note [Fused attention]: a broadcast mask and query (stride-0 dims),
      // a row with every key masked, and the causal form.
      {"_scaled_dot_product_flash_attention",
       [](const V& x) {
         Tensor mask = zeros({3, 4}, kDouble);
         mask.select(0, 0).narrow(0, 1, 2).fill_(-1.5);
         mask.select(0, 2).fill_(-std::numeric_limits<double>::infinity());
         return V{std::get<0>(_scaled_dot_product_flash_attention(
             x[0].expand({2, 2, 3, 3}), x[1], x[2], mask.expand({2, 2, 3, 4}), false, 0.7))};
       },
       [] {
         return V{leaf(r({1, 2, 3, 3})), leaf(r({2, 2, 4, 3})), leaf(r({2, 2, 4, 2}))};
       }},
      {"_scaled_dot_product_flash_attention",
       [](const V& x) {
         return V{std::get<0>(_scaled_dot_product_flash_attention(x[0], x[1], x[2], {}, true,
                                                                  0.5))};
       },
       [] {
         return V{leaf(r({1, 2, 4, 3})), leaf(r({1, 2, 5, 3})), leaf(r({1, 2, 5, 2}))};
       }},
      {"native_layer_norm",
       [](const V& x) {
         return V{std::get<0>(native_layer_norm(x[0], {3, 2}, x[1], x[2], 1e-5))};
       },
       [] {
         return V{leaf(r({2, 2, 3})).transpose(1, 2), leaf(r({3, 2})), leaf(r({3, 2}))};
       }},
      // grid points away from the kinks (integers after unnormalizing).
      {"grid_sampler_2d",
       [](const V& x) {
         return V{grid_sampler_2d(x[0], x[1], 0, 2, false),
                  grid_sampler_2d(x[0], x[1], 2, 1, true)};
       },
       [] {
         return V{
             leaf(r({1, 2, 3, 3})),
             leaf(tensor({0.13, -0.41, 0.77, 1.21, -1.09, 0.38, 0.52, -0.66}).view({1, 2, 2, 2}))};
       },
       /*second_order=*/false},
      // tensor/trilinear.h on fixed inputs: bilinear's layout, and one where
      // an input broadcasts (i3 has no batch dim) and a kept dim comes from
      // no input.
      {"_trilinear",
       [](const V& x) {
         return V{_trilinear(x[0], x[1], x[2], {1, 3}, {0}, {1, 2}, {2, 3}),
                  _trilinear(x[0], x[1], x[2][0], {1, 3}, {0}, {0, 1, 2}, {2}, 2)};
       },
       [] {
         return V{leaf((arange(6, kDouble) * 0.7).sin().view({2, 3})),
                  leaf((arange(24, kDouble) * 0.4).cos().view({2, 3, 4})),
                  leaf((arange(8, kDouble) * 0.9).sin().view({2, 4}))};
       }},
      // tensor/im2col.h, on fixed inputs (padding, stride, dilation; batched and not).
      {"im2col",
       [](const V& x) {
         return V{im2col(x[0], {2, 2}, {1, 2}, {1, 0}, {2, 1}),
                  im2col(x[0][0], {3, 2}, {1, 1}, {0, 1}, {1, 2})};
       },
       [] {
         return V{leaf((arange(2 * 2 * 4 * 5, kDouble) * 0.7).sin().view({2, 2, 4, 5}))};
       }},
      {"col2im",
       [](const V& x) {
         return V{col2im(x[0], {4, 5}, {2, 2}, {1, 2}, {1, 0}, {2, 1}),
                  col2im(x[0][1], {4, 5}, {2, 2}, {1, 2}, {1, 0}, {2, 1})};
       },
       [] {
         return V{leaf((arange(2 * 8 * 9, kDouble) * 0.3).cos().view({2, 8, 9}))};
       }},
      {"grid_sampler_3d", [](const V& x) { return V{grid_sampler_3d(x[0], x[1], 0, 1, false)}; },
       [] {
         return V{leaf(r({1, 2, 2, 3, 3})),
                  leaf(tensor({0.13, -0.41, 0.77, 1.21, -1.09, 0.38}).view({1, 1, 1, 2, 3}))};
       },
       /*second_order=*/false},
      {"affine_grid_generator",
       [](const V& x) {
         return V{affine_grid_generator(x[0], {2, 1, 3, 4}, false),
                  affine_grid_generator(x[1], {1, 1, 2, 2, 3}, true)};
       },
       [] {
         return V{leaf(r({2, 2, 3})), leaf(r({1, 3, 4}))};
       }},
      {"embedding",
       [](const V& x) {
         return V{embedding(x[0], longs({1, 3, 1, 0}).view({2, 2}))};
       },
       [] {
         return V{leaf(r({5, 3}))};
       }},
      {"nll_loss",
       [](const V& x) {
         Tensor w = tensor({1.0, 2.0, 0.5, 1.5}, kDouble);
         return V{std::get<0>(nll_loss_forward(x[0], longs({0, 3, 1}), Tensor(), loss_reduction::kMean, -100)),
                  std::get<0>(nll_loss_forward(x[0], longs({0, 3, 1}), w, loss_reduction::kNone, 3)),
                  std::get<0>(nll_loss_forward(x[0], longs({2, 3, 1}), w, loss_reduction::kMean, 1))};
       },
       [] { return V{rt(3, 4)}; }},
      {"nll_loss2d",
       [](const V& x) {
         return V{std::get<0>(nll_loss_forward(x[0], longs({0, 2, 1, 1, 2, 0, 0, 1}).view({2, 2, 2}),
                                               Tensor(), loss_reduction::kSum, -100))};
       },
       [] {
         return V{leaf(r({2, 3, 2, 2}))};
       }},
      {"nll_loss_backward",
       [](const V& x) {
         Tensor w = tensor({1.0, 2.0, 0.5, 1.5}, kDouble), t = longs({2, 3, 1});
         Tensor total = std::get<1>(nll_loss_forward(x[1].detach(), t, w, loss_reduction::kMean, 1));
         return V{nll_loss_backward(x[0], x[1], t, w, loss_reduction::kMean, 1, total)};
       },
       [] {
         return V{leaf(r({})), rt(3, 4)};
       }},
      {"nll_loss2d_backward",
       [](const V& x) {
         Tensor t = longs({0, 2, 1, 1, 2, 0, 0, 1}).view({2, 2, 2});
         Tensor total = std::get<1>(nll_loss_forward(x[1].detach(), t, Tensor(), loss_reduction::kNone, -100));
         return V{nll_loss_backward(x[0], x[1], t, Tensor(), loss_reduction::kNone, -100, total)};
       },
       [] {
         return V{leaf(r({2, 2, 2})), leaf(r({2, 3, 2, 2}))};
       }},
      // Through log_softmax (Note [CTC gradient] in tensor/ctc_loss.cc):
      // padded and concatenated targets, a repeated label, an empty target,
      // an input shorter than the longest. PyTorch has no double backward.
      {"_ctc_loss",
       [](const V& x) {
         Tensor lp = log_softmax(x[0], 2);
         return V{std::get<0>(_ctc_loss(lp, longs({1, 1, 2, 0, 3, 0, 0, 0}).view({2, 4}), {5, 4}, {3, 1}, 0, false)),
                  std::get<0>(_ctc_loss(lp, longs({2, 1, 1}), {5, 3}, {2, 1}, 3, false)),
                  std::get<0>(_ctc_loss(lp, longs({1}), {4, 5}, {0, 1}, 0, false))};
       },
       [] {
         return V{leaf(r({5, 2, 4}))};
       },
       false},
      {"mse_loss",
       [](const V& x) {
         return V{mse_loss(x[0], x[1], loss_reduction::kMean), mse_loss(x[0], x[1], loss_reduction::kNone)};
       },
       [] {
         return V{rt(2, 3), leaf(r({2, 3}))};
       }},
      {"smooth_l1_loss",
       [](const V& x) {
         return V{smooth_l1_loss(x[0], x[1], loss_reduction::kSum, 1.0),
                  smooth_l1_loss(x[0], x[1], loss_reduction::kMean, 0.0)};
       },
       [] {
         return V{leaf(tensor({{0.3, 2.5, -1.2}, {0.1, -0.7, 3.0}})),
                  leaf(tensor({{0.0, 0.1, 0.4}, {0.9, -0.1, 0.0}}))};
       }},
      {"huber_loss",
       [](const V& x) {
         return V{huber_loss(x[0], x[1], loss_reduction::kSum, 1.0),
                  huber_loss(x[0], x[1], loss_reduction::kMean, 0.5),
                  huber_loss(x[0], x[1], loss_reduction::kNone, 2.0)};
       },
       [] {
         return V{leaf(tensor({{0.3, 2.7, -1.2}, {0.1, -0.7, 3.1}})),
                  leaf(tensor({{0.0, 0.1, 0.4}, {0.9, -0.1, 0.0}}))};
       }},
      {"binary_cross_entropy",
       [](const V& x) {
         return V{binary_cross_entropy(x[0], x[1], Tensor(), loss_reduction::kMean),
                  binary_cross_entropy(x[0], x[1], tensor({1.0, 2.0, 0.5}, kDouble), loss_reduction::kNone)};
       },
       [] {
         return V{leaf(rand({2, 3}, kDouble) * 0.8 + 0.1), leaf(rand({2, 3}, kDouble))};
       }},
      {"binary_cross_entropy_with_logits",
       [](const V& x) {
         return V{binary_cross_entropy_with_logits(x[0], x[1], Tensor(), Tensor(), loss_reduction::kMean),
                  binary_cross_entropy_with_logits(x[0], x[1], tensor({1.0, 2.0, 0.5}, kDouble), x[2],
                                                   loss_reduction::kSum)};
       },
       [] {
         return V{rt(2, 3), leaf(rand({2, 3}, kDouble)), pos({3})};
       }},
      // --- the backward's own ops, through the vector-Jacobian product ---
      {"select_backward", vjp_of([](const Tensor& t) { return t.select(1, 2); }),
       [] { return V{rt(2, 3), leaf(r({2}))}; }},
      {"slice_backward", vjp_of([](const Tensor& t) { return t.slice(1, 0, 3, 2); }),
       [] { return V{rt(2, 3), leaf(r({2, 2}))}; }},
      {"diagonal_backward", vjp_of([](const Tensor& t) { return t.diagonal(-1); }),
       [] { return V{rt(3, 3), leaf(r({2}))}; }},
      {"index_backward", vjp_of([](const Tensor& t) {
         return t.index({longs({1, 1, 0})});
       }),
       [] {
         return V{rt(2, 3), leaf(r({3, 3}))};
       }},
      {"index_select_backward", vjp_of([](const Tensor& t) {
         return t.index_select(0, longs({1, 1}));
       }),
       [] {
         return V{rt(2, 3), leaf(r({2, 3}))};
       }},
      {"masked_select_backward", vjp_of([](const Tensor& t) { return t.masked_select(mask23()); }),
       [] {
         return V{rt(2, 3), leaf(r({3}))};
       }},
      // --- shape_ops.h: the ops recorded as nodes of their own ---
      {"trace",
       [](const V& x) {
         return V{x[0].trace(), x[1].trace()};
       },
       [] {
         return V{rt(3, 3), rt(2, 3)};
       }},
      {"addmv",
       [](const V& x) {
         return V{x[0].addmv(x[1], x[2], 0.5, 2), x[3].addmv(x[1], x[2])};
       },
       [] {
         return V{leaf(r({2})), rt(2, 3), leaf(r({3})), leaf(r({}))};
       }},
      {"addr",
       [](const V& x) {
         return V{x[0].addr(x[1], x[2], 0.5, 2), x[3].addr(x[1], x[2])};
       },
       [] {
         return V{rt(2, 3), leaf(r({2})), leaf(r({3})), leaf(r({3}))};
       }},
      {"addbmm",
       [](const V& x) {
         return V{x[0].addbmm(x[1], x[2], 0.5, 2), x[3].addbmm(x[1], x[2])};
       },
       [] {
         return V{rt(2, 2), leaf(r({3, 2, 4})), leaf(r({3, 2, 4})).transpose(1, 2), leaf(r({2}))};
       }},
      {"rot90",
       [](const V& x) {
         return V{x[0].rot90(), x[0].rot90(2), x[0].rot90(-1, {1, 0}), x[0].rot90(4)};
       },
       [] { return V{rt(2, 3)}; }},
      {"unsafe_split",
       [](const V& x) {
         V out = x[0].unsafe_split(2, 1);
         out.push_back(x[0].unsafe_chunk(2)[1]);  // the other piece's gradient: zeros
         return out;
       },
       [] { return V{rt(2, 3)}; }},
      // tensor/linalg_factor.h: QR and LU of square, tall, wide, batched and
      // non-contiguous inputs (random ones: full rank, and no ties between
      // pivot candidates, so the factors are smooth where checked).
      {"linalg_qr",
       [](const V& x) {
         auto [q0, r0] = linalg_qr(x[0]);
         auto [q1, r1] = x[1].qr();
         auto [q2, r2] = linalg_qr(x[2], "complete");
         return V{q0, r0, q1, r1, q2, r2};
       },
       [] {
         return V{leaf(r({2, 4, 3})), rt(2, 4), leaf(r({3, 3}))};
       }},
      // PyTorch 1.13 has no derivative for geqrf or ormqr (nor nextafter).
      refused(
          "geqrf", [](const Tensor& a) { return std::get<0>(geqrf(a)); },
          [] {
            return V{leaf(r({3, 2}))};
          }),
      refused(
          "nextafter", [](const Tensor& a) { return nextafter(a, zeros_like(a)); },
          [] { return V{leaf(r({3}))}; }),
      refused(
          "ormqr", [](const Tensor& a) { return ormqr(a, a.select(-1, 0), a); },
          [] {
            return V{leaf(r({3, 3}))};
          }),
      // pixel_shuffle / pixel_unshuffle (fixed inputs: they draw nothing),
      // one of them channels-last.
      {"pixel_shuffle",
       [](const V& x) {
         return V{pixel_shuffle(x[0], 2), pixel_shuffle(x[1], 2)};
       },
       [] {
         return V{leaf(arange(16, kDouble).reshape({1, 4, 2, 2}).sin()),
                  leaf(arange(48, kDouble)
                           .reshape({1, 4, 3, 4})
                           .cos()
                           .contiguous(MemoryFormat::ChannelsLast))};
       }},
      {"pixel_unshuffle",
       [](const V& x) {
         return V{pixel_unshuffle(x[0], 2), pixel_unshuffle(x[1], 3)};
       },
       [] {
         return V{leaf(arange(32, kDouble).reshape({2, 4, 4}).sin()),
                  leaf(arange(36, kDouble).reshape({1, 1, 6, 6}).cos())};
       }},
      refused(
          "channel_shuffle", [](const Tensor& a) { return channel_shuffle(a, 2); },
          [] {
            return V{leaf(arange(8, kDouble).reshape({1, 4, 2}))};
          },
          "derivative for channel_shuffle is not implemented"),
      // Nor the unique family (no PyTorch has): fixed inputs, ties included.
      refused(
          "_unique2", [](const Tensor& a) { return std::get<0>(_unique2(a, true, true, true)); },
          [] {
            return V{dleaf({0.5, -1.0, 0.5, 2.0})};
          }),
      refused(
          "_unique", [](const Tensor& a) { return std::get<0>(_unique(a, true, true)); },
          [] {
            return V{dleaf({0.5, -1.0, 0.5, 2.0})};
          }),
      refused(
          "unique_dim", [](const Tensor& a) { return std::get<0>(unique(a, true, true, true, 0)); },
          [] {
            return V{leaf(tensor({1.0, 2.0, 1.0, 2.0, 0.0, 3.0}).view({3, 2}))};
          }),
      refused(
          "unique_consecutive",
          [](const Tensor& a) { return std::get<0>(unique_consecutive(a, true, true)); },
          [] {
            return V{dleaf({0.5, 0.5, -1.0, 0.5})};
          }),
      refused(
          "unique_consecutive",
          [](const Tensor& a) { return std::get<0>(unique_consecutive(a, true, true, 1)); },
          [] {
            return V{leaf(tensor({1.0, 1.0, 2.0, 3.0, 3.0, 4.0}).view({2, 3}))};
          }),
      refused(
          "unique_dim_consecutive",
          [](const Tensor& a) { return std::get<0>(unique_dim_consecutive(a, 0)); },
          [] {
            return V{leaf(tensor({1.0, 2.0, 1.0, 2.0, 0.0, 3.0}).view({3, 2}))};
          }),
      {"linalg_householder_product",
       [](const V& x) {
         return V{linalg_householder_product(x[0], x[1]), x[2].orgqr(x[3])};
       },
       [] {
         return V{leaf(r({4, 3})), leaf(r({2})), leaf(r({2, 3, 3})), leaf(r({2, 3}))};
       }},
      {"linalg_lu_factor_ex",
       [](const V& x) {
         return V{std::get<0>(linalg_lu_factor(x[0])), std::get<0>(linalg_lu_factor_ex(x[1])),
                  std::get<0>(x[2].lu())};
       },
       [] {
         return V{leaf(r({2, 3, 3})), rt(2, 4), leaf(r({4, 2}))};
       }},
      {"linalg_lu",
       [](const V& x) {
         auto [p0, l0, u0] = linalg_lu(x[0]);
         auto [p1, l1, u1] = linalg_lu(x[1]);
         auto [p2, l2, u2] = linalg_lu(x[2]);
         return V{l0, u0, l1, u1, l2, u2};
       },
       [] {
         return V{rt(3, 3), leaf(r({2, 2, 4})), leaf(r({4, 2}))};
       }},
      {"lu_unpack",
       [](const V& x) {
         auto [p0, l0, u0] = lu_unpack(x[0], tensor({2, 2, 3}, kInt));
         auto [p1, l1, u1] = lu_unpack(x[1], tensor({2, 2}, kInt));
         auto [p2, l2, u2] = lu_unpack(x[2], tensor({3, 2}, kInt));
         return V{l0, u0, l1, u1, l2, u2};
       },
       [] {
         return V{leaf(r({3, 3})), rt(2, 4), leaf(r({4, 2}))};
       }},
      {"linalg_lu_solve",
       [](const V& x) {
         const Tensor piv = tensor({2, 2, 3}, kInt);
         return V{linalg_lu_solve(x[0], piv, x[1]), linalg_lu_solve(x[0], piv, x[1], true, true),
                  linalg_lu_solve(x[0], piv, x[1].mT(), false),
                  linalg_lu_solve(x[0], piv, x[1].mT(), false, true), x[1].lu_solve(x[0], piv)};
       },
       [] {
         return V{wellcond({3, 3}), leaf(r({2, 3, 2}))};
       }},
      // tensor/linalg_more.h: well-conditioned inputs (a multiple of the
      // identity plus noise); non-contiguous and batched ones.
      {"linalg_inv",
       [](const V& x) {
         return V{x[0].inverse(), linalg_inv(x[1])};
       },
       [] {
         return V{wellcond({2, 3, 3}), leaf((r({3, 3}) * 0.3 + 3 * eye(3, kDouble)).t())};
       }},
      {"linalg_det",
       [](const V& x) {
         return V{x[0].det(), linalg_det(x[1])};
       },
       [] {
         return V{wellcond({2, 3, 3}), leaf((r({2, 2}) * 0.3 + 2 * eye(2, kDouble)).t())};
       }},
      {"linalg_slogdet",
       [](const V& x) {
         return V{std::get<1>(x[0].slogdet()), x[0].logdet(), std::get<1>(slogdet(-x[1]))};
       },
       [] {
         return V{wellcond({2, 3, 3}), wellcond({3, 3})};
       }},
      {"linalg_solve",
       [](const V& x) {
         return V{linalg_solve(x[0], x[1]), linalg_solve(x[0], x[2]),
                  linalg_solve(x[0], x[1].mT(), false)};
       },
       [] {
         return V{wellcond({3, 3}), leaf(r({2, 3, 2})), leaf(r({3}))};
       }},
      {"triangular_solve",
       [](const V& x) {
         auto [a, m] = triangular_solve(x[1], x[0]);
         return V{a, m, std::get<0>(x[1].triangular_solve(x[0], false, true, true))};
       },
       [] {
         return V{wellcond({3, 3}), leaf(r({2, 3, 2}))};
       }},
      {"cholesky",
       [](const V& x) {
         const Tensor s = x[0].matmul(x[0].mT()) + eye(3, kDouble);
         return V{s.cholesky(), s.cholesky(true)};
       },
       [] {
         return V{leaf(r({3, 3}))};
       }},
      {"linalg_cholesky",
       [](const V& x) {
         const Tensor s = x[0].matmul(x[0].mT()) + eye(3, kDouble);
         return V{linalg_cholesky(s), linalg_cholesky(s, true)};
       },
       [] {
         return V{leaf(r({2, 3, 3}))};
       }},
      {"cholesky_solve",
       [](const V& x) {
         const Tensor l = x[1].tril(-1) + (x[1].diagonal().exp() + 1).diag_embed();
         return V{x[0].cholesky_solve(l), cholesky_solve(x[0], l.mT(), true)};
       },
       [] {
         return V{leaf(r({2, 3, 2})), leaf(r({3, 3}) * 0.3)};
       }},
      {"cholesky_inverse",
       [](const V& x) {
         const Tensor l = x[0].tril(-1) + (x[0].diagonal().exp() + 1).diag_embed();
         return V{l.cholesky_inverse(), cholesky_inverse(l.mT(), true)};
       },
       [] {
         return V{leaf(r({3, 3}) * 0.3)};
       }},
      // tensor/linalg_spectral.h: singular vectors and eigenvectors are
      // defined up to sign, so the losses take S, L, squares of the vectors
      // (sign-free) or reconstructions; random inputs have distinct values.
      {"linalg_svd",
       [](const V& x) {
         auto [U, S, Vh] = linalg_svd(x[0], false);
         auto [U2, S2, Vh2] = linalg_svd(x[1], false);
         auto [U3, S3, Vh3] = linalg_svd(x[2]);
         return V{S,
                  U * U,
                  Vh * Vh,
                  S2,
                  Vh2 * Vh2,
                  U2 * U2,
                  S3,
                  U3 * U3,
                  Vh3.narrow(-2, 0, 2).abs(),
                  linalg_svdvals(x[0]),
                  std::get<1>(x[0].svd()),
                  std::get<2>(x[1].svd()).square()};
       },
       [] {
         return V{leaf(r({3, 2})), rt(2, 3), leaf(r({2, 2, 3}))};
       }},
      {"linalg_eigh",
       [](const V& x) {
         const Tensor s = x[0] + x[0].mT();
         auto [L, Q] = linalg_eigh(s);
         auto [L2, Q2] = linalg_eigh(s, "U");
         return V{L, Q * Q, L2, Q2.matmul(L2.diag_embed()).matmul(Q2.mT()), linalg_eigvalsh(s)};
       },
       [] {
         return V{leaf(r({2, 3, 3}))};
       }},
      {"symeig",
       [](const V& x) {
         const Tensor s = x[0] + x[0].mT();
         auto [L, Q] = s.symeig(true);
         return V{L, Q * Q};
       },
       [] {
         return V{leaf(r({3, 3}))};
       }},
      {"linalg_pinv",
       [](const V& x) {
         const Tensor s = x[2].matmul(x[2].mT()) + eye(3, kDouble);
         return V{linalg_pinv(x[0]), linalg_pinv(x[1]), x[0].pinverse(),
                  linalg_pinv(s, std::optional<Tensor>(), std::nullopt, true)};
       },
       [] {
         return V{leaf(r({3, 2})), rt(2, 3), leaf(r({3, 3}))};
       }},
      {"linalg_lstsq",
       [](const V& x) {
         return V{
             std::get<0>(linalg_lstsq(x[0], x[1])), std::get<0>(linalg_lstsq(x[0], x[2])),
             std::get<0>(linalg_lstsq(x[0].mT(), x[1].narrow(0, 0, 2), std::nullopt, "gelsd"))};
       },
       [] {
         return V{leaf(r({3, 2}) + cat({eye(2, kDouble), zeros({1, 2}, kDouble)})), leaf(r({3, 2})),
                  leaf(r({3}))};
       }},
      {"linalg_matrix_exp",
       [](const V& x) {
         return V{x[0].matrix_exp(), linalg_matrix_exp(x[1] * 2)};
       },
       [] {
         return V{leaf(r({3, 3}) * 0.5), leaf(r({2, 2, 2}))};
       }},
      // det at singular matrices (rank 1 and rank 2): the SVD path.
      {"linalg_det",
       [](const V& x) {
         return V{linalg_det(x[0]), x[1].det()};
       },
       [] {
         return V{leaf(tensor({1.0, 2, 3, 2, 4, 6, -1, -2, -3}).view({3, 3})),
                  leaf(tensor({1.0, 2, 3, 4, 5, 6, 7, 8, 9}).view({3, 3}))};
       },
       false},
      {"diag_embed",
       [](const V& x) {
         return V{x[0].diag_embed(), x[0].diag_embed(1, 0, 2)};
       },
       [] { return V{rt(2, 3)}; }},
      {"select_scatter", [](const V& x) { return V{x[0].select_scatter(x[1], 1, -1)}; },
       [] {
         return V{rt(2, 3), leaf(r({2}))};
       }},
      {"slice_scatter", [](const V& x) { return V{x[0].slice_scatter(x[1], 1, 0, 3, 2)}; },
       [] {
         return V{rt(2, 3), leaf(r({2, 2}))};
       }},
      {"diagonal_scatter", [](const V& x) { return V{x[0].diagonal_scatter(x[1], -1)}; },
       [] {
         return V{rt(3, 3), leaf(r({2}))};
       }},
      {"angle", [](const V& x) { return V{x[0].angle()}; }, [] { return V{rt(2, 3)}; }},
      {"as_strided_scatter",
       [](const V& x) {
         return V{x[0].as_strided_scatter(x[1], {2, 2}, {1, 4}, 1)};
       },
       [] {
         return V{leaf(r({3, 4})), leaf(r({2, 2}))};
       }},
      {"unsafe_split_with_sizes",
       [](const V& x) {
         V out = x[0].unsafe_split_with_sizes({1, 2}, 1);
         out.push_back(x[0].unsafe_split_with_sizes({1, 1})[0]);  // a gradient of zeros
         return out;
       },
       [] { return V{rt(2, 3)}; }},
      // tensor/composite_ops.h's ops that 1.13 records as one node.
      {"nansum",
       [](const V& x) {
         return V{x[0].nansum({1}), x[0].nansum(), x[0].nanmean()};
       },
       [] { return V{rt(2, 3)}; }},
      {"nan_to_num", [](const V& x) { return V{x[0].nan_to_num()}; }, [] { return V{rt(2, 3)}; }},
      {"logaddexp", [](const V& x) { return V{x[0].logaddexp(x[1])}; },
       [] {
         return V{rt(2, 3), leaf(r({3}))};
       }},
      {"logaddexp2", [](const V& x) { return V{x[0].logaddexp2(x[1])}; },
       [] {
         return V{rt(2, 3), leaf(r({2, 3}))};
       }},
      {"xlogy", [](const V& x) { return V{x[0].xlogy(x[1].abs() + 0.5)}; },
       [] {
         return V{rt(2, 3), leaf(r({2, 3}))};
       }},
      {"xlogy_scalar_other", [](const V& x) { return V{x[0].xlogy(2.5)}; },
       [] { return V{rt(2, 3)}; }},
      {"xlogy_scalar_self", [](const V& x) { return V{xlogy(1.5, x[0].abs() + 0.5)}; },
       [] { return V{rt(2, 3)}; }},
      {"deg2rad", [](const V& x) { return V{x[0].deg2rad()}; }, [] { return V{rt(2, 3)}; }},
      {"rad2deg", [](const V& x) { return V{x[0].rad2deg()}; }, [] { return V{rt(2, 3)}; }},
      {"sgn", [](const V& x) { return V{x[0].sgn() * x[0]}; }, [] { return V{rt(2, 3)}; }},
      {"logit",
       [](const V& x) {
         return V{x[0].sigmoid().logit(), x[0].sigmoid().logit(0.2)};
       },
       [] { return V{rt(2, 3)}; }},
      {"lerp_tensor", [](const V& x) { return V{x[0].lerp(x[1], x[2])}; },
       [] {
         return V{rt(2, 3), leaf(r({2, 3})), leaf(r({3}))};
       }},
      {"linalg_cross",
       [](const V& x) {
         return V{x[0].cross(x[1]), x[0].t().cross(x[1].t(), 0)};
       },
       [] {
         return V{rt(2, 3), leaf(r({2, 3}))};
       }},
      {"dist",
       [](const V& x) {
         return V{x[0].dist(x[1]), x[0].dist(x[1], 3), x[0].dist(x[1], 1.5)};
       },
       [] {
         return V{rt(2, 3), leaf(r({3}))};
       }},
      {"baddbmm", [](const V& x) { return V{x[0].baddbmm(x[1], x[2], 0.5, 2)}; },
       [] {
         return V{leaf(r({2, 1})), leaf(r({2, 2, 3})), leaf(r({2, 3, 1}))};
       }},
      // tensor/view_copy.h: the views' formulas under the *_copy names.
      {"as_strided_copy",
       [](const V& x) {
         return V{as_strided_copy(x[0], {2, 2}, {1, 2}, 1)};
       },
       [] {
         return V{leaf(r({3, 4}))};
       }},
      {"diagonal_copy", [](const V& x) { return V{diagonal_copy(x[0], 1, -1, 0)}; },
       [] { return V{rt(3, 4)}; }},
      {"expand_copy",
       [](const V& x) {
         return V{expand_copy(x[0], {2, 3, 4})};
       },
       [] {
         return V{leaf(r({3, 1}))};
       }},
      {"permute_copy",
       [](const V& x) {
         return V{permute_copy(x[0], {-1, 0, 1})};
       },
       [] {
         return V{leaf(r({2, 3, 4}))};
       }},
      {"select_copy", [](const V& x) { return V{select_copy(x[0], 1, -1)}; },
       [] { return V{rt(3, 4)}; }},
      {"slice_copy", [](const V& x) { return V{slice_copy(x[0], 1, -3, std::nullopt, 2)}; },
       [] {
         return V{leaf(r({3, 4}))};
       }},
      {"split_copy", [](const V& x) { return split_copy(x[0], 3, 1); },
       [] {
         return V{leaf(r({3, 4}))};
       }},
      {"split_with_sizes_copy",
       [](const V& x) {
         return split_with_sizes_copy(x[0], {1, 0, 2});
       },
       [] {
         return V{leaf(r({3, 4}))};
       }},
      {"squeeze_copy", [](const V& x) { return V{squeeze_copy(x[0])}; },
       [] {
         return V{leaf(r({3, 1, 2}))};
       }},
      {"squeeze_copy_dim", [](const V& x) { return V{squeeze_copy(x[0], -2)}; },
       [] {
         return V{leaf(r({3, 1, 2}))};
       }},
      {"t_copy", [](const V& x) { return V{t_copy(x[0])}; }, [] { return V{rt(3, 4)}; }},
      {"transpose_copy", [](const V& x) { return V{transpose_copy(x[0], 0, -1)}; },
       [] {
         return V{leaf(r({2, 3, 4}))};
       }},
      {"unbind_copy", [](const V& x) { return unbind_copy(x[0], -1); }, [] { return V{rt(3, 4)}; }},
      {"unfold_copy", [](const V& x) { return V{unfold_copy(x[0], 1, 2, 1)}; },
       [] {
         return V{leaf(r({3, 4}))};
       }},
      {"unsqueeze_copy", [](const V& x) { return V{unsqueeze_copy(x[0], -1)}; },
       [] { return V{rt(3, 4)}; }},
      {"view_copy",
       [](const V& x) {
         return V{view_copy(x[0], {6, 2}), view_copy(x[0], {-1})};
       },
       [] { return V{rt(4, 3)}; }},
      {"alias_copy", [](const V& x) { return V{alias_copy(x[0])}; }, [] { return V{rt(3, 4)}; }},
      // tensor/distributions.h: a sample's gradient is zero. A fixed seed
      // makes the function deterministic; eps-sized changes of the rates
      // leave the samples alone.
      {"poisson", [](const V& x) { return V{poisson(x[0], Generator(4))}; },
       [] {
         return V{leaf(r({2, 3}).abs() * 4 + 0.5)};
       }},
      // The 3-d and adaptive max poolings (Note [Pooling nodes] in
      // nn/functional/pooling_nd.cc). Fixed inputs without ties: distinct
      // multiples of 37 mod a prime, so the maxima are well apart.
      {"max_pool3d_with_indices",
       [](const V& x) {
         return V{std::get<0>(max_pool3d_with_indices(x[0], {2, 2, 2}, {1, 2, 1}, {1, 0, 1})),
                  std::get<0>(max_pool3d_with_indices(x[0], {2, 3, 2}, {2, 1, 2}, {0, 1, 1},
                                                      {1, 1, 2}, true)),
                  std::get<0>(max_pool3d_with_indices(x[0][1], {3, 2, 2}, {1, 1, 1}))};
       },
       [] {
         return V{leaf((arange(192, kDouble) * 37).remainder(193).view({2, 2, 3, 4, 4}) * 0.1)};
       }},
      {"avg_pool3d",
       [](const V& x) {
         return V{avg_pool3d(x[0], {2, 2, 2}, {1, 2, 1}, {1, 0, 1}),
                  avg_pool3d(x[0], {2, 2, 3}, {2, 1, 2}, {0, 1, 1}, true, false),
                  avg_pool3d(x[0], {2, 3, 2}, {1, 1, 2}, {1, 1, 0}, true, true, 5),
                  avg_pool3d(x[0][0], {3, 2, 2}, {1, 1, 1})};
       },
       [] {
         return V{leaf((arange(96, kDouble) * 0.25).sin().view({1, 2, 3, 4, 4}))};
       }},
      {"adaptive_avg_pool3d",
       [](const V& x) {
         return V{adaptive_avg_pool3d(x[0], {2, 3, 2}), adaptive_avg_pool3d(x[0][0], {3, 2, 3})};
       },
       [] {
         return V{leaf((arange(120, kDouble) * 0.3).cos().view({1, 2, 3, 4, 5}))};
       }},
      {"adaptive_max_pool2d",
       [](const V& x) {
         return V{std::get<0>(adaptive_max_pool2d(x[0], {2, 3})),
                  std::get<0>(adaptive_max_pool2d(x[0][0], {3, 2})),
                  std::get<0>(adaptive_max_pool1d(x[0][1], {3}))};
       },
       [] {
         return V{leaf((arange(120, kDouble) * 37).remainder(127).view({2, 3, 4, 5}) * 0.1)};
       }},
      {"adaptive_max_pool3d",
       [](const V& x) {
         return V{std::get<0>(F::adaptive_max_pool3d_with_indices(
                      x[0], F::AdaptiveMaxPool3dFuncOptions({2, 3, 2}))),
                  std::get<0>(F::adaptive_max_pool3d_with_indices(
                      x[0][0], F::AdaptiveMaxPool3dFuncOptions({3, 1, 2})))};
       },
       [] {
         return V{leaf((arange(96, kDouble) * 37).remainder(97).view({1, 2, 3, 4, 4}) * 0.1)};
       }},
      // 1.13's single nodes for composites (autograd/derivatives/nn_composite.cc);
      // fixed inputs, away from ties and zero differences.
      {"_cdist_forward",
       [](const V& x) {
         return V{cdist(x[0], x[1], 0),
                  cdist(x[0], x[1], 0.5),
                  cdist(x[0], x[1], 1),
                  cdist(x[0], x[1], 1.5),
                  cdist(x[0], x[1], 2),
                  cdist(x[0], x[1], 3),
                  cdist(x[0], x[1], std::numeric_limits<double>::infinity())};
       },
       [] {
         return V{leaf((arange(12, kDouble) * 1.3).sin().reshape({2, 2, 3})),
                  leaf((arange(9, kDouble) * 0.7 + 0.2).cos().reshape({3, 3}))};
       }},
      {"_euclidean_dist",
       [](const V& x) {
         return V{cdist(x[0], x[1], 2, 1), cdist(x[0].select(0, 1), x[1], 2, 1)};
       },
       [] {
         return V{leaf((arange(12, kDouble) * 1.3).sin().reshape({2, 2, 3})),
                  leaf((arange(9, kDouble) * 0.7 + 0.2).cos().reshape({3, 3}))};
       }},
      {"_pdist_forward",
       [](const V& x) {
         return V{pdist(x[0], 0),
                  pdist(x[0], 0.5),
                  pdist(x[0], 1),
                  pdist(x[0], 1.5),
                  pdist(x[0], 2),
                  pdist(x[0], 3),
                  pdist(x[0], std::numeric_limits<double>::infinity()),
                  pdist(x[0].t(), 2)};
       },
       [] {
         return V{leaf((arange(12, kDouble) * 1.3).sin().reshape({4, 3}))};
       }},
      {"convolution3d",
       [](const V& x) {
         return V{F::conv3d(x[0], x[1], F::Conv3dFuncOptions().bias(x[2])),
                  F::conv3d(x[0], x[1],
                            F::Conv3dFuncOptions().stride({2, 1, 2}).padding({1, 0, 1}).dilation(
                                {1, 2, 1})),
                  F::conv3d(x[0], x[1].narrow(1, 0, 1),
                            F::Conv3dFuncOptions().bias(x[2]).groups(2).padding({0, 1, 0}))};
       },
       [] {
         return V{leaf((arange(72, kDouble) * 0.9).sin().reshape({1, 2, 4, 3, 3})),
                  leaf((arange(32, kDouble) * 0.7 + 0.3).cos().reshape({2, 2, 2, 2, 2})),
                  dleaf({0.3, -0.4})};
       }},
      {"conv_transpose3d",
       [](const V& x) {
         return V{F::conv_transpose3d(x[0], x[1], F::ConvTranspose3dFuncOptions().bias(x[2])),
                  F::conv_transpose3d(x[0], x[1],
                                      F::ConvTranspose3dFuncOptions()
                                          .stride({2, 1, 2})
                                          .padding({1, 0, 0})
                                          .output_padding({1, 0, 1})),
                  F::conv_transpose3d(
                      x[0], x[1].narrow(1, 0, 1),
                      F::ConvTranspose3dFuncOptions().bias(x[2]).groups(2).dilation({2, 1, 1})),
                  F::conv_transpose3d(
                      x[0], x[1],
                      F::ConvTranspose3dFuncOptions().dilation(2).output_padding({1, 0, 0}))};
       },
       [] {
         return V{leaf((arange(36, kDouble) * 0.9).sin().reshape({1, 2, 3, 2, 3})),
                  leaf((arange(32, kDouble) * 0.7 + 0.3).cos().reshape({2, 2, 2, 2, 2})),
                  dleaf({0.3, -0.4})};
       }},
      {"_embedding_bag",
       [](const V& x) {
         const Tensor idx = longs({1, 2, 4, 5, 4, 3, 2, 9}), off = longs({0, 2, 2, 5});
         using O = F::EmbeddingBagFuncOptions;
         return V{F::embedding_bag(idx, x[0], O().offsets(off).mode(kSum).per_sample_weights(x[1])),
                  F::embedding_bag(idx, x[0], O().offsets(off).mode(kMean).padding_idx(4)),
                  F::embedding_bag(idx, x[0], O().offsets(off).mode(kMax)),
                  F::embedding_bag(idx.view({2, 4}), x[0],
                                   O().mode(kSum).per_sample_weights(x[1].view({2, 4}))),
                  F::embedding_bag(
                      idx, x[0],
                      O().offsets(longs({0, 3, 3, 8})).mode(kMean).include_last_offset(true))};
       },
       [] {
         return V{leaf((arange(30, kDouble) * 1.1).sin().reshape({10, 3})),
                  leaf((arange(8, kDouble) * 0.6).cos())};
       }},
      // nn/functional's losses and activations with 1.13's nodes
      // (autograd/derivatives/nn_more.cc); inputs away from the kinks.
      {"glu",
       [](const V& x) {
         return V{F::glu(x[0]), F::glu(x[0], F::GLUFuncOptions(0))};
       },
       [] {
         return V{leaf(tensor({{0.3, -1.2, 0.8, 2.1}, {-0.4, 0.9, -1.7, 0.2}}))};
       }},
      {"multi_margin_loss",
       [](const V& x) {
         const Tensor t = longs({2, 0, 1});
         const Tensor w = tensor({0.5, 1.5, 2.0}, kDouble);
         return V{F::multi_margin_loss(x[0], t),
                  F::multi_margin_loss(x[0], t, F::MultiMarginLossFuncOptions().reduction(kNone)),
                  F::multi_margin_loss(
                      x[0], t,
                      F::MultiMarginLossFuncOptions().p(2).margin(0.7).weight(w).reduction(kSum)),
                  F::multi_margin_loss(x[0][1], longs({1}),
                                       F::MultiMarginLossFuncOptions().p(2).reduction(kNone))};
       },
       [] {
         return V{leaf(tensor({{0.3, -1.2, 0.8}, {-0.4, 0.9, -1.7}, {1.1, 0.45, -0.2}}))};
       },
       /*second_order=*/false},  // 1.13's *_margin_loss_backward have no derivative
      {"multilabel_margin_loss",
       [](const V& x) {
         const Tensor t = longs({2, 0, -1, 1, 1, 0, 2, 2, -1}).view({3, 3});
         return V{F::multilabel_margin_loss(x[0], t), F::multilabel_margin_loss(x[0], t, kNone),
                  F::multilabel_margin_loss(x[0], t, kSum),
                  F::multilabel_margin_loss(x[0][0], longs({1, -1, 0}), kNone)};
       },
       [] {
         return V{leaf(tensor({{0.3, -1.2, 0.8}, {-0.4, 0.9, -1.7}, {1.1, 0.45, -0.2}}))};
       },
       /*second_order=*/false},  // 1.13's *_margin_loss_backward have no derivative
      {"div_scalar",             // cross_entropy with probabilities, 'mean'
       [](const V& x) {
         return V{F::cross_entropy(x[0], x[1]),
                  F::cross_entropy(x[0], x[1], F::CrossEntropyFuncOptions().label_smoothing(0.2))};
       },
       [] {
         return V{leaf(tensor({{0.3, -1.2, 0.8}, {-0.4, 0.9, -1.7}})),
                  leaf(tensor({{0.2, 0.3, 0.5}, {0.6, 0.1, 0.3}}))};
       }},
      {"mul_scalar",  // cross_entropy's label smoothing with class indices
       [](const V& x) {
         return V{F::cross_entropy(x[0], longs({2, 0}),
                                   F::CrossEntropyFuncOptions().label_smoothing(0.3))};
       },
       [] {
         return V{leaf(tensor({{0.3, -1.2, 0.8}, {-0.4, 0.9, -1.7}}))};
       }},
      {"rrelu_with_noise",
       [](const V& x) {
         manual_seed(3);  // the same slopes at every evaluation
         return V{F::rrelu(x[0]), F::rrelu(x[0], F::RReLUFuncOptions().training(true)),
                  F::rrelu(x[0], F::RReLUFuncOptions().lower(0.2).upper(0.2).training(true))};
       },
       [] {
         return V{dleaf({0.3, -1.2, 0.8, -0.4, 2.1, -1.7})};
       }},
      {"glu_backward", vjp_of([](const Tensor& x) { return F::glu(x, F::GLUFuncOptions(0)); }),
       [] {
         return V{leaf(tensor({{0.3, -1.2, 0.8}, {-0.4, 0.9, -1.7}})),
                  leaf(tensor({{0.5, -0.7, 1.3}}))};
       }},
      {"rrelu_with_noise_backward", vjp_of([](const Tensor& x) {
         manual_seed(3);
         return F::rrelu(x, F::RReLUFuncOptions().training(true)) + F::rrelu(x);
       }),
       [] {
         return V{dleaf({0.3, -1.2, 0.8, -0.4}), dleaf({0.5, -0.7, 1.3, 0.2})};
       }},
      {"rrelu_with_noise_",
       [](const V& x) {
         manual_seed(3);
         Tensor a = x[0] * 1, b = x[0] * 1;
         F::rrelu(a, F::RReLUFuncOptions().inplace(true));
         F::rrelu(b, F::RReLUFuncOptions().training(true).inplace(true));
         return V{a, b};
       },
       [] {
         return V{dleaf({0.3, -1.2, 0.8, -0.4, 2.1, -1.7})};
       }},
  };
  add_upsample_cases(all);
  return all;
}

// gradcheck's report for a case ("" when it passes).
std::string check(const Case& c) {
  autograd::GradcheckOptions o;
  o.check_grad_grad = c.second_order;
  o.eps = c.eps;
  o.atol = c.atol;
  try {
    return autograd::gradcheck(c.fn, c.inputs(), o);
  } catch (const std::exception& e) {
    return std::string("threw: ") + e.what();
  }
}

TEST(Gradcheck, EveryCase) {
  manual_seed(0);
  for (const Case& c : cases()) EXPECT_EQ(check(c), "") << c.op;
}

// tensor/composite_ops.h's ops whose gradients are their compositions'
// (1.13 records them as their parts too; the ones it records as one node
// are in cases()).
TEST(Gradcheck, CompositeOps) {
  using V = variable_list;
  const std::vector<Case> composite = {
      {"kron", [](const V& x) { return V{x[0].kron(x[1])}; },
       [] {
         return V{rt(2, 3), leaf(r({2, 2}))};
       }},
      {"diff",
       [](const V& x) {
         return V{x[0].diff(2), x[0].diff(1, 0, x[1])};
       },
       [] {
         return V{rt(3, 4), leaf(r({1, 4}))};
       }},
  };
  for (const Case& c : composite) EXPECT_EQ(check(c), "") << c.op;
}

// tensor/special.h's compositions (ldexp, float_power), and PyTorch
// 1.13's gradients and node names for every differentiable op of the file
// (tensor/testdata/special_golden.inc, tools/golden/special.py).
TEST(Gradcheck, SpecialOps) {
  using V = variable_list;
  const std::vector<Case> composite = {
      {"ldexp", [](const V& x) { return V{x[0].ldexp(x[1])}; },
       [] {
         return V{rt(2, 3), leaf(r({3}))};
       }},
      {"float_power",
       [](const V& x) {
         return V{(x[0].abs() + 0.5).float_power(x[1]), x[0].float_power(2)};
       },
       [] {
         return V{rt(2, 3), leaf(r({3}))};
       }},
  };
  for (const Case& c : composite) EXPECT_EQ(check(c), "") << c.op;
  // tensor/more_ops.h's compositions.
  const std::vector<Case> more = {
      {"mvlgamma", [](const V& x) { return V{(x[0].abs() + 2).mvlgamma(3)}; },
       [] { return V{rt(2, 3)}; }},
      {"renorm",
       [](const V& x) {
         return V{x[0].renorm(2, 0, 0.5), x[0].renorm(1, 1, 0.7)};
       },
       [] { return V{rt(3, 4)}; }},
      {"cov",
       [](const V& x) {
         return V{x[0].cov(), x[0].corrcoef()};
       },
       [] { return V{rt(3, 4)}; }},
      {"put",
       [](const V& x) {
         return V{x[0].put(tensor({0, 5, -1}, kLong), x[1], true)};
       },
       [] {
         return V{rt(2, 3), leaf(r({3}))};
       }},
  };
  for (const Case& c : more) EXPECT_EQ(check(c), "") << c.op;

  struct GradCase {
    const char* op;
    int64_t arg;
    std::vector<double> a, b, grad_a, grad_b;
    const char* node;
  };
  const std::vector<GradCase> golden = {
#define EMBER_SPECIAL_GRAD_CASES
#include "tensor/testdata/special_golden.inc"
#undef EMBER_SPECIAL_GRAD_CASES
  };
  ASSERT_EQ(golden.size(), 11u);
  for (const GradCase& c : golden) {
    SCOPED_TRACE(c.op);
    const std::string op = c.op;
    Tensor a = leaf(tensor(c.a, kDouble));
    Tensor b = c.b.empty() ? Tensor() : leaf(tensor(c.b, kDouble));
    Tensor y;
    if (op == "erfinv") y = a.erfinv();
    if (op == "lgamma") y = a.lgamma();
    if (op == "digamma") y = a.digamma();
    if (op == "polygamma") y = a.polygamma(c.arg);
    if (op == "i0") y = a.i0();
    if (op == "i1") y = special_i1(a);
    if (op == "sinc") y = a.sinc();
    if (op == "copysign") y = a.copysign(b);
    if (op == "hypot") y = a.hypot(b);
    if (op == "ldexp") y = a.ldexp(b);
    if (op == "float_power") y = a.float_power(b);
    ASSERT_TRUE(y.defined());
    EXPECT_EQ(y.grad_fn()->name(), c.node);
    y.sum().backward();
    EXPECT_TRUE(a.grad().allclose(tensor(c.grad_a, kDouble), 1e-10, 1e-12))
        << a.grad() << " want " << tensor(c.grad_a, kDouble);
    if (b.defined()) {
      EXPECT_TRUE(b.grad().allclose(tensor(c.grad_b, kDouble), 1e-10, 1e-12))
          << b.grad() << " want " << tensor(c.grad_b, kDouble);
    }
  }
}

// tensor/sort_ops.h's compositions (their gradients are their parts').
TEST(Gradcheck, SortOps) {
  using V = variable_list;
  const std::vector<Case> composite = {
      {"quantile",
       [](const V& x) {
         return V{x[0].quantile(0.3), x[0].quantile(tensor({0.25, 0.8}, kDouble), 1, true),
                  x[0].nanquantile(0.6, 0, false, "midpoint"),
                  x[0].quantile(0.5, -1, false, "lower")};
       },
       [] { return V{rt(3, 4)}; }},
      {"msort", [](const V& x) { return V{x[0].msort()}; }, [] { return V{rt(3, 4)}; }},
  };
  for (const Case& c : composite) EXPECT_EQ(check(c), "") << c.op;
}

// With ties the node formulas give PyTorch's gradients (values from
// tools/golden/sort_ops.py): median() shares among equal elements, the
// dim forms and cummax/cummin follow their indices.
TEST(Gradcheck, SortOpsTiesMatchPyTorch) {
  using Fn = std::function<Tensor(const Tensor&)>;
  const std::vector<std::pair<Fn, std::vector<double>>> cases = {
      {[](const Tensor& g) { return g.median(); },
       {0.3333333333333333, 0.0, 0.3333333333333333, 0.0, 0.0, 0.3333333333333333, 0.0, 0.0}},
      {[](const Tensor& g) { return std::get<0>(g.median(1)); },
       {1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0}},
      {[](const Tensor& g) { return g.nanmedian(); },
       {0.3333333333333333, 0.0, 0.3333333333333333, 0.0, 0.0, 0.3333333333333333, 0.0, 0.0}},
      {[](const Tensor& g) { return std::get<0>(g.mode(1)); },
       {0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 2.0, 0.0}},
      {[](const Tensor& g) { return std::get<0>(g.cummax(1)); },
       {1.0, 9.0, 0.0, 0.0, 11.0, 0.0, 15.0, 0.0}},
      {[](const Tensor& g) { return std::get<0>(g.cummin(1)); },
       {3.0, 0.0, 3.0, 4.0, 5.0, 21.0, 0.0, 0.0}},
      {[](const Tensor& g) { return g.logcumsumexp(1); },
       {2.924907676889966, 5.232441559551309, 1.3870248341499753, 0.4556259294087488,
        16.75884662090408, 1.59138683797594, 6.474064153036788, 1.175702388083183}},
      {[](const Tensor& g) { return g.quantile(0.4, 1); },
       {0.7999999999999998, 0.0, 0.20000000000000018, 0.0, 0.40000000000000036, 0.0, 0.0,
        1.5999999999999996}},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const Tensor g = leaf(tensor({{1.0, 2.0, 1.0, 0.5}, {3.0, 1.0, 3.0, 2.0}}, kDouble));
    const Tensor out = cases[i].first(g);
    const Tensor w = arange(1.0, out.numel() + 1.0, kDouble).reshape(out.sizes());
    const Tensor got = autograd::grad({out}, {g}, {w})[0];
    const Tensor want = tensor(cases[i].second, kDouble).view({2, 4});
    EXPECT_TRUE(got.allclose(want, 1e-12, 1e-12)) << "case " << i << ": " << got;
  }
}

// shape_ops.h's compositions (their gradients are those of the ops they are
// made of) and in-place forms; the recorded ones are in cases().
TEST(Gradcheck, ShapeOps) {
  using V = variable_list;
  const std::vector<Case> shape_ops = {
      {"tile",
       [](const V& x) {
         return V{x[0].tile({2}), x[0].tile({2, 1, 2})};
       },
       [] { return V{rt(2, 3)}; }},
      {"repeat_interleave",
       [](const V& x) {
         return V{x[0].repeat_interleave(2), x[0].repeat_interleave(longs({0, 2, 1}), 1)};
       },
       [] { return V{rt(2, 3)}; }},
      {"ravel_flip",
       [](const V& x) {
         return V{x[0].ravel(), x[0].fliplr(), x[0].flipud()};
       },
       [] { return V{rt(2, 3)}; }},
      {"tensor_split",
       [](const V& x) {
         V out = x[0].tensor_split(2, 1);
         for (const Tensor& t : x[0].hsplit(IntArrayRef({1}))) out.push_back(t);
         return out;
       },
       [] { return V{rt(2, 3)}; }},
      {"take_along_dim",
       [](const V& x) {
         return V{x[0].take_along_dim(longs({2, 0}).view({2, 1}), 1),
                  x[0].take_along_dim(longs({1, 0}).view({2, 1}), 0)};
       },
       [] { return V{rt(2, 3)}; }},
      {"moveaxis",
       [](const V& x) {
         return V{x[0].moveaxis({0, 1}, {2, 0}), x[0].swapaxes(0, -1), x[0].moveaxis(0, 1)};
       },
       [] {
         return V{leaf(r({2, 3, 4}))};
       }},
      {"sum_to_size",
       [](const V& x) {
         return V{x[0].sum_to_size({1, 3}), x[0].sum_to_size({3})};
       },
       [] { return V{rt(2, 3)}; }},
      {"inner",
       [](const V& x) {
         return V{x[0].inner(x[1]), x[1][0].inner(x[1][1])};
       },
       [] {
         return V{rt(2, 3), leaf(r({4, 3}))};
       }},
      {"matrix_power",
       [](const V& x) {
         return V{x[0].matrix_power(0), x[0].matrix_power(1), x[0].matrix_power(3),
                  x[0].matrix_power(5)};
       },
       [] {
         return V{leaf(r({2, 2, 2}) * 0.5)};
       }},
      {"diagflat",
       [](const V& x) {
         return V{x[0].diagflat(), x[0].diagflat(-1)};
       },
       [] { return V{rt(2, 2)}; }},
      {"inplace",
       [](const V& x) {
         Tensor v = x[0] * 1, m = x[1] * 1, b = x[3] * 1;
         v.addmv_(x[1], x[2], 0.5, 2);
         m.addr_(x[0], x[2]);
         Tensor sq = x[1].matmul(x[1].t());
         sq.addbmm_(x[3], x[3].transpose(1, 2), 2, 0.5);
         b.baddbmm_(x[3], x[3].transpose(1, 2), 0.5);
         return V{v, m, sq, b};
       },
       [] {
         return V{leaf(r({2})), rt(2, 3), leaf(r({3})), leaf(r({1, 2, 2}))};
       }},
  };
  for (const Case& c : shape_ops) EXPECT_EQ(check(c), "") << c.op;
}

TEST(Gradcheck, CasesNameTheirTableEntry) {
  std::set<std::string> registered;
  for (const std::string& n : autograd::registered_derivatives()) registered.insert(n);
  for (const Case& c : cases()) EXPECT_TRUE(registered.count(c.op)) << c.op;
}

// The registry is complete only if every derivative is checked: a new
// table entry needs a case here.
TEST(Gradcheck, EveryRegisteredDerivativeHasACase) {
  std::set<std::string> covered;
  for (const Case& c : cases()) covered.insert(c.op);
  for (const std::string& n : autograd::registered_derivatives()) {
    EXPECT_TRUE(covered.count(n)) << "no gradcheck case for the derivative of '" << n << "'";
  }
}

TEST(Gradcheck, DetectsAWrongGradient) {
  // A deliberately wrong derivative (a hook doubles the gradient) fails.
  autograd::GradcheckFn f = [](const variable_list& x) {
    Tensor y = x[0] * 1;
    if (y.requires_grad()) y.register_hook([](const Tensor& g) { return g * 2; });
    return variable_list{y.sin()};
  };
  std::string msg = autograd::gradcheck(f, {leaf(tensor({0.3, 0.4}))});
  EXPECT_NE(msg.find("Jacobian mismatch"), std::string::npos) << msg;
}

TEST(Gradcheck, RejectsFloat32Inputs) {
  autograd::GradcheckFn f = [](const variable_list& x) { return variable_list{x[0] * 2}; };
  EXPECT_EQ(autograd::gradcheck(f, {ones({2}, requires_grad())}),
            "input 0 is not float64: gradcheck needs double precision");
}

}  // namespace
}  // namespace ember
