// CUDA graphs (graph.h) in a build with the CUDA toolkit.
//
// Note [CUDA graphs]: capture records what the calling thread queues on its
// current (non-default) stream between capture_begin and capture_end into
// a cudaGraph_t; replay launches it again with the same kernel arguments and
// the same device addresses.
// - Capture mode: cudaStreamCaptureModeRelaxed. In the Global and
//   ThreadLocal modes the capturing thread may not make "potentially unsafe"
//   calls, and cudaMalloc (which the caching allocator needs when its pool
//   has no block of a size yet) and cudaEventQuery (which the allocator's
//   process_events runs at every allocation) are such calls: the capture
//   would fail on the first new allocation. Relaxed allows them; what
//   necessarily conflicts with capture (synchronizing or querying the
//   capturing stream, reading an event recorded inside the capture) still
//   fails, and ember checks those places first (below).
// - Memory: from capture_begin to capture_end, allocations on the captured
//   stream (and on streams that joined its capture) come from the graph's
//   private pool (allocator.cc), and so does every block freed while the
//   capture runs, wherever it came from: each replay reads and writes those
//   addresses again, so no eager allocation may get them. A block of the
//   pool freed after capture stays in the pool. reset() (or the destructor)
//   waits for the last replay, then hands the pool's blocks back to the
//   general cache. Pools can be shared (capture_begin(other.pool())), as
//   PyTorch's.
// - Host synchronizations: reading device memory on the host (item(),
//   to(kCPU), printing), CUDAStream::synchronize/query of the capturing
//   stream and cuda::synchronize() cannot be captured. They throw, before
//   any CUDA call, "<op> synchronizes with the host, which a CUDA graph
//   capture does not allow ...", and the capture stays valid. An error the
//   runtime reports anyway (cudaErrorStreamCapture*) is reported with the
//   same explanation, and capture_end then says the capture was
//   invalidated.
// - A number operand of an op (a 0-dim CPU tensor uploaded by the iterator,
//   Note [Iterator devices]) is written by a fill kernel whose argument
//   holds the value (copy.cc), so it is captured as a constant, as
//   PyTorch's kernel arguments are. Larger uploads from pageable memory
//   cannot be captured and throw; from pinned memory with non_blocking they
//   are captured as copies that reread the host buffer at every replay.
// - Index checks (Note [Device-side index checks]): a captured index kernel
//   writes the device's index record at every replay; replay() tells the
//   record so, and the next host read reports a bad index as usual.
// - Random numbers: graph-safe (below).
//
// Note [Graph-safe random numbers]: an eager random fill takes the
// generator's seed and reserves its next Philox offset on the host (Note
// [Device random numbers] in tensor/random.cc), and both become kernel
// arguments. Captured as they are, every replay would draw the same
// numbers. So, as PyTorch's CUDA generator does, a fill on a capturing
// stream passes a pointer to two device words instead, {seed, base}, and
// its offset relative to the generator's offset at capture_begin (still
// reserved on the host, so fills within the graph never share one); it
// draws at offset base + relative. capture_end notes how far the capture
// moved the generator. Each replay reserves that many offsets from the
// generator as it is then and writes {current seed, first reserved offset}
// into the words with two fill kernels queued before the graph on the
// replay stream. A replay therefore draws exactly what the same ops would
// draw eagerly at that point, and eager fills between replays never reuse
// its offsets. Captures are found by the runtime's capture id, which
// streams forked from the capturing one share. Only the capture device's
// default generator may be used during capture (PyTorch's rule and
// message); the words are the graph's own, so graphs replay independently.

#include "tensor/cuda/graph.h"

#include <cuda_runtime_api.h>

#include <atomic>
#include <mutex>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "tensor/cuda/context.h"
#include "tensor/cuda/cuda.h"
#include "tensor/cuda/graph_internal.h"
#include "tensor/cuda/index_launch.h"
#include "tensor/cuda/kernels.h"
#include "tensor/error.h"
#include "tensor/random.h"

