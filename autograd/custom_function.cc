#include "autograd/custom_function.h"

#include <cxxabi.h>

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "autograd/derivatives.h"
#include "tensor/creation.h"
#include "tensor/error.h"

namespace ember {
namespace autograd {

// --- AutogradContext -----------------------------------------------------------

void AutogradContext::save_for_backward(variable_list to_save) { to_save_ = std::move(to_save); }

void AutogradContext::mark_dirty(const variable_list& inputs) {
  dirty_.clear();
  dirty_tensors_.clear();
  for (const Tensor& t : inputs) {
    if (!t.defined()) continue;
    dirty_.insert(t.unsafeGetTensorImpl());
    dirty_tensors_.push_back(t);
  }
}

void AutogradContext::mark_non_differentiable(const variable_list& outputs) {
  non_differentiable_.clear();
  for (const Tensor& t : outputs) {
    if (t.defined()) non_differentiable_.insert(t.unsafeGetTensorImpl());
  }
}

variable_list AutogradContext::get_saved_variables() const {
  EMBER_CHECK(!has_freed_buffers_, kErrBackwardTwice);
  std::shared_ptr<Node> fn = grad_fn_.lock();
  variable_list saved;
  saved.reserve(saved_variables_.size());
  for (const SavedVariable& v : saved_variables_) saved.push_back(v.unpack(fn));
  return saved;
}

bool AutogradContext::needs_input_grad(size_t index) const {
  EMBER_CHECK_INDEX(index < needs_input_grad_.size(), "needs_input_grad: index ", index,
                    " is out of range for a Function with ", needs_input_grad_.size(),
                    " arguments");
  return needs_input_grad_[index];
}

namespace {

// Whether a tensor of `sizes` broadcasts to `to` (the gradient's shape).
bool is_expandable_to(IntArrayRef sizes, IntArrayRef to) {
  if (sizes.size() > to.size()) return false;
  const size_t lead = to.size() - sizes.size();
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] != to[lead + i] && sizes[i] != 1) return false;
  }
  return true;
}

}  // namespace

namespace custom_function_internal {

std::string custom_function_name(const std::type_info& type) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(type.name(), nullptr, nullptr, &status);
  std::string full = status == 0 && demangled != nullptr ? demangled : type.name();
  std::free(demangled);
  // Drop the namespaces and enclosing classes ("(anonymous namespace)::"
  // too), but not the ones inside template arguments.
  size_t start = 0;
  int depth = 0;
  for (size_t i = 0; i < full.size(); ++i) {
    const char c = full[i];
    if (c == '<' || c == '(') ++depth;
    if (c == '>' || c == ')') --depth;
    if (depth == 0 && c == ':' && i + 1 < full.size() && full[i + 1] == ':') {
      start = i + 2;
      ++i;
    }
  }
  return full.substr(start) + "Backward";
}

}  // namespace custom_function_internal

void CustomFunctionNode::set_inputs(variable_list inputs, std::vector<bool> is_tensor_arg) {
  ctx_.grad_fn_ = weak_from_this();
  bool any_requires_grad = false;
  for (const Tensor& t : inputs) {
    any_requires_grad = any_requires_grad || (t.defined() && t.requires_grad());
  }
  is_executable_ = GradMode::is_enabled() && any_requires_grad;
  next_edges_.assign(inputs.size(), Edge());
  input_info_.assign(inputs.size(), TensorInfo());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    if (!t.defined()) continue;
    input_info_[i] = {DimVector(t.sizes().begin(), t.sizes().end()), t.dtype(), t.device(), true};
    if (is_executable_ && t.requires_grad()) next_edges_[i] = gradient_edge(t);
  }
  edge_of_arg_.clear();
  ctx_.needs_input_grad_.clear();
  int edge = 0;
  for (bool is_tensor : is_tensor_arg) {
    edge_of_arg_.push_back(is_tensor ? edge : -1);
    ctx_.needs_input_grad_.push_back(is_tensor && next_edges_[edge].is_valid());
    if (is_tensor) ++edge;
  }
  inputs_ = std::move(inputs);
}

