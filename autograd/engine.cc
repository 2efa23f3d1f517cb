// Note [Autograd design]
//
// //tensor records, //autograd differentiates. Each primitive op of //tensor
// reports itself once after its forward (Note [Op recording] in
// tensor/autograd_hook.h); AutogradHooksImpl::record looks the op's name up
// in the derivative table (derivatives.h) and makes one FormulaNode holding
// what that entry asks to save: SavedVariables of chosen inputs/outputs
// (with their version, for the in-place check), the inputs' shapes and
// dtypes, and the op's non-tensor arguments. Formulas are plain functions
// written with public tensor ops, so running them with grad mode on records
// the backward itself (create_graph, double backward). The node reduces each
// gradient to its input's shape and dtype, so broadcasting and promotion are
// handled once, not per formula.
//
// This keeps PyTorch's structure (Node, Edge, AccumulateGrad, SavedVariable,
// GraphRoot, a dependency-counting engine) while replacing its generated
// per-op node classes with one table-driven class: one op, one entry.
// Leaves hold their AccumulateGrad weakly; tensor hooks of leaves live on
// the tensor, of non-leaves on their grad_fn (as pre-hooks).
//
// The engine is single-threaded: it counts dependencies over the part of the
// graph that leads to what is wanted (all of it for backward, the inputs for
// grad), runs ready nodes highest sequence number first (the most recently
// recorded op first, as PyTorch does), sums gradients per node input, and
// frees saved tensors after each node unless retain_graph.
//
// Views and in-place ops follow PyTorch (Note [Views and in-place]): a
// recorded view remembers its base; an in-place op on it rewrites the
// base's history (CopySlices) and the view's grad_fn is remade from the
// base's whenever the storage version moved on. Views of tensors that do
// not require grad are tracked too (reported as "view_of", no node), so
// zeros(3).narrow(0, 0, 1).copy_(x) gives the zeros x's gradient. Views made
// inside an op, under no_grad, or with make_view directly are not tracked.
#include "autograd/engine.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <queue>
#include <string>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "autograd/derivatives.h"
#include "autograd/grad_mode.h"
#include "tensor/autocast.h"
#include "tensor/creation.h"
#include "tensor/error.h"
#include "tensor/record_function.h"

namespace ember {
namespace autograd {

namespace {

std::string size_string(IntArrayRef s) {
  return absl::StrCat("torch.Size([", absl::StrJoin(s, ", "), "])");
}

// --- FormulaNode -----------------------------------------------------------------

class FormulaNode : public Node {
 public:
  FormulaNode(const Derivative* d, std::string op) : d_(d), op_(std::move(op)) {}

  std::string name() const override {
    if (d_ != nullptr) return d_->node_name;
    return "torch::autograd::NotImplemented";
  }

  variable_list apply(variable_list&& grads) override {
    // An op recorded without a table entry (floor_divide, as in PyTorch)
    // fails only when its gradient is needed.
    if (d_ == nullptr) {
      throw Error(absl::StrCat("derivative for aten::", op_, " is not implemented"));
    }
    // Outputs whose gradient nobody computed get zeros (unless the formula
    // takes them undefined); outputs the op did not produce (an optional
    // output left out) stay undefined.
    const Tensor* given = nullptr;
    for (const Tensor& g : grads) given = given == nullptr && g.defined() ? &g : given;
    if (given == nullptr) return variable_list(next_edges_.size());
    // On the device of the gradients that were computed (an op's outputs
    // share one device).
    const Device device = given->device();
    for (size_t i = 0; i < grads.size() && i < out_meta_.size(); ++i) {
      if (!grads[i].defined() && out_meta_[i].defined && !d_->undefined_grads) {
        grads[i] = zeros(out_meta_[i].sizes, TensorOptions(out_meta_[i].dtype).device(device));
      }
    }
    std::shared_ptr<Node> self = shared_from_this();
    variable_list ins(saved_in_.size()), outs(saved_out_.size());
    for (size_t i = 0; i < saved_in_.size(); ++i) ins[i] = saved_in_[i].unpack(self);
    for (size_t i = 0; i < saved_out_.size(); ++i) outs[i] = saved_out_[i].unpack(self);
    std::vector<bool> needs(next_edges_.size());
    for (size_t i = 0; i < needs.size(); ++i) needs[i] = next_edges_[i].is_valid();
    BackwardCtx ctx(ins, outs, info_, args_, needs);
    variable_list result = d_->formula(ctx, grads);
    result.resize(next_edges_.size());
    for (size_t i = 0; i < result.size(); ++i) {
      Tensor& r = result[i];
      if (!needs[i]) {
        r = Tensor();
        continue;
      }
      if (!r.defined()) continue;
      if (r.sizes() != IntArrayRef(info_[i].sizes)) r = sum_to(r, info_[i].sizes);
      if (r.dtype() != info_[i].dtype) r = r.to(info_[i].dtype);
    }
    return result;
  }

