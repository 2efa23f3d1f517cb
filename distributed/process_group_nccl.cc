// ProcessGroupNCCL (Note [NCCL execution model] in process_group_nccl.h).
// Built only with a CUDA toolkit; process_group_nccl_stub.cc stands in
// without one.

#include "distributed/process_group_nccl.h"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <list>
#include <mutex>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "distributed/process_group_nccl_checks.h"
#include "tensor/cuda/cuda.h"
#include "tensor/cuda/stream.h"
#include "tensor/empty.h"
#include "tensor/error.h"

namespace ember::distributed {
namespace {

using Clock = std::chrono::steady_clock;

void cuda_check(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return;
  cudaGetLastError();  // clear it, as PyTorch's C10_CUDA_CHECK does
  throw Error(absl::StrCat("CUDA error: ", cudaGetErrorString(err), " (ProcessGroupNCCL, ", what,
                           ")"));
}

std::string version_string() {
  std::vector<int> v = ProcessGroupNCCL::nccl_version();
  return absl::StrCat(v[0], ".", v[1], ".", v[2]);
}

ncclDataType_t nccl_type(ScalarType t) {
  switch (t) {
    case ScalarType::Byte:
    case ScalarType::Bool: return ncclUint8;
    case ScalarType::Char: return ncclInt8;
    case ScalarType::Int: return ncclInt32;
    case ScalarType::Long: return ncclInt64;
    case ScalarType::Half: return ncclFloat16;
    case ScalarType::Float: return ncclFloat32;
    case ScalarType::Double: return ncclFloat64;
    case ScalarType::BFloat16: return ncclBfloat16;
    default: break;
  }
  throw TypeError(absl::StrCat("Input tensor data type is not supported for NCCL process group: ",
                               scalar_type_name(t)));
}

ncclRedOp_t nccl_op(ReduceOp op, ScalarType t) {
  switch (nccl_reduction(op, t)) {
    case NcclReduction::kSum: return ncclSum;
    case NcclReduction::kProd: return ncclProd;
    case NcclReduction::kMin: return ncclMin;
    case NcclReduction::kMax: return ncclMax;
    case NcclReduction::kAvg: return ncclAvg;
  }
  return ncclSum;
}

class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    cuda_check(cudaGetDevice(&previous_), "cudaGetDevice");
    if (previous_ != device) cuda_check(cudaSetDevice(device), "cudaSetDevice");
    device_ = device;
  }
  ~DeviceGuard() {
    if (previous_ != device_) cudaSetDevice(previous_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0;
  int device_ = 0;
};

bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && std::strcmp(v, "0") != 0 && *v != '\0';
}

}  // namespace

class NcclWork : public Work {
 public:
  NcclWork(std::weak_ptr<ProcessGroupNCCL::Impl> impl, std::chrono::milliseconds group_timeout,
           std::string op, uint64_t seq, int device, bool blocking)
      : impl_(std::move(impl)),
        group_timeout_(group_timeout),
        op_(std::move(op)),
        seq_(seq),
        device_(device),
        blocking_(blocking) {}
  ~NcclWork() override {
    if (end_ != nullptr) cudaEventDestroy(end_);
  }

  bool is_completed() override { return exception() != nullptr || device_done(); }
  bool wait(std::chrono::milliseconds timeout = Store::kNoTimeout) override;
  std::exception_ptr exception() override {
    std::lock_guard<std::mutex> lock(mu_);
    return error_;
  }
  uint64_t sequence_number() const override { return seq_; }

