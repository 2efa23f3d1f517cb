// DistributedDataParallel between real processes over gloo on 127.0.0.1:
// training matches one process on the whole batch (world sizes 2 and 3),
// buckets are rebuilt in gradient order, no_sync, unused parameters, buffer
// broadcast, model mismatch errors, gradient_as_bucket_view, state_dict
// keys and the printed tree.

#include "distributed/ddp.h"

#include <chrono>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "autograd/autograd.h"
#include "distributed/gloo_test_util.h"
#include "distributed/init.h"
#include "distributed/testing/multiprocess.h"
#include "nn/nn.h"
#include "optim/sgd.h"
#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember::distributed {
namespace {

namespace F = nn::functional;
using std::chrono::milliseconds;

using testing::run_world;

// Seed 004's ToyModel.
struct ToyModelImpl : nn::Module {
  ToyModelImpl()
      : net1(register_module("net1", nn::Linear(10, 10))),
        relu(register_module("relu", nn::ReLU())),
        net2(register_module("net2", nn::Linear(10, 5))) {}
  Tensor forward(const Tensor& x) { return net2(relu(net1(x))); }
  nn::Linear net1;
  nn::ReLU relu;
  nn::Linear net2;
};
EMBER_MODULE(ToyModel);

// A fresh ToyModel in float64 initialized after manual_seed(seed).
ToyModel reference_model(uint64_t seed = 0) {
  manual_seed(seed);
  ToyModel m;
  m->to(kDouble);
  return m;
}

::testing::AssertionResult same_values(const std::vector<Tensor>& a, const std::vector<Tensor>& b,
                                       double tol) {
  if (a.size() != b.size()) return ::testing::AssertionFailure() << a.size() << " vs " << b.size();
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].defined() != b[i].defined()) {
      return ::testing::AssertionFailure() << "tensor " << i << ": defined " << a[i].defined()
                                           << " vs " << b[i].defined();
    }
    if (a[i].defined() && !a[i].allclose(b[i], tol, tol)) {
      return ::testing::AssertionFailure() << "tensor " << i << ":\n" << a[i] << "\nvs\n" << b[i];
    }
  }
  return ::testing::AssertionSuccess();
}

std::vector<Tensor> grads(const std::vector<Tensor>& params) {
  std::vector<Tensor> out;
  for (const Tensor& p : params) out.push_back(p.grad());
  return out;
}

