#ifndef EMBER_NN_UTILS_REPARAMETRIZE_H_
#define EMBER_NN_UTILS_REPARAMETRIZE_H_

// What weight_norm, spectral_norm, parametrize and prune share (Note
// [Rebinding a parameter] in nn/module.h): the registrations they change
// (PyTorch's `del module._parameters[name]`), the hook lists they search
// for their own hook (PyTorch's isinstance over _forward_pre_hooks), and
// the lookups whose errors are PyTorch's. Not a user API.

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "nn/module.h"

namespace ember {
namespace nn {
namespace detail {

struct ModuleAccess {
  // m's own parameter (buffer) `name`, nullptr when it has none.
  static Tensor* parameter(Module& m, const std::string& name) {
    for (auto& s : m.parameters_) {
      if (s.name == name) return &s.tensor;
    }
    return nullptr;
  }
  static Tensor* buffer(Module& m, const std::string& name) {
    for (auto& s : m.buffers_) {
      if (s.name == name) return &s.tensor;
    }
    return nullptr;
  }
  static bool buffer_is_persistent(Module& m, const std::string& name) {
    for (auto& s : m.buffers_) {
      if (s.name == name) return s.persistent;
    }
    return true;
  }
  static void remove_parameter(Module& m, const std::string& name) { m.remove_parameter(name); }
  static void remove_buffer(Module& m, const std::string& name) {
    m.buffers_.erase(std::remove_if(m.buffers_.begin(), m.buffers_.end(),
                                    [&](const auto& s) { return s.name == name; }),
                     m.buffers_.end());
  }
  static void remove_child(Module& m, const std::string& name) { m.remove_child(name); }
  // The printed class name (parametrize's "ParametrizedLinear").
  static void set_name(Module& m, std::string name) { m.name_ = std::move(name); }
  // The state of each forward pre-hook of m that is an H (a functor with a
  // `state` member), in order.
  template <typename H>
  static std::vector<decltype(H::state)> hooks_of(Module& m) {
    return m.hooks_ == nullptr ? std::vector<decltype(H::state)>{} : states<H>(m.hooks_->pre);
  }
  // Removes the forward pre-hooks that are H with the given state.
  template <typename H, typename S>
  static void remove_hook(Module& m, const S& state) {
    if (m.hooks_ != nullptr) remove<H>(m.hooks_->pre, state);
  }
  // The same for load_state_dict pre-hooks.
  template <typename H>
  static std::vector<decltype(H::state)> load_hooks_of(Module& m) {
    return m.hooks_ == nullptr ? std::vector<decltype(H::state)>{} : states<H>(m.hooks_->load_pre);
  }
  template <typename H, typename S>
  static void remove_load_hook(Module& m, const S& state) {
    if (m.hooks_ != nullptr) remove<H>(m.hooks_->load_pre, state);
  }

 private:
  template <typename H, typename List>
  static std::vector<decltype(H::state)> states(const List& hooks) {
    std::vector<decltype(H::state)> out;
    for (auto& h : hooks) {
      if (const H* typed = h.second.template target<H>()) out.push_back(typed->state);
    }
    return out;
  }
  template <typename H, typename List, typename S>
  static void remove(List& hooks, const S& state) {
    hooks.erase(std::remove_if(hooks.begin(), hooks.end(),
                               [&](const auto& h) {
                                 const H* typed = h.second.template target<H>();
                                 return typed != nullptr && typed->state == state;
                               }),
                hooks.end());
  }
};

// Python's getattr error for a name that is no parameter of m.
inline std::string no_attribute(Module& m, const std::string& name) {
  return absl::StrCat("'", m.name(), "' object has no attribute '", name, "'");
}

// m's own parameter `name`; PyTorch's AttributeError when there is none.
inline Tensor& parameter_or_throw(Module& m, const std::string& name) {
  Tensor* p = ModuleAccess::parameter(m, name);
  EMBER_CHECK(p != nullptr, no_attribute(m, name));
  return *p;
}

}  // namespace detail
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_UTILS_REPARAMETRIZE_H_
