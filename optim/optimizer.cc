#include "optim/optimizer.h"

#include <cxxabi.h>

#include <cmath>
#include <cstdlib>
#include <cstring>

#include <unordered_map>
#include <unordered_set>
#include <typeinfo>
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "autograd/grad_mode.h"
#include "tensor/creation.h"
#include "tensor/empty.h"
#include "tensor/print.h"
#include "tensor/record_function.h"

namespace ember {
namespace optim {

// --- OptimizerParamGroup ----------------------------------------------------

OptimizerParamGroup::OptimizerParamGroup(const OptimizerParamGroup& o)
    : initial_lr(o.initial_lr),
      params_(o.params_),
      options_(o.options_ ? o.options_->clone() : nullptr) {}

OptimizerParamGroup& OptimizerParamGroup::operator=(const OptimizerParamGroup& o) {
  if (this != &o) {
    initial_lr = o.initial_lr;
    params_ = o.params_;
    options_ = o.options_ ? o.options_->clone() : nullptr;
  }
  return *this;
}

OptimizerOptions& OptimizerParamGroup::options() {
  EMBER_CHECK(options_ != nullptr, "parameter group has no options");
  return *options_;
}

const OptimizerOptions& OptimizerParamGroup::options() const {
  EMBER_CHECK(options_ != nullptr, "parameter group has no options");
  return *options_;
}

// --- ParamState ---------------------------------------------------------------

Tensor* ParamState::find(const std::string& name) {
  for (auto& kv : buffers) {
    if (kv.first == name) return &kv.second;
  }
  return nullptr;
}

Tensor& ParamState::zeros_if_missing(const std::string& name, const Tensor& like) {
  if (Tensor* t = find(name)) return *t;
  buffers.emplace_back(name, zeros_like(like));
  return buffers.back().second;
}

double ParamState::scalar(const std::string& name, double init) {
  if (const Tensor* t = find(name)) return t->item<double>();
  buffers.emplace_back(name, scalar_tensor(init, kDouble));
  return init;
}

void ParamState::set_scalar(const std::string& name, double value) {
  if (Tensor* t = find(name)) {
    t->fill_(value);
  } else {
    buffers.emplace_back(name, scalar_tensor(value, kDouble));
  }
}

// --- Optimizer ------------------------------------------------------------------

Optimizer::Optimizer(std::vector<OptimizerParamGroup> groups,
                     std::unique_ptr<OptimizerOptions> defaults)
    : defaults_(std::move(defaults)) {
  EMBER_CHECK_VALUE(!groups.empty(), "optimizer got an empty parameter list");
  for (const auto& g : groups) add_param_group(g);
}

void Optimizer::add_param_group(const OptimizerParamGroup& group) {
  std::unordered_set<const TensorImpl*> seen;
  for (const auto& g : param_groups_) {
    for (const auto& p : g.params()) seen.insert(p.unsafeGetTensorImpl());
  }
  for (const auto& p : group.params()) {
    EMBER_CHECK_TYPE(p.defined(),
                     "optimizer can only optimize Tensors, but one of the params is NoneType");
    EMBER_CHECK_VALUE(p.is_leaf() || p.retains_grad(), "can't optimize a non-leaf Tensor");
  }
  for (const auto& p : group.params()) {
    EMBER_CHECK_VALUE(!seen.count(p.unsafeGetTensorImpl()),
                      "some parameters appear in more than one parameter group");
  }
  OptimizerParamGroup added(group.params(),
                            group.has_options() ? group.options().clone() : defaults_->clone());
  added.initial_lr = group.initial_lr;
  param_groups_.push_back(std::move(added));
}

namespace {

// PyTorch's profiler range of an optimizer method, "Optimizer.step#SGD.step"
// (Note [Profiling ranges]); opened only while a profile runs.
class OptimizerRange {
 public:
  OptimizerRange(const Optimizer& opt, const char* method) {
    if (!profiler::detail::active()) return;
    int status = 0;
    char* demangled = abi::__cxa_demangle(typeid(opt).name(), nullptr, nullptr, &status);
    std::string cls = status == 0 && demangled != nullptr ? demangled : typeid(opt).name();
    std::free(demangled);
    const size_t colon = cls.rfind("::");
    if (colon != std::string::npos) cls = cls.substr(colon + 2);
    const char* name =
        profiler::detail::intern(absl::StrCat("Optimizer.", method, "#", cls, ".", method));
    range_.emplace(name, profiler::RangeKind::kUser);
  }

