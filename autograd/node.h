#ifndef EMBER_AUTOGRAD_NODE_H_
#define EMBER_AUTOGRAD_NODE_H_
// The graph: Node (a backward function), Edge, SavedVariable, and the
// AutogradMeta that //autograd attaches to tensors. See Note [Autograd
// design] in engine.cc.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tensor/autograd_hook.h"
#include "tensor/tensor.h"

namespace ember {
namespace autograd {

using variable_list = std::vector<Tensor>;
// libtorch's other name for it (torch::autograd::tensor_list), which its
// custom Functions' backward uses.
using tensor_list = std::vector<Tensor>;
class Node;

// Where a gradient goes: input `input_nr` of `function`.
struct Edge {
  Edge() = default;
  Edge(std::shared_ptr<Node> fn, uint32_t nr) : function(std::move(fn)), input_nr(nr) {}
  bool is_valid() const { return function != nullptr; }
  std::shared_ptr<Node> function;
  uint32_t input_nr = 0;
};

// A tensor hook: gets the gradient, returns a replacement or an undefined
// tensor (keep it).
using TensorHook = std::function<Tensor(const Tensor&)>;

class Node : public std::enable_shared_from_this<Node> {
 public:
  Node();
  virtual ~Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // PyTorch's name ("MulBackward0", "torch::autograd::AccumulateGrad").
  virtual std::string name() const = 0;
  // Gradients of the forward outputs in, gradients of the forward inputs
  // out (one per next edge).
  virtual variable_list apply(variable_list&& grads) = 0;
  // Frees saved tensors (backward without retain_graph).
  virtual void release_variables() {}

  const std::vector<Edge>& next_edges() const { return next_edges_; }
  std::vector<Edge>& mutable_next_edges() { return next_edges_; }
  const Edge& next_edge(size_t i) const { return next_edges_[i]; }
  size_t num_outputs() const { return next_edges_.size(); }
  // Forward outputs of the op (this node's gradient inputs).
  size_t num_inputs() const { return num_inputs_; }
  void set_num_inputs(size_t n) { num_inputs_ = n; }
  uint64_t sequence_nr() const { return sequence_nr_; }

  // Hooks on the gradient of forward output `input_nr` (register_hook on a
  // non-leaf tensor).
  unsigned add_pre_hook(uint32_t input_nr, TensorHook hook);
  bool remove_pre_hook(unsigned id);
  // Runs the pre-hooks on `grads` in registration order.
  void run_pre_hooks(variable_list& grads);
  bool has_pre_hooks() const { return !pre_hooks_.empty(); }

 protected:
  std::vector<Edge> next_edges_;
  size_t num_inputs_ = 1;

 private:
  struct PreHook {
    unsigned id;
    uint32_t input_nr;
    TensorHook fn;
  };
  std::vector<PreHook> pre_hooks_;
  uint64_t sequence_nr_;
};

unsigned next_hook_id();

// PyTorch's error for reading a graph's saved tensors after backward freed
// them.
extern const char kErrBackwardTwice[];

// A tensor saved for backward, with the version check of Note [Autograd
// design]. An op's outputs are saved without their grad_fn (which is the
// saving node: a cycle otherwise) and get it back on unpack.
class SavedVariable {
 public:
  SavedVariable() = default;
  SavedVariable(const Tensor& t, bool is_output);
  // `saved_for` is the node that saved it (for outputs under create_graph).
  Tensor unpack(const std::shared_ptr<Node>& saved_for = nullptr) const;
  void reset_data();
  bool defined() const { return was_defined_; }

 private:
  Tensor data_;
  std::shared_ptr<Node> grad_fn_;  // inputs: the grad_fn when saved
  uint32_t saved_version_ = 0;
  uint32_t output_nr_ = 0;
  bool is_output_ = false;
  bool was_defined_ = false;
  bool requires_grad_ = false;
  bool released_ = false;
};

// The autograd state of one tensor (the AutogradMetaInterface slot).
class AutogradMeta : public AutogradMetaInterface {
 public:
  // A view requires grad when its base does (PyTorch's
  // DifferentiableViewMeta), even before its grad_fn is remade.
  bool requires_grad() const override {
    return requires_grad_ || grad_fn_ != nullptr ||
           (view_base_.defined() && view_base_.requires_grad());
  }
  std::string grad_fn_name() const override;

