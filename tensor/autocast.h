#ifndef EMBER_TENSOR_AUTOCAST_H_
#define EMBER_TENSOR_AUTOCAST_H_

// Automatic mixed precision: torch.autocast for the C++ API.
//
//   {
//     ember::autocast::AutocastGuard guard(ember::kCUDA);   // float16
//     Tensor y = model->forward(x);     // matmuls and convs in float16,
//     Tensor loss = F::mse_loss(y, t);  // losses in float32
//   }
//   loss.backward();                    // the dtypes forward chose
//
// Note [Autocast]: the state is per thread and per device type (enabled,
// lower-precision dtype), as PyTorch keeps it. An op takes part only when it
// is on one of PyTorch's lists (aten/src/ATen/autocast_mode.cpp; the lists
// are below, one entry per ember op) and autocast is enabled for the device
// type of its inputs. Each listed op starts with
//
//   EMBER_AUTOCAST(mm, ::ember::mm, self, mat2);
//
// which, when any autocast is enabled on this thread (one thread-local byte
// read, the only cost an op pays otherwise), casts the op's tensor
// arguments by the op's policy and calls the op again with autocast
// excluded, so nested ops (matmul calling mm) never cast a second time, as
// PyTorch's wrappers exclude the Autocast dispatch keys. Casts are ordinary
// to(dtype) calls, recorded by autograd, so gradients reach float32 leaves
// in float32. The backward engine runs with autocast excluded
// (ExcludeAutocastGuard), so backward runs in the dtypes forward chose.
//
// Casting (PyTorch's cached_cast): only floating tensors on the autocast
// device type are cast, and never float64. A float32 leaf that requires
// grad (a parameter), cast to the lower-precision dtype, is cast once per
// autocast region: the cast is cached and reused until the outermost guard
// of this thread exits.
//
// Deviations from PyTorch, on purpose: the cast cache is per thread
// (PyTorch's is one process-wide map under a mutex, cleared by whichever
// thread leaves its outermost region first); a CUDA guard on a machine
// without a GPU is kept (PyTorch warns and disables it), which changes
// nothing since no op can have CUDA inputs there.

#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensor/device.h"
#include "tensor/dtype.h"
#include "tensor/tensor.h"

