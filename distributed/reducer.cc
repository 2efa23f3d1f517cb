#include "distributed/reducer.h"

#include <algorithm>
#include <limits>
#include <unordered_set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "autograd/engine.h"
#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "tensor/creation.h"
#include "tensor/error.h"

namespace ember::distributed {

BucketAssignment compute_bucket_assignment_by_size(const std::vector<Tensor>& tensors,
                                                   const std::vector<int64_t>& bucket_size_limits,
                                                   const std::vector<size_t>& tensor_indices) {
  EMBER_CHECK(!bucket_size_limits.empty(), "compute_bucket_assignment_by_size: no size limits");
  EMBER_CHECK(tensor_indices.empty() || tensor_indices.size() == tensors.size(),
              "compute_bucket_assignment_by_size: ", tensor_indices.size(),
              " tensor indices for ", tensors.size(), " tensors");
  // One open bucket per (dtype, device), in order of first appearance.
  struct Open {
    ScalarType dtype;
    Device device;
    std::vector<size_t> indices;
    int64_t bytes = 0;
    size_t limit = 0;  // into bucket_size_limits
  };
  std::vector<Open> open;
  BucketAssignment result;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    auto it = std::find_if(open.begin(), open.end(), [&](const Open& o) {
      return o.dtype == t.dtype() && o.device == t.device();
    });
    if (it == open.end()) it = open.insert(open.end(), Open{t.dtype(), t.device(), {}, 0, 0});
    it->indices.push_back(tensor_indices.empty() ? i : tensor_indices[i]);
    it->bytes += t.nbytes();
    const int64_t limit = bucket_size_limits[it->limit];
    if (it->bytes >= limit) {
      result.buckets.push_back(std::move(it->indices));
      result.size_limits.push_back(limit);
      it->indices.clear();
      it->bytes = 0;
      if (it->limit + 1 < bucket_size_limits.size()) ++it->limit;
    }
  }
  for (Open& o : open) {
    if (o.indices.empty()) continue;
    result.buckets.push_back(std::move(o.indices));
    result.size_limits.push_back(bucket_size_limits[o.limit]);
  }
  if (tensor_indices.empty()) {
    std::vector<size_t> order(result.buckets.size());
    for (size_t b = 0; b < order.size(); ++b) order[b] = b;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return *std::min_element(result.buckets[a].begin(), result.buckets[a].end()) <
             *std::min_element(result.buckets[b].begin(), result.buckets[b].end());
    });
    BucketAssignment sorted;
    for (size_t b : order) {
      sorted.buckets.push_back(std::move(result.buckets[b]));
      sorted.size_limits.push_back(result.size_limits[b]);
    }
    return sorted;
  }
  return result;
}

std::vector<Tensor> GradBucket::gradients() const {
  std::vector<Tensor> out;
  for (size_t i = 0; i < parameters_.size(); ++i) {
    out.push_back(
        buffer_.narrow(0, offsets_[i], parameters_[i].numel()).view(parameters_[i].sizes()));
  }
  return out;
}

Reducer::Reducer(std::vector<Tensor> params, std::vector<std::string> names,
                 std::shared_ptr<ProcessGroup> pg, Options options)
    : params_(std::move(params)), names_(std::move(names)), pg_(std::move(pg)),
      options_(options) {
  EMBER_CHECK(names_.size() == params_.size(), "Reducer: ", names_.size(), " names for ",
              params_.size(), " parameters");
  // The first iteration: without find_unused_parameters one bucket per
  // dtype until the rebuild; with it, PyTorch's fixed sizes for good.
  std::vector<int64_t> limits{std::numeric_limits<int64_t>::max()};
  if (options_.find_unused_parameters) {
    limits = {options_.first_bucket_bytes, options_.bucket_bytes_cap};
  }
  std::vector<std::vector<size_t>> assignment =
      compute_bucket_assignment_by_size(params_, limits).buckets;
  std::reverse(assignment.begin(), assignment.end());
  build_buckets(assignment);
  ready_.assign(params_.size(), 0);
  locally_used_.assign(params_.size(), 0);
  for (size_t i = 0; i < params_.size(); ++i) {
    hook_handles_.push_back(autograd::register_post_accumulate_grad_hook(
        params_[i], [this, i](Tensor&) { autograd_hook(i); }));
  }
}

