#ifndef EMBER_DATA_DATASETS_H_
#define EMBER_DATA_DATASETS_H_

// libtorch's torch::data::datasets, for programs written against libtorch's
// C++ frontend (data_loader.h loads them):
//
//   class MyDataset : public data::datasets::Dataset<MyDataset> {
//    public:
//     data::Example<> get(size_t index) override { ... }
//     std::optional<size_t> size() const override { return n; }
//   };
//   auto ds = MyDataset().map(data::transforms::Stack<>());
//   auto loader = data::make_data_loader(std::move(ds), /*batch_size=*/64);
//
//   BatchDataset<Self, Batch, Request>  get_batch(Request) -> Batch
//   Dataset<Self, Example>              get(size_t) -> Example, batched as
//                                       std::vector<Example>
//   StreamDataset<Self, Batch>          get_batch(size_t count)
//   StatefulDataset<Self, Batch>        get_batch(size_t) -> optional<Batch>
//                                       until exhausted; reset() per epoch
//   MapDataset<D, T>                    D's batches through transform T
//   SharedBatchDataset<D>               a shared_ptr<D> that is a dataset
//   TensorDataset                       rows of one tensor
//   MNIST(root, Mode::kTrain|kTest)     float 1x28x28 images in [0, 1],
//                                       int64 labels
//
// data::Dataset and data::BatchDataset name these (libtorch's exports);
// torch.utils.data's map-style base is data::MapStyleDataset (dataset.h).
//
// Note [libtorch datasets in worker threads]: as in libtorch, a stateless
// loader with workers gives each worker its own copy of the dataset (so
// get() need not be thread-safe, and a dataset is copyable), while a
// stateful dataset is shared by all workers and must lock what it changes.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "data/example.h"
#include "tensor/error.h"
#include "tensor/tensor.h"

namespace ember {
namespace data {
namespace datasets {

template <typename S, typename T>
class MapDataset;
template <typename D, typename T>
MapDataset<D, T> map(D, T);

namespace detail {
template <typename T>
struct is_optional : std::false_type {};
template <typename T>
struct is_optional<std::optional<T>> : std::true_type {};
template <typename T>
struct unwrap_optional {
  using type = T;
};
template <typename T>
struct unwrap_optional<std::optional<T>> {
  using type = T;
};
}  // namespace detail

// The indices a Dataset is asked for (libtorch's ArrayRef<size_t>: a vector
// of indices converts to it).
using IndexBatch = absl::Span<const size_t>;

template <typename Self, typename Batch = std::vector<Example<>>,
          typename BatchRequest = IndexBatch>
class BatchDataset {
 public:
  using SelfType = Self;
  using BatchType = Batch;
  using BatchRequestType = BatchRequest;
  constexpr static bool is_stateful = detail::is_optional<BatchType>::value;

  virtual ~BatchDataset() = default;
  virtual Batch get_batch(BatchRequest request) = 0;
  // The number of examples, nullopt when unknown (a stream).
  virtual std::optional<size_t> size() const = 0;

  // This dataset's batches passed through `transform`.
  template <typename TransformType>
  MapDataset<Self, TransformType> map(TransformType transform) & {
    return datasets::map(static_cast<Self&>(*this), std::move(transform));
  }
  template <typename TransformType>
  MapDataset<Self, TransformType> map(TransformType transform) && {
    return datasets::map(std::move(static_cast<Self&>(*this)), std::move(transform));
  }
};

template <typename Self, typename SingleExample = Example<>>
class Dataset : public BatchDataset<Self, std::vector<SingleExample>> {
 public:
  using ExampleType = SingleExample;

  virtual ExampleType get(size_t index) = 0;

