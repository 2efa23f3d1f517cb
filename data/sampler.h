#ifndef EMBER_DATA_SAMPLER_H_
#define EMBER_DATA_SAMPLER_H_

// Samplers (torch.utils.data.Sampler and friends). A sampler hands out one
// epoch of dataset indices at a time: indices() is PyTorch's iter(sampler),
// materialized (an epoch of indices is small next to the data it names).
//
// Note [PyTorch-identical sampling]: RandomSampler and DistributedSampler
// draw from ember's Generator exactly as PyTorch 1.13 draws from
// torch.Generator (randperm / randint with the same sizes, in the same
// order), and ember's generator reproduces PyTorch's CPU stream bit for bit,
// so the same seeds give the same index lists (data/sampler_test.cc checks
// them against tools/golden/data_samplers.py).

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "tensor/random.h"

namespace ember {
namespace data {

class Sampler {
 public:
  virtual ~Sampler() = default;
  // The indices of the next epoch.
  virtual std::vector<int64_t> indices() = 0;
  // How many indices an epoch has (len(sampler)).
  virtual int64_t size() const = 0;
};

// 0, 1, ..., n - 1.
class SequentialSampler : public Sampler {
 public:
  explicit SequentialSampler(int64_t n);
  std::vector<int64_t> indices() override;
  int64_t size() const override { return n_; }

 private:
  int64_t n_;
};

// A random order of [0, n) each epoch (replacement = false: num_samples / n
// permutations and the head of one more), or num_samples draws with
// replacement. Without a generator, each epoch seeds a fresh one from a
// 64-bit draw of the default generator, as PyTorch does.
class RandomSampler : public Sampler {
 public:
  explicit RandomSampler(int64_t n, bool replacement = false,
                         std::optional<int64_t> num_samples = std::nullopt,
                         std::optional<Generator> generator = std::nullopt);
  std::vector<int64_t> indices() override;
  int64_t size() const override { return num_samples_; }

 private:
  int64_t n_;
  bool replacement_;
  int64_t num_samples_;
  std::optional<Generator> generator_;
};

// The part of a dataset one of num_replicas ranks reads: the same
// permutation on every rank (seeded by seed + epoch), padded by repeating
// its head to a multiple of num_replicas (or cut to one with drop_last),
// rank r taking indices r, r + num_replicas, ... Call set_epoch(e) before
// each epoch for a new order.
class DistributedSampler : public Sampler {
 public:
  DistributedSampler(int64_t n, int64_t num_replicas, int64_t rank, bool shuffle = true,
                     uint64_t seed = 0, bool drop_last = false);
  std::vector<int64_t> indices() override;
  int64_t size() const override { return num_samples_; }
  void set_epoch(int64_t epoch) { epoch_ = epoch; }
  int64_t epoch() const { return epoch_; }
  int64_t total_size() const { return total_size_; }

 private:
  int64_t n_, num_replicas_, rank_;
  bool shuffle_;
  uint64_t seed_;
  bool drop_last_;
  int64_t epoch_ = 0;
  int64_t num_samples_ = 0;
  int64_t total_size_ = 0;
};

// Groups a sampler's indices into batches of batch_size (the last one
// shorter unless drop_last). Subclass it for batches of your own making.
class BatchSampler {
 public:
  BatchSampler(std::shared_ptr<Sampler> sampler, int64_t batch_size, bool drop_last);
  virtual ~BatchSampler() = default;
  virtual std::vector<std::vector<int64_t>> batches();
  // Batches per epoch (len(batch_sampler)).
  virtual int64_t size() const;
  const std::shared_ptr<Sampler>& sampler() const { return sampler_; }
  int64_t batch_size() const { return batch_size_; }
  bool drop_last() const { return drop_last_; }

 private:
  std::shared_ptr<Sampler> sampler_;
  int64_t batch_size_;
  bool drop_last_;
};

}  // namespace data
}  // namespace ember

#endif  // EMBER_DATA_SAMPLER_H_
