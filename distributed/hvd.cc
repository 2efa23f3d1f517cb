#include "distributed/hvd.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "distributed/collectives.h"
#include "distributed/tcp_store.h"
#include "tensor/all.h"

namespace ember::hvd {

namespace dist = ember::distributed;

namespace {

struct State {
  std::mutex mu;
  bool initialized = false;
  bool own_group = false;  // init() made the process group
  int local_rank = 0, local_size = 1, cross_rank = 0, cross_size = 1;
  // The DistributedOptimizers alive, oldest first (join() serves them).
  std::vector<DistributedOptimizer*> optimizers;
};

State& state() {
  static State* s = new State;
  return *s;
}

void check_initialized(const char* what) {
  EMBER_CHECK(state().initialized, "hvd::", what,
              ": Horovod has not been initialized; use hvd::init().");
}

// The first of `names` that is set, as an integer.
std::optional<int> env_int(std::initializer_list<const char*> names) {
  for (const char* n : names) {
    const char* v = std::getenv(n);
    int x;
    if (v != nullptr && absl::SimpleAtoi(v, &x)) return x;
  }
  return std::nullopt;
}

dist::ReduceOp checked(ReduceOp op) {
  EMBER_CHECK_VALUE(op != ReduceOp::Adasum,
                    "hvd: Adasum is not supported by ember (use hvd::Average or hvd::Sum)");
  return dist::ReduceOp::SUM;
}

bool compressible(const Tensor& t, Compression c) {
  return c == Compression::fp16 && t.is_floating_point() && t.dtype() != kHalf;
}

// This host's name, padded into a fixed-size byte tensor for an all-gather.
constexpr int64_t kHostBytes = 256;
Tensor host_tensor() {
  char buf[kHostBytes] = {};
  ::gethostname(buf, kHostBytes - 1);
  Tensor t = zeros({kHostBytes}, kByte);
  std::memcpy(t.data_ptr<uint8_t>(), buf, kHostBytes);
  return t;
}

void set_local_topology() {
  State& s = state();
  const int world = dist::get_world_size(), me = dist::get_rank();
  std::vector<Tensor> hosts;
  for (int r = 0; r < world; ++r) hosts.push_back(zeros({kHostBytes}, kByte));
  dist::all_gather(hosts, host_tensor());
  std::vector<std::string> names;
  for (const Tensor& h : hosts) names.emplace_back(reinterpret_cast<const char*>(h.data_ptr<uint8_t>()));
  std::vector<std::string> distinct;
  for (const auto& n : names) {
    if (std::find(distinct.begin(), distinct.end(), n) == distinct.end()) distinct.push_back(n);
  }
  int local = 0, local_size = 0;
  for (int r = 0; r < world; ++r) {
    if (names[r] != names[me]) continue;
    ++local_size;
    if (r < me) ++local;
  }
  s.local_rank = env_int({"LOCAL_RANK", "HOROVOD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK"})
                     .value_or(local);
  s.local_size = env_int({"LOCAL_WORLD_SIZE", "HOROVOD_LOCAL_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE"})
                     .value_or(local_size);
  s.cross_size = static_cast<int>(distinct.size());
  s.cross_rank = static_cast<int>(std::find(distinct.begin(), distinct.end(), names[me]) -
                                  distinct.begin());
}

// A dense tensor that shares t's storage when it can.
Tensor dense(const Tensor& t) { return t.is_contiguous() ? t : t.contiguous(); }

}  // namespace

// ---- init and topology ----------------------------------------------------------

void init(const dist::Backend& backend) {
  State& s = state();
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.initialized) return;
  }
  if (!dist::is_initialized()) {
    dist::RendezvousResult rv =
        dist::launcher_rendezvous("hvd::init", {{"HOROVOD_RANK", "HOROVOD_SIZE"}});
    dist::InitOptions o;
    o.store = std::move(rv.store);
    o.rank = rv.rank;
    o.world_size = rv.world_size;
    dist::init_process_group(backend, o);
    s.own_group = true;
  }
  set_local_topology();
  std::lock_guard<std::mutex> lock(s.mu);
  s.initialized = true;
}