namespace ember {
namespace cuda {
namespace detail {

namespace {
std::string capture_message(const char* what) {
  return absl::StrCat(what,
                      " synchronizes with the host, which a CUDA graph capture does not allow "
                      "(CUDA error: operation not permitted when stream is capturing). Read "
                      "device values before capture_begin() or after capture_end().");
}
}  // namespace

bool is_capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  cudaError_t err = cudaStreamIsCapturing(stream, &status);
  if (err != cudaSuccess) {
    cudaGetLastError();
    // The legacy stream while a blocking stream captures: its use would
    // synchronize with the capture.
    return err == cudaErrorStreamCaptureImplicit;
  }
  return status != cudaStreamCaptureStatusNone;
}

void check_not_capturing(cudaStream_t stream, const char* what) {
  if (is_capturing(stream)) throw Error(capture_message(what));
}

void check_no_capture_on_device(int device, const char* what) {
  if (capture_underway(device)) throw Error(capture_message(what));
}

namespace {
struct CaptureRng {
  const void* generator;
  uint64_t base;
  const uint64_t* state;
};
std::mutex capture_rng_mutex;
std::unordered_map<unsigned long long, CaptureRng>& capture_rngs() {
  static auto* m = new std::unordered_map<unsigned long long, CaptureRng>();
  return *m;
}
}  // namespace

const uint64_t* captured_rng_state(cudaStream_t stream, const void* generator, uint64_t* base) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  unsigned long long id = 0;
  if (cudaStreamGetCaptureInfo(stream, &status, &id) != cudaSuccess) {
    // The legacy stream while another captures: the fill's launch reports it.
    cudaGetLastError();
    return nullptr;
  }
  if (status != cudaStreamCaptureStatusActive) return nullptr;
  std::lock_guard<std::mutex> lock(capture_rng_mutex);
  auto it = capture_rngs().find(id);
  if (it == capture_rngs().end() || it->second.generator != generator) {
    throw Error(
        "philox_cuda_state for an unexpected CUDA generator used during capture. In regions "
        "captured by CUDA graphs, you may only use the default CUDA RNG generator on the device "
        "that's current when capture begins. If you need a non-default (user-supplied) "
        "generator, or a generator on another device, please file an issue.");
  }
  *base = it->second.base;
  return it->second.state;
}

namespace {
void register_capture_rng(unsigned long long id, const CaptureRng& rng) {
  std::lock_guard<std::mutex> lock(capture_rng_mutex);
  capture_rngs()[id] = rng;
}
void unregister_capture_rng(unsigned long long id) {
  std::lock_guard<std::mutex> lock(capture_rng_mutex);
  capture_rngs().erase(id);
}
// Writes one 64-bit word on the current stream with a fill kernel, whose
// argument holds the value.
void write_word(uint64_t* dst, uint64_t value) {
  kernels::Geometry g;
  g.ndim = 1;
  g.numel = 1;
  g.sizes[0] = 1;
  g.dst_strides[0] = 1;
  g.src_strides[0] = 1;
  EMBER_CUDA_CHECK(kernels::launch_fill(dst, g, 8, value));
}
}  // namespace

}  // namespace detail

namespace {
std::atomic<unsigned long long> next_pool_handle{1};
}  // namespace

MempoolId_t graph_pool_handle() {
  detail::ensure_initialized();
  return {0, next_pool_handle.fetch_add(1)};
}

CUDAGraph::CUDAGraph() : capture_stream_(getCurrentCUDAStream()) {}

CUDAGraph::~CUDAGraph() {
  try {
    reset();
  } catch (const std::exception&) {  // a destructor must not throw
  }
  if (rng_state_ != nullptr) {
    detail::DeviceGuard guard(capture_dev_);
    if (cudaFree(rng_state_) != cudaSuccess) cudaGetLastError();
  }
}

void CUDAGraph::capture_begin(MempoolId_t pool) {
  EMBER_CHECK(!has_graph_exec_,
              "This CUDAGraph instance already owns a captured graph. To capture a new graph, "
              "create a new instance.");
  EMBER_CHECK(!capturing_, "capture_begin: this CUDAGraph is already capturing");
  const CUDAStream stream = getCurrentCUDAStream();
  EMBER_CHECK(stream != getDefaultCUDAStream(stream.device_index()),
              "CUDA graphs must be captured on a non-default stream. (However, after capture, "
              "it's ok to replay them on the default stream.)");
  EMBER_CHECK(pool.first == 0 || pool.second == 0,
              "capture_begin: a pool id has a capture id or a handle, not both");
  capture_stream_ = stream;
  capture_dev_ = stream.device_index();
  detail::DeviceGuard guard(capture_dev_);
  cudaStream_t s = stream.stream();
  index_launches_at_begin_ = detail::index_launch_count(capture_dev_);
  if (rng_state_ == nullptr) {
    void* p = nullptr;
    EMBER_CUDA_CHECK(cudaMalloc(&p, 2 * sizeof(uint64_t)));
    rng_state_ = static_cast<uint64_t*>(p);
  }
  rng_generator_ = default_generator(capture_dev_).impl();
  {
    std::lock_guard<std::mutex> lock(rng_generator_->mutex());
    rng_base_ = rng_generator_->philox_offset();
  }
  EMBER_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  cudaError_t err = cudaStreamGetCaptureInfo(s, &status, &id_);
  if (err != cudaSuccess || status != cudaStreamCaptureStatusActive) {
    cudaGetLastError();
    cudaGraph_t g = nullptr;
    if (cudaStreamEndCapture(s, &g) != cudaSuccess) cudaGetLastError();
    if (g != nullptr) cudaGraphDestroy(g);
    EMBER_CUDA_CHECK(err == cudaSuccess ? cudaErrorStreamCaptureInvalidated : err);
  }
  mempool_id_ = (pool.first != 0 || pool.second != 0) ? pool : MempoolId_t{id_, 0};
  detail::begin_allocate_to_pool(capture_dev_, id_, mempool_id_);
  detail::register_capture_rng(id_, {rng_generator_, rng_base_, rng_state_});
  capturing_ = true;
  holds_pool_ = true;
}