  // True once the device finished the op (or its event failed, which sets
  // the error).
  bool device_done() {
    if (end_ == nullptr) return true;
    cudaError_t st = cudaEventQuery(end_);
    if (st == cudaErrorNotReady) return false;
    if (st != cudaSuccess) {
      cudaGetLastError();
      set_error(std::make_exception_ptr(DistBackendError(absl::StrCat(
          "ProcessGroupNCCL: ", op_, " (sequence number ", seq_,
          ") failed on the device: ", cudaGetErrorString(st)))));
    }
    return true;
  }
  void set_error(std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!error_) error_ = std::move(e);
  }
  std::string describe() const { return absl::StrCat(op_, " (sequence number ", seq_, ")"); }

  cudaEvent_t end_ = nullptr;
  Clock::time_point start_;
  std::vector<Tensor> keep_;  // alive until the device finished the op

 private:
  // Weak: a Work may outlive its group (then a timeout breaks nothing).
  const std::weak_ptr<ProcessGroupNCCL::Impl> impl_;
  const std::chrono::milliseconds group_timeout_;
  const std::string op_;
  const uint64_t seq_;
  const int device_;
  const bool blocking_;
  std::mutex mu_;
  std::exception_ptr error_;
};

struct ProcessGroupNCCL::Impl : std::enable_shared_from_this<ProcessGroupNCCL::Impl> {
  Impl(std::shared_ptr<Store> store, int rank, int size, const Options& options)
      : store(std::move(store)), rank(rank), size(size), options(options) {
    watchdog = std::thread([this] { watchdog_loop(); });
  }
  ~Impl();

  // The communicator, its stream and the ordering event, on `dev`; made at
  // the first call (every rank must make the same call).
  void ensure_comm(int dev);
  // Ends a NCCL call: polls a nonblocking communicator's state while the
  // call is in progress (at most the group's timeout), then throws the
  // call's error, aborting the communicator, unless it succeeded.
  void settle(ncclResult_t r, const char* what);
  // Enqueues launch(comm, stream) on the group's stream after the current
  // stream's work, and returns its Work.
  template <typename Launch>
  std::shared_ptr<Work> run(const char* op, int dev, std::vector<Tensor> keep,
                            const Launch& launch, bool blocking = false);
  void check_broken(const char* op);
  // Breaks the group: aborts the communicator and fails the pending works.
  void abort(std::exception_ptr why, const std::string& message);
  void watchdog_loop();

  const std::shared_ptr<Store> store;
  const int rank;
  const int size;
  const Options options;

  std::mutex call_mu;  // one enqueuing call at a time
  uint64_t next_seq = 0;
  cudaEvent_t ready = nullptr;  // recorded on the current stream before each op

  std::mutex mu;  // everything below
  std::condition_variable cv;
  int device = -1;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  bool aborted = false;
  bool stopping = false;
  std::exception_ptr broken;
  std::list<std::shared_ptr<NcclWork>> inflight;
  std::thread watchdog;
};

