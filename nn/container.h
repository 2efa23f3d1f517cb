#ifndef EMBER_NN_CONTAINER_H_
#define EMBER_NN_CONTAINER_H_

// Sequential and ModuleList, whose children are named "0", "1", ... as in
// PyTorch (parameters "0.weight", the tree prints "(0): ..."), and
// ModuleDict, whose children are named by their keys.

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "nn/module.h"
#include "tensor/named_tensors.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {

// A function as a module, for Sequential (libtorch's nn::Functional):
//   seq->push_back(nn::Functional([](const Tensor& x) { return x.view({-1, 400}); }));
//   nn::Functional(ember::relu)
//   nn::Functional(ember::max_pool2d, 3, /*stride=*/2, /*padding=*/0, /*dilation=*/1, false)
// The second form, as libtorch's, calls the function with the input first
// and then copies of the trailing arguments (std::bind): an overloaded
// function needs a cast to pick one.
class FunctionalImpl : public Module {
 public:
  explicit FunctionalImpl(std::function<Tensor(const Tensor&)> fn) : fn_(std::move(fn)) {}
  template <typename F, typename Arg, typename... Args>
  explicit FunctionalImpl(F&& fn, Arg&& arg, Args&&... args)
      : fn_(std::bind(std::forward<F>(fn), std::placeholders::_1, std::forward<Arg>(arg),
                      std::forward<Args>(args)...)) {}
  Tensor forward(const Tensor& input) { return fn_(input); }
  // The same function (and bound arguments) in a new module.
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;

 private:
  std::function<Tensor(const Tensor&)> fn_;
};
EMBER_MODULE(Functional);

// Modules kept in order; indexing and iteration give Module pointers.
class ModuleListImpl : public Module {
 public:
  ModuleListImpl() = default;
  template <typename... Ms>
  explicit ModuleListImpl(Ms&&... modules) {
    (push_back(std::forward<Ms>(modules)), ...);
  }

  // Appends a module (a holder or a shared_ptr to one).
  template <typename M>
  void push_back(const M& module) {
    append(as_module_ptr(module));
  }
  void extend(const ModuleListImpl& other) {
    for (const auto& m : other.modules_) append(m);
  }
  // The module at `index` (negative counts from the end); IndexError when
  // out of range, as PyTorch's.
  const std::shared_ptr<Module>& ptr(int64_t index) const;
  Module& operator[](int64_t index) const { return *ptr(index); }
  // The module at `index` as its concrete type (Impl or holder type).
  template <typename T>
  auto& at(int64_t index) const {
    auto* m = ptr(index)->template as<T>();
    EMBER_CHECK(m != nullptr, "Attempted to cast module at index ", index,
                " to the requested type, but it is another kind of module");
    return *m;
  }
  size_t size() const { return modules_.size(); }
  bool is_empty() const { return modules_.empty(); }
  auto begin() const { return modules_.begin(); }
  auto end() const { return modules_.end(); }
  // A list of clones of the modules.
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;

 private:
  void append(std::shared_ptr<Module> module);

  std::vector<std::shared_ptr<Module>> modules_;
};
EMBER_MODULE(ModuleList);

// (name, module) pairs, in order.
using NamedModules = std::vector<std::pair<std::string, std::shared_ptr<Module>>>;

// Modules by name, in insertion order (PyTorch's nn.ModuleDict):
//   nn::ModuleDict heads(nn::NamedModules{{"cls", nn::Linear(8, 10).ptr()},
//                                         {"box", nn::Linear(8, 4).ptr()}});
//   heads->insert("aux", nn::Linear(8, 2));   // a new key goes last
//   heads->at<nn::LinearImpl>("cls").forward(x);
// Assigning an existing key replaces its module in place (same position);
// pop removes one. Keys follow add_module's rules (no ".", not empty).
class ModuleDictImpl : public Module {
 public:
  ModuleDictImpl() = default;
  explicit ModuleDictImpl(const NamedModules& modules) {
    for (const auto& [key, module] : modules) insert(key, module);
  }