  void release_variables() override {
    for (SavedVariable& v : saved_in_) v.reset_data();
    for (SavedVariable& v : saved_out_) v.reset_data();
  }

  const Derivative* d_;
  std::string op_;
  std::vector<SavedVariable> saved_in_, saved_out_;
  std::vector<BackwardCtx::InputInfo> info_;
  std::vector<BackwardCtx::InputInfo> out_meta_;
  absl::InlinedVector<OpArg, 4> args_;
};

// See Note [Views and in-place]. Gets the gradient of the base's new value;
// gives the gradient of its old value (the view's part replaced by what
// `fn` gives for the view's old value, fn's input `self_edge`) and of fn's
// other inputs. fn is the in-place op's node (input 0 is the view) or a
// custom Function's (mark_dirty), with one output either way. Its copies
// into views of a buffer are tracked like any (Note [Views and in-place]),
// so under create_graph it is differentiable again.
class CopySlices : public Node {
 public:
  CopySlices(const Tensor& base, const Tensor& view, std::shared_ptr<Node> fn, size_t self_edge)
      : base_sizes_(base.sizes().begin(), base.sizes().end()),
        base_strides_(base.strides().begin(), base.strides().end()),
        view_sizes_(view.sizes().begin(), view.sizes().end()),
        view_strides_(view.strides().begin(), view.strides().end()),
        base_offset_(base.storage_offset()),
        view_offset_(view.storage_offset()),
        fn_(std::move(fn)),
        self_edge_(self_edge) {}

  std::string name() const override { return "CopySlices"; }

  variable_list apply(variable_list&& grads) override {
    variable_list out(next_edges_.size());
    const Tensor& g = grads[0];
    if (!g.defined()) return out;
    const int64_t extent = std::max(end_of(base_sizes_, base_strides_, base_offset_),
                                    end_of(view_sizes_, view_strides_, view_offset_));
    // The base's gradient laid out in a buffer with the base's storage
    // geometry, so that the view's part is the view's geometry on it.
    Tensor buf = zeros({extent}, TensorOptions(g.dtype()).device(g.device()));
    buf.as_strided(base_sizes_, base_strides_, base_offset_).copy_(g);
    Tensor view_part = buf.as_strided(view_sizes_, view_strides_, view_offset_);
    variable_list res = fn_->apply({view_part.clone()});
    res.resize(out.size());
    if (res[self_edge_].defined()) {
      view_part.copy_(res[self_edge_]);
    } else {
      view_part.zero_();
    }
    for (size_t i = 0; i < out.size(); ++i) {
      if (i != self_edge_) out[i] = std::move(res[i]);
    }
    out[self_edge_] = buf.as_strided(base_sizes_, base_strides_, base_offset_).clone();
    return out;
  }

  void release_variables() override { fn_->release_variables(); }

