// ProcessGroupGloo's reductions: allreduce, reduce, reduce_scatter. Inputs
// are checked on the calling thread (bad arguments throw there and never
// reach the worker); the gloo call runs on the worker thread.

#include <gloo/allreduce.h>
#include <gloo/reduce.h>

#include "absl/strings/str_cat.h"
#include "distributed/process_group_gloo_impl.h"
#include "tensor/empty.h"

namespace ember::distributed {
namespace {

// gloo only needs the element size (the reduce function knows the type), so
// four instantiations cover every dtype.
template <typename F>
void by_element_size(int64_t esize, F f) {
  switch (esize) {
    case 1: return f(uint8_t{});
    case 2: return f(uint16_t{});
    case 4: return f(uint32_t{});
    case 8: return f(uint64_t{});
  }
  throw Error(absl::StrCat("ProcessGroupGloo: unsupported element size ", esize));
}

// Note [All-reduce segment size]: gloo's ring pipelines each rank's chunk
// in segments of at most 1 MiB by default (what PyTorch uses); each segment
// costs a send/recv handshake and wake-ups of the threads that wait on it.
// On the 2-core build machine over loopback, 2 ranks, 64-256 MiB float
// sums, in-place busbw in GB/s (BENCHMARKS.md, "gloo all_reduce"): 1 MiB
// 0.84-1.06; 2 MiB 0.99-1.20; 4, 8 and 12 MiB all 1.0-1.6 (no difference
// between them beyond run-to-run noise); 16 MiB - 4 B still 1.46-1.52, but
// exactly 16 MiB (2^24 B) and 20 MiB collapse to 0.22-0.65 at every size:
// a cliff in the transport or the kernel whose cause is not established.
// 4 MiB takes the gain and stays far from it. Inputs of at most
// 2 * world_size MiB are unaffected (gloo caps a segment at
// input / (2 * world_size)).
constexpr size_t kAllreduceSegmentBytes = size_t{4} << 20;

// Through shared memory when the group has it (Note [Same-host all-reduce])
// and this rank passes one tensor, over gloo's TCP ring otherwise.
void run_allreduce(const std::shared_ptr<gloo::Context>& ctx, uint32_t tag,
                   std::chrono::milliseconds timeout, const std::vector<Tensor>& bufs,
                   GlooReduceFn fn, ShmAllreduce* shm) {
  const size_t n = bufs[0].numel();
  if (n == 0) return;
  if (shm != nullptr && bufs.size() == 1) {
    shm->allreduce(bufs[0].data_ptr(), n, bufs[0].element_size(), fn, timeout);
    return;
  }
  gloo::AllreduceOptions o(ctx);
  by_element_size(bufs[0].element_size(), [&](auto t) {
    using T = decltype(t);
    std::vector<T*> ptrs;
    for (const auto& b : bufs) ptrs.push_back(static_cast<T*>(b.data_ptr()));
    o.setOutputs(ptrs, n);
  });
  o.setReduceFunction(fn);
  o.setTag(tag);
  o.setTimeout(timeout);
  o.setMaxSegmentSize(kAllreduceSegmentBytes);
  gloo::allreduce(o);
}

void check_same(const Tensor& a, const Tensor& b, const char* op) {
  EMBER_CHECK(a.dtype() == b.dtype(), "ProcessGroupGloo::", op,
              ": tensors must all have the same type (got ", dtype_name(a.dtype()), " and ",
              dtype_name(b.dtype()), ")");
  EMBER_CHECK(a.sizes() == b.sizes(), "ProcessGroupGloo::", op,
              ": tensors must all have the same size");
  gloo_check_devices(b, a, op);
}

void check_root(int root, int size, const char* op) {
  EMBER_CHECK(root >= 0 && root < size, "ProcessGroupGloo::", op, ": invalid root rank: ", root,
              " (world size ", size, ")");
}

}  // namespace

std::shared_ptr<Work> ProcessGroupGloo::allreduce(std::vector<Tensor>& tensors,
                                                  const AllreduceOptions& opts) {
  EMBER_CHECK(!tensors.empty(), "ProcessGroupGloo::allreduce: requires non-empty tensor list");
  std::vector<Staged> staged;
  for (const auto& t : tensors) {
    gloo_check_tensor(t, "allreduce");
    check_same(tensors[0], t, "allreduce");
  }
  GlooReduceFn fn = gloo_reduce_fn(tensors[0].dtype(), opts.op, "allreduce");
  for (const auto& t : tensors) staged.push_back(gloo_stage(t, true));
  auto w = impl_->make_work("allreduce", true);
  const ReduceOp op = opts.op;
  const int size = size_;
  const auto timeout = options_.timeout;
  ShmAllreduce* shm = impl_->shm.get();
  w->run = [staged, fn, op, size, timeout, shm](const std::shared_ptr<gloo::Context>& ctx,
                                                uint32_t tag) {
    std::vector<Tensor> bufs;
    for (const auto& s : staged) bufs.push_back(s.dense);
    run_allreduce(ctx, tag, timeout, bufs, fn, shm);
    for (const auto& s : staged) {
      if (op == ReduceOp::AVG) gloo_divide_in_place(s.dense.data_ptr(), s.dense.dtype(), s.dense.numel(), size);
      s.copy_back();
    }
  };
  impl_->enqueue(w);
  return w;
}

std::shared_ptr<Work> ProcessGroupGloo::reduce(std::vector<Tensor>& tensors,
                                               const ReduceOptions& opts) {
  EMBER_CHECK(tensors.size() == 1, "ProcessGroupGloo::reduce: requires a single-element tensor list");
  check_root(opts.root, size_, "reduce");
  gloo_check_tensor(tensors[0], "reduce");
  GlooReduceFn fn = gloo_reduce_fn(tensors[0].dtype(), opts.op, "reduce");
  Staged s = gloo_stage(tensors[0], true);
  auto w = impl_->make_work("reduce", true);
  const ReduceOp op = opts.op;
  const int size = size_, root = opts.root, rank = rank_;
  const auto timeout = options_.timeout;
  w->run = [s, fn, op, size, root, rank, timeout](const std::shared_ptr<gloo::Context>& ctx,
                                                  uint32_t tag) {
    const size_t n = s.dense.numel();
    if (n > 0) {
      gloo::ReduceOptions o(ctx);
      by_element_size(s.dense.element_size(), [&](auto t) {
        using T = decltype(t);
        o.setOutput(static_cast<T*>(s.dense.data_ptr()), n);
      });
      o.setRoot(root);
      o.setReduceFunction(fn);
      o.setTag(tag);
      o.setTimeout(timeout);
      gloo::reduce(o);
    }
    if (rank == root && op == ReduceOp::AVG) {
      gloo_divide_in_place(s.dense.data_ptr(), s.dense.dtype(), n, size);
    }
    s.copy_back();
  };
  impl_->enqueue(w);
  return w;
}

std::shared_ptr<Work> ProcessGroupGloo::reduce_scatter(std::vector<Tensor>& outputs,
                                                       std::vector<std::vector<Tensor>>& inputs,
                                                       ReduceOp op) {
  EMBER_CHECK(outputs.size() == 1,
              "ProcessGroupGloo::reduce_scatter: requires a single-element output tensor list");
  EMBER_CHECK(inputs.size() == 1,
              "ProcessGroupGloo::reduce_scatter: requires a single-element input list");
  EMBER_CHECK(static_cast<int>(inputs[0].size()) == size_,
              "ProcessGroupGloo::reduce_scatter: requires an input list of size ", size_,
              " (the world size), got ", inputs[0].size());
  const Tensor& out = outputs[0];
  gloo_check_tensor(out, "reduce_scatter");
  for (const auto& t : inputs[0]) {
    gloo_check_tensor(t, "reduce_scatter");
    check_same(out, t, "reduce_scatter");
  }
  GlooReduceFn fn = gloo_reduce_fn(out.dtype(), op, "reduce_scatter");
  // One allreduce over the concatenated inputs, keeping this rank's part.
  const int64_t n = out.numel();
  Tensor flat = empty({n * size_}, out.options().device(Device(kCPU)));
  for (int r = 0; r < size_; ++r) flat.narrow(0, r * n, n).copy_(inputs[0][r].reshape({n}));
  auto w = impl_->make_work("reduce_scatter", true);
  const int size = size_, rank = rank_;
  const auto timeout = options_.timeout;
  Tensor result = out;
  ShmAllreduce* shm = impl_->shm.get();
  w->run = [flat, result, fn, op, size, rank, n, timeout, shm](
               const std::shared_ptr<gloo::Context>& ctx, uint32_t tag) {
    run_allreduce(ctx, tag, timeout, {flat}, fn, shm);
    Tensor mine = flat.narrow(0, rank * n, n);
    if (op == ReduceOp::AVG) gloo_divide_in_place(mine.data_ptr(), mine.dtype(), n, size);
    Tensor(result).copy_(mine.view(result.sizes()));
  };
  impl_->enqueue(w);
  return w;
}

}  // namespace ember::distributed
