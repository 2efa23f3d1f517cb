#ifndef EMBER_NN_MODULE_H_
#define EMBER_NN_MODULE_H_

// nn::Module: the base of every layer and of users' networks, with
// torch.nn.Module's semantics in libtorch's spelling.
//
//   struct NetImpl : nn::Module {
//     NetImpl() : fc(register_module("fc", nn::Linear(4, 2))) {}
//     Tensor forward(const Tensor& x) { return fc(x); }
//     nn::Linear fc;
//   };
//   EMBER_MODULE(Net);
//
// Parameters, buffers and children keep their registration order, which
// fixes the order of parameters(), state_dict() and the printed tree.
//
// Note [Cloning modules]: libtorch clones a module by copy-constructing it
// and calling the reset() its Cloneable<T> subclass must write. ember needs
// neither: a module's holder (EMBER_MODULE, `Net net;`, `nn::Linear(4, 2)`)
// keeps copies of the constructor's arguments, so clone() constructs the
// module again, which rebuilds its submodules, and then gives the new tree
// copies of the original's parameters and buffers, module by module, with
// its requires_grad flags and train/eval modes. Constructing again draws
// initial values from the default generator, as libtorch's reset() does.
// A module made without its holder (std::make_shared<NetImpl>()), or whose
// arguments cannot be copied, cannot be cloned unless it overrides clone()
// (the containers do: they clone each module they hold); neither can one
// whose constructor reuses a module or tensor it was given, which would
// leave the copy sharing it: clone() says so instead.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "nn/module_holder.h"
#include "tensor/named_tensors.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {

// Note [Forward hooks]: PyTorch runs a module's forward pre-hooks and
// forward hooks in Module.__call__; ember runs them in the holder's
// operator() and in Sequential (detail::call_forward in module_holder.h),
// so `net(x)` runs them and `net->forward(x)` does not, as in PyTorch.
// A hook sees the call's arguments that are Tensors (read only: C++
// arguments have no common type to replace them with); a forward hook may
// replace the output, and needs a forward() that returns a Tensor. Hooks
// run in registration order; the RemovableHandle removes one, also after
// the module is gone. clone() does not copy hooks.
//
// Note [Rebinding a parameter]: torch.nn.utils' weight_norm,
// spectral_norm, parametrize and prune replace a parameter with a tensor
// computed from new ones before each call (PyTorch rebinds the module's
// attribute). An ember layer reads its own `Tensor weight` member, a
// handle that shares its TensorImpl with the registration
// (`weight = register_parameter(...)`), and no generic code can reach the
// member. So the utilities keep a handle to that TensorImpl, unregister
// the parameter, and before each call (a forward pre-hook) move the
// freshly computed tensor, values and autograd history, into the
// TensorImpl (detail::rebind_tensor): the member reads the new weight and
// backward reaches the new parameters through it. Consequences, which the
// utilities' headers repeat: the member is only recomputed when the module
// is called (PyTorch's weight_norm and prune behave so too; parametrize's
// property recomputes on every read); the new parameters are new tensors,
// so an optimizer made before the utility holds the old handle (make it
// after); and a graph saved by an earlier call that has not been
// backpropagated reads the member's current values (equal unless the
// parameters, or spectral norm's u and v, changed in between).

namespace detail {
bool link_replica(Module& replica, const Module& original, const Device& device,
                  bool share_buffers);
// Moves `value` (its storage, geometry and autograd history) into the
// TensorImpl that `handle` and every copy of it share; a `value` that other
// handles share (std::move it in otherwise) is moved in as a view of it.
void rebind_tensor(const Tensor& handle, Tensor value);
// The registrations and hooks that the utilities of Note [Rebinding a
// parameter] change (nn/utils/reparametrize.h).
struct ModuleAccess;
}  // namespace detail

using ForwardPreHook = std::function<void(Module& module, const std::vector<Tensor>& inputs)>;
using ForwardHook =
    std::function<void(Module& module, const std::vector<Tensor>& inputs, Tensor& output)>;
// What PyTorch's _register_load_state_dict_pre_hook takes, less
// local_metadata (ember's state dicts carry none) and strict (which
// PyTorch always passes as True): `state_dict` is load_state_dict()'s own
// copy of the dict, which the hook may rewrite; `prefix` is this module's
// ("fc." for a child fc); a hook reports keys and errors by appending to
// the lists, as PyTorch's.
using LoadStateDictPreHook = std::function<void(
    NamedTensors& state_dict, const std::string& prefix, std::vector<std::string>& missing_keys,
    std::vector<std::string>& unexpected_keys, std::vector<std::string>& error_msgs)>;

