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
// - Random numbers: not graph-safe (graph.h).

#include "tensor/cuda/graph.h"

#include <cuda_runtime_api.h>

#include <atomic>

#include "absl/strings/str_cat.h"
#include "tensor/cuda/context.h"
#include "tensor/cuda/cuda.h"
#include "tensor/cuda/graph_internal.h"
#include "tensor/cuda/index_launch.h"
#include "tensor/error.h"

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
}

MempoolId_t CUDAGraph::pool() {
  EMBER_CHECK(has_graph_exec_, "Called CUDAGraph::pool() without a preceding successful capture.");
  return mempool_id_;
}

}  // namespace cuda
}  // namespace ember