 private:
  std::optional<profiler::RecordFunction> range_;
};

}  // namespace

void Optimizer::zero_grad(bool set_to_none) {
  OptimizerRange range(*this, "zero_grad");
  for (auto& g : param_groups_) {
    for (auto& p : g.params()) {
      Tensor& grad = p.mutable_grad();
      if (!grad.defined()) continue;
      if (set_to_none) {
        grad = Tensor();
        continue;
      }
      if (grad.grad_fn() != nullptr) {
        grad.detach_();
      } else {
        grad.requires_grad_(false);
      }
      grad.zero_();
    }
  }
}

Tensor Optimizer::step(const LossClosure& closure) {
  OptimizerRange range(*this, "step");
  Tensor loss;
  if (closure) {
    EnableGradGuard enable;
    loss = closure();
  }
  NoGradGuard no_grad;
  for (auto& g : param_groups_) step_group(g);
  return loss;
}

ParamState* Optimizer::state(const Tensor& p) {
  auto it = state_.find(p.unsafeGetTensorImpl());
  return it == state_.end() ? nullptr : &it->second;
}

std::vector<Tensor> Optimizer::parameters() const {
  std::vector<Tensor> all;
  for (const auto& g : param_groups_) all.insert(all.end(), g.params().begin(), g.params().end());
  return all;
}

namespace {

// Reads an options struct into (name, value) pairs.
class OptionReader : public OptionVisitor {
 public:
  explicit OptionReader(std::vector<std::pair<std::string, OptionValue>>* out) : out_(out) {}
  void field(const char* name, double& v) override { out_->emplace_back(name, v); }
  void field(const char* name, bool& v) override { out_->emplace_back(name, v); }
  void field(const char* name, std::tuple<double, double>& v) override {
    out_->emplace_back(name, v);
  }
  void field(const char* name, int64_t& v) override { out_->emplace_back(name, v); }
  void field(const char* name, std::optional<std::string>& v) override {
    if (v) out_->emplace_back(name, *v);
  }

 private:
  std::vector<std::pair<std::string, OptionValue>>* out_;
};

// A saved number, integer or flag as a double (PyTorch states hold 0/1
// where ember has bool, and 1 where it has 1.0); nullopt for anything else.
std::optional<double> number_of(const OptionValue& value) {
  if (auto* d = std::get_if<double>(&value)) return *d;
  if (auto* i = std::get_if<int64_t>(&value)) return static_cast<double>(*i);
  if (auto* b = std::get_if<bool>(&value)) return *b ? 1.0 : 0.0;
  return std::nullopt;
}

// Writes saved (name, value) pairs into an options struct. Numbers, integers
// and flags fill each other's fields (an integer field only from a whole
// number); options ember does not know (foreach, differentiable...) are ignored.
class OptionWriter : public OptionVisitor {
 public:
  explicit OptionWriter(const std::vector<std::pair<std::string, OptionValue>>& in) : in_(in) {}
  void field(const char* name, double& v) override {
    if (const OptionValue* s = find(name)) v = number(name, *s);
  }
  void field(const char* name, bool& v) override {
    if (const OptionValue* s = find(name)) v = number(name, *s) != 0;
  }
  void field(const char* name, std::tuple<double, double>& v) override {
    if (const OptionValue* s = find(name)) {
      auto* t = std::get_if<std::tuple<double, double>>(s);
      if (t == nullptr) mismatch(name);
      v = *t;
    }
  }
  void field(const char* name, int64_t& v) override {
    if (const OptionValue* s = find(name)) {
      const double d = number(name, *s);
      if (d != std::floor(d)) mismatch(name);
      v = static_cast<int64_t>(d);
    }
  }
  void field(const char* name, std::optional<std::string>& v) override {
    const OptionValue* s = find(name);
    if (s == nullptr) {
      v = std::nullopt;  // None is saved as no entry
      return;
    }
    auto* str = std::get_if<std::string>(s);
    if (str == nullptr) mismatch(name);
    v = *str;
  }