 private:
  // One past the last storage position the geometry reaches.
  static int64_t end_of(IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
    int64_t e = offset;
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (sizes[i] == 0) return 0;
      e += (sizes[i] - 1) * strides[i];
    }
    return e + 1;
  }

  DimVector base_sizes_, base_strides_, view_sizes_, view_strides_;
  int64_t base_offset_, view_offset_;
  std::shared_ptr<Node> fn_;
  size_t self_edge_;
};

class GraphRoot : public Node {
 public:
  GraphRoot(std::vector<Edge> edges, variable_list grads) : grads_(std::move(grads)) {
    next_edges_ = std::move(edges);
    num_inputs_ = 0;
  }
  std::string name() const override { return "GraphRoot"; }
  variable_list apply(variable_list&&) override { return grads_; }

 private:
  variable_list grads_;
};

// --- the engine --------------------------------------------------------------------

struct GraphTask {
  std::vector<std::function<void()>> callbacks;
};
thread_local GraphTask* t_current_task = nullptr;

struct ByPriority {
  bool operator()(const std::shared_ptr<Node>& a, const std::shared_ptr<Node>& b) const {
    // GraphRoot first, then the most recent node.
    if (a->num_inputs() == 0) return false;
    if (b->num_inputs() == 0) return true;
    return a->sequence_nr() < b->sequence_nr();
  }
};

Tensor add_grads(const Tensor& a, const Tensor& b) {
  if (!a.defined()) return b;
  if (!b.defined()) return a;
  return a + b;
}

// Runs the graph from `roots`. With `accumulate`, leaves' AccumulateGrad
// nodes run (backward); otherwise the gradients at `inputs` are returned
// (grad).
variable_list execute(const variable_list& roots, const variable_list& root_grads,
                      bool keep_graph, bool create_graph, const variable_list& inputs,
                      bool accumulate) {
  // Backward runs in the dtypes forward chose: no op in it autocasts, even
  // when backward() is called inside an autocast region (Note [Autocast]).
  autocast::ExcludeAutocastGuard no_autocast;
  std::vector<Edge> root_edges;
  variable_list grads;
  for (size_t i = 0; i < roots.size(); ++i) {
    const Tensor& r = roots[i];
    EMBER_CHECK(r.defined(), "element ", i, " of tensors is undefined");
    EMBER_CHECK(r.requires_grad(), "element ", i,
                " of tensors does not require grad and does not have a grad_fn");
    Tensor g = i < root_grads.size() ? root_grads[i] : Tensor();
    if (!g.defined()) {
      EMBER_CHECK(r.numel() == 1, "grad can be implicitly created only for scalar outputs");
      g = ones_like(r);
    } else {
      EMBER_CHECK(g.sizes() == r.sizes(), "Mismatch in shape: grad_output[", i,
                  "] has a shape of ", size_string(g.sizes()), " and output[", i,
                  "] has a shape of ", size_string(r.sizes()), ".");
    }
    root_edges.push_back(gradient_edge(r));
    grads.push_back(std::move(g));
  }
  auto root = std::make_shared<GraphRoot>(std::move(root_edges), std::move(grads));

  // Captures: (node, input_nr) -> indices into `inputs`.
  std::unordered_map<Node*, std::vector<std::pair<uint32_t, size_t>>> captures;
  std::vector<std::shared_ptr<Node>> keep_alive;
  for (size_t k = 0; k < inputs.size(); ++k) {
    EMBER_CHECK(inputs[k].defined() && inputs[k].requires_grad(),
                "One of the differentiated Tensors does not require grad");
    Edge e = gradient_edge(inputs[k]);
    captures[e.function.get()].emplace_back(e.input_nr, k);
    keep_alive.push_back(e.function);
  }

  // Post-order over the reachable graph.
  struct Frame {
    Node* node;
    size_t next;
  };
  std::unordered_map<Node*, bool> needed;  // visited; value: leads to a wanted node
  std::vector<Node*> post;
  std::vector<Frame> stack{{root.get(), 0}};
  needed[root.get()] = false;
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.next < f.node->num_outputs()) {
      const Edge& e = f.node->next_edge(f.next++);
      if (e.is_valid() && needed.emplace(e.function.get(), false).second) {
        stack.push_back({e.function.get(), 0});
      }
      continue;
    }
    post.push_back(f.node);
    stack.pop_back();
  }
  for (Node* n : post) {  // children before parents
    bool want = accumulate || captures.count(n) > 0;
    for (const Edge& e : n->next_edges()) {
      if (want) break;
      if (e.is_valid() && needed[e.function.get()]) want = true;
    }
    needed[n] = want;
  }
  std::unordered_map<Node*, int> deps;
  for (Node* n : post) {
    if (!needed[n]) continue;
    for (const Edge& e : n->next_edges()) {
      if (e.is_valid() && needed[e.function.get()]) ++deps[e.function.get()];
    }
  }

