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
// Tensor&)`, which maps the current value to the original at registration
// and makes the tensor assignable (assign(), PyTorch's `fc.weight = X`).
//
// Several originals (PyTorch's right_inverse returning a tuple): the first
// parametrization of a tensor may define `std::vector<Tensor>
// right_inverse(const Tensor&)` and a forward taking as many tensors (up to
// kMaxOriginals), which become parametrizations.weight.original0,
// original1...:
//
//   struct RankOneImpl : nn::Module {
//     Tensor forward(const Tensor& x, const Tensor& y) {
//       return x.unsqueeze(-1).matmul(y.unsqueeze(-2));
//     }
//     // On rank-one matrices (with z[0][0] != 0): z's first column and row.
//     std::vector<Tensor> right_inverse(const Tensor& z) {
//       return {z.select(1, 0), z.select(0, 0) / z.select(0, 0).select(0, 0)};
//     }
//   };
//   P::register_parametrization(*fc, "weight", RankOne());
//
// The number of tensors right_inverse returns must be the number forward
// takes (TypeError otherwise; PyTorch's Python call fails the same way).
// A right_inverse returning a vector always gives original0... (also of
// length 1), as PyTorch's sequence does.
//
// Deviations (Note [Rebinding a parameter] in nn/module.h): PyTorch's
// parametrized tensor is a property computed on every read; ember's layers
// read a member, which a forward pre-hook recomputes before each call
// through the holder (`fc(x)`), so `fc->weight` read between calls is the
// last call's (or registration's, or assignment's) value; value(module,
// name) computes it now. `original` is a new tensor (PyTorch keeps the
// parameter object): make the optimizer after registering. assign() copies
// into the originals (PyTorch's set_ makes them alias right_inverse's
// result and may change their shape; ember requires the shape). The
// module's C++ type does not change (`fc->as<LinearImpl>()` still works):
// only its printed name does, which type_before_parametrizations() undoes.
// clone() throws.

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
namespace utils {
namespace parametrize {

// At most this many originals (a first parametrization's forward taking
// more tensors is not recognized).
constexpr size_t kMaxOriginals = 8;

// A parametrization module, type-erased: its forward (called with its
// hooks) and its right_inverse when it has one.
struct Parametrization {
  std::shared_ptr<Module> module;
  // Called with num_inputs tensors: the original, the originals, or the
  // previous parametrization's result.
  std::function<Tensor(const std::vector<Tensor>&)> forward;
  size_t num_inputs = 1;
  // Empty: none. A single tensor comes back as {x}.
  std::function<std::vector<Tensor>(const Tensor&)> right_inverse;
  // right_inverse returns std::vector<Tensor> (PyTorch's sequence).
  bool right_inverse_returns_vector = false;