namespace detail {
// A module's hooks, each with the id its RemovableHandle removes.
struct Hooks {
  std::vector<std::pair<unsigned, ForwardPreHook>> pre;
  std::vector<std::pair<unsigned, ForwardHook>> post;
  std::vector<std::pair<unsigned, LoadStateDictPreHook>> load_pre;
  unsigned next_id = 0;
};
}  // namespace detail

// What register_forward_pre_hook, register_forward_hook and
// register_load_state_dict_pre_hook return: PyTorch's
// torch.utils.hooks.RemovableHandle.
class RemovableHandle {
 public:
  RemovableHandle() = default;
  RemovableHandle(std::weak_ptr<detail::Hooks> hooks, unsigned id)
      : hooks_(std::move(hooks)), id_(id) {}
  // Removes the hook; does nothing when it is already gone.
  void remove();
  unsigned id() const { return id_; }

 private:
  std::weak_ptr<detail::Hooks> hooks_;
  unsigned id_ = 0;
};

// state_dict()'s result and named_parameters()': tensor/named_tensors.h.
using ::ember::NamedTensors;

// What load_state_dict(strict=false) could not match: PyTorch's
// _IncompatibleKeys. Prints as PyTorch's repr: "<All keys matched
// successfully>", or _IncompatibleKeys(missing_keys=['fc.bias'],
// unexpected_keys=['extra']).
struct IncompatibleKeys {
  std::vector<std::string> missing_keys;     // the module's keys absent from the dict
  std::vector<std::string> unexpected_keys;  // the dict's keys naming nothing in the module
  bool empty() const { return missing_keys.empty() && unexpected_keys.empty(); }
};
std::ostream& operator<<(std::ostream& os, const IncompatibleKeys& keys);

class Module : public std::enable_shared_from_this<Module> {
 public:
  // `name` overrides the printed class name (otherwise taken from the
  // dynamic type, namespaces and an "Impl" suffix dropped: NetImpl -> Net).
  explicit Module(std::string name);
  Module();
  virtual ~Module() = default;

  // The class name PyTorch prints ("Linear", "Net").
  const std::string& name() const;

  // --- registration -----------------------------------------------------------
  // Registers (or replaces) a parameter and returns the stored handle, which
  // the module's member should alias: `weight = register_parameter(...)`.
  // An undefined tensor registers "no parameter" (bias=False): it is skipped
  // by parameters() and state_dict(), as PyTorch's None.
  Tensor& register_parameter(const std::string& name, Tensor tensor, bool requires_grad = true);
  // persistent=false keeps the buffer out of state_dict().
  Tensor& register_buffer(const std::string& name, Tensor tensor, bool persistent = true);
  // Registers a child; returns the holder (or pointer) it was given.
  template <typename M>
  std::shared_ptr<M> register_module(const std::string& name, std::shared_ptr<M> module) {
    static_assert(std::is_base_of<Module, M>::value, "register_module needs an nn::Module");
    add_child(name, module);
    return module;
  }
  // Holders (EMBER_MODULE's types) come back as their own type.
  template <typename H, typename = std::enable_if_t<is_module_holder_v<H>>>
  H register_module(const std::string& name, H holder) {
    add_child(name, holder.ptr());
    return holder;
  }
  // Replaces an existing child (libtorch's replace_module).
  template <typename H>
  H replace_module(const std::string& name, H module) {
    replace_child(name, as_module_ptr(module));
    return module;
  }

