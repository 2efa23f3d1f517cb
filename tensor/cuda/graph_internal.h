#ifndef EMBER_TENSOR_CUDA_GRAPH_INTERNAL_H_
#define EMBER_TENSOR_CUDA_GRAPH_INTERNAL_H_

// Internals of CUDA graph capture shared by the CUDA backend's .cc files
// (built only with a CUDA toolkit): Note [CUDA graphs] in graph.cc.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <utility>

namespace ember {
namespace cuda {
namespace detail {

// --- graph.cc ---

// True when `stream` is being captured (or its capture was invalidated).
// Never throws.
bool is_capturing(cudaStream_t stream);
// Throws the error of an op that synchronizes with the host during capture
// ("<what> synchronizes with the host, which a CUDA graph capture does not
// allow ...") when `stream` is capturing.
void check_not_capturing(cudaStream_t stream, const char* what);
// The same for a wait on the whole device: throws while any capture is
// underway on `device`.
void check_no_capture_on_device(int device, const char* what);

// Note [Graph-safe random numbers]: when `stream` is being captured by a
// CUDAGraph, the device words {seed, base offset} that the graph's random
// fills read, with *base set to the generator's offset at capture_begin (a
// captured fill that reserved offset o draws at words[1] + o - *base).
// nullptr when `stream` is not capturing. Throws PyTorch's error when the
// fill draws from a generator other than the capture device's default one.
const uint64_t* captured_rng_state(cudaStream_t stream, const void* generator, uint64_t* base);

// --- allocator.cc (Note [CUDA caching allocator]) ---

// True while a capture into a private pool is underway on `device` (an
// atomic read).
bool capture_underway(int device);
// From now until end_allocate_to_pool, allocations on streams of capture
// `capture_id` come from the private pool `pool` (created, or shared: one
// more user).
void begin_allocate_to_pool(int device, unsigned long long capture_id,
                            std::pair<unsigned long long, unsigned long long> pool);
void end_allocate_to_pool(int device, unsigned long long capture_id);
// One user fewer; with none left, the pool's blocks go back to the general
// cache (the caller waited for every replay that used them).
void release_pool(int device, std::pair<unsigned long long, unsigned long long> pool);

// --- index_ops.cc (Note [Device-side index checks]) ---

// How many index kernels were launched on `device` so far.
uint64_t index_launch_count(int device);

}  // namespace detail
}  // namespace cuda
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_GRAPH_INTERNAL_H_