bool NcclWork::wait(std::chrono::milliseconds timeout) {
  if (auto e = exception()) std::rethrow_exception(e);
  if (blocking_ || timeout != Store::kNoTimeout) {
    const auto limit = timeout == Store::kNoTimeout ? group_timeout_ : timeout;
    const auto deadline = Clock::now() + limit;
    while (!device_done()) {
      if (auto e = exception()) std::rethrow_exception(e);
      if (Clock::now() >= deadline) {
        auto ex = std::make_exception_ptr(TimeoutError(absl::StrCat(
            "ProcessGroupNCCL: ", describe(), " timed out after ", limit.count(), " ms")));
        if (auto impl = impl_.lock()) {
          impl->abort(ex, absl::StrCat("Work::wait: ", describe(), " ran past its timeout"));
        }
        std::rethrow_exception(ex);
      }
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  } else {
    // The current stream waits for the op; the host goes on.
    DeviceGuard guard(device_);
    cuda_check(cudaStreamWaitEvent(cuda::getCurrentCUDAStream(device_).stream(), end_, 0),
               "cudaStreamWaitEvent");
  }
  if (auto e = exception()) std::rethrow_exception(e);
  return true;
}

ProcessGroupNCCL::Impl::~Impl() {
  {
    std::lock_guard<std::mutex> lock(mu);
    stopping = true;
  }
  cv.notify_all();
  watchdog.join();
  // Let issued ops finish (bounded, as destroy_process_group's wait for the
  // store's clients: a peer that never joins them must not hang shutdown),
  // then abort, which frees the communicator either way.
  const auto deadline =
      Clock::now() + std::min<std::chrono::milliseconds>(options.timeout, std::chrono::seconds(10));
  bool pending = true;
  while (pending && !aborted && Clock::now() < deadline) {
    pending = false;
    for (auto& w : inflight) pending = pending || !w->device_done();
    if (pending) std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  if (comm != nullptr && !aborted) ncclCommAbort(comm);
  if (stream != nullptr) cudaStreamDestroy(stream);
  if (ready != nullptr) cudaEventDestroy(ready);
  inflight.clear();
}

void ProcessGroupNCCL::Impl::check_broken(const char* op) {
  std::lock_guard<std::mutex> lock(mu);
  if (!broken) return;
  try {
    std::rethrow_exception(broken);
  } catch (const Error& e) {
    throw DistBackendError(
        absl::StrCat("ProcessGroupNCCL::", op, ": the group failed earlier: ", e.what()));
  }
}

void ProcessGroupNCCL::Impl::abort(std::exception_ptr why, const std::string& message) {
  std::list<std::shared_ptr<NcclWork>> pending;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (!broken) broken = why;
    if (comm != nullptr && !aborted) {
      ncclCommAbort(comm);
      aborted = true;
      std::cerr << "[rank " << rank << "] ProcessGroupNCCL: " << message
                << "; the communicator was aborted" << std::endl;
    }
    pending = inflight;
  }
  // Their tensors stay referenced until the (aborted) kernels are done.
  for (auto& w : pending) w->set_error(why);
}

void ProcessGroupNCCL::Impl::settle(ncclResult_t r, const char* what) {
  if (r == ncclInProgress) {
    const auto deadline = Clock::now() + options.timeout;
    while (r == ncclInProgress) {
      if (Clock::now() >= deadline) {
        auto ex = std::make_exception_ptr(TimeoutError(absl::StrCat(
            "ProcessGroupNCCL: ", what, " timed out after ", options.timeout.count(), " ms")));
        abort(ex, absl::StrCat(what, " ran past the group's timeout"));
        std::rethrow_exception(ex);
      }
      std::this_thread::yield();
      // Under mu: abort() may free the communicator at any time.
      std::lock_guard<std::mutex> lock(mu);
      if (aborted || comm == nullptr) break;  // r stays ncclInProgress: "aborted"
      ncclResult_t state = ncclSuccess;
      ncclResult_t q = ncclCommGetAsyncError(comm, &state);
      r = q != ncclSuccess ? q : state;
    }
  }
  if (r == ncclSuccess) return;
  std::string detail;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (comm != nullptr && !aborted) {
      const char* last = ncclGetLastError(comm);
      if (last != nullptr && *last != '\0') detail = absl::StrCat("\nncclGetLastError: ", last);
    }
  }
  auto ex = std::make_exception_ptr(DistBackendError(
      absl::StrCat("NCCL error in ProcessGroupNCCL (", what, "): ",
                   r == ncclInProgress ? "the group was aborted" : ncclGetErrorString(r),
                   ", NCCL version ", version_string(), detail)));
  abort(ex, absl::StrCat(what, " failed"));
  std::rethrow_exception(ex);
}

