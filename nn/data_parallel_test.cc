// DataParallel over two CPU "devices" (two replicas on two threads): the
// same outputs and gradients as the module on the whole batch, PyTorch's
// buffer rule, and its corner cases; the replicas DataParallel keeps
// between forwards (Note [DataParallel keeps its replicas]) follow the
// module through training steps, mode switches, new values and requires_grad
// flags, and are cloned again when its structure changes or a live graph
// still holds them.

#include "nn/data_parallel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "autograd/autograd.h"
#include "nn/nn.h"
#include "tensor/all.h"

namespace ember {
namespace nn {
namespace {

struct MlpImpl : Module {
  MlpImpl()
      : fc1(register_module("fc1", Linear(4, 8))), fc2(register_module("fc2", Linear(8, 3))) {}
  Tensor forward(const Tensor& x) { return fc2->forward(fc1->forward(x).tanh()); }
  Linear fc1, fc2;
};
EMBER_MODULE(Mlp);

const std::vector<Device> kTwoCpus = {Device(kCPU), Device(kCPU)};

double max_diff(const Tensor& a, const Tensor& b) { return (a - b).abs().max().item<double>(); }

TEST(DataParallelTest, MatchesTheModuleOnTheWholeBatch) {
  manual_seed(0);
  Mlp net;
  net->to(kDouble);
  Mlp twin;
  twin->to(kDouble);
  twin->load_state_dict(net->state_dict());
  const Tensor x = randn({7, 4}, kDouble);  // 4 + 3 rows, as chunk splits 7 in two

  const Tensor out = parallel::data_parallel(net.ptr(), x, kTwoCpus);
  const Tensor want = twin->forward(x);
  EXPECT_LT(max_diff(out, want), 1e-14);
  (out * out).sum().backward();
  (want * want).sum().backward();
  const NamedTensors a = net->named_parameters(), b = twin->named_parameters();
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_TRUE(a[i].value().grad().defined()) << a[i].key();
    EXPECT_LT(max_diff(a[i].value().grad(), b[i].value().grad()), 1e-13) << a[i].key();
  }
}

TEST(DataParallelTest, ReplicatingLeavesTheGeneratorAlone) {
  manual_seed(1);
  Mlp net;
  const Tensor x = randn({4, 4});
  const Tensor marker = randn({3});
  manual_seed(2);
  net->forward(x);
  const Tensor plain = randn({3});
  manual_seed(2);
  parallel::data_parallel(net.ptr(), x, kTwoCpus);
  EXPECT_TRUE(equal(randn({3}), plain));
  (void)marker;
}

TEST(DataParallelTest, FirstReplicaKeepsBufferUpdates) {
  manual_seed(3);
  BatchNorm1d bn(3);
  BatchNorm1d alone(3);
  const Tensor x = randn({6, 3});
  parallel::data_parallel(bn.ptr(), x, kTwoCpus);
  // PyTorch's rule: the running statistics are those of the first chunk.
  alone->forward(x.slice(0, 0, 3));
  EXPECT_LT(max_diff(bn->running_mean, alone->running_mean), 1e-7);
  EXPECT_LT(max_diff(bn->running_var, alone->running_var), 1e-7);
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 1);
}

TEST(DataParallelTest, ModuleFormAndCornerCases) {
  manual_seed(4);
  Mlp net;
  DataParallel<MlpImpl> dp(net.ptr(), kTwoCpus);
  EXPECT_EQ(dp->state_dict().keys().front(), "module.fc1.weight");
  // One row: one replica.
  const Tensor one = randn({1, 4});
  EXPECT_LT(max_diff(dp(one), net->forward(one)), 1e-6);
  // An error in a replica reaches the caller.
  EXPECT_THROW(dp(randn({4, 5})), Error);
  // No devices and no CUDA: the module itself.
  if (!cuda::is_available()) {
    DataParallel<MlpImpl> plain(net.ptr());
    EXPECT_TRUE(plain->device_ids.empty());
    EXPECT_TRUE(equal(plain(one), net->forward(one)));
  }
  // Under no_grad the replicas record nothing.
  NoGradGuard no_grad;
  EXPECT_FALSE(dp(randn({4, 4})).requires_grad());
}

// Linear -> BatchNorm1d -> Linear: buffers and a train/eval difference.
struct BnNetImpl : Module {
  BnNetImpl()
      : fc1(register_module("fc1", Linear(4, 8))),
        bn(register_module("bn", BatchNorm1d(8))),
        fc2(register_module("fc2", Linear(8, 3))) {}
  Tensor forward(const Tensor& x) { return fc2->forward(bn->forward(fc1->forward(x))); }
  Linear fc1;
  BatchNorm1d bn;
  Linear fc2;
};
EMBER_MODULE(BnNet);

// Plain SGD (optim's SGD without momentum; //nn does not depend on //optim).
void sgd_step(Module& m, double lr) {
  NoGradGuard no_grad;
  for (Tensor& p : m.parameters()) {
    if (p.grad().defined()) p.sub_(p.grad(), lr);
  }
  m.zero_grad();
}

void expect_same_grads(const Module& a, const Module& b, double tol) {
  const NamedTensors ga = a.named_parameters(), gb = b.named_parameters();
  ASSERT_EQ(ga.size(), gb.size());
  for (size_t i = 0; i < ga.size(); ++i) {
    const Tensor x = ga[i].value().grad(), y = gb[i].value().grad();
    ASSERT_EQ(x.defined(), y.defined()) << ga[i].key();
    if (x.defined()) {
      EXPECT_LT(max_diff(x, y), tol) << ga[i].key();
    }
  }
}

// An Mlp in float64, a twin with its values, and DataParallel over the
// first on two CPUs.
struct Twins {
  explicit Twins(uint64_t seed) : net((manual_seed(seed), Mlp())), dp(net.ptr(), kTwoCpus) {
    net->to(kDouble);
    twin->to(kDouble);
    twin->load_state_dict(net->state_dict());
  }
  Mlp net, twin;
  DataParallel<MlpImpl> dp;
};

TEST(DataParallelTest, KeptReplicasTrainLikeTheModule) {
  Twins t(10);
  Mlp &net = t.net, &twin = t.twin;
  DataParallel<MlpImpl>& dp = t.dp;
  std::vector<Tensor> xs, ys;
  for (int i = 0; i < 6; ++i) {
    xs.push_back(randn({9, 4}, kDouble));
    ys.push_back(randn({9, 3}, kDouble));
  }
  manual_seed(7);
  for (size_t i = 0; i < xs.size(); ++i) {
    const Tensor d = dp(xs[i]) - ys[i], e = twin->forward(xs[i]) - ys[i];
    const Tensor loss = (d * d).mean(), want = (e * e).mean();
    EXPECT_LT(std::abs(loss.item<double>() - want.item<double>()), 1e-12) << "step " << i;
    loss.backward();
    want.backward();
    expect_same_grads(*net, *twin, 1e-12);
    sgd_step(*net, 0.1);
    sgd_step(*twin, 0.1);
    const NamedTensors a = net->named_parameters(), b = twin->named_parameters();
    for (size_t j = 0; j < a.size(); ++j) {
      EXPECT_LT(max_diff(a[j].value(), b[j].value()), 1e-12) << a[j].key() << " step " << i;
    }
  }
  EXPECT_EQ(dp->replicas_built(), 1);
  // Cloned once, linked five times: the default generator never moved.
  const Tensor after = randn({3});
  manual_seed(7);
  EXPECT_TRUE(equal(after, randn({3})));
}

// On a GPU (issue 20's device check): replicas on cuda:0, one and two of
// them (device_ids may repeat a device), train like the module on the CPU.
TEST(DataParallelTest, CudaReplicasTrainLikeTheModuleOnTheCpu) {
  if (!cuda::is_available()) GTEST_SKIP() << "no usable CUDA device on this machine";
  for (const std::vector<Device>& ids : {std::vector<Device>{Device(kCUDA, 0)},
                                         std::vector<Device>{Device(kCUDA, 0), Device(kCUDA, 0)}}) {
    SCOPED_TRACE(ids.size());
    manual_seed(3);
    Mlp net, twin;
    net->to(kDouble);
    twin->to(kDouble);
    twin->load_state_dict(net->state_dict());
    net->to(Device(kCUDA, 0));
    DataParallel<MlpImpl> dp(net.ptr(), ids);
    for (int step = 0; step < 3; ++step) {
      const Tensor x = randn({9, 4}, kDouble), y = randn({9, 3}, kDouble);
      const Tensor d = dp(x) - y.to(kCUDA), e = twin->forward(x) - y;
      ASSERT_TRUE(d.is_cuda());
      const Tensor loss = (d * d).mean(), want = (e * e).mean();
      EXPECT_LT(std::abs(loss.item<double>() - want.item<double>()), 1e-10) << "step " << step;
      loss.backward();
      want.backward();
      const NamedTensors a = net->named_parameters(), b = twin->named_parameters();
      for (size_t j = 0; j < a.size(); ++j) {
        ASSERT_TRUE(a[j].value().grad().is_cuda()) << a[j].key();
        EXPECT_LT(max_diff(a[j].value().grad().cpu(), b[j].value().grad()), 1e-10) << a[j].key();
      }
      sgd_step(*net, 0.1);
      sgd_step(*twin, 0.1);
    }
  }
}

TEST(DataParallelTest, KeptReplicasFollowTrainAndEval) {
  manual_seed(11);
  BnNet net;
  net->to(kDouble);
  DataParallel<BnNetImpl> dp(net.ptr(), kTwoCpus);
  const Tensor x = randn({8, 4}, kDouble);
  dp(x).sum().backward();  // replica 1's running statistics now differ from the module's
  dp->eval();
  // Both replicas normalize with the module's running statistics.
  EXPECT_LT(max_diff(dp(x), net->forward(x)), 1e-13);
  EXPECT_EQ(net->bn->num_batches_tracked.item<int64_t>(), 1);
  net->train();
  const Tensor before = net->bn->running_mean.clone();
  dp(x);
  EXPECT_EQ(net->bn->num_batches_tracked.item<int64_t>(), 2);
  EXPECT_GT(max_diff(net->bn->running_mean, before), 0);
  // A mode set on one submodule reaches its replicas too.
  net->bn->eval();
  EXPECT_LT(max_diff(dp(x), net->forward(x)), 1e-13);
  EXPECT_EQ(dp->replicas_built(), 1);
}

TEST(DataParallelTest, KeptReplicasSeeNewValues) {
  manual_seed(12);
  BnNet net, other;
  DataParallel<BnNetImpl> dp(net.ptr(), kTwoCpus);
  dp->eval();
  const Tensor x = randn({6, 4});
  dp(x);
  other->bn->running_mean.normal_();
  net->load_state_dict(other->state_dict());
  other->eval();
  EXPECT_LT(max_diff(dp(x), other->forward(x)), 1e-6);
  // A tensor registered in place of a parameter (the member following it).
  net->fc2->bias = net->fc2->register_parameter("bias", ones({3}));
  EXPECT_LT(max_diff(dp(x), net->forward(x)), 1e-6);
  // The module converted to float64.
  net->to(kDouble);
  const Tensor xd = x.to(kDouble);
  const Tensor out = dp(xd);
  EXPECT_EQ(out.dtype(), kDouble);
  EXPECT_LT(max_diff(out, net->forward(xd)), 1e-13);
  EXPECT_EQ(dp->replicas_built(), 1);
}

TEST(DataParallelTest, KeptReplicasFollowRequiresGrad) {
  Twins t(13);
  Mlp &net = t.net, &twin = t.twin;
  DataParallel<MlpImpl>& dp = t.dp;
  const Tensor x = randn({5, 4}, kDouble);
  auto step = [&] {
    dp(x).pow(2).sum().backward();
    twin->forward(x).pow(2).sum().backward();
    expect_same_grads(*net, *twin, 1e-12);
    net->zero_grad();
    twin->zero_grad();
  };
  step();
  for (Module* m :
       {static_cast<Module*>(net.ptr().get()), static_cast<Module*>(twin.ptr().get())}) {
    for (Tensor& p : m->get_submodule("fc1")->parameters()) p.requires_grad_(false);
  }
  step();  // fc1 frozen: no gradient for it
  EXPECT_FALSE(net->fc1->weight.grad().defined());
  for (Tensor& p : net->fc1->parameters()) p.requires_grad_(true);
  for (Tensor& p : twin->fc1->parameters()) p.requires_grad_(true);
  step();
  EXPECT_EQ(dp->replicas_built(), 1);
}

TEST(DataParallelTest, StructureChangeClonesTheReplicasAgain) {
  manual_seed(14);
  Mlp net;
  DataParallel<MlpImpl> dp(net.ptr(), kTwoCpus);
  const Tensor x = randn({6, 4});
  dp(x);
  EXPECT_EQ(dp->replicas_built(), 1);
  // A submodule replaced by another of the same type and shapes: linked.
  net->fc2 = net->replace_module("fc2", Linear(8, 3));
  Tensor out = dp(x);
  EXPECT_LT(max_diff(out, net->forward(x)), 1e-6);
  EXPECT_EQ(dp->replicas_built(), 1);
  std::shared_ptr<Module> replica = net->clone();
  // fc2 gives 5 outputs now: link_replica says the replica no longer fits.
  net->fc2->weight = net->fc2->register_parameter("weight", randn({5, 8}));
  net->fc2->bias = net->fc2->register_parameter("bias", randn({5}));
  EXPECT_FALSE(detail::link_replica(*replica, *net, Device(kCPU), false));
  out = dp(x);
  EXPECT_EQ(out.sizes(), IntArrayRef({6, 5}));
  EXPECT_LT(max_diff(out, net->forward(x)), 1e-6);
  EXPECT_EQ(dp->replicas_built(), 2);
  // Other devices.
  dp->device_ids = {Device(kCPU), Device(kCPU), Device(kCPU)};
  EXPECT_LT(max_diff(dp(x), net->forward(x)), 1e-6);
  EXPECT_EQ(dp->replicas_built(), 3);
  // A short batch uses the first of them.
  EXPECT_LT(max_diff(dp(x.slice(0, 0, 2)), net->forward(x.slice(0, 0, 2))), 1e-6);
  EXPECT_EQ(dp->replicas_built(), 3);
  // A submodule added: Mlp's holder cannot construct that again, and clone
  // says so rather than the old replicas running.
  net->register_module("extra", Linear(3, 3));
  EXPECT_THROW(dp(x), Error);
}

TEST(DataParallelTest, ConcurrentForwardsEachGetTheirOwnReplicas) {
  manual_seed(17);
  Mlp net;
  DataParallel<MlpImpl> dp(net.ptr(), kTwoCpus);
  const Tensor x = randn({6, 4});
  const Tensor want = net->forward(x);
  std::vector<double> diffs(4, 1.0);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < diffs.size(); ++t) {
    threads.emplace_back([&, t] {
      NoGradGuard no_grad;  // no graph holds the replicas: only taking them out protects them
      double worst = 0;
      for (int i = 0; i < 20; ++i) worst = std::max(worst, max_diff(dp(x), want));
      diffs[t] = worst;
    });
  }
  for (std::thread& t : threads) t.join();
  for (double d : diffs) EXPECT_LT(d, 1e-6);
  EXPECT_GE(dp->replicas_built(), 1);
}

