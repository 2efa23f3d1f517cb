// Note [cuDNN convolution]: convolutions on CUDA go to cuDNN when it is
// enabled (cuda::set_cudnn_enabled, torch.backends.cudnn.enabled) and the
// library takes the case, else to conv.cc's im2col + cuBLAS. As PyTorch with
// benchmark=False, the algorithm is cuDNN's first heuristic choice
// (cudnnGet*Algorithm_v7) that runs, remembered per geometry. float32 may
// use TF32 tensor cores unless cuda::set_cudnn_allow_tf32(false) (PyTorch's
// torch.backends.cudnn.allow_tf32, default true; Note [float32 matmul
// precision] in tensor/precision.h), else runs in FMA math, within float
// rounding of the CPU's; float16 and bfloat16 run on tensor cores with
// float32 accumulation (PyTorch's convolution compute type), double in
// double. A cuDNN failure is not fatal: it is reported once
// per function on stderr and that call runs im2col instead, so a cuDNN
// older or newer than the headers ember was built with costs speed, never
// a result.

#include <cudnn.h>

#include <atomic>
#include <iostream>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "tensor/cuda/context.h"
#include "tensor/cuda/cuda.h"
#include "tensor/cuda/cudnn_conv.h"
#include "tensor/empty.h"
#include "tensor/precision.h"

namespace ember {
namespace cuda {
namespace {

std::atomic<bool> g_enabled{true};

// Says once per cuDNN function that it failed and im2col runs instead.
bool ok(cudnnStatus_t s, const char* what) {
  if (s == CUDNN_STATUS_SUCCESS) return true;
  static std::mutex mu;
  static std::set<std::string>* warned = new std::set<std::string>();
  std::lock_guard<std::mutex> lock(mu);
  if (warned->insert(what).second) {
    std::cerr << "UserWarning: " << what << " failed (" << cudnnGetErrorString(s)
              << "); convolutions fall back to im2col + cuBLAS\n";
  }
  return false;
}

// One handle per thread and device, as cuBLAS's (blas.cc); nullptr where
// cuDNN cannot make one (then every call takes im2col).
cudnnHandle_t handle_for(int device) {
  struct Handles {
    std::unordered_map<int, cudnnHandle_t> by_device;
    ~Handles() {
      for (auto& kv : by_device) {
        if (kv.second != nullptr) cudnnDestroy(kv.second);
      }
    }
  };
  thread_local Handles handles;
  auto it = handles.by_device.find(device);
  if (it != handles.by_device.end()) return it->second;
  cudnnHandle_t h = nullptr;
  if (!ok(cudnnCreate(&h), "cudnnCreate")) h = nullptr;
  handles.by_device[device] = h;
  return h;
}

// The four descriptors of one convolution, destroyed with it.
class Descriptors {
 public:
  // t: how the tensors are stored; compute: the accumulation type; math:
  // which units may run it.
  Descriptors(const ember::detail::ConvGeometry& g, cudnnDataType_t t, cudnnDataType_t compute,
              cudnnMathType_t math) {
    valid_ = ok(cudnnCreateTensorDescriptor(&x_), "cudnnCreateTensorDescriptor") &&
             ok(cudnnCreateTensorDescriptor(&y_), "cudnnCreateTensorDescriptor") &&
             ok(cudnnCreateFilterDescriptor(&w_), "cudnnCreateFilterDescriptor") &&
             ok(cudnnCreateConvolutionDescriptor(&c_), "cudnnCreateConvolutionDescriptor");
    if (!valid_) return;
    auto i = [](int64_t v) { return static_cast<int>(v); };
    valid_ =
        ok(cudnnSetTensor4dDescriptor(x_, CUDNN_TENSOR_NCHW, t, i(g.n), i(g.c), i(g.h), i(g.w)),
           "cudnnSetTensor4dDescriptor") &&
        ok(cudnnSetTensor4dDescriptor(y_, CUDNN_TENSOR_NCHW, t, i(g.n), i(g.co), i(g.oh), i(g.ow)),
           "cudnnSetTensor4dDescriptor") &&
        ok(cudnnSetFilter4dDescriptor(w_, t, CUDNN_TENSOR_NCHW, i(g.co), i(g.c / g.groups),
                                      i(g.kh), i(g.kw)),
           "cudnnSetFilter4dDescriptor") &&
        ok(cudnnSetConvolution2dDescriptor(c_, i(g.ph), i(g.pw), i(g.sh), i(g.sw), i(g.dh),
                                           i(g.dw), CUDNN_CROSS_CORRELATION, compute),
           "cudnnSetConvolution2dDescriptor") &&
        ok(cudnnSetConvolutionGroupCount(c_, i(g.groups)), "cudnnSetConvolutionGroupCount") &&
        ok(cudnnSetConvolutionMathType(c_, math), "cudnnSetConvolutionMathType");
    if (!valid_) return;
    // The output geometry must be ours, or the call would write elsewhere.
    int n = 0, co = 0, oh = 0, ow = 0;
    valid_ = ok(cudnnGetConvolution2dForwardOutputDim(c_, x_, w_, &n, &co, &oh, &ow),
                "cudnnGetConvolution2dForwardOutputDim") &&
             n == g.n && co == g.co && oh == g.oh && ow == g.ow;
  }
  ~Descriptors() {
    if (c_ != nullptr) cudnnDestroyConvolutionDescriptor(c_);
    if (w_ != nullptr) cudnnDestroyFilterDescriptor(w_);
    if (y_ != nullptr) cudnnDestroyTensorDescriptor(y_);
    if (x_ != nullptr) cudnnDestroyTensorDescriptor(x_);
  }
  Descriptors(const Descriptors&) = delete;
  Descriptors& operator=(const Descriptors&) = delete;

