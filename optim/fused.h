#ifndef EMBER_OPTIM_FUSED_H_
#define EMBER_OPTIM_FUSED_H_
// Note [Fused updates]: each optimizer updates a parameter in one pass over
// its elements (param, grad and state buffers read and written once, no
// temporaries) when all of them are contiguous CPU float/double tensors of
// one dtype: the common case, and the one a training step pays for. Any
// other parameter (CUDA, half, strided) takes the same formulas written
// with tensor ops, exactly as PyTorch 1.13's single-tensor code (foreach=False)
// writes them; tests run the golden checks through both paths.
// Internal to //optim.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <type_traits>
#include <vector>

#include "tensor/parallel.h"
#include "tensor/tensor.h"

namespace ember {
namespace optim {
namespace detail {

// Tests turn the fused loops off to check the tensor-op path on the same
// golden values.
bool fused_kernels_enabled();
void set_fused_kernels_enabled(bool enabled);

// True when the fused loop may update p from grad and the given (defined)
// buffers.
bool fusable(const Tensor& p, const Tensor& grad, std::initializer_list<const Tensor*> buffers);

// Runs f(begin, end) over [0, n) in chunks, across the thread budget.
template <typename F>
void for_each_chunk(int64_t n, const F& f) {
  parallel_for(0, n, kGrainSize / 2, f);
}

// Calls f(std::true_type{}) or f(std::false_type{}): a loop-invariant flag
// becomes a template argument, so each fused loop is branch-free and
// vectorizes (GCC if-converts branches on runtime flags only partly).
template <typename F>
void with_flag(bool flag, const F& f) {
  if (flag) {
    f(std::true_type{});
  } else {
    f(std::false_type{});
  }
}

// Note [Multi-tensor updates] (tensor/multi_tensor.h): whether the
// parameters with gradients of a group take the multi-tensor kernels:
// foreach (or fused) allows it (nullopt: allowed), CUDA has the kernel, and
// every parameter and gradient is a contiguous floating tensor of one
// dtype on one CUDA device. Throws PyTorch's error for fused and foreach
// both true.
bool use_multi_tensor(const std::vector<Tensor>& params, std::optional<bool> foreach, bool fused,
                      bool kernel_registered);
// Every buffer contiguous and like its parameter (a loaded state may not be).
bool buffers_fit(const std::vector<Tensor>& params, const std::vector<Tensor>& buffers);

// After a fused loop wrote t through its data pointer: what an in-place op
// would do, so autograd still sees the modification.
inline void mark_written(const Tensor& t) { t.unsafeGetTensorImpl()->bump_version(); }

}  // namespace detail
}  // namespace optim
}  // namespace ember

#endif  // EMBER_OPTIM_FUSED_H_
