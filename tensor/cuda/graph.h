#ifndef EMBER_TENSOR_CUDA_GRAPH_H_
#define EMBER_TENSOR_CUDA_GRAPH_H_

// CUDA graphs as libtorch has them (ATen/cuda/CUDAGraph.h), in namespace
// ember::cuda: capture the work a region of the program queues on a stream
// once, then replay it with one launch. Note [CUDA graphs] in graph.cc says
// how the backend takes part (the private memory pool, host reads during
// capture, the random numbers).
//
//   CUDAGraph g;
//   {
//     CUDAStreamGuard guard(getStreamFromPool());  // never the default stream
//     ... two warm-up iterations on that stream ...
//     g.capture_begin();
//     Tensor y = model(static_x);   // y lives in the graph's private pool
//     g.capture_end();
//   }
//   static_x.copy_(next_batch);      // inputs: overwrite in place
//   g.replay();                      // y now holds the new result
//
// The same API exists in every build: in a CPU-only build every member
// throws "Torch not compiled with CUDA enabled", with a toolkit but no
// device the runtime's no-device error (as stream.h's functions).
//
// Random numbers are graph-safe, as PyTorch's: a captured random op
// (dropout, rand, bernoulli_...) draws new numbers at each replay, the same
// ones the eager op would draw from the generator's state at that point
// (Note [Graph-safe random numbers] in graph.cc). Only the capture device's
// default generator may be used inside a capture (PyTorch's rule).
//
// Differences from libtorch 1.13:
// - Ops whose scalars live on the host are captured as constants, as
//   PyTorch's kernel arguments are: learning rates, and the step count and
//   bias corrections of an Adam or AdamW built without capturable(true),
//   whose replays therefore repeat the captured step's corrections (PyTorch
//   refuses to capture such a step; ember does not check). With
//   capturable(true) the step count lives on the device and each replay
//   advances it (Note [Capturable Adam] in optim/adam.h).

#include <cstdint>
#include <utility>

#include "tensor/cuda/stream.h"

struct CUgraph_st;
struct CUgraphExec_st;
typedef struct CUgraph_st* cudaGraph_t;
typedef struct CUgraphExec_st* cudaGraphExec_t;

namespace ember {

class GeneratorImpl;

namespace cuda {

// libtorch's MempoolId_t: {capture id, 0} for a graph's own pool, {0, n}
// for a handle from graph_pool_handle().
using MempoolId_t = std::pair<unsigned long long, unsigned long long>;

// A fresh pool id that several captures may share (capture_begin(pool)):
// safe when the graphs are replayed in the order they were captured.
MempoolId_t graph_pool_handle();

class CUDAGraph {
 public:
  // Throws the no-device errors (libtorch reads the current stream here).
  CUDAGraph();
  // reset(), errors swallowed.
  ~CUDAGraph();
  CUDAGraph(const CUDAGraph&) = delete;
  CUDAGraph& operator=(const CUDAGraph&) = delete;

  // Starts capturing the calling thread's current stream, which must not be
  // the default stream ("CUDA graphs must be captured on a non-default
  // stream. ..."). Memory allocated on the captured stream until
  // capture_end comes from the graph's private pool (`pool`: share another
  // graph's, or a graph_pool_handle()'s).
  void capture_begin(MempoolId_t pool = {0, 0});
  // Ends the capture (on the stream it began on) and instantiates the
  // graph. Throws a clear error when the capture was invalidated, e.g. by
  // an op that synchronized with the host.
  void capture_end();
  // Launches the graph on the calling thread's current stream of the
  // capture device (any stream, the default one included).
  void replay();
  // Destroys the graph and hands the private pool back to the caching
  // allocator (after the last replay finished). The graph can capture again.
  void reset();
  // The private pool's id, to share it with another capture.
  MempoolId_t pool();

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t graph_exec_ = nullptr;
  bool has_graph_ = false;
  bool has_graph_exec_ = false;
  bool capturing_ = false;
  bool holds_pool_ = false;
  // Whether index kernels (Note [Device-side index checks]) were captured:
  // a replay then tells the index record that its stream may have set it.
  bool uses_index_kernels_ = false;
  uint64_t index_launches_at_begin_ = 0;
  unsigned long long id_ = 0;  // the runtime's capture id
  MempoolId_t mempool_id_{0, 0};
  CUDAStream capture_stream_;
  int capture_dev_ = -1;
  CUDAEvent replayed_;  // recorded after each replay; reset waits for it
  // Note [Graph-safe random numbers]: the device words {seed, offset} the
  // captured fills read (cudaMalloc'd once, freed by the destructor), the
  // default generator's offset at capture_begin, and how far the capture
  // moved it (what each replay reserves).
  uint64_t* rng_state_ = nullptr;
  GeneratorImpl* rng_generator_ = nullptr;
  uint64_t rng_base_ = 0;
  uint64_t rng_increment_ = 0;
};

}  // namespace cuda
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_GRAPH_H_