  bool valid() const { return valid_; }
  cudnnTensorDescriptor_t x() const { return x_; }
  cudnnTensorDescriptor_t y() const { return y_; }
  cudnnFilterDescriptor_t w() const { return w_; }
  cudnnConvolutionDescriptor_t conv() const { return c_; }

 private:
  bool valid_ = false;
  cudnnTensorDescriptor_t x_ = nullptr, y_ = nullptr;
  cudnnFilterDescriptor_t w_ = nullptr;
  cudnnConvolutionDescriptor_t c_ = nullptr;
};

// What a call needs before it can run on cuDNN, or nothing (then im2col).
struct Setup {
  cudnnHandle_t handle = nullptr;
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  cudnnMathType_t math = CUDNN_FMA_MATH;
  bool usable = false;
};

Setup setup_for(const Tensor& t) {
  Setup s;
  if (!cudnn_enabled() || cudnn_version() == 0) return s;
  switch (t.dtype()) {
    case kFloat:
      s.math = cudnn_allow_tf32() ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
      break;
    case kHalf:
      s.type = CUDNN_DATA_HALF;
      s.math = CUDNN_TENSOR_OP_MATH;
      break;
    case kBFloat16:
      s.type = CUDNN_DATA_BFLOAT16;
      s.math = CUDNN_TENSOR_OP_MATH;
      break;
    case kDouble:
      s.type = s.compute = CUDNN_DATA_DOUBLE;
      break;
    default:
      return s;
  }
  s.handle = handle_for(t.device().index());
  // The current stream (Note [CUDA streams] in stream.cc), set before every
  // convolution.
  s.usable = s.handle != nullptr &&
             ok(cudnnSetStream(s.handle, detail::current_stream_handle(t.device().index())),
                "cudnnSetStream");
  return s;
}

// Device bytes for a workspace, from the caching allocator.
Tensor workspace(size_t bytes, const Tensor& like) {
  return empty({static_cast<int64_t>(bytes)}, TensorOptions(kByte).device(like.device()));
}

// alpha = 1, beta = 0 in the type cuDNN reads for `type` (double for double).
struct Scaling {
  explicit Scaling(cudnnDataType_t type) : dbl(type == CUDNN_DATA_DOUBLE) {}
  const void* one() const { return dbl ? static_cast<const void*>(&d1) : &f1; }
  const void* zero() const { return dbl ? static_cast<const void*>(&d0) : &f0; }
  bool dbl;
  float f1 = 1, f0 = 0;
  double d1 = 1, d0 = 0;
};

constexpr int kMaxAlgos = 16;

// The algorithm each geometry ran with, so that cuDNN's heuristics (which
// cost more than a small convolution itself) are asked once per geometry,
// as PyTorch's algorithm cache does.
struct Choice {
  int algo;
  size_t bytes;
};

std::string cache_key(const char* what, const ember::detail::ConvGeometry& g, const Tensor& t,
                      cudnnMathType_t math) {
  return absl::StrCat(what, "|", static_cast<int>(t.dtype()), "|", static_cast<int>(math), "|",
                      t.device().index(), "|", g.n,
                      ",", g.c, ",", g.h, ",", g.w, ",", g.co, ",", g.kh, ",", g.kw, ",", g.sh,
                      ",", g.sw, ",", g.ph, ",", g.pw, ",", g.dh, ",", g.dw, ",", g.groups);
}

std::mutex cache_mu;
std::unordered_map<std::string, Choice>& cache() {
  static auto* c = new std::unordered_map<std::string, Choice>();
  return *c;
}

// Runs `call(algo, workspace, bytes)` with the cached choice for `key`, else
// with each of cuDNN's heuristic choices (`query` fills them) in order until
// one succeeds, which is cached; false when none does.
template <typename Algo, typename Perf, typename Query, typename Call>
bool run_cached(const std::string& key, const Tensor& like, const char* what, const Query& query,
                const Call& call) {
  auto run = [&](int algo, size_t bytes) {
    Tensor ws = bytes > 0 ? workspace(bytes, like) : Tensor();
    return call(static_cast<Algo>(algo), ws.defined() ? ws.data_ptr() : nullptr, bytes);
  };
  std::optional<Choice> hit;
  {
    std::lock_guard<std::mutex> lock(cache_mu);
    auto it = cache().find(key);
    if (it != cache().end()) hit = it->second;
  }
  if (hit && run(hit->algo, hit->bytes) == CUDNN_STATUS_SUCCESS) return true;
  Perf perf[kMaxAlgos];
  int count = 0;
  if (!query(perf, &count)) return false;
  for (int i = 0; i < count; ++i) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
    cudnnStatus_t s = run(static_cast<int>(perf[i].algo), perf[i].memory);
    if (s == CUDNN_STATUS_SUCCESS) {
      std::lock_guard<std::mutex> lock(cache_mu);
      cache()[key] = Choice{static_cast<int>(perf[i].algo), perf[i].memory};
      return true;
    }
    if (s != CUDNN_STATUS_NOT_SUPPORTED) return ok(s, what);
  }
  return ok(CUDNN_STATUS_NOT_SUPPORTED, what);
}

}  // namespace

bool cudnn_is_available() { return cudnn_version() != 0; }

// The library's own version (it needs no device, so asking initializes no
// CUDA: Note [CUDA after fork]).
int64_t cudnn_version() { return static_cast<int64_t>(cudnnGetVersion()); }

bool cudnn_enabled() { return g_enabled.load(); }
void set_cudnn_enabled(bool enabled) { g_enabled.store(enabled); }

namespace detail {
namespace {

// What one cuDNN convolution call sees.
struct Context {
  cudnnHandle_t handle;
  const Descriptors& d;
  const Scaling& a;
};

// The part the three directions share: the handle, the descriptors, then
// run_cached with `query(ctx, perf, count)` (cuDNN's heuristics, reported as
// `query_name`) and `call(ctx, algo, workspace, bytes)`.
template <typename Algo, typename Perf, typename Query, typename Call>
bool convolve(const ember::detail::ConvGeometry& g, const Tensor& like, const char* kind,
              const char* query_name, const char* call_name, const Query& query,
              const Call& call) {
  Setup s = setup_for(like);
  if (!s.usable) return false;
  DeviceGuard guard(like.device().index());
  Descriptors d(g, s.type, s.compute, s.math);
  if (!d.valid()) return false;
  Scaling a(s.type);
  const Context ctx{s.handle, d, a};
  return run_cached<Algo, Perf>(
      cache_key(kind, g, like, s.math), like, call_name,
      [&](Perf* perf, int* count) { return ok(query(ctx, perf, count), query_name); },
      [&](Algo algo, void* ws, size_t bytes) { return call(ctx, algo, ws, bytes); });
}

}  // namespace

bool cudnn_conv_forward(const ember::detail::ConvGeometry& g, const Tensor& x, const Tensor& w,
                        Tensor& out) {
  return convolve<cudnnConvolutionFwdAlgo_t, cudnnConvolutionFwdAlgoPerf_t>(
      g, x, "fwd", "cudnnGetConvolutionForwardAlgorithm_v7", "cudnnConvolutionForward",
      [](const Context& c, cudnnConvolutionFwdAlgoPerf_t* perf, int* count) {
        return cudnnGetConvolutionForwardAlgorithm_v7(c.handle, c.d.x(), c.d.w(), c.d.conv(),
                                                      c.d.y(), kMaxAlgos, count, perf);
      },
      [&](const Context& c, cudnnConvolutionFwdAlgo_t algo, void* ws, size_t bytes) {
        return cudnnConvolutionForward(c.handle, c.a.one(), c.d.x(), x.data_ptr(), c.d.w(),
                                       w.data_ptr(), c.d.conv(), algo, ws, bytes, c.a.zero(),
                                       c.d.y(), out.data_ptr());
      });
}

bool cudnn_conv_backward_input(const ember::detail::ConvGeometry& g, const Tensor& gy,
                               const Tensor& w, Tensor& gx) {
  return convolve<cudnnConvolutionBwdDataAlgo_t, cudnnConvolutionBwdDataAlgoPerf_t>(
      g, gy, "bwd_data", "cudnnGetConvolutionBackwardDataAlgorithm_v7",
      "cudnnConvolutionBackwardData",
      [](const Context& c, cudnnConvolutionBwdDataAlgoPerf_t* perf, int* count) {
        return cudnnGetConvolutionBackwardDataAlgorithm_v7(c.handle, c.d.w(), c.d.y(), c.d.conv(),
                                                           c.d.x(), kMaxAlgos, count, perf);
      },
      [&](const Context& c, cudnnConvolutionBwdDataAlgo_t algo, void* ws, size_t bytes) {
        return cudnnConvolutionBackwardData(c.handle, c.a.one(), c.d.w(), w.data_ptr(), c.d.y(),
                                            gy.data_ptr(), c.d.conv(), algo, ws, bytes, c.a.zero(),
                                            c.d.x(), gx.data_ptr());
      });
}

bool cudnn_conv_backward_weight(const ember::detail::ConvGeometry& g, const Tensor& gy,
                                const Tensor& x, Tensor& gw) {
  return convolve<cudnnConvolutionBwdFilterAlgo_t, cudnnConvolutionBwdFilterAlgoPerf_t>(
      g, gy, "bwd_filter", "cudnnGetConvolutionBackwardFilterAlgorithm_v7",
      "cudnnConvolutionBackwardFilter",
      [](const Context& c, cudnnConvolutionBwdFilterAlgoPerf_t* perf, int* count) {
        return cudnnGetConvolutionBackwardFilterAlgorithm_v7(c.handle, c.d.x(), c.d.y(),
                                                             c.d.conv(), c.d.w(), kMaxAlgos,
                                                             count, perf);
      },
      [&](const Context& c, cudnnConvolutionBwdFilterAlgo_t algo, void* ws, size_t bytes) {
        return cudnnConvolutionBackwardFilter(c.handle, c.a.one(), c.d.x(), x.data_ptr(), c.d.y(),
                                              gy.data_ptr(), c.d.conv(), algo, ws, bytes,
                                              c.a.zero(), c.d.w(), gw.data_ptr());
      });
}

}  // namespace detail
}  // namespace cuda
}  // namespace ember