  // --- traversal --------------------------------------------------------------
  // Each parameter once (shared ones are not repeated), in registration order,
  // this module's first, then each child's (depth first).
  std::vector<Tensor> parameters(bool recurse = true) const;
  NamedTensors named_parameters(bool recurse = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  NamedTensors named_buffers(bool recurse = true) const;
  std::vector<std::shared_ptr<Module>> children() const;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> named_children() const;
  // This module and all below it, pre-order, each once.
  std::vector<std::shared_ptr<Module>> modules(bool include_self = true);
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> named_modules(
      const std::string& prefix = "", bool include_self = true);
  // Runs fn on every submodule, then on this one (post-order, like PyTorch).
  Module& apply(const std::function<void(Module&)>& fn);

  // The parameter, buffer or child called `name` (dotted paths allowed);
  // throws when absent.
  Tensor& get_parameter(const std::string& name);
  Tensor& get_buffer(const std::string& name);
  std::shared_ptr<Module> get_submodule(const std::string& name);

  // The module as its concrete type (an Impl type or a holder type), or
  // nullptr when it is another kind.
  template <typename T>
  auto as() {
    if constexpr (is_module_holder_v<T>) {
      return dynamic_cast<typename T::ContainedType*>(this);
    } else {
      return dynamic_cast<T*>(this);
    }
  }

  // --- hooks (Note [Forward hooks]) ------------------------------------------
  // fn(module, inputs) runs before each call of forward().
  RemovableHandle register_forward_pre_hook(ForwardPreHook fn);
  // fn(module, inputs, output) runs after each call and may replace output.
  RemovableHandle register_forward_hook(ForwardHook fn);
  // For detail::call_forward.
  bool has_forward_hooks() const {
    return hooks_ != nullptr && (!hooks_->pre.empty() || !hooks_->post.empty());
  }
  void run_forward_pre_hooks(const std::vector<Tensor>& inputs);
  void run_forward_hooks(const std::vector<Tensor>& inputs, Tensor& output);
  void check_no_forward_hooks() const;
  // fn runs in load_state_dict() before this module takes its own keys
  // (PyTorch's _register_load_state_dict_pre_hook, used by spectral_norm
  // to convert old state dicts).
  RemovableHandle register_load_state_dict_pre_hook(LoadStateDictPreHook fn);

  // --- modes ------------------------------------------------------------------
  virtual void train(bool on = true);
  void eval() { train(false); }
  bool is_training() const { return training_; }

  // Sets every parameter's grad to None (default) or to zeros.
  void zero_grad(bool set_to_none = true);

  // Note [Module::to keeps identity]: like PyTorch (param.data = ...), the
  // tensors already handed out (to an optimizer, to a member) stay the same
  // handles and see the converted data; requires_grad and hooks are kept,
  // and a grad is converted with its parameter. to(dtype) converts only
  // floating-point tensors (num_batches_tracked stays kLong).
  virtual void to(Device device, bool non_blocking = false);
  virtual void to(ScalarType dtype, bool non_blocking = false);
  virtual void to(Device device, ScalarType dtype, bool non_blocking = false);

  // --- state ------------------------------------------------------------------
  // Parameters then persistent buffers of each module, pre-order, with dotted
  // names; the tensors are detached aliases of the module's.
  NamedTensors state_dict() const;
  // Copies the values in place (no autograd recording). strict: the keys
  // must match exactly; otherwise the keys that did not match are returned
  // (empty lists when strict). Shape mismatches are errors either way; the
  // messages are PyTorch's. Each module's load_state_dict pre-hooks run
  // (on a copy of the dict) before it takes its keys.
  IncompatibleKeys load_state_dict(const NamedTensors& state_dict, bool strict = true);

  // --- printing ---------------------------------------------------------------
  // What goes between the parentheses of this module's line
  // ("in_features=4, out_features=2, bias=True"); empty by default.
  virtual std::string extra_repr() const { return ""; }
  // The tree as PyTorch's repr() prints it.
  std::string repr() const;

  // --- copies -------------------------------------------------------------------
  // A deep copy (libtorch's Module::clone, Python's copy.deepcopy): the same
  // structure with its own copies of every parameter and buffer (on
  // `device` when given), requires_grad and train/eval modes as here.
  // Note [Cloning modules].
  virtual std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const;

 protected:
  // Child registration without the holder's type (used by containers).
  void add_child(const std::string& name, std::shared_ptr<Module> module);
  void replace_child(const std::string& name, std::shared_ptr<Module> module);
  // Unregisters child `name` (its parameters leave the module's); the
  // others keep their order. Error when there is none.
  void remove_child(const std::string& name);
  // Shallow copies (the registrations shared), for Cloneable's clone();
  // nothing else copies a module.
  Module(const Module&) = default;
  Module& operator=(const Module&) = default;
  // Forgets every parameter, buffer and submodule (Cloneable's clone()
  // before reset()).
  void clear_registrations();
  // Copies `original`'s tensors and modes into this module's tree, which
  // was just made again (by its factory or reset()).
  void copy_from_original(const Module& original, const std::optional<Device>& device,
                          const std::string& path);
  // Gives a container's clone this module's train/eval mode (its modules'
  // clones keep their own).
  void copy_mode_to(Module& copy) const { copy.training_ = training_; }
  // This module's own parameter `name` (nullptr when there is none), and
  // its removal (false when there was none): for containers of parameters.
  Tensor* find_parameter(const std::string& name);
  bool remove_parameter(const std::string& name);

  template <typename M>
  static std::shared_ptr<Module> as_module_ptr(const std::shared_ptr<M>& m) {
    return m;
  }
  template <typename H, typename = std::enable_if_t<is_module_holder_v<H>>>
  static std::shared_ptr<Module> as_module_ptr(const H& h) {
    return h.ptr();
  }

 private:
  struct Slot {
    std::string name;
    Tensor tensor;
    bool persistent = true;
  };
  void apply_to_tensors(const std::function<Tensor(const Tensor&)>& convert);
  void collect(const std::string& prefix, bool recurse, bool buffers, bool dedupe,
               NamedTensors* out, std::vector<const TensorImpl*>* seen) const;
  void collect_state(const std::string& prefix, NamedTensors* out) const;

  friend void detail::set_module_factory(Module& module, detail::ModuleFactory factory);
  friend bool detail::link_replica(Module& replica, const Module& original, const Device& device,
                                   bool share_buffers);
  friend struct detail::ModuleAccess;

  mutable std::string name_;
  bool training_ = true;
  detail::ModuleFactory factory_;  // set by the module's holder
  std::vector<Slot> parameters_;
  std::vector<Slot> buffers_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
  std::shared_ptr<detail::Hooks> hooks_;  // made by the first hook
};

// libtorch's Cloneable<Derived>: a module whose reset() (re)creates its
// parameters and submodules, which libtorch's clone() calls on a copy. ember
// clones any module made through its holder without it (Note [Cloning
// modules]); programs written for libtorch keep working:
//   struct NetImpl : nn::Cloneable<NetImpl> {
//     explicit NetImpl(int64_t n) : n(n) { reset(); }
//     void reset() override { fc = register_module("fc", nn::Linear(n, 2)); }
//     int64_t n; nn::Linear fc{nullptr};
//   };
namespace detail {
// Puts the default generator back as it was when this was made (clone()
// draws the initial values of the modules it constructs, then overwrites
// them: the copy leaves the random stream untouched, as Python's deepcopy).
class PreserveDefaultGenerator {
 public:
  PreserveDefaultGenerator();
  ~PreserveDefaultGenerator();
  PreserveDefaultGenerator(const PreserveDefaultGenerator&) = delete;
  PreserveDefaultGenerator& operator=(const PreserveDefaultGenerator&) = delete;

