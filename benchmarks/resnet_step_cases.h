#ifndef EMBER_BENCHMARKS_RESNET_STEP_CASES_H_
#define EMBER_BENCHMARKS_RESNET_STEP_CASES_H_

// One training step of ResNet-18 (torchvision's structure: 7x7 stem,
// max-pool, four stages of two BasicBlocks, average pool, fc 512 -> 1000)
// at batch 32 on 3x64x64 inputs (issue 19's CPU figure), with SGD
// (momentum 0.9), written once over a library namespace so that the same
// code measures ember and libtorch (libtorch has no torchvision models in
// C++; ember's models::resnet18 is the same network).
//
//   EMBER_RESNET_STEP_BACKEND(EmberResNet, ember);
//   register_resnet_step_cases<EmberResNet>("ember/");

#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "benchmarks/step_benchmark.h"

namespace ember::bench {

#define EMBER_RESNET_STEP_BACKEND(Name, lib)                                                    \
  struct Name {                                                                                 \
    using Tensor = lib::Tensor;                                                                 \
    static lib::nn::Conv2d conv(int64_t in, int64_t out, int64_t k, int64_t stride,             \
                                int64_t pad) {                                                  \
      return lib::nn::Conv2d(                                                                   \
          lib::nn::Conv2dOptions(in, out, k).stride(stride).padding(pad).bias(false));          \
    }                                                                                           \
    struct Block : lib::nn::Module {                                                            \
      Block(int64_t in, int64_t out, int64_t stride)                                            \
          : conv1(register_module("conv1", conv(in, out, 3, stride, 1))),                       \
            bn1(register_module("bn1", lib::nn::BatchNorm2d(out))),                             \
            conv2(register_module("conv2", conv(out, out, 3, 1, 1))),                           \
            bn2(register_module("bn2", lib::nn::BatchNorm2d(out))) {                            \
        if (stride != 1 || in != out) {                                                         \
          down_conv = register_module("down_conv", conv(in, out, 1, stride, 0));                \
          down_bn = register_module("down_bn", lib::nn::BatchNorm2d(out));                      \
        }                                                                                       \
      }                                                                                         \
      Tensor forward(const Tensor& x) {                                                         \
        Tensor out = lib::nn::functional::relu(bn1->forward(conv1->forward(x)));                                \
        out = bn2->forward(conv2->forward(out));                                                \
        Tensor identity = down_conv ? down_bn->forward(down_conv->forward(x)) : x;              \
        return lib::nn::functional::relu(out + identity);                                                       \
      }                                                                                         \
      lib::nn::Conv2d conv1, conv2, down_conv{nullptr};                                         \
      lib::nn::BatchNorm2d bn1, bn2, down_bn{nullptr};                                          \
    };                                                                                          \
    struct Model : lib::nn::Module {                                                            \
      Model()                                                                                   \
          : stem(register_module("conv1", conv(3, 64, 7, 2, 3))),                               \
            bn(register_module("bn1", lib::nn::BatchNorm2d(64))),                               \
            fc(register_module("fc", lib::nn::Linear(512, 1000))) {                             \
        const int64_t widths[] = {64, 128, 256, 512};                                           \
        int64_t in = 64;                                                                        \
        for (int s = 0; s < 4; ++s) {                                                           \
          for (int b = 0; b < 2; ++b) {                                                         \
            blocks.push_back(register_module(                                                   \
                "layer" + std::to_string(s + 1) + "_" + std::to_string(b),                      \
                std::make_shared<Block>(in, widths[s], (s > 0 && b == 0) ? 2 : 1)));            \
            in = widths[s];                                                                     \
          }                                                                                     \
        }                                                                                       \
      }                                                                                         \
      Tensor forward(const Tensor& x) {                                                         \
        Tensor h = lib::nn::functional::relu(bn->forward(stem->forward(x)));                                    \
        h = lib::nn::functional::max_pool2d(                                                     \
            h, lib::nn::functional::MaxPool2dFuncOptions(3).stride(2).padding(1));                                         \
        for (auto& b : blocks) h = b->forward(h);                                               \
        return fc->forward(h.mean({2, 3}));                                                     \
      }                                                                                         \
      lib::nn::Conv2d stem;                                                                     \
      lib::nn::BatchNorm2d bn;                                                                  \
      lib::nn::Linear fc;                                                                       \
      std::vector<std::shared_ptr<Block>> blocks;                                               \
    };                                                                                          \
    struct Step {                                                                               \
      explicit Step(int64_t batch)                                                              \
          : model((lib::manual_seed(0), std::make_shared<Model>())),                           \
            opt(model->parameters(), lib::optim::SGDOptions(0.01).momentum(0.9)),               \
            images(lib::randn({batch, 3, 64, 64})),                                             \
            labels(lib::randint(1000, {batch})) {}                                              \
      Tensor step() {                                                                           \
        opt.zero_grad();                                                                        \
        Tensor loss = lib::nn::functional::cross_entropy(model->forward(images), labels);       \
        loss.backward();                                                                        \
        opt.step();                                                                             \
        return loss;                                                                            \
      }                                                                                         \
      std::shared_ptr<Model> model;                                                             \
      lib::optim::SGD opt;                                                                      \
      Tensor images, labels;                                                                    \
    };                                                                                          \
    static void set_threads(int n) { lib::set_num_threads(n); }                                 \
  }

template <typename B>
void BM_ResNetStep(benchmark::State& state) {
  constexpr int64_t kBatch = 32;
  run_training_steps<B>(
      state, [] { return typename B::Step(kBatch); }, "images/s", static_cast<double>(kBatch));
}

template <typename B>
void register_resnet_step_cases(const std::string& prefix) {
  register_training_step(prefix + "resnet18_step", BM_ResNetStep<B>);
}

}  // namespace ember::bench

#endif  // EMBER_BENCHMARKS_RESNET_STEP_CASES_H_