void ProcessGroupNCCL::Impl::ensure_comm(int dev) {
  {
    std::lock_guard<std::mutex> lock(mu);
    if (comm != nullptr) {
      EMBER_CHECK_VALUE(dev == device, "ProcessGroupNCCL: rank ", rank,
                        "'s communicator is on cuda:", device, "; a tensor on cuda:", dev,
                        " needs a group of its own (new_group)");
      return;
    }
  }
  DeviceGuard guard(dev);
  ncclUniqueId id;
  const std::string key = options.group_name + "/nccl_unique_id";
  if (rank == 0) {
    settle(ncclGetUniqueId(&id), "ncclGetUniqueId");
    const auto* p = reinterpret_cast<const uint8_t*>(&id);
    store->set(key, std::vector<uint8_t>(p, p + sizeof(id)));
  } else {
    std::vector<uint8_t> v = store->get(key);
    EMBER_CHECK(v.size() == sizeof(id), "ProcessGroupNCCL: the store's NCCL unique id has ",
                v.size(), " bytes, expected ", sizeof(id));
    std::memcpy(&id, v.data(), sizeof(id));
  }
  cudaStream_t s = nullptr;
  cuda_check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  cuda_check(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming), "cudaEventCreate");
  // Nonblocking, so that a peer that never joins ends in a timeout instead
  // of a hang inside ncclCommInitRank.
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  ncclComm_t c = nullptr;
  ncclResult_t r = ncclCommInitRankConfig(&c, size, id, rank, &config);
  {
    std::lock_guard<std::mutex> lock(mu);
    comm = c;
    stream = s;
    device = dev;
  }
  settle(r, "ncclCommInitRank");
}

template <typename Launch>
std::shared_ptr<Work> ProcessGroupNCCL::Impl::run(const char* op, int dev,
                                                  std::vector<Tensor> keep, const Launch& launch,
                                                  bool blocking) {
  std::lock_guard<std::mutex> call(call_mu);
  check_broken(op);
  ensure_comm(dev);
  DeviceGuard guard(dev);
  auto work = std::make_shared<NcclWork>(weak_from_this(), options.timeout, op, next_seq++, dev,
                                         blocking || options.blocking_wait);
  cuda_check(cudaEventRecord(ready, cuda::getCurrentCUDAStream(dev).stream()), "cudaEventRecord");
  cuda_check(cudaStreamWaitEvent(stream, ready, 0), "cudaStreamWaitEvent");
  launch(comm, stream);
  cuda_check(cudaEventCreateWithFlags(&work->end_, cudaEventDisableTiming), "cudaEventCreate");
  cuda_check(cudaEventRecord(work->end_, stream), "cudaEventRecord");
  work->keep_ = std::move(keep);
  work->start_ = Clock::now();
  {
    std::lock_guard<std::mutex> lock(mu);
    inflight.push_back(work);
  }
  return work;
}

void ProcessGroupNCCL::Impl::watchdog_loop() {
  std::unique_lock<std::mutex> lock(mu);
  int current = -1;
  for (;;) {
    cv.wait_for(lock, std::chrono::milliseconds(inflight.empty() ? 100 : 2),
                [&] { return stopping; });
    if (stopping) return;
    if (device >= 0 && device != current) {
      cudaSetDevice(device);  // the events it queries live there
      current = device;
    }
    std::shared_ptr<NcclWork> late;
    for (auto it = inflight.begin(); it != inflight.end();) {
      if ((*it)->device_done()) {
        it = inflight.erase(it);  // releases its tensors
        continue;
      }
      if (!broken && Clock::now() - (*it)->start_ > options.timeout) late = *it;
      ++it;
    }
    std::string async_error;
    if (comm != nullptr && !aborted && !broken) {
      ncclResult_t state = ncclSuccess;
      if (ncclCommGetAsyncError(comm, &state) == ncclSuccess && state != ncclSuccess &&
          state != ncclInProgress) {
        async_error = ncclGetErrorString(state);
      }
    }
    if (late == nullptr && async_error.empty()) continue;
    lock.unlock();
    if (late != nullptr) {
      abort(std::make_exception_ptr(TimeoutError(
                absl::StrCat("ProcessGroupNCCL: ", late->describe(), " timed out after ",
                             options.timeout.count(), " ms (watchdog)"))),
            absl::StrCat("watchdog: ", late->describe(), " ran past its timeout"));
    } else {
      abort(std::make_exception_ptr(DistBackendError(absl::StrCat(
                "ProcessGroupNCCL: asynchronous NCCL error: ", async_error))),
            "watchdog: asynchronous NCCL error");
    }
    lock.lock();
  }
}

