#include "models/resnet.h"

#include <string>
#include <utility>

#include "nn/functional/activation.h"
#include "nn/init.h"
#include "tensor/error.h"

namespace ember {
namespace models {
namespace {

namespace F = nn::functional;

// torchvision's conv3x3 (padding 1) and conv1x1, both without bias.
nn::Conv2d conv3x3(int64_t in, int64_t out, int64_t stride = 1, int64_t groups = 1) {
  return nn::Conv2d(nn::Conv2dOptions(in, out, 3).stride(stride).padding(1).groups(groups).bias(
      false));
}
nn::Conv2d conv1x1(int64_t in, int64_t out, int64_t stride = 1) {
  return nn::Conv2d(nn::Conv2dOptions(in, out, 1).stride(stride).bias(false));
}

// The block's residual sum and final ReLU. Out of place, unlike
// torchvision's `out += identity`: ember's batch-norm backward keeps its
// output, so adding into it would fail the version check.
Tensor residual(const Tensor& out, const Tensor& x, nn::Sequential& downsample) {
  return F::relu(out + (downsample ? downsample->forward(x) : x));
}

}  // namespace

BasicBlockImpl::BasicBlockImpl(int64_t inplanes, int64_t planes, int64_t stride,
                               nn::Sequential downsample, int64_t groups, int64_t base_width) {
  if (groups != 1 || base_width != 64) {
    throw ValueError("BasicBlock only supports groups=1 and base_width=64");
  }
  conv1 = register_module("conv1", conv3x3(inplanes, planes, stride));
  bn1 = register_module("bn1", nn::BatchNorm2d(planes));
  conv2 = register_module("conv2", conv3x3(planes, planes));
  bn2 = register_module("bn2", nn::BatchNorm2d(planes));
  if (downsample) this->downsample = register_module("downsample", std::move(downsample));
}

Tensor BasicBlockImpl::forward(const Tensor& x) {
  Tensor out = F::relu(bn1(conv1(x)));
  return residual(bn2(conv2(out)), x, downsample);
}

BottleneckImpl::BottleneckImpl(int64_t inplanes, int64_t planes, int64_t stride,
                               nn::Sequential downsample, int64_t groups, int64_t base_width) {
  // torchvision: int(planes * (base_width / 64.0)) * groups.
  const int64_t width = static_cast<int64_t>(planes * (base_width / 64.0)) * groups;
  conv1 = register_module("conv1", conv1x1(inplanes, width));
  bn1 = register_module("bn1", nn::BatchNorm2d(width));
  conv2 = register_module("conv2", conv3x3(width, width, stride, groups));
  bn2 = register_module("bn2", nn::BatchNorm2d(width));
  conv3 = register_module("conv3", conv1x1(width, planes * kExpansion));
  bn3 = register_module("bn3", nn::BatchNorm2d(planes * kExpansion));
  if (downsample) this->downsample = register_module("downsample", std::move(downsample));
}

Tensor BottleneckImpl::forward(const Tensor& x) {
  Tensor out = F::relu(bn1(conv1(x)));
  out = F::relu(bn2(conv2(out)));
  return residual(bn3(conv3(out)), x, downsample);
}

ResNetImpl::ResNetImpl(ResNetBlock block, const std::vector<int64_t>& layers,
                       const ResNetOptions& options)
    : options(options) {
  EMBER_CHECK(layers.size() == 4, "ResNet takes the block counts of 4 layers, got ",
              layers.size());
  conv1 = register_module(
      "conv1", nn::Conv2d(nn::Conv2dOptions(3, inplanes_, 7).stride(2).padding(3).bias(false)));
  bn1 = register_module("bn1", nn::BatchNorm2d(inplanes_));
  maxpool = register_module("maxpool", nn::MaxPool2d(nn::MaxPool2dOptions(3).stride(2).padding(1)));
  layer1 = register_module("layer1", make_layer(block, 64, layers[0], 1));
  layer2 = register_module("layer2", make_layer(block, 128, layers[1], 2));
  layer3 = register_module("layer3", make_layer(block, 256, layers[2], 2));
  layer4 = register_module("layer4", make_layer(block, 512, layers[3], 2));
  avgpool = register_module("avgpool", nn::AdaptiveAvgPool2d(1));
  fc = register_module("fc", nn::Linear(inplanes_, options.num_classes()));

  // Pre-order, as torchvision's self.modules(): the kaiming draws follow
  // the state_dict's order.
  for (const auto& m : modules()) {
    if (auto* conv = m->as<nn::Conv2d>()) {
      nn::init::kaiming_normal_(conv->weight, 0, nn::init::kFanOut, nn::init::kReLU);
    } else if (auto* bn = m->as<nn::BatchNorm2d>()) {
      nn::init::ones_(bn->weight);
      nn::init::zeros_(bn->bias);
    }
  }
  if (options.zero_init_residual()) {
    for (const auto& m : modules()) {
      if (auto* b = m->as<Bottleneck>()) {
        nn::init::zeros_(b->bn3->weight);
      } else if (auto* b = m->as<BasicBlock>()) {
        nn::init::zeros_(b->bn2->weight);
      }
    }
  }
}

nn::Sequential ResNetImpl::make_layer(ResNetBlock block, int64_t planes, int64_t blocks,
                                      int64_t stride) {
  const int64_t expansion =
      block == ResNetBlock::kBasic ? BasicBlockImpl::kExpansion : BottleneckImpl::kExpansion;
  const int64_t groups = options.groups(), width = options.width_per_group();
  // The downsample branch is built before its block, as torchvision does,
  // so that the default-init draws come in the same order.
  nn::Sequential downsample{nullptr};
  if (stride != 1 || inplanes_ != planes * expansion) {
    downsample = nn::Sequential(conv1x1(inplanes_, planes * expansion, stride),
                                nn::BatchNorm2d(planes * expansion));
  }
  nn::Sequential layer;
  for (int64_t i = 0; i < blocks; ++i) {
    const int64_t s = i == 0 ? stride : 1;
    nn::Sequential ds = i == 0 ? downsample : nn::Sequential(nullptr);
    if (block == ResNetBlock::kBasic) {
      layer->push_back(BasicBlock(inplanes_, planes, s, ds, groups, width));
    } else {
      layer->push_back(Bottleneck(inplanes_, planes, s, ds, groups, width));
    }
    inplanes_ = planes * expansion;
  }
  return layer;
}

Tensor ResNetImpl::forward_features(const Tensor& x) {
  Tensor h = maxpool(F::relu(bn1(conv1(x))));
  h = layer4(layer3(layer2(layer1(h))));
  return avgpool(h).flatten(1);
}

Tensor ResNetImpl::forward(const Tensor& x) { return fc(forward_features(x)); }

ResNet resnet18(const ResNetOptions& options) {
  return ResNet(ResNetBlock::kBasic, std::vector<int64_t>{2, 2, 2, 2}, options);
}
ResNet resnet34(const ResNetOptions& options) {
  return ResNet(ResNetBlock::kBasic, std::vector<int64_t>{3, 4, 6, 3}, options);
}
ResNet resnet50(const ResNetOptions& options) {
  return ResNet(ResNetBlock::kBottleneck, std::vector<int64_t>{3, 4, 6, 3}, options);
}
ResNet resnet101(const ResNetOptions& options) {
  return ResNet(ResNetBlock::kBottleneck, std::vector<int64_t>{3, 4, 23, 3}, options);
}
ResNet resnet152(const ResNetOptions& options) {
  return ResNet(ResNetBlock::kBottleneck, std::vector<int64_t>{3, 8, 36, 3}, options);
}
ResNet resnext50_32x4d(ResNetOptions options) {
  return resnet50(options.groups(32).width_per_group(4));
}
ResNet wide_resnet50_2(ResNetOptions options) { return resnet50(options.width_per_group(128)); }

}  // namespace models
}  // namespace ember
