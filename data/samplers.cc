#include "data/samplers.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "data/dataset.h"
#include "tensor/error.h"
#include "tensor/random.h"

namespace ember {
namespace data {
namespace samplers {

void SequentialSampler::reset(std::optional<size_t> new_size) {
  if (new_size.has_value()) size_ = *new_size;
  index_ = 0;
}

std::optional<std::vector<size_t>> SequentialSampler::next(size_t batch_size) {
  const size_t end = std::min(index_ + batch_size, size_);
  if (end == index_) return std::nullopt;
  std::vector<size_t> batch(end - index_);
  std::iota(batch.begin(), batch.end(), index_);
  index_ = end;
  return batch;
}

RandomSampler::RandomSampler(int64_t size, ScalarType index_dtype) {
  EMBER_CHECK_VALUE(size >= 0, "RandomSampler: size must be non-negative, got ", size);
  EMBER_CHECK_VALUE(is_integral(index_dtype, /*include_bool=*/false),
                    "RandomSampler: index_dtype must be an integer type, got ",
                    dtype_name(index_dtype));
  // libtorch draws a permutation here and another at every reset; drawing
  // both keeps the default generator where libtorch leaves it.
  indices_ = randperm_indices(size, default_generator());
}

void RandomSampler::reset(std::optional<size_t> new_size) {
  const size_t size = new_size.value_or(indices_.size());
  indices_ = randperm_indices(static_cast<int64_t>(size), default_generator());
  index_ = 0;
}

std::optional<std::vector<size_t>> RandomSampler::next(size_t batch_size) {
  const size_t end = std::min(index_ + batch_size, indices_.size());
  if (end == index_) return std::nullopt;
  std::vector<size_t> batch(indices_.begin() + index_, indices_.begin() + end);
  index_ = end;
  return batch;
}

namespace {

// The next batch_size indices of [*sample_index, end_index), each mapped by
// `at`.
template <typename At>
std::optional<std::vector<size_t>> take(size_t* sample_index, size_t end_index, size_t batch_size,
                                        At at) {
  if (*sample_index == end_index) return std::nullopt;
  const size_t end = std::min(*sample_index + batch_size, end_index);
  std::vector<size_t> batch;
  batch.reserve(end - *sample_index);
  for (size_t i = *sample_index; i < end; ++i) batch.push_back(at(i));
  *sample_index = end;
  return batch;
}

}  // namespace

DistributedRandomSampler::DistributedRandomSampler(size_t size, size_t num_replicas, size_t rank,
                                                   bool allow_duplicates)
    : DistributedSampler(size, num_replicas, rank, allow_duplicates) {
  EMBER_CHECK_VALUE(num_replicas > 0 && rank < num_replicas, "DistributedRandomSampler: rank ",
                    rank, " is not in [0, num_replicas = ", num_replicas, ")");
  reset(size_);
}

void DistributedRandomSampler::populate_indices() {
  const size_t local = local_sample_count();
  const size_t count = num_replicas_ == 1 ? size_ : local * num_replicas_;
  all_indices_.resize(count);
  std::iota(all_indices_.begin(), all_indices_.end(), size_t{0});
  // Replicas that would run short repeat the first examples.
  for (size_t i = size_; i < count; ++i) all_indices_[i] = i - size_;
  begin_index_ = rank_ * local;
  end_index_ = begin_index_ + local;
  sample_index_ = begin_index_;
}

void DistributedRandomSampler::reset(std::optional<size_t> new_size) {
  size_ = new_size.value_or(size_);
  populate_indices();
  // libtorch's shuffle: every replica draws the same permutation from the
  // epoch, so their shares are disjoint.
  std::mt19937 rand(static_cast<std::mt19937::result_type>(epoch_));
  std::shuffle(all_indices_.begin(), all_indices_.end(), rand);
  sample_index_ = begin_index_;
}

std::optional<std::vector<size_t>> DistributedRandomSampler::next(size_t batch_size) {
  return take(&sample_index_, end_index_, batch_size, [&](size_t i) { return all_indices_[i]; });
}

DistributedSequentialSampler::DistributedSequentialSampler(size_t size, size_t num_replicas,
                                                           size_t rank, bool allow_duplicates)
    : DistributedSampler(size, num_replicas, rank, allow_duplicates) {
  EMBER_CHECK_VALUE(num_replicas > 0 && rank < num_replicas, "DistributedSequentialSampler: rank ",
                    rank, " is not in [0, num_replicas = ", num_replicas, ")");
  populate_indices();
}

void DistributedSequentialSampler::populate_indices() {
  begin_index_ = rank_ * local_sample_count();
  end_index_ = begin_index_ + local_sample_count();
  sample_index_ = begin_index_;
}

void DistributedSequentialSampler::reset(std::optional<size_t> new_size) {
  const size_t size = new_size.value_or(size_);
  if (size != size_) {
    size_ = size;
    populate_indices();
  } else {
    sample_index_ = begin_index_;
  }
}

std::optional<std::vector<size_t>> DistributedSequentialSampler::next(size_t batch_size) {
  // Past the end, the last replica wraps around to the first examples.
  return take(&sample_index_, end_index_, batch_size,
              [&](size_t i) { return size_ == 0 ? i : i % size_; });
}

void StreamSampler::reset(std::optional<size_t> new_size) {
  if (new_size.has_value()) epoch_size_ = *new_size;
  examples_retrieved_so_far_ = 0;
}

std::optional<BatchSize> StreamSampler::next(size_t batch_size) {
  if (examples_retrieved_so_far_ >= epoch_size_) return std::nullopt;
  batch_size = std::min(batch_size, epoch_size_ - examples_retrieved_so_far_);
  examples_retrieved_so_far_ += batch_size;
  return BatchSize(batch_size);
}

}  // namespace samplers
}  // namespace data
}  // namespace ember