  variable_list captured(inputs.size());
  GraphTask task;
  GraphTask* prev_task = t_current_task;
  t_current_task = &task;
  struct Restore {
    GraphTask* prev;
    ~Restore() { t_current_task = prev; }
  } restore{prev_task};
  AutoGradMode mode(create_graph);

  std::unordered_map<Node*, variable_list> buffers;
  std::priority_queue<std::shared_ptr<Node>, std::vector<std::shared_ptr<Node>>, ByPriority>
      ready;
  ready.push(root);
  while (!ready.empty()) {
    std::shared_ptr<Node> node = ready.top();
    ready.pop();
    variable_list in;
    auto it = buffers.find(node.get());
    if (it != buffers.end()) {
      in = std::move(it->second);
      buffers.erase(it);
    }
    in.resize(node->num_inputs());
    if (node->has_pre_hooks()) node->run_pre_hooks(in);
    auto* acc = dynamic_cast<AccumulateGrad*>(node.get());
    auto cap = captures.find(node.get());
    if (cap != captures.end()) {
      for (auto& [nr, k] : cap->second) {
        Tensor g = nr < in.size() ? in[nr] : Tensor();
        if (acc != nullptr) g = run_leaf_hooks(acc->variable(), g);
        captured[k] = g;
      }
    }
    if (acc != nullptr && !accumulate) continue;
    bool feeds_any = false;
    for (const Edge& e : node->next_edges()) {
      feeds_any = feeds_any || (e.is_valid() && needed[e.function.get()]);
    }
    if (!feeds_any && acc == nullptr) {
      if (!keep_graph) node->release_variables();
      continue;
    }
    // Note [Profiling ranges]: PyTorch's two ranges per node.
    std::optional<profiler::RecordFunction> evaluate_range;
    const char* node_name = nullptr;
    if (profiler::detail::active()) {
      const std::string name = node->name();
      node_name = profiler::detail::intern(name);
      evaluate_range.emplace(
          profiler::detail::intern("autograd::engine::evaluate_function: " + name),
          profiler::RangeKind::kBackward);
    }
    variable_list out;
    {
      std::optional<profiler::RecordFunction> apply_range;
      if (node_name != nullptr) apply_range.emplace(node_name, profiler::RangeKind::kBackward);
      out = node->apply(std::move(in));
    }
    if (!keep_graph) node->release_variables();
    for (size_t i = 0; i < node->num_outputs(); ++i) {
      const Edge& e = node->next_edge(i);
      if (!e.is_valid() || !needed[e.function.get()]) continue;
      variable_list& buf = buffers[e.function.get()];
      if (buf.size() < e.function->num_inputs()) buf.resize(e.function->num_inputs());
      if (i < out.size() && out[i].defined()) {
        buf[e.input_nr] = add_grads(buf[e.input_nr], out[i]);
      }
      if (--deps[e.function.get()] == 0) ready.push(e.function);
    }
  }
  // Callbacks may queue more callbacks.
  for (size_t i = 0; i < task.callbacks.size(); ++i) {
    std::function<void()> cb = std::move(task.callbacks[i]);
    cb();
  }
  return captured;
}