Reducer::~Reducer() {
  for (size_t i = 0; i < params_.size(); ++i) {
    autograd::remove_post_accumulate_grad_hook(params_[i], hook_handles_[i]);
  }
  wait_for_leftover_work();
}

void Reducer::wait_for_leftover_work() {
  // All-reduces of a backward pass that failed part way are still reading
  // and writing their buckets: let them end before the buckets are reused.
  // Their errors were (or will never be) reported by that pass.
  for (Bucket& b : buckets_) {
    if (!b.future.valid()) continue;
    try {
      if (b.future.work()) b.future.work()->wait();
    } catch (...) {
    }
    b.future = BucketFuture();
  }
}

void Reducer::build_buckets(const std::vector<std::vector<size_t>>& assignment) {
  wait_for_leftover_work();
  NoGradGuard no_grad;
  std::vector<Bucket> buckets(assignment.size());
  bucket_of_.assign(params_.size(), 0);
  slot_of_.assign(params_.size(), 0);
  for (size_t b = 0; b < assignment.size(); ++b) {
    Bucket& bucket = buckets[b];
    int64_t numel = 0;
    for (size_t p : assignment[b]) {
      EMBER_CHECK(p < params_.size(), "Reducer: bucket names parameter ", p, " of ",
                  params_.size());
      bucket_of_[p] = b;
      slot_of_[p] = bucket.params.size();
      bucket.params.push_back(p);
      bucket.offsets.push_back(numel);
      numel += params_[p].numel();
    }
    const Tensor& first = params_[assignment[b].front()];
    bucket.buffer = zeros({numel}, TensorOptions().dtype(first.dtype()).device(first.device()));
  }
  buckets_ = std::move(buckets);
  if (options_.gradient_as_bucket_view) {
    // Existing gradients move into their new places (a rebuild moves them
    // out of the old buckets, which die here).
    for (size_t p = 0; p < params_.size(); ++p) {
      Tensor& grad = params_[p].mutable_grad();
      if (!grad.defined()) continue;
      Tensor view = bucket_view(p);
      view.copy_(grad.reshape({-1}));
      grad = view.view(params_[p].sizes());
    }
  }
}

Tensor Reducer::bucket_view(size_t param) const {
  const Bucket& b = buckets_[bucket_of_[param]];
  return b.buffer.narrow(0, b.offsets[slot_of_[param]], params_[param].numel());
}

std::vector<std::vector<size_t>> Reducer::bucket_indices() const {
  std::vector<std::vector<size_t>> out;
  for (const Bucket& b : buckets_) out.push_back(b.params);
  return out;
}

bool Reducer::rebuild_buckets() {
  if (has_rebuilt_buckets_ || options_.find_unused_parameters) return false;
  if (ready_order_.size() != params_.size()) {  // no complete synchronized backward yet
    ready_order_.clear();
    return false;
  }
  std::vector<Tensor> ordered;
  for (size_t p : ready_order_) ordered.push_back(params_[p]);
  BucketAssignment mine = compute_bucket_assignment_by_size(
      ordered, {options_.first_bucket_bytes, options_.bucket_bytes_cap}, ready_order_);
  // Rank 0's assignment for every rank: [buckets, size of each, indices...].
  const int64_t n = static_cast<int64_t>(params_.size());
  Tensor wire = zeros({1 + 2 * n}, kLong);
  int64_t* w = wire.data_ptr<int64_t>();
  w[0] = static_cast<int64_t>(mine.buckets.size());
  int64_t at = 1 + n;
  for (size_t b = 0; b < mine.buckets.size(); ++b) {
    w[1 + b] = static_cast<int64_t>(mine.buckets[b].size());
    for (size_t p : mine.buckets[b]) w[at++] = static_cast<int64_t>(p);
  }
  // Through the parameters' device: NCCL carries CUDA tensors only.
  std::vector<Tensor> t{wire.to(params_[0].device())};
  pg_->broadcast(t, BroadcastOptions{0})->wait();
  wire.copy_(t[0].cpu());
  std::vector<std::vector<size_t>> agreed(static_cast<size_t>(w[0]));
  at = 1 + n;
  int64_t total = 0;
  for (size_t b = 0; b < agreed.size(); ++b) {
    for (int64_t k = 0; k < w[1 + b]; ++k) agreed[b].push_back(static_cast<size_t>(w[at++]));
    total += w[1 + b];
  }
  EMBER_CHECK(total == n, "DistributedDataParallel: rank 0's rebuilt buckets hold ", total,
              " parameters, this rank has ", n);
  build_buckets(agreed);
  has_rebuilt_buckets_ = true;
  ready_order_.clear();
  return true;
}

