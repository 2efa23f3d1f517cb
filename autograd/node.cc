#include "autograd/node.h"

#include <atomic>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "autograd/grad_mode.h"
#include "tensor/copy.h"
#include "tensor/empty.h"
#include "tensor/error.h"

namespace ember {
namespace autograd {

namespace {
std::atomic<uint64_t> g_sequence_nr{0};
std::atomic<unsigned> g_hook_id{0};

std::string legacy_type_string(const Tensor& t) {
  const char* name = "Tensor";
  switch (t.dtype()) {
    case kFloat: name = "FloatTensor"; break;
    case kDouble: name = "DoubleTensor"; break;
    case kHalf: name = "HalfTensor"; break;
    case kBFloat16: name = "BFloat16Tensor"; break;
    case kLong: name = "LongTensor"; break;
    case kInt: name = "IntTensor"; break;
    default: break;
  }
  return absl::StrCat(t.is_cuda() ? "torch.cuda." : "torch.", name);
}
}  // namespace

unsigned next_hook_id() { return ++g_hook_id; }

const char kErrBackwardTwice[] =
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.";

Node::Node() : sequence_nr_(g_sequence_nr++) {}

unsigned Node::add_pre_hook(uint32_t input_nr, TensorHook hook) {
  unsigned id = next_hook_id();
  pre_hooks_.push_back({id, input_nr, std::move(hook)});
  return id;
}

bool Node::remove_pre_hook(unsigned id) {
  for (auto it = pre_hooks_.begin(); it != pre_hooks_.end(); ++it) {
    if (it->id == id) {
      pre_hooks_.erase(it);
      return true;
    }
  }
  return false;
}

void Node::run_pre_hooks(variable_list& grads) {
  // Copy: a hook may register or remove hooks.
  std::vector<PreHook> hooks = pre_hooks_;
  for (const PreHook& h : hooks) {
    if (h.input_nr >= grads.size() || !grads[h.input_nr].defined()) continue;
    Tensor r = h.fn(grads[h.input_nr]);
    if (r.defined()) grads[h.input_nr] = std::move(r);
  }
}

// --- SavedVariable -------------------------------------------------------------

SavedVariable::SavedVariable(const Tensor& t, bool is_output) {
  if (!t.defined()) return;
  was_defined_ = true;
  is_output_ = is_output;
  saved_version_ = t._version();
  requires_grad_ = t.requires_grad();
  if (AutogradMeta* m = get_meta(t)) output_nr_ = m->output_nr_;
  if (is_output) {
    data_ = t.detach();  // same storage and version counter, no grad_fn
  } else {
    data_ = t;
    if (AutogradMeta* m = get_meta(t)) grad_fn_ = m->grad_fn_;
  }
}

void SavedVariable::reset_data() {
  if (!was_defined_) return;
  data_ = Tensor();
  grad_fn_.reset();
  released_ = true;
}

Tensor SavedVariable::unpack(const std::shared_ptr<Node>& saved_for) const {
  if (!was_defined_) return Tensor();
  if (released_) {
    throw Error(kErrBackwardTwice);
  }
  const uint32_t current = data_._version();
  if (current != saved_version_) {
    std::shared_ptr<Node> fn = is_output_ ? saved_for : grad_fn_;
    std::string msg = absl::StrCat(
        "one of the variables needed for gradient computation has been modified by an inplace "
        "operation: [",
        legacy_type_string(data_), " [", absl::StrJoin(data_.sizes(), ", "), "]]");
    if (fn) absl::StrAppend(&msg, ", which is output ", output_nr_, " of ", fn->name(), ",");
    absl::StrAppend(&msg, " is at version ", current, "; expected version ", saved_version_,
                    " instead. Hint: enable anomaly detection to find the operation that failed "
                    "to compute its gradient, with torch.autograd.set_detect_anomaly(True).");
    throw Error(msg);
  }
  if (!is_output_ || !requires_grad_ || !GradMode::is_enabled() || !saved_for) return data_;
  // create_graph: the output again, as an output of the node that saved it.
  Tensor t = data_.detach();
  AutogradMeta& m = materialize_meta(t);
  m.grad_fn_ = saved_for;
  m.output_nr_ = output_nr_;
  return t;
}

// --- AutogradMeta --------------------------------------------------------------

std::string AutogradMeta::grad_fn_name() const { return grad_fn_ ? grad_fn_->name() : ""; }

AutogradMeta* get_meta(const Tensor& t) {
  if (!t.defined()) return nullptr;
  // Only //autograd installs metas outside tests of printing.
  return static_cast<AutogradMeta*>(t.unsafeGetTensorImpl()->autograd_meta());
}

AutogradMeta& materialize_meta(const Tensor& t) {
  TensorImpl* impl = t.unsafeGetTensorImpl();
  if (impl->autograd_meta() == nullptr) impl->set_autograd_meta(std::make_unique<AutogradMeta>());
  return *static_cast<AutogradMeta*>(impl->autograd_meta());
}

// --- leaves ----------------------------------------------------------------------

AccumulateGrad::AccumulateGrad(Tensor variable) : variable_(std::move(variable)) {}

Tensor run_leaf_hooks(const Tensor& leaf, Tensor grad) {
  AutogradMeta* m = get_meta(leaf);
  if (m == nullptr || m->hooks_.empty() || !grad.defined()) return grad;
  auto hooks = m->hooks_;
  for (auto& h : hooks) {
    Tensor r = h.second(grad);
    if (r.defined()) grad = std::move(r);
  }
  return grad;
}

// Note [Gradient layout contract] (PyTorch's, AccumulateGrad.h): a leaf's
// first .grad has the leaf's strides when the leaf is non-overlapping and
// dense (a channels-last weight gets a channels-last gradient; dims of size
// 1 do not count), else is contiguous. A gradient that already obeys is
// taken as it is; another is copied into that layout. Later gradients are
// added into it, which keeps it.
bool obeys_layout_contract(const Tensor& grad, const Tensor& variable) {
  if (is_non_overlapping_and_dense(variable)) {
    for (int64_t d = 0; d < variable.dim(); ++d) {
      if (variable.size(d) != 1 && grad.stride(d) != variable.stride(d)) return false;
    }
    return true;
  }
  return grad.is_contiguous();
}

Tensor clone_obey_contract(const Tensor& grad, const Tensor& variable) {
  if (is_non_overlapping_and_dense(variable)) {
    return empty_strided(variable.sizes(), variable.strides(), grad.options()).copy_(grad);
  }
  return grad.clone(MemoryFormat::Contiguous);
}

variable_list AccumulateGrad::apply(variable_list&& grads) {
  Tensor g = grads.empty() ? Tensor() : std::move(grads[0]);
  grads.clear();
  if (!g.defined()) return {};
  g = run_leaf_hooks(variable_, std::move(g));
  AutogradMeta& m = materialize_meta(variable_);
  Tensor& slot = m.grad_;
  if (!slot.defined()) {
    const bool obeys = obeys_layout_contract(g, variable_);
    if (GradMode::is_enabled()) {
      // create_graph: keep its history (the copy records its own).
      slot = obeys ? g : clone_obey_contract(g, variable_);
    } else if (obeys && g.use_count() == 1 &&
               g.unsafeGetTensorImpl()->storage().use_count() == 1 && !g.requires_grad()) {
      slot = std::move(g);  // nobody else sees this buffer: steal it
    } else {
      slot = clone_obey_contract(g.detach(), variable_);
    }
  } else if (GradMode::is_enabled()) {
    slot = slot + g;
  } else {
    slot.add_(g);
  }
  if (!m.post_acc_hooks_.empty()) {
    auto hooks = m.post_acc_hooks_;
    for (auto& h : hooks) h.second(variable_);
  }
  return {};
}

std::shared_ptr<Node> grad_accumulator(const Tensor& leaf) {
  AutogradMeta& m = materialize_meta(leaf);
  std::shared_ptr<Node> acc = m.grad_accumulator_.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(leaf);
    m.grad_accumulator_ = acc;
  }
  return acc;
}

Edge gradient_edge(const Tensor& t) {
  AutogradMeta* m = get_meta(t);
  if (m != nullptr && m->view_base_.defined() && m->view_version_ != t._version()) {
    refresh_view_grad_fn(t, *m);
  }
  if (m != nullptr && m->grad_fn_) return Edge(m->grad_fn_, m->output_nr_);
  return Edge(grad_accumulator(t), 0);
}

unsigned register_post_accumulate_grad_hook(const Tensor& leaf,
                                            std::function<void(Tensor&)> hook) {
  EMBER_CHECK(leaf.requires_grad(),
              "cannot register a hook on a tensor that doesn't require gradient");
  AutogradMeta& m = materialize_meta(leaf);
  EMBER_CHECK(!m.grad_fn_, "post accumulate grad hooks cannot be registered on non-leaf tensors");
  unsigned id = next_hook_id();
  m.post_acc_hooks_.emplace_back(id, std::move(hook));
  return id;
}

void remove_post_accumulate_grad_hook(const Tensor& leaf, unsigned handle) {
  AutogradMeta* m = get_meta(leaf);
  if (m == nullptr) return;
  auto& v = m->post_acc_hooks_;
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (it->first == handle) {
      v.erase(it);
      return;
    }
  }
}

}  // namespace autograd
}  // namespace ember
