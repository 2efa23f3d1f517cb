#include "nn/utils/parametrize.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "autograd/grad_mode.h"
#include "nn/container.h"
#include "nn/utils/reparametrize.h"
#include "tensor/dtype.h"
#include "tensor/print.h"

namespace ember {
namespace nn {
namespace utils {
namespace parametrize {

using detail::ModuleAccess;

namespace {

constexpr char kPrefix[] = "Parametrized";

std::string dtype_str(ScalarType t) { return absl::StrCat("torch.", dtype_name(t)); }

// cached(): the values computed in the scope, by ParametrizationList.
struct Cache {
  int depth = 0;
  std::map<const Module*, Tensor> values;
};
thread_local Cache cache;

Tensor compute(ParametrizationListImpl& list) {
  if (cache.depth == 0) return list.forward();
  auto it = cache.values.find(&list);
  if (it == cache.values.end()) it = cache.values.emplace(&list, list.forward()).first;
  return it->second;
}

// PyTorch calls a later parametrization with one tensor, which fails in
// Python for a forward that takes more.
void check_single_input(const Parametrization& p) {
  EMBER_CHECK_TYPE(p.num_inputs == 1, p.module->name(), "'s forward takes ", p.num_inputs,
                   " tensors: only the first parametrization of a tensor may take several");
}

struct ParametrizeState {
  std::string name;
  Tensor target;  // the TensorImpl the layer's member shares
  std::shared_ptr<ParametrizationListImpl> list;
};

struct ParametrizeHook {
  std::shared_ptr<ParametrizeState> state;
  void operator()(Module&, const std::vector<Tensor>&) const {
    detail::rebind_tensor(state->target, compute(*state->list));
  }
};

ModuleDictImpl* parametrizations_of(Module& module) {
  for (const auto& [name, child] : module.named_children()) {
    if (name == "parametrizations") return child->as<ModuleDictImpl>();
  }
  return nullptr;
}

std::shared_ptr<ParametrizeState> state_of(Module& module, const std::string& name) {
  for (auto& s : ModuleAccess::hooks_of<ParametrizeHook>(module)) {
    if (s->name == name) return s;
  }
  EMBER_CHECK(false, "Module ", module.repr(), " does not have a parametrization on ", name);
  return nullptr;
}

}  // namespace

ParametrizationListImpl::ParametrizationListImpl(Parametrization first, const Tensor& orig,
                                                 bool is_parameter, bool unsafe_flag)
    : unsafe(unsafe_flag) {
  std::vector<Tensor> values;
  {
    NoGradGuard no_grad;
    values = first.right_inverse ? first.right_inverse(orig.detach())
                                 : std::vector<Tensor>{orig.detach()};
  }
  is_tensor = !first.right_inverse_returns_vector;
  ntensors = values.size();
  EMBER_CHECK_TYPE(first.num_inputs == ntensors, first.module->name(), "'s forward takes ",
                   first.num_inputs, " tensor(s) but would be given ", ntensors,
                   ": one for each tensor its right_inverse returns, or the original alone");
  append(first);
  if (is_tensor) {
    const Tensor& value = values[0];
    EMBER_CHECK_VALUE(value.dtype() == orig.dtype(),
                      "When `right_inverse` outputs one tensor, it may not change the dtype.\n",
                      "original.dtype: ", dtype_str(orig.dtype()), "\n",
                      "right_inverse(original).dtype: ", dtype_str(value.dtype()));
    if (is_parameter) {
      original = register_parameter("original", value.detach(), orig.requires_grad());
    } else {
      original = register_buffer("original", value.detach());
    }
  } else {
    for (size_t i = 0; i < ntensors; ++i) {
      const std::string name = absl::StrCat("original", i);
      Tensor value = values[i].detach();
      if (is_parameter) {
        originals.push_back(register_parameter(name, value, orig.requires_grad()));
      } else {
        value.set_requires_grad(orig.requires_grad());
        originals.push_back(register_buffer(name, value));
      }
    }
  }
  if (unsafe) return;
  const Tensor z = forward();
  EMBER_CHECK_VALUE(z.dtype() == orig.dtype(),
                    "Registering a parametrization may not change the dtype of the tensor, unless "
                    "`unsafe` flag is enabled.\nunparametrized dtype: ",
                    dtype_str(orig.dtype()), "\nparametrized dtype: ", dtype_str(z.dtype()));
  EMBER_CHECK_VALUE(z.sizes() == orig.sizes(),
                    "Registering a parametrization may not change the shape of the tensor, unless "
                    "`unsafe` flag is enabled.\nunparametrized shape: ",
                    size_repr(orig.sizes()), "\nparametrized shape: ", size_repr(z.sizes()));
}

Tensor ParametrizationListImpl::forward() {
  Tensor x = parametrizations_[0].forward(is_tensor ? std::vector<Tensor>{original} : originals);
  for (size_t i = 1; i < parametrizations_.size(); ++i) x = parametrizations_[i].forward({x});
  return x;
}

void ParametrizationListImpl::right_inverse(const Tensor& value) {
  NoGradGuard no_grad;
  std::vector<Tensor> values{value};
  for (size_t i = parametrizations_.size(); i-- > 0;) {
    const Parametrization& p = parametrizations_[i];
    EMBER_CHECK(p.right_inverse, "parametrization ", p.module->name(),
                " does not implement right_inverse.");
    // Only an `unsafe` later parametrization can return several.
    EMBER_CHECK_VALUE(
        values.size() == 1 && (i + 1 == parametrizations_.size() ||
                               !parametrizations_[i + 1].right_inverse_returns_vector),
        "parametrization.right_inverse must return a tensor. Got: list");
    values = p.right_inverse(values[0]);
  }
  auto set = [](Tensor& original, const Tensor& v, const std::string& what) {
    EMBER_CHECK_VALUE(v.sizes() == original.sizes(), "The tensor returned by `right_inverse` has ",
                      "shape ", size_repr(v.sizes()), " while `", what, "` has shape ",
                      size_repr(original.sizes()));
    original.copy_(v);
  };
  if (is_tensor) {
    const Tensor& v = values[0];
    EMBER_CHECK_VALUE(v.dtype() == original.dtype(), "The tensor returned by `right_inverse` has ",
                      "dtype ", dtype_str(v.dtype()), " while `original` has dtype ",
                      dtype_str(original.dtype()));
    set(original, v, "original");
    return;
  }
  EMBER_CHECK_VALUE(values.size() == ntensors,
                    "'right_inverse' must return a sequence of tensors of length ", ntensors,
                    ". Got a sequence of lenght ", values.size(), ".");
  for (size_t i = 0; i < ntensors; ++i) {
    EMBER_CHECK_VALUE(values[i].dtype() == originals[i].dtype(), "Tensor ", i,
                      " returned by `right_inverse` has dtype ", dtype_str(values[i].dtype()),
                      " while `original", i, "` has dtype ", dtype_str(originals[i].dtype()));
  }
  for (size_t i = 0; i < ntensors; ++i) {
    set(originals[i], values[i], absl::StrCat("original", i));
  }
}

void ParametrizationListImpl::append(Parametrization p) {
  if (!parametrizations_.empty()) check_single_input(p);
  register_module(std::to_string(parametrizations_.size()), p.module);
  parametrizations_.push_back(std::move(p));
}

bool is_parametrized(Module& module, const std::string& name) {
  ModuleDictImpl* dict = parametrizations_of(module);
  if (dict == nullptr) return false;
  return name.empty() ? !dict->is_empty() : dict->contains(name);
}

Module& register_parametrization(Module& module, const std::string& name, Parametrization p,
                                 bool unsafe) {
  EMBER_CHECK(p.module != nullptr && p.forward, "register_parametrization: no parametrization");
  p.module->train(module.is_training());
  if (is_parametrized(module, name)) {
    std::shared_ptr<ParametrizeState> state = state_of(module, name);
    ParametrizationListImpl& list = *state->list;
    check_single_input(p);
    if (!unsafe) {
      const Tensor y = list.forward();
      const Tensor x = p.forward({y});
      const std::string what = "module." + name;
      EMBER_CHECK_VALUE(x.dtype() == y.dtype(),
                        "Registering a parametrization may not change the dtype of the tensor, "
                        "unless the `unsafe` flag is enabled.\n",
                        what, ".dtype: ", dtype_str(y.dtype()), "\nparametrization(", what,
                        ").dtype: ", dtype_str(x.dtype()));
      EMBER_CHECK_VALUE(x.sizes() == y.sizes(),
                        "Registering a parametrization may not change the shape of the tensor, "
                        "unless the `unsafe` flag is enabled.\n",
                        what, ".shape: ", size_repr(y.sizes()), "\nparametrization(", what,
                        ").shape: ", size_repr(x.sizes()));
      if (p.right_inverse) {
        EMBER_CHECK_VALUE(!p.right_inverse_returns_vector,
                          "parametrization.right_inverse must return a tensor. Got: list");
        const Tensor z = p.right_inverse(x)[0];
        EMBER_CHECK_VALUE(z.dtype() == y.dtype(),
                          "The tensor returned by parametrization.right_inverse must have the "
                          "same dtype as ",
                          what, ", unless the `unsafe` flag is enabled.\n", what,
                          ".dtype: ", dtype_str(y.dtype()),
                          "\nreturned dtype: ", dtype_str(z.dtype()));
        EMBER_CHECK_VALUE(z.sizes() == y.sizes(),
                          "The tensor returned by parametrization.right_inverse must have the "
                          "same shape as ",
                          what, ", unless the `unsafe` flag is enabled.\n", what,
                          ".shape: ", size_repr(y.sizes()),
                          "\nreturned shape: ", size_repr(z.sizes()));
      }
    }
    list.append(std::move(p));
    list.unsafe = list.unsafe || unsafe;
    detail::rebind_tensor(state->target, compute(list));
    return module;
  }
  Tensor* slot = ModuleAccess::parameter(module, name);
  const bool is_parameter = slot != nullptr;
  if (slot == nullptr) slot = ModuleAccess::buffer(module, name);
  EMBER_CHECK_VALUE(slot != nullptr && slot->defined(), "Module '", module.repr(),
                    "' does not have a parameter, a buffer, or a parametrized element with name '",
                    name, "'");
  auto state = std::make_shared<ParametrizeState>();
  state->name = name;
  state->target = *slot;
  state->list =
      std::make_shared<ParametrizationListImpl>(std::move(p), state->target, is_parameter, unsafe);
  if (is_parameter) {
    ModuleAccess::remove_parameter(module, name);
  } else {
    ModuleAccess::remove_buffer(module, name);
  }
  ModuleDictImpl* dict = parametrizations_of(module);
  if (dict == nullptr) {
    ModuleAccess::set_name(module, kPrefix + module.name());
    dict = module.register_module("parametrizations", ModuleDict()).get();
  }
  dict->insert(name, state->list);
  detail::rebind_tensor(state->target, compute(*state->list));
  module.register_forward_pre_hook(ParametrizeHook{state});
  return module;
}

Module& remove_parametrizations(Module& module, const std::string& name, bool leave_parametrized) {
  EMBER_CHECK_VALUE(is_parametrized(module, name), "Module ", module.repr(),
                    " does not have a parametrization on ", name);
  std::shared_ptr<ParametrizeState> state = state_of(module, name);
  ParametrizationListImpl& list = *state->list;
  bool is_parameter, requires_grad;
  Tensor value;
  if (list.is_tensor) {
    is_parameter = ModuleAccess::parameter(list, "original") != nullptr;
    requires_grad = list.original.requires_grad();
    NoGradGuard no_grad;
    value = leave_parametrized ? list.forward() : list.original;
  } else {
    EMBER_CHECK_VALUE(leave_parametrized,
                      "Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is "
                      "parametrized in terms of a sequence of tensors.");
    // PyTorch's Parameter(t) if t.requires_grad else t.
    value = list.forward();
    is_parameter = requires_grad = value.requires_grad();
  }
  ModuleAccess::remove_hook<ParametrizeHook>(module, state);
  ModuleDictImpl* dict = parametrizations_of(module);
  dict->pop(name);
  detail::rebind_tensor(state->target, value.detach());
  if (is_parameter) {
    module.register_parameter(name, state->target, requires_grad);
  } else {
    module.register_buffer(name, state->target);
  }
  if (dict->is_empty()) {
    const std::string before = type_before_parametrizations(module);
    ModuleAccess::remove_child(module, "parametrizations");
    ModuleAccess::set_name(module, before);
  }
  return module;
}

Tensor value(Module& module, const std::string& name) {
  EMBER_CHECK_VALUE(is_parametrized(module, name), "Module ", module.repr(),
                    " does not have a parametrization on ", name);
  return compute(*state_of(module, name)->list);
}

void assign(Module& module, const std::string& name, const Tensor& value) {
  EMBER_CHECK_VALUE(is_parametrized(module, name), "Module ", module.repr(),
                    " does not have a parametrization on ", name);
  std::shared_ptr<ParametrizeState> state = state_of(module, name);
  state->list->right_inverse(value);
  detail::rebind_tensor(state->target, compute(*state->list));
}

std::string type_before_parametrizations(Module& module) {
  const std::string& printed = module.name();
  // The prefix stays until the last parametrization is removed.
  if (printed.rfind(kPrefix, 0) == 0 && parametrizations_of(module) != nullptr) {
    return printed.substr(sizeof(kPrefix) - 1);
  }
  return printed;
}

Module& transfer_parametrizations_and_params(Module& from_module, Module& to_module,
                                             const std::string& tensor_name) {
  if (!is_parametrized(from_module)) return to_module;
  std::vector<std::string> names;
  if (tensor_name.empty()) {
    names = parametrizations_of(from_module)->keys();
  } else {
    EMBER_CHECK_VALUE(is_parametrized(from_module, tensor_name), "Module ", from_module.repr(),
                      " does not have a parametrization on ", tensor_name);
    names = {tensor_name};
  }
  for (const std::string& name : names) {
    ParametrizationListImpl& from = *state_of(from_module, name)->list;
    const bool has = ModuleAccess::parameter(to_module, name) != nullptr ||
                     ModuleAccess::buffer(to_module, name) != nullptr ||
                     is_parametrized(to_module, name);
    if (!has) {
      Tensor v;
      {
        NoGradGuard no_grad;
        v = compute(from);
      }
      to_module.register_parameter(name, v.detach());
    }
    for (const Parametrization& p : from.parametrizations()) {
      register_parametrization(to_module, name, p);
    }
    std::shared_ptr<ParametrizeState> state = state_of(to_module, name);
    ParametrizationListImpl& to = *state->list;
    EMBER_CHECK_VALUE(to.is_tensor == from.is_tensor && to.ntensors == from.ntensors,
                      "transfer_parametrizations_and_params: '", name, "' has ", from.ntensors,
                      " original(s) in from_module but ", to.ntensors, " in to_module");
    // PyTorch's setattr(to_list, "original", from_list.original): the
    // same tensor, a parameter when it is one in from_module.
    auto share = [&](const std::string& slot, const Tensor& theirs) -> Tensor {
      if (ModuleAccess::parameter(from, slot) != nullptr) {
        ModuleAccess::remove_buffer(to, slot);
        return to.register_parameter(slot, theirs, theirs.requires_grad());
      }
      EMBER_CHECK_TYPE(ModuleAccess::parameter(to, slot) == nullptr, "cannot assign buffer '", slot,
                       "' of from_module as parameter '", slot,
                       "' (torch.nn.Parameter or None expected)");
      return to.register_buffer(slot, theirs);
    };
    if (from.is_tensor) {
      to.original = share("original", from.original);
    } else {
      for (size_t i = 0; i < from.ntensors; ++i) {
        to.originals[i] = share(absl::StrCat("original", i), from.originals[i]);
      }
    }
    detail::rebind_tensor(state->target, compute(to));
  }
  return to_module;
}

CachedGuard::CachedGuard() { ++cache.depth; }

CachedGuard::~CachedGuard() {
  if (--cache.depth == 0) cache.values.clear();
}

}  // namespace parametrize
}  // namespace utils
}  // namespace nn
}  // namespace ember