std::vector<size_t> Reducer::unused_parameters(const std::vector<Tensor>& outputs) const {
  // Every leaf whose AccumulateGrad the outputs' graph reaches is used.
  std::unordered_set<const TensorImpl*> reached;
  std::unordered_set<const autograd::Node*> seen;
  std::vector<std::shared_ptr<autograd::Node>> stack;
  for (const Tensor& out : outputs) {
    if (!out.defined() || !out.requires_grad()) continue;
    autograd::Edge e = autograd::gradient_edge(out);
    if (e.is_valid()) stack.push_back(e.function);
  }
  while (!stack.empty()) {
    std::shared_ptr<autograd::Node> node = std::move(stack.back());
    stack.pop_back();
    if (!seen.insert(node.get()).second) continue;
    if (auto* acc = dynamic_cast<autograd::AccumulateGrad*>(node.get())) {
      reached.insert(acc->variable().unsafeGetTensorImpl());
    }
    for (const autograd::Edge& e : node->next_edges()) {
      if (e.is_valid()) stack.push_back(e.function);
    }
  }
  std::vector<size_t> unused;
  for (size_t p = 0; p < params_.size(); ++p) {
    if (reached.count(params_[p].unsafeGetTensorImpl()) == 0) unused.push_back(p);
  }
  return unused;
}

void Reducer::prepare_for_backward(const std::vector<Tensor>& outputs) {
  expect_autograd_hooks_ = true;
  first_hook_seen_ = false;
  std::fill(ready_.begin(), ready_.end(), 0);
  next_bucket_ = 0;
  wait_for_leftover_work();
  for (Bucket& b : buckets_) b.pending = b.params.size();
  unused_.clear();
  if (options_.find_unused_parameters) unused_ = unused_parameters(outputs);
}

void Reducer::autograd_hook(size_t param) {
  // A gradient accumulated outside a synchronized iteration (no_sync) still
  // counts as used when the next synchronized one reduces it.
  if (options_.find_unused_parameters) locally_used_[param] = 1;
  if (!expect_autograd_hooks_) return;
  if (!first_hook_seen_) {
    first_hook_seen_ = true;
    autograd::queue_callback([this] { finalize_backward(); });
    for (size_t p : unused_) mark_variable_ready(p);
  }
  mark_variable_ready(param);
}

void Reducer::mark_variable_ready(size_t param) {
  EMBER_CHECK(!ready_[param],
              "Expected to mark a variable ready only once. This error is caused by one of "
              "the following reasons: 1) Use of a module parameter outside the `forward` "
              "function. 2) Reused parameters in multiple reentrant backward passes. "
              "Parameter at index ", param, " with name ", names_[param],
              " has been marked as ready twice. This means that multiple autograd engine "
              "hooks have fired for this particular parameter during this iteration.");
  ready_[param] = 1;
  if (!has_rebuilt_buckets_ && !options_.find_unused_parameters) ready_order_.push_back(param);
  NoGradGuard no_grad;
  Tensor view = bucket_view(param);
  Tensor& grad = params_[param].mutable_grad();
  // Without a hook the average is taken here, in the pass that copies
  // (PyTorch's too); a hook gets the local sums and averages itself.
  const bool divide = !comm_hook_ && pg_->size() > 1;
  const double scale = 1.0 / pg_->size();
  if (!grad.defined()) {
    view.zero_();
  } else if (options_.gradient_as_bucket_view) {
    if (grad.data_ptr() != view.data_ptr()) {
      view.copy_(grad.reshape({-1}));
      grad = view.view(params_[param].sizes());
    }
    if (divide) view.mul_(scale);
  } else {
    view.copy_(grad.reshape({-1}));
    if (divide) view.mul_(scale);
  }
  Bucket& b = buckets_[bucket_of_[param]];
  if (--b.pending == 0) issue_ready_buckets();
}