bool is_initialized() { return state().initialized; }

void shutdown() {
  State& s = state();
  if (!s.initialized) return;
  if (s.own_group && dist::is_initialized()) dist::destroy_process_group();
  s.initialized = false;
  s.own_group = false;
}

int rank() {
  check_initialized("rank");
  return dist::get_rank();
}
int size() {
  check_initialized("size");
  return dist::get_world_size();
}
int local_rank() {
  check_initialized("local_rank");
  return state().local_rank;
}
int local_size() {
  check_initialized("local_size");
  return state().local_size;
}
int cross_rank() {
  check_initialized("cross_rank");
  return state().cross_rank;
}
int cross_size() {
  check_initialized("cross_size");
  return state().cross_size;
}

// ---- tensor collectives ----------------------------------------------------------

void allreduce_(Tensor& tensor, ReduceOp op, Compression compression) {
  check_initialized("allreduce_");
  checked(op);
  NoGradGuard no_grad;
  const bool compress = compressible(tensor, compression);
  Tensor buf = compress ? tensor.to(kHalf) : dense(tensor);
  dist::all_reduce(buf, dist::ReduceOp::SUM);
  if (compress) buf = buf.to(tensor.dtype());
  if (op == Average) buf = tensor.is_floating_point() ? buf / size() : buf.div(size(), "floor");
  if (!buf.is_same(tensor)) tensor.copy_(buf);
}

Tensor allreduce(const Tensor& tensor, ReduceOp op, Compression compression) {
  Tensor out = tensor.detach().clone();
  allreduce_(out, op, compression);
  return out;
}

Tensor allgather(const Tensor& tensor) {
  check_initialized("allgather");
  NoGradGuard no_grad;
  EMBER_CHECK_VALUE(tensor.dim() >= 1, "hvd::allgather: the tensor needs a first dimension");
  const int n = size();
  // First dimensions first: they may differ; the rest must not.
  Tensor shape = empty({tensor.dim()}, kLong);
  std::copy(tensor.sizes().begin(), tensor.sizes().end(), shape.data_ptr<int64_t>());
  Tensor ndim = full({1}, static_cast<int64_t>(tensor.dim()), kLong);
  std::vector<Tensor> ndims(n);
  for (auto& t : ndims) t = zeros({1}, kLong);
  dist::all_gather(ndims, ndim);
  for (int r = 0; r < n; ++r) {
    EMBER_CHECK_VALUE(ndims[r].item<int64_t>() == tensor.dim(), "hvd::allgather: rank ", r,
                      " has a ", ndims[r].item<int64_t>(), "-D tensor, rank ", rank(), " a ",
                      tensor.dim(), "-D one");
  }
  std::vector<Tensor> shapes(n);
  for (auto& t : shapes) t = zeros({tensor.dim()}, kLong);
  dist::all_gather(shapes, shape);
  int64_t longest = 0;
  for (int r = 0; r < n; ++r) {
    for (int64_t d = 1; d < tensor.dim(); ++d) {
      EMBER_CHECK_VALUE(shapes[r][d].item<int64_t>() == tensor.size(d),
                        "hvd::allgather: rank ", r, "'s tensor differs from rank ", rank(),
                        "'s in dimension ", d, " (", shapes[r][d].item<int64_t>(), " vs ",
                        tensor.size(d), "); only the first dimension may differ");
    }
    longest = std::max(longest, shapes[r][0].item<int64_t>());
  }
  std::vector<int64_t> padded_shape(tensor.sizes().begin(), tensor.sizes().end());
  padded_shape[0] = longest;
  Tensor mine = zeros(padded_shape, tensor.options());
  if (tensor.size(0) > 0) mine.narrow(0, 0, tensor.size(0)).copy_(tensor);
  std::vector<Tensor> parts(n);
  for (auto& t : parts) t = empty(padded_shape, tensor.options());
  dist::all_gather(parts, mine);
  std::vector<Tensor> pieces;
  for (int r = 0; r < n; ++r) pieces.push_back(parts[r].narrow(0, 0, shapes[r][0].item<int64_t>()));
  return cat(pieces, 0);
}

