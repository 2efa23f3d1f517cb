// nn::utils' reparametrizations against PyTorch 1.13
// (tools/golden/nn_utils_parametrize.py): weight_norm, spectral_norm (and
// its loading of version-0 state dicts), parametrize (with several
// originals, assignment and transfer) and prune (new parameters and
// buffers, outputs, gradients, power-iteration vectors, masks, state_dict
// keys, printed forms, errors), gradients against finite differences in
// float64, and the forward hooks they run on (Note [Forward hooks] in
// nn/module.h) and load_state_dict pre-hooks.

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "nn/container.h"
#include "nn/conv.h"
#include "nn/linear.h"
#include "nn/normalization.h"
#include "nn/test_golden.h"
#include "nn/utils/parametrize.h"
#include "nn/utils/prune.h"
#include "nn/utils/weight_norm.h"
#include "tensor/all.h"

namespace ember {
namespace nn {
namespace {

using ::ember::testing::golden_tensor;
using ::ember::testing::make_input;
using ::ember::testing::near_golden;

const ::ember::testing::GoldenEntry kGolden[] = {
#include "nn/testdata/nn_utils_parametrize_golden.inc"
};
const ::ember::testing::GoldenError kErrors[] = {
#include "nn/testdata/nn_utils_parametrize_errors_golden.inc"
};
const testing::GoldenString kStrings[] = {
#include "nn/testdata/nn_utils_parametrize_strings_golden.inc"
};
constexpr testing::GoldenTables kTables(kGolden, kErrors, kStrings);

namespace P = utils::parametrize;
namespace prune = utils::prune;

// Float32 results within 2e-6 relative, float64 within 1e-12 (PyTorch's
// fused weight-norm kernel and BLAS order differ from ember's by ulps).
::testing::AssertionResult near(const Tensor& t, const std::string& name) {
  const double rel = t.dtype() == kDouble ? 1e-12 : 2e-6;
  return near_golden(t, kTables.golden(name), t.dtype(), rel);
}

// set_linear() in the generator: mk() weights and bias.
template <typename M>
void set_weights(M& m, int64_t seed = 0, double scale = 0.5) {
  NoGradGuard no_grad;
  const ScalarType dt = m->weight.dtype();
  m->weight.copy_(make_input(m->weight.sizes(), dt, seed) * scale + 0.125);
  if (m->bias.defined()) m->bias.copy_(make_input(m->bias.sizes(), dt, seed + 5) * 0.5);
}

std::string names(const NamedTensors& tensors) {
  std::vector<std::string> lines;
  for (const auto& [name, t] : tensors) {
    lines.push_back(absl::StrCat(name, " [", absl::StrJoin(t.sizes(), ", "), "]"));
  }
  return absl::StrJoin(lines, "\n");
}

std::string keys(const NamedTensors& tensors) {
  std::vector<std::string> out;
  for (const auto& kv : tensors) out.push_back(kv.first);
  return absl::StrJoin(out, "\n");
}

// sum(y * mk(y.shape, seed 7)).backward(), as the generator's.
void backward_weighted(const Tensor& y) {
  (y * make_input(y.sizes(), y.dtype(), 7)).sum().backward();
}

void expect_grads(Module& m, const std::string& prefix) {
  for (const auto& [name, p] : m.named_parameters()) {
    EXPECT_TRUE(near(p.grad(), prefix + "/grad/" + name)) << name;
  }
}

std::string dtype_tag(ScalarType dt) { return dt == kDouble ? "f64" : "f32"; }

using ::ember::testing::error_of;

// --- forward hooks ---------------------------------------------------------------------

struct PairOutImpl : Module {
  std::pair<Tensor, Tensor> forward(const Tensor& x) { return {x, x}; }
};
EMBER_MODULE(PairOut);

TEST(ForwardHooksTest, RunAroundTheCallInOrderAndCanBeRemoved) {
  Linear fc(2, 2);
  std::vector<std::string> calls;
  RemovableHandle pre =
      fc->register_forward_pre_hook([&](Module& m, const std::vector<Tensor>& inputs) {
        calls.push_back(absl::StrCat("pre ", m.name(), " ", inputs.size()));
      });
  fc->register_forward_pre_hook(
      [&](Module&, const std::vector<Tensor>&) { calls.push_back("pre2"); });
  RemovableHandle post =
      fc->register_forward_hook([&](Module&, const std::vector<Tensor>& inputs, Tensor& out) {
        calls.push_back("post");
        out = out + inputs[0].sum();  // replaces the output
      });
  const Tensor x = ones({1, 2});
  const Tensor plain = fc->forward(x);  // forward() itself runs no hooks
  EXPECT_TRUE(calls.empty());
  const Tensor hooked = fc(x);
  EXPECT_EQ(absl::StrJoin(calls, ","), "pre Linear 1,pre2,post");
  EXPECT_TRUE(hooked.allclose(plain + 2));
  pre.remove();
  pre.remove();  // twice: nothing
  post.remove();
  calls.clear();
  EXPECT_TRUE(fc(x).allclose(plain));
  EXPECT_EQ(absl::StrJoin(calls, ","), "pre2");
  // Inside Sequential too.
  Sequential seq(fc);
  calls.clear();
  seq(x);
  EXPECT_EQ(absl::StrJoin(calls, ","), "pre2");
  // A handle outliving its module.
  RemovableHandle dangling;
  {
    Linear other(2, 2);
    dangling = other->register_forward_pre_hook([](Module&, const std::vector<Tensor>&) {});
  }
  dangling.remove();
}

TEST(ForwardHooksTest, ForwardHooksNeedATensorOutput) {
  PairOut m;
  int pre_calls = 0;
  m->register_forward_pre_hook([&](Module&, const std::vector<Tensor>&) { ++pre_calls; });
  m(ones({2}));
  EXPECT_EQ(pre_calls, 1);
  m->register_forward_hook([](Module&, const std::vector<Tensor>&, Tensor&) {});
  EXPECT_THROW(m(ones({2})), Error);
}

TEST(LoadStateDictPreHookTest, RewritesTheDictBeforeTheModuleReadsIt) {
  Sequential seq(Linear(2, 2));
  auto inner = seq->get_submodule("0");
  std::vector<std::string> prefixes;
  RemovableHandle handle = inner->register_load_state_dict_pre_hook(
      [&](NamedTensors& dict, const std::string& prefix, std::vector<std::string>& missing,
          std::vector<std::string>&, std::vector<std::string>&) {
        prefixes.push_back(prefix);
        // An old name for the weight.
        for (auto& kv : dict) {
          if (kv.first == prefix + "w") kv.first = prefix + "weight";
        }
        missing.push_back("from the hook");
      });
  NamedTensors given{{"0.w", full({2, 2}, 3.0f)}, {"0.bias", zeros({2})}};
  const IncompatibleKeys keys = seq->load_state_dict(given, /*strict=*/false);
  EXPECT_EQ(absl::StrJoin(prefixes, ","), "0.");
  EXPECT_TRUE(inner->get_parameter("weight").equal(full({2, 2}, 3.0f)));
  EXPECT_EQ(absl::StrJoin(keys.missing_keys, ","), "from the hook");
  EXPECT_TRUE(keys.unexpected_keys.empty());
  EXPECT_EQ(given[0].first, "0.w");  // the caller's dict is not changed
  handle.remove();
  prefixes.clear();
  EXPECT_THROW(seq->load_state_dict(given), Error);  // "0.w" unexpected now
  EXPECT_TRUE(prefixes.empty());
}

// --- weight_norm -------------------------------------------------------------------------

TEST(WeightNormTest, LinearMatchesPyTorch) {
  for (ScalarType dt : {kFloat, kDouble}) {
    for (auto [dim_name, dim] : std::vector<std::pair<std::string, std::optional<int64_t>>>{
             {"dim0", 0}, {"dim1", 1}, {"none", std::nullopt}}) {
      SCOPED_TRACE(dim_name);
      Linear m(4, 3);
      m->to(dt);
      set_weights(m);
      utils::weight_norm(*m, "weight", dim);
      const std::string pre = absl::StrCat("wn/linear_", dim_name, "/", dtype_tag(dt));
      EXPECT_TRUE(near(m->get_parameter("weight_g"), pre + "/weight_g"));
      EXPECT_TRUE(near(m->get_parameter("weight_v"), pre + "/weight_v"));
      const Tensor y = m(make_input({5, 4}, kFloat, 3).to(dt));
      EXPECT_TRUE(near(y, pre + "/out"));
      EXPECT_TRUE(near(m->weight, pre + "/weight"));
      backward_weighted(y);
      expect_grads(*m, pre);
    }
  }
}

TEST(WeightNormTest, NamesStateDictAndRemoveMatchPyTorch) {
  Linear m(4, 3);
  set_weights(m);
  utils::weight_norm(*m);
  EXPECT_EQ(names(m->named_parameters()), kTables.golden_string("wn.params"));
  EXPECT_EQ(keys(m->state_dict()), kTables.golden_string("wn.state_dict"));
  EXPECT_EQ(m->repr(), kTables.golden_string("wn.repr"));
  {
    NoGradGuard no_grad;
    m->get_parameter("weight_g").mul_(2);
  }
  utils::remove_weight_norm(*m);
  EXPECT_TRUE(near(m->weight, "wn/removed/weight"));
  EXPECT_TRUE(m->weight.is_leaf());
  EXPECT_TRUE(m->weight.requires_grad());
  EXPECT_TRUE(m->weight.is_same(m->get_parameter("weight")));
  EXPECT_EQ(names(m->named_parameters()), kTables.golden_string("wn.removed_params"));

  Conv1d c(2, 3, 3);
  set_weights(c);
  utils::weight_norm(*c, "weight", 0);
  EXPECT_TRUE(near(c->get_parameter("weight_g"), "wn/conv1d/weight_g"));
  const Tensor y = c(make_input({2, 2, 5}, kFloat, 1));
  EXPECT_TRUE(near(y, "wn/conv1d/out"));
  backward_weighted(y);
  expect_grads(*c, "wn/conv1d");

  Linear b(4, 3);
  set_weights(b);
  utils::weight_norm(*b, "bias");
  EXPECT_TRUE(near(b->get_parameter("bias_g"), "wn/bias/bias_g"));
  EXPECT_TRUE(near(b(make_input({5, 4}, kFloat, 3)), "wn/bias/out"));
  EXPECT_EQ(names(b->named_parameters()), kTables.golden_string("wn.bias_params"));
}

TEST(WeightNormTest, GradientsMatchFiniteDifferences) {
  Linear m(4, 3);
  m->to(kDouble);
  set_weights(m);
  utils::weight_norm(*m, "weight", 1);
  const Tensor x = make_input({2, 4}, kDouble, 3).requires_grad_();
  // gradcheck perturbs the inputs in place: the module's own parameters.
  EXPECT_EQ(autograd::gradcheck(
                [&](const autograd::variable_list&) { return autograd::variable_list{m(x)}; },
                {m->get_parameter("weight_g"), m->get_parameter("weight_v"), x}),
            "");
}

TEST(WeightNormTest, TwoCallsBeforeBackwardAccumulate) {
  Linear m(4, 3);
  set_weights(m);
  utils::weight_norm(*m);
  const Tensor x = make_input({5, 4}, kFloat, 3);
  (m(x).sum() + m(x * 2).sum()).backward();
  const Tensor g2 = m->get_parameter("weight_v").grad().clone();
  m->zero_grad();
  m(x * 3).sum().backward();
  EXPECT_TRUE(g2.allclose(m->get_parameter("weight_v").grad(), 1e-5, 1e-6));
}

// --- spectral_norm -----------------------------------------------------------------------

TEST(SpectralNormTest, PowerIterationMatchesPyTorch) {
  const Tensor x = make_input({5, 4}, kFloat, 3);
  for (int64_t n_iter : {1, 3}) {
    SCOPED_TRACE(n_iter);
    manual_seed(0);
    Linear m(4, 3);
    set_weights(m);
    utils::spectral_norm(*m, "weight", n_iter);
    const std::string pre = absl::StrCat("sn/linear_it", n_iter);
    EXPECT_TRUE(near(m->get_buffer("weight_u"), pre + "/u0"));
    EXPECT_TRUE(near(m->get_buffer("weight_v"), pre + "/v0"));
    EXPECT_TRUE(near(m->get_parameter("weight_orig"), pre + "/weight_orig"));
    for (int step : {1, 2}) {
      const std::string s = absl::StrCat(pre, "/step", step);
      EXPECT_TRUE(near(m(x * step), s + "/out"));
      EXPECT_TRUE(near(m->get_buffer("weight_u"), s + "/u"));
      EXPECT_TRUE(near(m->get_buffer("weight_v"), s + "/v"));
      EXPECT_TRUE(near(m->weight, s + "/weight"));
    }
    m->zero_grad();
    backward_weighted(m(x));
    expect_grads(*m, pre);
    EXPECT_TRUE(near(m->get_buffer("weight_u"), pre + "/u3"));
    m->eval();
    EXPECT_TRUE(near(m(x), pre + "/eval_out"));
    EXPECT_TRUE(near(m->get_buffer("weight_u"), pre + "/eval_u"));
  }
}

TEST(SpectralNormTest, InitialVectorsAndConvDimsMatchPyTorch) {
  manual_seed(1);
  Linear big(20, 17);
  utils::spectral_norm(*big);
  // normal_'s vectorized path (16 values or more), bit for bit, then normalized.
  EXPECT_TRUE(near(big->get_buffer("weight_u"), "sn/big/u0"));
  EXPECT_TRUE(near(big->get_buffer("weight_v"), "sn/big/v0"));

  const Tensor xc = make_input({1, 2, 3, 3}, kFloat, 2);
  manual_seed(2);
  ConvTranspose2d ct(2, 3, 2);
  set_weights(ct);
  utils::spectral_norm(*ct);  // dim 1
  EXPECT_TRUE(near(ct->get_buffer("weight_u"), "sn/convt/u0"));
  EXPECT_TRUE(near(ct->get_buffer("weight_v"), "sn/convt/v0"));
  EXPECT_TRUE(near(ct(xc), "sn/convt/out"));
  EXPECT_TRUE(near(ct->get_buffer("weight_u"), "sn/convt/u1"));
  manual_seed(2);
  Conv2d cv(2, 3, 2);
  set_weights(cv);
  utils::spectral_norm(*cv, "weight", 1, 1e-6);
  EXPECT_TRUE(near(cv->get_buffer("weight_u"), "sn/conv/u0"));
  EXPECT_TRUE(near(cv->get_buffer("weight_v"), "sn/conv/v0"));
  EXPECT_TRUE(near(cv(xc), "sn/conv/out"));
}

TEST(SpectralNormTest, NamesAndRemoveMatchPyTorch) {
  const Tensor x = make_input({5, 4}, kFloat, 3);
  Linear m(4, 3);
  utils::spectral_norm(*m);
  EXPECT_EQ(names(m->named_parameters()), kTables.golden_string("sn.params"));
  EXPECT_EQ(names(m->named_buffers()), kTables.golden_string("sn.buffers"));
  EXPECT_EQ(keys(m->state_dict()), kTables.golden_string("sn.state_dict"));

  manual_seed(0);
  Linear r(4, 3);
  set_weights(r);
  utils::spectral_norm(*r);
  r(x);
  utils::remove_spectral_norm(*r);
  EXPECT_TRUE(near(r->weight, "sn/removed/weight"));
  EXPECT_TRUE(r->weight.is_leaf());
  EXPECT_EQ(names(r->named_parameters()), kTables.golden_string("sn.removed_params"));
  EXPECT_EQ(keys(r->state_dict()), kTables.golden_string("sn.removed_state_dict"));
  r(x);  // no hook left

  manual_seed(0);
  Linear d(4, 3);
  d->to(kDouble);
  set_weights(d);
  utils::spectral_norm(*d);
  d->eval();
  const Tensor y = d(x.to(kDouble));
  EXPECT_TRUE(near(y, "sn/f64_eval/out"));
  backward_weighted(y);
  expect_grads(*d, "sn/f64_eval");
  // In eval mode u and v stay: the weight is a function of weight_orig.
  const Tensor xd = make_input({2, 4}, kDouble, 1).requires_grad_();
  EXPECT_EQ(autograd::gradcheck(
                [&](const autograd::variable_list&) { return autograd::variable_list{d(xd)}; },
                {d->get_parameter("weight_orig"), xd}),
            "");
}

// The version-0 dict the generator made from a module trained three steps
// (Note [Version-0 spectral norm state dicts] in weight_norm.cc).
NamedTensors old_spectral_dict(const std::string& tag, const std::string& prefix = "") {
  NamedTensors dict;
  for (const std::string& key : std::vector<std::string>(
           absl::StrSplit(kTables.golden_string("snold." + tag + ".keys"), '\n'))) {
    dict.emplace_back(prefix + key, golden_tensor(kTables.golden("snold/" + tag + "/dict/" + key)));
  }
  return dict;
}

TEST(SpectralNormTest, LoadsVersionZeroStateDictsAsPyTorch) {
  struct Case {
    std::string tag;
    std::function<std::shared_ptr<Module>()> make;
    ScalarType dtype;
    std::vector<int64_t> input;
    // PyTorch solves for v in the weight's dtype, ember in float64: a tall
    // float32 weight's v differs by rounding; for a wide one PyTorch's
    // float32 pinverse of the singular W^T W gives no solution at all, only
    // u . W v = sigma, which is all that the outputs read (0: compare that).
    double v_rel;
  };
  const std::vector<Case> cases = {
      {"linear", [] { return Linear(3, 5).ptr(); }, kFloat, {2, 3}, 1e-5},
      {"linear_f64", [] { return Linear(3, 5).ptr(); }, kDouble, {2, 3}, 1e-12},
      {"wide_f64", [] { return Linear(5, 3).ptr(); }, kDouble, {2, 5}, 1e-12},
      {"wide", [] { return Linear(5, 3).ptr(); }, kFloat, {2, 5}, 0},
      {"convt", [] { return ConvTranspose2d(2, 5, 1).ptr(); }, kFloat, {1, 2, 2, 2}, 1e-5},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.tag);
    const std::string pre = "snold/" + c.tag;
    const NamedTensors old = old_spectral_dict(c.tag);
    manual_seed(11);
    std::shared_ptr<Module> m = c.make();
    m->to(c.dtype);
    utils::spectral_norm(*m);
    m->load_state_dict(old);
    EXPECT_TRUE(near(m->get_buffer("weight_u"), pre + "/u"));
    const Tensor v = m->get_buffer("weight_v");
    const Tensor w = m->get_parameter("weight_orig");
    const Tensor w_mat = c.tag == "convt" ? w.transpose(0, 1).reshape({5, -1}) : w;
    if (c.v_rel > 0) {
      EXPECT_TRUE(near_golden(v, kTables.golden(pre + "/v"), c.dtype, c.v_rel));
    } else {
      // u . W v is what the outputs see (sigma in eval mode).
      const Tensor u = m->get_buffer("weight_u");
      const Tensor want_v = golden_tensor(kTables.golden(pre + "/v"));
      EXPECT_TRUE(u.dot(w_mat.mv(v)).allclose(u.dot(w_mat.mv(want_v)), 1e-6, 0));
      // And ember's v keeps the invariant u = normalize(W v).
      const Tensor wv = w_mat.mv(v);
      EXPECT_TRUE((wv / wv.norm()).allclose(u, 1e-5, 1e-6));
    }
    EXPECT_FALSE(old.contains("weight_v"));  // converted in load_state_dict's copy
    const Tensor x = make_input(c.input, c.dtype, 4);
    auto call = [&] {
      if (auto* lin = m->as<LinearImpl>()) return detail::call_forward(*lin, x);
      return detail::call_forward(*m->as<ConvTranspose2dImpl>(), x);
    };
    NoGradGuard no_grad;
    m->eval();
    EXPECT_TRUE(near(call(), pre + "/out0_eval"));
    m->train();
    EXPECT_TRUE(near(call(), pre + "/out1_train"));
    EXPECT_TRUE(near(call(), pre + "/out2_train"));
    m->eval();
    EXPECT_TRUE(near(call(), pre + "/out3_eval"));
  }
}

TEST(SpectralNormTest, CurrentDictsLoadAsTheyAreAndMissingKeysMatchPyTorch) {
  NamedTensors old = old_spectral_dict("linear");
  // The current format (weight_v, no weight) is taken as it is.
  NamedTensors current = old;
  current.pop_back();  // weight
  current.emplace_back("weight_v", golden_tensor(kTables.golden("snold/linear/current_v")));
  Linear m(3, 5);
  utils::spectral_norm(*m);
  m->load_state_dict(current);
  EXPECT_TRUE(m->get_buffer("weight_v").equal(current["weight_v"]));

  NamedTensors partial = old;
  partial.erase(partial.begin() + 2);  // weight_u
  ASSERT_EQ(keys(partial), "bias\nweight_orig\nweight");
  kTables.expect_golden_error("snold.missing_u", [&] { m->load_state_dict(partial); });
  std::ostringstream printed;
  printed << m->load_state_dict(partial, /*strict=*/false);
  EXPECT_EQ(printed.str(), kTables.golden_string("snold.missing_u_nonstrict"));
  partial.erase(partial.begin() + 1);  // weight_orig
  printed.str("");
  printed << m->load_state_dict(partial, /*strict=*/false);
  EXPECT_EQ(printed.str(), kTables.golden_string("snold.missing_orig_nonstrict"));

  // In a submodule: the hook sees its prefix.
  manual_seed(11);
  Sequential seq(Linear(3, 5));
  utils::spectral_norm(*seq->get_submodule("0"));
  seq->load_state_dict(old_spectral_dict("linear", "0."));
  EXPECT_TRUE(
      near_golden(seq->get_buffer("0.weight_v"), kTables.golden("snold/linear/v"), kFloat, 1e-5));

  // remove_spectral_norm removes the hook: a plain dict loads.
  utils::remove_spectral_norm(*m);
  m->load_state_dict({{"weight", ones({5, 3})}, {"bias", zeros({5})}});
  EXPECT_TRUE(m->weight.equal(ones({5, 3})));
}

TEST(WeightNormTest, ErrorsMatchPyTorch) {
  Linear m(4, 3);
  kTables.expect_golden_error("wn.unknown", [&] { utils::weight_norm(*m, "foo"); });
  kTables.expect_golden_error("wn.remove_none", [&] { utils::remove_weight_norm(*m); });
  utils::weight_norm(*m);
  kTables.expect_golden_error("wn.twice", [&] { utils::weight_norm(*m); });
  Linear s(4, 3);
  kTables.expect_golden_error("sn.iterations", [&] { utils::spectral_norm(*s, "weight", 0); });
  kTables.expect_golden_error("sn.remove_none", [&] { utils::remove_spectral_norm(*s); });
  utils::spectral_norm(*s);
  kTables.expect_golden_error("sn.twice", [&] { utils::spectral_norm(*s); });
}

// --- parametrize -------------------------------------------------------------------------

struct SymmetricImpl : Module {
  Tensor forward(const Tensor& x) { return x.triu() + x.triu(1).transpose(0, 1); }
};
EMBER_MODULE(Symmetric);

struct PositiveImpl : Module {
  Tensor forward(const Tensor& x) { return x.exp(); }
  Tensor right_inverse(const Tensor& y) { return y.log(); }
};
EMBER_MODULE(Positive);

struct ScaleImpl : Module {
  ScaleImpl() { factor = register_buffer("factor", tensor({1.5f, -0.5f, 2.0f})); }
  Tensor forward(const Tensor& x) { return x * factor; }
  Tensor factor;
};
EMBER_MODULE(Scale);

struct RowImpl : Module {
  Tensor forward(const Tensor& x) { return x[0]; }
};
EMBER_MODULE(Row);

struct ToDoubleImpl : Module {
  Tensor forward(const Tensor& x) { return x.to(kDouble); }
};
EMBER_MODULE(ToDouble);

struct CountingImpl : Module {
  Tensor forward(const Tensor& x) {
    ++calls;
    return x * 2;
  }
  int calls = 0;
};
EMBER_MODULE(Counting);

struct IdentityImpl : Module {
  Tensor forward(const Tensor& x) { return x; }
};
EMBER_MODULE(Identity);

TEST(ParametrizeTest, SymmetricAndChainMatchPyTorch) {
  const Tensor x = make_input({5, 3}, kFloat, 3);
  Linear m(3, 3);
  set_weights(m);
  P::register_parametrization(*m, "weight", Symmetric());
  EXPECT_TRUE(P::is_parametrized(*m));
  EXPECT_TRUE(P::is_parametrized(*m, "weight"));
  EXPECT_FALSE(P::is_parametrized(*m, "bias"));
  EXPECT_EQ(m->repr(), kTables.golden_string("pz.repr"));
  EXPECT_EQ(names(m->named_parameters()), kTables.golden_string("pz.params"));
  EXPECT_EQ(keys(m->state_dict()), kTables.golden_string("pz.state_dict"));
  EXPECT_TRUE(near(m->weight, "pz/sym/weight"));
  const Tensor y = m(x);
  EXPECT_TRUE(near(y, "pz/sym/out"));
  backward_weighted(y);
  expect_grads(*m, "pz/sym");

  P::register_parametrization(*m, "weight", Scale());
  EXPECT_EQ(m->repr(), kTables.golden_string("pz.chain_repr"));
  EXPECT_EQ(keys(m->state_dict()), kTables.golden_string("pz.chain_state_dict"));
  EXPECT_TRUE(near(m(x), "pz/chain/out"));
  P::remove_parametrizations(*m, "weight");
  EXPECT_TRUE(near(m->weight, "pz/chain/removed_weight"));
  EXPECT_TRUE(m->weight.is_leaf());
  EXPECT_EQ(names(m->named_parameters()), kTables.golden_string("pz.removed_params"));
  EXPECT_EQ(m->repr(), kTables.golden_string("pz.removed_repr"));
  EXPECT_FALSE(P::is_parametrized(*m));
}

TEST(ParametrizeTest, RightInverseAndBuffersMatchPyTorch) {
  const Tensor x = make_input({5, 3}, kFloat, 3);
  Linear p(3, 3);
  {
    NoGradGuard no_grad;
    p->weight.copy_(make_input({3, 3}, kFloat, 1).abs() + 0.25);
    p->bias.zero_();
  }
  P::register_parametrization(*p, "weight", Positive());
  EXPECT_TRUE(near(p->get_parameter("parametrizations.weight.original"), "pz/pos/original"));
  EXPECT_TRUE(near(p->weight, "pz/pos/weight"));
  backward_weighted(p(x));
  expect_grads(*p, "pz/pos");
  P::remove_parametrizations(*p, "weight", /*leave_parametrized=*/false);
  EXPECT_TRUE(near(p->weight, "pz/pos/removed_unparametrized"));

  BatchNorm1d bn(3);
  P::register_parametrization(*bn, "running_var", Scale());
  EXPECT_EQ(keys(bn->state_dict()), kTables.golden_string("pz.buffer_state_dict"));
  EXPECT_EQ(names(bn->named_parameters()), kTables.golden_string("pz.buffer_params"));
  EXPECT_TRUE(bn->running_var.equal(tensor({1.5f, -0.5f, 2.0f})));
}

TEST(ParametrizeTest, GradientsMatchFiniteDifferences) {
  Linear m(3, 3);
  m->to(kDouble);
  set_weights(m);
  P::register_parametrization(*m, "weight", Symmetric());
  P::register_parametrization(*m, "weight", Positive());
  const Tensor x = make_input({2, 3}, kDouble, 3).requires_grad_();
  EXPECT_EQ(autograd::gradcheck(
                [&](const autograd::variable_list&) { return autograd::variable_list{m(x)}; },
                {m->get_parameter("parametrizations.weight.original"), x}),
            "");
}

TEST(ParametrizeTest, IdentityKeepsTheOriginalAndCachedComputesOnce) {
  Linear m(3, 3);
  set_weights(m);
  const Tensor w = m->weight.detach().clone();
  P::register_parametrization(*m, "weight", Identity());
  const Tensor& original = m->get_parameter("parametrizations.weight.original");
  EXPECT_TRUE(original.equal(w));
  EXPECT_TRUE(original.is_leaf());
  m(ones({1, 3})).sum().backward();
  EXPECT_TRUE(original.grad().equal(ones({3, 3})));
  EXPECT_TRUE(original.equal(w));

  Linear c(3, 3);
  Counting counting;
  P::register_parametrization(*c, "weight", counting);
  const int at_registration = counting->calls;
  c(ones({1, 3}));
  c(ones({1, 3}));
  EXPECT_EQ(counting->calls - at_registration, 2);
  {
    auto guard = P::cached();
    c(ones({1, 3}));
    c(ones({1, 3})).sum().backward();
  }
  EXPECT_EQ(counting->calls - at_registration, 3);
  EXPECT_TRUE(
      c->get_parameter("parametrizations.weight.original").grad().equal(full({3, 3}, 2.0f)));
  EXPECT_TRUE(
      P::value(*c, "weight").equal(c->get_parameter("parametrizations.weight.original") * 2));
}

TEST(ParametrizeTest, ErrorsMatchPyTorch) {
  Linear m(3, 3);
  kTables.expect_golden_error("pz.unknown",
                              [&] { P::register_parametrization(*m, "foo", Symmetric()); });
  kTables.expect_golden_error("pz.shape",
                              [&] { P::register_parametrization(*m, "weight", Row()); });
  kTables.expect_golden_error("pz.dtype",
                              [&] { P::register_parametrization(*m, "weight", ToDouble()); });
  kTables.expect_golden_error("pz.remove_none", [&] { P::remove_parametrizations(*m, "weight"); });
  EXPECT_FALSE(P::is_parametrized(*m));
  EXPECT_EQ(m->repr(), "Linear(in_features=3, out_features=3, bias=True)");
  P::register_parametrization(*m, "weight", Symmetric());
  kTables.expect_golden_error("pz.shape_second",
                              [&] { P::register_parametrization(*m, "weight", Row()); });
  kTables.expect_golden_error("pz.remove_other", [&] { P::remove_parametrizations(*m, "bias"); });
  // unsafe: the shape may change.
  Linear u(3, 3);
  P::register_parametrization(*u, "weight", Row(), /*unsafe=*/true);
  EXPECT_EQ(u->weight.sizes(), IntArrayRef({3}));
}

struct SymmetricInvImpl : Module {
  Tensor forward(const Tensor& x) { return x.triu() + x.triu(1).transpose(0, 1); }
  Tensor right_inverse(const Tensor& a) { return a.triu(); }
};
EMBER_MODULE(SymmetricInv);

struct TwiceImpl : Module {
  Tensor forward(const Tensor& x) { return x * 2; }
  Tensor right_inverse(const Tensor& y) { return y / 2; }
};
EMBER_MODULE(Twice);

// Several originals: x y^T.
struct RankOneImpl : Module {
  Tensor forward(const Tensor& x, const Tensor& y) {
    return x.unsqueeze(-1).matmul(y.unsqueeze(-2));
  }
  // On rank-one matrices (z[0][0] != 0): z's first column and row.
  std::vector<Tensor> right_inverse(const Tensor& z) {
    return {z.select(1, 0), z.select(0, 0) / z.select(0, 0).select(0, 0)};
  }
};
EMBER_MODULE(RankOne);

// right_inverse returns a vector of one tensor: original0.
struct ListInverseImpl : Module {
  Tensor forward(const Tensor& x) { return x + 1; }
  std::vector<Tensor> right_inverse(const Tensor& y) { return {y - 1}; }
};
EMBER_MODULE(ListInverse);

struct PairSumImpl : Module {
  Tensor forward(const Tensor& x, const Tensor& y) { return x + y; }
};
EMBER_MODULE(PairSum);

struct ThreeWaysImpl : Module {
  Tensor forward(const Tensor& x, const Tensor& y) { return x + y; }
  std::vector<Tensor> right_inverse(const Tensor& z) { return {z, z, z}; }
};
EMBER_MODULE(ThreeWays);

struct EmptyImpl : Module {};
EMBER_MODULE(Empty);

Tensor rank_one_value() {
  return make_input({3}, kFloat, 2)
      .unsqueeze(-1)
      .matmul((make_input({3}, kFloat, 5) + 2).unsqueeze(-2));
}

TEST(ParametrizeTest, SeveralOriginalsMatchPyTorch) {
  const Tensor x = make_input({5, 3}, kFloat, 3);
  Linear m(3, 3);
  set_weights(m);
  P::register_parametrization(*m, "weight", RankOne());
  EXPECT_EQ(names(m->named_parameters()), kTables.golden_string("pz.multi_params"));
  EXPECT_EQ(keys(m->state_dict()), kTables.golden_string("pz.multi_state_dict"));
  EXPECT_EQ(m->repr(), kTables.golden_string("pz.multi_repr"));
  const Tensor original0 = m->get_parameter("parametrizations.weight.original0");
  const Tensor original1 = m->get_parameter("parametrizations.weight.original1");
  EXPECT_TRUE(original0.is_leaf() && original0.requires_grad());
  EXPECT_TRUE(near(original0, "pz/multi/original0"));
  EXPECT_TRUE(near(original1, "pz/multi/original1"));
  EXPECT_TRUE(near(m->weight, "pz/multi/weight"));
  const Tensor y = m(x);
  EXPECT_TRUE(near(y, "pz/multi/out"));
  backward_weighted(y);
  expect_grads(*m, "pz/multi");

  P::register_parametrization(*m, "weight", Twice());
  EXPECT_EQ(keys(m->state_dict()), kTables.golden_string("pz.multi_chain_state_dict"));
  EXPECT_TRUE(near(m(x), "pz/multi_chain/out"));
  P::assign(*m, "weight", rank_one_value());
  // In place: the same tensors, still leaves.
  EXPECT_TRUE(original0.is_same(m->get_parameter("parametrizations.weight.original0")));
  EXPECT_TRUE(original0.is_leaf() && original0.requires_grad());
  EXPECT_TRUE(near(original0, "pz/multi_chain/assigned_original0"));
  EXPECT_TRUE(near(original1, "pz/multi_chain/assigned_original1"));
  EXPECT_TRUE(near(m->weight, "pz/multi_chain/assigned_weight"));
  kTables.expect_golden_error("pz.multi_assign_dtype",
                              [&] { P::assign(*m, "weight", rank_one_value().to(kDouble)); });
  kTables.expect_golden_error("pz.multi_keep_original", [&] {
    P::remove_parametrizations(*m, "weight", /*leave_parametrized=*/false);
  });
  P::remove_parametrizations(*m, "weight");
  EXPECT_EQ(names(m->named_parameters()), kTables.golden_string("pz.multi_removed_params"));
  EXPECT_TRUE(near(m->weight, "pz/multi_chain/removed_weight"));
  EXPECT_TRUE(m->weight.is_leaf());
  EXPECT_EQ(m->repr(), "Linear(in_features=3, out_features=3, bias=True)");

  // A vector of one tensor is original0; on a buffer, which stays one.
  BatchNorm1d b(3);
  P::register_parametrization(*b, "running_mean", ListInverse());
  EXPECT_EQ(keys(b->state_dict()), kTables.golden_string("pz.list_state_dict"));
  EXPECT_TRUE(near(b->get_buffer("parametrizations.running_mean.original0"), "pz/list/original0"));
  EXPECT_TRUE(near(b->running_mean, "pz/list/running_mean"));
  P::remove_parametrizations(*b, "running_mean");
  EXPECT_EQ(names(b->named_buffers()), kTables.golden_string("pz.list_removed_buffers"));
}

TEST(ParametrizeTest, OnlyTheFirstParametrizationTakesSeveralTensors) {
  Linear c(3, 3);
  P::register_parametrization(*c, "weight", Symmetric());
  kTables.expect_golden_error("pz.list_second",
                              [&] { P::register_parametrization(*c, "weight", ListInverse()); });
  // PyTorch's call of forward(x, y) with one tensor fails with Python's
  // TypeError; ember says which parametrization.
  const std::string second =
      "RankOne's forward takes 2 tensors: only the first parametrization of a tensor may take "
      "several";
  EXPECT_EQ(error_of([&] { P::register_parametrization(*c, "weight", RankOne()); }), second);
  EXPECT_EQ(error_of([&] { P::register_parametrization(*c, "weight", RankOne(), true); }), second);
  EXPECT_THROW(P::register_parametrization(*c, "weight", RankOne()), TypeError);
  EXPECT_EQ(c->repr(), kTables.golden_string("pz.repr"));  // unchanged
  Linear d(3, 3);
  EXPECT_EQ(error_of([&] { P::register_parametrization(*d, "weight", PairSum()); }),
            "PairSum's forward takes 2 tensor(s) but would be given 1: one for each tensor its "
            "right_inverse returns, or the original alone");
  EXPECT_THROW(P::register_parametrization(*d, "weight", ThreeWays()), TypeError);
  EXPECT_FALSE(P::is_parametrized(*d));
  EXPECT_EQ(d->repr(), "Linear(in_features=3, out_features=3, bias=True)");
}

TEST(ParametrizeTest, SeveralOriginalsGradientsMatchFiniteDifferences) {
  Linear m(3, 3);
  m->to(kDouble);
  set_weights(m);
  P::register_parametrization(*m, "weight", RankOne());
  P::register_parametrization(*m, "weight", Twice());
  const Tensor x = make_input({2, 3}, kDouble, 3).requires_grad_();
  EXPECT_EQ(autograd::gradcheck(
                [&](const autograd::variable_list&) { return autograd::variable_list{m(x)}; },
                {m->get_parameter("parametrizations.weight.original0"),
                 m->get_parameter("parametrizations.weight.original1"), x}),
            "");
}

TEST(ParametrizeTest, AssignMatchesPyTorch) {
  const Tensor x = make_input({5, 3}, kFloat, 3);
  Linear a(3, 3);
  set_weights(a);
  P::register_parametrization(*a, "weight", SymmetricInv());
  P::register_parametrization(*a, "weight", Twice());
  const Tensor original = a->get_parameter("parametrizations.weight.original");
  Tensor sym = make_input({3, 3}, kFloat, 4);
  sym = sym + sym.t();
  P::assign(*a, "weight", sym);
  EXPECT_TRUE(original.is_same(a->get_parameter("parametrizations.weight.original")));
  EXPECT_TRUE(original.is_leaf() && original.requires_grad());
  EXPECT_TRUE(near(original, "pz/assign/original"));
  EXPECT_TRUE(near(a->weight, "pz/assign/weight"));  // read without a call
  EXPECT_TRUE(a->weight.equal(sym));
  EXPECT_TRUE(near(a(x), "pz/assign/out"));
  // Gradients reach the assigned original.
  a(x).sum().backward();
  EXPECT_TRUE(original.grad().defined());

  Linear c(3, 3);
  P::register_parametrization(*c, "weight", Symmetric());
  kTables.expect_golden_error("pz.assign_no_inverse", [&] { P::assign(*c, "weight", sym); });
  Linear p(3, 3);
  P::register_parametrization(*p, "weight", Positive());
  kTables.expect_golden_error("pz.assign_dtype",
                              [&] { P::assign(*p, "weight", sym.abs().to(kDouble) + 1); });
  EXPECT_THROW(P::assign(*p, "weight", ones({2, 2})), ValueError);  // shape
  EXPECT_THROW(P::assign(*p, "bias", ones({3})), ValueError);       // not parametrized

  EXPECT_EQ(P::type_before_parametrizations(*a), kTables.golden_string("pz.type_before"));
  EXPECT_EQ(P::type_before_parametrizations(*Linear(2, 2)),
            kTables.golden_string("pz.type_before_plain"));
  EXPECT_EQ(a->name(), kTables.golden_string("pz.type_now"));
  EXPECT_NE(a->as<LinearImpl>(), nullptr);
}

TEST(ParametrizeTest, TransferMatchesPyTorch) {
  const Tensor x = make_input({5, 3}, kFloat, 3);
  Linear a(3, 3);
  set_weights(a);
  P::register_parametrization(*a, "weight", SymmetricInv());
  P::register_parametrization(*a, "weight", Twice());
  Tensor sym = make_input({3, 3}, kFloat, 4);
  P::assign(*a, "weight", sym + sym.t());

  Linear to(3, 3);
  set_weights(to, 2);
  EXPECT_EQ(&P::transfer_parametrizations_and_params(*a, *to), to.get());
  EXPECT_EQ(to->repr(), kTables.golden_string("pz.transfer_repr"));
  EXPECT_EQ(keys(to->state_dict()), kTables.golden_string("pz.transfer_state_dict"));
  EXPECT_TRUE(near(to->weight, "pz/transfer/weight"));
  EXPECT_TRUE(near(to(x), "pz/transfer/out"));
  // The same original and parametrization modules.
  EXPECT_TRUE(to->get_parameter("parametrizations.weight.original")
                  .is_same(a->get_parameter("parametrizations.weight.original")));
  EXPECT_EQ(to->get_submodule("parametrizations.weight.1"),
            a->get_submodule("parametrizations.weight.1"));

  Linear f(3, 3);
  set_weights(f);
  P::register_parametrization(*f, "weight", RankOne());
  P::register_parametrization(*f, "bias", Twice());
  Empty t;
  P::transfer_parametrizations_and_params(*f, *t, "weight");
  EXPECT_EQ(t->repr(), kTables.golden_string("pz.transfer_empty_repr"));
  EXPECT_EQ(names(t->named_parameters()), kTables.golden_string("pz.transfer_empty_params"));
  EXPECT_TRUE(near(P::value(*t, "weight"), "pz/transfer_empty/weight"));
  EXPECT_TRUE(t->get_parameter("parametrizations.weight.original1")
                  .is_same(f->get_parameter("parametrizations.weight.original1")));
  Empty t2;
  P::transfer_parametrizations_and_params(*f, *t2);
  EXPECT_EQ(names(t2->named_parameters()), kTables.golden_string("pz.transfer_all_params"));
  EXPECT_TRUE(near(P::value(*t2, "bias"), "pz/transfer_all/bias"));
  EXPECT_EQ(P::type_before_parametrizations(*t2), "Empty");

  // Nothing to transfer.
  Linear plain(3, 3), other(3, 3);
  P::transfer_parametrizations_and_params(*plain, *other);
  EXPECT_FALSE(P::is_parametrized(*other));
  EXPECT_THROW(P::transfer_parametrizations_and_params(*f, *other, "foo"), ValueError);
}

TEST(ParametrizeTest, TransferredOriginalsTrainBothModules) {
  Linear f(3, 3);
  f->to(kDouble);
  set_weights(f);
  P::register_parametrization(*f, "weight", RankOne());
  Linear to(3, 3);
  to->to(kDouble);
  P::transfer_parametrizations_and_params(*f, *to);
  const Tensor x = make_input({2, 3}, kDouble, 3).requires_grad_();
  // Gradients of to's output reach f's originals.
  EXPECT_EQ(autograd::gradcheck(
                [&](const autograd::variable_list&) { return autograd::variable_list{to(x)}; },
                {f->get_parameter("parametrizations.weight.original0"),
                 f->get_parameter("parametrizations.weight.original1"), x}),
            "");
  {
    NoGradGuard no_grad;
    f->get_parameter("parametrizations.weight.original0").mul_(3);
  }
  EXPECT_TRUE(P::value(*to, "weight").equal(P::value(*f, "weight")));
}

// --- prune --------------------------------------------------------------------------------

using PruneFn = std::function<void(Module&)>;

TEST(PruneTest, MasksOutputsAndGradientsMatchPyTorch) {
  const Tensor x = make_input({5, 4}, kFloat, 3);
  const std::vector<std::pair<std::string, PruneFn>> cases = {
      {"l1_frac", [](Module& m) { prune::l1_unstructured(m, "weight", 0.3); }},
      {"l1_int", [](Module& m) { prune::l1_unstructured(m, "weight", 5); }},
      {"l1_all", [](Module& m) { prune::l1_unstructured(m, "weight", 1.0); }},
      {"l1_zero", [](Module& m) { prune::l1_unstructured(m, "weight", 0); }},
      {"identity", [](Module& m) { prune::identity(m, "weight"); }},
      {"ln2_dim0", [](Module& m) { prune::ln_structured(m, "weight", 0.34, 2, 0); }},
      {"ln1_dim1", [](Module& m) { prune::ln_structured(m, "weight", 2, 1, 1); }},
      {"lninf_dim_1",
       [](Module& m) {
         prune::ln_structured(m, "weight", 1, std::numeric_limits<double>::infinity(), -1);
       }},
      {"random_u", [](Module& m) { prune::random_unstructured(m, "weight", 0.5); }},
      {"random_s", [](Module& m) { prune::random_structured(m, "weight", 1, 0); }},
      {"random_s1", [](Module& m) { prune::random_structured(m, "weight", 0.5, 1); }},
      {"bias_l1", [](Module& m) { prune::l1_unstructured(m, "bias", 1); }},
      {"l1_twice",
       [](Module& m) {
         prune::l1_unstructured(prune::l1_unstructured(m, "weight", 3), "weight", 0.5);
       }},
      {"l1_then_ln",
       [](Module& m) {
         prune::ln_structured(prune::l1_unstructured(m, "weight", 4), "weight", 1, 2, 1);
       }},
      {"ln_then_random",
       [](Module& m) {
         prune::random_unstructured(prune::ln_structured(m, "weight", 1, 1, 0), "weight", 3);
       }},
  };
  for (const auto& [name, fn] : cases) {
    SCOPED_TRACE(name);
    manual_seed(0);
    Linear m(4, 3);
    set_weights(m);
    fn(*m);
    const bool bias = name.rfind("bias", 0) == 0;
    const std::string pre = "prune/" + name;
    EXPECT_TRUE(near(m->get_buffer(bias ? "bias_mask" : "weight_mask"), pre + "/mask"));
    EXPECT_TRUE(near(bias ? m->bias : m->weight, pre + "/pruned"));
    const Tensor y = m(x);
    EXPECT_TRUE(near(y, pre + "/out"));
    backward_weighted(y);
    expect_grads(*m, pre);
  }
}

TEST(PruneTest, NamesRemoveGlobalAndCustomMatchPyTorch) {
  Linear m(4, 3);
  set_weights(m);
  EXPECT_FALSE(prune::is_pruned(*m));
  prune::l1_unstructured(*m, "weight", 0.3);
  EXPECT_TRUE(prune::is_pruned(*m));
  Sequential outer(m);
  EXPECT_TRUE(prune::is_pruned(*outer));
  EXPECT_EQ(names(m->named_parameters()), kTables.golden_string("prune.params"));
  EXPECT_EQ(names(m->named_buffers()), kTables.golden_string("prune.buffers"));
  EXPECT_EQ(keys(m->state_dict()), kTables.golden_string("prune.state_dict"));
  prune::remove(*m, "weight");
  EXPECT_TRUE(near(m->weight, "prune/removed/weight"));
  EXPECT_TRUE(m->weight.is_leaf());
  EXPECT_EQ(names(m->named_parameters()), kTables.golden_string("prune.removed_params"));
  EXPECT_EQ(keys(m->state_dict()), kTables.golden_string("prune.removed_state_dict"));
  EXPECT_FALSE(prune::is_pruned(*m));

  Conv2d c(2, 4, 2);
  set_weights(c);
  prune::ln_structured(*c, "weight", 0.5, 2, 0);
  EXPECT_TRUE(near(c->get_buffer("weight_mask"), "prune/conv_ln/mask"));

  Linear a(4, 3), b(3, 2);
  set_weights(a, 0);
  set_weights(b, 2, 0.75);
  prune::l1_unstructured(*b, "weight", 2);
  prune::global_unstructured({{a.ptr(), "weight"}, {b.ptr(), "weight"}, {a.ptr(), "bias"}},
                             prune::L1Unstructured(0.4));
  EXPECT_TRUE(near(a->get_buffer("weight_mask"), "prune/global/a_mask"));
  EXPECT_TRUE(near(b->get_buffer("weight_mask"), "prune/global/b_mask"));
  EXPECT_TRUE(near(a->get_buffer("bias_mask"), "prune/global/a_bias_mask"));
  manual_seed(4);
  Linear ra(4, 3), rb(3, 2);
  set_weights(ra, 0);
  set_weights(rb, 2, 0.75);
  prune::global_unstructured({{ra.ptr(), "weight"}, {rb.ptr(), "weight"}},
                             prune::RandomUnstructured(7));
  EXPECT_TRUE(near(ra->get_buffer("weight_mask"), "prune/global_random/a_mask"));
  EXPECT_TRUE(near(rb->get_buffer("weight_mask"), "prune/global_random/b_mask"));
  EXPECT_THROW(prune::global_unstructured({{ra.ptr(), "weight"}}, prune::LnStructured(1, 2, 0)),
               TypeError);
  Linear ga(4, 3), gb(3, 2);
  set_weights(ga, 0);
  set_weights(gb, 2, 0.75);
  prune::global_unstructured({{ga.ptr(), "weight"}, {gb.ptr(), "weight"}}, prune::L1Unstructured(7),
                             {{{ga.get(), "weight"}, make_input({3, 4}, kFloat, 9)}});
  EXPECT_TRUE(near(ga->get_buffer("weight_mask"), "prune/global_scores/a_mask"));
  EXPECT_TRUE(near(gb->get_buffer("weight_mask"), "prune/global_scores/b_mask"));
  Linear gc(4, 3);
  try {
    prune::global_unstructured({{gc.ptr(), "weight"}}, prune::L1Unstructured(2),
                               {{{gc.get(), "weight"}, ones({5})}});
    ADD_FAILURE() << "scores of the wrong size accepted";
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(),
                 "global_unstructured(): the importance_scores of 'weight' have 5 elements, the "
                 "tensor 12");
  }