void Reducer::issue_ready_buckets() {
  // In bucket order, so that every rank issues the same all-reduces in the
  // same sequence whatever order its gradients arrived in.
  while (next_bucket_ < buckets_.size() && buckets_[next_bucket_].pending == 0) {
    const size_t index = next_bucket_++;
    Bucket& b = buckets_[index];
    if (comm_hook_) {
      std::vector<Tensor> params;
      for (size_t p : b.params) params.push_back(params_[p]);
      GradBucket gb(index, index + 1 == buckets_.size(), b.buffer, std::move(params), b.offsets);
      b.future = comm_hook_(gb);
      EMBER_CHECK(b.future.valid(), "DistributedDataParallel: the comm hook returned no future");
    } else {
      std::vector<Tensor> t{b.buffer};
      Tensor buffer = b.buffer;
      b.future = BucketFuture(pg_->allreduce(t, AllreduceOptions{ReduceOp::SUM}),
                              [buffer] { return buffer; });
    }
  }
}

void Reducer::register_comm_hook(CommHook hook) {
  EMBER_CHECK(hook != nullptr, "register_comm_hook: the hook is empty");
  EMBER_CHECK(!comm_hook_,
              "register_comm_hook or register_builtin_comm_hook can only be called once.");
  comm_hook_ = std::move(hook);
}

std::string Reducer::unready_parameters() const {
  std::string out;
  for (size_t p = 0; p < params_.size(); ++p) {
    if (ready_[p]) continue;
    absl::StrAppend(&out, out.empty() ? "" : ", ", p, " (", names_[p], ")");
  }
  return out;
}

void Reducer::finalize_backward() {
  expect_autograd_hooks_ = false;
  EMBER_CHECK(next_bucket_ == buckets_.size(),
              "DistributedDataParallel: backward ended before every gradient bucket was "
              "reduced. Your module has parameters that were not used in producing the loss; "
              "they received no gradient on rank ", pg_->rank(), ": ", unready_parameters(),
              ". Enable unused parameter detection with find_unused_parameters(true), and make "
              "sure all outputs of forward take part in computing the loss.");
  std::vector<int64_t> used;
  if (options_.find_unused_parameters) {
    std::vector<Tensor> t{tensor(locally_used_).to(params_[0].device())};
    pg_->allreduce(t, AllreduceOptions{ReduceOp::SUM})->wait();
    Tensor map = t[0].cpu();
    used.assign(map.data_ptr<int64_t>(), map.data_ptr<int64_t>() + map.numel());
    std::fill(locally_used_.begin(), locally_used_.end(), 0);
  }
  NoGradGuard no_grad;
  for (Bucket& b : buckets_) {
    Tensor result = b.future.wait();
    b.future = BucketFuture();
    if (result.data_ptr() != b.buffer.data_ptr()) {
      EMBER_CHECK(result.numel() == b.buffer.numel(),
                  "DistributedDataParallel: the comm hook's result has ", result.numel(),
                  " elements, its bucket ", b.buffer.numel());
      b.buffer.copy_(result.reshape({-1}));
    }
    for (size_t p : b.params) {
      if (!used.empty() && used[p] == 0) continue;  // unused everywhere: .grad untouched
      Tensor view = bucket_view(p).view(params_[p].sizes());
      Tensor& grad = params_[p].mutable_grad();
      if (options_.gradient_as_bucket_view) {
        if (!grad.defined() || grad.data_ptr() != view.data_ptr()) grad = view;
      } else if (!grad.defined()) {
        grad = view.clone();
      } else {
        grad.copy_(view);
      }
    }
  }
}

}  // namespace ember::distributed
