#ifndef EMBER_NN_MODULE_HOLDER_H_
#define EMBER_NN_MODULE_HOLDER_H_

// libtorch's "pimpl" holder: `LinearImpl` is the module, `Linear` a
// shared-pointer handle to one, made by EMBER_MODULE(Linear) (libtorch's
// TORCH_MODULE). Copies of a holder share the module, as Python names do.
//
//   struct NetImpl : nn::Module { ... Tensor forward(Tensor x); };
//   EMBER_MODULE(Net);
//   Net net;                 // a fresh NetImpl
//   net->forward(x); net(x); // the same call

#include <cstddef>
#include <functional>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensor/error.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {

class Module;

namespace detail {
// Makes a module again from the arguments its holder was given: what
// Module::clone() starts from (Note [Cloning modules] in module.h).
using ModuleFactory = std::function<std::shared_ptr<Module>()>;
void set_module_factory(Module& module, ModuleFactory factory);

// A factory that constructs C from copies of `args`, or an empty one when
// an argument cannot be copied (then the module cannot be cloned).
template <typename C, typename... Args>
ModuleFactory make_module_factory(const Args&... args) {
  if constexpr ((std::is_copy_constructible<std::decay_t<Args>>::value && ...) &&
                std::is_constructible<C, const std::decay_t<Args>&...>::value) {
    return [copies = std::make_tuple(std::decay_t<Args>(args)...)]() -> std::shared_ptr<Module> {
      return std::apply([](const auto&... a) { return std::make_shared<C>(a...); }, copies);
    };
  } else {
    return nullptr;
  }
}

// Calls m.forward(args...) with m's forward hooks around it, as PyTorch's
// Module.__call__ (Note [Forward hooks] in module.h): what a holder's
// operator() and Sequential run. The hooks see the arguments that are
// Tensors; forward hooks need a forward() that returns a Tensor.
template <typename M, typename... Args>
decltype(auto) call_forward(M& m, Args&&... args) {
  using R = decltype(m.forward(std::forward<Args>(args)...));
  if (!m.has_forward_hooks()) return m.forward(std::forward<Args>(args)...);
  std::vector<Tensor> inputs;
  auto collect = [&inputs](const auto& a) {
    if constexpr (std::is_same<std::decay_t<decltype(a)>, Tensor>::value) inputs.push_back(a);
  };
  (collect(args), ...);
  m.run_forward_pre_hooks(inputs);
  if constexpr (std::is_same<R, Tensor>::value) {
    Tensor output = m.forward(std::forward<Args>(args)...);
    m.run_forward_hooks(inputs, output);
    return output;
  } else {
    m.check_no_forward_hooks();
    return m.forward(std::forward<Args>(args)...);
  }
}
}  // namespace detail

// Marks holders so that templates taking "a module" accept them.
struct ModuleHolderIndicator {};

template <typename Contained>
class ModuleHolder : ModuleHolderIndicator {
 public:
  using ContainedType = Contained;

  // A fresh default-constructed module; holders of modules that need
  // arguments have no default constructor (as in libtorch).
  ModuleHolder() : impl_(default_construct()) {
    static_assert(std::is_default_constructible<Contained>::value,
                  "You are trying to default construct a module which has no default "
                  "constructor. Use = nullptr to give it the empty state.");
    if (impl_ != nullptr) detail::set_module_factory(*impl_, detail::make_module_factory<Contained>());
  }
  // The empty holder (no module yet).
  ModuleHolder(std::nullptr_t) {}  // NOLINT(runtime/explicit)
  // Forwards the arguments to the module's constructor. The first argument
  // must not be a holder or shared_ptr (those bind to the constructors below).
  template <typename Head, typename... Tail,
            typename = std::enable_if_t<
                !(std::is_same<std::decay_t<Head>, ModuleHolder>::value && sizeof...(Tail) == 0) &&
                !std::is_same<std::decay_t<Head>, std::nullptr_t>::value &&
                !std::is_same<std::decay_t<Head>, std::shared_ptr<Contained>>::value>>
  explicit ModuleHolder(Head&& head, Tail&&... tail) {
    // Copies of the arguments, taken before they are forwarded (moved).
    detail::ModuleFactory factory = detail::make_module_factory<Contained>(head, tail...);
    impl_ = std::make_shared<Contained>(std::forward<Head>(head), std::forward<Tail>(tail)...);
    if (factory) detail::set_module_factory(*impl_, std::move(factory));
  }
  // Wraps an existing module.
  ModuleHolder(std::shared_ptr<Contained> module) : impl_(std::move(module)) {}  // NOLINT

  explicit operator bool() const noexcept { return !is_empty(); }
  bool is_empty() const noexcept { return impl_ == nullptr; }

  Contained* operator->() { return get(); }
  const Contained* operator->() const { return get(); }
  Contained& operator*() { return *get(); }
  const Contained& operator*() const { return *get(); }
  const std::shared_ptr<Contained>& ptr() const {
    check_not_empty();
    return impl_;
  }
  Contained* get() {
    check_not_empty();
    return impl_.get();
  }
  const Contained* get() const {
    check_not_empty();
    return impl_.get();
  }

  // Indexes the module (containers: seq[0]).
  template <typename Arg>
  decltype(auto) operator[](Arg&& arg) {
    return (*get())[std::forward<Arg>(arg)];
  }

  // Calls the module's forward(), with its forward hooks (module.h).
  template <typename... Args>
  decltype(auto) operator()(Args&&... args) {
    return detail::call_forward(*get(), std::forward<Args>(args)...);
  }

 private:
  template <typename C = Contained>
  static std::shared_ptr<C> default_construct() {
    if constexpr (std::is_default_constructible<C>::value) {
      return std::make_shared<C>();
    } else {
      return nullptr;
    }
  }
  void check_not_empty() const {
    EMBER_CHECK(impl_ != nullptr, "Accessing empty ModuleHolder");
  }

  std::shared_ptr<Contained> impl_;
};

template <typename T>
constexpr bool is_module_holder_v = std::is_base_of<ModuleHolderIndicator, std::decay_t<T>>::value;

}  // namespace nn
}  // namespace ember

// Defines the holder `Name` of `NameImpl` (libtorch's TORCH_MODULE).
#define EMBER_MODULE(Name)                                   \
  class Name : public ::ember::nn::ModuleHolder<Name##Impl> { \
   public:                                                   \
    using ::ember::nn::ModuleHolder<Name##Impl>::ModuleHolder; \
    using Impl = Name##Impl;                                 \
  }

#endif  // EMBER_NN_MODULE_HOLDER_H_
