#ifndef EMBER_DATA_DATALOADER_H_
#define EMBER_DATA_DATALOADER_H_

// DataLoader: batches of a dataset in sampler order (torch.utils.data.
// DataLoader), built on the consumer's thread (num_workers = 0) or by
// background worker threads.
//
//   auto ds = std::make_shared<data::MNIST>(data::kDefaultMnistRoot, true, ToTensor());
//   data::DataLoader loader(ds, data::DataLoaderOptions().batch_size(64).shuffle(true)
//                                   .num_workers(2));
//   for (int epoch = 0; epoch < 10; ++epoch)
//     for (data::Example<>& batch : loader) train_step(batch.data, batch.target);
//
// Note [DataLoader workers]: ember's workers are threads sharing the dataset
// (Note [Datasets are read from worker threads]). Batch b is built by worker
// b % num_workers (PyTorch's round-robin), and a worker starts batch b only
// once the consumer has taken batch b - prefetch_factor * num_workers, so at
// most prefetch_factor * num_workers batches exist ahead of the consumer,
// and batches arrive in sampler order whatever the threads' timing. An
// exception while loading a sample reaches the consumer as a DataLoaderError
// naming the worker, the batch and the sample index; destroying the
// iterator (or the loader's last iterator) mid-epoch stops and joins the
// workers.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <iterator>
#include <limits>
#include <string>
#include <type_traits>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "data/collate.h"
#include "data/dataset.h"
#include "data/sampler.h"
#include "tensor/error.h"
#include "tensor/random.h"

