#include "data/dataloader.h"

#include <algorithm>
#include <chrono>

#include "data/worker.h"

namespace ember {
namespace data {
namespace internal {

std::shared_ptr<BatchSampler> make_batch_sampler(const DataLoaderOptions& o, int64_t n) {
  // PyTorch's checks, in its order and words.
  EMBER_CHECK_VALUE(o.num_workers() >= 0,
                    "num_workers option should be non-negative; use num_workers=0 to disable "
                    "multiprocessing.");
  EMBER_CHECK_VALUE(o.timeout() >= 0, "timeout option should be non-negative");
  EMBER_CHECK_VALUE(o.num_workers() > 0 || !o.prefetch_factor().has_value(),
                    "prefetch_factor option could only be specified in multiprocessing.let "
                    "num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to "
                    "None.");
  EMBER_CHECK_VALUE(!o.prefetch_factor().has_value() || *o.prefetch_factor() > 0,
                    "prefetch_factor option should be positive, got ", o.prefetch_factor().value_or(0));
  EMBER_CHECK_VALUE(o.sampler() == nullptr || !o.shuffle(),
                    "sampler option is mutually exclusive with shuffle");
  if (o.batch_sampler() != nullptr) {
    EMBER_CHECK_VALUE(o.batch_size() == 1 && !o.shuffle() && o.sampler() == nullptr && !o.drop_last(),
                      "batch_sampler option is mutually exclusive with batch_size, shuffle, "
                      "sampler, and drop_last");
    return o.batch_sampler();
  }
  std::shared_ptr<Sampler> sampler = o.sampler();
  if (sampler == nullptr) {
    if (o.shuffle()) {
      sampler = std::make_shared<RandomSampler>(n, false, std::nullopt, o.generator());
    } else {
      sampler = std::make_shared<SequentialSampler>(n);
    }
  }
  return std::make_shared<BatchSampler>(sampler, o.batch_size(), o.drop_last());
}

uint64_t draw_base_seed(const std::optional<Generator>& generator) {
  Generator g = generator.has_value() ? *generator : default_generator();
  std::lock_guard<std::mutex> lock(g.impl()->mutex());
  return g.impl()->random64() % (uint64_t{1} << 63);
}

const std::shared_ptr<void>& EpochRunner::end_of_epoch() {
  static const std::shared_ptr<void> end = std::make_shared<int>(0);
  return end;
}

EpochRunner::EpochRunner(int64_t num_batches, int64_t num_workers, int64_t window,
                         double timeout, uint64_t base_seed, Produce produce)
    : num_workers_(num_workers),
      window_(window),
      num_batches_(num_batches),
      timeout_(timeout),
      base_seed_(base_seed),
      produce_(std::move(produce)) {
  if (num_workers_ == 0) return;
  EMBER_CHECK_VALUE(window_ > 0, "DataLoader: the number of batches loaded ahead must be positive");
  slots_.resize(window_);
  threads_.reserve(num_workers_);
  try {
    for (int64_t w = 0; w < num_workers_; ++w) threads_.emplace_back([this, w] { worker_loop(w); });
  } catch (...) {
    stop_ = true;
    work_cv_.notify_all();
    for (std::thread& t : threads_) t.join();
    throw;
  }
}

EpochRunner::~EpochRunner() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

std::shared_ptr<void> EpochRunner::run(int64_t batch, int64_t worker_id,
                                       std::exception_ptr* error) {
  const std::string who = worker_id < 0 ? std::string("the DataLoader's main thread")
                                        : absl::StrCat("DataLoader worker ", worker_id);
  try {
    return produce_(batch, stop_);
  } catch (const SampleFailure& f) {
    const std::string where =
        f.sample_index >= 0 ? absl::StrCat("loading sample index ", f.sample_index, " of batch ", batch)
                            : absl::StrCat("collating batch ", batch);
    *error = std::make_exception_ptr(DataLoaderError(
        absl::StrCat("Caught an exception in ", who, " while ", where, ": ", f.what), worker_id,
        batch, f.sample_index));
  } catch (const std::exception& e) {
    *error = std::make_exception_ptr(DataLoaderError(
        absl::StrCat("Caught an exception in ", who, " while building batch ", batch, ": ", e.what()),
        worker_id, batch, -1));
  }
  return nullptr;
}

void EpochRunner::worker_loop(int64_t worker_id) {
  WorkerInfo info;
  info.id = worker_id;
  info.num_workers = num_workers_;
  info.seed = base_seed_ + static_cast<uint64_t>(worker_id);
  info.generator = Generator(info.seed);
  set_worker_info(&info);
  for (int64_t b = worker_id;; b += num_workers_) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      work_cv_.wait(lock, [&] { return stop_.load() || b < next_ + window_; });
      // Note [Epochs of unknown length]: once a batch came back empty, no
      // new batch starts.
      if (stop_ || b >= num_batches_ || ended_) break;
      Slot& slot = slots_[b % window_];
      slot.batch = b;
      slot.done = false;
      last_started_ = std::max(last_started_, b);
    }
    std::exception_ptr error;
    std::shared_ptr<void> value = run(b, worker_id, &error);
    if (value == nullptr && error == nullptr) break;  // stopped midway
    {
      std::lock_guard<std::mutex> lock(mu_);
      Slot& slot = slots_[b % window_];
      slot.done = true;
      slot.error = error;
      if (value == end_of_epoch()) {
        ended_ = true;  // the slot stays empty
      } else {
        slot.value = std::move(value);
      }
    }
    ready_cv_.notify_all();
  }
  internal::set_worker_info(nullptr);
}

std::shared_ptr<void> EpochRunner::next() {
  if (num_workers_ == 0) {
    if (next_ >= num_batches_ || ended_) return nullptr;
    std::exception_ptr error;
    const int64_t b = next_++;
    std::shared_ptr<void> value = run(b, -1, &error);
    if (error) std::rethrow_exception(error);
    if (value == end_of_epoch()) {
      ended_ = true;
      return nullptr;
    }
    return value;
  }
  // Note [Epochs of unknown length]: batches started before one came back
  // empty may still hold data (a stateful dataset shared by the workers
  // answers whichever asks first), so the consumer takes every batch that
  // started, skips the empty ones and the ones that never started, and the
  // epoch ends when no batch is left in flight, as libtorch's does.
  std::unique_lock<std::mutex> lock(mu_);
  while (next_ < num_batches_) {
    Slot& slot = slots_[next_ % window_];
    auto ready = [&] { return (slot.batch == next_ && slot.done) || (ended_ && slot.batch != next_); };
    if (timeout_ > 0) {
      const auto limit = std::chrono::duration<double>(timeout_);
      EMBER_CHECK(ready_cv_.wait_for(lock, limit, ready), "DataLoader timed out after ", timeout_,
                  " seconds");
    } else {
      ready_cv_.wait(lock, ready);
    }
    if (slot.batch != next_) {
      // Never started, and never will; later batches may have.
      if (next_ >= last_started_) return nullptr;
      ++next_;
      continue;
    }
    Slot taken = std::move(slot);
    slot = Slot();
    ++next_;
    lock.unlock();
    work_cv_.notify_all();
    if (taken.error) std::rethrow_exception(taken.error);
    if (taken.value != nullptr) return taken.value;
    lock.lock();  // an empty batch: on to the next
  }
  return nullptr;
}

int64_t EpochRunner::ready_batches() {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t n = 0;
  for (const Slot& s : slots_) n += s.batch >= 0 && s.done ? 1 : 0;
  return n;
}

}  // namespace internal
}  // namespace data
}  // namespace ember
