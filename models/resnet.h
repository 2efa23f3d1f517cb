#ifndef EMBER_MODELS_RESNET_H_
#define EMBER_MODELS_RESNET_H_

// torchvision 0.14's ResNets (torchvision/models/resnet.py), module for
// module, so that a state_dict torchvision saves loads with strict=true:
//
//   models::ResNet net = models::resnet50(models::ResNetOptions().num_classes(10));
//   ember::load(net, "resnet50.pth");          // torch.save(model.state_dict(), ...)
//   net->eval();
//   Tensor logits = net(images);               // [N, 3, H, W] -> [N, num_classes]
//
// Names: conv1, bn1, layer1..layer4 (Sequentials of blocks: layer1.0.conv1,
// ..., layer2.0.downsample.0 / .1), fc. Initialization is torchvision's:
// every layer is built (drawing PyTorch's default init, in torchvision's
// order), then convolutions get kaiming_normal_(fan_out, relu) and
// BatchNorms weight 1, bias 0; fc keeps nn.Linear's default. Under
// manual_seed the weights are torchvision's bit for bit.
//
// Deviations: no norm_layer argument (always BatchNorm2d) and no
// replace_stride_with_dilation; the ReLUs are F::relu calls rather than
// ReLU(inplace=True) children (they hold no state, so only the printed
// tree differs).

#include <cstdint>
#include <vector>

#include "nn/container.h"
#include "nn/conv.h"
#include "nn/linear.h"
#include "nn/module.h"
#include "nn/normalization.h"
#include "nn/pooling.h"
#include "tensor/arg.h"
#include "tensor/tensor.h"

namespace ember {
namespace models {

struct ResNetOptions {
  EMBER_ARG(int64_t, num_classes) = 1000;
  // Zeroes the last BatchNorm's weight in each block, so every residual
  // branch starts as the identity (https://arxiv.org/abs/1706.02677).
  EMBER_ARG(bool, zero_init_residual) = false;
  // ResNeXt's cardinality and width per group (BasicBlock: 1 and 64 only).
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(int64_t, width_per_group) = 64;
};

// Two 3x3 convolutions (resnet18/34). `downsample` (a Sequential of a 1x1
// conv and a BatchNorm, or nullptr) maps the input onto the output's shape
// for the residual sum. ValueError unless groups == 1 and base_width == 64,
// as torchvision.
class BasicBlockImpl : public nn::Module {
 public:
  static constexpr int64_t kExpansion = 1;
  BasicBlockImpl(int64_t inplanes, int64_t planes, int64_t stride = 1,
                 nn::Sequential downsample = nullptr, int64_t groups = 1, int64_t base_width = 64);
  Tensor forward(const Tensor& x);

  nn::Conv2d conv1{nullptr}, conv2{nullptr};
  nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
  nn::Sequential downsample{nullptr};
};
EMBER_MODULE(BasicBlock);

// 1x1, 3x3 (strided, grouped), 1x1 convolutions with 4x expansion
// (resnet50 and deeper): ResNet v1.5, the stride on the 3x3 conv as
// torchvision places it.
class BottleneckImpl : public nn::Module {
 public:
  static constexpr int64_t kExpansion = 4;
  BottleneckImpl(int64_t inplanes, int64_t planes, int64_t stride = 1,
                 nn::Sequential downsample = nullptr, int64_t groups = 1, int64_t base_width = 64);
  Tensor forward(const Tensor& x);

  nn::Conv2d conv1{nullptr}, conv2{nullptr}, conv3{nullptr};
  nn::BatchNorm2d bn1{nullptr}, bn2{nullptr}, bn3{nullptr};
  nn::Sequential downsample{nullptr};
};
EMBER_MODULE(Bottleneck);

enum class ResNetBlock { kBasic, kBottleneck };

class ResNetImpl : public nn::Module {
 public:
  // layers: the number of blocks in layer1..layer4.
  ResNetImpl(ResNetBlock block, const std::vector<int64_t>& layers,
             const ResNetOptions& options = {});
  // [N, 3, H, W] -> logits [N, num_classes].
  Tensor forward(const Tensor& x);
  // Everything up to (and including) the global average pool, flattened:
  // [N, 512 * expansion], the features fc reads.
  Tensor forward_features(const Tensor& x);

  ResNetOptions options;
  nn::Conv2d conv1{nullptr};
  nn::BatchNorm2d bn1{nullptr};
  nn::MaxPool2d maxpool{nullptr};
  nn::Sequential layer1{nullptr}, layer2{nullptr}, layer3{nullptr}, layer4{nullptr};
  nn::AdaptiveAvgPool2d avgpool{nullptr};
  nn::Linear fc{nullptr};

 private:
  nn::Sequential make_layer(ResNetBlock block, int64_t planes, int64_t blocks, int64_t stride);
  int64_t inplanes_ = 64;
};
EMBER_MODULE(ResNet);

// torchvision's constructors (weights=None).
ResNet resnet18(const ResNetOptions& options = {});
ResNet resnet34(const ResNetOptions& options = {});
ResNet resnet50(const ResNetOptions& options = {});
ResNet resnet101(const ResNetOptions& options = {});
ResNet resnet152(const ResNetOptions& options = {});
// These set groups and width_per_group themselves (options' are ignored).
ResNet resnext50_32x4d(ResNetOptions options = {});
ResNet wide_resnet50_2(ResNetOptions options = {});

}  // namespace models
}  // namespace ember

#endif  // EMBER_MODELS_RESNET_H_
