#ifndef EMBER_DATA_SAMPLERS_H_
#define EMBER_DATA_SAMPLERS_H_

// libtorch's torch::data::samplers: what make_data_loader (data_loader.h)
// asks for the indices of each batch. A sampler is reset at the start of
// every epoch and then hands out batch requests until it returns nullopt.
//
//   SequentialSampler(n)         0, 1, ..., n-1
//   RandomSampler(n)             randperm(n) from the default generator, a
//                                fresh one at every reset (libtorch draws one
//                                in the constructor too, so under
//                                manual_seed the orders are libtorch's)
//   DistributedRandomSampler     this rank's share of a permutation seeded by
//     (n, replicas, rank)        the epoch (set_epoch), std::mt19937 +
//                                std::shuffle as libtorch
//   DistributedSequentialSampler this rank's consecutive share
//   StreamSampler(epoch_size)    batch sizes only, for StreamDatasets
//
// Deviation from libtorch: samplers have no save()/load() (libtorch's take
// its serialize::OutputArchive, which //data cannot depend on); a user's
// sampler does not need to override them.
//
// These are libtorch's samplers; torch.utils.data's (RandomSampler with
// replacement and generators, BatchSampler, DistributedSampler) are in
// sampler.h, in namespace data.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "tensor/dtype.h"

namespace ember {
namespace data {
namespace samplers {

template <typename BatchRequest = std::vector<size_t>>
class Sampler {
 public:
  using BatchRequestType = BatchRequest;

  virtual ~Sampler() = default;
  // Starts over, optionally with a new dataset size.
  virtual void reset(std::optional<size_t> new_size) = 0;
  // The next request of at most batch_size examples, nullopt at the end.
  virtual std::optional<BatchRequest> next(size_t batch_size) = 0;
};

class SequentialSampler : public Sampler<> {
 public:
  explicit SequentialSampler(size_t size) : size_(size) {}
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  // How many indices this epoch has handed out.
  size_t index() const noexcept { return index_; }

 private:
  size_t size_;
  size_t index_ = 0;
};

class RandomSampler : public Sampler<> {
 public:
  // index_dtype is accepted for libtorch's signature; the permutation does
  // not depend on it.
  explicit RandomSampler(int64_t size, ScalarType index_dtype = kLong);
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  size_t index() const noexcept { return index_; }

 private:
  std::vector<int64_t> indices_;
  size_t index_ = 0;
};

// What the distributed samplers share: this replica's share of `size`
// examples, padded with repeats so every replica gets as many
// (allow_duplicates) or cut to size / num_replicas each.
template <typename BatchRequest = std::vector<size_t>>
class DistributedSampler : public Sampler<BatchRequest> {
 public:
  DistributedSampler(size_t size, size_t num_replicas = 1, size_t rank = 0,
                     bool allow_duplicates = true)
      : size_(size),
        num_replicas_(num_replicas),
        rank_(rank),
        allow_duplicates_(allow_duplicates) {}

  // Seeds the next reset's shuffle; call before each epoch.
  void set_epoch(size_t epoch) { epoch_ = epoch; }
  size_t epoch() const { return epoch_; }
  // Where this epoch has got to in [begin, end) of the replica's share.
  size_t index() const noexcept { return sample_index_; }

 protected:
  size_t local_sample_count() const {
    return allow_duplicates_ ? (size_ + num_replicas_ - 1) / num_replicas_ : size_ / num_replicas_;
  }

  size_t size_;
  size_t num_replicas_;
  size_t rank_;
  size_t epoch_ = 0;
  bool allow_duplicates_;
  size_t begin_index_ = 0, end_index_ = 0, sample_index_ = 0;
};

class DistributedRandomSampler : public DistributedSampler<> {
 public:
  DistributedRandomSampler(size_t size, size_t num_replicas = 1, size_t rank = 0,
                           bool allow_duplicates = true);
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;

 private:
  void populate_indices();

  std::vector<size_t> all_indices_;
};

class DistributedSequentialSampler : public DistributedSampler<> {
 public:
  DistributedSequentialSampler(size_t size, size_t num_replicas = 1, size_t rank = 0,
                               bool allow_duplicates = true);
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;

 private:
  void populate_indices();
};

// A batch request that is only a size (what a StreamDataset is asked for).
struct CustomBatchRequest {
  virtual ~CustomBatchRequest() = default;
  virtual size_t size() const noexcept = 0;
};

struct BatchSize : public CustomBatchRequest {
  explicit BatchSize(size_t size) : size_(size) {}
  size_t size() const noexcept override { return size_; }
  operator size_t() const noexcept { return size_; }
  size_t size_;
};

// Hands out batch sizes until epoch_size examples have been asked for.
class StreamSampler : public Sampler<BatchSize> {
 public:
  explicit StreamSampler(size_t epoch_size) : epoch_size_(epoch_size) {}
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<BatchSize> next(size_t batch_size) override;

 private:
  size_t examples_retrieved_so_far_ = 0;
  size_t epoch_size_;
};

}  // namespace samplers
}  // namespace data
}  // namespace ember

#endif  // EMBER_DATA_SAMPLERS_H_
