#ifndef EMBER_NN_CONTAINER_H_
#define EMBER_NN_CONTAINER_H_

// Sequential and ModuleList. Children are named "0", "1", ... as in
// PyTorch, so parameters are "0.weight", and the tree prints "(0): ...".

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "nn/module.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {

// A function as a module, for Sequential (libtorch's nn::Functional):
//   seq->push_back(nn::Functional([](const Tensor& x) { return x.view({-1, 400}); }));
class FunctionalImpl : public Module {
 public:
  explicit FunctionalImpl(std::function<Tensor(const Tensor&)> fn) : fn_(std::move(fn)) {}
  Tensor forward(const Tensor& input) { return fn_(input); }

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

 private:
  void append(std::shared_ptr<Module> module);

  std::vector<std::shared_ptr<Module>> modules_;
};
EMBER_MODULE(ModuleList);

// Runs its modules one after the other. Any module with a
// `forward(const Tensor&)` (or `forward(Tensor)`) returning Tensor fits;
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
    add_child(name, module);
    modules_.push_back(module);
    forwards_.push_back([module](const Tensor& x) -> Tensor { return module->forward(x); });
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

 private:
  std::vector<std::shared_ptr<Module>> modules_;
  std::vector<std::function<Tensor(const Tensor&)>> forwards_;
};
EMBER_MODULE(Sequential);

}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_CONTAINER_H_
