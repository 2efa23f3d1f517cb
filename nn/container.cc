#include "nn/container.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "autograd/grad_mode.h"
#include "tensor/dtype.h"
#include "tensor/error.h"

namespace ember {
namespace nn {
namespace {

const std::shared_ptr<Module>& at_index(const std::vector<std::shared_ptr<Module>>& modules,
                                        int64_t index) {
  const int64_t n = static_cast<int64_t>(modules.size());
  EMBER_CHECK_INDEX(index >= -n && index < n, "index ", index, " is out of range");
  return modules[index < 0 ? index + n : index];
}

}  // namespace

const std::shared_ptr<Module>& ModuleListImpl::ptr(int64_t index) const {
  return at_index(modules_, index);
}

std::shared_ptr<Module> FunctionalImpl::clone(const std::optional<Device>&) const {
  auto copy = std::make_shared<FunctionalImpl>(fn_);
  copy_mode_to(*copy);
  return copy;
}

std::shared_ptr<Module> ModuleListImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ModuleListImpl>();
  for (const auto& m : modules_) copy->append(m->clone(device));
  copy_mode_to(*copy);
  return copy;
}

std::shared_ptr<Module> ModuleDictImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ModuleDictImpl>();
  for (const auto& [key, m] : items_) copy->set(key, m->clone(device));
  copy_mode_to(*copy);
  return copy;
}

void SequentialImpl::add(const std::string& name, std::shared_ptr<Module> module, Bind bind) {
  add_child(name, module);
  forwards_.push_back(bind(module));
  modules_.push_back(std::move(module));
  binds_.push_back(std::move(bind));
}

std::shared_ptr<Module> SequentialImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<SequentialImpl>();
  const auto names = named_children();
  for (size_t i = 0; i < modules_.size(); ++i) {
    copy->add(names[i].first, modules_[i]->clone(device), binds_[i]);
  }
  copy_mode_to(*copy);
  return copy;
}

void ModuleListImpl::append(std::shared_ptr<Module> module) {
  EMBER_CHECK(module != nullptr, "ModuleList: cannot add an empty module");
  add_child(std::to_string(modules_.size()), module);
  modules_.push_back(std::move(module));
}

const std::shared_ptr<Module>& SequentialImpl::ptr(int64_t index) const {
  return at_index(modules_, index);
}

const std::shared_ptr<Module>* ModuleDictImpl::find(const std::string& key) const {
  for (const auto& item : items_) {
    if (item.first == key) return &item.second;
  }
  return nullptr;
}

const std::shared_ptr<Module>& ModuleDictImpl::ptr(const std::string& key) const {
  const std::shared_ptr<Module>* m = find(key);
  EMBER_CHECK(m != nullptr, "ModuleDict has no module '", key, "'");
  return *m;
}

void ModuleDictImpl::set(const std::string& key, std::shared_ptr<Module> module) {
  EMBER_CHECK(module != nullptr, "ModuleDict: cannot add an empty module");
  for (auto& item : items_) {
    if (item.first == key) {
      replace_child(key, module);
      item.second = std::move(module);
      return;
    }
  }
  add_child(key, module);
  items_.emplace_back(key, std::move(module));
}

std::shared_ptr<Module> ModuleDictImpl::pop(const std::string& key) {
  auto it = std::find_if(items_.begin(), items_.end(),
                         [&](const auto& item) { return item.first == key; });
  EMBER_CHECK(it != items_.end(), "ModuleDict has no module '", key, "'");
  std::shared_ptr<Module> m = std::move(it->second);
  items_.erase(it);
  remove_child(key);
  return m;
}

void ModuleDictImpl::clear() {
  for (const auto& item : items_) remove_child(item.first);
  items_.clear();
}

std::vector<std::string> ModuleDictImpl::keys() const {
  std::vector<std::string> out;
  for (const auto& item : items_) out.push_back(item.first);
  return out;
}

