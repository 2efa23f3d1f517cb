#include "data/sampler.h"

#include <mutex>
#include <numeric>

#include "data/dataset.h"
#include "tensor/error.h"

namespace ember {
namespace data {

SequentialSampler::SequentialSampler(int64_t n) : n_(n) {
  EMBER_CHECK_VALUE(n >= 0, "SequentialSampler: the dataset size should be non-negative, got ", n);
}

std::vector<int64_t> SequentialSampler::indices() {
  std::vector<int64_t> out(n_);
  std::iota(out.begin(), out.end(), 0);
  return out;
}

RandomSampler::RandomSampler(int64_t n, bool replacement, std::optional<int64_t> num_samples,
                             std::optional<Generator> generator)
    : n_(n),
      replacement_(replacement),
      num_samples_(num_samples.value_or(n)),
      generator_(std::move(generator)) {
  EMBER_CHECK_VALUE(n >= 0, "RandomSampler: the dataset size should be non-negative, got ", n);
  // PyTorch checks the effective count, so an empty dataset without an
  // explicit num_samples is refused here (it divided by zero in indices()).
  EMBER_CHECK_VALUE(
      num_samples_ > 0,
      "num_samples should be a positive integer value, but got num_samples=", num_samples_);
}

std::vector<int64_t> RandomSampler::indices() {
  Generator gen;
  if (generator_.has_value()) {
    gen = *generator_;
  } else {
    // int(torch.empty((), dtype=torch.int64).random_().item()): a 64-bit draw
    // of the default generator, folded into [0, 2^63).
    Generator def = default_generator();
    uint64_t seed;
    {
      std::lock_guard<std::mutex> lock(def.impl()->mutex());
      seed = def.impl()->random64() % (uint64_t{1} << 63);
    }
    gen.manual_seed(seed);
  }
  std::vector<int64_t> out;
  out.reserve(num_samples_);
  if (num_samples_ > 0) {
    EMBER_CHECK_VALUE(n_ > 0, "RandomSampler: cannot sample from an empty dataset");
  }
  if (replacement_) {
    // PyTorch draws in chunks of 32 (then the remainder); the chunking shows
    // in the stream, so it is kept.
    auto append = [&](int64_t count) {
      const Tensor r = randint(n_, {count}, gen, kLong);
      const int64_t* d = r.data_ptr<int64_t>();
      out.insert(out.end(), d, d + count);
    };
    for (int64_t i = 0; i < num_samples_ / 32; ++i) append(32);
    append(num_samples_ % 32);
  } else {
    for (int64_t i = 0; i < num_samples_ / n_; ++i) {
      const std::vector<int64_t> p = randperm_indices(n_, gen);
      out.insert(out.end(), p.begin(), p.end());
    }
    const std::vector<int64_t> p = randperm_indices(n_, gen);
    out.insert(out.end(), p.begin(), p.begin() + num_samples_ % n_);
  }
  return out;
}

DistributedSampler::DistributedSampler(int64_t n, int64_t num_replicas, int64_t rank, bool shuffle,
                                       uint64_t seed, bool drop_last)
    : n_(n),
      num_replicas_(num_replicas),
      rank_(rank),
      shuffle_(shuffle),
      seed_(seed),
      drop_last_(drop_last) {
  EMBER_CHECK_VALUE(n >= 0, "DistributedSampler: the dataset size should be non-negative, got ", n);
  EMBER_CHECK_VALUE(num_replicas > 0, "DistributedSampler: num_replicas should be positive, got ",
                    num_replicas);
  EMBER_CHECK_VALUE(rank >= 0 && rank < num_replicas, "Invalid rank ", rank,
                    ", rank should be in the interval [0, ", num_replicas - 1, "]");
  if (drop_last_ && n_ % num_replicas_ != 0) {
    // math.ceil((len - num_replicas) / num_replicas), n < num_replicas included.
    const int64_t a = n_ - num_replicas_;
    num_samples_ = a >= 0 ? (a + num_replicas_ - 1) / num_replicas_ : -((-a) / num_replicas_);
  } else {
    num_samples_ = (n_ + num_replicas_ - 1) / num_replicas_;
  }
  total_size_ = num_samples_ * num_replicas_;
}

std::vector<int64_t> DistributedSampler::indices() {
  std::vector<int64_t> all;
  if (shuffle_) {
    all = randperm_indices(n_, Generator(seed_ + static_cast<uint64_t>(epoch_)));
  } else {
    all.resize(n_);
    std::iota(all.begin(), all.end(), 0);
  }
  if (!drop_last_) {
    // Pad by repeating the list from its head (over and over when the
    // padding is longer than the list).
    EMBER_CHECK_VALUE(n_ > 0 || total_size_ == 0, "DistributedSampler: the dataset is empty");
    for (int64_t i = 0; static_cast<int64_t>(all.size()) < total_size_; ++i) {
      const int64_t v = all[i];
      all.push_back(v);
    }
  } else {
    all.resize(total_size_);
  }
  std::vector<int64_t> out;
  out.reserve(num_samples_);
  for (int64_t i = rank_; i < total_size_; i += num_replicas_) out.push_back(all[i]);
  return out;
}

BatchSampler::BatchSampler(std::shared_ptr<Sampler> sampler, int64_t batch_size, bool drop_last)
    : sampler_(std::move(sampler)), batch_size_(batch_size), drop_last_(drop_last) {
  EMBER_CHECK_VALUE(sampler_ != nullptr, "BatchSampler: sampler is null");
  EMBER_CHECK_VALUE(batch_size > 0,
                    "batch_size should be a positive integer value, but got batch_size=",
                    batch_size);
}

std::vector<std::vector<int64_t>> BatchSampler::batches() {
  const std::vector<int64_t> idx = sampler_->indices();
  std::vector<std::vector<int64_t>> out;
  out.reserve(idx.size() / batch_size_ + 1);
  for (size_t i = 0; i < idx.size(); i += batch_size_) {
    const size_t end = std::min(idx.size(), i + static_cast<size_t>(batch_size_));
    if (drop_last_ && end - i < static_cast<size_t>(batch_size_)) break;
    out.emplace_back(idx.begin() + i, idx.begin() + end);
  }
  return out;
}

int64_t BatchSampler::size() const {
  const int64_t n = sampler_->size();
  return drop_last_ ? n / batch_size_ : (n + batch_size_ - 1) / batch_size_;
}

}  // namespace data
}  // namespace ember
