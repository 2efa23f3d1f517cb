// ember::hvd (Horovod's API, Note [Horovod over process groups]) in real
// processes: DistributedOptimizer training on each rank's half of a batch
// equals one process training on the whole batch (float64, within 1e-10;
// fp16 compression within its tolerance), gradient accumulation, join with
// uneven data, state broadcasts, the tensor collectives and the errors.

#include "distributed/hvd.h"

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "distributed/gloo_test_util.h"
#include "distributed/testing/multiprocess.h"
#include "nn/nn.h"
#include "optim/optim.h"
#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

namespace F = nn::functional;
using distributed::testing::run_world;

// A small float64 regression net; every rank builds it from its own seed,
// so the weights only agree after broadcast_parameters.
nn::Sequential make_net(uint64_t seed) {
  manual_seed(seed);
  nn::Sequential net(nn::Linear(4, 6), nn::Tanh(), nn::Linear(6, 1));
  net->to(kDouble);
  return net;
}

// The whole data set: 8 rows.
Tensor inputs() { return (arange(32, kDouble).view({8, 4}) * 0.37).sin(); }
Tensor targets() { return (arange(8, kDouble).view({8, 1}) * 0.5).cos(); }

Tensor loss_on(nn::Sequential& net, int64_t begin, int64_t count) {
  return F::mse_loss(net->forward(inputs().narrow(0, begin, count)),
                     targets().narrow(0, begin, count));
}

// Every parameter as one vector.
Tensor flat(nn::Sequential& net) {
  std::vector<Tensor> ps;
  for (const Tensor& p : net->parameters()) ps.push_back(p.detach().reshape({-1}));
  return cat(ps, 0);
}

// What one process gets training on all 8 rows, from rank 0's weights.
Tensor reference(int steps, double lr) {
  nn::Sequential net = make_net(0);
  optim::SGD sgd(net->parameters(), optim::SGDOptions(lr).momentum(0.9));
  for (int s = 0; s < steps; ++s) {
    sgd.zero_grad();
    loss_on(net, 0, 8).backward();
    sgd.step();
  }
  return flat(net);
}

double max_diff(const Tensor& a, const Tensor& b) { return (a - b).abs().max().item<double>(); }

TEST(HvdTest, AloneItIsRankZeroOfOne) {
  unsetenv("RANK");
  unsetenv("WORLD_SIZE");
  hvd::init();
  EXPECT_TRUE(hvd::is_initialized());
  EXPECT_EQ(hvd::rank(), 0);
  EXPECT_EQ(hvd::size(), 1);
  EXPECT_EQ(hvd::local_rank(), 0);
  EXPECT_EQ(hvd::local_size(), 1);
  EXPECT_EQ(hvd::cross_size(), 1);
  Tensor t = tensor({1.5, -2.0});
  EXPECT_TRUE(equal(hvd::allreduce(t), t));
  EXPECT_TRUE(equal(hvd::allreduce(t, hvd::Sum), t));
  EXPECT_TRUE(equal(hvd::allgather(t.view({2, 1})), t.view({2, 1})));
  EXPECT_TRUE(equal(hvd::broadcast(t, 0), t));
  EXPECT_EQ(hvd::join(), 0);
  testing::expect_error<ValueError>([&] { hvd::allreduce(t, hvd::Adasum); },
                                    "hvd: Adasum is not supported by ember (use hvd::Average or "
                                    "hvd::Sum)");
  hvd::shutdown();
  EXPECT_FALSE(hvd::is_initialized());
  testing::expect_error([] { hvd::rank(); },
                        "hvd::rank: Horovod has not been initialized; use hvd::init().");
}