std::vector<std::shared_ptr<Module>> ModuleDictImpl::values() const {
  std::vector<std::shared_ptr<Module>> out;
  for (const auto& item : items_) out.push_back(item.second);
  return out;
}

Tensor SequentialImpl::forward(const Tensor& input) {
  Tensor x = input;
  for (const auto& f : forwards_) x = f(x);
  return x;
}

namespace detail {

std::string ParameterContainer::parameter_lines(
    const std::function<std::string(const Tensor&)>& type_name) const {
  std::vector<std::string> lines;
  for (const NamedTensor& p : named_parameters(false)) {
    const Tensor& t = p.value();
    lines.push_back(absl::StrCat("  (", p.key(), "): Parameter containing: [", type_name(t),
                                 " of size ", absl::StrJoin(t.sizes(), "x"),
                                 t.is_cuda() ? absl::StrCat(" (GPU ", t.device().index(), ")") : "",
                                 "]"));
  }
  return absl::StrJoin(lines, "\n");
}

}  // namespace detail

Tensor detail::ParameterContainer::copy_parameter(const Tensor& t,
                                                  const std::optional<Device>& device) {
  if (!t.defined()) return t;
  NoGradGuard no_grad;
  Tensor copy = device.has_value() ? t.detach().to(*device, false, /*copy=*/true) : t.detach().clone();
  copy.set_requires_grad(t.requires_grad());
  return copy;
}

std::shared_ptr<Module> ParameterListImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ParameterListImpl>();
  for (const auto& p : named_parameters(false)) copy->append(copy_parameter(p.value(), device));
  copy_mode_to(*copy);
  return copy;
}

std::shared_ptr<Module> ParameterDictImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ParameterDictImpl>();
  for (const auto& p : named_parameters(false)) copy->insert(p.key(), copy_parameter(p.value(), device));
  copy_mode_to(*copy);
  return copy;
}

void ParameterListImpl::append(Tensor param) {
  const bool requires_grad = param.defined() && param.requires_grad();
  register_parameter(std::to_string(size()), std::move(param), requires_grad);
}

Tensor& ParameterListImpl::at(int64_t index) {
  const int64_t n = static_cast<int64_t>(size());
  const int64_t i = index < 0 ? index + n : index;
  if (i < 0 || i >= n) throw IndexError(absl::StrCat("index ", index, " is out of range"));
  return *find_parameter(std::to_string(i));
}

std::string ParameterListImpl::extra_repr() const {
  // torch.float32, as ParameterList prints p.dtype.
  return parameter_lines(
      [](const Tensor& t) { return absl::StrCat("torch.", dtype_name(t.dtype())); });
}

Tensor& ParameterDictImpl::insert(const std::string& key, Tensor param) {
  const bool requires_grad = param.defined() && param.requires_grad();
  return register_parameter(key, std::move(param), requires_grad);
}

Tensor ParameterDictImpl::pop(const std::string& key) {
  Tensor t = get(key);
  remove_parameter(key);
  return t;
}

void ParameterDictImpl::update(const NamedTensors& params) {
  for (const NamedTensor& p : params) insert(p.key(), p.value());
}

void ParameterDictImpl::clear() {
  for (const std::string& k : keys()) remove_parameter(k);
}

bool ParameterDictImpl::contains(const std::string& key) const {
  return named_parameters(false).contains(key);
}

Tensor& ParameterDictImpl::get(const std::string& key) {
  Tensor* t = find_parameter(key);
  if (t == nullptr) {
    throw Error(absl::StrCat("Parameter '", key, "' is not defined"));
  }
  return *t;
}

std::string ParameterDictImpl::extra_repr() const {
  // torch.FloatTensor, as ParameterDict prints torch.typename(p).
  return parameter_lines([](const Tensor& t) {
    return absl::StrCat("torch.", t.is_cuda() ? "cuda." : "", scalar_type_name(t.dtype()),
                        "Tensor");
  });
}

}  // namespace nn
}  // namespace ember
