#include "tensor/autocast.h"

#include <iostream>
#include <memory>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "tensor/error.h"
#include "tensor/tensor_impl.h"

namespace ember {
namespace autocast {

const char kBinaryCrossEntropyBanned[] =
    "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
    "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
    "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
    "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
    "safe to autocast.";

namespace {

// The cast cache (Note [Autocast]): keyed by the source's TensorImpl; the
// weak reference tells a live source from a dead one whose address was
// reused.
struct CachedCast {
  std::weak_ptr<TensorImpl> source;
  Tensor cast;
};
using CastCache = absl::flat_hash_map<const TensorImpl*, CachedCast>;
CastCache& cast_cache() {
  static thread_local CastCache cache;
  return cache;
}

}  // namespace

bool is_autocast_enabled(DeviceType device_type) {
  return (detail::tls().enabled & detail::device_bit(device_type)) != 0;
}

void set_autocast_enabled(DeviceType device_type, bool enabled) {
  uint8_t& bits = detail::tls().enabled;
  const uint8_t bit = detail::device_bit(device_type);
  bits = enabled ? (bits | bit) : (bits & ~bit);
}

ScalarType get_autocast_dtype(DeviceType device_type) {
  return device_type == kCUDA ? detail::tls().cuda_dtype : detail::tls().cpu_dtype;
}

void set_autocast_dtype(DeviceType device_type, ScalarType dtype) {
  (device_type == kCUDA ? detail::tls().cuda_dtype : detail::tls().cpu_dtype) = dtype;
}

bool is_autocast_cache_enabled() { return detail::tls().cache_enabled; }
void set_autocast_cache_enabled(bool enabled) { detail::tls().cache_enabled = enabled; }
int increment_nesting() { return ++detail::tls().nesting; }
int decrement_nesting() { return --detail::tls().nesting; }
void clear_cache() { cast_cache().clear(); }
int64_t cache_size() { return static_cast<int64_t>(cast_cache().size()); }

AutocastGuard::AutocastGuard(DeviceType device_type, std::optional<ScalarType> dtype,
                             bool enabled, std::optional<bool> cache_enabled)
    : device_type_(device_type),
      prev_enabled_(is_autocast_enabled(device_type)),
      prev_dtype_(get_autocast_dtype(device_type)),
      prev_cache_enabled_(is_autocast_cache_enabled()) {
  const ScalarType fast = dtype.value_or(device_type == kCUDA ? kHalf : kBFloat16);
  if (enabled && fast != kHalf && fast != kBFloat16) {
    // PyTorch warns and runs the region without autocast.
    std::cerr << "UserWarning: In " << (device_type == kCUDA ? "CUDA" : "CPU")
              << " autocast, but the target dtype is not supported. Disabling autocast.\n"
              << (device_type == kCUDA ? "CUDA" : "CPU")
              << " Autocast only supports dtypes of torch.bfloat16 and torch.float16 currently."
              << std::endl;
    enabled = false;
  }
  set_autocast_enabled(device_type, enabled);
  set_autocast_dtype(device_type, fast);
  if (cache_enabled.has_value()) set_autocast_cache_enabled(*cache_enabled);
  increment_nesting();
}

AutocastGuard::~AutocastGuard() {
  // Drop the cache when leaving the outermost region of this thread.
  if (decrement_nesting() == 0) clear_cache();
  set_autocast_enabled(device_type_, prev_enabled_);
  set_autocast_dtype(device_type_, prev_dtype_);
  set_autocast_cache_enabled(prev_cache_enabled_);
}

namespace detail {

Tensor cached_cast(ScalarType to_type, const Tensor& arg, DeviceType device_type) {
  if (!is_eligible(arg, device_type) || arg.dtype() == to_type) return arg;
  // Apex's heuristic, as PyTorch: cache lower-precision casts of float32
  // leaves that require grad (model weights), reused within the region.
  const bool can_cache = to_type == get_autocast_dtype(device_type) && arg.dtype() == kFloat &&
                         tls().cache_enabled && arg.requires_grad() && arg.is_leaf();
  if (!can_cache) return arg.to(to_type);
  CastCache& cache = cast_cache();
  const TensorImpl* key = arg.unsafeGetTensorImpl();
  auto it = cache.find(key);
  if (it != cache.end() && !it->second.source.expired() &&
      it->second.cast.dtype() == to_type) {
    return it->second.cast;
  }
  Tensor cast = arg.to(to_type);
  cache[key] = CachedCast{arg.impl(), cast};
  return cast;
}

ScalarType prioritize(ScalarType current, const Tensor& next, DeviceType device_type) {
  EMBER_CHECK(current != kDouble, "promote type is double in at::autocast::prioritize");
  if (!next.defined() || next.device().type() != device_type || !next.is_floating_point()) {
    return current;
  }
  const ScalarType lower = get_autocast_dtype(device_type);
  const ScalarType n = next.dtype();
  if (n == kDouble) return current;  // float64 inputs are ignored
  if (current == kFloat || n == kFloat) return kFloat;
  if (current == lower && n == lower) return lower;
  throw Error("Unexpected floating ScalarType in at::autocast::prioritize");
}

void throw_banned_binary_cross_entropy() { throw Error(kBinaryCrossEntropyBanned); }

}  // namespace detail
}  // namespace autocast
}  // namespace ember