 private:
  std::shared_ptr<void> state_;
};

// Makes `replica` (a clone of `original` on `device`, fresh or linked
// before) a differentiable replica of `original` as it is now, for
// DataParallel: each parameter becomes a copy of the original's current one
// that autograd traces back to it (PyTorch's Broadcast), so gradients of the
// replicas' outputs sum into the original's .grad (a parameter that does not
// require grad gives a copy that does not either); each buffer becomes a
// copy of the original's, or with share_buffers, when the original's lives
// on `device`, shares its storage (the device[0] replica's running
// statistics update the original's, as PyTorch's DataParallel); each
// module takes its original's train/eval mode. Returns false, changing
// nothing, when `replica` no longer has `original`'s structure (a module's
// type, the names, presence and shapes of its parameters and buffers, its
// children's names): the replica must then be cloned again.
bool link_replica(Module& replica, const Module& original, const Device& device,
                  bool share_buffers);
}  // namespace detail

template <typename Derived>
class Cloneable : public Module {
 public:
  using Module::Module;
  virtual void reset() = 0;

  // Copies this module, clears the copy's registrations, calls its reset()
  // and gives it copies of this module's tensors and modes.
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override {
    detail::PreserveDefaultGenerator keep;
    auto copy = std::make_shared<Derived>(static_cast<const Derived&>(*this));
    copy->clear_registrations();
    copy->reset();
    copy->copy_from_original(*this, device, name());
    return copy;
  }
};

std::ostream& operator<<(std::ostream& os, const Module& module);
template <typename M>
std::ostream& operator<<(std::ostream& os, const ModuleHolder<M>& holder) {
  return os << *holder;
}

}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_MODULE_H_
