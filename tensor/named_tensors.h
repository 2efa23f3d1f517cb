#ifndef EMBER_TENSOR_NAMED_TENSORS_H_
#define EMBER_TENSOR_NAMED_TENSORS_H_

// Named tensors in order: a state dict, named_parameters(), named_buffers(),
// what safetensors files hold. One definition for nn, optim and serialize.

#include <string>
#include <utility>
#include <vector>

#include "tensor/tensor.h"

namespace ember {

// One entry: a std::pair (first, second; `auto& [name, t]` works) with the
// accessors of libtorch's OrderedDict items, so that
// `for (auto& p : model->named_parameters()) use(p.key(), p.value());`
// reads as in libtorch.
struct NamedTensor : std::pair<std::string, Tensor> {
  using Base = std::pair<std::string, Tensor>;
  using Base::Base;
  NamedTensor() = default;
  NamedTensor(Base p) : Base(std::move(p)) {}  // NOLINT: from make_pair / a pair
  const std::string& key() const { return first; }
  Tensor& value() { return second; }
  const Tensor& value() const { return second; }
};

using NamedTensors = std::vector<NamedTensor>;

}  // namespace ember

#endif  // EMBER_TENSOR_NAMED_TENSORS_H_
