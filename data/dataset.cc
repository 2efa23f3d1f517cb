#include "data/dataset.h"

#include <cmath>

#include "tensor/random.h"

namespace ember {
namespace data {

int64_t check_index(int64_t index, int64_t size, const char* what) {
  if (index < 0) index += size;
  EMBER_CHECK_INDEX(index >= 0 && index < size, what, " index ", index < 0 ? index - size : index,
                    " is out of range for a dataset of size ", size);
  return index;
}

TensorDataset::TensorDataset(std::vector<Tensor> tensors) : tensors_(std::move(tensors)) {
  EMBER_CHECK(!tensors_.empty(), "TensorDataset needs at least one tensor");
  for (const Tensor& t : tensors_) {
    EMBER_CHECK(t.defined() && t.dim() > 0, "TensorDataset: every tensor needs a first dimension");
    // PyTorch's assertion message.
    EMBER_CHECK(t.size(0) == tensors_[0].size(0), "Size mismatch between tensors");
  }
}

Example<> TensorDataset::get(int64_t index) const {
  index = check_index(index, size(), "TensorDataset");
  Example<> e;
  e.data = tensors_[0][index];
  if (tensors_.size() > 1) e.target = tensors_[1][index];
  return e;
}

std::vector<int64_t> split_lengths(int64_t n, const std::vector<double>& lengths) {
  double sum = 0;
  for (double l : lengths) sum += l;
  std::vector<int64_t> out;
  // math.isclose(sum, 1) and sum <= 1: fractions.
  if (std::fabs(sum - 1.0) <= 1e-9 && sum <= 1.0) {
    int64_t taken = 0;
    for (size_t i = 0; i < lengths.size(); ++i) {
      EMBER_CHECK_VALUE(lengths[i] >= 0 && lengths[i] <= 1, "Fraction at index ", i,
                        " is not between 0 and 1");
      out.push_back(static_cast<int64_t>(std::floor(n * lengths[i])));
      taken += out.back();
    }
    for (int64_t i = 0; i < n - taken; ++i) out[i % out.size()] += 1;
  } else {
    for (size_t i = 0; i < lengths.size(); ++i) {
      EMBER_CHECK_VALUE(lengths[i] >= 0 && std::floor(lengths[i]) == lengths[i],
                        "random_split: length at index ", i,
                        " must be a non-negative integer or a fraction, got ", lengths[i]);
      out.push_back(static_cast<int64_t>(lengths[i]));
    }
  }
  int64_t total = 0;
  for (int64_t l : out) total += l;
  EMBER_CHECK_VALUE(total == n, "Sum of input lengths does not equal the length of the input dataset!");
  return out;
}

std::vector<int64_t> randperm_indices(int64_t n, const Generator& generator) {
  const Tensor p = randperm(n, generator);
  const int64_t* d = p.data_ptr<int64_t>();
  return std::vector<int64_t>(d, d + n);
}

}  // namespace data
}  // namespace ember
