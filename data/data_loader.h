#ifndef EMBER_DATA_DATA_LOADER_H_
#define EMBER_DATA_DATA_LOADER_H_

// libtorch's torch::data::make_data_loader, over the same epoch machinery
// as torch.utils.data's DataLoader (dataloader.h: Note [DataLoader
// workers]):
//
//   auto ds = data::datasets::MNIST(root)
//                 .map(data::transforms::Normalize<>(0.1307, 0.3081))
//                 .map(data::transforms::Stack<>());
//   auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
//       std::move(ds), data::DataLoaderOptions(64).workers(2));
//   for (data::Example<>& batch : *loader) { ... }
//
// make_data_loader(dataset, options = {})           RandomSampler(size)
// make_data_loader<Sampler>(dataset, options)       Sampler(size)
// make_data_loader(dataset, sampler, options)       that sampler
// make_data_loader(stateful_dataset, options)       a StatefulDataLoader
//
// Every begin() starts an epoch: the sampler is reset (a RandomSampler
// draws a new permutation) or the stateful dataset is; batches come in the
// sampler's order (enforce_ordering is always honoured). A batch of fewer
// than batch_size examples is dropped with drop_last. With workers > 0,
// max_jobs batches (2 * workers by default) are built ahead; each worker
// of a stateless loader has its own copy of the dataset (Note [libtorch
// datasets in worker threads]). An exception in get_batch reaches the
// consumer as a DataLoaderError naming the worker and batch; timeout bounds
// the wait for one batch.
//
// Deviation from libtorch: a stateless epoch's batch requests are all
// drawn from the sampler when the epoch starts (libtorch draws them as
// workers need them), which is the same for every sampler whose requests
// do not depend on the batches already loaded.

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "data/dataloader.h"
#include "data/datasets.h"
#include "data/samplers.h"
#include "data/worker.h"
#include "tensor/error.h"

namespace ember {
namespace data {
namespace internal {

// The run-time options of a libtorch-style loader, checked.
struct FullDataLoaderOptions {
  explicit FullDataLoaderOptions(const DataLoaderOptions& o);
  size_t batch_size;
  size_t workers;
  size_t max_jobs;
  double timeout;  // seconds, 0: none
  bool enforce_ordering;
  bool drop_last;
};

// A per-epoch worker seed base that leaves the default generator alone
// (libtorch's loaders draw nothing from it, so RandomSampler's permutations
// stay libtorch's).
uint64_t libtorch_epoch_seed(uint64_t epoch);

}  // namespace internal

using internal::FullDataLoaderOptions;

template <typename Dataset, typename Sampler>
class StatelessDataLoader {
 public:
  using BatchType = typename Dataset::BatchType;
  using BatchRequestType = typename Sampler::BatchRequestType;
  using Iterator = data::Iterator<BatchType>;

  StatelessDataLoader(Dataset dataset, Sampler sampler, DataLoaderOptions options)
      : options_(options), sampler_(std::move(sampler)) {
    // Note [libtorch datasets in worker threads]: one copy per worker.
    const size_t copies = options_.workers == 0 ? 1 : options_.workers;
    for (size_t w = 0; w + 1 < copies; ++w) datasets_.push_back(std::make_shared<Dataset>(dataset));
    datasets_.push_back(std::make_shared<Dataset>(std::move(dataset)));
  }
  StatelessDataLoader(const StatelessDataLoader&) = delete;
  StatelessDataLoader& operator=(const StatelessDataLoader&) = delete;

  Iterator begin() {
    sampler_.reset(std::nullopt);
    auto requests = std::make_shared<std::vector<BatchRequestType>>();
    while (auto request = sampler_.next(options_.batch_size)) {
      const size_t n = request_size(*request);
      if (n < options_.batch_size && options_.drop_last) break;
      EMBER_CHECK(n > 0, "make_data_loader: the sampler returned an empty batch request");
      requests->push_back(std::move(*request));
    }
    auto runner = std::make_shared<internal::EpochRunner>(
        static_cast<int64_t>(requests->size()), options_.workers, options_.max_jobs,
        options_.timeout, internal::libtorch_epoch_seed(epoch_++),
        [datasets = datasets_, requests](int64_t b,
                                         const std::atomic<bool>&) -> std::shared_ptr<void> {
          const WorkerInfo* worker = get_worker_info();
          Dataset& dataset = *datasets[worker == nullptr ? 0 : worker->id];
          return std::make_shared<BatchType>(dataset.get_batch((*requests)[b]));
        });
    return Iterator(std::move(runner));
  }
  Iterator end() { return Iterator(); }