namespace ember {
namespace data {

#define EMBER_DATA_OPTION(T, name, ...)    \
 public:                                   \
  DataLoaderOptions& name(T value) {       \
    name##_ = std::move(value);            \
    return *this;                          \
  }                                        \
  const T& name() const { return name##_; } \
                                           \
 private:                                  \
  T name##_ = __VA_ARGS__;

// PyTorch's DataLoader arguments, set by chaining:
// DataLoaderOptions().batch_size(64).shuffle(true).num_workers(2).
// The same class is libtorch's torch::data::DataLoaderOptions for
// make_data_loader (data_loader.h): DataLoaderOptions(64).workers(2)
// .max_jobs(4).timeout(std::chrono::milliseconds(500)).drop_last(true).
class DataLoaderOptions {
 public:
  DataLoaderOptions() = default;
  /* implicit */ DataLoaderOptions(int64_t batch_size) : batch_size_(batch_size) {}

  EMBER_DATA_OPTION(int64_t, batch_size, 1)
  EMBER_DATA_OPTION(bool, shuffle, false)
  EMBER_DATA_OPTION(std::shared_ptr<Sampler>, sampler, nullptr)
  EMBER_DATA_OPTION(std::shared_ptr<BatchSampler>, batch_sampler, nullptr)
  EMBER_DATA_OPTION(int64_t, num_workers, 0)
  // Batches loaded in advance by each worker (2 when unset; only with
  // num_workers > 0).
  EMBER_DATA_OPTION(std::optional<int64_t>, prefetch_factor, std::nullopt)
  // Note [pin_memory without CUDA].
  EMBER_DATA_OPTION(bool, pin_memory, false)
  EMBER_DATA_OPTION(bool, drop_last, false)
  // Seconds to wait for a batch from the workers; 0 waits forever.
  EMBER_DATA_OPTION(double, timeout, 0)
  // Draws the shuffle order and the workers' base seed (Note [Worker
  // seeds]); the default generator when unset.
  EMBER_DATA_OPTION(std::optional<Generator>, generator, std::nullopt)
  // libtorch's: batches requested ahead of the consumer by all workers
  // together (2 * workers when unset).
  EMBER_DATA_OPTION(std::optional<int64_t>, max_jobs, std::nullopt)
  // libtorch's: batches arrive in order either way (ember's loaders always
  // keep the sampler's order, so false only permits what true guarantees).
  EMBER_DATA_OPTION(bool, enforce_ordering, true)

 public:
  // libtorch's spellings of num_workers and timeout.
  DataLoaderOptions& workers(int64_t value) { return num_workers(value); }
  int64_t workers() const { return num_workers_; }
  DataLoaderOptions& timeout(std::chrono::milliseconds value) {
    return timeout(std::chrono::duration<double>(value).count());
  }
};
#undef EMBER_DATA_OPTION

// A failure while loading a batch, re-raised on the consumer's thread.
class DataLoaderError : public Error {
 public:
  DataLoaderError(const std::string& msg, int64_t worker_id, int64_t batch_index,
                  int64_t sample_index)
      : Error(msg), worker_id_(worker_id), batch_index_(batch_index), sample_index_(sample_index) {}
  // -1 when the batch was built on the consumer's thread (num_workers = 0).
  int64_t worker_id() const { return worker_id_; }
  int64_t batch_index() const { return batch_index_; }
  // The dataset index whose get() failed, -1 when collating failed.
  int64_t sample_index() const { return sample_index_; }

 private:
  int64_t worker_id_, batch_index_, sample_index_;
};

namespace internal {

// Thrown by a batch's producer: which sample failed and why.
struct SampleFailure {
  int64_t sample_index;  // -1: collate / pin_memory
  std::string what;
};

// Runs one epoch: produce(b) for b in [0, num_batches), on the caller's
// thread or on worker threads (Note [DataLoader workers]). Batches travel
// type-erased so that this machinery is compiled once.
class EpochRunner {
 public:
  // produce(batch, stop) returns the batch, nullptr if `stop` became true
  // midway, end_of_epoch() when there are no more batches (for an epoch
  // of kUnknownLength), or throws SampleFailure.
  using Produce = std::function<std::shared_ptr<void>(int64_t, const std::atomic<bool>&)>;
  // num_batches of an epoch that ends when produce says so.
  static constexpr int64_t kUnknownLength = std::numeric_limits<int64_t>::max();
  static const std::shared_ptr<void>& end_of_epoch();

  // Note [Epochs of unknown length]: a libtorch StatefulDataset is asked
  // for batches until one comes back empty (produce returns end_of_epoch()).
  // With workers, several batches are in flight at once and the dataset
  // answers whichever worker asks first, so a batch started before the
  // empty one may still hold data: no batch starts once one came back
  // empty, and next() goes on taking the batches that did start (skipping
  // the empty ones and those never started) until none is left, as
  // libtorch's loader does.
  //
  // At most `window` batches are built ahead of the consumer (with workers).
  EpochRunner(int64_t num_batches, int64_t num_workers, int64_t window, double timeout,
              uint64_t base_seed, Produce produce);
  ~EpochRunner();
  EpochRunner(const EpochRunner&) = delete;
  EpochRunner& operator=(const EpochRunner&) = delete;

  // The next batch in order, nullptr at the end of the epoch. Throws
  // DataLoaderError for a batch that failed (the epoch goes on after it) and
  // Error on a timeout.
  std::shared_ptr<void> next();
  // Batches built and not yet taken (for tests of the prefetch bound).
  int64_t ready_batches();

 private:
  struct Slot {
    int64_t batch = -1;  // the batch started in this slot, -1: none
    bool done = false;   // built (value or error set; neither: it came back empty)
    std::shared_ptr<void> value;
    std::exception_ptr error;
  };
  void worker_loop(int64_t worker_id);
  std::shared_ptr<void> run(int64_t batch, int64_t worker_id, std::exception_ptr* error);

  const int64_t num_workers_, window_, num_batches_;
  bool ended_ = false;        // a batch came back empty (end_of_epoch)
  int64_t last_started_ = -1;  // the highest batch a worker started
  const double timeout_;
  const uint64_t base_seed_;
  Produce produce_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::condition_variable work_cv_, ready_cv_;
  int64_t next_ = 0;
  std::vector<Slot> slots_;
  std::vector<std::thread> threads_;
};

// Checks the options as PyTorch does and returns the batch sampler they
// describe.
std::shared_ptr<BatchSampler> make_batch_sampler(const DataLoaderOptions& options,
                                                 int64_t dataset_size);
// A 64-bit seed from `generator` (or the default one), in [0, 2^63).
uint64_t draw_base_seed(const std::optional<Generator>& generator);

}  // namespace internal

// An input iterator over one epoch's batches, shared by DataLoader and
// libtorch's loaders (data_loader.h). Dereferencing gives the current batch;
// iterators compare equal only when both are at the end. Destroying the
// last iterator of an epoch stops and joins its workers.
template <typename Batch>
class Iterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = Batch;
  using difference_type = std::ptrdiff_t;
  using pointer = Batch*;
  using reference = Batch&;

  Iterator() = default;
  // An iterator at the first batch of `runner`'s epoch (loaders make these).
  explicit Iterator(std::shared_ptr<internal::EpochRunner> runner) : runner_(std::move(runner)) {
    advance();
  }
  Batch& operator*() const { return *current_; }
  Batch* operator->() const { return current_.get(); }
  Iterator& operator++() {
    advance();
    return *this;
  }
  bool operator==(const Iterator& o) const { return at_end() && o.at_end(); }
  bool operator!=(const Iterator& o) const { return !(*this == o); }

 private:
  void advance() {
    current_.reset();
    if (runner_ == nullptr) return;
    std::shared_ptr<void> next = runner_->next();
    if (next == nullptr) {
      runner_.reset();  // joins the workers
      return;
    }
    current_ = std::static_pointer_cast<Batch>(next);
  }
  bool at_end() const { return current_ == nullptr; }

  std::shared_ptr<internal::EpochRunner> runner_;
  std::shared_ptr<Batch> current_;
};

template <typename T, typename Batch = typename DefaultCollate<T>::Batch>
class DataLoader {
 public:
  using CollateFn = std::function<Batch(std::vector<T>)>;

