#include "data/datasets.h"

#include "data/dataset.h"
#include "data/mnist.h"
#include "tensor/math.h"
#include "tensor/shape.h"

namespace ember {
namespace data {
namespace datasets {
namespace {

size_t checked(size_t index, const Tensor& rows, const char* what) {
  EMBER_CHECK_INDEX(index < static_cast<size_t>(rows.size(0)), what, ": index ", index,
                    " is out of range for a dataset of ", rows.size(0), " examples");
  return index;
}

}  // namespace

TensorDataset::TensorDataset(const std::vector<Tensor>& tensors) : tensor(stack(tensors)) {}

TensorDataset::TensorDataset(Tensor t) : tensor(std::move(t)) {
  EMBER_CHECK_VALUE(tensor.defined() && tensor.dim() > 0,
                    "TensorDataset needs a tensor of at least one dimension");
}

TensorExample TensorDataset::get(size_t index) {
  return tensor[static_cast<int64_t>(checked(index, tensor, "TensorDataset"))];
}

std::optional<size_t> TensorDataset::size() const { return tensor.size(0); }

MNIST::MNIST(const std::string& root, Mode mode) : is_train_(mode == Mode::kTrain) {
  const data::MNIST raw(root, is_train_);
  // libtorch's: float32 N x 1 x 28 x 28 divided by 255, int64 targets.
  images_ = raw.images().to(kFloat).div_(255).unsqueeze(1);
  targets_ = raw.targets().to(kLong);
}

Example<> MNIST::get(size_t index) {
  const auto i = static_cast<int64_t>(checked(index, images_, "MNIST"));
  return {images_[i], targets_[i]};
}

std::optional<size_t> MNIST::size() const { return images_.size(0); }

}  // namespace datasets
}  // namespace data
}  // namespace ember
