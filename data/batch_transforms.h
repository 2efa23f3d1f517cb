#ifndef EMBER_DATA_BATCH_TRANSFORMS_H_
#define EMBER_DATA_BATCH_TRANSFORMS_H_

// libtorch's torch::data::transforms: what Dataset::map applies to each
// batch a libtorch-style dataset returns (datasets.h).
//
//   BatchTransform<In, Out>   apply_batch(In) -> Out, on a whole batch
//   Transform<In, Out>        apply(In) -> Out, on each example of a batch
//   BatchLambda / Lambda      either, from a function
//   Collation<T> / Collate<T> a batch (std::vector<T>) made into one T
//   Stack<>                   Example<>s (or TensorExamples) stacked
//   TensorTransform<Target>   operator()(Tensor) on each example's data
//   TensorLambda<Target>      that, from a function
//
// transforms.h adds Normalize<> and Lambda, which serve both this API and
// the torchvision-style one.

#include <functional>
#include <utility>
#include <vector>

#include "data/example.h"
#include "tensor/tensor.h"

namespace ember {
namespace data {
namespace transforms {

template <typename InputBatch, typename OutputBatch>
class BatchTransform {
 public:
  using InputBatchType = InputBatch;
  using OutputBatchType = OutputBatch;

  virtual ~BatchTransform() = default;
  virtual OutputBatch apply_batch(InputBatch input_batch) = 0;
};

template <typename Input, typename Output>
class Transform : public BatchTransform<std::vector<Input>, std::vector<Output>> {
 public:
  using InputType = Input;
  using OutputType = Output;

  virtual OutputType apply(InputType input) = 0;

  std::vector<Output> apply_batch(std::vector<Input> input_batch) override {
    std::vector<Output> output_batch;
    output_batch.reserve(input_batch.size());
    for (auto& input : input_batch) output_batch.push_back(apply(std::move(input)));
    return output_batch;
  }
};

template <typename Input, typename Output = Input>
class BatchLambda : public BatchTransform<Input, Output> {
 public:
  using FunctionType = std::function<Output(Input)>;

  explicit BatchLambda(FunctionType function) : function_(std::move(function)) {}
  Output apply_batch(Input input_batch) override { return function_(std::move(input_batch)); }

 private:
  FunctionType function_;
};

// A batch of T made into one T.
template <typename T, typename BatchType = std::vector<T>>
using Collation = BatchTransform<BatchType, T>;
template <typename T, typename BatchType = std::vector<T>>
using Collate = BatchLambda<BatchType, T>;

template <typename T = Example<>>
struct Stack;

// Example<>s become one Example<> of stacked data and stacked targets.
template <>
struct Stack<Example<>> : public Collation<Example<>> {
  Example<> apply_batch(std::vector<Example<>> examples) override;
};

// TensorExamples become one TensorExample of stacked data.
template <>
struct Stack<TensorExample> : public Collation<TensorExample> {
  TensorExample apply_batch(std::vector<TensorExample> examples) override;
};

// A function of each example's data; the target passes through.
template <typename Target = Tensor>
class TensorTransform : public Transform<Example<Tensor, Target>, Example<Tensor, Target>> {
 public:
  using E = Example<Tensor, Target>;

  virtual Tensor operator()(Tensor input) = 0;
  E apply(E input) override {
    input.data = (*this)(std::move(input.data));
    return input;
  }
};

template <typename Target = Tensor>
class TensorLambda : public TensorTransform<Target> {
 public:
  using FunctionType = std::function<Tensor(Tensor)>;

  explicit TensorLambda(FunctionType function) : function_(std::move(function)) {}
  Tensor operator()(Tensor input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

}  // namespace transforms
}  // namespace data
}  // namespace ember

#endif  // EMBER_DATA_BATCH_TRANSFORMS_H_
