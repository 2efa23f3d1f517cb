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
  append(first);
  Tensor value;
  {
    NoGradGuard no_grad;
    value = orig.detach();
    if (first.right_inverse) value = first.right_inverse(value);
  }
  EMBER_CHECK_VALUE(value.dtype() == orig.dtype(),
                    "When `right_inverse` outputs one tensor, it may not change the dtype.\n",
                    "original.dtype: ", dtype_str(orig.dtype()), "\n",
                    "right_inverse(original).dtype: ", dtype_str(value.dtype()));
  if (is_parameter) {
    original = register_parameter("original", value.detach(), orig.requires_grad());
  } else {
    original = register_buffer("original", value.detach());
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
  Tensor x = parametrizations_[0].forward(original);
  for (size_t i = 1; i < parametrizations_.size(); ++i) x = parametrizations_[i].forward(x);
  return x;
}

void ParametrizationListImpl::append(Parametrization p) {
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
    if (!unsafe) {
      const Tensor y = list.forward();
      const Tensor x = p.forward(y);
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
        const Tensor z = p.right_inverse(x);
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
  const bool is_parameter = ModuleAccess::parameter(list, "original") != nullptr;
  const bool requires_grad = list.original.requires_grad();
  Tensor value;
  {
    NoGradGuard no_grad;
    value = leave_parametrized ? list.forward() : list.original;
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
    ModuleAccess::remove_child(module, "parametrizations");
    const std::string printed = module.name();
    if (printed.rfind(kPrefix, 0) == 0) {
      ModuleAccess::set_name(module, printed.substr(sizeof(kPrefix) - 1));
    }
  }
  return module;
}

Tensor value(Module& module, const std::string& name) {
  EMBER_CHECK_VALUE(is_parametrized(module, name), "Module ", module.repr(),
                    " does not have a parametrization on ", name);
  return compute(*state_of(module, name)->list);
}

CachedGuard::CachedGuard() { ++cache.depth; }

CachedGuard::~CachedGuard() {
  if (--cache.depth == 0) cache.values.clear();
}

}  // namespace parametrize
}  // namespace utils
}  // namespace nn
}  // namespace ember