// --- the hooks //tensor calls ---------------------------------------------------------

class AutogradHooksImpl : public AutogradHooks {
 public:
  void set_requires_grad(TensorImpl* impl, bool requires_grad) override {
    if (impl->autograd_meta() == nullptr) {
      impl->set_autograd_meta(std::make_unique<AutogradMeta>());
    }
    auto* m = static_cast<AutogradMeta*>(impl->autograd_meta());
    if (m->grad_fn_) {
      EMBER_CHECK(requires_grad,
                  "you can only change requires_grad flags of leaf variables. If you want to use "
                  "a computed variable in a subgraph that doesn't require differentiation use "
                  "var_no_grad = var.detach().");
      return;
    }
    m->requires_grad_ = requires_grad;
  }

  void record(OpRecord&& rec) override {
    if (std::strcmp(rec.name, "view_of") == 0) {  // see tensor/shape.cc's view_rec
      tag_view(rec.outputs[0], rec.inputs[0]);
      return;
    }
    if (rec.inplace && !is_inplace_view(rec.name)) {
      AutogradMeta* m = get_meta(rec.outputs[0]);
      if (m != nullptr && m->view_base_.defined()) {
        record_inplace_on_view(std::move(rec), *m);
        return;
      }
    }
    build_node(std::move(rec), /*attach=*/true);
  }