namespace ember {
namespace autocast {

// --- state (torch.is_autocast_enabled & co.) --------------------------------
bool is_autocast_enabled(DeviceType device_type);
void set_autocast_enabled(DeviceType device_type, bool enabled);
// CUDA, as torch.is_autocast_enabled() / torch.set_autocast_enabled(b).
inline bool is_autocast_enabled() { return is_autocast_enabled(kCUDA); }
inline void set_autocast_enabled(bool enabled) { set_autocast_enabled(kCUDA, enabled); }
inline bool is_autocast_cpu_enabled() { return is_autocast_enabled(kCPU); }
inline void set_autocast_cpu_enabled(bool enabled) { set_autocast_enabled(kCPU, enabled); }

// The lower-precision dtype: float16 for CUDA, bfloat16 for the CPU unless set.
ScalarType get_autocast_dtype(DeviceType device_type);
void set_autocast_dtype(DeviceType device_type, ScalarType dtype);
inline ScalarType get_autocast_gpu_dtype() { return get_autocast_dtype(kCUDA); }
inline ScalarType get_autocast_cpu_dtype() { return get_autocast_dtype(kCPU); }
inline void set_autocast_gpu_dtype(ScalarType dtype) { set_autocast_dtype(kCUDA, dtype); }
inline void set_autocast_cpu_dtype(ScalarType dtype) { set_autocast_dtype(kCPU, dtype); }

bool is_autocast_cache_enabled();
void set_autocast_cache_enabled(bool enabled);
// The guards' depth on this thread; clear_cache() drops the cached casts.
int increment_nesting();
int decrement_nesting();
void clear_cache();
// How many casts the cache holds (for tests).
int64_t cache_size();

// torch.autocast(device_type, dtype, enabled, cache_enabled) as an RAII
// guard: sets this thread's state for its device type, restores it on exit,
// and clears the cast cache when the outermost guard exits (enabled or not,
// as PyTorch's context manager counts its nesting). dtype defaults to the
// device's default (CUDA float16, CPU bfloat16); a dtype other than float16
// or bfloat16 warns and disables autocast, as PyTorch does.
class AutocastGuard {
 public:
  explicit AutocastGuard(DeviceType device_type, std::optional<ScalarType> dtype = std::nullopt,
                         bool enabled = true, std::optional<bool> cache_enabled = std::nullopt);
  AutocastGuard(DeviceType device_type, bool enabled)
      : AutocastGuard(device_type, std::nullopt, enabled) {}
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  DeviceType device_type_;
  bool prev_enabled_;
  ScalarType prev_dtype_;
  bool prev_cache_enabled_;
};

// The scoped-function form: fn() runs inside AutocastGuard(device_type, ...).
template <typename F>
decltype(auto) with_autocast(DeviceType device_type, F&& fn) {
  AutocastGuard guard(device_type);
  return std::forward<F>(fn)();
}
template <typename F>
decltype(auto) with_autocast(DeviceType device_type, ScalarType dtype, F&& fn,
                             bool enabled = true) {
  AutocastGuard guard(device_type, dtype, enabled);
  return std::forward<F>(fn)();
}

// Turns autocast off on this thread for its lifetime (every device type),
// as PyTorch's ExcludeDispatchKeyGuard(AutocastFunctionality): inside a
// listed op and during backward.
class ExcludeAutocastGuard;

// --- the op lists -------------------------------------------------------------
// Note [Autocast op lists]: what each ember op does under autocast, per
// device type, from PyTorch's autocast_mode.cpp. The CPU column is PyTorch
// 1.13's CPU list (checked op by op against PyTorch 1.13 by
// nn/functional/autocast_test.cc, tools/golden/autocast.py); the CUDA
// column is the CUDA list of PyTorch 1.13 and 2.x (test/test_cuda.py's
// autocast lists). Ops not here keep their inputs' dtypes (their own type
// promotion applies).
enum class CastPolicy : uint8_t {
  kNone,              // not listed for this device type
  kLowerPrecisionFp,  // cast floating inputs to the autocast dtype
  kFp32,              // cast floating inputs to float32
  kFp32SetOptDtype,   // an optional dtype argument, unset, becomes float32
                      // (when the first input is eligible); inputs untouched
  kPromote,           // cast floating inputs to the widest among them
  kBanned,            // binary_cross_entropy under CUDA autocast: an error
};
struct OpPolicy {
  CastPolicy cpu;
  CastPolicy cuda;
};

namespace ops {
constexpr CastPolicy N = CastPolicy::kNone;
constexpr CastPolicy L = CastPolicy::kLowerPrecisionFp;
constexpr CastPolicy F32 = CastPolicy::kFp32;
constexpr CastPolicy F32D = CastPolicy::kFp32SetOptDtype;
constexpr CastPolicy P = CastPolicy::kPromote;
constexpr CastPolicy B = CastPolicy::kBanned;

// Products and convolutions. PyTorch's CPU list has conv1d/conv2d and the
// deprecated _convolution, not convolution; ember's conv1d/conv2d run the
// policy in nn::functional and then call convolution with autocast
// excluded.
constexpr OpPolicy mm{L, L};
constexpr OpPolicy bmm{L, L};
constexpr OpPolicy matmul{L, L};
constexpr OpPolicy addmm{L, L};
constexpr OpPolicy linear{L, L};
constexpr OpPolicy mv{N, L};
constexpr OpPolicy conv1d{L, L};
constexpr OpPolicy conv2d{L, L};
constexpr OpPolicy convolution{N, L};
// PyTorch 1.13's CPU list runs transposed convolutions in float32.
constexpr OpPolicy conv_transpose1d{F32, L};
constexpr OpPolicy conv_transpose2d{F32, L};
constexpr OpPolicy conv_transpose{N, L};
constexpr OpPolicy prelu{N, L};

// Pointwise math that loses range or precision in 16 bits.
constexpr OpPolicy acos{N, F32};
constexpr OpPolicy asin{N, F32};
constexpr OpPolicy cosh{N, F32};
constexpr OpPolicy exp{N, F32};
constexpr OpPolicy expm1{N, F32};
constexpr OpPolicy log{N, F32};
constexpr OpPolicy log10{N, F32};
constexpr OpPolicy log2{N, F32};
constexpr OpPolicy log1p{N, F32};
constexpr OpPolicy reciprocal{N, F32};
constexpr OpPolicy rsqrt{N, F32};
constexpr OpPolicy sinh{N, F32};
constexpr OpPolicy tan{N, F32};
constexpr OpPolicy pow{N, F32};
constexpr OpPolicy softplus{N, F32};

// Normalizations, reductions, softmax (a dtype argument where PyTorch has one).
constexpr OpPolicy layer_norm{N, F32};  // native_layer_norm too
constexpr OpPolicy group_norm{N, F32};
constexpr OpPolicy frobenius_norm{N, F32};
constexpr OpPolicy logsumexp{N, F32};
constexpr OpPolicy norm{N, F32D};  // PyTorch's fp32_append_dtype
constexpr OpPolicy prod{F32, F32D};
constexpr OpPolicy sum{N, F32D};
constexpr OpPolicy cumsum{N, F32D};
constexpr OpPolicy cumprod{N, F32D};
constexpr OpPolicy softmax{N, F32D};
constexpr OpPolicy log_softmax{N, F32D};

// Losses.
constexpr OpPolicy nll_loss{F32, F32};
constexpr OpPolicy cross_entropy{F32, N};  // CUDA: log_softmax and nll_loss are
constexpr OpPolicy mse_loss{F32, F32};
constexpr OpPolicy l1_loss{F32, F32};
constexpr OpPolicy smooth_l1_loss{F32, F32};
constexpr OpPolicy huber_loss{F32, F32};
constexpr OpPolicy binary_cross_entropy_with_logits{F32, F32};
constexpr OpPolicy binary_cross_entropy{F32, B};

// Ops that run in the widest floating dtype among their inputs.
constexpr OpPolicy cat{P, N};
constexpr OpPolicy stack{P, N};
constexpr OpPolicy index_copy{P, N};
constexpr OpPolicy addcmul{N, P};
constexpr OpPolicy addcdiv{N, P};
constexpr OpPolicy atan2{N, P};
constexpr OpPolicy dot{N, P};
constexpr OpPolicy index_put{N, P};
constexpr OpPolicy scatter_add{N, P};
}  // namespace ops

// PyTorch's message for the banned binary_cross_entropy.
extern const char kBinaryCrossEntropyBanned[];

namespace detail {

// Constant-initialized (no guard on access): the byte every listed op reads.
struct AutocastTLS {
  uint8_t enabled = 0;  // bit (1 << DeviceType) per enabled device type
  ScalarType cpu_dtype = kBFloat16;
  ScalarType cuda_dtype = kHalf;
  bool cache_enabled = true;
  int nesting = 0;
};
inline AutocastTLS& tls() {
  static thread_local AutocastTLS state;
  return state;
}
inline uint8_t device_bit(DeviceType t) { return static_cast<uint8_t>(1u << static_cast<int>(t)); }

// PyTorch's is_eligible: defined, floating, not float64, on device_type.
inline bool is_eligible(const Tensor& t, DeviceType device_type) {
  return t.defined() && t.device().type() == device_type && t.is_floating_point() &&
         t.dtype() != kDouble;
}
Tensor cached_cast(ScalarType to_type, const Tensor& arg, DeviceType device_type);
// PyTorch's prioritize: float32 wins over the lower dtype, float64 is
// ignored, another floating dtype is an error.
ScalarType prioritize(ScalarType current, const Tensor& next, DeviceType device_type);
[[noreturn]] void throw_banned_binary_cross_entropy();

// Scans an op's arguments: its first tensor (a list's first element) and
// whether any tensor is on CUDA. As in PyTorch's dispatch, a CUDA tensor
// anywhere (a CPU scalar tensor may join CUDA operands) makes the op a CUDA
// op for autocast.
struct ArgScan {
  const Tensor* first = nullptr;
  bool any_cuda = false;
  void note(const Tensor& t) {
    if (!t.defined()) return;
    if (first == nullptr) first = &t;
    any_cuda = any_cuda || t.is_cuda();
  }
  void note(TensorList l) {
    for (const Tensor& t : l) note(t);
  }
  void note(const std::vector<Tensor>& l) { note(TensorList(l)); }
  template <typename T>
  void note(const T&) {}
};

// One listed op's call under autocast (Note [Autocast]).
class OpCast {
 public:
  template <typename... Args>
  OpCast(OpPolicy policy, const Args&... args) {
    ArgScan scan;
    (scan.note(args), ...);
    const Tensor* first = scan.first;
    if (first == nullptr) return;
    device_type_ = scan.any_cuda ? kCUDA : first->device().type();
    if ((tls().enabled & device_bit(device_type_)) == 0) return;
    policy_ = device_type_ == kCUDA ? policy.cuda : policy.cpu;
    switch (policy_) {
      case CastPolicy::kNone:
        return;
      case CastPolicy::kBanned:
        throw_banned_binary_cross_entropy();
      case CastPolicy::kLowerPrecisionFp:
        to_type_ = get_autocast_dtype(device_type_);
        break;
      case CastPolicy::kFp32:
        to_type_ = kFloat;
        break;
      case CastPolicy::kFp32SetOptDtype:
        to_type_ = kFloat;
        set_dtype_ = is_eligible(*first, device_type_);
        break;
      case CastPolicy::kPromote:
        to_type_ = get_autocast_dtype(device_type_);
        (promote(args), ...);
        break;
    }
    applies_ = true;
  }
  bool applies() const { return applies_; }

