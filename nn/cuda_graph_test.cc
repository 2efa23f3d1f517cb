// A training step captured in a CUDA graph (Note [CUDA graphs] in
// tensor/cuda/graph.cc): embedding forward and backward, dropout in training
// mode, a linear layer, cross_entropy, backward and an SGD step with
// momentum. Capture fails on any host synchronization, so a successful
// capture shows that such a step never waits for the host (issue 17). Needs
// a GPU; skips without one.
//
// The device generator is graph-safe (Note [Graph-safe random numbers] in
// tensor/cuda/graph.cc): a captured dropout draws a new mask at every
// replay, the one an eager step would draw from the same generator state.
// Replays and eager steps are compared with dropout p = 0 and p = 0.5, the
// generator reseeded before the replays and before the matching eager
// steps (the capture itself reserves one step's offsets and draws
// nothing). SGD's update has no per-step host scalars once the momentum
// buffers exist (after the warm-up); Adam's has them unless it is
// capturable (Note [Capturable Adam] in optim/adam.h): a capturable Adam
// keeps its step count on the device, so its replays are compared with
// eager steps too, while a non-capturable Adam's capture is only checked to
// succeed (its replays repeat the captured step's bias corrections).

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <vector>

#include "autograd/autograd.h"
#include "autograd/grad_mode.h"
#include "nn/nn.h"
#include "optim/adam.h"
#include "optim/sgd.h"
#include "tensor/all.h"
#include "tensor/cuda/cuda.h"
#include "tensor/cuda/graph.h"
#include "tensor/cuda/stream.h"

namespace ember {
namespace nn {
namespace {

namespace F = functional;

const Device kCuda(kCUDA, 0);
constexpr int64_t kVocab = 50, kDim = 16, kClasses = 7, kBatch = 12;

#define SKIP_WITHOUT_CUDA_DEVICE()                                                               \
  do {                                                                                           \
    if (!::ember::cuda::is_available()) GTEST_SKIP() << "no usable CUDA device on this machine"; \
  } while (0)

struct Net {
  Embedding emb{kVocab, kDim};
  Dropout drop;
  Linear lin{kDim, kClasses};