  std::vector<ExampleType> get_batch(IndexBatch indices) override {
    std::vector<ExampleType> batch;
    batch.reserve(indices.size());
    for (const size_t i : indices) batch.push_back(get(i));
    return batch;
  }
};

template <typename Self, typename Batch = std::vector<Example<>>>
using StreamDataset = BatchDataset<Self, Batch, /*BatchRequest=*/size_t>;

template <typename Self, typename Batch = std::vector<Example<>>, typename BatchRequest = size_t>
class StatefulDataset : public BatchDataset<Self, std::optional<Batch>, BatchRequest> {
 public:
  // Starts a new epoch (the loader calls it at every begin()).
  virtual void reset() = 0;
};

namespace detail {
template <bool C, typename T>
using optional_if_t = typename std::conditional<C, std::optional<T>, T>::type;
}  // namespace detail

template <typename SourceDataset, typename AppliedTransform>
class MapDataset
    : public BatchDataset<MapDataset<SourceDataset, AppliedTransform>,
                          detail::optional_if_t<SourceDataset::is_stateful,
                                                typename AppliedTransform::OutputBatchType>,
                          typename SourceDataset::BatchRequestType> {
 public:
  using DatasetType = SourceDataset;
  using TransformType = AppliedTransform;
  using BatchRequestType = typename SourceDataset::BatchRequestType;
  using OutputBatchType =
      detail::optional_if_t<SourceDataset::is_stateful, typename AppliedTransform::OutputBatchType>;

  MapDataset(DatasetType dataset, TransformType transform)
      : dataset_(std::move(dataset)), transform_(std::move(transform)) {}

  OutputBatchType get_batch(BatchRequestType request) override {
    if constexpr (SourceDataset::is_stateful) {
      auto batch = dataset_.get_batch(std::move(request));
      if (!batch.has_value()) return std::nullopt;
      return transform_.apply_batch(std::move(*batch));
    } else {
      return transform_.apply_batch(dataset_.get_batch(std::move(request)));
    }
  }
  std::optional<size_t> size() const override { return dataset_.size(); }
  // Resets the source (stateful datasets only).
  void reset() { dataset_.reset(); }

  const SourceDataset& dataset() const noexcept { return dataset_; }
  const AppliedTransform& transform() const noexcept { return transform_; }

 private:
  SourceDataset dataset_;
  AppliedTransform transform_;
};

template <typename DatasetType, typename TransformType>
MapDataset<DatasetType, TransformType> map(DatasetType dataset, TransformType transform) {
  using Input = typename detail::unwrap_optional<typename DatasetType::BatchType>::type;
  static_assert(std::is_same<Input, typename TransformType::InputBatchType>::value,
                "BatchType type of dataset does not match input type of transform");
  return {std::move(dataset), std::move(transform)};
}

// A dataset held by shared_ptr, so that copies (one per loader worker)
// share it.
template <typename UnderlyingDataset>
class SharedBatchDataset : public BatchDataset<SharedBatchDataset<UnderlyingDataset>,
                                               typename UnderlyingDataset::BatchType,
                                               typename UnderlyingDataset::BatchRequestType> {
 public:
  using BatchType = typename UnderlyingDataset::BatchType;
  using BatchRequestType = typename UnderlyingDataset::BatchRequestType;

  /* implicit */ SharedBatchDataset(std::shared_ptr<UnderlyingDataset> shared_dataset)
      : dataset_(std::move(shared_dataset)) {
    EMBER_CHECK(dataset_ != nullptr, "SharedBatchDataset: dataset is null");
  }
  BatchType get_batch(BatchRequestType request) override {
    return dataset_->get_batch(std::move(request));
  }
  std::optional<size_t> size() const override { return dataset_->size(); }
  void reset() { dataset_->reset(); }

  UnderlyingDataset& operator*() { return *dataset_; }
  const UnderlyingDataset& operator*() const { return *dataset_; }
  UnderlyingDataset* operator->() { return dataset_.get(); }
  const UnderlyingDataset* operator->() const { return dataset_.get(); }

 private:
  std::shared_ptr<UnderlyingDataset> dataset_;
};

template <typename UnderlyingDataset, typename... Args>
SharedBatchDataset<UnderlyingDataset> make_shared_dataset(Args&&... args) {
  return std::make_shared<UnderlyingDataset>(std::forward<Args>(args)...);
}

// Rows of one tensor (libtorch's: a vector of tensors is stacked first).
struct TensorDataset : public Dataset<TensorDataset, TensorExample> {
  explicit TensorDataset(const std::vector<Tensor>& tensors);
  explicit TensorDataset(Tensor tensor);
  TensorExample get(size_t index) override;
  std::optional<size_t> size() const override;

  Tensor tensor;
};

// MNIST's IDX files (train-images-idx3-ubyte etc., raw or .gz) as libtorch
// reads them: images float32 N x 1 x 28 x 28 divided by 255, targets int64.
class MNIST : public Dataset<MNIST> {
 public:
  enum class Mode { kTrain, kTest };

  explicit MNIST(const std::string& root, Mode mode = Mode::kTrain);
  Example<> get(size_t index) override;
  std::optional<size_t> size() const override;
  bool is_train() const noexcept { return is_train_; }
  const Tensor& images() const { return images_; }
  const Tensor& targets() const { return targets_; }

 private:
  Tensor images_, targets_;
  bool is_train_;
};

}  // namespace datasets

// libtorch's exports.
using datasets::BatchDataset;
using datasets::Dataset;

}  // namespace data
}  // namespace ember

#endif  // EMBER_DATA_DATASETS_H_
