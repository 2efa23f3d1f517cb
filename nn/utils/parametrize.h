#ifndef EMBER_NN_UTILS_PARAMETRIZE_H_
#define EMBER_NN_UTILS_PARAMETRIZE_H_

// torch.nn.utils.parametrize (PyTorch 1.13): a module's parameter or buffer
// expressed as a function of an unconstrained one.
//
//   struct SymmetricImpl : nn::Module {
//     Tensor forward(const Tensor& x) { return x.triu() + x.triu(1).transpose(0, 1); }
//   };
//   EMBER_MODULE(Symmetric);
//   nn::Linear fc(3, 3);
//   namespace P = nn::utils::parametrize;
//   P::register_parametrization(*fc, "weight", Symmetric());
//   fc(x);   // fc->weight = Symmetric(fc->parametrizations.weight.original)
//
// As PyTorch's: the module gets a child "parametrizations" (a ModuleDict of
// ParametrizationLists, whose "original" tensor and parametrization modules
// give the state_dict keys "parametrizations.weight.original",
// "parametrizations.weight.0.<buffer>"...), prints as "ParametrizedLinear",
// and a parametrization module may define `Tensor right_inverse(const
// Tensor&)`, which maps the current value to the original at registration.
//
// Deviations (Note [Rebinding a parameter] in nn/module.h): PyTorch's
// parametrized tensor is a property computed on every read; ember's layers
// read a member, which a forward pre-hook recomputes before each call
// through the holder (`fc(x)`), so `fc->weight` read between calls is the
// last call's (or registration's) value; value(module, name) computes it
// now. `original` is a new tensor (PyTorch keeps the parameter object):
// make the optimizer after registering. right_inverse returning several
// tensors (original0, original1...) is not supported, nor is assigning to
// the parametrized tensor (PyTorch's setter); clone() throws.

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
namespace utils {
namespace parametrize {

// A parametrization module, type-erased: its forward (called with its
// hooks) and its right_inverse when it has one.
struct Parametrization {
  std::shared_ptr<Module> module;
  std::function<Tensor(const Tensor&)> forward;
  std::function<Tensor(const Tensor&)> right_inverse;  // empty: none

  template <typename M>
  static Parametrization of(const std::shared_ptr<M>& m) {
    static_assert(std::is_base_of<Module, M>::value, "a parametrization is an nn::Module");
    Parametrization p;
    p.module = m;
    p.forward = [m](const Tensor& x) -> Tensor { return ::ember::nn::detail::call_forward(*m, x); };
    if constexpr (has_right_inverse<M>::value) {
      p.right_inverse = [m](const Tensor& x) -> Tensor { return m->right_inverse(x); };
    }
    return p;
  }

 private:
  template <typename M, typename = void>
  struct has_right_inverse : std::false_type {};
  template <typename M>
  struct has_right_inverse<
      M, std::void_t<decltype(std::declval<M&>().right_inverse(std::declval<const Tensor&>()))>>
      : std::true_type {};
};

// The parametrizations of one tensor, applied in order to `original`.
class ParametrizationListImpl : public Module {
 public:
  // original: the tensor's current value (mapped through right_inverse
  // when the parametrization has one); registered as a parameter when
  // is_parameter, else as a buffer. Checks the result's shape and dtype
  // unless unsafe.
  ParametrizationListImpl(Parametrization first, const Tensor& original, bool is_parameter,
                          bool unsafe);
  // The parametrized tensor.
  Tensor forward();
  void append(Parametrization p);
  size_t size() const { return parametrizations_.size(); }
  bool unsafe = false;
  Tensor original;

 private:
  std::vector<Parametrization> parametrizations_;
};

// Parametrizes module's parameter or buffer `name` (or appends to its
// parametrizations). Errors as PyTorch's.
Module& register_parametrization(Module& module, const std::string& name,
                                 Parametrization parametrization, bool unsafe = false);
template <typename M>
Module& register_parametrization(Module& module, const std::string& name,
                                 const std::shared_ptr<M>& parametrization, bool unsafe = false) {
  return register_parametrization(module, name, Parametrization::of(parametrization), unsafe);
}
template <typename H, typename = std::enable_if_t<is_module_holder_v<H>>>
Module& register_parametrization(Module& module, const std::string& name, const H& parametrization,
                                 bool unsafe = false) {
  return register_parametrization(module, name, Parametrization::of(parametrization.ptr()), unsafe);
}

// Makes `name` a plain parameter (or buffer) again: with its parametrized
// value (leave_parametrized) or its original.
Module& remove_parametrizations(Module& module, const std::string& name,
                                bool leave_parametrized = true);

// Whether module has parametrizations (on `name`, when given).
bool is_parametrized(Module& module, const std::string& name = "");

// The parametrized tensor as it is now (PyTorch's property read), with
// autograd history; cached inside a cached() scope.
Tensor value(Module& module, const std::string& name);

// PyTorch's `with parametrize.cached():` as a guard: inside its scope (on
// this thread) each parametrized tensor is computed once and reused by
// every call, e.g. of a cell called once per time step.
//   { auto guard = P::cached(); for (auto& x : steps) h = cell(x, h); }
class CachedGuard {
 public:
  CachedGuard();
  ~CachedGuard();
  CachedGuard(const CachedGuard&) = delete;
  CachedGuard& operator=(const CachedGuard&) = delete;
};
inline CachedGuard cached() { return CachedGuard(); }

}  // namespace parametrize
}  // namespace utils
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_UTILS_PARAMETRIZE_H_
