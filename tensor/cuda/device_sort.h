// A stable device sort of int64 keys with int64 values (sort.cu's radix
// sort), for ops that need keys in order on the device (deterministic
// accumulation by index, unique). Internal to ember's CUDA backend; built
// only with a toolkit.

#ifndef EMBER_TENSOR_CUDA_DEVICE_SORT_H_
#define EMBER_TENSOR_CUDA_DEVICE_SORT_H_

#include <tuple>

#include "tensor/tensor.h"

namespace ember {
namespace cuda {

// keys and values: int64 tensors of n elements on one CUDA device (any
// shape and strides; read as flattened). Returns (sorted keys, values
// permuted alike), each contiguous [n]: ascending by key, equal keys in
// their input order. Runs on the stream (no synchronization).
std::tuple<Tensor, Tensor> sort_int64_pairs(const Tensor& keys, const Tensor& values);

}  // namespace cuda
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_DEVICE_SORT_H_