  // Builds the op's node; with `attach`, its outputs get it as grad_fn (and
  // outputs that share an input's storage become views of it).
  std::shared_ptr<FormulaNode> build_node(OpRecord&& rec, bool attach) {
    const Derivative* d = find_derivative(rec.name);
    auto node = std::make_shared<FormulaNode>(d, rec.name);
    const size_t n = rec.inputs.size();
    std::vector<Edge>& edges = node->mutable_next_edges();
    edges.resize(n);
    node->info_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const Tensor& t = rec.inputs[i];
      if (!t.defined()) continue;
      // In place, self's shape before the op is self_before's (in-place
      // views such as squeeze_ change it).
      const Tensor& shape_of = i == 0 && rec.inplace && rec.self_before.defined() ? rec.self_before : t;
      node->info_[i] = {DimVector(shape_of.sizes().begin(), shape_of.sizes().end()), t.dtype(),
                        true};
      if (t.requires_grad()) edges[i] = gradient_edge(t);
    }
    const TensorImpl* self_impl =
        rec.inplace ? rec.outputs[0].unsafeGetTensorImpl() : nullptr;
    if (d != nullptr && d->save_inputs != 0) {
      node->saved_in_.resize(n);
      for (size_t i = 0; i < n && i < 32; ++i) {
        if (!(d->save_inputs & (1u << i))) continue;
        const Tensor& t = rec.inputs[i];
        if (rec.inplace && t.defined() && t.unsafeGetTensorImpl() == self_impl) {
          node->saved_in_[i] = SavedVariable(rec.self_before, false);
        } else {
          node->saved_in_[i] = SavedVariable(t, false);
        }
      }
    }
    node->args_ = std::move(rec.args);
    node->set_num_inputs(rec.outputs.size());
    node->out_meta_.resize(rec.outputs.size());
    for (size_t j = 0; j < rec.outputs.size(); ++j) {
      const Tensor& out = rec.outputs[j];
      if (!out.defined()) continue;
      node->out_meta_[j] = {DimVector(out.sizes().begin(), out.sizes().end()), out.dtype(), true};
      if (!out.is_floating_point()) continue;  // indices: not differentiable
      if (d != nullptr && j < 32 && ((d->nondifferentiable_outputs >> j) & 1u)) continue;
      bool aliases_input = false;
      if (!rec.inplace) {
        for (const Tensor& t : rec.inputs) {
          aliases_input = aliases_input || t.unsafeGetTensorImpl() == out.unsafeGetTensorImpl();
        }
      }
      if (aliases_input || !attach) continue;  // the op returned its input itself
      AutogradMeta& m = materialize_meta(out);
      m.grad_fn_ = node;
      m.output_nr_ = static_cast<uint32_t>(j);
      const Tensor& in0 = rec.inputs.empty() ? out : rec.inputs[0];
      if (!rec.inplace && in0.defined() && in0.unsafeGetTensorImpl() != out.unsafeGetTensorImpl() &&
          in0.unsafeGetTensorImpl()->storage() == out.unsafeGetTensorImpl()->storage()) {
        tag_view(out, in0);
      }
    }
    if (d != nullptr && d->save_outputs) {
      node->saved_out_.reserve(rec.outputs.size());
      for (size_t j = 0; j < rec.outputs.size(); ++j) {
        const bool unsaved = j < 32 && ((d->unsaved_outputs >> j) & 1u);
        node->saved_out_.emplace_back(unsaved ? Tensor() : rec.outputs[j], true);
      }
    }
    return node;
  }

  // Marks `view` as a view of `of`'s base (or of `of`, which is no view).
  static void tag_view(const Tensor& view, const Tensor& of) {
    AutogradMeta& m = materialize_meta(view);
    AutogradMeta* om = get_meta(of);
    m.view_base_ = om != nullptr && om->view_base_.defined() ? om->view_base_ : of;
    m.view_version_ = view._version();
  }

  static bool is_inplace_view(const char* name) {
    for (const char* v : {"squeeze_", "squeeze_dim_", "unsqueeze_", "transpose_", "t_"}) {
      if (std::strcmp(name, v) == 0) return true;
    }
    return false;
  }

  // The view's grad_fn, made again from its base's current history: the
  // view reads its base's storage through its own geometry.
  void remake_view_grad_fn(const Tensor& view, AutogradMeta& m) {
    const Tensor base = m.view_base_;
    m.view_version_ = view._version();
    if (!base.requires_grad()) return;
    OpRecord rec;
    rec.name = "as_strided";
    rec.inputs.push_back(base);
    rec.outputs.push_back(view);
    rec.args = {DimVector(view.sizes().begin(), view.sizes().end()),
                DimVector(view.strides().begin(), view.strides().end()),
                Scalar(view.storage_offset()),
                DimVector(base.strides().begin(), base.strides().end()),
                Scalar(base.storage_offset())};
    build_node(std::move(rec), /*attach=*/true);
  }

  // Note [Views and in-place]: an in-place op on a view changes its base's
  // value too. As PyTorch, the op's node becomes part of a CopySlices node
  // that is the base's new grad_fn, and the view's grad_fn is remade from
  // it. A custom Function that marks a view input dirty goes the same way
  // (rebase_history).
  void record_inplace_on_view(OpRecord&& rec, AutogradMeta& m) {
    const Tensor view = rec.outputs[0];
    std::shared_ptr<FormulaNode> fn = build_node(std::move(rec), /*attach=*/false);
    rebase_view(view, m, fn, 0);
  }

  // `fn` (one output) has just modified `view` in place; its next edge
  // `self_edge` is the view's old history.
  void rebase_view(const Tensor& view, AutogradMeta& m, std::shared_ptr<Node> fn,
                   size_t self_edge) {
    const Tensor base = m.view_base_;
    auto copy_slices = std::make_shared<CopySlices>(base, view, fn, self_edge);
    std::vector<Edge>& edges = copy_slices->mutable_next_edges();
    edges = fn->next_edges();
    // A base that did not require grad starts its history here.
    edges[self_edge] = base.requires_grad() ? gradient_edge(base) : Edge();
    AutogradMeta& bm = materialize_meta(base);
    bm.grad_fn_ = copy_slices;
    bm.output_nr_ = 0;
    remake_view_grad_fn(view, m);
  }

  // PyTorch's check_inplace. In-place views (squeeze_, t_) change self's
  // geometry, not its values (values_change false): only a leaf that
  // requires grad refuses them.
  static void check_inplace(const Tensor& self, bool values_change) {
    AutogradMeta* m = get_meta(self);
    if (m == nullptr) return;
    if (values_change && m->custom_function_view_ && m->grad_fn_) {
      throw Error(absl::StrCat(
          "Output ", m->output_nr_, " of ", m->grad_fn_->name(),
          " is a view and is being modified inplace. This view was created inside a custom "
          "Function (or because an input was returned as-is) and the autograd logic to handle "
          "view+inplace would override the custom backward associated with the custom "
          "Function, leading to incorrect gradients. This behavior is forbidden. You can fix "
          "this by cloning the output of the custom Function."));
    }
    if (values_change && m->view_base_.defined()) {
      AutogradMeta* bm = get_meta(m->view_base_);
      if (bm != nullptr && bm->requires_grad_ && !bm->grad_fn_) {
        throw Error(
            "a view of a leaf Variable that requires grad is being used in an in-place "
            "operation.");
      }
    }
    if (m->requires_grad_ && !m->grad_fn_) {
      throw Error("a leaf Variable that requires grad is being used in an in-place operation.");
    }
  }

  Tensor before_inplace(const char* name, const Tensor& self) override {
    check_inplace(self, /*values_change=*/!is_inplace_view(name));
    // Only a formula that reads self needs its old value. The copy is
    // recorded (this runs inside the op's scope, where nothing records), so
    // that the saved old value keeps its history for double backward.
    const Derivative* d = find_derivative(name);
    if (d == nullptr || !(d->save_inputs & kSaveSelf)) return Tensor();
    detail::AutogradTLS& tls = detail::autograd_tls();
    const bool below = tls.below_autograd;
    tls.below_autograd = false;
    Tensor before;
    try {
      before = self.clone();
    } catch (...) {
      tls.below_autograd = below;
      throw;
    }
    tls.below_autograd = below;
    return before;
  }

  const Tensor& grad(const Tensor& self) override {
    static const Tensor kUndefined;
    AutogradMeta* m = get_meta(self);
    return m != nullptr ? m->grad_ : kUndefined;
  }
  Tensor& mutable_grad(const Tensor& self) override { return materialize_meta(self).grad_; }
  std::shared_ptr<Node> grad_fn(const Tensor& self) override {
    AutogradMeta* m = get_meta(self);
    if (m == nullptr) return nullptr;
    if (m->view_base_.defined() && m->view_version_ != self._version()) {
      remake_view_grad_fn(self, *m);
    }
    return m->grad_fn_;
  }
  bool is_leaf(const Tensor& self) override { return grad_fn(self) == nullptr; }
  int64_t output_nr(const Tensor& self) override {
    AutogradMeta* m = get_meta(self);
    return m != nullptr ? m->output_nr_ : 0;
  }
  void backward(const Tensor& self, const Tensor& gradient, std::optional<bool> retain_graph,
                bool create_graph) override {
    autograd::backward({self}, {gradient}, retain_graph, create_graph);
  }

  void retain_grad(const Tensor& self) override {
    EMBER_CHECK(self.requires_grad(),
                "can't retain_grad on Tensor that has requires_grad=False");
    AutogradMeta& m = materialize_meta(self);
    if (!m.grad_fn_ || m.retains_grad_) return;  // leaves keep their grad anyway
    std::weak_ptr<TensorImpl> weak = self.impl();
    m.retain_hook_id_ = m.grad_fn_->add_pre_hook(m.output_nr_, [weak](const Tensor& g) {
      std::shared_ptr<TensorImpl> impl = weak.lock();
      if (!impl) return Tensor();
      Tensor t(impl);
      AutogradMeta& meta = materialize_meta(t);
      if (!meta.grad_.defined()) {
        meta.grad_ = GradMode::is_enabled() ? g : g.detach().clone();
      } else {
        meta.grad_ = meta.grad_ + g;
      }
      return Tensor();
    });
    m.retains_grad_ = true;
  }
  bool retains_grad(const Tensor& self) override {
    AutogradMeta* m = get_meta(self);
    return m != nullptr && m->retains_grad_;
  }

  unsigned register_hook(const Tensor& self, std::function<Tensor(const Tensor&)> hook) override {
    EMBER_CHECK(self.requires_grad(),
                "cannot register a hook on a tensor that doesn't require gradient");
    AutogradMeta& m = materialize_meta(self);
    if (m.grad_fn_) return m.grad_fn_->add_pre_hook(m.output_nr_, std::move(hook));
    unsigned id = next_hook_id();
    m.hooks_.emplace_back(id, std::move(hook));
    return id;
  }
  void remove_hook(const Tensor& self, unsigned handle) override {
    AutogradMeta* m = get_meta(self);
    if (m == nullptr) return;
    if (m->grad_fn_ && m->grad_fn_->remove_pre_hook(handle)) return;
    for (auto it = m->hooks_.begin(); it != m->hooks_.end(); ++it) {
      if (it->first == handle) {
        m->hooks_.erase(it);
        return;
      }
    }
  }
};

