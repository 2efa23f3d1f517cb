// graph.h in a CPU-only build (no CUDA toolkit at build time): CUDAGraph
// exists as a type, and constructing one throws "Torch not compiled with
// CUDA enabled", as stream.h's functions do. graph.cc defines these in a
// CUDA build.

#include "tensor/cuda/graph.h"

#ifndef EMBER_WITH_CUDA

#include "tensor/error.h"

namespace ember {
namespace cuda {
namespace {
[[noreturn]] void not_compiled() { throw Error("Torch not compiled with CUDA enabled"); }
}  // namespace

MempoolId_t graph_pool_handle() { not_compiled(); }

// getCurrentCUDAStream() throws first, as libtorch's constructor's does.
CUDAGraph::CUDAGraph() : capture_stream_(getCurrentCUDAStream()) {}
CUDAGraph::~CUDAGraph() {}
void CUDAGraph::capture_begin(MempoolId_t) { not_compiled(); }
void CUDAGraph::capture_end() { not_compiled(); }
void CUDAGraph::replay() { not_compiled(); }
void CUDAGraph::reset() {}
MempoolId_t CUDAGraph::pool() { not_compiled(); }

}  // namespace cuda
}  // namespace ember

#endif  // EMBER_WITH_CUDA