  // Adds `module` under `key`, or replaces the module already there.
  template <typename M>
  void insert(const std::string& key, const M& module) {
    set(key, as_module_ptr(module));
  }
  // Inserts every item of `other`, in its order.
  void update(const ModuleDictImpl& other) {
    for (const auto& [key, module] : other.items_) set(key, module);
  }
  // Removes `key` and returns its module.
  std::shared_ptr<Module> pop(const std::string& key);
  void clear();

  bool contains(const std::string& key) const { return find(key) != nullptr; }
  // The module under `key`; an error naming the key when there is none.
  const std::shared_ptr<Module>& ptr(const std::string& key) const;
  Module& operator[](const std::string& key) const { return *ptr(key); }
  template <typename T>
  auto& at(const std::string& key) const {
    auto* m = ptr(key)->template as<T>();
    EMBER_CHECK(m != nullptr, "Attempted to cast module '", key,
                "' to the requested type, but it is another kind of module");
    return *m;
  }
  std::vector<std::string> keys() const;
  std::vector<std::shared_ptr<Module>> values() const;
  const NamedModules& items() const { return items_; }
  size_t size() const { return items_.size(); }
  bool is_empty() const { return items_.empty(); }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }
  // A dict of clones of the modules, in the same order.
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;

 private:
  void set(const std::string& key, std::shared_ptr<Module> module);
  const std::shared_ptr<Module>* find(const std::string& key) const;

  NamedModules items_;
};
EMBER_MODULE(ModuleDict);

// Runs its modules one after the other. Any module with a
// `forward(const Tensor&)` (or `forward(Tensor)`) returning Tensor fits (its
// forward hooks run, Note [Forward hooks] in module.h);
// the call is type-erased at push_back.
class SequentialImpl : public Module {
 public:
  SequentialImpl() = default;
  template <typename... Ms>
  explicit SequentialImpl(Ms&&... modules) {
    (push_back(std::forward<Ms>(modules)), ...);
  }

  // Appends a module (a holder or a shared_ptr to one), named by its index.
  template <typename M>
  void push_back(const M& module) {
    push_back(std::to_string(modules_.size()), module);
  }
  // Appends a module under its own name ("fc") instead of its index.
  template <typename M>
  void push_back(const std::string& name, const std::shared_ptr<M>& module) {
    static_assert(std::is_base_of<Module, M>::value, "Sequential holds nn::Modules");
    EMBER_CHECK(module != nullptr, "Sequential: cannot add an empty module");
    // How to call a module of type M, kept to call its clones too.
    Bind bind = [](const std::shared_ptr<Module>& m) -> std::function<Tensor(const Tensor&)> {
      std::shared_ptr<M> typed = std::dynamic_pointer_cast<M>(m);
      EMBER_CHECK(typed != nullptr, "Sequential: a clone of ", m->name(), " has another type");
      return [typed](const Tensor& x) -> Tensor { return detail::call_forward(*typed, x); };
    };
    add(name, module, std::move(bind));
  }
  template <typename H, typename = std::enable_if_t<is_module_holder_v<H>>>
  void push_back(const std::string& name, const H& holder) {
    push_back(name, holder.ptr());
  }

  Tensor forward(const Tensor& input);

  const std::shared_ptr<Module>& ptr(int64_t index) const;
  Module& operator[](int64_t index) const { return *ptr(index); }
  template <typename T>
  auto& at(int64_t index) const {
    auto* m = ptr(index)->template as<T>();
    EMBER_CHECK(m != nullptr, "Attempted to cast module at index ", index,
                " to the requested type, but it is another kind of module");
    return *m;
  }
  size_t size() const { return modules_.size(); }
  bool is_empty() const { return modules_.empty(); }
  auto begin() const { return modules_.begin(); }
  auto end() const { return modules_.end(); }
  // A Sequential of clones of the modules, under the same names.
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;

