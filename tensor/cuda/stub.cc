// cuda.h in a CPU-only build (no CUDA toolkit found at build time): the API
// exists, nothing is available, and what needs a device says why, in
// PyTorch's words. In a CUDA build context.cc and allocator.cc define these.

#include "tensor/cuda/cuda.h"

#ifndef EMBER_WITH_CUDA

#include "tensor/error.h"
#include "tensor/random.h"

namespace ember {
namespace cuda {
namespace {
[[noreturn]] void not_compiled() { throw Error("Torch not compiled with CUDA enabled"); }
}  // namespace

bool is_built() { return false; }
bool is_available() { return false; }
size_t device_count() { return 0; }
int current_device() { not_compiled(); }
void set_device(int) { not_compiled(); }
void synchronize(int64_t) { not_compiled(); }
void empty_cache() {}
size_t cached_bytes() { return 0; }
int64_t memory_allocated(int64_t) { return 0; }
int64_t max_memory_allocated(int64_t) { return 0; }
int64_t memory_reserved(int64_t) { return 0; }
int64_t max_memory_reserved(int64_t) { return 0; }
void reset_peak_memory_stats(int64_t) {}
std::string memory_summary(int64_t) { not_compiled(); }
void* host_alloc(size_t) { not_compiled(); }
void host_free(void*) {}
bool is_pinned(const void*) { return false; }
void manual_seed(uint64_t) {}  // no device to seed, as in cuda.h
void manual_seed_all(uint64_t seed) { ember::detail::manual_seed_devices(kCUDA, seed); }
Generator default_generator(int64_t) { not_compiled(); }
Tensor get_rng_state(int64_t) { not_compiled(); }
void set_rng_state(const Tensor&, int64_t) { not_compiled(); }

}  // namespace cuda
}  // namespace ember

#endif  // EMBER_WITH_CUDA