// Each rank trains on its share of every batch; the reference trains on
// the whole batch in one process. With mean losses and equal shares the
// averaged gradient is the whole batch's, so the parameters agree.
void trains_like_one_process(int rank, int size) {
  manual_seed(100 + rank);  // each rank starts elsewhere: DDP broadcasts rank 0's
  ToyModel model;
  model->to(kDouble);
  nn::parallel::DistributedDataParallel ddp(model);
  ToyModel ref = reference_model(100);  // rank 0's
  EXPECT_TRUE(same_values(ddp->parameters(), ref->parameters(), 0));
  EXPECT_EQ(ddp->reducer().bucket_indices(), (std::vector<std::vector<size_t>>{{0, 1, 2, 3}}));

  optim::SGD opt(ddp->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  optim::SGD ref_opt(ref->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  for (int step = 0; step < 4; ++step) {
    manual_seed(1000 + step);
    Tensor x = randn({4 * size, 10}, kDouble), y = randn({4 * size, 5}, kDouble);
    opt.zero_grad();
    F::mse_loss(ddp(x.narrow(0, 4 * rank, 4)), y.narrow(0, 4 * rank, 4)).backward();
    ref_opt.zero_grad();
    F::mse_loss(ref(x), y).backward();
    EXPECT_TRUE(same_values(grads(ddp->parameters()), grads(ref->parameters()), 1e-12))
        << "step " << step;
    opt.step();
    ref_opt.step();
  }
  EXPECT_TRUE(same_values(ddp->parameters(), ref->parameters(), 1e-12));
  // Rebuilt after the first iteration: one bucket (under 1 MiB) in the
  // order the gradients arrived, the last layer's first.
  auto buckets = ddp->reducer().bucket_indices();
  ASSERT_EQ(buckets.size(), 1u);
  EXPECT_EQ(std::set<size_t>(buckets[0].begin(), buckets[0].end()),
            (std::set<size_t>{0, 1, 2, 3}));
  EXPECT_GE(buckets[0][0], 2u) << "net2's gradients come first";
}

TEST(DistributedDataParallel, TrainsLikeOneProcessWorldSize2) {
  run_world(2, trains_like_one_process);
}
TEST(DistributedDataParallel, TrainsLikeOneProcessWorldSize3) {
  run_world(3, trains_like_one_process);
}

// Layers big enough for two buckets once rebuilt: the first bucket closes
// at 1 MiB (net2.weight alone is 1.2 MB), the rest follows.
struct WideImpl : nn::Module {
  WideImpl()
      : fc1(register_module("fc1", nn::Linear(4, 1024))),
        fc2(register_module("fc2", nn::Linear(1024, 300))),
        fc3(register_module("fc3", nn::Linear(300, 2))) {}
  Tensor forward(const Tensor& x) { return fc3(fc2(fc1(x).relu()).relu()); }
  nn::Linear fc1, fc2, fc3;
};
EMBER_MODULE(Wide);

TEST(DistributedDataParallel, RebuildsBucketsInGradientOrder) {
  run_world(2, [](int rank, int size) {
    manual_seed(0);
    Wide ref;
    manual_seed(rank);
    Wide model;
    DistributedDataParallel ddp(model);
    for (int step = 0; step < 3; ++step) {
      manual_seed(7 + step);
      Tensor x = randn({2 * size, 4}), y = randn({2 * size, 2});
      ddp->zero_grad();
      F::mse_loss(ddp(x.narrow(0, 2 * rank, 2)), y.narrow(0, 2 * rank, 2)).backward();
      ref->zero_grad();
      F::mse_loss(ref(x), y).backward();
      EXPECT_TRUE(same_values(grads(ddp->parameters()), grads(ref->parameters()), 1e-5));
      if (step == 0) {
        EXPECT_EQ(ddp->reducer().bucket_indices().size(), 1u);
      } else {
        auto b = ddp->reducer().bucket_indices();
        ASSERT_EQ(b.size(), 2u);
        EXPECT_EQ(std::set<size_t>(b[0].begin(), b[0].end()), (std::set<size_t>{2, 3, 4, 5}));
        EXPECT_EQ(std::set<size_t>(b[1].begin(), b[1].end()), (std::set<size_t>{0, 1}));
      }
    }
  });
}

TEST(DistributedDataParallel, NoSyncAccumulatesLocallyThenAverages) {
  run_world(2, [](int rank, int size) {
    ToyModel model = reference_model();
    DistributedDataParallel ddp(model);
    manual_seed(5);
    std::vector<Tensor> xa, ya, xb, yb;
    for (int r = 0; r < size; ++r) {
      xa.push_back(randn({3, 10}, kDouble));
      ya.push_back(randn({3, 5}, kDouble));
      xb.push_back(randn({3, 10}, kDouble));
      yb.push_back(randn({3, 5}, kDouble));
    }
    {
      auto guard = ddp->no_sync();
      F::mse_loss(ddp(xa[rank]), ya[rank]).backward();
    }
    // Only this rank's gradient so far.
    ToyModel own = reference_model();
    F::mse_loss(own(xa[rank]), ya[rank]).backward();
    EXPECT_TRUE(same_values(grads(ddp->parameters()), grads(own->parameters()), 1e-12));

    F::mse_loss(ddp(xb[rank]), yb[rank]).backward();
    // The average over ranks of each rank's two gradients.
    ToyModel ref = reference_model();
    for (int r = 0; r < size; ++r) {
      (F::mse_loss(ref(xa[r]), ya[r]) + F::mse_loss(ref(xb[r]), yb[r])).backward();
    }
    std::vector<Tensor> expected;
    for (const Tensor& g : grads(ref->parameters())) expected.push_back(g / size);
    EXPECT_TRUE(same_values(grads(ddp->parameters()), expected, 1e-12));
  });
}

// fc_b is used where use_b is true, fc_c never.
struct BranchyImpl : nn::Module {
  BranchyImpl()
      : fc_a(register_module("fc_a", nn::Linear(3, 2))),
        fc_b(register_module("fc_b", nn::Linear(3, 2))),
        fc_c(register_module("fc_c", nn::Linear(3, 2))) {}
  Tensor forward(const Tensor& x, bool use_b) {
    Tensor out = fc_a(x);
    return use_b ? out + fc_b(x) : out;
  }
  nn::Linear fc_a, fc_b, fc_c;
};
EMBER_MODULE(Branchy);

TEST(DistributedDataParallel, FindUnusedParameters) {
  run_world(2, [](int rank, int size) {
    manual_seed(0);
    Branchy model;
    model->to(kDouble);
    DistributedDataParallel ddp(model, DistributedDataParallelOptions().find_unused_parameters(true));
    for (int step = 0; step < 2; ++step) {
      const int user = step;  // the rank that uses fc_b this step
      manual_seed(40 + step);
      std::vector<Tensor> x;
      for (int r = 0; r < size; ++r) x.push_back(randn({4, 3}, kDouble));
      ddp->zero_grad();
      ddp(x[rank], rank == user).pow(2).sum().backward();

      manual_seed(0);
      Branchy ref;
      ref->to(kDouble);
      for (int r = 0; r < size; ++r) ref(x[r], r == user).pow(2).sum().backward();
      // Parameters change below only through the first step's gradients,
      // which we do not apply: the reference needs no optimizer.
      const auto& m = ddp->module();
      EXPECT_TRUE(same_values({m->fc_a->weight.grad(), m->fc_a->bias.grad()},
                              {ref->fc_a->weight.grad() / size, ref->fc_a->bias.grad() / size},
                              1e-12));
      // Used on one rank: that rank's gradient, averaged with zeros.
      EXPECT_TRUE(same_values({m->fc_b->weight.grad(), m->fc_b->bias.grad()},
                              {ref->fc_b->weight.grad() / size, ref->fc_b->bias.grad() / size},
                              1e-12));
      // Used nowhere: untouched (None stays None).
      EXPECT_FALSE(m->fc_c->weight.grad().defined());
      EXPECT_FALSE(m->fc_c->bias.grad().defined());
    }
  });
}

TEST(DistributedDataParallel, UnusedParameterWithoutDetectionIsAnError) {
  run_world(2, [](int, int) {
    manual_seed(0);
    Branchy model;
    DistributedDataParallel ddp(model);
    try {
      ddp(ones({2, 3}), false).sum().backward();
      ADD_FAILURE() << "backward did not throw";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("2 (fc_b.weight), 3 (fc_b.bias), 4 (fc_c.weight), 5 (fc_c.bias)"),
                std::string::npos)
          << what;
      EXPECT_NE(what.find("find_unused_parameters(true)"), std::string::npos) << what;
    }
  });
}

struct NormedImpl : nn::Module {
  NormedImpl()
      : bn(register_module("bn", nn::BatchNorm1d(3))),
        fc(register_module("fc", nn::Linear(3, 1))) {}
  Tensor forward(const Tensor& x) { return fc(bn(x)); }
  nn::BatchNorm1d bn;
  nn::Linear fc;
};
EMBER_MODULE(Normed);

TEST(DistributedDataParallel, BuffersComeFromRankZeroBeforeEachForward) {
  run_world(2, [](int rank, int size) {
    Normed model;
    model->to(kDouble);
    {
      NoGradGuard no_grad;
      model->bn->running_mean.fill_(rank + 1);
    }
    DistributedDataParallel ddp(model);
    EXPECT_TRUE(model->bn->running_mean.equal(full({3}, 1.0, kDouble)));  // rank 0's
    manual_seed(3);
    std::vector<Tensor> x1, x2;
    for (int r = 0; r < size; ++r) x1.push_back(randn({5, 3}, kDouble) + r);
    for (int r = 0; r < size; ++r) x2.push_back(randn({5, 3}, kDouble) - r);
    ddp(x1[rank]);
    // momentum 0.1: each rank's statistics moved with its own batch ...
    Tensor after1 = full({3}, 0.9, kDouble) + 0.1 * x1[rank].mean({0});
    EXPECT_TRUE(model->bn->running_mean.allclose(after1, 1e-12, 1e-12));
    ddp(x2[rank]);
    // ... but the second forward starts from rank 0's.
    Tensor rank0_after1 = full({3}, 0.9, kDouble) + 0.1 * x1[0].mean({0});
    Tensor after2 = 0.9 * rank0_after1 + 0.1 * x2[rank].mean({0});
    EXPECT_TRUE(model->bn->running_mean.allclose(after2, 1e-12, 1e-12));
  });
}

using ::ember::testing::error_of;

TEST(DistributedDataParallel, DifferentModelsAreAnErrorOnEveryRank) {
  run_world(2, [](int rank, int) {
    EXPECT_EQ(error_of([&] {
                nn::Sequential m(nn::Linear(4, 3));
                if (rank == 1) m->push_back(nn::Linear(3, 1));
                DistributedDataParallel ddp(m);
              }),
              "DDP expects same model across all ranks, but Rank 1 has 4 params, while rank 0 "
              "has inconsistent 2 params.");
    EXPECT_EQ(error_of([&] {
                nn::Sequential m(nn::Linear(4, rank == 0 ? 3 : 2));
                DistributedDataParallel ddp(m);
              }),
              "DDP expects same model across all ranks, but parameter 0 (0.weight) has shape "
              "[2, 4] and dtype float32 on rank 1, while rank 0 has shape [3, 4] and dtype "
              "float32.");
  });
}

TEST(DistributedDataParallel, GradientAsBucketView) {
  run_world(2, [](int rank, int size) {
    ToyModel model = reference_model();
    DistributedDataParallel ddp(model,
                                DistributedDataParallelOptions().gradient_as_bucket_view(true));
    ToyModel ref = reference_model();
    for (int step = 0; step < 3; ++step) {
      manual_seed(60 + step);
      Tensor x = randn({2 * size, 10}, kDouble), y = randn({2 * size, 5}, kDouble);
      ddp->zero_grad();
      F::mse_loss(ddp(x.narrow(0, 2 * rank, 2)), y.narrow(0, 2 * rank, 2)).backward();
      ref->zero_grad();
      F::mse_loss(ref(x), y).backward();
      EXPECT_TRUE(same_values(grads(ddp->parameters()), grads(ref->parameters()), 1e-12));
      // The .grads lie back to back in their bucket, in bucket order.
      std::vector<Tensor> params = ddp->parameters();
      for (const auto& bucket : ddp->reducer().bucket_indices()) {
        for (size_t k = 1; k < bucket.size(); ++k) {
          const Tensor& prev = params[bucket[k - 1]].grad();
          EXPECT_EQ(static_cast<char*>(params[bucket[k]].grad().data_ptr()),
                    static_cast<char*>(prev.data_ptr()) + prev.nbytes());
        }
      }
    }
  });
}

// Each rank's own gradients of one step, and their average over ranks.
struct StepGrads {
  std::vector<std::vector<Tensor>> per_rank;
  std::vector<Tensor> mean;
};
StepGrads reference_grads(int size, const std::vector<Tensor>& x, const std::vector<Tensor>& y) {
  StepGrads out;
  for (int r = 0; r < size; ++r) {
    ToyModel m = reference_model();
    F::mse_loss(m(x[r]), y[r]).backward();
    out.per_rank.push_back(grads(m->parameters()));
  }
  for (size_t i = 0; i < out.per_rank[0].size(); ++i) {
    Tensor sum = out.per_rank[0][i].clone();
    for (int r = 1; r < size; ++r) sum += out.per_rank[r][i];
    out.mean.push_back(sum / size);
  }
  return out;
}

std::vector<Tensor> batches(int size, int64_t cols, uint64_t seed) {
  manual_seed(seed);
  std::vector<Tensor> out;
  for (int r = 0; r < size; ++r) out.push_back(randn({3, cols}, kDouble));
  return out;
}

TEST(DistributedDataParallel, Fp16CompressHook) {
  run_world(2, [](int rank, int size) {
    ToyModel model = reference_model();
    DistributedDataParallel ddp(model);
    ddp->register_comm_hook(nullptr, comm_hooks::fp16_compress_hook);
    auto x = batches(size, 10, 1), y = batches(size, 5, 2);
    F::mse_loss(ddp(x[rank]), y[rank]).backward();
    StepGrads ref = reference_grads(size, x, y);
    // Each rank's gradients cast to float16 and halved, summed in float16.
    std::vector<Tensor> got = grads(ddp->parameters());
    for (size_t i = 0; i < got.size(); ++i) {
      Tensor expected = (ref.per_rank[0][i].to(kHalf) / 2 + ref.per_rank[1][i].to(kHalf) / 2);
      EXPECT_TRUE(got[i].equal(expected.to(kDouble))) << i;
      EXPECT_TRUE(got[i].allclose(ref.mean[i], 2e-3, 1e-4)) << i;
    }
  });
}

TEST(DistributedDataParallel, CustomCommHookSeesLocalSumsInBucketOrder) {
  run_world(2, [](int rank, int size) {
    ToyModel model = reference_model();
    DistributedDataParallel ddp(model);
    std::vector<size_t> seen;
    std::vector<bool> last;
    // A hook that does not communicate: each rank keeps its own gradients,
    // which shows the reducer did not average them before the hook.
    ddp->register_comm_hook([&](GradBucket& bucket) {
      seen.push_back(bucket.index());
      last.push_back(bucket.is_last());
      EXPECT_EQ(bucket.gradients().size(), bucket.parameters().size());
      Tensor buffer = bucket.buffer();
      return BucketFuture(nullptr, [buffer] { return buffer; });
    });
    EXPECT_THROW(ddp->register_comm_hook(nullptr, comm_hooks::allreduce_hook), Error);
    auto x = batches(size, 10, 3), y = batches(size, 5, 4);
    F::mse_loss(ddp(x[rank]), y[rank]).backward();
    EXPECT_TRUE(same_values(grads(ddp->parameters()), reference_grads(size, x, y).per_rank[rank],
                            1e-12));
    EXPECT_EQ(seen, (std::vector<size_t>{0}));
    EXPECT_EQ(last, (std::vector<bool>{true}));
  });
}

TEST(DistributedDataParallel, AllreduceHookIsTheDefault) {
  run_world(3, [](int rank, int size) {
    ToyModel model = reference_model();
    DistributedDataParallel ddp(model);
    ddp->register_comm_hook(nullptr, comm_hooks::allreduce_hook);
    auto x = batches(size, 10, 5), y = batches(size, 5, 6);
    F::mse_loss(ddp(x[rank]), y[rank]).backward();
    EXPECT_TRUE(same_values(grads(ddp->parameters()), reference_grads(size, x, y).mean,
                            1e-12));
  });
}

// A rank that dies before backward: the survivor's backward fails with the
// all-reduce's error (naming the op and the peer) instead of hanging.
TEST(DistributedDataParallel, DeadPeerFailsBackward) {
  run_world(2, [](int rank, int) {
    ToyModel model = reference_model();
    DistributedDataParallel ddp(model);
    if (rank == 1) _exit(0);
    const auto start = std::chrono::steady_clock::now();
    const std::string what = error_of([&] { ddp(ones({2, 10}, kDouble)).sum().backward(); });
    EXPECT_NE(what.find("allreduce"), std::string::npos) << what;
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(15)) << what;
  });
}

TEST(DistributedDataParallel, StateDictKeysAndRepr) {
  run_world(1, [](int, int) {
    ToyModel model;
    DistributedDataParallel ddp(model);
    std::vector<std::string> keys;
    for (const auto& [k, v] : ddp->state_dict()) keys.push_back(k);
    EXPECT_EQ(keys, (std::vector<std::string>{"module.net1.weight", "module.net1.bias",
                                              "module.net2.weight", "module.net2.bias"}));
    EXPECT_EQ(ddp->repr(),
              "DistributedDataParallel(\n"
              "  (module): ToyModel(\n"
              "    (net1): Linear(in_features=10, out_features=10, bias=True)\n"
              "    (relu): ReLU()\n"
              "    (net2): Linear(in_features=10, out_features=5, bias=True)\n"
              "  )\n"
              ")");
    EXPECT_EQ(ddp->module().get(), model.get());
  });
}

TEST(DistributedDataParallel, NotInitializedIsAnError) {
  ToyModel model;
  EXPECT_THROW(DistributedDataParallel ddp(model), Error);
}

}  // namespace
}  // namespace ember::distributed