AutogradHooksImpl& hooks_impl() {
  static AutogradHooksImpl hooks;
  return hooks;
}

const bool kInstalled = [] {
  set_autograd_hooks(&hooks_impl());
  return true;
}();

}  // namespace

void refresh_view_grad_fn(const Tensor& view, AutogradMeta& m) {
  hooks_impl().remake_view_grad_fn(view, m);
}

void check_inplace(const Tensor& self) {
  AutogradHooksImpl::check_inplace(self, /*values_change=*/true);
}

void rebase_history(const Tensor& self, const std::shared_ptr<Node>& fn, uint32_t output_nr,
                    size_t self_edge) {
  AutogradMeta& m = materialize_meta(self);
  if (m.view_base_.defined()) {
    EMBER_CHECK(output_nr == 0 && fn->num_inputs() == 1,
                "rebase_history: a view modified in place needs a node with one output");
    hooks_impl().rebase_view(self, m, fn, self_edge);
    return;
  }
  m.grad_fn_ = fn;
  m.output_nr_ = output_nr;
}

void backward(const variable_list& tensors, const variable_list& grad_tensors,
              std::optional<bool> retain_graph, bool create_graph) {
  EMBER_CHECK(grad_tensors.empty() || grad_tensors.size() == tensors.size(),
              "got ", grad_tensors.size(), " tensors and ", tensors.size(),
              " gradients");
  execute(tensors, grad_tensors, retain_graph.value_or(create_graph), create_graph, {},
          /*accumulate=*/true);
}

variable_list grad(const variable_list& outputs, const variable_list& inputs,
                   const variable_list& grad_outputs, std::optional<bool> retain_graph,
                   bool create_graph, bool allow_unused) {
  EMBER_CHECK(grad_outputs.empty() || grad_outputs.size() == outputs.size(),
              "grad requires one grad_output per output: got ", grad_outputs.size(),
              " grad_outputs and ", outputs.size(), " outputs");
  variable_list r = execute(outputs, grad_outputs, retain_graph.value_or(create_graph),
                            create_graph, inputs, /*accumulate=*/false);
  for (const Tensor& g : r) {
    EMBER_CHECK(g.defined() || allow_unused,
                "One of the differentiated Tensors appears to not have been used in the graph. "
                "Set allow_unused=True if this is the desired behavior.");
  }
  return r;
}

void queue_callback(std::function<void()> callback) {
  EMBER_CHECK(t_current_task != nullptr,
              "Final callbacks can only be installed during backward pass.");
  t_current_task->callbacks.push_back(std::move(callback));
}

}  // namespace autograd
}  // namespace ember
