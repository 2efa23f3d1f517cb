// Issue 19's GPU figures: GPT-2 small training tokens/s at context 1024 and
// ResNet-50 training images/s at batch 128 (224x224), float32 and under
// autocast bfloat16, timed end to end (a whole optimizer step, launches and
// synchronization included). tools/models_cuda_torch.py is the PyTorch
// twin and prints the same lines.
//
//   bazel-bin/benchmarks/models_cuda [--iters=N] [--only=gpt|resnet]
//       [--sdpa=default|math|flash] [--gpt_batch=B] [--profile]
//
// --profile runs each bf16 step once more, untimed, between
// cudaProfilerStart and cudaProfilerStop, for
// `ncu --profile-from-start off` (tools/ncu_kernels.py sums its CSV by
// kernel).
//
// Prints "case  median_ms  throughput" lines; exits 0 with a message where
// no GPU is available.

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "benchmarks/cuda_timing.h"
#include "models/gpt2.h"
#include "models/resnet.h"
#include "nn/functional/attention.h"
#include "nn/nn.h"
#include "optim/optim.h"
#include "tensor/all.h"
#include "tensor/autocast.h"

namespace ember {
namespace {

namespace F = nn::functional;

double median_ms(int iters, const std::function<void()>& f) {
  return bench::median_us(iters, f) / 1e3;
}

// cudaProfilerStart/Stop, found at run time: this file builds without the
// CUDA toolkit, and the runtime is loaded by ember's CUDA backend.
void profiler_range(bool start) {
  using Fn = int (*)();
  const char* name = start ? "cudaProfilerStart" : "cudaProfilerStop";
  void* f = dlsym(RTLD_DEFAULT, name);
  for (const char* lib : {"libcudart.so", "libcudart.so.13", "libcudart.so.12"}) {
    if (f != nullptr) break;
    if (void* h = dlopen(lib, RTLD_LAZY | RTLD_NOLOAD)) f = dlsym(h, name);
  }
  if (f == nullptr) {
    std::printf("%s not found: no profile range\n", name);
    return;
  }
  cuda::synchronize();
  reinterpret_cast<Fn>(f)();
}

bool g_profile = false;

// Times step() with and without autocast; with --profile, one more bf16
// step inside a profiler range.
void time_steps(int iters, const char* name, double items, const char* unit,
                const std::function<void(bool)>& step) {
  for (bool amp : {false, true}) {
    const double ms = median_ms(iters, [&] { step(amp); });
    std::printf("%s_%s %9.2f ms %10.1f %s\n", name, amp ? "bf16" : "fp32", ms, items / (ms / 1e3),
                unit);
    std::fflush(stdout);
  }
  if (g_profile) {
    profiler_range(true);
    step(true);
    cuda::synchronize();
    profiler_range(false);
  }
}

// GPT-2 small (124M, HF's config, dropout 0 as nanoGPT trains it), batch x
// 1024 tokens, AdamW, HF's shifted language-modelling loss.
void run_gpt(int iters, int64_t batch, const std::string& sdpa) {
  manual_seed(0);
  models::GPT2 gpt(models::GPT2Config().resid_pdrop(0).embd_pdrop(0).attn_pdrop(0));
  gpt->to(kCUDA);
  gpt->train();
  optim::AdamW opt(gpt->parameters(), optim::AdamWOptions(1e-4));
  Tensor ids = randint(0, 50257, {batch, 1024}, TensorOptions().dtype(kLong)).to(kCUDA);
  std::optional<F::SDPAKernelGuard> guard;
  if (sdpa == "math") guard.emplace(F::SDPBackend::kMath);
  if (sdpa == "flash") guard.emplace(F::SDPBackend::kFlashAttention);
  const std::string name = "gpt2_small_b" + std::to_string(batch) + "_ctx1024";
  time_steps(iters, name.c_str(), static_cast<double>(batch * 1024), "tokens/s", [&](bool amp) {
    opt.zero_grad();
    Tensor loss;
    {
      autocast::AutocastGuard ag(kCUDA, kBFloat16, amp);
      loss = gpt->loss(gpt->forward(ids), ids);
    }
    loss.backward();
    opt.step();
  });
}

// torchvision's ResNet-50, batch 128 of 224x224, SGD with momentum.
void run_resnet(int iters) {
  manual_seed(0);
  models::ResNet net = models::resnet50();
  net->to(kCUDA);
  net->train();
  optim::SGD opt(net->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  Tensor x = randn({128, 3, 224, 224}).to(kCUDA);
  Tensor y = randint(0, 1000, {128}, TensorOptions().dtype(kLong)).to(kCUDA);
  time_steps(iters, "resnet50_b128_224", 128, "images/s", [&](bool amp) {
    opt.zero_grad();
    Tensor loss;
    {
      autocast::AutocastGuard ag(kCUDA, kBFloat16, amp);
      loss = F::cross_entropy(net->forward(x), y);
    }
    loss.backward();
    opt.step();
  });
}

}  // namespace
}  // namespace ember

int main(int argc, char** argv) {
  int iters = 10;
  int64_t gpt_batch = 8;
  std::string only, sdpa = "default";
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--iters=", 8) == 0) iters = std::atoi(argv[i] + 8);
    if (std::strncmp(argv[i], "--only=", 7) == 0) only = argv[i] + 7;
    if (std::strncmp(argv[i], "--sdpa=", 7) == 0) sdpa = argv[i] + 7;
    if (std::strcmp(argv[i], "--profile") == 0) ember::g_profile = true;
    if (std::strncmp(argv[i], "--gpt_batch=", 12) == 0) gpt_batch = std::atoll(argv[i] + 12);
  }
  if (!ember::cuda::is_available()) {
    std::printf("no usable CUDA device: nothing to measure\n");
    return 0;
  }
  if (only.empty() || only == "gpt") ember::run_gpt(iters, gpt_batch, sdpa);
  if (only.empty() || only == "resnet") ember::run_resnet(iters);
  return 0;
}