// Note [Custom function outputs]
//
// As libtorch's _wrap_outputs, with ember's own aliasing. When the call
// records (grad mode on, a tensor input requires grad), each floating-point
// output that is not marked non-differentiable becomes output i of the
// node:
// - an input marked dirty (modified in place) has its history rebased onto
//   the node; a leaf that requires grad refuses, and a recorded view goes
//   through CopySlices on its base (Note [Views and in-place]) provided the
//   Function returns one output, as PyTorch requires;
// - an input returned as-is (not dirty) is returned as a new alias of it
//   (detach(): same storage and version counter), so that the input keeps
//   its own history; likewise a tensor returned twice, or one made outside
//   forward that already requires grad;
// - any other output gets the node as its grad_fn.
// Outputs that alias an input's storage (an input returned as-is, a view of
// an input) are flagged: modifying them in place later would bypass the
// custom backward, so it is an error (PyTorch's IN_CUSTOM_FUNCTION views).
// Outputs that are not differentiable do not require grad (aliases again
// where they were inputs or required grad); backward still gets a gradient
// slot for them. Tensors saved with save_for_backward are saved as outputs
// (without their grad_fn: SavedVariable's is_output) when they are outputs
// attached here, dirty inputs included, so that the node does not own
// itself through them. libtorch tells outputs by `grad_fn == node`, which
// misses a dirty view (its grad_fn is then an AsStridedBackward leading to
// CopySlices and back to the node: a cycle). The context holds its node
// weakly for the same reason. When nothing records, outputs are returned
// as forward made them, except that inputs returned as-is are aliased and
// anything that requires grad is detached.
variable_list CustomFunctionNode::wrap_outputs(variable_list outputs) {
  const variable_list inputs = std::move(inputs_);
  inputs_.clear();
  const variable_list dirty = std::move(ctx_.dirty_tensors_);
  ctx_.dirty_tensors_.clear();
  const std::shared_ptr<Node> self = is_executable_ ? shared_from_this() : nullptr;
  // Input TensorImpl -> its next edge (the first, if passed twice).
  absl::flat_hash_map<const TensorImpl*, size_t> input_edge;
  for (size_t e = 0; e < inputs.size(); ++e) {
    if (inputs[e].defined()) input_edge.emplace(inputs[e].unsafeGetTensorImpl(), e);
  }
  auto shares_input_storage = [&](const Tensor& t) {
    for (const Tensor& in : inputs) {
      const TensorImpl* impl = in.unsafeGetTensorImpl();
      if (impl != nullptr && impl->storage() == t.unsafeGetTensorImpl()->storage()) return true;
    }
    return false;
  };
  auto is_differentiable = [&](const Tensor& t) {
    return is_executable_ && t.is_floating_point() &&
           ctx_.non_differentiable_.count(t.unsafeGetTensorImpl()) == 0;
  };

  // Refuse before changing anything.
  absl::flat_hash_set<const TensorImpl*> returned;
  for (const Tensor& out : outputs) {
    if (out.defined()) returned.insert(out.unsafeGetTensorImpl());
  }
  for (const Tensor& d : dirty) {
    EMBER_CHECK(returned.count(d.unsafeGetTensorImpl()) > 0,
                "Some elements marked as dirty during the forward method were not returned as "
                "output. The inputs that are modified inplace must all be outputs of the "
                "Function.");
    // A tensor that is not an input was not modified in place as far as
    // autograd is concerned (PyTorch warns and ignores it).
    if (input_edge.count(d.unsafeGetTensorImpl()) == 0 || !is_differentiable(d)) continue;
    check_inplace(d);
    AutogradMeta* m = get_meta(d);
    EMBER_CHECK(m == nullptr || !m->view_base_.defined() || outputs.size() == 1,
                "If your Function modifies inplace an input that is a view of another Tensor, "
                "your Function cannot return more than one Tensor. This is not supported by the "
                "current autograd engine. You should either make sure the input is not a view "
                "(using .clone() for example) or make your Function only return one Tensor "
                "(potentially splitting it into two Functions: one doing the inplace that "
                "returns a single Tensor and a second one that does the other operations).");
  }
  // The forward may have written through data_ptr: make sure tensors that
  // saved the old value notice (libtorch bumps too).
  for (const Tensor& d : dirty) d.unsafeGetTensorImpl()->bump_version();

  absl::flat_hash_set<const TensorImpl*> seen;      // returned so far
  absl::flat_hash_set<const TensorImpl*> attached;  // outputs whose history is the node
  output_info_.assign(outputs.size(), TensorInfo());
  for (size_t i = 0; i < outputs.size(); ++i) {
    Tensor& var = outputs[i];
    if (!var.defined()) continue;
    output_info_[i] = {DimVector(var.sizes().begin(), var.sizes().end()), var.dtype(),
                       var.device(), true};
    const TensorImpl* impl = var.unsafeGetTensorImpl();
    const auto in = input_edge.find(impl);
    const bool is_input = in != input_edge.end();
    const bool is_modified = is_input && ctx_.dirty_.count(impl) > 0;
    const bool first = seen.insert(impl).second;
    if (!is_differentiable(var)) {
      // An input returned as-is is aliased even then, as libtorch does; a
      // tensor that requires grad is detached.
      if (var.requires_grad() || (is_input && !is_modified) || !first) var = var.detach();
      continue;
    }
    if (is_modified && first) {
      rebase_history(var, self, static_cast<uint32_t>(i), in->second);
      attached.insert(impl);
      continue;
    }
    const bool alias = is_input || !first || var.requires_grad();
    if (alias) var = var.detach();
    AutogradMeta& m = materialize_meta(var);
    m.grad_fn_ = self;
    m.output_nr_ = static_cast<uint32_t>(i);
    m.custom_function_view_ = alias || shares_input_storage(var);
    attached.insert(var.unsafeGetTensorImpl());
  }
  if (is_executable_) {
    set_num_inputs(outputs.size());
    ctx_.saved_variables_.clear();
    for (const Tensor& t : ctx_.to_save_) {
      const bool is_output = t.defined() && attached.count(t.unsafeGetTensorImpl()) > 0;
      ctx_.saved_variables_.emplace_back(t, is_output);
    }
  }
  ctx_.to_save_.clear();
  ctx_.dirty_.clear();
  ctx_.non_differentiable_.clear();
  return outputs;
}