void broadcast_(Tensor& tensor, int root_rank) {
  check_initialized("broadcast_");
  EMBER_CHECK_VALUE(root_rank >= 0 && root_rank < size(), "hvd::broadcast: root_rank ",
                    root_rank, " is not a rank of ", size());
  NoGradGuard no_grad;
  Tensor buf = dense(tensor);
  dist::broadcast(buf, root_rank);
  if (!buf.is_same(tensor)) tensor.copy_(buf);
}

Tensor broadcast(const Tensor& tensor, int root_rank) {
  Tensor out = tensor.detach().clone();
  broadcast_(out, root_rank);
  return out;
}

void broadcast_parameters(const NamedTensors& params, int root_rank) {
  std::vector<std::pair<std::string, Tensor>> sorted(params.begin(), params.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& kv : sorted) broadcast_(kv.second, root_rank);
}

void broadcast_parameters(const std::vector<Tensor>& params, int root_rank) {
  for (Tensor t : params) broadcast_(t, root_rank);
}

void broadcast_optimizer_state(optim::Optimizer& optimizer, int root_rank) {
  check_initialized("broadcast_optimizer_state");
  // root_rank describes its flat state (Note [Optimizer state keys]): one
  // line per entry, "key dtype d0,d1,...", so that a rank whose optimizer has
  // not stepped yet can receive state it does not hold.
  const bool root = rank() == root_rank;
  NamedTensors mine;
  std::string spec;
  if (root) {
    mine = optimizer.state_dict().to_named_tensors();
    for (auto& kv : mine) {
      kv.second = kv.second.to(Device(kCPU)).contiguous();
      absl::StrAppend(&spec, kv.first, " ", static_cast<int>(kv.second.dtype()), " ",
                      absl::StrJoin(kv.second.sizes(), ","), "\n");
    }
  }
  Tensor length = full({1}, static_cast<int64_t>(spec.size()), kLong);
  broadcast_(length, root_rank);
  Tensor bytes = zeros({length.item<int64_t>()}, kByte);
  if (root && !spec.empty()) std::memcpy(bytes.data_ptr<uint8_t>(), spec.data(), spec.size());
  broadcast_(bytes, root_rank);
  if (!root) {
    spec.assign(reinterpret_cast<const char*>(bytes.data_ptr<uint8_t>()), bytes.numel());
    for (absl::string_view line : absl::StrSplit(spec, '\n', absl::SkipEmpty())) {
      std::vector<std::string> f = absl::StrSplit(line, ' ');
      EMBER_CHECK(f.size() == 3, "hvd::broadcast_optimizer_state: malformed state description");
      int dtype = 0;
      std::vector<int64_t> shape;
      EMBER_CHECK(absl::SimpleAtoi(f[1], &dtype), "hvd: malformed dtype");
      for (absl::string_view d : absl::StrSplit(f[2], ',', absl::SkipEmpty())) {
        int64_t x;
        EMBER_CHECK(absl::SimpleAtoi(d, &x), "hvd: malformed shape");
        shape.push_back(x);
      }
      mine.emplace_back(f[0], empty(shape, static_cast<ScalarType>(dtype)));
    }
  }
  for (auto& kv : mine) broadcast_(kv.second, root_rank);
  if (!root) optimizer.load_state_dict(optim::OptimizerStateDict::from_named_tensors(mine));
}

// ---- DistributedOptimizer -----------------------------------------------------------

struct DistributedOptimizer::Slot {
  Tensor param;
  std::string name;
  unsigned hook = 0;
  int delay = 0;   // backward passes left before the all-reduce
  bool ready = false;
  Tensor buffer;   // what travels (compressed, or .grad itself)
  std::shared_ptr<dist::Work> work;
};