ProcessGroupNCCL::ProcessGroupNCCL(std::shared_ptr<Store> store, int rank, int size,
                                   Options options)
    : ProcessGroup(rank, size), options_(std::move(options)) {
  EMBER_CHECK(store != nullptr, "ProcessGroupNCCL: store is null");
  EMBER_CHECK_VALUE(size >= 1 && rank >= 0 && rank < size, "ProcessGroupNCCL: invalid rank ", rank,
                    " for a group of size ", size);
  EMBER_CHECK(cuda::device_count() > 0,
              "ProcessGroupNCCL is only supported with GPUs, no GPUs found!");
  if (env_flag("EMBER_NCCL_BLOCKING_WAIT") || env_flag("TORCH_NCCL_BLOCKING_WAIT")) {
    options_.blocking_wait = true;
  }
  impl_ = std::make_shared<Impl>(std::move(store), rank, size, options_);
}

ProcessGroupNCCL::ProcessGroupNCCL(std::shared_ptr<Store> store, int rank, int size)
    : ProcessGroupNCCL(std::move(store), rank, size, Options()) {}

ProcessGroupNCCL::~ProcessGroupNCCL() = default;

std::vector<int> ProcessGroupNCCL::nccl_version() {
  int v = 0;
  ncclGetVersion(&v);
  // NCCL_VERSION_CODE: major * 10000 + minor * 100 + patch since 2.9.
  return {v / 10000, (v / 100) % 100, v % 100};
}

namespace {
int device_of(const Tensor& t) { return t.device().has_index() ? t.device().index() : 0; }
}  // namespace

std::shared_ptr<Work> ProcessGroupNCCL::allreduce(std::vector<Tensor>& tensors,
                                                  const AllreduceOptions& opts) {
  const Tensor& t = nccl_single_tensor(tensors, "allreduce");
  const ncclRedOp_t op = nccl_op(opts.op, t.dtype());
  Impl* impl = impl_.get();
  return impl->run("allreduce", device_of(t), {t}, [&](ncclComm_t comm, cudaStream_t s) {
    impl->settle(ncclAllReduce(t.data_ptr(), t.data_ptr(), t.numel(), nccl_type(t.dtype()), op,
                               comm, s),
                 "ncclAllReduce");
  });
}

std::shared_ptr<Work> ProcessGroupNCCL::broadcast(std::vector<Tensor>& tensors,
                                                  const BroadcastOptions& opts) {
  const Tensor& t = nccl_single_tensor(tensors, "broadcast");
  nccl_check_rank(opts.root, size_, "root");
  Impl* impl = impl_.get();
  return impl->run("broadcast", device_of(t), {t}, [&](ncclComm_t comm, cudaStream_t s) {
    impl->settle(ncclBroadcast(t.data_ptr(), t.data_ptr(), t.numel(), nccl_type(t.dtype()),
                               opts.root, comm, s),
                 "ncclBroadcast");
  });
}

std::shared_ptr<Work> ProcessGroupNCCL::reduce(std::vector<Tensor>& tensors,
                                               const ReduceOptions& opts) {
  const Tensor& t = nccl_single_tensor(tensors, "reduce");
  nccl_check_rank(opts.root, size_, "root");
  const ncclRedOp_t op = nccl_op(opts.op, t.dtype());
  Impl* impl = impl_.get();
  return impl->run("reduce", device_of(t), {t}, [&](ncclComm_t comm, cudaStream_t s) {
    impl->settle(ncclReduce(t.data_ptr(), t.data_ptr(), t.numel(), nccl_type(t.dtype()), op,
                            opts.root, comm, s),
                 "ncclReduce");
  });
}