  DataLoader(std::shared_ptr<const MapStyleDataset<T>> dataset, DataLoaderOptions options = {},
             CollateFn collate = nullptr)
      : dataset_(std::move(dataset)), options_(std::move(options)), collate_(std::move(collate)) {
    EMBER_CHECK(dataset_ != nullptr, "DataLoader: dataset is null");
    if (!collate_) {
      if constexpr (std::is_same<Batch, typename DefaultCollate<T>::Batch>::value) {
        collate_ = &DefaultCollate<T>::collate;
      } else {
        EMBER_CHECK(false, "DataLoader: a batch type other than the default needs a collate function");
      }
    }
    EMBER_CHECK(!options_.pin_memory() || IsPinnable<Batch>::value,
                "pin_memory pins batches of Tensor or Example (or vectors of them); pin batches "
                "of other types in the collate function");
    batch_sampler_ = internal::make_batch_sampler(options_, dataset_->size());
  }

  // Batches per epoch.
  int64_t size() const { return batch_sampler_->size(); }
  const DataLoaderOptions& options() const { return options_; }
  const std::shared_ptr<BatchSampler>& batch_sampler() const { return batch_sampler_; }

  using Iterator = data::Iterator<Batch>;

  // Starts an epoch: a fresh order from the sampler and, with num_workers >
  // 0, fresh workers.
  Iterator begin() {
    // PyTorch draws the workers' base seed before the sampler's first draw.
    const uint64_t base_seed = internal::draw_base_seed(options_.generator());
    auto batches =
        std::make_shared<const std::vector<std::vector<int64_t>>>(batch_sampler_->batches());
    auto runner = std::make_shared<internal::EpochRunner>(
        static_cast<int64_t>(batches->size()), options_.num_workers(),
        options_.num_workers() * options_.prefetch_factor().value_or(2), options_.timeout(),
        base_seed,
        [dataset = dataset_, collate = collate_, batches, pin = options_.pin_memory()](
            int64_t b, const std::atomic<bool>& stop) -> std::shared_ptr<void> {
          const std::vector<int64_t>& indices = (*batches)[b];
          std::vector<T> samples;
          samples.reserve(indices.size());
          for (int64_t index : indices) {
            if (stop.load(std::memory_order_relaxed)) return nullptr;
            try {
              samples.push_back(dataset->get(index));
            } catch (const std::exception& e) {
              throw internal::SampleFailure{index, e.what()};
            }
          }
          try {
            auto batch = std::make_shared<Batch>(collate(std::move(samples)));
            if constexpr (IsPinnable<Batch>::value) {
              if (pin) pin_batch(*batch);
            }
            return batch;
          } catch (const std::exception& e) {
            throw internal::SampleFailure{-1, e.what()};
          }
        });
    return Iterator(std::move(runner));
  }
  Iterator end() { return Iterator(); }

 private:
  std::shared_ptr<const MapStyleDataset<T>> dataset_;
  DataLoaderOptions options_;
  CollateFn collate_;
  std::shared_ptr<BatchSampler> batch_sampler_;
};

// DataLoader loader(std::make_shared<MyDataset>(), options) deduces the
// sample type from the dataset.
template <typename D>
DataLoader(std::shared_ptr<D>) -> DataLoader<typename D::ExampleType>;
template <typename D>
DataLoader(std::shared_ptr<D>, DataLoaderOptions) -> DataLoader<typename D::ExampleType>;

}  // namespace data
}  // namespace ember

#endif  // EMBER_DATA_DATALOADER_H_