  template <typename Fn, typename... Args>
  decltype(auto) run(Fn&& fn, const Args&... args);

 private:
  void promote(const Tensor& t) { to_type_ = prioritize(to_type_, t, device_type_); }
  void promote(TensorList l) {
    for (const Tensor& t : l) promote(t);
  }
  void promote(const std::vector<Tensor>& l) { promote(TensorList(l)); }
  template <typename T>
  void promote(const T&) {}

  Tensor cast(const Tensor& t) const {
    if (policy_ == CastPolicy::kFp32SetOptDtype) return t;
    return cached_cast(to_type_, t, device_type_);
  }
  std::vector<Tensor> cast(TensorList l) const {
    std::vector<Tensor> out;
    out.reserve(l.size());
    for (const Tensor& t : l) out.push_back(cast(t));
    return out;
  }
  std::vector<Tensor> cast(const std::vector<Tensor>& l) const { return cast(TensorList(l)); }
  std::optional<ScalarType> cast(const std::optional<ScalarType>& dtype) const {
    if (policy_ == CastPolicy::kFp32SetOptDtype && set_dtype_ && !dtype.has_value()) {
      return kFloat;
    }
    return dtype;
  }
  template <typename T>
  const T& cast(const T& arg) const {
    return arg;
  }

  DeviceType device_type_ = kCPU;
  CastPolicy policy_ = CastPolicy::kNone;
  ScalarType to_type_ = kFloat;
  bool set_dtype_ = false;
  bool applies_ = false;
};

}  // namespace detail

class ExcludeAutocastGuard {
 public:
  ExcludeAutocastGuard() : saved_(detail::tls().enabled) { detail::tls().enabled = 0; }
  ~ExcludeAutocastGuard() { detail::tls().enabled = saved_; }
  ExcludeAutocastGuard(const ExcludeAutocastGuard&) = delete;
  ExcludeAutocastGuard& operator=(const ExcludeAutocastGuard&) = delete;