DistributedOptimizer::DistributedOptimizer(optim::Optimizer& optimizer,
                                           const NamedTensors& named_parameters,
                                           Compression compression, int backward_passes_per_step,
                                           ReduceOp op, double gradient_predivide_factor)
    : optimizer_(optimizer),
      compression_(compression),
      passes_(backward_passes_per_step),
      op_(op),
      predivide_(gradient_predivide_factor) {
  check_initialized("DistributedOptimizer");
  checked(op);
  EMBER_CHECK_VALUE(backward_passes_per_step >= 1,
                    "backward_passes_per_step must be at least 1, got ", backward_passes_per_step);
  EMBER_CHECK_VALUE(gradient_predivide_factor > 0, "gradient_predivide_factor must be positive");
  EMBER_CHECK_VALUE(op == Average || gradient_predivide_factor == 1.0,
                    "gradient_predivide_factor not supported with op != Average");
  // Horovod's checks of named_parameters.
  std::map<const TensorImpl*, std::string> names;
  std::set<std::string> seen;
  for (const auto& kv : named_parameters) {
    EMBER_CHECK_VALUE(seen.insert(kv.first).second,
                      "Parameter names in named_parameters must be unique. Found duplicates: ",
                      kv.first);
    names[kv.second.unsafeGetTensorImpl()] = kv.first;
  }
  std::vector<Tensor> params = optimizer.parameters();
  if (!named_parameters.empty()) {
    std::vector<std::string> unnamed;
    for (size_t i = 0; i < params.size(); ++i) {
      if (!names.count(params[i].unsafeGetTensorImpl())) unnamed.push_back(std::to_string(i));
    }
    EMBER_CHECK_VALUE(unnamed.empty(),
                      "named_parameters was specified, but one or more model parameters were "
                      "not named (optimizer parameters ",
                      absl::StrJoin(unnamed, ", "), ")");
  }
  // Note [Horovod over process groups]: one fixed issue order on every rank.
  std::reverse(params.begin(), params.end());
  slots_.resize(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    Slot& s = slots_[i];
    s.param = params[i];
    auto it = names.find(params[i].unsafeGetTensorImpl());
    s.name = it != names.end() ? it->second
                               : absl::StrCat("allreduce.noname.", params.size() - 1 - i);
    s.delay = passes_;
    if (s.param.requires_grad()) {
      s.hook = autograd::register_post_accumulate_grad_hook(s.param,
                                                            [this, i](Tensor&) { on_gradient(i); });
    }
  }
  std::lock_guard<std::mutex> lock(state().mu);
  state().optimizers.push_back(this);
}

DistributedOptimizer::~DistributedOptimizer() {
  for (Slot& s : slots_) {
    if (s.param.requires_grad()) autograd::remove_post_accumulate_grad_hook(s.param, s.hook);
    if (s.work) {
      try {
        s.work->wait();
      } catch (const std::exception&) {
      }
    }
  }
  std::lock_guard<std::mutex> lock(state().mu);
  auto& v = state().optimizers;
  v.erase(std::remove(v.begin(), v.end(), this), v.end());
}

void DistributedOptimizer::on_gradient(size_t i) {
  Slot& s = slots_[i];
  EMBER_CHECK(s.delay > 0,
              "Gradients were computed more than backward_passes_per_step times before call to "
              "step(). Increase backward_passes_per_step to accumulate gradients locally.");
  if (--s.delay == 0) {
    s.ready = true;
    issue_ready();
  }
}

void DistributedOptimizer::issue_ready() {
  while (next_ < slots_.size() && slots_[next_].ready) issue(next_++);
}

void DistributedOptimizer::issue(size_t i) {
  NoGradGuard no_grad;
  Slot& s = slots_[i];
  Tensor& grad = s.param.mutable_grad();
  if (!grad.defined()) grad = zeros_like(s.param);  // every rank sends something
  const bool compress = compressible(grad, compression_);
  s.buffer = compress ? grad.to(kHalf) : dense(grad);
  if (op_ == Average && predivide_ != 1.0) s.buffer.div_(predivide_);
  std::vector<Tensor> v{s.buffer};
  s.work = dist::get_default_group()->allreduce(v);
}

