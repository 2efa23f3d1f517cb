// The CUDA kernels of the index-tensor ops (index_kernel: gather, scatter_,
// scatter_add_, index_select, index_add_, index_copy_, index_fill_, take)
// and of tril/triu (triangle_kernel), launched from here (index.cu,
// index_add.cu). Note [Index kernels on devices] in tensor/index_kernels.h.
//
// Note [Device-side index checks]: index values live on the device, so
// they are checked there. A kernel that reads a value out of range moves
// nothing for that position, and the first such value on a device is
// recorded (IndexErrorRecord, one per device in device memory). The host
// reads the record only where it synchronizes with the device anyway: after
// every device-to-host copy (so item(), to(kCPU), printing) and in
// cuda::synchronize(), and only when an index kernel ran on that device
// since the last look; a set record raises the CPU's error for the op
// ("index 5 is out of bounds for dimension 0 with size 3", IndexError
// where the CPU raises one) and is cleared. So a bad index is never read
// silently and no op adds a synchronization of its own (a training step
// stays asynchronous), at the price PyTorch's device-side assert pays too:
// the error surfaces at the next synchronization, possibly in a later op's
// copy, and names the first bad value found, which may differ from the one
// the CPU names. Unlike PyTorch's assert, the device stays usable. With
// streams (Note [CUDA streams] in stream.cc) the slot remembers the streams
// index kernels ran on since the last look; a look reads the record only
// once at least one of them has finished, and forgets only those, so a
// kernel still running on another stream is looked at again at a later
// synchronization. (A bad index found by such a kernel between the read
// and the clear of a set record is lost: the record holds one value.)
// poisson's rate check (distributions.cu) shares the record, with a check
// code of its own (kPoissonRateCheck) and the CPU's message.

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tensor/cuda/context.h"
#include "tensor/cuda/distributions_launch.h"
#include "tensor/cuda/graph_internal.h"
#include "tensor/cuda/index_launch.h"
#include "tensor/cuda/kernels.h"
#include "tensor/cuda/launch.h"
#include "tensor/dispatch.h"
#include "tensor/index_kernels.h"

