// CUDA kernels and one LeNet training step on the GPU, timed end to end
// (launches and synchronization included), for comparison with PyTorch on
// the same machine: tools/cuda_ops_torch.py prints the same lines.
//
//   bazel-bin/benchmarks/cuda_ops [--iters=N] [--only=FAMILY[,FAMILY...]]
//                                 [--lenet_only | --mm_only | --mlp_only]
//
// The families, in the order they run: mm_tensor_core, optimizer,
// mlp_stack, basic_ops, lenet, and issue 17's (cuda_ops_native.h):
// embedding, gather_scatter, sort, nonzero, random, avg_pool. --only runs
// those whose name contains one of the given substrings (--only=sort,pool).
//
// Prints "case  median_us  figure" lines; exits 0 with a message where no
// GPU is available (it runs in CI like the other binaries' builds).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "benchmarks/cuda_ops_native.h"
#include "benchmarks/cuda_timing.h"
#include "nn/nn.h"
#include "optim/optim.h"
#include "tensor/all.h"
#include "tensor/autocast.h"

namespace ember {
namespace {

using bench::median_us;

struct Net : nn::Module {
  nn::Conv2d conv1{nullptr}, conv2{nullptr};
  nn::Linear fc1{nullptr}, fc2{nullptr};
  Net() {
    conv1 = register_module("conv1", nn::Conv2d(nn::Conv2dOptions(1, 20, 5)));
    conv2 = register_module("conv2", nn::Conv2d(nn::Conv2dOptions(20, 50, 5)));
    fc1 = register_module("fc1", nn::Linear(800, 500));
    fc2 = register_module("fc2", nn::Linear(500, 10));
  }
  Tensor forward(Tensor x) {
    namespace F = nn::functional;
    x = F::max_pool2d(F::relu(conv1->forward(x)), F::MaxPool2dFuncOptions(2));
    x = F::max_pool2d(F::relu(conv2->forward(x)), F::MaxPool2dFuncOptions(2));
    x = F::relu(fc1->forward(x.view({-1, 800})));
    return fc2->forward(x);
  }
};

// Bandwidth and matrix-product cases.
void run_ops(int iters, const Device& dev) {
  const int64_t n = int64_t{1} << 24;
  Tensor a = rand({n}).to(dev), b = rand({n}).to(dev);
  double us = median_us(iters, [&] { Tensor c = a + b; });
  std::printf("add_16M_float      %10.1f  %.1f GB/s\n", us, 3.0 * n * 4 / us / 1e3);
  us = median_us(iters, [&] { Tensor s = a.sum(); });
  std::printf("sum_16M_float      %10.1f  %.1f GB/s\n", us, 1.0 * n * 4 / us / 1e3);
  for (int64_t m : {1024, 4096}) {
    Tensor x = randn({m, m}).to(dev), y = randn({m, m}).to(dev);
    us = median_us(iters, [&] { Tensor z = x.mm(y); });
    std::printf("mm_%-15lld %10.1f  %.1f TFLOP/s\n", static_cast<long long>(m), us,
                2.0 * m * m * m / us / 1e6);
  }
  Tensor logits = randn({4096, 1000}).to(dev);
  us = median_us(iters, [&] { Tensor l = log_softmax(logits, 1); });
  std::printf("log_softmax_4096x1000 %7.1f\n", us);
}

// Tensor cores: float16/bfloat16 products and float32 with TF32 allowed
// (Note [float32 matmul precision]).
void run_tensor_core_mm(int iters, const Device& dev) {
  struct Case {
    const char* name;
    ScalarType dtype;
    bool tf32;
  };
  const Case cases[] = {{"bf16", kBFloat16, false}, {"fp16", kHalf, false}, {"tf32", kFloat, true}};
  for (const Case& c : cases) {
    cuda::matmul::set_allow_tf32(c.tf32);
    for (int64_t m : {4096, 8192}) {
      Tensor x = randn({m, m}).to(dev).to(c.dtype), y = randn({m, m}).to(dev).to(c.dtype);
      const double us = median_us(iters, [&] { Tensor z = x.mm(y); });
      std::printf("mm_%s_%-10lld %10.1f  %.1f TFLOP/s\n", c.name, static_cast<long long>(m), us,
                  2.0 * m * m * m / us / 1e6);
    }
  }
  cuda::matmul::set_allow_tf32(false);
}

// One optimizer step over the parameters of a 12-layer transformer MLP
// stack (LayerNorm 768, Linear 768->3072, Linear 3072->768: 56.7M floats
// in 72 tensors), per parameter (foreach off) and multi-tensor (Note
// [Multi-tensor updates]).
void run_optimizer_steps(int iters, const Device& dev) {
  std::vector<Tensor> params;
  for (int layer = 0; layer < 12; ++layer) {
    for (auto sizes : std::vector<std::vector<int64_t>>{
             {768}, {768}, {3072, 768}, {3072}, {768, 3072}, {768}}) {
      Tensor p = randn(sizes).to(dev).requires_grad_();
      p.mutable_grad() = randn(sizes).to(dev);
      params.push_back(p);
    }
  }
  auto run = [&](const char* name, optim::Optimizer& opt) {
    const double us = median_us(iters, [&] { opt.step(); });
    std::printf("%-22s %8.1f\n", name, us);
  };
  optim::AdamW per_param(params, optim::AdamWOptions(1e-4).foreach(false));
  run("adamw_step_per_param", per_param);
  optim::AdamW multi(params, optim::AdamWOptions(1e-4));
  run("adamw_step_foreach", multi);
  optim::SGD sgd_per_param(params, optim::SGDOptions(1e-4).momentum(0.9).foreach(false));
  run("sgd_step_per_param", sgd_per_param);
  optim::SGD sgd_multi(params, optim::SGDOptions(1e-4).momentum(0.9));
  run("sgd_step_foreach", sgd_multi);
}

// One block of a transformer's MLP stack: x + fc2(gelu(fc1(ln(x)))).
struct MlpBlock : nn::Module {
  MlpBlock()
      : ln(register_module("ln", nn::LayerNorm(nn::LayerNormOptions({768})))),
        fc1(register_module("fc1", nn::Linear(768, 3072))),
        fc2(register_module("fc2", nn::Linear(3072, 768))) {}
  Tensor forward(const Tensor& x) {
    return x + fc2->forward(nn::functional::gelu(fc1->forward(ln->forward(x))));
  }
  nn::LayerNorm ln;
  nn::Linear fc1, fc2;
};

// Issue 18's transformer MLP stack: 12 blocks over 8 x 1024 tokens, float32
// parameters, AdamW (multi-tensor), a training step in float32 and under
// autocast bfloat16.
void run_mlp_stack(int iters, const Device& dev) {
  std::vector<std::shared_ptr<MlpBlock>> blocks;
  std::vector<Tensor> params;
  for (int i = 0; i < 12; ++i) {
    blocks.push_back(std::make_shared<MlpBlock>());
    blocks.back()->to(dev);
    for (const Tensor& p : blocks.back()->parameters()) params.push_back(p);
  }
  optim::AdamW opt(params, optim::AdamWOptions(1e-4));
  Tensor x = randn({8, 1024, 768}).to(dev);
  for (bool amp : {false, true}) {
    const double us = median_us(iters, [&] {
      opt.zero_grad();
      Tensor loss;
      {
        autocast::AutocastGuard guard(kCUDA, kBFloat16, amp);
        Tensor h = x;
        for (auto& b : blocks) h = b->forward(h);
        loss = h.to(kFloat).pow(2).mean();
      }
      loss.backward();
      opt.step();
    });
    std::printf("mlp_stack_step_%-7s %8.1f\n", amp ? "bf16" : "fp32", us);
  }
  // Where the bf16 step's time goes: forward, forward + backward, and one
  // block's three kinds of layer forward + backward under autocast.
  auto under_amp = [&](const char* name, const std::function<Tensor()>& f) {
    const double us = median_us(iters, [&] {
      opt.zero_grad();
      Tensor loss;
      {
        autocast::AutocastGuard guard(kCUDA, kBFloat16);
        loss = f().to(kFloat).pow(2).mean();
      }
      loss.backward();
    });
    std::printf("mlp_bf16_%-14s %8.1f\n", name, us);
  };
  under_amp("fwd_bwd", [&] {
    Tensor h = x;
    for (auto& b : blocks) h = b->forward(h);
    return h;
  });
  Tensor xg = x.clone().requires_grad_();
  Tensor hidden = randn({8, 1024, 3072}).to(dev).to(kBFloat16).requires_grad_();
  under_amp("layer_norm", [&] { return blocks[0]->ln->forward(xg); });
  under_amp("fc1", [&] { return blocks[0]->fc1->forward(xg); });
  under_amp("gelu", [&] { return nn::functional::gelu(hidden); });
  under_amp("fc2", [&] { return blocks[0]->fc2->forward(hidden); });
}

// Seed 003's network: its step at batch 64 and 512, and the b512 step's parts.
void run_lenet(int iters, const Device& dev) {
  double us = 0;

  auto net = std::make_shared<Net>();
  net->to(dev);
  optim::SGD opt(net->parameters(), optim::SGDOptions(0.01).momentum(0.9));
  // The step's parts (the forward with its loss; forward and backward) say
  // where a gap to PyTorch lies; batch 512 moves it from launches to math.
  for (int64_t batch : {64, 512}) {
    Tensor images = randn({batch, 1, 28, 28}).to(dev);
    Tensor labels = randint(0, 10, {batch}).to(dev);
    if (batch == 64) {
      us = median_us(iters, [&] {
        Tensor loss = nn::functional::cross_entropy(net->forward(images), labels);
      });
      std::printf("lenet_forward_b64    %8.1f\n", us);
      us = median_us(iters, [&] {
        opt.zero_grad();
        nn::functional::cross_entropy(net->forward(images), labels).backward();
      });
      std::printf("lenet_fwd_bwd_b64    %8.1f\n", us);
    }
    us = median_us(iters, [&] {
      opt.zero_grad();
      Tensor loss = nn::functional::cross_entropy(net->forward(images), labels);
      loss.backward();
      opt.step();
    });
    std::printf("lenet_train_step_b%-3lld %7.1f\n", static_cast<long long>(batch), us);
  }
  // The b512 step's layers one by one, forward and backward (of a sum).
  namespace F = nn::functional;
  auto layer = [&](const char* name, const Tensor& in, const std::function<Tensor(Tensor)>& f) {
    double t = median_us(iters, [&] {
      net->zero_grad();
      f(in).sum().backward();
    });
    std::printf("b512_%-15s %8.1f\n", name, t);
  };
  auto grad_input = [&](IntArrayRef sizes) { return randn(sizes).to(dev).requires_grad_(); };
  layer("conv1", randn({512, 1, 28, 28}).to(dev), [&](Tensor x) { return net->conv1->forward(x); });
  layer("relu_pool1", grad_input({512, 20, 24, 24}),
        [&](Tensor x) { return F::max_pool2d(F::relu(x), F::MaxPool2dFuncOptions(2)); });
  layer("conv2", grad_input({512, 20, 12, 12}), [&](Tensor x) { return net->conv2->forward(x); });
  layer("relu_pool2", grad_input({512, 50, 8, 8}),
        [&](Tensor x) { return F::max_pool2d(F::relu(x), F::MaxPool2dFuncOptions(2)); });
  layer("fc1_relu", grad_input({512, 800}), [&](Tensor x) { return F::relu(net->fc1->forward(x)); });
  Tensor labels512 = randint(0, 10, {512}).to(dev);
  layer("fc2_loss", grad_input({512, 500}),
        [&](Tensor x) { return F::cross_entropy(net->fc2->forward(x), labels512); });
  us = median_us(iters, [&] { opt.step(); });
  std::printf("b512_%-15s %8.1f\n", "sgd_step", us);
  // ember's own convolution (im2col + cuBLAS) where cuDNN would run: lines
  // PyTorch's twin does not print.
  if (cuda::cudnn_is_available()) {
    std::printf("cudnn_version        %8lld\n", static_cast<long long>(cuda::cudnn_version()));
    cuda::set_cudnn_enabled(false);
    layer("conv1_im2col", randn({512, 1, 28, 28}).to(dev),
          [&](Tensor x) { return net->conv1->forward(x); });
    layer("conv2_im2col", grad_input({512, 20, 12, 12}),
          [&](Tensor x) { return net->conv2->forward(x); });
    for (int64_t batch : {64, 512}) {
      Tensor images = randn({batch, 1, 28, 28}).to(dev);
      Tensor labels = randint(0, 10, {batch}).to(dev);
      us = median_us(iters, [&] {
        opt.zero_grad();
        F::cross_entropy(net->forward(images), labels).backward();
        opt.step();
      });
      std::printf("im2col_step_b%-3lld      %8.1f\n", static_cast<long long>(batch), us);
    }
    cuda::set_cudnn_enabled(true);
  }
}

}  // namespace
}  // namespace ember