std::vector<int64_t> internal::count_ranks_training(bool training, bool just_joined) {
  const int n = size();
  Tensor flags = zeros({n + 1}, kLong);
  flags[0].fill_(training ? 1 : 0);
  if (just_joined) flags[rank() + 1].fill_(1);
  dist::all_reduce(flags, dist::ReduceOp::SUM);
  const int64_t* p = flags.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + n + 1);
}

void DistributedOptimizer::synchronize() {
  // What backward did not issue (parameters without a gradient, or behind
  // one in the order), in order.
  for (Slot& s : slots_) s.ready = true;
  issue_ready();
  for (Slot& s : slots_) {
    if (s.work) s.work->wait();
  }
  // Note [Horovod over process groups]: the ranks still training, for
  // join() and for the average.
  const int64_t training = internal::count_ranks_training(true, false)[0];
  NoGradGuard no_grad;
  for (Slot& s : slots_) {
    Tensor& grad = s.param.mutable_grad();
    Tensor out = s.buffer.dtype() == grad.dtype() ? s.buffer : s.buffer.to(grad.dtype());
    if (op_ == Average) {
      const double scale = predivide_ / static_cast<double>(training);
      if (scale != 1.0) out = out.is_floating_point() ? out * scale : out.div(training, "floor");
    }
    if (!out.is_same(grad)) grad.copy_(out);
    s.work.reset();
    s.buffer = Tensor();
    s.ready = false;
    s.delay = passes_;
  }
  next_ = 0;
  synchronized_ = true;
}

void DistributedOptimizer::contribute_zeros() {
  NoGradGuard no_grad;
  for (Slot& s : slots_) {
    Tensor z = zeros_like(s.param, compressible(s.param, compression_)
                                       ? TensorOptions(kHalf)
                                       : TensorOptions(s.param.dtype()));
    std::vector<Tensor> v{z};
    dist::get_default_group()->allreduce(v)->wait();
  }
}

Tensor DistributedOptimizer::step(const optim::Optimizer::LossClosure& closure) {
  if (!skip_) {
    if (synchronized_) {
      // Horovod's warning: the gradients are all-reduced a second time.
      std::cerr << "UserWarning: optimizer.step() called without "
                   "optimizer.skip_synchronize() context after optimizer.synchronize(). This "
                   "can cause training slowdown. You may want to consider using "
                   "optimizer.skip_synchronize() context if you use optimizer.synchronize() in "
                   "your code.\n";
    }
    synchronize();
  }
  synchronized_ = false;
  return optimizer_.step(closure);
}

void DistributedOptimizer::zero_grad(bool set_to_none) {
  const bool outstanding = std::any_of(slots_.begin(), slots_.end(),
                                       [](const Slot& s) { return s.work != nullptr; });
  EMBER_CHECK(!outstanding,
              "optimizer.zero_grad() was called after loss.backward() but before "
              "optimizer.step() or optimizer.synchronize(). This is prohibited as it can cause "
              "a race condition.");
  optimizer_.zero_grad(set_to_none);
}

// ---- join -------------------------------------------------------------------------------

int join() {
  check_initialized("join");
  std::vector<DistributedOptimizer*> opts;
  {
    std::lock_guard<std::mutex> lock(state().mu);
    opts = state().optimizers;
  }
  // Each round is one step of the ranks still training: their gradients'
  // all-reduces (zeros from here), then the count. A program without a
  // DistributedOptimizer only counts.
  bool first = true;
  int last = rank();
  for (;;) {
    // A training step synchronizes each optimizer in turn: its gradients,
    // then its count.
    std::vector<int64_t> counts;
    if (opts.empty()) {
      counts = internal::count_ranks_training(false, first);
    } else {
      for (DistributedOptimizer* o : opts) {
        o->contribute_zeros();
        counts = internal::count_ranks_training(false, first);
      }
    }
    first = false;
    if (counts[0] == 0) {
      for (int r = size() - 1; r >= 0; --r) {
        if (counts[r + 1] != 0) {
          last = r;
          break;
        }
      }
      return last;
    }
  }
}

}  // namespace ember::hvd