  explicit Net(double p) : drop(DropoutOptions(p)) {
    for (Module* m : modules()) {
      m->to(kCuda);
      m->train();
    }
  }
  std::vector<Module*> modules() { return {emb.get(), drop.get(), lin.get()}; }
  std::vector<Tensor> parameters() {
    std::vector<Tensor> ps;
    for (Module* m : modules()) {
      for (const Tensor& p : m->parameters()) ps.push_back(p);
    }
    return ps;
  }
  void copy_from(Net& other) {
    NoGradGuard no_grad;
    std::vector<Tensor> mine = parameters(), theirs = other.parameters();
    for (size_t i = 0; i < mine.size(); ++i) mine[i].copy_(theirs[i]);
  }
};

// One training step; returns the loss (a device tensor: nothing is read).
Tensor train_step(Net& net, optim::Optimizer& opt, const Tensor& tokens, const Tensor& targets) {
  opt.zero_grad();
  Tensor h = net.drop->forward(net.emb->forward(tokens));
  Tensor loss = F::cross_entropy(net.lin->forward(h), targets);
  loss.backward();
  opt.step();
  return loss;
}

constexpr int kWarmup = 2;

// kWarmup eager steps on the current (pool) stream, then one captured into
// `graph`; returns the captured step's loss, which every replay rewrites.
Tensor capture_step(cuda::CUDAGraph& graph, Net& net, optim::Optimizer& opt, const Tensor& tokens,
                    const Tensor& targets) {
  for (int i = 0; i < kWarmup; ++i) train_step(net, opt, tokens, targets);
  graph.capture_begin();
  Tensor loss = train_step(net, opt, tokens, targets);
  graph.capture_end();
  return loss;
}

// Distinct tokens, so that the embedding's backward (index_add_ with
// atomics) adds in a fixed order and replay and eager runs agree exactly.
Tensor tokens_on_device() { return randperm(kVocab).slice(0, 0, kBatch).to(kCuda); }
Tensor targets_on_device() { return randint(0, kClasses, {kBatch}).to(kCuda); }

// kWarmup eager steps and a captured one, then kReplays replays, against
// kWarmup + kReplays eager steps of an identical net (dropout probability
// p), each net with its own optimizer from `make`.
void expect_replays_match_eager_steps(
    double p, const std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor>)>& make) {
  manual_seed(0);
  const Tensor tokens = tokens_on_device(), targets = targets_on_device();
  Net eager_net(p), graph_net(p);
  graph_net.copy_from(eager_net);
  std::unique_ptr<optim::Optimizer> eager_opt = make(eager_net.parameters());
  std::unique_ptr<optim::Optimizer> graph_opt = make(graph_net.parameters());
  constexpr int kReplays = 5;

  cuda::CUDAStream stream = cuda::getStreamFromPool();
  cuda::CUDAGraph graph;
  Tensor static_loss;
  {
    // Work queued on the legacy stream (the inputs, the copies above) is
    // not ordered before a non-blocking pool stream's: finish it first.
    cuda::synchronize();
    cuda::CUDAStreamGuard guard(stream);
    manual_seed(1);
    static_loss = capture_step(graph, graph_net, *graph_opt, tokens, targets);
    manual_seed(2);
    for (int i = 0; i < kReplays; ++i) graph.replay();
    stream.synchronize();
  }
  // The capture itself ran nothing: kWarmup + kReplays steps in all.
  Tensor eager_loss;
  manual_seed(1);
  for (int i = 0; i < kWarmup; ++i) train_step(eager_net, *eager_opt, tokens, targets);
  manual_seed(2);
  for (int i = 0; i < kReplays; ++i) {
    eager_loss = train_step(eager_net, *eager_opt, tokens, targets);
  }
  const std::vector<Tensor> pe = eager_net.parameters(), pg = graph_net.parameters();
  ASSERT_EQ(pe.size(), pg.size());
  for (size_t i = 0; i < pe.size(); ++i) {
    EXPECT_TRUE(allclose(pg[i].to(Device(kCPU)), pe[i].to(Device(kCPU)), 1e-5, 1e-6))
        << "parameter " << i << ", p = " << p;
  }
  EXPECT_NEAR(static_loss.item<float>(), eager_loss.item<float>(), 1e-5) << "p = " << p;
  // A capturable optimizer's device step counted every replay.
  for (const Tensor& param : pg) {
    const optim::ParamState* st = graph_opt->state(param);
    if (st != nullptr && st->device_step.defined()) {
      EXPECT_EQ(st->device_step.item<double>(), kWarmup + kReplays);
    }
  }
}

std::unique_ptr<optim::Optimizer> sgd(std::vector<Tensor> params) {
  return std::make_unique<optim::SGD>(params, optim::SGDOptions(0.1).momentum(0.9));
}

TEST(CudaGraphTraining, ReplayMatchesEagerSteps) {
  SKIP_WITHOUT_CUDA_DEVICE();
  expect_replays_match_eager_steps(0.0, sgd);
}

TEST(CudaGraphTraining, ReplayWithDropoutMatchesEagerSteps) {
  SKIP_WITHOUT_CUDA_DEVICE();
  expect_replays_match_eager_steps(0.5, sgd);
}

// A capturable Adam's step count lives on the device: each replay advances
// it and takes its bias corrections, as the eager steps do. Through the
// multi-tensor kernels (the CUDA default) and the per-parameter tensor ops
// (foreach false), for Adam and AdamW.
TEST(CudaGraphTraining, CapturableAdamReplayMatchesEagerSteps) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (bool foreach : {true, false}) {
    SCOPED_TRACE(foreach ? "multi-tensor" : "per-parameter ops");
    expect_replays_match_eager_steps(0.1, [&](std::vector<Tensor> p) {
      return std::make_unique<optim::Adam>(
          p, optim::AdamOptions(1e-2).amsgrad(true).capturable(true).foreach (foreach));
    });
    expect_replays_match_eager_steps(0.1, [&](std::vector<Tensor> p) {
      return std::make_unique<optim::AdamW>(
          p, optim::AdamWOptions(1e-2).capturable(true).foreach (foreach));
    });
  }
}

// Dropout with p > 0 draws its mask on the device inside the captured step:
// the capture succeeds (no host synchronization), and replays train.
TEST(CudaGraphTraining, DropoutStepCaptures) {
  SKIP_WITHOUT_CUDA_DEVICE();
  manual_seed(1);
  const Tensor tokens = tokens_on_device(), targets = targets_on_device();
  Net net(0.5);
  optim::SGD opt(net.parameters(), optim::SGDOptions(0.05).momentum(0.9));
  cuda::synchronize();
  cuda::CUDAStreamGuard guard(cuda::getStreamFromPool());
  cuda::CUDAGraph graph;
  Tensor loss = capture_step(graph, net, opt, tokens, targets);
  graph.replay();
  const float first = loss.item<float>();
  for (int i = 0; i < 20; ++i) graph.replay();
  const float last = loss.item<float>();
  EXPECT_TRUE(std::isfinite(first));
  EXPECT_TRUE(std::isfinite(last));
  EXPECT_LT(last, first);
}

// A non-capturable Adam's update captures too, but its host step count and
// bias corrections are recorded as constants (graph.h): every replay repeats
// the captured step's corrections. Capturable Adam is compared above.
TEST(CudaGraphTraining, AdamStepCaptures) {
  SKIP_WITHOUT_CUDA_DEVICE();
  manual_seed(2);
  const Tensor tokens = tokens_on_device(), targets = targets_on_device();
  Net net(0.1);
  optim::Adam opt(net.parameters(), optim::AdamOptions(1e-2));
  cuda::synchronize();
  cuda::CUDAStreamGuard guard(cuda::getStreamFromPool());
  cuda::CUDAGraph graph;
  Tensor loss = capture_step(graph, net, opt, tokens, targets);
  for (int i = 0; i < 3; ++i) graph.replay();
  EXPECT_TRUE(std::isfinite(loss.item<float>()));
}

}  // namespace
}  // namespace nn
}  // namespace ember
