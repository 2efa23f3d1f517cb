#ifndef EMBER_DATA_TRANSFORMS_H_
#define EMBER_DATA_TRANSFORMS_H_

// Image transforms (torchvision.transforms) on tensors: images are uint8
// H x W or H x W x C before ToTensor, float [..., C, H, W] after it.
// Each transform is a callable Tensor -> Tensor, so any of them (or a
// lambda) fits a TensorFunction.
//
// The same namespace holds libtorch's torch::data::transforms
// (batch_transforms.h). Normalize and Lambda serve both styles:
// Normalize({0.5}, {0.5})(image) as torchvision's, and
// dataset.map(Normalize<>(0.1307, 0.3081)) as libtorch's.
//
// Random transforms draw from their own Generator when given one, else from
// current_generator() (the worker's generator inside a DataLoader worker,
// Note [Worker seeds]); the draws are torchvision's (randint for a crop
// offset, rand(1) < p for a flip), so with the same generator state they
// make the same choices.

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "data/batch_transforms.h"
#include "tensor/creation.h"
#include "tensor/random.h"
#include "tensor/tensor.h"

namespace ember {
namespace data {
namespace transforms {

// A torchvision-style transform: any function of a tensor. (libtorch's
// Transform<Input, Output> is the class template of batch_transforms.h.)
using TensorFunction = std::function<Tensor(const Tensor&)>;

// uint8 H x W (one channel) or H x W x C to float32 C x H x W scaled to
// [0, 1]. Other dtypes are only moved to C x H x W, as torchvision leaves
// non-byte arrays unscaled.
struct ToTensor {
  Tensor operator()(const Tensor& pic) const;
};

namespace detail {
// Normalize's arithmetic, compiled once.
class NormalizeKernel {
 public:
  NormalizeKernel(std::vector<double> mean, std::vector<double> std, bool inplace);
  Tensor operator()(const Tensor& tensor) const;
  const std::vector<double>& mean() const { return mean_; }
  const std::vector<double>& std() const { return std_; }

 private:
  std::vector<double> mean_, std_;
  bool inplace_;
};
}  // namespace detail

// (x - mean[c]) / std[c] per channel of a float [..., C, H, W] tensor; mean
// and std have one value (every channel) or C. torchvision's Normalize
// (Normalize({0.485, 0.456, 0.406}, {0.229, 0.224, 0.225})(image)) and
// libtorch's Normalize<Target> (a TensorTransform for Dataset::map, with
// libtorch's public `mean` and `stddev`: float32 C x 1 x 1).
template <typename Target = Tensor>
class Normalize : public TensorTransform<Target> {
 public:
  Normalize(std::vector<double> mean, std::vector<double> std, bool inplace = false)
      : kernel_(std::move(mean), std::move(std), inplace),
        mean(channel_tensor(kernel_.mean())),
        stddev(channel_tensor(kernel_.std())) {}
  Normalize(double mean, double std) : Normalize(std::vector<double>{mean}, std::vector<double>{std}) {}

  Tensor operator()(Tensor input) override { return kernel_(input); }

 private:
  static Tensor channel_tensor(const std::vector<double>& v) {
    return ember::tensor(v, kFloat).view({-1, 1, 1});
  }
  detail::NormalizeKernel kernel_;

 public:
  Tensor mean, stddev;
};

// The transforms one after another.
class Compose {
 public:
  explicit Compose(std::vector<TensorFunction> transforms) : transforms_(std::move(transforms)) {}
  Tensor operator()(const Tensor& x) const;

 private:
  std::vector<TensorFunction> transforms_;
};

// Any function as a transform: torchvision's Lambda(fn), a Tensor -> Tensor
// callable, and libtorch's Lambda<Input, Output>(fn), a Transform applied to
// each example of a batch.
template <typename Input = Tensor, typename Output = Input>
class Lambda : public Transform<Input, Output> {
 public:
  using FunctionType = std::function<Output(Input)>;

  explicit Lambda(FunctionType function) : function_(std::move(function)) {}
  Output apply(Input input) override { return function_(std::move(input)); }
  Output operator()(Input input) const { return function_(std::move(input)); }

 private:
  FunctionType function_;
};
template <typename F>
Lambda(F) -> Lambda<>;

// A random size[0] x size[1] window of [..., H, W] (size with one value: a
// square), after padding with `fill`: padding has 1 value (every side), 2
// (left/right, top/bottom) or 4 (left, top, right, bottom), torchvision's
// order. pad_if_needed pads an image smaller than the window.
class RandomCrop {
 public:
  RandomCrop(std::vector<int64_t> size, std::vector<int64_t> padding = {},
             bool pad_if_needed = false, double fill = 0,
             std::optional<Generator> generator = std::nullopt);
  Tensor operator()(const Tensor& img) const;

 private:
  int64_t th_, tw_;
  int64_t pad_left_ = 0, pad_top_ = 0, pad_right_ = 0, pad_bottom_ = 0;
  bool pad_if_needed_;
  double fill_;
  std::optional<Generator> generator_;
};

// Mirrors [..., H, W] left to right with probability p.
class RandomHorizontalFlip {
 public:
  explicit RandomHorizontalFlip(double p = 0.5,
                                std::optional<Generator> generator = std::nullopt);
  Tensor operator()(const Tensor& img) const;

 private:
  double p_;
  std::optional<Generator> generator_;
};

// Pads the last two dims of `img` with `fill` (torchvision's F.pad, constant
// mode).
Tensor pad(const Tensor& img, int64_t left, int64_t top, int64_t right, int64_t bottom,
           double fill = 0);

}  // namespace transforms
}  // namespace data
}  // namespace ember

#endif  // EMBER_DATA_TRANSFORMS_H_