  // libtorch joins its workers here; ember's exist only while an epoch is
  // being iterated, so there is nothing left to join.
  void join() {}
  const FullDataLoaderOptions& options() const noexcept { return options_; }

 private:
  template <typename R>
  static size_t request_size(const R& request) {
    if constexpr (std::is_convertible<R, size_t>::value) {
      return static_cast<size_t>(request);
    } else {
      return request.size();
    }
  }

  FullDataLoaderOptions options_;
  Sampler sampler_;
  std::vector<std::shared_ptr<Dataset>> datasets_;
  uint64_t epoch_ = 0;
};

template <typename Dataset>
class StatefulDataLoader {
 public:
  using BatchType = typename Dataset::BatchType::value_type;
  using BatchRequestType = typename Dataset::BatchRequestType;
  using Iterator = data::Iterator<BatchType>;

  StatefulDataLoader(Dataset dataset, DataLoaderOptions options)
      : options_(options), dataset_(std::make_shared<Dataset>(std::move(dataset))) {}
  StatefulDataLoader(const StatefulDataLoader&) = delete;
  StatefulDataLoader& operator=(const StatefulDataLoader&) = delete;

  Iterator begin() {
    dataset_->reset();
    auto runner = std::make_shared<internal::EpochRunner>(
        internal::EpochRunner::kUnknownLength, options_.workers, options_.max_jobs,
        options_.timeout, internal::libtorch_epoch_seed(epoch_++),
        [dataset = dataset_, batch_size = options_.batch_size](
            int64_t, const std::atomic<bool>&) -> std::shared_ptr<void> {
          auto batch = dataset->get_batch(BatchRequestType(batch_size));
          if (!batch.has_value()) return internal::EpochRunner::end_of_epoch();
          return std::make_shared<BatchType>(std::move(*batch));
        });
    return Iterator(std::move(runner));
  }
  Iterator end() { return Iterator(); }

  void join() {}
  const FullDataLoaderOptions& options() const noexcept { return options_; }

 private:
  FullDataLoaderOptions options_;
  std::shared_ptr<Dataset> dataset_;
  uint64_t epoch_ = 0;
};

template <typename Dataset, typename Sampler>
std::enable_if_t<!Dataset::is_stateful, std::unique_ptr<StatelessDataLoader<Dataset, Sampler>>>
make_data_loader(Dataset dataset, Sampler sampler, DataLoaderOptions options) {
  return std::make_unique<StatelessDataLoader<Dataset, Sampler>>(
      std::move(dataset), std::move(sampler), std::move(options));
}

template <typename Sampler = samplers::RandomSampler, typename Dataset>
std::enable_if_t<!Dataset::is_stateful && std::is_constructible<Sampler, size_t>::value,
                 std::unique_ptr<StatelessDataLoader<Dataset, Sampler>>>
make_data_loader(Dataset dataset, DataLoaderOptions options = DataLoaderOptions()) {
  const std::optional<size_t> size = dataset.size();
  EMBER_CHECK(size.has_value(),
              "Expected the dataset to be sized in order to construct the Sampler");
  return make_data_loader(std::move(dataset), Sampler(*size), std::move(options));
}

template <typename Dataset, typename = std::enable_if_t<Dataset::is_stateful>>
std::unique_ptr<StatefulDataLoader<Dataset>> make_data_loader(
    Dataset dataset, DataLoaderOptions options = DataLoaderOptions()) {
  return std::make_unique<StatefulDataLoader<Dataset>>(std::move(dataset), std::move(options));
}

}  // namespace data
}  // namespace ember

#endif  // EMBER_DATA_DATA_LOADER_H_
