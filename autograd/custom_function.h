#ifndef EMBER_AUTOGRAD_CUSTOM_FUNCTION_H_
#define EMBER_AUTOGRAD_CUSTOM_FUNCTION_H_
// Custom autograd functions, as libtorch's torch::autograd::Function<T> and
// AutogradContext (PyTorch's "Extending torch.autograd"):
//
//   struct MulConstant : public ember::autograd::Function<MulConstant> {
//     static Tensor forward(AutogradContext* ctx, Tensor x, double c) {
//       ctx->saved_data["c"] = c;
//       return x * c;
//     }
//     static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
//       return {grad_outputs[0] * ctx->saved_data["c"].toDouble(), Tensor()};
//     }
//   };
//   Tensor y = MulConstant::apply(x, 5.0);  // y.grad_fn()->name(): "MulConstantBackward"
//
// forward runs with grad mode off and may take any mix of Tensor and other
// arguments; only Tensor arguments (by value or reference) get gradients:
// a std::optional<Tensor> or a std::vector<Tensor> is a non-tensor
// argument, as in libtorch. It returns a Tensor or a variable_list. When
// grad mode is on and a tensor argument requires grad, the outputs get one
// new node as their grad_fn; otherwise nothing is recorded and no output
// requires grad. backward runs with grad mode on only under create_graph,
// so a backward written with differentiable ops supports double backward.
// backward gets one gradient per forward output and returns one per forward
// argument
// (undefined for non-tensors and for inputs that need none; extra trailing
// undefined entries are allowed, so a forward with a defaulted argument may
// always return the full list). The gradients it returns are checked like
// any node's: a shape that the input's shape cannot broadcast to is an
// error, a broadcast one is summed back, the dtype is cast to the input's.
// See Note [Custom function outputs] in custom_function.cc for what apply()
// does with the outputs.
//
// Deviations from libtorch, each simpler for the user:
// - The node's name is the class name without namespaces plus "Backward"
//   ("LinearFunctionBackward"), as PyTorch's Python custom Functions
//   print; libtorch prints the demangled C++ type.
// - needs_input_grad(i) counts forward arguments, like backward's result
//   and Python's ctx.needs_input_grad; libtorch counts tensor arguments
//   only. The two agree when the tensors come first.
// - Errors that name an input by index (an invalid gradient) count forward
//   arguments too.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "autograd/grad_mode.h"
#include "autograd/ivalue.h"
#include "autograd/node.h"

namespace ember {
namespace autograd {

class CustomFunctionNode;

// What forward leaves for backward (libtorch's AutogradContext).
class AutogradContext {
 public:
  AutogradContext() = default;
  AutogradContext(const AutogradContext&) = delete;
  AutogradContext& operator=(const AutogradContext&) = delete;

  // Non-tensor state for backward. Tensors belong in save_for_backward:
  // a tensor kept here gets no in-place check, and an output kept here is
  // a reference cycle (output -> grad_fn -> context -> output) that never
  // frees the graph.
  absl::flat_hash_map<std::string, IValue> saved_data;

  // Saves tensors (inputs, outputs or intermediates; undefined ones too)
  // for get_saved_variables(). Call at most once, from forward.
  void save_for_backward(variable_list to_save);
  // Marks inputs that forward modified in place; each must also be
  // returned as an output. Call at most once, from forward.
  void mark_dirty(const variable_list& inputs);
  // Marks outputs that are not differentiable: they do not require grad,
  // and backward gets zeros (or undefined, see set_materialize_grads) for
  // them. Call at most once, from forward.
  void mark_non_differentiable(const variable_list& outputs);
  // Whether backward gets zeros of the output's shape (true, the default)
  // or undefined tensors for outputs whose gradient nobody computed.
  void set_materialize_grads(bool value) { materialize_grads_ = value; }

  // The tensors saved in forward. Throws when one was modified in place
  // since (one of the variables needed for gradient computation has been
  // modified by an inplace operation), or when backward already freed them.
  variable_list get_saved_variables() const;
  // Whether forward argument `index` is a tensor that required grad when
  // apply() recorded the call: backward may leave the others' gradients
  // undefined. Valid in forward too (all false when nothing records).
  bool needs_input_grad(size_t index) const;

 private:
  friend class CustomFunctionNode;

