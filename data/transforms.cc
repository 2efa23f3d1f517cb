#include "data/transforms.h"

#include <cstring>

#include "absl/strings/str_join.h"
#include "data/collate.h"
#include "data/worker.h"
#include "tensor/creation.h"
#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/math.h"

namespace ember {
namespace data {
namespace transforms {
namespace {

std::string size_str(IntArrayRef s) { return absl::StrCat("[", absl::StrJoin(s, ", "), "]"); }

Generator pick(const std::optional<Generator>& g) {
  return g.has_value() ? *g : current_generator();
}

}  // namespace

Tensor ToTensor::operator()(const Tensor& pic) const {
  EMBER_CHECK_TYPE(pic.defined(), "pic should be a tensor. Got an undefined tensor");
  EMBER_CHECK_VALUE(pic.dim() == 2 || pic.dim() == 3, "pic should be 2/3 dimensional. Got ",
                    pic.dim(), " dimensions.");
  EMBER_CHECK(pic.is_cpu(), "ToTensor expects a CPU image, got one on ", pic.device().str());
  const int64_t h = pic.size(0), w = pic.size(1), c = pic.dim() == 3 ? pic.size(2) : 1;
  if (pic.dtype() != kByte) {
    // torchvision: non-byte arrays are transposed, not scaled.
    return pic.dim() == 2 ? pic.unsqueeze(0).contiguous() : pic.permute({2, 0, 1}).contiguous();
  }
  const Tensor src = pic.contiguous();
  Tensor out = empty({c, h, w}, kFloat);
  const uint8_t* in = src.data_ptr<uint8_t>();
  float* o = out.data_ptr<float>();
  const int64_t hw = h * w;
  // Division, not multiplication by 1/255: PyTorch's img.div(255) rounding.
  for (int64_t ch = 0; ch < c; ++ch) {
    for (int64_t p = 0; p < hw; ++p) o[ch * hw + p] = static_cast<float>(in[p * c + ch]) / 255.0f;
  }
  return out;
}

detail::NormalizeKernel::NormalizeKernel(std::vector<double> mean, std::vector<double> std, bool inplace)
    : mean_(std::move(mean)), std_(std::move(std)), inplace_(inplace) {
  EMBER_CHECK_VALUE(!mean_.empty() && !std_.empty(), "Normalize: mean and std must not be empty");
}

Tensor detail::NormalizeKernel::operator()(const Tensor& tensor) const {
  EMBER_CHECK_TYPE(tensor.defined() && tensor.is_floating_point(),
                   "Input tensor should be a float tensor. Got ",
                   tensor.defined() ? absl::StrCat("torch.", dtype_name(tensor.dtype())) : "an undefined tensor", ".");
  EMBER_CHECK_VALUE(tensor.dim() >= 3,
                    "Expected tensor to be a tensor image of size (..., C, H, W). Got "
                    "tensor.size() = ",
                    size_str(tensor.sizes()));
  const int64_t c = tensor.size(-3);
  for (double s : std_) {
    const bool zero = tensor.dtype() == kFloat ? static_cast<float>(s) == 0.0f : s == 0.0;
    EMBER_CHECK_VALUE(!zero, "std evaluated to zero after conversion to torch.",
                      dtype_name(tensor.dtype()), ", leading to division by zero.");
  }
  const bool fits = (mean_.size() == 1 || static_cast<int64_t>(mean_.size()) == c) &&
                    (std_.size() == 1 || static_cast<int64_t>(std_.size()) == c);
  Tensor out = inplace_ ? tensor : tensor.clone();
  if (fits && out.dtype() == kFloat && out.is_contiguous() && out.is_cpu()) {
    // The common case, without building mean/std tensors per image.
    float* d = out.data_ptr<float>();
    const int64_t hw = tensor.size(-1) * tensor.size(-2);
    const int64_t outer = tensor.numel() / (c * hw > 0 ? c * hw : 1);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t ch = 0; ch < c; ++ch) {
        const float m = static_cast<float>(mean_[mean_.size() == 1 ? 0 : ch]);
        const float s = static_cast<float>(std_[std_.size() == 1 ? 0 : ch]);
        float* p = d + (o * c + ch) * hw;
        for (int64_t i = 0; i < hw; ++i) p[i] = (p[i] - m) / s;
      }
    }
    return out;
  }
  // Anything else goes through the ops, which also raise the broadcasting
  // error for a mean/std of the wrong length.
  const Tensor m = ember::tensor(mean_, out.dtype()).view({-1, 1, 1});
  const Tensor s = ember::tensor(std_, out.dtype()).view({-1, 1, 1});
  out.sub_(m.to(out.device())).div_(s.to(out.device()));
  return out;
}

Example<> Stack<Example<>>::apply_batch(std::vector<Example<>> examples) {
  return DefaultCollate<Example<>>::collate(std::move(examples));
}

TensorExample Stack<TensorExample>::apply_batch(std::vector<TensorExample> examples) {
  std::vector<Tensor> data;
  data.reserve(examples.size());
  for (TensorExample& e : examples) data.push_back(std::move(e.data));
  return DefaultCollate<Tensor>::collate(std::move(data));
}

Tensor Compose::operator()(const Tensor& x) const {
  Tensor y = x;
  for (const TensorFunction& t : transforms_) y = t(y);
  return y;
}

Tensor pad(const Tensor& img, int64_t left, int64_t top, int64_t right, int64_t bottom,
           double fill) {
  EMBER_CHECK_VALUE(img.dim() >= 2, "pad expects a tensor of at least 2 dims, got ", img.dim());
  EMBER_CHECK_VALUE(left >= 0 && top >= 0 && right >= 0 && bottom >= 0,
                    "pad: padding must be non-negative");
  std::vector<int64_t> sizes(img.sizes().begin(), img.sizes().end());
  const int64_t h = sizes[sizes.size() - 2], w = sizes.back();
  sizes[sizes.size() - 2] = h + top + bottom;
  sizes.back() = w + left + right;
  Tensor out = full(sizes, fill, img.options());
  out.narrow(-2, top, h).narrow(-1, left, w).copy_(img);
  return out;
}

RandomCrop::RandomCrop(std::vector<int64_t> size, std::vector<int64_t> padding,
                       bool pad_if_needed, double fill, std::optional<Generator> generator)
    : pad_if_needed_(pad_if_needed), fill_(fill), generator_(std::move(generator)) {
  EMBER_CHECK_VALUE(size.size() == 1 || size.size() == 2,
                    "Please provide only two dimensions (h, w) for size.");
  th_ = size[0];
  tw_ = size.size() == 2 ? size[1] : size[0];
  EMBER_CHECK_VALUE(th_ > 0 && tw_ > 0, "RandomCrop: size must be positive, got ", size_str(size));
  switch (padding.size()) {
    case 0:
      break;
    case 1:
      pad_left_ = pad_top_ = pad_right_ = pad_bottom_ = padding[0];
      break;
    case 2:
      pad_left_ = pad_right_ = padding[0];
      pad_top_ = pad_bottom_ = padding[1];
      break;
    case 4:
      pad_left_ = padding[0];
      pad_top_ = padding[1];
      pad_right_ = padding[2];
      pad_bottom_ = padding[3];
      break;
    default:
      EMBER_CHECK_VALUE(false, "Padding must be an int or a 1, 2, or 4 element tuple, not a ",
                        padding.size(), " element tuple");
  }
  for (int64_t p : padding) EMBER_CHECK_VALUE(p >= 0, "RandomCrop: padding must be non-negative");
}

Tensor RandomCrop::operator()(const Tensor& img) const {
  EMBER_CHECK_VALUE(img.defined() && img.dim() >= 2,
                    "RandomCrop expects a tensor image of size (..., H, W)");
  Tensor x = img;
  if (pad_left_ || pad_top_ || pad_right_ || pad_bottom_) {
    x = pad(x, pad_left_, pad_top_, pad_right_, pad_bottom_, fill_);
  }
  if (pad_if_needed_ && x.size(-1) < tw_) x = pad(x, tw_ - x.size(-1), 0, tw_ - x.size(-1), 0, fill_);
  if (pad_if_needed_ && x.size(-2) < th_) x = pad(x, 0, th_ - x.size(-2), 0, th_ - x.size(-2), fill_);
  const int64_t h = x.size(-2), w = x.size(-1);
  EMBER_CHECK_VALUE(h >= th_ && w >= tw_, "Required crop size (", th_, ", ", tw_,
                    ") is larger than input image size (", h, ", ", w, ")");
  if (h == th_ && w == tw_) return x;
  const Generator gen = pick(generator_);
  const int64_t i = randint(0, h - th_ + 1, {1}, gen).item<int64_t>();
  const int64_t j = randint(0, w - tw_ + 1, {1}, gen).item<int64_t>();
  return x.narrow(-2, i, th_).narrow(-1, j, tw_);
}

RandomHorizontalFlip::RandomHorizontalFlip(double p, std::optional<Generator> generator)
    : p_(p), generator_(std::move(generator)) {
  EMBER_CHECK_VALUE(p >= 0 && p <= 1, "RandomHorizontalFlip: p must be in [0, 1], got ", p);
}

Tensor RandomHorizontalFlip::operator()(const Tensor& img) const {
  EMBER_CHECK_VALUE(img.defined() && img.dim() >= 2,
                    "RandomHorizontalFlip expects a tensor image of size (..., H, W)");
  // torch.rand(1) < p, as torchvision draws it.
  const float r = rand({1}, pick(generator_), kFloat).item<float>();
  return r < static_cast<float>(p_) ? img.flip({-1}) : img;
}

}  // namespace transforms
}  // namespace data
}  // namespace ember
