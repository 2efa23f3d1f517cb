#ifndef EMBER_TENSOR_FALLBACK_H_
#define EMBER_TENSOR_FALLBACK_H_

// Note [CPU fallback]: an op whose loop reads memory directly (indexing,
// gather/scatter, sort, the average poolings, embedding's backward...) and
// has no kernel for a device runs on the CPU instead: its inputs are copied
// to the host, the CPU op runs, and the results are copied back to the
// inputs' device (an in-place op copies back into self). Each such op warns
// once per process, as PyTorch's MPS fallback does, since every call costs
// two transfers and a synchronization. Results are PyTorch's (the CPU op is
// the reference); only the speed differs. Without this an op would hand
// device pointers to a host loop.
//
//   if (detail::cpu_fallback("index_select", {self, index})) {
//     return detail::to_device(index_select(detail::cpu(self), dim, detail::cpu(index)), self);
//   }
//
// Ops that dispatch through a kernel table (Note [Kernel tables]) do not
// fall back: a missing entry is an error that names the backend.

#include <initializer_list>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "tensor/device.h"
#include "tensor/tensor.h"

namespace ember {
namespace detail {

// The device of the defined tensors; PyTorch's "Expected all tensors to be
// on the same device, ..." when they differ. CPU when none is defined.
Device common_device(std::initializer_list<Tensor> tensors);
Device common_device(TensorList tensors);

// True when the defined tensors' common device is not the CPU; the first
// time for each op it prints PyTorch's fallback UserWarning to stderr.
bool cpu_fallback(const char* op, std::initializer_list<Tensor> tensors);
bool cpu_fallback(const char* op, TensorList tensors);

// The ops that have fallen back to the CPU in this process, sorted (the
// GPU test //tensor/cuda:no_fallback_test holds CUDA's list empty).
std::vector<std::string> fallen_back_ops();

// t on the host (undefined stays undefined; a CPU tensor is returned as is).
Tensor cpu(const Tensor& t);
// A result computed on the host, moved to like's device.
Tensor to_device(const Tensor& t, const Tensor& like);
template <typename... Ts>
std::tuple<Ts...> to_device(std::tuple<Ts...> ts, const Tensor& like) {
  return std::apply([&](auto&&... t) { return std::make_tuple(to_device(t, like)...); }, ts);
}

// An in-place op on self run on a host copy, written back into self.
template <typename F>
Tensor& in_place_on_cpu(Tensor& self, F&& op) {
  Tensor host = cpu(self);
  std::forward<F>(op)(host);
  self.copy_(host);
  return self;
}

}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_FALLBACK_H_