 private:
  const OptionValue* find(const char* name) const {
    for (const auto& kv : in_) {
      if (kv.first == name) return &kv.second;
    }
    return nullptr;
  }
  static double number(const char* name, const OptionValue& value) {
    std::optional<double> d = number_of(value);
    if (!d) mismatch(name);
    return *d;
  }
  [[noreturn]] static void mismatch(const char* name) {
    throw ValueError(absl::StrCat("loaded state dict has a value of the wrong kind for option '",
                                  name, "'"));
  }
  const std::vector<std::pair<std::string, OptionValue>>& in_;
};

}  // namespace

OptimizerStateDict Optimizer::state_dict() const {
  OptimizerStateDict sd;
  int64_t index = 0;
  for (const auto& g : param_groups_) {
    OptimizerStateDict::ParamGroup saved;
    auto options = g.options().clone();
    OptionReader reader(&saved.options);
    options->visit(reader);
    if (g.initial_lr) saved.options.emplace_back("initial_lr", *g.initial_lr);
    for (const auto& p : g.params()) {
      auto it = state_.find(p.unsafeGetTensorImpl());
      if (it != state_.end()) {
        auto& entry = sd.state[index];
        if (it->second.device_step.defined()) {
          entry.emplace_back("step", it->second.device_step.clone());
        } else if (it->second.step) {
          entry.emplace_back("step", scalar_tensor(*it->second.step, kLong));
        }
        // Copies, as PyTorch's load deep-copies: a saved dict does not move on
        // with the optimizer.
        for (const auto& b : it->second.buffers) entry.emplace_back(b.first, b.second.clone());
        if (entry.empty()) sd.state.erase(index);
      }
      saved.params.push_back(index++);
    }
    sd.param_groups.push_back(std::move(saved));
  }
  return sd;
}

void Optimizer::load_state_dict(const OptimizerStateDict& sd) {
  EMBER_CHECK_VALUE(sd.param_groups.size() == param_groups_.size(),
                    "loaded state dict has a different number of parameter groups");
  for (size_t i = 0; i < param_groups_.size(); ++i) {
    EMBER_CHECK_VALUE(sd.param_groups[i].params.size() == param_groups_[i].params().size(),
                      "loaded state dict contains a parameter group that doesn't match the size "
                      "of optimizer's group");
  }
  // Map saved indices to parameters, then build everything before touching
  // this optimizer, so a bad dict leaves it as it was.
  std::unordered_map<int64_t, Tensor> by_index;
  for (size_t i = 0; i < param_groups_.size(); ++i) {
    const auto& params = param_groups_[i].params();
    for (size_t j = 0; j < params.size(); ++j) by_index[sd.param_groups[i].params[j]] = params[j];
  }
  std::unordered_map<const TensorImpl*, ParamState> state;
  for (const auto& kv : sd.state) {
    auto it = by_index.find(kv.first);
    if (it == by_index.end()) continue;  // as PyTorch: state of no parameter is kept aside
    const Tensor& p = it->second;
    ParamState ps;
    for (const auto& b : kv.second) {
      if (b.first == "step") {
        EMBER_CHECK_VALUE(b.second.numel() == 1, "loaded state dict has a 'step' of ",
                          b.second.numel(), " elements for parameter ", kv.first, " (key state.",
                          kv.first, ".step)");
        const double step = b.second.item<double>();
        // PyTorch saves float steps; a count is what it must hold.
        EMBER_CHECK_VALUE(std::isfinite(step) && step >= 0 && step == std::floor(step),
                          "loaded state dict has a 'step' of ", python_float_repr(step),
                          " for parameter ", kv.first, " (key state.", kv.first,
                          ".step): a step count must be a non-negative integer");
        ps.step = static_cast<int64_t>(step);
        continue;
      }
      Tensor t = load_state_entry(p, kv.first, b.first, b.second);
      ps.buffers.emplace_back(b.first, t.is_same(b.second) ? t.clone() : t);
    }
    state[p.unsafeGetTensorImpl()] = std::move(ps);
  }
  std::vector<std::unique_ptr<OptimizerOptions>> options;
  std::vector<std::optional<double>> initial_lrs;
  for (size_t i = 0; i < param_groups_.size(); ++i) {
    auto o = param_groups_[i].options().clone();
    OptionWriter writer(sd.param_groups[i].options);
    o->visit(writer);
    if (option_check_) {
      try {
        option_check_(*o);
      } catch (const Error& e) {
        throw ValueError(absl::StrCat("loaded state dict has invalid options in param_groups.", i,
                                      ": ", e.what()));
      }
    }
    std::optional<double> initial_lr;
    for (const auto& kv : sd.param_groups[i].options) {
      if (kv.first != "initial_lr") continue;
      initial_lr = number_of(kv.second);
      EMBER_CHECK_VALUE(initial_lr.has_value() && !std::holds_alternative<bool>(kv.second),
                        "loaded state dict has a non-numeric 'initial_lr'");
    }
    options.push_back(std::move(o));
    initial_lrs.push_back(initial_lr);
  }
  for (size_t i = 0; i < param_groups_.size(); ++i) {
    param_groups_[i].set_options(std::move(options[i]));
    param_groups_[i].initial_lr = initial_lrs[i];
  }
  state_ = std::move(state);
}

namespace {
// The per-parameter numbers of ParamState::scalar (NAdam's mu_product,
// ASGD's eta and mu): 0-dim whatever the parameter's shape.
bool is_scalar_state(const std::string& name) {
  return name == "mu_product" || name == "eta" || name == "mu";
}
}  // namespace

Tensor Optimizer::load_state_entry(const Tensor& p, int64_t index, const std::string& name,
                                   const Tensor& saved) const {
  const std::string key = absl::StrCat("state.", index, ".", name);
  if (is_scalar_state(name)) {
    EMBER_CHECK_VALUE(saved.numel() == 1 && saved.dtype() != kBool, "loaded state dict has a '",
                      name, "' of shape ", size_repr(saved.sizes()), " and dtype ",
                      scalar_type_name(saved.dtype()), " for parameter ", index, " (key ", key,
                      "): it must be a single number");
    // Kept in float64 on the CPU.
    return saved.reshape({}).to(Device(kCPU)).to(kDouble);
  }
  EMBER_CHECK_VALUE(saved.sizes() == p.sizes(), "loaded state dict has a '", name, "' of shape ",
                    size_repr(saved.sizes()), " for parameter ", index, " of shape ",
                    size_repr(p.sizes()), " (key ", key, ")");
  EMBER_CHECK_VALUE(saved.is_floating_point() || !p.is_floating_point(),
                    "loaded state dict has a '", name, "' of dtype ",
                    scalar_type_name(saved.dtype()), " for parameter ", index, " of dtype ",
                    scalar_type_name(p.dtype()), " (key ", key,
                    "): optimizer buffers of a floating-point parameter must be floating point");
  // As PyTorch: floating-point state takes the parameter's dtype.
  Tensor t = saved.is_floating_point() ? saved.to(p.dtype()) : saved;
  return t.to(p.device());
}

// --- the flat form (Note [Optimizer state keys]) ------------------------------

NamedTensors OptimizerStateDict::to_named_tensors() const {
  NamedTensors out;
  for (const auto& kv : state) {
    for (const auto& b : kv.second) {
      out.emplace_back(absl::StrCat("state.", kv.first, ".", b.first), b.second);
    }
  }
  for (size_t g = 0; g < param_groups.size(); ++g) {
    const std::string prefix = absl::StrCat("param_groups.", g, ".");
    for (const auto& o : param_groups[g].options) {
      Tensor t;
      if (auto* d = std::get_if<double>(&o.second)) {
        t = scalar_tensor(*d, kDouble);
      } else if (auto* b = std::get_if<bool>(&o.second)) {
        t = scalar_tensor(*b, kBool);
      } else if (auto* i = std::get_if<int64_t>(&o.second)) {
        t = scalar_tensor(*i, kLong);
      } else if (auto* str = std::get_if<std::string>(&o.second)) {
        t = empty({static_cast<int64_t>(str->size())}, kByte);
        std::copy(str->begin(), str->end(), reinterpret_cast<char*>(t.data_ptr<uint8_t>()));
      } else {
        const auto& pair = std::get<std::tuple<double, double>>(o.second);
        t = tensor({std::get<0>(pair), std::get<1>(pair)}, kDouble);
      }
      out.emplace_back(prefix + o.first, t);
    }
    const auto& idx = param_groups[g].params;
    Tensor params = empty({static_cast<int64_t>(idx.size())}, kLong);
    std::copy(idx.begin(), idx.end(), params.data_ptr<int64_t>());
    out.emplace_back(prefix + "params", params);
  }
  return out;
}

OptimizerStateDict OptimizerStateDict::from_named_tensors(const NamedTensors& named) {
  OptimizerStateDict sd;
  auto bad_key = [](const std::string& key) {
    return ValueError(absl::StrCat("unexpected key '", key, "' in an optimizer state dict"));
  };
  for (const auto& kv : named) {
    const std::string& key = kv.first;
    const Tensor& t = kv.second;
    std::vector<std::string> parts = absl::StrSplit(key, absl::MaxSplits('.', 2));
    int64_t index = 0;
    if (parts.size() != 3 || !absl::SimpleAtoi(parts[1], &index) || index < 0 ||
        parts[2].empty()) {
      throw bad_key(key);
    }
    if (parts[0] == "state") {
      sd.state[index].emplace_back(parts[2], t);
      continue;
    }
    if (parts[0] != "param_groups") throw bad_key(key);
    // Groups come in order; a gap means a broken dict.
    if (static_cast<size_t>(index) == sd.param_groups.size()) sd.param_groups.emplace_back();
    if (static_cast<size_t>(index) >= sd.param_groups.size()) throw bad_key(key);
    auto& group = sd.param_groups[index];
    const Tensor c = t.to(Device(kCPU)).contiguous();
    if (parts[2] == "params") {
      EMBER_CHECK_VALUE(c.dim() == 1 && !c.is_floating_point() && c.dtype() != kBool,
                        "'", key, "' must be a 1-D integer tensor");
      Tensor l = c.to(kLong);
      const int64_t* p = l.data_ptr<int64_t>();
      group.params.assign(p, p + l.numel());
    } else if (c.dtype() == kBool && c.numel() == 1) {
      group.options.emplace_back(parts[2], c.item<bool>());
    } else if (c.dtype() == kByte && c.dim() == 1) {
      const char* begin = reinterpret_cast<const char*>(c.data_ptr<uint8_t>());
      group.options.emplace_back(parts[2], std::string(begin, begin + c.numel()));
    } else if (c.dim() == 0 && !c.is_floating_point()) {
      group.options.emplace_back(parts[2], c.to(kLong).item<int64_t>());
    } else if (c.dim() == 0) {
      group.options.emplace_back(parts[2], c.item<double>());
    } else if (c.dim() == 1 && c.numel() == 2) {
      Tensor d = c.to(kDouble);
      group.options.emplace_back(parts[2],
                                 std::make_tuple(d.data_ptr<double>()[0], d.data_ptr<double>()[1]));
    } else {
      throw ValueError(
          absl::StrCat("'", key, "' must be a number, an integer, a flag, a pair or a string"));
    }
  }
  return sd;
}

namespace detail {
void check_option(bool ok, const char* what, double value) {
  if (!ok) throw ValueError(absl::StrCat(what, ": ", python_float_repr(value)));
}

std::vector<OptimizerParamGroup> single_group(std::vector<Tensor> params) {
  EMBER_CHECK_VALUE(!params.empty(), "optimizer got an empty parameter list");
  std::vector<OptimizerParamGroup> groups;
  groups.emplace_back(std::move(params));
  return groups;
}
}  // namespace detail

}  // namespace optim
}  // namespace ember
