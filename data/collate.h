#ifndef EMBER_DATA_COLLATE_H_
#define EMBER_DATA_COLLATE_H_

// How a DataLoader makes a batch out of samples (default_collate) and moves
// it to page-locked memory (pin_memory).

#include <type_traits>
#include <vector>

#include "data/dataset.h"
#include "tensor/tensor.h"

namespace ember {
namespace data {

// Samples of a type the loader knows nothing about are batched as the
// vector of samples; give the DataLoader a collate function to make
// something else of them (a struct of stacked tensors, say).
template <typename T>
struct DefaultCollate {
  using Batch = std::vector<T>;
  static Batch collate(std::vector<T> samples) { return samples; }
};

// Tensors are stacked along a new first dimension.
template <>
struct DefaultCollate<Tensor> {
  using Batch = Tensor;
  static Tensor collate(std::vector<Tensor> samples);
};

// (data, target) pairs become (stacked data, stacked targets); a target
// undefined in every sample stays undefined.
template <>
struct DefaultCollate<Example<>> {
  using Batch = Example<>;
  static Example<> collate(std::vector<Example<>> samples);
};

// A copy of `t` in page-locked host memory, or `t` itself when it already is
// there. Note [pin_memory without CUDA]: page-locked memory only helps (and
// can only be had) with CUDA, so where ember::cuda::is_available() is false
// this returns `t` unchanged, in ordinary memory; PyTorch would raise
// instead, which would make one training program fail on a CPU-only machine.
Tensor pin_memory(const Tensor& t);
// True when `t`'s data lies in page-locked host memory.
bool is_pinned(const Tensor& t);

// Batches pin_memory knows how to pin: tensors, Examples and vectors of them.
void pin_batch(Tensor& batch);
void pin_batch(Example<>& batch);
template <typename U>
void pin_batch(std::vector<U>& batch) {
  for (U& u : batch) pin_batch(u);
}

template <typename B>
struct IsPinnable : std::integral_constant<bool, std::is_same<B, Tensor>::value ||
                                                     std::is_same<B, Example<>>::value> {};
template <typename U>
struct IsPinnable<std::vector<U>> : IsPinnable<U> {};

}  // namespace data
}  // namespace ember

#endif  // EMBER_DATA_COLLATE_H_