int main(int argc, char** argv) {
  int iters = 50;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--iters=", 8) == 0) iters = std::atoi(argv[i] + 8);
    if (std::strncmp(argv[i], "--only=", 7) == 0) only = argv[i] + 7;
    // The older spellings of one family.
    if (std::strcmp(argv[i], "--lenet_only") == 0) only = "lenet";
    if (std::strcmp(argv[i], "--mm_only") == 0) only = "mm_tensor_core";
    if (std::strcmp(argv[i], "--mlp_only") == 0) only = "mlp_stack";
  }
  iters = std::max(iters, 1);
  using Run = std::function<void(int, const ember::Device&)>;
  const int quarter = std::max(iters / 4, 1);  // the MLP stack's steps are long
  const std::vector<std::tuple<std::string, int, Run>> families = {
      {"mm_tensor_core", iters, ember::run_tensor_core_mm},
      {"optimizer", iters, ember::run_optimizer_steps},
      {"mlp_stack", quarter, ember::run_mlp_stack},
      {"basic_ops", iters, ember::run_ops},
      {"lenet", iters, ember::run_lenet},
      {"embedding", iters, ember::bench::run_embedding},
      {"gather_scatter", iters, ember::bench::run_gather_scatter},
      {"sort", iters, ember::bench::run_sort},
      {"nonzero", iters, ember::bench::run_nonzero},
      {"random", iters, ember::bench::run_random},
      {"avg_pool", iters, ember::bench::run_avg_pool},
  };
  auto wanted = [&](const std::string& family) {
    if (only.empty()) return true;
    for (size_t start = 0; start <= only.size();) {
      size_t end = only.find(',', start);
      if (end == std::string::npos) end = only.size();
      const std::string part = only.substr(start, end - start);
      if (!part.empty() && family.find(part) != std::string::npos) return true;
      start = end + 1;
    }
    return false;
  };
  if (std::none_of(families.begin(), families.end(),
                   [&](const auto& f) { return wanted(std::get<0>(f)); })) {
    std::fprintf(stderr, "--only=%s names no family; the families:", only.c_str());
    for (const auto& f : families) std::fprintf(stderr, " %s", std::get<0>(f).c_str());
    std::fprintf(stderr, "\n");
    return 2;
  }
  if (!ember::cuda::is_available()) {
    std::printf("no usable CUDA device: nothing to measure\n");
    return 0;
  }
  const ember::Device dev("cuda");
  ember::manual_seed(0);
  for (const auto& [name, n, run] : families) {
    if (wanted(name)) run(n, dev);
  }
  return 0;
}
