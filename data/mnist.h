#ifndef EMBER_DATA_MNIST_H_
#define EMBER_DATA_MNIST_H_

// MNIST and Fashion-MNIST (torchvision.datasets.MNIST / FashionMNIST): the
// IDX files of LeCun's format, gzip-compressed or raw. Both datasets share
// the format and the file names, so one class reads either.

#include <cstdint>
#include <string>

#include "data/dataset.h"
#include "data/transforms.h"
#include "tensor/tensor.h"

namespace ember {
namespace data {

// Debian's dataset-fashion-mnist puts the four files here.
constexpr const char* kDefaultMnistRoot = "/usr/share/datasets/fashion-mnist";

// An IDX file's contents: uint8 data of the shape its header gives.
// `expected_dims` is 3 for images, 1 for labels. Reads `path` whether it is
// gzip-compressed or not; a bad magic number, a wrong number of dimensions,
// a payload of the wrong size, a truncated or corrupt gzip stream each
// raise an ember::Error naming the file and the problem.
Tensor read_idx_file(const std::string& path, int64_t expected_dims);

// The raw bytes of `path`, gunzipped when the file is gzip-compressed
// (errors name the file).
std::string read_maybe_gzip(const std::string& path);

class MNIST : public MapStyleDataset<Example<>> {
 public:
  // Reads {train,t10k}-images-idx3-ubyte and {train,t10k}-labels-idx1-ubyte
  // from `root`, each with or without ".gz". get(i) is {transform(image),
  // target_transform(label)}: without transforms, a uint8 28 x 28 image and
  // an int64 scalar label.
  explicit MNIST(const std::string& root = kDefaultMnistRoot, bool train = true,
                 transforms::TensorFunction transform = nullptr,
                 transforms::TensorFunction target_transform = nullptr);

  Example<> get(int64_t index) const override;
  int64_t size() const override { return images_.size(0); }

  // uint8 N x 28 x 28 and int64 N.
  const Tensor& images() const { return images_; }
  const Tensor& targets() const { return targets_; }

 private:
  Tensor images_;
  Tensor targets_;
  transforms::TensorFunction transform_;
  transforms::TensorFunction target_transform_;
};

}  // namespace data
}  // namespace ember

#endif  // EMBER_DATA_MNIST_H_