TEST(DataParallelTest, ASequentialGrownBetweenStepsIsClonedAgain) {
  manual_seed(16);
  Sequential seq(Linear(4, 8), Tanh(), Linear(8, 3));
  DataParallel<SequentialImpl> dp(seq.ptr(), kTwoCpus);
  const Tensor x = randn({6, 4});
  EXPECT_LT(max_diff(dp(x), seq->forward(x)), 1e-6);
  seq->push_back(Linear(3, 2));
  const Tensor out = dp(x);
  EXPECT_EQ(out.sizes(), IntArrayRef({6, 2}));
  EXPECT_LT(max_diff(out, seq->forward(x)), 1e-6);
  EXPECT_EQ(dp->replicas_built(), 2);
}

TEST(DataParallelTest, ALiveGraphKeepsItsReplicas) {
  Twins t(15);
  Mlp &net = t.net, &twin = t.twin;
  DataParallel<MlpImpl>& dp = t.dp;
  const Tensor x1 = randn({6, 4}, kDouble), x2 = randn({6, 4}, kDouble);
  // Two forwards before one backward, the parameters changed in between:
  // the first graph computes with the values it saw, as PyTorch's.
  const Tensor a = dp(x1);
  {
    NoGradGuard no_grad;
    net->fc1->weight.add_(0.5);
  }
  const Tensor b = dp(x2);
  (a.pow(2).sum() + b.pow(2).sum()).backward();
  twin->forward(x1).pow(2).sum().backward();
  {
    NoGradGuard no_grad;
    twin->fc1->weight.add_(0.5);
  }
  twin->forward(x2).pow(2).sum().backward();
  expect_same_grads(*net, *twin, 1e-12);
  EXPECT_EQ(dp->replicas_built(), 2);
  // Backward released both graphs: the kept replicas serve again.
  dp(x1).sum().backward();
  EXPECT_EQ(dp->replicas_built(), 2);
}

}  // namespace
}  // namespace nn
}  // namespace ember