  variable_list to_save_;
  std::vector<SavedVariable> saved_variables_;
  bool has_freed_buffers_ = false;
  absl::flat_hash_set<const TensorImpl*> dirty_;
  variable_list dirty_tensors_;
  absl::flat_hash_set<const TensorImpl*> non_differentiable_;
  bool materialize_grads_ = true;
  std::vector<bool> needs_input_grad_;
  // The node this context belongs to (it owns the context).
  std::weak_ptr<Node> grad_fn_;
};

// The graph node of one call of a custom Function: the part of it that
// does not depend on the Function's type (custom_function.cc).
class CustomFunctionNode : public Node {
 public:
  variable_list apply(variable_list&& grads) override;
  void release_variables() override;

  AutogradContext* ctx() { return &ctx_; }
  // Before forward: the forward arguments that are tensors and, per
  // argument, whether it is one. Sets the edges when grad mode is on and
  // some input requires grad.
  void set_inputs(variable_list inputs, std::vector<bool> is_tensor_arg);
  // After forward: gives the outputs their history (Note [Custom function
  // outputs]) and saves what save_for_backward asked for.
  variable_list wrap_outputs(variable_list outputs);

 protected:
  virtual variable_list call_backward(AutogradContext* ctx, variable_list grads) = 0;

 private:
  struct TensorInfo {
    DimVector sizes;
    ScalarType dtype = kFloat;
    Device device = kCPU;
    bool defined = false;
  };

  AutogradContext ctx_;
  // The tensor arguments, from set_inputs to wrap_outputs only (the graph
  // reaches them through the edges).
  variable_list inputs_;
  bool is_executable_ = false;
  // Per forward argument: its next edge, or -1 for a non-tensor.
  std::vector<int> edge_of_arg_;
  std::vector<TensorInfo> input_info_;   // per next edge
  std::vector<TensorInfo> output_info_;  // per forward output
};

// Helpers of Function<T>::apply, in a namespace not named `detail`:
// inside ember::autograd that name would hide ember::detail.
namespace custom_function_internal {
// "ns::LinearFunction" -> "LinearFunctionBackward".
std::string custom_function_name(const std::type_info& type);
}  // namespace custom_function_internal

// libtorch's CppNode<T>: the node of one call of custom Function T.
template <class T>
class CppNode final : public CustomFunctionNode {
 public:
  std::string name() const override {
    static const std::string kName = custom_function_internal::custom_function_name(typeid(T));
    return kName;
  }

 protected:
  variable_list call_backward(AutogradContext* ctx, variable_list grads) override {
    return T::backward(ctx, std::move(grads));
  }
};

namespace custom_function_internal {

inline void extract_arg(const Tensor& t, variable_list& tensors, std::vector<bool>& is_tensor) {
  tensors.push_back(t);
  is_tensor.push_back(true);
}
template <typename A>
void extract_arg(const A&, variable_list&, std::vector<bool>& is_tensor) {
  is_tensor.push_back(false);
}

inline variable_list to_output_list(Tensor t) { return {std::move(t)}; }
inline variable_list to_output_list(variable_list v) { return v; }
inline void from_output_list(variable_list&& v, Tensor* out) { *out = std::move(v[0]); }
inline void from_output_list(variable_list&& v, variable_list* out) { *out = std::move(v); }

}  // namespace custom_function_internal

// Subclass with static forward(AutogradContext*, args...) and
// backward(AutogradContext*, variable_list); call apply(args...).
template <class T>
struct Function {
  template <typename X = T, typename... Args>
  using forward_t = decltype(X::forward(std::declval<AutogradContext*>(), std::declval<Args>()...));

  // Runs T::forward with grad mode off and, when grad mode is on and a
  // tensor argument requires grad, records one node for T::backward.
  template <typename X = T, typename... Args>
  static auto apply(Args&&... args)
      -> std::enable_if_t<std::is_same<X, T>::value, forward_t<X, Args...>> {
    using Out = forward_t<X, Args...>;
    static_assert(std::is_same<Out, Tensor>::value || std::is_same<Out, variable_list>::value,
                  "a custom Function's forward must return a Tensor or a variable_list");
    namespace internal = custom_function_internal;
    auto node = std::make_shared<CppNode<T>>();
    variable_list tensors;
    std::vector<bool> is_tensor;
    (internal::extract_arg(args, tensors, is_tensor), ...);
    node->set_inputs(std::move(tensors), std::move(is_tensor));
    Out outputs;
    {
      AutoGradMode grad_mode(false);
      outputs = T::forward(node->ctx(), std::forward<Args>(args)...);
    }
    variable_list wrapped = node->wrap_outputs(internal::to_output_list(std::move(outputs)));
    internal::from_output_list(std::move(wrapped), &outputs);
    return outputs;
  }
};

}  // namespace autograd
}  // namespace ember

#endif  // EMBER_AUTOGRAD_CUSTOM_FUNCTION_H_
