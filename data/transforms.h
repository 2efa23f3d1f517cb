#ifndef EMBER_DATA_TRANSFORMS_H_
#define EMBER_DATA_TRANSFORMS_H_

// Image transforms (torchvision.transforms) on tensors: images are uint8
// H x W or H x W x C before ToTensor, float [..., C, H, W] after it.
// Each transform is a callable Tensor -> Tensor, so any of them (or a
// lambda) fits a Transform.
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

#include "tensor/random.h"
#include "tensor/tensor.h"

namespace ember {
namespace data {
namespace transforms {

using Transform = std::function<Tensor(const Tensor&)>;

// uint8 H x W (one channel) or H x W x C to float32 C x H x W scaled to
// [0, 1]. Other dtypes are only moved to C x H x W, as torchvision leaves
// non-byte arrays unscaled.
struct ToTensor {
  Tensor operator()(const Tensor& pic) const;
};

// (x - mean[c]) / std[c] per channel of a float [..., C, H, W] tensor; mean
// and std have one value (every channel) or C.
class Normalize {
 public:
  Normalize(std::vector<double> mean, std::vector<double> std, bool inplace = false);
  Tensor operator()(const Tensor& tensor) const;

 private:
  std::vector<double> mean_, std_;
  bool inplace_;
};

// The transforms one after another.
class Compose {
 public:
  explicit Compose(std::vector<Transform> transforms) : transforms_(std::move(transforms)) {}
  Tensor operator()(const Tensor& x) const;

 private:
  std::vector<Transform> transforms_;
};

// Any function as a transform.
class Lambda {
 public:
  explicit Lambda(Transform fn) : fn_(std::move(fn)) {}
  Tensor operator()(const Tensor& x) const { return fn_(x); }

 private:
  Transform fn_;
};

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