 private:
  uint8_t saved_;
};

namespace detail {
// EMBER_AUTOCAST_OPAQUE's guard: excludes autocast only when some is enabled.
class ExcludeIfEnabled {
 public:
  ExcludeIfEnabled() : saved_(tls().enabled) {
    if (saved_ != 0) tls().enabled = 0;
  }
  ~ExcludeIfEnabled() {
    if (saved_ != 0) tls().enabled = saved_;
  }
  ExcludeIfEnabled(const ExcludeIfEnabled&) = delete;
  ExcludeIfEnabled& operator=(const ExcludeIfEnabled&) = delete;

 private:
  uint8_t saved_;
};

template <typename Fn, typename... Args>
decltype(auto) OpCast::run(Fn&& fn, const Args&... args) {
  ExcludeAutocastGuard exclude;
  return std::forward<Fn>(fn)(cast(args)...);
}
}  // namespace detail

}  // namespace autocast
}  // namespace ember

#if defined(__GNUC__)
#define EMBER_AUTOCAST_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define EMBER_AUTOCAST_UNLIKELY(x) (x)
#endif

// See Note [Autocast]. OP names the entry in autocast::ops, FN the function
// to call again (qualified, so the same overload is found), then the op's
// arguments in order. Returns from the enclosing function when autocast
// applies.
#define EMBER_AUTOCAST(OP, FN, ...)                                                        \
  do {                                                                                     \
    if (EMBER_AUTOCAST_UNLIKELY(::ember::autocast::detail::tls().enabled != 0)) {          \
      ::ember::autocast::detail::OpCast autocast_op_(::ember::autocast::ops::OP,           \
                                                     __VA_ARGS__);                         \
      if (autocast_op_.applies()) {                                                        \
        return autocast_op_.run(                                                           \
            [&](auto&&... autocast_args_) -> decltype(auto) {                              \
              return FN(std::forward<decltype(autocast_args_)>(autocast_args_)...);        \
            },                                                                             \
            __VA_ARGS__);                                                                  \
      }                                                                                    \
    }                                                                                      \
  } while (0)

// For an op that is not on the lists but that ember writes as a composite of
// ops that are (elu's expm1, mish's exp): PyTorch runs it as one kernel in
// its inputs' dtype, so its body runs with autocast excluded.
#define EMBER_AUTOCAST_OPAQUE() ::ember::autocast::detail::ExcludeIfEnabled autocast_opaque_

#endif  // EMBER_TENSOR_AUTOCAST_H_