 private:
  using Bind = std::function<std::function<Tensor(const Tensor&)>(const std::shared_ptr<Module>&)>;
  void add(const std::string& name, std::shared_ptr<Module> module, Bind bind);

  std::vector<std::shared_ptr<Module>> modules_;
  std::vector<std::function<Tensor(const Tensor&)>> forwards_;
  std::vector<Bind> binds_;
};
EMBER_MODULE(Sequential);

namespace detail {
// What ParameterList and ParameterDict share: iteration over libtorch's
// items (key(), value()) of a snapshot taken when the loop starts (so it
// sees tensors that to() replaced), and Python's repr lines.
class ParameterContainer : public Module {
 public:
  NamedTensors::iterator begin() {
    items_ = named_parameters(false);
    return items_.begin();
  }
  NamedTensors::iterator end() { return items_.end(); }

 protected:
  // "  (key): Parameter containing: [<type> of size 3x4]" per parameter,
  // <type> from type_name(tensor).
  std::string parameter_lines(const std::function<std::string(const Tensor&)>& type_name) const;
  // `t` copied (to `device` when given), keeping its requires_grad.
  static Tensor copy_parameter(const Tensor& t, const std::optional<Device>& device);

 private:
  NamedTensors items_;
};
}  // namespace detail

// ParameterList (torch.nn.ParameterList, libtorch's): parameters named
// "0", "1", ... in order. A tensor keeps its requires_grad (libtorch's
// rule).
class ParameterListImpl : public detail::ParameterContainer {
 public:
  ParameterListImpl() = default;
  template <typename... Ts>
  explicit ParameterListImpl(Ts&&... params) {
    (append(std::forward<Ts>(params)), ...);
  }
  void append(Tensor param);
  template <typename Container>
  void extend(const Container& params) {
    for (const auto& p : params) append(value_of(p));
  }
  void extend(const ParameterListImpl& other) { extend(other.named_parameters(false)); }
  // The parameter at `index` (negative counts from the end); IndexError
  // when out of range.
  Tensor& operator[](int64_t index) { return at(index); }
  Tensor& at(int64_t index);
  size_t size() const { return named_parameters(false).size(); }
  bool is_empty() const { return size() == 0; }
  // "  (0): Parameter containing: [torch.float32 of size 3x4]" per entry.
  std::string extra_repr() const override;
  // A list of copies of the parameters.
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;

 private:
  static const Tensor& value_of(const Tensor& t) { return t; }
  static const Tensor& value_of(const NamedTensor& t) { return t.value(); }
};
EMBER_MODULE(ParameterList);

// ParameterDict (torch.nn.ParameterDict, libtorch's): parameters by name, in
// insertion order. Names may not contain "." (they are parameter names).
class ParameterDictImpl : public detail::ParameterContainer {
 public:
  ParameterDictImpl() = default;
  explicit ParameterDictImpl(const NamedTensors& params) { update(params); }
  // Adds or replaces `key`; returns the stored tensor.
  Tensor& insert(const std::string& key, Tensor param);
  // Removes `key` and returns its tensor; KeyError-like Error when absent.
  Tensor pop(const std::string& key);
  void update(const NamedTensors& params);
  void update(const ParameterDictImpl& other) { update(other.named_parameters(false)); }
  void clear();
  bool contains(const std::string& key) const;
  Tensor& operator[](const std::string& key) { return get(key); }
  Tensor& get(const std::string& key);
  Tensor* find(const std::string& key) { return find_parameter(key); }
  std::vector<std::string> keys() const { return named_parameters(false).keys(); }
  std::vector<Tensor> values() const { return named_parameters(false).values(); }
  size_t size() const { return named_parameters(false).size(); }
  bool empty() const { return size() == 0; }
  // "  (name): Parameter containing: [torch.FloatTensor of size 2x3]".
  std::string extra_repr() const override;
  // A dict of copies of the parameters.
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;

};
EMBER_MODULE(ParameterDict);

}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_CONTAINER_H_