namespace ember {
namespace cuda {
namespace detail {
namespace {

using ember::detail::IndexCheck;
static_assert(kernels::kNllTargetCheck == static_cast<int32_t>(IndexCheck::kNllTarget),
              "nn.cu's nll_loss target check must match IndexCheck");

constexpr int kMaxDevices = 128;

struct ErrorSlot {
  std::mutex mu;
  kernels::IndexErrorRecord* record = nullptr;  // device memory, never freed
  std::atomic<bool> pending{false};
  std::vector<cudaStream_t> streams;  // that ran index kernels since the last look
  std::atomic<uint64_t> launches{0};  // ever (a CUDA graph asks: Note [CUDA graphs])
};

ErrorSlot& slot(int device) {
  static ErrorSlot* slots = new ErrorSlot[kMaxDevices];
  EMBER_CHECK(device >= 0 && device < kMaxDevices, "CUDA device index ", device,
              " is out of range");
  return slots[device];
}

}  // namespace

// The record of `device` (current), marked as possibly set from now on.
// Also advanced_index.cc's.
kernels::IndexErrorRecord* record_for_launch(int device) {
  ErrorSlot& s = slot(device);
  std::lock_guard<std::mutex> lock(s.mu);
  cudaStream_t stream = current_stream_handle(device);
  if (s.record == nullptr) {
    void* p = nullptr;
    check(cudaMalloc(&p, sizeof(kernels::IndexErrorRecord)));
    // On the kernel's stream: a non-blocking stream is not ordered after
    // the legacy one. While that stream is captured into a CUDA graph (Note
    // [CUDA graphs]) a memset queued there would only run at replays, after
    // eager kernels may have read the record: clear it on the legacy stream
    // now (pool streams do not wait for it, but nothing reads the record
    // before the capture ends and a replay or a host read comes).
    if (is_capturing(stream)) {
      check(cudaMemset(p, 0, sizeof(kernels::IndexErrorRecord)));
    } else {
      check(cudaMemsetAsync(p, 0, sizeof(kernels::IndexErrorRecord), stream));
    }
    s.record = static_cast<kernels::IndexErrorRecord*>(p);
  }
  if (std::find(s.streams.begin(), s.streams.end(), stream) == s.streams.end()) {
    s.streams.push_back(stream);
  }
  s.pending.store(true);
  s.launches.fetch_add(1);
  return s.record;
}

uint64_t index_launch_count(int device) { return slot(device).launches.load(); }

namespace {

[[noreturn]] void raise(const kernels::IndexErrorRecord& r) {
  // Not an index: distributions.cu's rate check shares the record.
  if (r.check == kernels::kPoissonRateCheck) {
    throw Error("invalid Poisson rate, expected rate to be non-negative");
  }
  const std::string bounds = absl::StrCat("index ", r.value, " is out of bounds for dimension ",
                                          r.dim, " with size ", r.bound);
  switch (static_cast<IndexCheck>(r.check)) {
    case IndexCheck::kOutOfBounds:
      throw Error(bounds);
    case IndexCheck::kOutOfBoundsIndex:
      throw IndexError(bounds);
    case IndexCheck::kOutOfRangeInSelf:
      throw IndexError("index out of range in self");
    case IndexCheck::kIndexCopy:
      throw IndexError(absl::StrCat("index_copy_(): ", bounds));
    case IndexCheck::kTake:
      throw IndexError(absl::StrCat("out of range: tried to access index ", r.value,
                                    " on a tensor of ", r.bound, " elements."));
    case IndexCheck::kNllTarget:
      throw IndexError(absl::StrCat("Target ", r.value, " is out of bounds."));
  }
  throw IndexError(bounds);
}

}  // namespace

void check_device_errors(int device) {
  if (device < 0 || device >= kMaxDevices) return;
  ErrorSlot& s = slot(device);
  if (!s.pending.load()) return;
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.record == nullptr) return;
  DeviceGuard guard(device);
  // The streams whose index kernels have all finished.
  std::vector<cudaStream_t> done;
  for (cudaStream_t st : s.streams) {
    // A stream being captured into a CUDA graph may not be queried (the
    // capture would fail); it is looked at after its capture.
    if (is_capturing(st)) continue;
    cudaError_t err = cudaStreamQuery(st);
    if (err == cudaErrorNotReady) {
      cudaGetLastError();
      continue;
    }
    if (err != cudaSuccess) cudaGetLastError();
    done.push_back(st);
  }
  if (done.empty()) return;
  s.streams.erase(std::remove_if(s.streams.begin(), s.streams.end(),
                                 [&](cudaStream_t st) {
                                   return std::find(done.begin(), done.end(), st) != done.end();
                                 }),
                  s.streams.end());
  s.pending.store(!s.streams.empty());
  cudaStream_t stream = current_stream_handle(device);
  kernels::IndexErrorRecord r;
  check(cudaMemcpyAsync(&r, s.record, sizeof(r), cudaMemcpyDeviceToHost, stream));
  check(cudaStreamSynchronize(stream));
  if (r.flag == 0) return;
  check(cudaMemsetAsync(s.record, 0, sizeof(r), stream));
  check(cudaStreamSynchronize(stream));
  raise(r);
}

kernels::IndexLoop make_index_loop(const ember::detail::IndexLoop& loop) {
  kernels::IndexLoop l;
  const DimVector* strides[3] = {&loop.dst_strides, &loop.index_strides, &loop.src_strides};
  l.numel = 1;
  int n = 0;
  for (int64_t k = static_cast<int64_t>(loop.sizes.size()) - 1; k >= 0; --k) {
    const int64_t size = loop.sizes[k];
    l.numel *= size;
    if (size == 1) continue;
    bool merge = n > 0;
    for (int t = 0; t < 3 && merge; ++t) {
      merge = l.strides[t][n - 1] * l.sizes[n - 1] == (*strides[t])[k];
    }
    if (merge) {
      l.sizes[n - 1] *= size;
      continue;
    }
    EMBER_CHECK(n < kernels::kMaxLoopDims, "CUDA index kernels support at most ",
                kernels::kMaxLoopDims, " non-collapsible dims");
    l.sizes[n] = size;
    for (int t = 0; t < 3; ++t) l.strides[t][n] = (*strides[t])[k];
    ++n;
  }
  l.ndim = n;
  l.dim_stride = loop.dim_stride;
  l.bound = loop.bound;
  l.wrap = loop.wrap;
  l.dim = loop.dim;
  l.check = static_cast<int32_t>(loop.check);
  return l;
}

}  // namespace detail

namespace {

using ember::detail::IndexCheck;

const char* name_of(const ember::detail::IndexLoop& loop) {
  switch (loop.check) {
    case IndexCheck::kOutOfRangeInSelf:
      return loop.mode == ember::detail::IndexMode::kAdd ? "index_add_cuda_" : "index_select_cuda";
    case IndexCheck::kIndexCopy:
      return "index_copy_cuda";
    case IndexCheck::kOutOfBoundsIndex:
      return "index_fill_cuda";
    case IndexCheck::kTake:
      return "take_cuda";
    default:
      break;
  }
  switch (loop.mode) {
    case ember::detail::IndexMode::kGather:
      return "gather_cuda";
    case ember::detail::IndexMode::kAdd:
      return "scatter_add_cuda";
    default:
      return "scatter_cuda";
  }
}

void index_cuda(const ember::detail::IndexLoop& loop, const Tensor& dst, const Tensor& index,
                const Tensor& src) {
  kernels::IndexLoop l = detail::make_index_loop(loop);
  if (l.numel == 0) return;
  const int device = dst.device().index();
  detail::DeviceGuard guard(device);
  l.dst = dst.data_ptr();
  l.index = index.data_ptr<int64_t>();
  l.src = src.defined() ? src.data_ptr() : nullptr;
  kernels::IndexErrorRecord* err = detail::record_for_launch(device);
  using Mode = ember::detail::IndexMode;
  switch (loop.mode) {
    case Mode::kAdd:
      detail::check_launch(
          kernels::launch_index_add(detail::kernel_dtype(dst.dtype()), l,
                                    detail::scalar_bits(loop.value, dst.dtype()), err),
          name_of(loop), dst.dtype());
      return;
    case Mode::kFill:
      detail::check_launch(kernels::launch_index_move(
                               kernels::IndexMode::kFill, static_cast<int>(dst.element_size()), l,
                               detail::scalar_bits(loop.value, dst.dtype()), err),
                           name_of(loop), dst.dtype());
      return;
    case Mode::kGather:
    case Mode::kScatter:
      detail::check_launch(
          kernels::launch_index_move(loop.mode == Mode::kGather ? kernels::IndexMode::kGather
                                                                : kernels::IndexMode::kScatter,
                                     static_cast<int>(dst.element_size()), l, 0, err),
          name_of(loop), dst.dtype());
      return;
  }
}

void triangle_cuda(Tensor& r, int64_t diagonal, bool lower) {
  if (r.numel() == 0) return;
  detail::DeviceGuard guard(r.device().index());
  const int64_t m = r.size(-2), n = r.size(-1);
  detail::check_launch(kernels::launch_triangle(static_cast<int>(r.element_size()), r.data_ptr(),
                                                r.numel() / (m * n), m, n, diagonal, lower),
                       lower ? "tril_cuda" : "triu_cuda", r.dtype());
}

}  // namespace
}  // namespace cuda

namespace detail {
EMBER_REGISTER_KERNEL(index_kernel, kCUDA, &cuda::index_cuda);
EMBER_REGISTER_KERNEL(triangle_kernel, kCUDA, &cuda::triangle_cuda);
}  // namespace detail

}  // namespace ember
