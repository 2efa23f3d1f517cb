// The registry-driven gradient test: every case is checked against central
// finite differences in float64 (first and, where marked, second order),
// with contiguous, non-contiguous (transposed) and broadcast inputs.
#include <set>

#include "autograd/autograd.h"
#include "autograd/derivatives.h"
#include "gtest/gtest.h"
#include "tensor/all.h"

namespace ember {
namespace {

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

std::vector<Case> cases() {
  using V = variable_list;
  auto un = [](Tensor (*f)(const Tensor&)) {
    return [f](const V& x) { return V{f(x[0])}; };
  };
  return {
      {"add", [](const V& x) { return V{x[0].add(x[1], 2.5)}; },
       [] { return V{leaf(r({2, 3})), leaf(r({3}))}; }},
      {"sub", [](const V& x) { return V{x[0] - x[1]}; }, [] { return V{rt(2, 3), leaf(r({2, 1}))}; }},
      {"mul", [](const V& x) { return V{x[0] * x[1]}; }, [] { return V{rt(2, 3), leaf(r({3}))}; }},
      {"div", [](const V& x) { return V{x[0] / x[1]}; }, [] { return V{leaf(r({2, 3})), pos({3})}; }},
      {"neg", un(&neg), [] { return V{rt(2, 3)}; }},
      {"abs", un(&abs), [] { return V{pos({4})}; }},
      {"sqrt", un(&sqrt), [] { return V{pos({2, 3})}; }},
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
       [] { return V{pos({2, 3}), leaf(r({3}))}; }},
      {"clamp", [](const V& x) { return V{x[0].clamp(-0.5, 0.5)}; },
       [] { return V{leaf(tensor({-1.0, -0.2, 0.3, 0.9}))}; }, false},
      {"maximum", [](const V& x) { return V{maximum(x[0], x[1])}; },
       [] { return V{leaf(tensor({1.0, -2.0, 3.0})), leaf(tensor({0.0, 1.0, 5.0}))}; }, false},
      {"minimum", [](const V& x) { return V{minimum(x[0], x[1])}; },
       [] { return V{leaf(tensor({1.0, -2.0, 3.0})), leaf(tensor({0.0, 1.0, 5.0}))}; }, false},
      {"atan2", [](const V& x) { return V{atan2(x[0], x[1])}; },
       [] { return V{leaf(r({3})), pos({3})}; }},
      {"addcmul", [](const V& x) { return V{addcmul(x[0], x[1], x[2], 0.5)}; },
       [] { return V{leaf(r({3})), leaf(r({2, 3})), leaf(r({3}))}; }},
      {"addcdiv", [](const V& x) { return V{addcdiv(x[0], x[1], x[2], 0.5)}; },
       [] { return V{leaf(r({3})), leaf(r({2, 3})), pos({3})}; }},
      // Through float32 the finite differences need a larger step.
      {"to", [](const V& x) { return V{x[0].to(kFloat).to(kDouble) * 1}; },
       [] { return V{leaf(tensor({0.5, 0.25}))}; }, true, 1e-3, 1e-3},
      {"clone", [](const V& x) { return V{x[0].clone()}; }, [] { return V{rt(2, 3)}; }},
      {"sum_all", [](const V& x) { return V{x[0].sum()}; }, [] { return V{rt(2, 3)}; }},
      {"sum", [](const V& x) { return V{x[0].sum({1}, true)}; }, [] { return V{rt(2, 3)}; }},
      {"mean_all", [](const V& x) { return V{x[0].mean()}; }, [] { return V{rt(2, 3)}; }},
      {"mean", [](const V& x) { return V{x[0].mean({0})}; }, [] { return V{rt(2, 3)}; }},
      {"prod", [](const V& x) { return V{x[0].prod(1)}; }, [] { return V{leaf(r({2, 3}))}; }},
      {"max_all", [](const V& x) { return V{x[0].max()}; }, [] { return V{leaf(r({5}))}; }},
      {"min_all", [](const V& x) { return V{x[0].min()}; }, [] { return V{leaf(r({5}))}; }},
      {"max_dim", [](const V& x) { return V{std::get<0>(x[0].max(1))}; },
       [] { return V{rt(3, 4)}; }},
      {"min_dim", [](const V& x) { return V{std::get<0>(x[0].min(0, true))}; },
       [] { return V{rt(3, 4)}; }},
      {"amax", [](const V& x) { return V{x[0].amax({1})}; }, [] { return V{leaf(r({3, 4}))}; }},
      {"amin", [](const V& x) { return V{x[0].amin({0}, true)}; }, [] { return V{leaf(r({3, 4}))}; }},
      {"var", [](const V& x) { return V{x[0].var({1})}; }, [] { return V{rt(3, 4)}; }},
      {"std", [](const V& x) { return V{x[0].std()}; }, [] { return V{leaf(r({5}))}; }},
      {"norm", [](const V& x) { return V{x[0].norm(2, {1}), x[0].norm(3), x[0].norm(1)}; },
       [] { return V{leaf(r({2, 3}))}; }},
      {"logsumexp", [](const V& x) { return V{x[0].logsumexp({1})}; }, [] { return V{rt(3, 2)}; }},
      {"softmax", [](const V& x) { return V{x[0].softmax(1)}; }, [] { return V{rt(3, 2)}; }},
      {"log_softmax", [](const V& x) { return V{x[0].log_softmax(0)}; }, [] { return V{rt(3, 2)}; }},
      {"cumsum", [](const V& x) { return V{x[0].cumsum(1)}; }, [] { return V{rt(3, 2)}; }},
      {"mm", [](const V& x) { return V{x[0].mm(x[1])}; }, [] { return V{rt(2, 3), leaf(r({3, 2}))}; }},
      {"bmm", [](const V& x) { return V{x[0].bmm(x[1])}; },
       [] { return V{leaf(r({2, 2, 3})), leaf(r({2, 3, 2}))}; }},
      {"mv", [](const V& x) { return V{x[0].mv(x[1])}; }, [] { return V{rt(2, 3), leaf(r({3}))}; }},
      {"dot", [](const V& x) { return V{x[0].dot(x[1])}; }, [] { return V{leaf(r({3})), leaf(r({3}))}; }},
      {"outer", [](const V& x) { return V{x[0].outer(x[1])}; }, [] { return V{leaf(r({3})), leaf(r({2}))}; }},
      {"addmm", [](const V& x) { return V{addmm(x[0], x[1], x[2], 0.5, 2)}; },
       [] { return V{leaf(r({2})), rt(2, 3), leaf(r({3, 2}))}; }},
      {"matmul",
       [](const V& x) { return V{x[0].matmul(x[1]), x[1].matmul(x[2]), x[3].matmul(x[1])}; },
       [] { return V{leaf(r({2, 1, 2, 3})), leaf(r({3, 3, 2})), leaf(r({2})), leaf(r({3}))}; }},
      {"view", [](const V& x) { return V{x[0].view({3, 2}), x[0].reshape({6})}; },
       [] { return V{leaf(r({2, 3}))}; }},
      {"squeeze", [](const V& x) { return V{x[0].squeeze() * 2}; }, [] { return V{leaf(r({1, 3, 1}))}; }},
      {"squeeze_dim", [](const V& x) { return V{x[0].squeeze(0) * 2}; }, [] { return V{leaf(r({1, 3}))}; }},
      {"unsqueeze", [](const V& x) { return V{x[0].unsqueeze(1) * 2}; }, [] { return V{rt(2, 3)}; }},
      {"expand", [](const V& x) { return V{x[0].expand({2, 2, 3}) * 2}; }, [] { return V{leaf(r({2, 1, 3}))}; }},
      {"transpose", [](const V& x) { return V{x[0].transpose(0, 2) * 2}; }, [] { return V{leaf(r({2, 3, 2}))}; }},
      {"permute", [](const V& x) { return V{x[0].permute({2, 0, 1}) * 2}; }, [] { return V{leaf(r({2, 3, 2}))}; }},
      {"select", [](const V& x) { return V{x[0].select(1, -1) * 2}; }, [] { return V{rt(3, 2)}; }},
      {"slice", [](const V& x) { return V{x[0].slice(1, 1, 5, 2) * 2, x[0].narrow(0, 1, 1) * 3}; },
       [] { return V{leaf(r({2, 5}))}; }},
      {"diagonal", [](const V& x) { return V{x[0].diagonal(1) * 2}; }, [] { return V{leaf(r({3, 3}))}; }},
  };
}

TEST(Gradcheck, EveryCase) {
  manual_seed(0);
  for (const Case& c : cases()) {
    autograd::GradcheckOptions o;
    o.check_grad_grad = c.second_order;
    o.eps = c.eps;
    o.atol = c.atol;
    EXPECT_EQ(autograd::gradcheck(c.fn, c.inputs(), o), "") << c.op;
  }
}

TEST(Gradcheck, CasesNameTheirTableEntry) {
  std::set<std::string> registered;
  for (const std::string& n : autograd::registered_derivatives()) registered.insert(n);
  for (const Case& c : cases()) EXPECT_TRUE(registered.count(c.op)) << c.op;
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