  bool requires_grad_ = false;  // leaves only
  Tensor grad_;
  std::shared_ptr<Node> grad_fn_;
  std::weak_ptr<Node> grad_accumulator_;
  uint32_t output_nr_ = 0;
  bool retains_grad_ = false;
  unsigned retain_hook_id_ = 0;
  // Leaf tensor hooks (non-leaf hooks live on the grad_fn).
  std::vector<std::pair<unsigned, TensorHook>> hooks_;
  std::vector<std::pair<unsigned, std::function<void(Tensor&)>>> post_acc_hooks_;
  // A view made by a recorded view op (Note [Views and in-place] in
  // engine.cc): the tensor whose storage it views (never itself a view),
  // and the storage version its grad_fn was made at.
  Tensor view_base_;
  uint32_t view_version_ = 0;
  // An output of a custom Function that aliases one of its inputs (Note
  // [Custom function outputs] in custom_function.cc): modifying it in place
  // is an error, as for PyTorch's CreationMeta::IN_CUSTOM_FUNCTION.
  bool custom_function_view_ = false;
};

// The tensor's AutogradMeta, or nullptr.
AutogradMeta* get_meta(const Tensor& t);
// The tensor's AutogradMeta, made if absent.
AutogradMeta& materialize_meta(const Tensor& t);

// Accumulates into a leaf's .grad, then runs its post-accumulate hooks.
class AccumulateGrad : public Node {
 public:
  explicit AccumulateGrad(Tensor variable);
  std::string name() const override { return "torch::autograd::AccumulateGrad"; }
  variable_list apply(variable_list&& grads) override;
  const Tensor& variable() const { return variable_; }

 private:
  Tensor variable_;
};

// The leaf's AccumulateGrad node (made on first use; the tensor holds it
// weakly, the graph strongly).
std::shared_ptr<Node> grad_accumulator(const Tensor& leaf);
// Where the gradient of `t` flows: (grad_fn, output_nr) or (accumulator, 0).
// A view whose storage was modified in place since its grad_fn was made
// gets a fresh one first (Note [Views and in-place]).
Edge gradient_edge(const Tensor& t);
// Remakes a view's grad_fn from its base's current history when the
// storage version moved on (defined in engine.cc).
void refresh_view_grad_fn(const Tensor& view, AutogradMeta& m);
// Throws PyTorch's error when `self` must not be modified in place with
// its history rebased: a leaf that requires grad, a view of one, or an
// output of a custom Function that aliases its input (defined in
// engine.cc).
void check_inplace(const Tensor& self);
// Makes `fn` the history of `self`, which fn has just modified in place:
// self becomes output `output_nr` of fn, or, for a recorded view, its base
// gets a CopySlices around fn (Note [Views and in-place]; fn must then
// have one output). fn's next edge `self_edge` is self's old history
// (defined in engine.cc).
void rebase_history(const Tensor& self, const std::shared_ptr<Node>& fn, uint32_t output_nr,
                    size_t self_edge);
// Runs a leaf's tensor hooks on its gradient.
Tensor run_leaf_hooks(const Tensor& leaf, Tensor grad);

// Registers a hook run on a leaf right after its .grad was accumulated
// (PyTorch's register_post_accumulate_grad_hook). Returns a handle.
unsigned register_post_accumulate_grad_hook(const Tensor& leaf,
                                            std::function<void(Tensor&)> hook);
void remove_post_accumulate_grad_hook(const Tensor& leaf, unsigned handle);

}  // namespace autograd
}  // namespace ember

#endif  // EMBER_AUTOGRAD_NODE_H_
