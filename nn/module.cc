#include "nn/module.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <typeinfo>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "tensor/print.h"
#include "tensor/random.h"

namespace ember {
namespace nn {
namespace {

// "ember::nn::LinearImpl" -> "Linear"; template arguments are kept whole.
std::string class_name(const std::type_info& type) {
  int status = 0;
  char* raw = abi::__cxa_demangle(type.name(), nullptr, nullptr, &status);
  std::string full = status == 0 && raw ? raw : type.name();
  std::free(raw);
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < full.size(); ++i) {
    if (full[i] == '<') ++depth;
    if (full[i] == '>') --depth;
    if (depth == 0 && full.compare(i, 2, "::") == 0) start = i + 2;
  }
  std::string name = full.substr(start);
  const std::string impl = "Impl";
  if (name.size() > impl.size() &&
      name.compare(name.size() - impl.size(), impl.size(), impl) == 0) {
    name.resize(name.size() - impl.size());
  }
  return name;
}

// Python's _addindent: every line but the first indented by `spaces`.
std::string add_indent(const std::string& s, int spaces) {
  std::vector<std::string> lines = absl::StrSplit(s, '\n');
  if (lines.size() == 1) return s;
  const std::string pad(spaces, ' ');
  std::string out = lines[0];
  for (size_t i = 1; i < lines.size(); ++i) absl::StrAppend(&out, "\n", pad, lines[i]);
  return out;
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// Note [Module::to keeps identity]: `dst` takes over `src`'s storage, dtype
// and geometry while keeping its own autograd state, so every handle to dst
// sees the converted values (PyTorch's param.data = fn(param)).
void replace_data(const Tensor& dst, const Tensor& src) {
  std::unique_ptr<AutogradMetaInterface> meta;
  if (autograd::AutogradMeta* old = autograd::get_meta(dst)) {
    meta = std::make_unique<autograd::AutogradMeta>(std::move(*old));
  }
  *dst.impl() = std::move(*src.impl());
  dst.impl()->set_autograd_meta(std::move(meta));
}

}  // namespace

namespace detail {
void set_module_factory(Module& module, ModuleFactory factory) {
  module.factory_ = std::move(factory);
}

PreserveDefaultGenerator::PreserveDefaultGenerator() {
  GeneratorImpl* g = default_generator().impl();
  std::lock_guard<std::mutex> lock(g->mutex());
  state_ = std::make_shared<GeneratorImpl::Snapshot>(g->snapshot());
}

PreserveDefaultGenerator::~PreserveDefaultGenerator() {
  GeneratorImpl* g = default_generator().impl();
  std::lock_guard<std::mutex> lock(g->mutex());
  g->restore(*std::static_pointer_cast<GeneratorImpl::Snapshot>(state_));
}

// Every handle to `handle` (a layer's `weight` member) then computes with
// `value`'s values and history.
void rebind_tensor(const Tensor& handle, Tensor value) {
  // A tensor held elsewhere too (a parametrization that returns its input,
  // a cached result) gives a view: its own TensorImpl stays intact.
  if (value.use_count() > 1 || handle.is_same(value)) {
    value = value.is_contiguous()
                ? value.view(value.sizes())
                : value.as_strided(value.sizes(), value.strides(), value.storage_offset());
  }
  std::unique_ptr<AutogradMetaInterface> meta;
  if (autograd::AutogradMeta* m = autograd::get_meta(value)) {
    meta = std::make_unique<autograd::AutogradMeta>(std::move(*m));
  }
  *handle.impl() = std::move(*value.impl());
  handle.impl()->set_autograd_meta(std::move(meta));
}

bool link_replica(Module& replica, const Module& original, const Device& device,
                  bool share_buffers) {
  // Checked over the whole tree before anything changes.
  std::function<bool(const Module&, const Module&)> same = [&](const Module& r, const Module& o) {
    if (typeid(r) != typeid(o) || r.children_.size() != o.children_.size()) return false;
    auto same_slots = [](const auto& a, const auto& b) {
      if (a.size() != b.size()) return false;
      for (size_t i = 0; i < a.size(); ++i) {
        const Tensor &x = a[i].tensor, &y = b[i].tensor;
        if (a[i].name != b[i].name || x.defined() != y.defined()) return false;
        if (x.defined() && !(x.sizes() == y.sizes())) return false;
      }
      return true;
    };
    if (!same_slots(r.parameters_, o.parameters_) || !same_slots(r.buffers_, o.buffers_)) {
      return false;
    }
    for (size_t i = 0; i < r.children_.size(); ++i) {
      const auto& [name, child] = r.children_[i];
      const auto& [their_name, theirs] = o.children_[i];
      if (name != their_name || (child == nullptr) != (theirs == nullptr)) return false;
      if (child != nullptr && !same(*child, *theirs)) return false;
    }
    return true;
  };
  if (!same(replica, original)) return false;
  std::function<void(Module&, const Module&)> link = [&](Module& r, const Module& o) {
    r.training_ = o.training_;
    for (size_t i = 0; i < r.parameters_.size(); ++i) {
      const Tensor& p = o.parameters_[i].tensor;
      if (!p.defined()) continue;
      // Differentiable copies (under the caller's grad mode): gradients flow
      // back to the original parameter.
      rebind_tensor(r.parameters_[i].tensor,
                    p.device() == device ? p.clone() : p.to(device, false, /*copy=*/true));
    }
    for (size_t i = 0; i < r.buffers_.size(); ++i) {
      if (!o.buffers_[i].tensor.defined()) continue;
      const Tensor b = o.buffers_[i].tensor.detach();
      replace_data(r.buffers_[i].tensor,
                   share_buffers && b.device() == device ? b : b.to(device, false, /*copy=*/true));
    }
    for (size_t i = 0; i < r.children_.size(); ++i) {
      if (r.children_[i].second != nullptr) link(*r.children_[i].second, *o.children_[i].second);
    }
  };
  link(replica, original);
  return true;
}

}  // namespace detail

std::shared_ptr<Module> Module::clone(const std::optional<Device>& device) const {
  EMBER_CHECK(factory_ != nullptr, "clone() has not been implemented for ", name(),
              ": ember clones a module by constructing it again from the arguments its holder "
              "(EMBER_MODULE) was given, and this one was made without its holder "
              "(std::make_shared) or from arguments that cannot be copied. Make it through its "
              "holder, or override clone() (Note [Cloning modules] in nn/module.h)");
  NoGradGuard no_grad;
  detail::PreserveDefaultGenerator keep;
  std::shared_ptr<Module> copy = factory_();
  copy->factory_ = factory_;
  copy->copy_from_original(*this, device, name());
  return copy;
}

void Module::copy_from_original(const Module& original, const std::optional<Device>& device,
                                const std::string& path) {
  auto fail = [&](const std::string& what) {
    EMBER_CHECK(false, "clone(): constructing ", original.name(), " again ", what, " at '", path,
                "', so the copy would not be a copy (Note [Cloning modules] in nn/module.h)");
  };
  NoGradGuard no_grad;
  training_ = original.training_;
  auto copy_slots = [&](std::vector<Slot>& mine, const std::vector<Slot>& theirs, bool params) {
    if (mine.size() != theirs.size()) {
      fail(absl::StrCat("gave ", mine.size(), params ? " parameters" : " buffers", " instead of ",
                        theirs.size()));
    }
    for (size_t i = 0; i < mine.size(); ++i) {
      Slot& a = mine[i];
      const Slot& b = theirs[i];
      if (a.name != b.name) fail(absl::StrCat("named a tensor '", a.name, "' instead of '", b.name, "'"));
      if (!b.tensor.defined()) {
        a.tensor = Tensor();
        continue;
      }
      if (a.tensor.defined() && a.tensor.is_same(b.tensor)) {
        fail(absl::StrCat("reused the original's tensor '", b.name, "'"));
      }
      Tensor value = device.has_value() ? b.tensor.detach().to(*device, false, /*copy=*/true)
                                        : b.tensor.detach().clone();
      if (a.tensor.defined()) {
        replace_data(a.tensor, value);
      } else {
        a.tensor = value;
      }
      if (params) a.tensor.set_requires_grad(b.tensor.requires_grad());
      a.persistent = b.persistent;
    }
  };
  copy_slots(parameters_, original.parameters_, true);
  copy_slots(buffers_, original.buffers_, false);
  if (children_.size() != original.children_.size()) {
    fail(absl::StrCat("gave ", children_.size(), " submodules instead of ",
                      original.children_.size()));
  }
  for (size_t i = 0; i < children_.size(); ++i) {
    auto& [name, mine] = children_[i];
    const auto& [their_name, theirs] = original.children_[i];
    if (name != their_name) fail(absl::StrCat("named a submodule '", name, "' instead of '", their_name, "'"));
    if (theirs == nullptr) continue;
    if (mine == theirs) fail(absl::StrCat("reused the original's submodule '", name, "'"));
    mine->copy_from_original(*theirs, device, path + "." + name);
  }
}

void Module::clear_registrations() {
  parameters_.clear();
  buffers_.clear();
  children_.clear();
  hooks_.reset();  // the copy shared the original's
}

// --- hooks ----------------------------------------------------------------------

void RemovableHandle::remove() {
  std::shared_ptr<detail::Hooks> hooks = hooks_.lock();
  if (hooks == nullptr) return;
  auto drop = [this](auto& list) {
    list.erase(
        std::remove_if(list.begin(), list.end(), [this](const auto& h) { return h.first == id_; }),
        list.end());
  };
  drop(hooks->pre);
  drop(hooks->post);
  drop(hooks->load_pre);
}

RemovableHandle Module::register_forward_pre_hook(ForwardPreHook fn) {
  if (hooks_ == nullptr) hooks_ = std::make_shared<detail::Hooks>();
  const unsigned id = hooks_->next_id++;
  hooks_->pre.emplace_back(id, std::move(fn));
  return RemovableHandle(hooks_, id);
}

RemovableHandle Module::register_forward_hook(ForwardHook fn) {
  if (hooks_ == nullptr) hooks_ = std::make_shared<detail::Hooks>();
  const unsigned id = hooks_->next_id++;
  hooks_->post.emplace_back(id, std::move(fn));
  return RemovableHandle(hooks_, id);
}

RemovableHandle Module::register_load_state_dict_pre_hook(LoadStateDictPreHook fn) {
  if (hooks_ == nullptr) hooks_ = std::make_shared<detail::Hooks>();
  const unsigned id = hooks_->next_id++;
  hooks_->load_pre.emplace_back(id, std::move(fn));
  return RemovableHandle(hooks_, id);
}

// Each runs on a copy of the list: a hook may add or remove hooks.
void Module::run_forward_pre_hooks(const std::vector<Tensor>& inputs) {
  if (hooks_ == nullptr) return;
  const auto hooks = hooks_->pre;
  for (const auto& h : hooks) h.second(*this, inputs);
}

void Module::run_forward_hooks(const std::vector<Tensor>& inputs, Tensor& output) {
  if (hooks_ == nullptr) return;
  const auto hooks = hooks_->post;
  for (const auto& h : hooks) h.second(*this, inputs, output);
}

void Module::check_no_forward_hooks() const {
  EMBER_CHECK(hooks_ == nullptr || hooks_->post.empty(), name(),
              " has forward hooks, which need a forward() that returns a Tensor "
              "(Note [Forward hooks] in nn/module.h)");
}

Module::Module(std::string name) : name_(std::move(name)) {}
Module::Module() = default;

const std::string& Module::name() const {
  if (name_.empty()) name_ = class_name(typeid(*this));
  return name_;
}

// --- registration ---------------------------------------------------------------

Tensor& Module::register_parameter(const std::string& name, Tensor tensor, bool requires_grad) {
  EMBER_CHECK(!name.empty(), "parameter name can't be empty string \"\"");
  EMBER_CHECK(name.find('.') == std::string::npos, "parameter name can't contain \".\"");
  EMBER_CHECK_VALUE(!tensor.defined() || tensor.is_leaf(), "Cannot assign non-leaf Tensor to ",
                    "parameter '", name, "'. Model parameters must be created explicitly. To ",
                    "express '", name, "' as a function of another Tensor, compute the value in ",
                    "the forward() method.");
  if (tensor.defined()) tensor.set_requires_grad(requires_grad);
  for (Slot& s : parameters_) {
    if (s.name == name) {
      s.tensor = std::move(tensor);
      return s.tensor;
    }
  }
  parameters_.push_back({name, std::move(tensor), true});
  return parameters_.back().tensor;
}

Tensor* Module::find_parameter(const std::string& name) {
  for (Slot& s : parameters_) {
    if (s.name == name) return &s.tensor;
  }
  return nullptr;
}

bool Module::remove_parameter(const std::string& name) {
  for (auto it = parameters_.begin(); it != parameters_.end(); ++it) {
    if (it->name == name) {
      parameters_.erase(it);
      return true;
    }
  }
  return false;
}

Tensor& Module::register_buffer(const std::string& name, Tensor tensor, bool persistent) {
  EMBER_CHECK(!name.empty(), "buffer name can't be empty string \"\"");
  EMBER_CHECK(name.find('.') == std::string::npos, "buffer name can't contain \".\"");
  for (Slot& s : buffers_) {
    if (s.name == name) {
      s.tensor = std::move(tensor);
      s.persistent = persistent;
      return s.tensor;
    }
  }
  buffers_.push_back({name, std::move(tensor), persistent});
  return buffers_.back().tensor;
}

void Module::add_child(const std::string& name, std::shared_ptr<Module> module) {
  EMBER_CHECK(!name.empty(), "module name can't be empty string \"\"");
  EMBER_CHECK(name.find('.') == std::string::npos, "module name can't contain \".\", got: ",
              name);
  for (const auto& c : children_) {
    EMBER_CHECK(c.first != name, "Submodule '", name, "' already defined");
  }
  children_.emplace_back(name, std::move(module));
}

void Module::replace_child(const std::string& name, std::shared_ptr<Module> module) {
  for (auto& c : children_) {
    if (c.first == name) {
      c.second = std::move(module);
      return;
    }
  }
  EMBER_CHECK(false, "No Module with name '", name, "' is registered");
}

void Module::remove_child(const std::string& name) {
  for (auto it = children_.begin(); it != children_.end(); ++it) {
    if (it->first == name) {
      children_.erase(it);
      return;
    }
  }
  EMBER_CHECK(false, "No Module with name '", name, "' is registered");
}

// --- traversal ------------------------------------------------------------------

void Module::collect(const std::string& prefix, bool recurse, bool buffers, bool dedupe,
                     NamedTensors* out, std::vector<const TensorImpl*>* seen) const {
  for (const Slot& s : buffers ? buffers_ : parameters_) {
    if (!s.tensor.defined()) continue;
    const TensorImpl* impl = s.tensor.unsafeGetTensorImpl();
    if (dedupe) {
      if (std::find(seen->begin(), seen->end(), impl) != seen->end()) continue;
      seen->push_back(impl);
    }
    out->emplace_back(prefix + s.name, s.tensor);
  }
  if (!recurse) return;
  for (const auto& c : children_) {
    if (c.second) c.second->collect(prefix + c.first + ".", true, buffers, dedupe, out, seen);
  }
}

NamedTensors Module::named_parameters(bool recurse) const {
  NamedTensors out;
  std::vector<const TensorImpl*> seen;
  collect("", recurse, /*buffers=*/false, /*dedupe=*/true, &out, &seen);
  return out;
}

NamedTensors Module::named_buffers(bool recurse) const {
  NamedTensors out;
  std::vector<const TensorImpl*> seen;
  collect("", recurse, /*buffers=*/true, /*dedupe=*/true, &out, &seen);
  return out;
}

std::vector<Tensor> Module::parameters(bool recurse) const {
  std::vector<Tensor> out;
  for (auto& p : named_parameters(recurse)) out.push_back(std::move(p.second));
  return out;
}

std::vector<Tensor> Module::buffers(bool recurse) const {
  std::vector<Tensor> out;
  for (auto& p : named_buffers(recurse)) out.push_back(std::move(p.second));
  return out;
}

std::vector<std::pair<std::string, std::shared_ptr<Module>>> Module::named_children() const {
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> out;
  for (const auto& c : children_) {
    if (c.second) out.push_back(c);
  }
  return out;
}

std::vector<std::shared_ptr<Module>> Module::children() const {
  std::vector<std::shared_ptr<Module>> out;
  for (auto& c : named_children()) out.push_back(std::move(c.second));
  return out;
}

std::vector<std::pair<std::string, std::shared_ptr<Module>>> Module::named_modules(
    const std::string& prefix, bool include_self) {
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> out;
  std::vector<const Module*> seen;
  // PyTorch's memo: a module reachable twice is listed once.
  std::function<void(const std::string&, const std::shared_ptr<Module>&)> visit =
      [&](const std::string& name, const std::shared_ptr<Module>& m) {
        if (std::find(seen.begin(), seen.end(), m.get()) != seen.end()) return;
        seen.push_back(m.get());
        out.emplace_back(name, m);
        for (const auto& c : m->children_) {
          if (c.second) visit(name.empty() ? c.first : name + "." + c.first, c.second);
        }
      };
  // A module not owned by a shared_ptr (a plain member or stack object) is
  // listed through a non-owning pointer.
  std::shared_ptr<Module> self = weak_from_this().lock();
  if (!self) self = std::shared_ptr<Module>(std::shared_ptr<Module>(), this);
  visit(prefix, self);
  if (!include_self) out.erase(out.begin());
  return out;
}

std::vector<std::shared_ptr<Module>> Module::modules(bool include_self) {
  std::vector<std::shared_ptr<Module>> out;
  for (auto& m : named_modules("", include_self)) out.push_back(std::move(m.second));
  return out;
}

Module& Module::apply(const std::function<void(Module&)>& fn) {
  for (const auto& c : children_) {
    if (c.second) c.second->apply(fn);
  }
  fn(*this);
  return *this;
}

std::shared_ptr<Module> Module::get_submodule(const std::string& name) {
  std::shared_ptr<Module> m = weak_from_this().lock();
  if (!m) m = std::shared_ptr<Module>(std::shared_ptr<Module>(), this);
  if (name.empty()) return m;
  for (const std::string& atom : std::vector<std::string>(absl::StrSplit(name, '.'))) {
    std::shared_ptr<Module> next;
    for (const auto& c : m->children_) {
      if (c.first == atom) next = c.second;
    }
    EMBER_CHECK(next != nullptr, m->name(), " has no attribute `", atom, "`");
    m = next;
  }
  return m;
}

namespace {
std::pair<std::string, std::string> split_last(const std::string& target) {
  const size_t dot = target.rfind('.');
  if (dot == std::string::npos) return {"", target};
  return {target.substr(0, dot), target.substr(dot + 1)};
}
}  // namespace

Tensor& Module::get_parameter(const std::string& target) {
  auto [path, leaf] = split_last(target);
  std::shared_ptr<Module> m = get_submodule(path);
  for (Slot& s : m->parameters_) {
    if (s.name == leaf) return s.tensor;
  }
  throw Error(absl::StrCat(m->name(), " has no attribute `", leaf, "`"));
}

Tensor& Module::get_buffer(const std::string& target) {
  auto [path, leaf] = split_last(target);
  std::shared_ptr<Module> m = get_submodule(path);
  for (Slot& s : m->buffers_) {
    if (s.name == leaf) return s.tensor;
  }
  throw Error(absl::StrCat(m->name(), " has no attribute `", leaf, "`"));
}

// --- modes ----------------------------------------------------------------------

void Module::train(bool on) {
  training_ = on;
  for (const auto& c : children_) {
    if (c.second) c.second->train(on);
  }
}

void Module::zero_grad(bool set_to_none) {
  for (Tensor& p : parameters()) {
    Tensor& g = p.mutable_grad();
    if (!g.defined()) continue;
    if (set_to_none) {
      g = Tensor();
    } else {
      if (g.grad_fn()) {
        g.detach_();
      } else {
        g.requires_grad_(false);
      }
      g.zero_();
    }
  }
}

void Module::apply_to_tensors(const std::function<Tensor(const Tensor&)>& convert) {
  NoGradGuard no_grad;
  apply([&](Module& m) {
    for (auto* slots : {&m.parameters_, &m.buffers_}) {
      for (Slot& s : *slots) {
        if (!s.tensor.defined()) continue;
        Tensor converted = convert(s.tensor);
        if (converted.is_same(s.tensor)) continue;
        Tensor grad = s.tensor.grad();
        replace_data(s.tensor, converted);
        if (grad.defined()) s.tensor.mutable_grad() = convert(grad);
      }
    }
  });
}

void Module::to(Device device, bool non_blocking) {
  apply_to_tensors([&](const Tensor& t) {
    if (t.device() == device) return t;
    return t.detach().to(device, non_blocking, /*copy=*/true);
  });
}

void Module::to(ScalarType dtype, bool non_blocking) {
  apply_to_tensors([&](const Tensor& t) {
    if (!t.is_floating_point() || t.dtype() == dtype) return t;
    return t.detach().to(dtype, non_blocking, /*copy=*/true);
  });
}

void Module::to(Device device, ScalarType dtype, bool non_blocking) {
  apply_to_tensors([&](const Tensor& t) {
    const ScalarType want = t.is_floating_point() ? dtype : t.dtype();
    if (t.device() == device && t.dtype() == want) return t;
    return t.detach().to(device, want, non_blocking, /*copy=*/true);
  });
}

// --- state ----------------------------------------------------------------------

void Module::collect_state(const std::string& prefix, NamedTensors* out) const {
  for (const Slot& s : parameters_) {
    if (s.tensor.defined()) out->emplace_back(prefix + s.name, s.tensor.detach());
  }
  for (const Slot& s : buffers_) {
    if (s.tensor.defined() && s.persistent) out->emplace_back(prefix + s.name, s.tensor.detach());
  }
  for (const auto& c : children_) {
    if (c.second) c.second->collect_state(prefix + c.first + ".", out);
  }
}

NamedTensors Module::state_dict() const {
  NamedTensors out;
  collect_state("", &out);
  return out;
}

std::ostream& operator<<(std::ostream& os, const IncompatibleKeys& keys) {
  if (keys.empty()) return os << "<All keys matched successfully>";
  auto list = [](const std::vector<std::string>& v) {
    return absl::StrCat("[", absl::StrJoin(v, ", ", [](std::string* out, const std::string& k) {
                          absl::StrAppend(out, "'", k, "'");
                        }),
                        "]");
  };
  return os << "_IncompatibleKeys(missing_keys=" << list(keys.missing_keys)
            << ", unexpected_keys=" << list(keys.unexpected_keys) << ")";
}

IncompatibleKeys Module::load_state_dict(const NamedTensors& given, bool strict) {
  std::vector<std::string> missing, unexpected, errors;
  NoGradGuard no_grad;
  // Pre-hooks may rewrite the dict: they get this copy (of handles), as
  // PyTorch's load_state_dict copies the OrderedDict.
  NamedTensors state_dict = given;
  // PyTorch's load(): each module, pre-order, runs its pre-hooks, takes its
  // own keys and reports the keys under its prefix that name nothing it has.
  std::function<void(Module&, const std::string&)> load = [&](Module& m,
                                                              const std::string& prefix) {
    if (m.hooks_ != nullptr) {
      const auto hooks = m.hooks_->load_pre;
      for (const auto& h : hooks) h.second(state_dict, prefix, missing, unexpected, errors);
    }
    std::vector<Slot*> local;
    for (Slot& s : m.parameters_) {
      if (s.tensor.defined()) local.push_back(&s);
    }
    for (Slot& s : m.buffers_) {
      if (s.tensor.defined() && s.persistent) local.push_back(&s);
    }
    for (Slot* s : local) {
      const std::string key = prefix + s->name;
      auto it = std::find_if(state_dict.begin(), state_dict.end(),
                             [&](const auto& kv) { return kv.first == key; });
      if (it == state_dict.end()) {
        missing.push_back(key);
        continue;
      }
      Tensor input = it->second;
      // Checkpoints from before 0-dim tensors stored scalars as 1-element.
      if (s->tensor.dim() == 0 && input.dim() == 1) input = input[0];
      if (input.sizes() != s->tensor.sizes()) {
        errors.push_back(absl::StrCat("size mismatch for ", key, ": copying a param with shape ",
                                      size_repr(input.sizes()),
                                      " from checkpoint, the shape in current model is ",
                                      size_repr(s->tensor.sizes()), "."));
        continue;
      }
      s->tensor.copy_(input);
    }
    for (const auto& kv : state_dict) {
      if (!starts_with(kv.first, prefix)) continue;
      const std::string rest = kv.first.substr(prefix.size());
      const std::string head = rest.substr(0, rest.find('.'));
      const bool known =
          std::any_of(m.children_.begin(), m.children_.end(),
                      [&](const auto& c) { return c.first == head; }) ||
          std::any_of(local.begin(), local.end(), [&](Slot* s) { return s->name == head; });
      if (!known) unexpected.push_back(kv.first);
    }
    for (const auto& c : m.children_) {
      if (c.second) load(*c.second, prefix + c.first + ".");
    }
  };
  load(*this, "");
  auto quoted = [](const std::vector<std::string>& keys) {
    return absl::StrJoin(keys, ", ", [](std::string* out, const std::string& k) {
      absl::StrAppend(out, "\"", k, "\"");
    });
  };
  if (strict && !unexpected.empty()) {
    errors.insert(errors.begin(),
                  absl::StrCat("Unexpected key(s) in state_dict: ", quoted(unexpected), ". "));
  }
  if (strict && !missing.empty()) {
    errors.insert(errors.begin(),
                  absl::StrCat("Missing key(s) in state_dict: ", quoted(missing), ". "));
  }
  EMBER_CHECK(errors.empty(), "Error(s) in loading state_dict for ", name(), ":\n\t",
              absl::StrJoin(errors, "\n\t"));
  return {std::move(missing), std::move(unexpected)};
}

// --- printing -------------------------------------------------------------------

std::string Module::repr() const {
  std::vector<std::string> lines;
  const std::string extra = extra_repr();
  size_t extra_lines = 0;
  if (!extra.empty()) {
    for (absl::string_view l : absl::StrSplit(extra, '\n')) {
      lines.emplace_back(l);
      ++extra_lines;
    }
  }
  for (const auto& c : children_) {
    const std::string child = c.second ? c.second->repr() : "None";
    lines.push_back(absl::StrCat("(", c.first, "): ", add_indent(child, 2)));
  }
  std::string out = name() + "(";
  if (!lines.empty()) {
    if (extra_lines == 1 && lines.size() == 1) {
      out += lines[0];
    } else {
      absl::StrAppend(&out, "\n  ", absl::StrJoin(lines, "\n  "), "\n");
    }
  }
  return out + ")";
}

std::ostream& operator<<(std::ostream& os, const Module& module) { return os << module.repr(); }

}  // namespace nn
}  // namespace ember