namespace {
// Copies n bytes device to device on the group's stream.
void copy_on(void* dst, const void* src, int64_t nbytes, cudaStream_t s) {
  if (nbytes == 0 || dst == src) return;
  cuda_check(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync");
}

char* bytes_of(const Tensor& t) { return static_cast<char*>(t.data_ptr()); }

// The list of one tensor per rank that allgather / gather / scatter /
// reduce_scatter take, each like `like`.
const std::vector<Tensor>& per_rank(const std::vector<std::vector<Tensor>>& lists, int size,
                                    const Tensor& like, const char* op) {
  EMBER_CHECK_VALUE(lists.size() == 1, "ProcessGroupNCCL::", op,
                    ": expecting one tensor list only but got ", lists.size());
  EMBER_CHECK_VALUE(static_cast<int>(lists[0].size()) == size, "ProcessGroupNCCL::", op,
                    ": the tensor list must have one tensor per rank (", size, "), got ",
                    lists[0].size());
  for (const Tensor& t : lists[0]) nccl_check_same(t, like, op);
  return lists[0];
}
}  // namespace

std::shared_ptr<Work> ProcessGroupNCCL::allgather(std::vector<std::vector<Tensor>>& outputs,
                                                  std::vector<Tensor>& inputs) {
  const Tensor& in = nccl_single_tensor(inputs, "allgather");
  const std::vector<Tensor>& outs = per_rank(outputs, size_, in, "allgather");
  const int64_t nbytes = in.nbytes();
  Tensor flat = empty({size_ * in.numel()}, TensorOptions().dtype(in.dtype()).device(in.device()));
  std::vector<Tensor> keep(outs.begin(), outs.end());
  keep.push_back(in);
  keep.push_back(flat);
  Impl* impl = impl_.get();
  return impl->run("allgather", device_of(in), std::move(keep),
                   [&](ncclComm_t comm, cudaStream_t s) {
                     impl->settle(ncclAllGather(in.data_ptr(), flat.data_ptr(), in.numel(),
                                                nccl_type(in.dtype()), comm, s),
                                  "ncclAllGather");
                     for (int r = 0; r < size_; ++r) {
                       copy_on(outs[r].data_ptr(), bytes_of(flat) + r * nbytes, nbytes, s);
                     }
                   });
}

std::shared_ptr<Work> ProcessGroupNCCL::reduce_scatter(std::vector<Tensor>& outputs,
                                                       std::vector<std::vector<Tensor>>& inputs,
                                                       ReduceOp reduce_op) {
  const Tensor& out = nccl_single_tensor(outputs, "reduce_scatter");
  const std::vector<Tensor>& ins = per_rank(inputs, size_, out, "reduce_scatter");
  const ncclRedOp_t op = nccl_op(reduce_op, out.dtype());
  const int64_t nbytes = out.nbytes();
  Tensor flat =
      empty({size_ * out.numel()}, TensorOptions().dtype(out.dtype()).device(out.device()));
  std::vector<Tensor> keep(ins.begin(), ins.end());
  keep.push_back(out);
  keep.push_back(flat);
  Impl* impl = impl_.get();
  return impl->run("reduce_scatter", device_of(out), std::move(keep),
                   [&](ncclComm_t comm, cudaStream_t s) {
                     for (int r = 0; r < size_; ++r) {
                       copy_on(bytes_of(flat) + r * nbytes, ins[r].data_ptr(), nbytes, s);
                     }
                     impl->settle(ncclReduceScatter(flat.data_ptr(), out.data_ptr(), out.numel(),
                                                    nccl_type(out.dtype()), op, comm, s),
                                  "ncclReduceScatter");
                   });
}

// gather (to_root: the root receives list[r] from rank r) and scatter (the
// root sends list[r] to rank r); `mine` is this rank's tensor either way.
std::shared_ptr<Work> ProcessGroupNCCL::rooted(const char* op, const Tensor& mine,
                                               std::vector<std::vector<Tensor>>& lists, int root,
                                               bool to_root) {
  nccl_check_rank(root, size_, "root");
  std::vector<Tensor> keep{mine};
  const std::vector<Tensor>* list = nullptr;
  if (rank_ == root) {
    list = &per_rank(lists, size_, mine, op);
    keep.insert(keep.end(), list->begin(), list->end());
  } else {
    EMBER_CHECK_VALUE(lists.empty() || (lists.size() == 1 && lists[0].empty()),
                      "ProcessGroupNCCL::", op, ": only the root (rank ", root,
                      ") takes a tensor list");
  }
  Impl* impl = impl_.get();
  return impl->run(op, device_of(mine), std::move(keep), [&](ncclComm_t comm, cudaStream_t s) {
    const ncclDataType_t type = nccl_type(mine.dtype());
    const int64_t n = mine.numel();
    auto transfer = [&](void* data, int peer, bool receive) {
      if (receive) {
        impl->settle(ncclRecv(data, n, type, peer, comm, s), "ncclRecv");
      } else {
        impl->settle(ncclSend(data, n, type, peer, comm, s), "ncclSend");
      }
    };
    impl->settle(ncclGroupStart(), "ncclGroupStart");
    if (rank_ == root) {
      for (int r = 0; r < size_; ++r) {
        void* theirs = (*list)[r].data_ptr();
        if (r != root) {
          transfer(theirs, r, to_root);
        } else if (to_root) {
          copy_on(theirs, mine.data_ptr(), mine.nbytes(), s);
        } else {
          copy_on(mine.data_ptr(), theirs, mine.nbytes(), s);
        }
      }
    } else {
      transfer(mine.data_ptr(), root, !to_root);
    }
    impl->settle(ncclGroupEnd(), "ncclGroupEnd");
  });
}

std::shared_ptr<Work> ProcessGroupNCCL::gather(std::vector<std::vector<Tensor>>& outputs,
                                               std::vector<Tensor>& inputs, int root) {
  return rooted("gather", nccl_single_tensor(inputs, "gather"), outputs, root, /*to_root=*/true);
}

std::shared_ptr<Work> ProcessGroupNCCL::scatter(std::vector<Tensor>& outputs,
                                                std::vector<std::vector<Tensor>>& inputs,
                                                int root) {
  return rooted("scatter", nccl_single_tensor(outputs, "scatter"), inputs, root,
                /*to_root=*/false);
}

std::shared_ptr<Work> ProcessGroupNCCL::alltoall_base(Tensor& output, Tensor& input,
                                                      std::vector<int64_t> output_split_sizes,
                                                      std::vector<int64_t> input_split_sizes) {
  nccl_check_tensor(input, "alltoall_base");
  nccl_check_tensor(output, "alltoall_base");
  EMBER_CHECK_VALUE(input.dtype() == output.dtype() && input.device() == output.device(),
                    "ProcessGroupNCCL::alltoall_base: input and output must have the same type "
                    "and device");
  EMBER_CHECK_VALUE(input.dim() >= 1 && output.dim() >= 1,
                    "ProcessGroupNCCL::alltoall_base: tensors must have at least one dimension");
  // Rows along dim 0; a row is the same number of elements on both sides.
  const int64_t in_row = input.size(0) == 0 ? 0 : input.numel() / input.size(0);
  const int64_t out_row = output.size(0) == 0 ? 0 : output.numel() / output.size(0);
  auto splits = [&](std::vector<int64_t> sizes, const Tensor& t, const char* which) {
    if (sizes.empty()) {
      EMBER_CHECK_VALUE(t.size(0) % size_ == 0, "ProcessGroupNCCL::alltoall_base: ", which,
                        " dim 0 (", t.size(0), ") is not divisible by the group size (", size_,
                        ")");
      return std::vector<int64_t>(size_, t.size(0) / size_);
    }
    EMBER_CHECK_VALUE(static_cast<int>(sizes.size()) == size_, "ProcessGroupNCCL::alltoall_base: ",
                      which, " split sizes must have one entry per rank (", size_, ")");
    int64_t total = 0;
    for (int64_t v : sizes) {
      EMBER_CHECK_VALUE(v >= 0, "ProcessGroupNCCL::alltoall_base: negative split size");
      total += v;
    }
    EMBER_CHECK_VALUE(total == t.size(0), "ProcessGroupNCCL::alltoall_base: ", which,
                      " split sizes sum to ", total, ", dim 0 is ", t.size(0));
    return sizes;
  };
  const std::vector<int64_t> outs = splits(std::move(output_split_sizes), output, "output");
  const std::vector<int64_t> ins = splits(std::move(input_split_sizes), input, "input");
  EMBER_CHECK_VALUE(in_row == out_row || input.numel() == 0 || output.numel() == 0,
                    "ProcessGroupNCCL::alltoall_base: input and output rows differ in size");
  const int64_t row = std::max(in_row, out_row);
  Impl* impl = impl_.get();
  return impl->run("alltoall_base", device_of(input), {input, output},
                   [&](ncclComm_t comm, cudaStream_t s) {
                     const ncclDataType_t type = nccl_type(input.dtype());
                     const int64_t esize = input.element_size();
                     int64_t in_off = 0, out_off = 0;
                     impl->settle(ncclGroupStart(), "ncclGroupStart");
                     for (int r = 0; r < size_; ++r) {
                       const int64_t n_in = ins[r] * row, n_out = outs[r] * row;
                       if (n_in > 0) {
                         impl->settle(ncclSend(bytes_of(input) + in_off * esize, n_in, type, r,
                                               comm, s),
                                      "ncclSend");
                       }
                       if (n_out > 0) {
                         impl->settle(ncclRecv(bytes_of(output) + out_off * esize, n_out, type,
                                               r, comm, s),
                                      "ncclRecv");
                       }
                       in_off += n_in;
                       out_off += n_out;
                     }
                     impl->settle(ncclGroupEnd(), "ncclGroupEnd");
                   });
}

std::shared_ptr<Work> ProcessGroupNCCL::send(std::vector<Tensor>& tensors, int dst_rank, int) {
  const Tensor& t = nccl_single_tensor(tensors, "send");
  nccl_check_rank(dst_rank, size_, "destination");
  EMBER_CHECK_VALUE(dst_rank != rank_,
                    "Invalid destination rank: should not be the same as rank of the current "
                    "process.");
  Impl* impl = impl_.get();
  return impl->run("send", device_of(t), {t}, [&](ncclComm_t comm, cudaStream_t s) {
    impl->settle(ncclSend(t.data_ptr(), t.numel(), nccl_type(t.dtype()), dst_rank, comm, s),
                 "ncclSend");
  });
}

std::shared_ptr<Work> ProcessGroupNCCL::recv(std::vector<Tensor>& tensors, int src_rank, int) {
  const Tensor& t = nccl_single_tensor(tensors, "recv");
  nccl_check_rank(src_rank, size_, "source");
  EMBER_CHECK_VALUE(src_rank != rank_,
                    "Invalid source rank: should not be the same as rank of the current process.");
  Impl* impl = impl_.get();
  return impl->run("recv", device_of(t), {t}, [&](ncclComm_t comm, cudaStream_t s) {
    impl->settle(ncclRecv(t.data_ptr(), t.numel(), nccl_type(t.dtype()), src_rank, comm, s),
                 "ncclRecv");
  });
}

std::shared_ptr<Work> ProcessGroupNCCL::recv_anysource(std::vector<Tensor>&, int) {
  throw Error("ProcessGroupNCCL does not support recv from any source (recv_anysource)");
}

std::shared_ptr<Work> ProcessGroupNCCL::barrier() {
  int dev;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    dev = impl_->device;
  }
  if (dev < 0) dev = rank_ % static_cast<int>(cuda::device_count());
  Tensor one = empty({1}, TensorOptions().dtype(kFloat).device(Device(kCUDA, dev)));
  Impl* impl = impl_.get();
  return impl->run(
      "barrier", dev, {one},
      [&](ncclComm_t comm, cudaStream_t s) {
        impl->settle(
            ncclAllReduce(one.data_ptr(), one.data_ptr(), 1, ncclFloat32, ncclSum, comm, s),
            "ncclAllReduce");
      },
      /*blocking=*/true);
}

void ProcessGroupNCCL::monitored_barrier(std::chrono::milliseconds, bool) {
  throw ValueError("monitored_barrier is only implemented for GLOO backend.");
}

}  // namespace ember::distributed
