#include "distributed/ddp.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "autograd/grad_mode.h"
#include "tensor/creation.h"
#include "tensor/error.h"
#include "tensor/shape.h"

namespace ember::distributed {
namespace {

// PyTorch's broadcast_bucket_size for module states: 250 MiB.
constexpr int64_t kBroadcastBucketBytes = int64_t{250} << 20;

// Broadcasts `tensors` from rank `src`, packing runs of one dtype into
// flat buffers of up to kBroadcastBucketBytes (PyTorch's
// _broadcast_coalesced), so that a model costs a few broadcasts.
void broadcast_coalesced(ProcessGroup& pg, const std::vector<Tensor>& tensors, int src) {
  NoGradGuard no_grad;
  size_t i = 0;
  while (i < tensors.size()) {
    size_t j = i;
    int64_t bytes = 0;
    while (j < tensors.size() && tensors[j].dtype() == tensors[i].dtype() &&
           tensors[j].device() == tensors[i].device() &&
           (j == i || bytes + tensors[j].nbytes() <= kBroadcastBucketBytes)) {
      bytes += tensors[j].nbytes();
      ++j;
    }
    std::vector<Tensor> flat;
    for (size_t k = i; k < j; ++k) flat.push_back(tensors[k].reshape({-1}));
    std::vector<Tensor> buffer{cat(flat)};
    pg.broadcast(buffer, BroadcastOptions{src})->wait();
    int64_t offset = 0;
    for (size_t k = i; k < j; ++k) {
      Tensor t = tensors[k];
      t.copy_(buffer[0].narrow(0, offset, t.numel()).view(t.sizes()));
      offset += t.numel();
    }
    i = j;
  }
}

// PyTorch's _verify_param_shape_across_processes: every rank must hold the
// same parameters, or training would silently mix different models. Each
// rank describes its parameters as int64s ([count, then dtype, ndim and
// sizes of each]); the descriptions are all-gathered, so every rank sees
// the same mismatch and fails with the same error.
void verify_params_across_processes(ProcessGroup& pg, const std::vector<Tensor>& params,
                                    const std::vector<std::string>& names) {
  std::vector<int64_t> desc{static_cast<int64_t>(params.size())};
  for (const Tensor& p : params) {
    desc.push_back(static_cast<int64_t>(p.dtype()));
    desc.push_back(p.dim());
    for (int64_t s : p.sizes()) desc.push_back(s);
  }
  const int n = pg.size();
  // On the parameters' device (NCCL carries CUDA tensors only; DDP has
  // checked there is a parameter), read back on the host.
  const Device device = params[0].device();
  auto gather = [&](const Tensor& host) {
    Tensor mine = host.to(device);
    std::vector<std::vector<Tensor>> outs(1);
    for (int r = 0; r < n; ++r) outs[0].push_back(empty_like(mine));
    std::vector<Tensor> in{mine};
    pg.allgather(outs, in)->wait();
    for (Tensor& t : outs[0]) t = t.cpu();
    return outs[0];
  };
  // First each rank's parameter count and description length, then the
  // descriptions themselves, padded to the longest.
  std::vector<Tensor> heads = gather(tensor({desc[0], static_cast<int64_t>(desc.size())}));
  const int64_t c0 = heads[0][0].item<int64_t>();
  int64_t longest = 0;
  for (int r = 0; r < n; ++r) {
    const int64_t cr = heads[r][0].item<int64_t>();
    EMBER_CHECK(c0 == cr, "DDP expects same model across all ranks, but Rank ", r, " has ", cr,
                " params, while rank 0 has inconsistent ", c0, " params.");
    longest = std::max(longest, heads[r][1].item<int64_t>());
  }
  Tensor padded = full({longest}, -1, kLong);
  padded.narrow(0, 0, static_cast<int64_t>(desc.size())).copy_(tensor(desc));
  std::vector<Tensor> all = gather(padded);
  for (int r = 1; r < n; ++r) {
    const int64_t* a = all[0].data_ptr<int64_t>();
    const int64_t* b = all[r].data_ptr<int64_t>();
    int64_t at = 1;
    for (size_t i = 0; i < params.size(); ++i) {
      const int64_t ndim_a = a[at + 1], ndim_b = b[at + 1];
      bool same = a[at] == b[at] && ndim_a == ndim_b;
      for (int64_t d = 0; same && d < ndim_a; ++d) same = a[at + 2 + d] == b[at + 2 + d];
      if (!same) {
        auto describe = [](const int64_t* x) {
          std::vector<int64_t> sizes(x + 2, x + 2 + x[1]);
          return absl::StrCat("shape [", absl::StrJoin(sizes, ", "), "] and dtype ",
                              dtype_name(static_cast<ScalarType>(x[0])));
        };
        EMBER_CHECK(false, "DDP expects same model across all ranks, but parameter ", i, " (",
                    names[i], ") has ", describe(b + at), " on rank ", r, ", while rank 0 has ",
                    describe(a + at), ".");
      }
      at += 2 + ndim_a;
    }
  }
}

}  // namespace

DistributedDataParallelBase::DistributedDataParallelBase(std::shared_ptr<nn::Module> module,
                                                         DistributedDataParallelOptions options)
    : nn::Module("DistributedDataParallel"), module_(std::move(module)),
      options_(std::move(options)) {
  EMBER_CHECK(module_ != nullptr, "DistributedDataParallel: the module is empty");
  add_child("module", module_);
  pg_ = options_.process_group();
  if (!pg_) pg_ = get_default_group().pg_ptr();
  EMBER_CHECK(pg_ != nullptr,
              "DistributedDataParallel: this process is not a member of the process group");
  std::vector<Tensor> params;
  std::vector<std::string> names;
  for (auto& [name, p] : module_->named_parameters()) {
    if (!p.requires_grad()) continue;
    params.push_back(p);
    names.push_back(name);
  }
  EMBER_CHECK(!params.empty(),
              "DistributedDataParallel is not needed when a module doesn't have any parameter "
              "that requires a gradient.");
  verify_params_across_processes(*pg_, params, names);
  // Every rank starts from rank 0's state (PyTorch's _sync_module_states).
  std::vector<Tensor> state = module_->parameters();
  for (const Tensor& b : module_->buffers()) state.push_back(b);
  if (pg_->size() > 1) broadcast_coalesced(*pg_, state, 0);
  Reducer::Options ro;
  ro.bucket_bytes_cap = static_cast<int64_t>(options_.bucket_cap_mb() * 1024 * 1024);
  ro.find_unused_parameters = options_.find_unused_parameters();
  ro.gradient_as_bucket_view = options_.gradient_as_bucket_view();
  reducer_ = std::make_unique<Reducer>(std::move(params), std::move(names), pg_, ro);
}

void DistributedDataParallelBase::pre_forward() {
  if (GradMode::is_enabled()) reducer_->rebuild_buckets();
  if (options_.broadcast_buffers() && pg_->size() > 1) {
    std::vector<Tensor> buffers = module_->buffers();
    if (!buffers.empty()) broadcast_coalesced(*pg_, buffers, 0);
  }
}

void DistributedDataParallelBase::post_forward(const std::vector<Tensor>& outputs) {
  if (GradMode::is_enabled() && require_backward_grad_sync_) {
    reducer_->prepare_for_backward(outputs);
  } else {
    reducer_->disable_sync();
  }
}

}  // namespace ember::distributed