variable_list CustomFunctionNode::apply(variable_list&& grads) {
  grads.resize(output_info_.size());
  if (ctx_.materialize_grads_) {
    for (size_t i = 0; i < grads.size(); ++i) {
      const TensorInfo& info = output_info_[i];
      if (!grads[i].defined() && info.defined) {
        grads[i] = zeros(info.sizes, TensorOptions(info.dtype).device(info.device));
      }
    }
  }
  variable_list out = call_backward(&ctx_, std::move(grads));
  const size_t num_args = edge_of_arg_.size();
  // Extra trailing gradients are fine when undefined (a forward argument
  // left to its default).
  if (out.size() > num_args) {
    bool all_undefined = true;
    for (size_t i = num_args; i < out.size(); ++i) {
      all_undefined = all_undefined && !out[i].defined();
    }
    if (all_undefined) out.resize(num_args);
  }
  EMBER_CHECK(out.size() == num_args, "function ", name(),
              " returned an incorrect number of gradients (expected ", num_args, ", got ",
              out.size(), ")");
  variable_list result(next_edges_.size());
  for (size_t a = 0; a < num_args; ++a) {
    Tensor& g = out[a];
    if (edge_of_arg_[a] < 0) {
      EMBER_CHECK(!g.defined(), "function ", name(),
                  " returned a gradient different than None at position ", a + 1,
                  ", but the corresponding forward input was not a Variable");
      continue;
    }
    const size_t e = static_cast<size_t>(edge_of_arg_[a]);
    if (!g.defined() || !next_edges_[e].is_valid()) continue;
    const TensorInfo& info = input_info_[e];
    if (g.sizes() != IntArrayRef(info.sizes)) {
      EMBER_CHECK(is_expandable_to(info.sizes, g.sizes()), "Function ", name(),
                  " returned an invalid gradient at index ", a, " - got [",
                  absl::StrJoin(g.sizes(), ", "), "] but expected shape compatible with [",
                  absl::StrJoin(info.sizes, ", "), "]");
      g = sum_to(g, info.sizes);
    }
    if (g.dtype() != info.dtype) g = g.to(info.dtype);
    EMBER_CHECK(g.device() == info.device, "Function ", name(),
                " returned an invalid gradient at index ", a, " - expected device ",
                info.device.str(), " but got ", g.device().str());
    result[e] = std::move(g);
  }
  return result;
}

void CustomFunctionNode::release_variables() {
  ctx_.saved_variables_.clear();
  ctx_.has_freed_buffers_ = true;
}

}  // namespace autograd
}  // namespace ember