void CUDAGraph::capture_end() {
  EMBER_CHECK(capturing_, "capture_end: capture_begin was not called");
  const CUDAStream stream = getCurrentCUDAStream(capture_dev_);
  EMBER_CHECK(stream == capture_stream_, "Capture must end on the same stream it began on.");
  detail::DeviceGuard guard(capture_dev_);
  cudaGraph_t g = nullptr;
  cudaError_t err = cudaStreamEndCapture(capture_stream_.stream(), &g);
  if (err != cudaSuccess) cudaGetLastError();
  capturing_ = false;
  detail::end_allocate_to_pool(capture_dev_, id_);
  detail::unregister_capture_rng(id_);
  {
    std::lock_guard<std::mutex> lock(rng_generator_->mutex());
    rng_increment_ = rng_generator_->philox_offset() - rng_base_;
  }
  if (err != cudaSuccess || g == nullptr) {
    if (g != nullptr) cudaGraphDestroy(g);
    // Nothing was launched: the pool's blocks may go back at once.
    holds_pool_ = false;
    detail::release_pool(capture_dev_, mempool_id_);
    if (err == cudaErrorStreamCaptureInvalidated || err == cudaErrorStreamCaptureUnjoined ||
        err == cudaErrorStreamCaptureUnmatched || err == cudaErrorStreamCaptureWrongThread) {
      throw Error(absl::StrCat(
          "CUDA graph capture failed (CUDA error: ", cudaGetErrorString(err),
          "): an operation in the captured region synchronized with the host, used a stream "
          "that was not joined back into the capturing stream, or could not be captured"));
    }
    EMBER_CUDA_CHECK(err);
    throw Error("Invalid capture.");
  }
  graph_ = g;
  has_graph_ = true;
  uses_index_kernels_ = detail::index_launch_count(capture_dev_) != index_launches_at_begin_;
  err = cudaGraphInstantiate(&graph_exec_, graph_, 0);
  // The executable graph is all replay needs.
  cudaGraphDestroy(graph_);
  graph_ = nullptr;
  has_graph_ = false;
  EMBER_CUDA_CHECK(err);
  has_graph_exec_ = true;
}

void CUDAGraph::replay() {
  EMBER_CHECK(has_graph_exec_, "Called CUDAGraph::replay without a preceding successful capture.");
  detail::DeviceGuard guard(capture_dev_);
  const CUDAStream stream = getCurrentCUDAStream(capture_dev_);
  if (rng_increment_ != 0) {
    uint64_t seed, offset;
    {
      std::lock_guard<std::mutex> lock(rng_generator_->mutex());
      seed = rng_generator_->current_seed();
      offset = rng_generator_->reserve_philox_offset(rng_increment_);
    }
    // The fills run on the current stream: the replay's.
    detail::write_word(rng_state_, seed);
    detail::write_word(rng_state_ + 1, offset);
  }
  EMBER_CUDA_CHECK(cudaGraphLaunch(graph_exec_, stream.stream()));
  // The index record may be set by this launch: look at it at the next
  // host read (Note [Device-side index checks]).
  if (uses_index_kernels_) detail::record_for_launch(capture_dev_);
  replayed_.record(stream);
}

void CUDAGraph::reset() {
  if (capturing_) {
    // Abandon the capture (a reset from an error path).
    detail::DeviceGuard guard(capture_dev_);
    cudaGraph_t g = nullptr;
    if (cudaStreamEndCapture(capture_stream_.stream(), &g) != cudaSuccess) cudaGetLastError();
    if (g != nullptr) cudaGraphDestroy(g);
    capturing_ = false;
    detail::end_allocate_to_pool(capture_dev_, id_);
    detail::unregister_capture_rng(id_);
  }
  if (has_graph_) {
    cudaGraphDestroy(graph_);
    graph_ = nullptr;
    has_graph_ = false;
  }
  // The last replay (launches of one executable graph run in order) must
  // be done with the pool before anything else may use its blocks.
  replayed_.synchronize();
  if (has_graph_exec_) {
    cudaGraphExecDestroy(graph_exec_);
    graph_exec_ = nullptr;
    has_graph_exec_ = false;
  }
  if (holds_pool_) {
    holds_pool_ = false;
    detail::release_pool(capture_dev_, mempool_id_);
  }
  uses_index_kernels_ = false;
  rng_increment_ = 0;
}

MempoolId_t CUDAGraph::pool() {
  EMBER_CHECK(has_graph_exec_, "Called CUDAGraph::pool() without a preceding successful capture.");
  return mempool_id_;
}

}  // namespace cuda
}  // namespace ember