// Seed 003's Horovod recipe: broadcast_parameters, DistributedOptimizer,
// each rank on its share of the data.
void train_halves(hvd::Compression compression, double tolerance) {
  run_world(2, [&](int rank, int) {
    hvd::init();
    ASSERT_EQ(hvd::size(), 2);
    EXPECT_EQ(hvd::local_size(), 2);
    EXPECT_EQ(hvd::local_rank(), rank);
    nn::Sequential net = make_net(rank == 0 ? 0 : 100 + rank);  // rank 0 has the weights
    hvd::broadcast_parameters(net->state_dict(), 0);
    nn::Sequential root = make_net(0);
    EXPECT_EQ(max_diff(flat(net), flat(root)), 0.0);
    optim::SGD sgd(net->parameters(), optim::SGDOptions(0.1).momentum(0.9));
    hvd::DistributedOptimizer opt(sgd, net->named_parameters(), compression);
    for (int s = 0; s < 5; ++s) {
      opt.zero_grad();
      loss_on(net, 4 * rank, 4).backward();
      opt.step();
    }
    const Tensor mine = flat(net);
    // Same on both ranks, and the full-batch run's.
    Tensor both = hvd::allgather(mine.view({1, -1}));
    EXPECT_EQ(max_diff(both[0], both[1]), 0.0);
    EXPECT_LT(max_diff(mine, reference(5, 0.1)), tolerance);
    hvd::shutdown();
  });
}

TEST(HvdTest, HalvesOnTwoRanksEqualTheFullBatch) { train_halves(hvd::Compression::none, 1e-10); }

TEST(HvdTest, Fp16CompressionStaysWithinHalfPrecision) {
  train_halves(hvd::Compression::fp16, 2e-3);
}

TEST(HvdTest, BackwardPassesPerStepAccumulateLocally) {
  // Two backward passes of a quarter each per step: the sum of the quarter
  // means, averaged over ranks, is twice the full-batch mean's gradient.
  run_world(2, [](int rank, int) {
    hvd::init();
    nn::Sequential net = make_net(0);
    optim::SGD sgd(net->parameters(), optim::SGDOptions(0.05).momentum(0.9));
    hvd::DistributedOptimizer opt(sgd, net->named_parameters(), hvd::Compression::none,
                                  /*backward_passes_per_step=*/2);
    for (int s = 0; s < 3; ++s) {
      opt.zero_grad();
      loss_on(net, 4 * rank, 2).backward();
      loss_on(net, 4 * rank + 2, 2).backward();
      opt.step();
    }
    EXPECT_LT(max_diff(flat(net), reference(3, 0.1)), 1e-10);
    // A third pass before step() is Horovod's error.
    opt.zero_grad();
    for (int i = 0; i < 2; ++i) loss_on(net, 0, 2).backward();
    testing::expect_error([&] { loss_on(net, 0, 2).backward(); },
                          "Gradients were computed more than backward_passes_per_step times "
                          "before call to step(). Increase backward_passes_per_step to "
                          "accumulate gradients locally.");
    hvd::shutdown();
  });
}

TEST(HvdTest, JoinLetsARankRunOutOfDataFirst) {
  // Rank 1 has data for 2 steps, rank 0 for 4: after rank 1 joins, rank 0's
  // steps average its own gradient only.
  run_world(2, [](int rank, int) {
    hvd::init();
    nn::Sequential net = make_net(0);
    optim::SGD sgd(net->parameters(), optim::SGDOptions(0.1).momentum(0.9));
    hvd::DistributedOptimizer opt(sgd, net->named_parameters());
    const int steps = rank == 0 ? 4 : 2;
    for (int s = 0; s < steps; ++s) {
      opt.zero_grad();
      loss_on(net, 4 * rank, 4).backward();
      opt.step();
    }
    EXPECT_EQ(hvd::join(), 0);  // rank 0 joined last
    if (rank == 0) {
      nn::Sequential ref = make_net(0);
      optim::SGD ref_sgd(ref->parameters(), optim::SGDOptions(0.1).momentum(0.9));
      for (int s = 0; s < 4; ++s) {
        ref_sgd.zero_grad();
        loss_on(ref, 0, s < 2 ? 8 : 4).backward();
        ref_sgd.step();
      }
      EXPECT_LT(max_diff(flat(net), flat(ref)), 1e-10);
    }
    hvd::shutdown();
  });
}

