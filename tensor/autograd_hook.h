#ifndef EMBER_TENSOR_AUTOGRAD_HOOK_H_
#define EMBER_TENSOR_AUTOGRAD_HOOK_H_

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <variant>

#include "absl/container/inlined_vector.h"
#include "tensor/record_function.h"
#include "tensor/tensor.h"
#include "tensor/tensor_impl.h"

namespace ember {

// Note [Op recording]: //tensor knows nothing of autograd. Each
// differentiable PRIMITIVE op (composites get their gradient from the
// primitives they call) does, around its forward:
//
//   detail::OpScope scope(self, other);          // a few pointer tests
//   Tensor r = ...forward...;
//   if (scope.active()) scope.record("mul", {self, other}, {r});
//
// OpScope is active only when grad mode is on, //autograd has installed its
// hooks, no enclosing primitive is running (PyTorch's
// AutoDispatchBelowAutograd: while active, nested public ops do not record)
// and some input requires grad. record() hands an OpRecord to
// AutogradHooks::record, which builds the graph node from the derivative
// table in //autograd keyed by the op's name (PyTorch's: "mul", "sum").
// In-place ops call before_inplace() first (it rejects leaves that require
// grad and keeps self's old value when the formula needs it) and
// record_inplace() after.

// A non-tensor argument of a recorded op: a number, a list of ints (dims,
// sizes), a string (rounding_mode), or nothing (an absent optional).
using OpArg = std::variant<std::monostate, Scalar, DimVector, std::string>;
using OpArgs = absl::InlinedVector<OpArg, 4>;

struct OpRecord {
  const char* name = "";
  absl::InlinedVector<Tensor, 3> inputs;   // undefined entries allowed
  absl::InlinedVector<Tensor, 2> outputs;
  OpArgs args;
  // In-place: outputs[0] is inputs[0] modified in place, and self_before its
  // value before the op (undefined when the formula does not need it).
  bool inplace = false;
  Tensor self_before;
};

// See Note [Autograd slot]. //autograd installs one AutogradHooks object at
// static-initialization time; without it, tensors cannot require grad.
class AutogradHooks {
 public:
  virtual ~AutogradHooks() = default;
  // Creates or updates the tensor's AutogradMeta.
  virtual void set_requires_grad(TensorImpl* impl, bool requires_grad) = 0;
  // Builds the graph node for one op (Note [Op recording]).
  virtual void record(OpRecord&& rec) = 0;
  // Called before an in-place op named `name` modifies `self`: throws for a
  // leaf that requires grad; returns a copy of self when the op's formula
  // needs the old value, else an undefined tensor.
  virtual Tensor before_inplace(const char* name, const Tensor& self) = 0;

