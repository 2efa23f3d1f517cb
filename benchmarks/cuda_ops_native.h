#ifndef EMBER_BENCHMARKS_CUDA_OPS_NATIVE_H_
#define EMBER_BENCHMARKS_CUDA_OPS_NATIVE_H_

// Issue 17's "Measured" cases for //benchmarks:cuda_ops: the ops that used
// to fall back to the CPU (Note [CPU fallback]), at the sizes. Each
// prints "case  median_us  figure" lines, as tools/cuda_ops_torch.py's
// functions of the same names do.

#include "tensor/device.h"

namespace ember {
namespace bench {

// index_select and F::embedding forward, and embedding's weight gradient
// (autograd), over a [50257, 768] float32 weight and 8192 int64 indices.
void run_embedding(int iters, const Device& dev);
// gather and scatter_add_ over [4096, 4096] float32, int64 indices along
// dim 1.
void run_gather_scatter(int iters, const Device& dev);
// sort / stable sort / argsort of 16M float32; topk (k=5) and kthvalue
// (k=5) over [4096, 1000].
void run_sort(int iters, const Device& dev);
// nonzero and masked_select over 16M float32, half of them zero / selected.
void run_nonzero(int iters, const Device& dev);
// F::dropout (p=0.1, training), randn and rand of 64M float32.
void run_random(int iters, const Device& dev);
// avg_pool2d at ResNet's stem size and adaptive_avg_pool2d at its head,
// forward and backward (the input's gradient via autograd).
void run_avg_pool(int iters, const Device& dev);

}  // namespace bench
}  // namespace ember

#endif  // EMBER_BENCHMARKS_CUDA_OPS_NATIVE_H_
