#ifndef EMBER_DATA_DATASET_H_
#define EMBER_DATA_DATASET_H_

// torch.utils.data's map-style datasets: MapStyleDataset (size() and
// get(index)), TensorDataset, Subset, ConcatDataset and random_split.
//
// The base is torch.utils.data.Dataset; it is called MapStyleDataset (the
// name PyTorch's documentation gives this kind of dataset) because
// data::Dataset<Self, Example> is libtorch's CRTP base (datasets.h), which
// libtorch programs spell torch::data::Dataset.
//
// A dataset yields one sample type T. The default, Example<>, is the (data,
// target) pair most datasets return; any copyable type works (a user struct,
// a plain Tensor) as long as the DataLoader is given a collate function for
// it (see dataloader.h).
//
// Note [Datasets are read from worker threads]: a DataLoader with
// num_workers > 0 calls get() from several threads at once (ember's workers
// are threads, not processes), so get() must be safe to call concurrently:
// it is const, and state it changes (a cache, a file handle) needs a lock.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "data/example.h"
#include "tensor/error.h"
#include "tensor/random.h"
#include "tensor/tensor.h"

namespace ember {
namespace data {

template <typename T = Example<>>
class MapStyleDataset {
 public:
  using ExampleType = T;
  virtual ~MapStyleDataset() = default;
  // The sample at `index` in [0, size()). Thread-safe (Note [Datasets are
  // read from worker threads]).
  virtual T get(int64_t index) const = 0;
  virtual int64_t size() const = 0;
};

// Throws PyTorch's IndexError unless 0 <= index < size (negative indices
// count from the end, as Python's do); returns the index made non-negative.
int64_t check_index(int64_t index, int64_t size, const char* what);

// Rows of tensors that share their first dimension: get(i) is
// {tensors[0][i], tensors[1][i]} (PyTorch's TensorDataset with two tensors;
// with one tensor, target is undefined). tensors()[k][i] reaches the others.
class TensorDataset : public MapStyleDataset<Example<>> {
 public:
  explicit TensorDataset(std::vector<Tensor> tensors);
  TensorDataset(Tensor data, Tensor target) : TensorDataset(std::vector<Tensor>{data, target}) {}
  Example<> get(int64_t index) const override;
  int64_t size() const override { return tensors_[0].size(0); }
  const std::vector<Tensor>& tensors() const { return tensors_; }

 private:
  std::vector<Tensor> tensors_;
};

// The samples of `dataset` at `indices`, in that order.
template <typename T>
class Subset : public MapStyleDataset<T> {
 public:
  Subset(std::shared_ptr<const MapStyleDataset<T>> dataset, std::vector<int64_t> indices)
      : dataset_(std::move(dataset)), indices_(std::move(indices)) {
    EMBER_CHECK(dataset_ != nullptr, "Subset: dataset is null");
  }
  T get(int64_t index) const override {
    index = check_index(index, size(), "Subset");
    return dataset_->get(indices_[index]);
  }
  int64_t size() const override { return static_cast<int64_t>(indices_.size()); }
  const std::vector<int64_t>& indices() const { return indices_; }
  const std::shared_ptr<const MapStyleDataset<T>>& dataset() const { return dataset_; }

 private:
  std::shared_ptr<const MapStyleDataset<T>> dataset_;
  std::vector<int64_t> indices_;
};

// The datasets one after another.
template <typename T>
class ConcatDataset : public MapStyleDataset<T> {
 public:
  explicit ConcatDataset(std::vector<std::shared_ptr<const MapStyleDataset<T>>> datasets)
      : datasets_(std::move(datasets)) {
    EMBER_CHECK(!datasets_.empty(), "datasets should not be an empty iterable");
    int64_t total = 0;
    for (const auto& d : datasets_) {
      EMBER_CHECK(d != nullptr, "ConcatDataset: a dataset is null");
      total += d->size();
      cumulative_sizes_.push_back(total);
    }
  }
  T get(int64_t index) const override {
    index = check_index(index, size(), "ConcatDataset");
    // bisect_right, as PyTorch does: the first dataset whose cumulative size
    // exceeds the index.
    const auto it = std::upper_bound(cumulative_sizes_.begin(), cumulative_sizes_.end(), index);
    const size_t d = it - cumulative_sizes_.begin();
    const int64_t start = d == 0 ? 0 : cumulative_sizes_[d - 1];
    return datasets_[d]->get(index - start);
  }
  int64_t size() const override { return cumulative_sizes_.back(); }
  const std::vector<int64_t>& cumulative_sizes() const { return cumulative_sizes_; }

 private:
  std::vector<std::shared_ptr<const MapStyleDataset<T>>> datasets_;
  std::vector<int64_t> cumulative_sizes_;
};

// The subset lengths random_split uses for `lengths` over n samples, with
// PyTorch's rule: values that sum to 1 (within 1e-9) are fractions, each
// floored and the remainder handed out round-robin; otherwise they are counts
// and must be whole and sum to n.
std::vector<int64_t> split_lengths(int64_t n, const std::vector<double>& lengths);
// randperm(n, generator) as a vector (what PyTorch's samplers iterate over).
std::vector<int64_t> randperm_indices(int64_t n, const Generator& generator);

// Splits `dataset` into non-overlapping subsets of the given lengths (counts
// or fractions: random_split(ds, {50, 10}) or random_split(ds, {0.8, 0.2})),
// the indices drawn from randperm(n, generator): with the same seed the
// subsets hold the indices PyTorch's random_split gives.
template <typename D>
std::vector<std::shared_ptr<Subset<typename D::ExampleType>>> random_split(
    std::shared_ptr<D> dataset, const std::vector<double>& lengths,
    const Generator& generator = default_generator()) {
  using T = typename D::ExampleType;
  EMBER_CHECK(dataset != nullptr, "random_split: dataset is null");
  const std::vector<int64_t> sizes = split_lengths(dataset->size(), lengths);
  const std::vector<int64_t> perm = randperm_indices(dataset->size(), generator);
  std::vector<std::shared_ptr<Subset<T>>> out;
  size_t offset = 0;
  for (int64_t len : sizes) {
    out.push_back(std::make_shared<Subset<T>>(
        dataset, std::vector<int64_t>(perm.begin() + offset, perm.begin() + offset + len)));
    offset += len;
  }
  return out;
}

// Integer counts held in a vector of an integral type.
template <typename D, typename I, typename = std::enable_if_t<std::is_integral<I>::value>>
std::vector<std::shared_ptr<Subset<typename D::ExampleType>>> random_split(
    std::shared_ptr<D> dataset, const std::vector<I>& lengths,
    const Generator& generator = default_generator()) {
  return random_split(std::move(dataset), std::vector<double>(lengths.begin(), lengths.end()),
                      generator);
}

}  // namespace data
}  // namespace ember

#endif  // EMBER_DATA_DATASET_H_