  virtual const Tensor& grad(const Tensor& self) = 0;
  virtual Tensor& mutable_grad(const Tensor& self) = 0;
  virtual std::shared_ptr<autograd::Node> grad_fn(const Tensor& self) = 0;
  virtual bool is_leaf(const Tensor& self) = 0;
  virtual int64_t output_nr(const Tensor& self) = 0;
  virtual void backward(const Tensor& self, const Tensor& gradient,
                        std::optional<bool> retain_graph, bool create_graph) = 0;
  virtual void retain_grad(const Tensor& self) = 0;
  virtual bool retains_grad(const Tensor& self) = 0;
  virtual unsigned register_hook(const Tensor& self,
                                 std::function<Tensor(const Tensor&)> hook) = 0;
  virtual void remove_hook(const Tensor& self, unsigned handle) = 0;
};

void set_autograd_hooks(AutogradHooks* hooks);
AutogradHooks* autograd_hooks();

namespace detail {

// Thread-local autograd state that the op layer reads on every op.
struct AutogradTLS {
  bool grad_disabled = false;    // NoGradGuard
  bool below_autograd = false;   // inside a recording primitive
};
inline AutogradTLS& autograd_tls() {
  static thread_local AutogradTLS tls;  // constant-initialized: no guard
  return tls;
}

inline bool input_requires_grad(const Tensor& t) {
  const TensorImpl* impl = t.unsafeGetTensorImpl();
  if (impl == nullptr) return false;
  const AutogradMetaInterface* m = impl->autograd_meta();
  return m != nullptr && m->requires_grad();
}

template <typename... Ts>
inline bool should_record(const Ts&... inputs) {
  if (!(input_requires_grad(inputs) || ...)) return false;
  const AutogradTLS& tls = autograd_tls();
  return !tls.grad_disabled && !tls.below_autograd && autograd_hooks() != nullptr;
}

inline bool should_record_list(TensorList inputs) {
  bool any = false;
  for (const Tensor& t : inputs) any = any || input_requires_grad(t);
  if (!any) return false;
  const AutogradTLS& tls = autograd_tls();
  return !tls.grad_disabled && !tls.below_autograd && autograd_hooks() != nullptr;
}

// See Note [Op recording].
class OpScope {
 public:
  template <typename... Ts>
  explicit OpScope(const Ts&... inputs) : active_(should_record(inputs...)) {
    if (active_) autograd_tls().below_autograd = true;
  }
  struct List {};
  OpScope(List, TensorList inputs) : active_(should_record_list(inputs)) {
    if (active_) autograd_tls().below_autograd = true;
  }
  // For callers that checked the inputs themselves.
  struct Checked {};
  explicit OpScope(Checked) : active_(recording_allowed()) {
    if (active_) autograd_tls().below_autograd = true;
  }
  static bool recording_allowed() {
    const AutogradTLS& tls = autograd_tls();
    return !tls.grad_disabled && !tls.below_autograd && autograd_hooks() != nullptr;
  }
  OpScope(const OpScope&) = delete;
  OpScope& operator=(const OpScope&) = delete;
  ~OpScope() {
    if (active_ && !done_) autograd_tls().below_autograd = false;
  }
  bool active() const { return active_; }

  void record(const char* name, std::initializer_list<Tensor> inputs,
              std::initializer_list<Tensor> outputs, OpArgs args = {});
  void record_list(const char* name, TensorList inputs, TensorList outputs,
                   OpArgs args = {});
  // For in-place ops: call before the forward.
  Tensor before_inplace(const char* name, const Tensor& self);
  void record_inplace(const char* name, const Tensor& self, Tensor self_before,
                      TensorList other_inputs, OpArgs args = {});

 private:
  void finish(OpRecord&& rec);
  bool active_;
  bool done_ = false;
};

// Runs `forward` (returning the result) for an op whose result goes to
// `out`: undefined `out` is the functional form (inputs are `inputs`), a
// defined `out` is in-place on inputs[0] == out. `args` (a callable
// returning OpArgs) is evaluated only when recording.
template <typename Fwd, typename ArgsFn>
Tensor record_out_op(const char* name, const Tensor& out, std::initializer_list<Tensor> inputs,
                     Fwd&& forward, ArgsFn&& args) {
  profiler::RecordFunction range(name, profiler::op_kind(out),
                                 TensorList(inputs.begin(), inputs.size()));
  bool any = input_requires_grad(out);
  for (const Tensor& t : inputs) any = any || input_requires_grad(t);
  if (!any) return forward();
  OpScope scope{OpScope::Checked{}};
  if (!scope.active()) return forward();
  if (!out.defined()) {
    Tensor r = forward();
    scope.record(name, inputs, {r}, args());
    return r;
  }
  Tensor before = scope.before_inplace(name, out);
  Tensor r = forward();
  scope.record_inplace(name, out, std::move(before),
                       TensorList(inputs.begin() + 1, inputs.size() - 1), args());
  return r;
}
inline OpArgs no_args() { return {}; }

}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_AUTOGRAD_HOOK_H_
