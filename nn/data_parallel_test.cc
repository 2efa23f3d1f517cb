// DataParallel over two CPU "devices" (two replicas on two threads): the
// same outputs and gradients as the module on the whole batch, PyTorch's
// buffer rule, and its corner cases.

#include "nn/data_parallel.h"

#include <gtest/gtest.h>

#include <string>
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

}  // namespace
}  // namespace nn
}  // namespace ember