  Linear s(4, 3);
  set_weights(s);
  prune::l1_unstructured(*s, "weight", 4, make_input({3, 4}, kFloat, 9));
  EXPECT_TRUE(near(s->get_buffer("weight_mask"), "prune/scores/mask"));
  Linear cm(4, 3);
  set_weights(cm);
  prune::custom_from_mask(*cm, "weight", make_input({3, 4}, kBool, 1));
  EXPECT_TRUE(near(cm->get_buffer("weight_mask"), "prune/custom/mask"));
}

TEST(PruneTest, GradientsMatchFiniteDifferences) {
  Linear m(4, 3);
  m->to(kDouble);
  set_weights(m);
  prune::ln_structured(prune::l1_unstructured(*m, "weight", 3), "weight", 1, 2, 0);
  const Tensor x = make_input({2, 4}, kDouble, 3).requires_grad_();
  EXPECT_EQ(autograd::gradcheck(
                [&](const autograd::variable_list&) { return autograd::variable_list{m(x)}; },
                {m->get_parameter("weight_orig"), m->get_parameter("bias"), x}),
            "");
}

TEST(PruneTest, ErrorsMatchPyTorch) {
  Linear m(4, 3);
  set_weights(m);
  kTables.expect_golden_error("prune.negative", [&] { prune::l1_unstructured(*m, "weight", -1); });
  kTables.expect_golden_error("prune.fraction", [&] { prune::l1_unstructured(*m, "weight", 1.5); });
  kTables.expect_golden_error("prune.negative_fraction",
                              [&] { prune::random_unstructured(*m, "weight", -0.1); });
  kTables.expect_golden_error("prune.too_many", [&] { prune::l1_unstructured(*m, "weight", 13); });
  kTables.expect_golden_error("prune.too_many_channels",
                              [&] { prune::ln_structured(*m, "weight", 4, 2, 0); });
  EXPECT_EQ(names(m->named_parameters()), kTables.golden_string("prune.after_error_params"));
  EXPECT_FALSE(prune::is_pruned(*m));
  kTables.expect_golden_error("prune.unknown", [&] { prune::l1_unstructured(*m, "foo", 1); });
  kTables.expect_golden_error("prune.structured_1d",
                              [&] { prune::ln_structured(*m, "bias", 1, 2, 0); });
  kTables.expect_golden_error("prune.dim", [&] { prune::random_structured(*m, "weight", 1, 2); });
  kTables.expect_golden_error("prune.remove_unpruned", [&] { prune::remove(*m, "weight"); });
  // A failed second pruning keeps the first.
  prune::l1_unstructured(*m, "weight", 2);
  EXPECT_THROW(prune::l1_unstructured(*m, "weight", 11), ValueError);
  EXPECT_TRUE(prune::is_pruned(*m));
  EXPECT_EQ(m->get_buffer("weight_mask").sum().item<float>(), 10.0f);
}

}  // namespace
}  // namespace nn
}  // namespace ember