  template <typename M>
  static Parametrization of(const std::shared_ptr<M>& m) {
    static_assert(std::is_base_of<Module, M>::value, "a parametrization is an nn::Module");
    constexpr size_t n = forward_arity<M>();
    static_assert(n > 0,
                  "a parametrization's forward takes one Tensor, or up to kMaxOriginals "
                  "Tensors when its right_inverse returns std::vector<Tensor>");
    Parametrization p;
    p.module = m;
    p.num_inputs = n;
    p.forward = [m](const std::vector<Tensor>& xs) -> Tensor {
      return call(*m, xs, std::make_index_sequence<n>());
    };
    if constexpr (has_right_inverse<M>::value) {
      using R = decltype(std::declval<M&>().right_inverse(std::declval<const Tensor&>()));
      static_assert(std::is_same<R, Tensor>::value || std::is_same<R, std::vector<Tensor>>::value,
                    "right_inverse returns a Tensor or a std::vector<Tensor>");
      p.right_inverse_returns_vector = std::is_same<R, std::vector<Tensor>>::value;
      p.right_inverse = [m](const Tensor& x) -> std::vector<Tensor> {
        if constexpr (std::is_same<R, Tensor>::value) {
          return {m->right_inverse(x)};
        } else {
          return m->right_inverse(x);
        }
      };
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
  template <size_t>
  using TensorArg = const Tensor&;
  template <typename M, typename Seq, typename = void>
  struct forward_takes : std::false_type {};
  template <typename M, size_t... I>
  struct forward_takes<
      M, std::index_sequence<I...>,
      std::void_t<decltype(std::declval<M&>().forward(std::declval<TensorArg<I>>()...))>>
      : std::true_type {};
  // How many tensors M's forward takes (the fewest it can), 0: none up to
  // kMaxOriginals.
  template <typename M, size_t N = 1>
  static constexpr size_t forward_arity() {
    if constexpr (N > kMaxOriginals) {
      return 0;
    } else if constexpr (forward_takes<M, std::make_index_sequence<N>>::value) {
      return N;
    } else {
      return forward_arity<M, N + 1>();
    }
  }
  template <typename M, size_t... I>
  static Tensor call(M& m, const std::vector<Tensor>& xs, std::index_sequence<I...>) {
    EMBER_CHECK(xs.size() == sizeof...(I), m.name(), "'s forward takes ", sizeof...(I),
                " tensors, got ", xs.size());
    return ::ember::nn::detail::call_forward(m, xs[I]...);
  }
};

// The parametrizations of one tensor, applied in order to the original(s).
class ParametrizationListImpl : public Module {
 public:
  // original: the tensor's current value, mapped through right_inverse when
  // the parametrization has one; registered as a parameter (or parameters)
  // when is_parameter, else as buffers. Checks the result's shape and
  // dtype unless unsafe.
  ParametrizationListImpl(Parametrization first, const Tensor& original, bool is_parameter,
                          bool unsafe);
  // The parametrized tensor.
  Tensor forward();
  // PyTorch's ParametrizationList.right_inverse (what assign() calls):
  // `value` through each parametrization's right_inverse, the last one's
  // first, copied into the original(s) without recording gradients.
  // Errors as PyTorch's (a parametrization without right_inverse, a dtype
  // or count that differs from the originals'); a shape that differs is an
  // error too.
  void right_inverse(const Tensor& value);
  void append(Parametrization p);
  size_t size() const { return parametrizations_.size(); }
  const std::vector<Parametrization>& parametrizations() const { return parametrizations_; }
  bool unsafe = false;
  // As PyTorch's: is_tensor when the first parametrization's right_inverse
  // returns one Tensor (or it has none): the original is `original`;
  // otherwise the ntensors `originals` are registered as original0,
  // original1...
  bool is_tensor = true;
  size_t ntensors = 1;
  Tensor original;
  std::vector<Tensor> originals;

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
// value (leave_parametrized) or its original. With several originals the
// value is kept (a parameter when it requires grad, else a buffer, as
// PyTorch's); leave_parametrized=false is then an error.
Module& remove_parametrizations(Module& module, const std::string& name,
                                bool leave_parametrized = true);

// Whether module has parametrizations (on `name`, when given).
bool is_parametrized(Module& module, const std::string& name = "");

// The parametrized tensor as it is now (PyTorch's property read), with
// autograd history; cached inside a cached() scope.
Tensor value(Module& module, const std::string& name);

// PyTorch's `module.name = value` on a parametrized tensor: sets the
// original(s) so that the parametrized tensor becomes `value`
// (ParametrizationListImpl::right_inverse), and recomputes the module's
// member. Inside a cached() scope the value already computed stays, as in
// PyTorch.
//   P::assign(*fc, "weight", A);   // fc->weight == A for a symmetric A
void assign(Module& module, const std::string& name, const Tensor& value);

// The class name the module had before its first parametrization
// ("Linear" for "ParametrizedLinear"); its name() when not parametrized.
// PyTorch returns the class itself; ember's module keeps its C++ type.
std::string type_before_parametrizations(Module& module);

// PyTorch's transfer_parametrizations_and_params: registers on to_module
// the parametrizations of from_module's tensor `tensor_name` (of every
// parametrized tensor when empty), the same parametrization modules,
// first making the tensor a parameter of to_module (from_module's
// parametrized value) when to_module has none of that name, then makes
// to_module's original(s) the very tensors of from_module's, so that the
// two modules share them. Does nothing when from_module is not
// parametrized. Returns to_module.
Module& transfer_parametrizations_and_params(Module& from_module, Module& to_module,
                                             const std::string& tensor_name = "");

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