TEST(HvdTest, BroadcastOptimizerStateReachesAnOptimizerThatNeverStepped) {
  run_world(2, [](int rank, int) {
    hvd::init();
    nn::Sequential net = make_net(0);
    optim::SGD sgd(net->parameters(), optim::SGDOptions(rank == 0 ? 0.3 : 0.7).momentum(0.9));
    if (rank == 0) {
      loss_on(net, 0, 8).backward();
      sgd.step();
    }
    hvd::broadcast_optimizer_state(sgd, 0);
    EXPECT_EQ(sgd.param_groups()[0].options().get_lr(), 0.3);
    NamedTensors state = sgd.state_dict().to_named_tensors();
    for (auto& kv : state) {
      Tensor root = hvd::broadcast(kv.second, 0);
      EXPECT_TRUE(equal(root, kv.second)) << kv.first;
    }
    EXPECT_EQ(state.size(), 4u + 6u + 1u);  // 4 momentum buffers, 6 options, params
    hvd::shutdown();
  });
}

TEST(HvdTest, TensorCollectives) {
  run_world(2, [](int rank, int) {
    hvd::init();
    Tensor t = full({3}, static_cast<double>(rank + 1), kDouble);
    EXPECT_TRUE(equal(hvd::allreduce(t), full({3}, 1.5, kDouble)));
    EXPECT_TRUE(equal(hvd::allreduce(t, hvd::Sum), full({3}, 3.0, kDouble)));
    // fp16 on the wire, float64 back.
    Tensor c = hvd::allreduce(t, hvd::Sum, hvd::Compression::fp16);
    EXPECT_EQ(c.dtype(), kDouble);
    EXPECT_TRUE(equal(c, full({3}, 3.0, kDouble)));
    // First dimensions may differ.
    Tensor g = hvd::allgather(full({rank + 1, 2}, static_cast<int64_t>(rank), kLong));
    EXPECT_TRUE(equal(g, tensor({{0, 0}, {1, 1}, {1, 1}}, kLong)));
    Tensor b = hvd::broadcast(t, 1);
    EXPECT_TRUE(equal(b, full({3}, 2.0, kDouble)));
    // Other dimensions may not.
    const std::string err = testing::error_of([&] { hvd::allgather(zeros({1, rank + 1})); });
    EXPECT_NE(err.find("only the first dimension may differ"), std::string::npos) << err;
    hvd::shutdown();
  });
}

TEST(HvdTest, ZeroGradBetweenBackwardAndStepIsRefused) {
  run_world(2, [](int rank, int) {
    hvd::init();
    nn::Sequential net = make_net(0);
    optim::SGD sgd(net->parameters(), optim::SGDOptions(0.1));
    hvd::DistributedOptimizer opt(sgd, net->named_parameters());
    loss_on(net, 4 * rank, 4).backward();
    testing::expect_error([&] { opt.zero_grad(); },
                          "optimizer.zero_grad() was called after loss.backward() but before "
                          "optimizer.step() or optimizer.synchronize(). This is prohibited as it "
                          "can cause a race condition.");
    opt.step();
    opt.zero_grad();
    hvd::shutdown();
  });
}

TEST(HvdTest, NamedParametersMustNameEveryParameterOnce) {
  hvd::init();
  nn::Sequential net = make_net(0);
  optim::SGD sgd(net->parameters(), optim::SGDOptions(0.1));
  NamedTensors named = net->named_parameters();
  NamedTensors partial(named.begin(), named.begin() + 2);
  testing::expect_error<ValueError>(
      [&] { hvd::DistributedOptimizer opt(sgd, partial); },
      "named_parameters was specified, but one or more model parameters were not named "
      "(optimizer parameters 2, 3)");
  NamedTensors twice = named;
  twice[1].first = twice[0].first;
  testing::expect_error<ValueError>(
      [&] { hvd::DistributedOptimizer opt(sgd, twice); },
      "Parameter names in named_parameters must be unique. Found duplicates: 0.weight");
  hvd::shutdown();
}

}  // namespace
}  // namespace ember
