#ifndef EMBER_DATA_EXAMPLE_H_
#define EMBER_DATA_EXAMPLE_H_

// A (data, target) sample or batch: libtorch's torch::data::Example, shared
// by both of //data's API styles (torch.utils.data's in dataset.h and
// dataloader.h, libtorch's torch::data in datasets.h, samplers.h and
// data_loader.h).
//
//   data::Example<> e{image, label};            // Tensor data, Tensor target
//   data::Example<Tensor, std::string> named;   // any two types
//   data::TensorExample x = image;              // data only (no target)

#include <utility>

#include "tensor/tensor.h"

namespace ember {
namespace data {

template <typename Data = Tensor, typename Target = Tensor>
struct Example {
  using DataType = Data;
  using TargetType = Target;

  Example() = default;
  Example(Data data, Target target) : data(std::move(data)), target(std::move(target)) {}

  Data data;
  Target target;
};

namespace example {
// The Target of an Example that has none.
using NoTarget = void;
}  // namespace example

// An Example with data only; it converts to and from its data.
template <typename Data>
struct Example<Data, example::NoTarget> {
  using DataType = Data;
  using TargetType = example::NoTarget;

  Example() = default;
  /* implicit */ Example(Data data) : data(std::move(data)) {}
  operator Data&() { return data; }
  operator const Data&() const { return data; }

  Data data;
};

using TensorExample = Example<Tensor, example::NoTarget>;

}  // namespace data
}  // namespace ember

#endif  // EMBER_DATA_EXAMPLE_H_
