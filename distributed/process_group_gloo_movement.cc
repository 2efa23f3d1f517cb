// ProcessGroupGloo's data-movement collectives: broadcast, allgather,
// gather, scatter, all_to_all (equal and uneven splits), barrier. Nothing
// here reduces, so every buffer travels as bytes.

#include <numeric>

#include <gloo/allgather.h>
#include <gloo/alltoall.h>
#include <gloo/alltoallv.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/gather.h>
#include <gloo/scatter.h>

#include "absl/strings/str_cat.h"
#include "distributed/process_group_gloo_impl.h"
#include "tensor/empty.h"

namespace ember::distributed {
namespace {

uint8_t* bytes(const Tensor& t) { return static_cast<uint8_t*>(t.data_ptr()); }

void check_root(int root, int size, const char* op) {
  EMBER_CHECK(root >= 0 && root < size, "ProcessGroupGloo::", op, ": invalid root rank: ", root,
              " (world size ", size, ")");
}

// Every tensor of `list` matches `like` in dtype and element count.
void check_list(const std::vector<Tensor>& list, const Tensor& like, const char* op,
                const char* what) {
  for (const auto& t : list) {
    gloo_check_tensor(t, op);
    EMBER_CHECK(t.dtype() == like.dtype(), "ProcessGroupGloo::", op, ": invalid ", what,
                " tensor type: expected ", dtype_name(like.dtype()), ", got ",
                dtype_name(t.dtype()));
    EMBER_CHECK(t.numel() == like.numel(), "ProcessGroupGloo::", op, ": invalid ", what,
                " tensor size: expected ", like.numel(), " elements, got ", t.numel());
    gloo_check_devices(t, like, op);
  }
}

// Splits along dim 0 in rows: `splits` empty means equal parts.
std::vector<int64_t> row_splits(const Tensor& t, const std::vector<int64_t>& splits, int size,
                                const char* what) {
  EMBER_CHECK(t.dim() >= 1, "ProcessGroupGloo::alltoall_base: ", what,
              " tensor must have at least one dimension");
  const int64_t rows = t.size(0);
  if (splits.empty()) {
    EMBER_CHECK(rows % size == 0, "ProcessGroupGloo::alltoall_base: ", what,
                " tensor's dim 0 (", rows, ") does not divide equally across group size ", size);
    return std::vector<int64_t>(size, rows / size);
  }
  EMBER_CHECK(static_cast<int>(splits.size()) == size, "ProcessGroupGloo::alltoall_base: ", what,
              " split sizes must have one entry per rank (", size, "), got ", splits.size());
  int64_t total = 0;
  for (int64_t s : splits) {
    EMBER_CHECK(s >= 0, "ProcessGroupGloo::alltoall_base: negative ", what, " split size ", s);
    total += s;
  }
  EMBER_CHECK(total == rows, "ProcessGroupGloo::alltoall_base: ", what, " split sizes sum to ",
              total, " but the tensor's dim 0 is ", rows);
  return splits;
}

}  // namespace

std::shared_ptr<Work> ProcessGroupGloo::broadcast(std::vector<Tensor>& tensors,
                                                  const BroadcastOptions& opts) {
  EMBER_CHECK(!tensors.empty(), "ProcessGroupGloo::broadcast: requires non-empty tensor list");
  check_root(opts.root, size_, "broadcast");
  for (const auto& t : tensors) {
    gloo_check_tensor(t, "broadcast");
    EMBER_CHECK(t.dtype() == tensors[0].dtype() && t.sizes() == tensors[0].sizes(),
                "ProcessGroupGloo::broadcast: tensors must all have the same type and size");
    gloo_check_devices(t, tensors[0], "broadcast");
  }
  Staged s = gloo_stage(tensors[0], rank_ == opts.root);
  std::vector<Tensor> others(tensors.begin() + 1, tensors.end());
  auto w = impl_->make_work("broadcast", true);
  const int root = opts.root;
  const auto timeout = options_.timeout;
  ShmAllreduce* shm = impl_->shm.get();
  w->run = [s, others, root, timeout, shm](const std::shared_ptr<gloo::Context>& ctx,
                                           uint32_t tag) {
    if (s.dense.nbytes() > 0 && shm != nullptr) {
      // Note [Same-host all-reduce]: ranks on one host share memory.
      shm->broadcast(s.dense.data_ptr(), s.dense.nbytes(), root, timeout);
    } else if (s.dense.nbytes() > 0) {
      gloo::BroadcastOptions o(ctx);
      o.setOutput(bytes(s.dense), s.dense.nbytes());
      o.setRoot(root);
      o.setTag(tag);
      o.setTimeout(timeout);
      gloo::broadcast(o);
    }
    s.copy_back();
    for (Tensor t : others) t.copy_(s.dense);
  };
  impl_->enqueue(w);
  return w;
}

std::shared_ptr<Work> ProcessGroupGloo::allgather(std::vector<std::vector<Tensor>>& outputs,
                                                  std::vector<Tensor>& inputs) {
  EMBER_CHECK(inputs.size() == 1, "ProcessGroupGloo::allgather: requires a single-element input list");
  EMBER_CHECK(outputs.size() == 1,
              "ProcessGroupGloo::allgather: requires a single-element output list");
  EMBER_CHECK(static_cast<int>(outputs[0].size()) == size_,
              "ProcessGroupGloo::allgather: invalid output tensor list: expected ", size_,
              " tensors (the world size), got ", outputs[0].size());
  gloo_check_tensor(inputs[0], "allgather");
  check_list(outputs[0], inputs[0], "allgather", "output");
  Staged in = gloo_stage(inputs[0], true);
  std::vector<Tensor> outs = outputs[0];
  auto w = impl_->make_work("allgather", true);
  const int size = size_;
  const auto timeout = options_.timeout;
  w->run = [in, outs, size, timeout](const std::shared_ptr<gloo::Context>& ctx, uint32_t tag) {
    const int64_t n = in.dense.numel();
    Tensor flat = empty({n * size}, in.dense.options());
    if (flat.nbytes() > 0) {
      gloo::AllgatherOptions o(ctx);
      o.setInput(bytes(in.dense), in.dense.nbytes());
      o.setOutput(bytes(flat), flat.nbytes());
      o.setTag(tag);
      o.setTimeout(timeout);
      gloo::allgather(o);
    }
    for (int r = 0; r < size; ++r) {
      Tensor t = outs[r];
      t.copy_(flat.narrow(0, r * n, n).view(t.sizes()));
    }
  };
  impl_->enqueue(w);
  return w;
}

std::shared_ptr<Work> ProcessGroupGloo::gather(std::vector<std::vector<Tensor>>& outputs,
                                               std::vector<Tensor>& inputs, int root) {
  check_root(root, size_, "gather");
  EMBER_CHECK(inputs.size() == 1, "ProcessGroupGloo::gather: requires a single-element input list");
  gloo_check_tensor(inputs[0], "gather");
  std::vector<Tensor> outs;
  if (rank_ == root) {
    EMBER_CHECK(outputs.size() == 1,
                "ProcessGroupGloo::gather: requires a single-element output list");
    EMBER_CHECK(static_cast<int>(outputs[0].size()) == size_,
                "ProcessGroupGloo::gather: invalid output tensor list: expected ", size_,
                " tensors (the world size), got ", outputs[0].size());
    check_list(outputs[0], inputs[0], "gather", "output");
    outs = outputs[0];
  } else {
    EMBER_CHECK(outputs.empty() || (outputs.size() == 1 && outputs[0].empty()),
                "ProcessGroupGloo::gather: requires empty output on non-root");
  }
  Staged in = gloo_stage(inputs[0], true);
  auto w = impl_->make_work("gather", true);
  const int size = size_;
  const auto timeout = options_.timeout;
  w->run = [in, outs, size, root, timeout](const std::shared_ptr<gloo::Context>& ctx,
                                           uint32_t tag) {
    const int64_t n = in.dense.numel();
    Tensor flat;
    if (!outs.empty()) flat = empty({n * size}, in.dense.options());
    if (in.dense.nbytes() > 0) {
      gloo::GatherOptions o(ctx);
      o.setInput(bytes(in.dense), in.dense.nbytes());
      if (flat.defined()) o.setOutput(bytes(flat), flat.nbytes());
      o.setRoot(root);
      o.setTag(tag);
      o.setTimeout(timeout);
      gloo::gather(o);
    }
    for (int r = 0; r < static_cast<int>(outs.size()); ++r) {
      Tensor t = outs[r];
      t.copy_(flat.narrow(0, r * n, n).view(t.sizes()));
    }
  };
  impl_->enqueue(w);
  return w;
}

std::shared_ptr<Work> ProcessGroupGloo::scatter(std::vector<Tensor>& outputs,
                                                std::vector<std::vector<Tensor>>& inputs,
                                                int root) {
  check_root(root, size_, "scatter");
  EMBER_CHECK(outputs.size() == 1,
              "ProcessGroupGloo::scatter: requires a single-element output list");
  gloo_check_tensor(outputs[0], "scatter");
  std::vector<Tensor> ins;
  if (rank_ == root) {
    EMBER_CHECK(inputs.size() == 1,
                "ProcessGroupGloo::scatter: requires a single-element input list");
    EMBER_CHECK(static_cast<int>(inputs[0].size()) == size_,
                "ProcessGroupGloo::scatter: invalid input tensor list: expected ", size_,
                " tensors (the world size), got ", inputs[0].size());
    check_list(inputs[0], outputs[0], "scatter", "input");
    for (const auto& t : inputs[0]) ins.push_back(gloo_stage(t, true).dense);
  } else {
    EMBER_CHECK(inputs.empty() || (inputs.size() == 1 && inputs[0].empty()),
                "ProcessGroupGloo::scatter: requires empty input on non-root");
  }
  Staged out = gloo_stage(outputs[0], false);
  auto w = impl_->make_work("scatter", true);
  const auto timeout = options_.timeout;
  w->run = [out, ins, root, timeout](const std::shared_ptr<gloo::Context>& ctx, uint32_t tag) {
    const size_t nbytes = out.dense.nbytes();
    if (nbytes > 0) {
      gloo::ScatterOptions o(ctx);
      if (!ins.empty()) {
        std::vector<uint8_t*> ptrs;
        for (const auto& t : ins) ptrs.push_back(bytes(t));
        o.setInputs(ptrs, nbytes);
      }
      o.setOutput(bytes(out.dense), nbytes);
      o.setRoot(root);
      o.setTag(tag);
      o.setTimeout(timeout);
      gloo::scatter(o);
    }
    out.copy_back();
  };
  impl_->enqueue(w);
  return w;
}

std::shared_ptr<Work> ProcessGroupGloo::alltoall_base(Tensor& output, Tensor& input,
                                                      std::vector<int64_t> output_split_sizes,
                                                      std::vector<int64_t> input_split_sizes) {
  gloo_check_tensor(input, "alltoall_base");
  gloo_check_tensor(output, "alltoall_base");
  EMBER_CHECK(input.dtype() == output.dtype(),
              "ProcessGroupGloo::alltoall_base: input and output must have the same type (got ",
              dtype_name(input.dtype()), " and ", dtype_name(output.dtype()), ")");
  gloo_check_devices(output, input, "alltoall_base");
  auto in_rows = row_splits(input, input_split_sizes, size_, "input");
  auto out_rows = row_splits(output, output_split_sizes, size_, "output");
  const int64_t in_row = input.size(0) ? input.numel() / input.size(0) : 0;
  const int64_t out_row = output.size(0) ? output.numel() / output.size(0) : 0;
  EMBER_CHECK(input.size(0) == 0 || output.size(0) == 0 || in_row == out_row,
              "ProcessGroupGloo::alltoall_base: input and output rows differ in size (", in_row,
              " vs ", out_row, " elements)");
  const bool equal = input_split_sizes.empty() && output_split_sizes.empty();
  EMBER_CHECK(!equal || input.numel() == output.numel(),
              "ProcessGroupGloo::alltoall_base: input and output must have the same number of "
              "elements for equal splits (", input.numel(), " vs ", output.numel(), ")");
  const int64_t esize = input.element_size();
  std::vector<int64_t> in_bytes, out_bytes;
  for (int64_t r : in_rows) in_bytes.push_back(r * in_row * esize);
  for (int64_t r : out_rows) out_bytes.push_back(r * out_row * esize);
  Staged in = gloo_stage(input, true);
  Staged out = gloo_stage(output, false);
  auto w = impl_->make_work("alltoall_base", true);
  const auto timeout = options_.timeout;
  w->run = [in, out, in_bytes, out_bytes, equal, timeout](
               const std::shared_ptr<gloo::Context>& ctx, uint32_t tag) {
    if (equal) {
      if (in.dense.nbytes() > 0) {
        gloo::AlltoallOptions o(ctx);
        o.setInput(bytes(in.dense), in.dense.nbytes());
        o.setOutput(bytes(out.dense), out.dense.nbytes());
        o.setTag(tag);
        o.setTimeout(timeout);
        gloo::alltoall(o);
      }
    } else {
      // gloo wants a buffer even when this rank sends or receives nothing.
      uint8_t dummy = 0;
      gloo::AlltoallvOptions o(ctx);
      o.setInput(in.dense.nbytes() ? bytes(in.dense) : &dummy, in_bytes);
      o.setOutput(out.dense.nbytes() ? bytes(out.dense) : &dummy, out_bytes);
      o.setTag(tag);
      o.setTimeout(timeout);
      gloo::alltoallv(o);
    }
    out.copy_back();
  };
  impl_->enqueue(w);
  return w;
}

std::shared_ptr<Work> ProcessGroupGloo::barrier() {
  auto w = impl_->make_work("barrier", true);
  const auto timeout = options_.timeout;
  w->run = [timeout](const std::shared_ptr<gloo::Context>& ctx, uint32_t tag) {
    gloo::BarrierOptions o(ctx);
    o.setTag(tag);
    o.setTimeout(timeout);
    gloo::barrier(o);
  };
  impl_->enqueue(w);
  return w;
}

}  // namespace ember::distributed
