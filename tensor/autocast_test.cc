// Autocast's per-thread state and guards (tensor/autocast.h), and the CUDA
// list's banned binary_cross_entropy on a fake CUDA device (no GPU needed:
// the ban fires before any kernel runs). The op lists themselves are
// checked in nn/functional/autocast_test.cc.
#include "tensor/autocast.h"

#include <string>
#include <thread>

#include "gtest/gtest.h"
#include "tensor/creation.h"
#include "tensor/nn_ops.h"
#include "tensor/testing/fake_cuda.h"

namespace ember {
namespace {

using autocast::AutocastGuard;

TEST(AutocastState, PyTorchDefaults) {
  EXPECT_FALSE(autocast::is_autocast_enabled());
  EXPECT_FALSE(autocast::is_autocast_cpu_enabled());
  EXPECT_EQ(autocast::get_autocast_gpu_dtype(), kHalf);
  EXPECT_EQ(autocast::get_autocast_cpu_dtype(), kBFloat16);
  EXPECT_TRUE(autocast::is_autocast_cache_enabled());
  {
    AutocastGuard cuda(kCUDA);
    EXPECT_TRUE(autocast::is_autocast_enabled());
    EXPECT_FALSE(autocast::is_autocast_cpu_enabled());
    EXPECT_EQ(autocast::get_autocast_gpu_dtype(), kHalf);
    AutocastGuard cpu(kCPU);
    EXPECT_TRUE(autocast::is_autocast_cpu_enabled());
    EXPECT_EQ(autocast::get_autocast_cpu_dtype(), kBFloat16);
  }
  EXPECT_FALSE(autocast::is_autocast_enabled());
  EXPECT_FALSE(autocast::is_autocast_cpu_enabled());
}

TEST(AutocastState, NestedGuardsRestore) {
  AutocastGuard a(kCUDA, kBFloat16);
  EXPECT_EQ(autocast::get_autocast_gpu_dtype(), kBFloat16);
  {
    AutocastGuard b(kCUDA, kHalf, /*enabled=*/false);
    EXPECT_FALSE(autocast::is_autocast_enabled());
    EXPECT_EQ(autocast::get_autocast_gpu_dtype(), kHalf);
    {
      AutocastGuard c(kCUDA, /*enabled=*/true);
      EXPECT_TRUE(autocast::is_autocast_enabled());
      EXPECT_EQ(autocast::get_autocast_gpu_dtype(), kHalf);
    }
    EXPECT_FALSE(autocast::is_autocast_enabled());
  }
  EXPECT_TRUE(autocast::is_autocast_enabled());
  EXPECT_EQ(autocast::get_autocast_gpu_dtype(), kBFloat16);
}

TEST(AutocastState, Setters) {
  autocast::set_autocast_cpu_enabled(true);
  autocast::set_autocast_cpu_dtype(kHalf);
  EXPECT_TRUE(autocast::is_autocast_cpu_enabled());
  EXPECT_EQ(autocast::get_autocast_dtype(kCPU), kHalf);
  autocast::set_autocast_enabled(true);
  EXPECT_TRUE(autocast::is_autocast_enabled(kCUDA));
  autocast::set_autocast_enabled(false);
  autocast::set_autocast_cpu_enabled(false);
  autocast::set_autocast_cpu_dtype(kBFloat16);
  EXPECT_FALSE(autocast::is_autocast_enabled(kCPU));
  EXPECT_EQ(autocast::increment_nesting(), 1);
  EXPECT_EQ(autocast::decrement_nesting(), 0);
}

// PyTorch warns and runs the region without autocast.
TEST(AutocastState, UnsupportedDtypeDisables) {
  AutocastGuard guard(kCPU, kDouble);
  EXPECT_FALSE(autocast::is_autocast_cpu_enabled());
}

TEST(AutocastState, PerThread) {
  AutocastGuard guard(kCPU);
  bool other = true;
  std::thread([&] { other = autocast::is_autocast_cpu_enabled(); }).join();
  EXPECT_FALSE(other);
  EXPECT_TRUE(autocast::is_autocast_cpu_enabled());
}

TEST(AutocastState, ExcludeGuard) {
  AutocastGuard guard(kCPU);
  {
    autocast::ExcludeAutocastGuard exclude;
    EXPECT_FALSE(autocast::is_autocast_cpu_enabled());
  }
  EXPECT_TRUE(autocast::is_autocast_cpu_enabled());
}

// PyTorch's is_eligible / cached_cast: floating, not float64, on the
// autocast device type.
TEST(AutocastCast, Eligibility) {
  Tensor f = ones({2}, kFloat), d = ones({2}, kDouble), i = ones({2}, kLong);
  EXPECT_EQ(autocast::detail::cached_cast(kBFloat16, f, kCPU).dtype(), kBFloat16);
  EXPECT_TRUE(autocast::detail::cached_cast(kBFloat16, d, kCPU).is_same(d));
  EXPECT_TRUE(autocast::detail::cached_cast(kBFloat16, i, kCPU).is_same(i));
  EXPECT_TRUE(autocast::detail::cached_cast(kHalf, f, kCUDA).is_same(f));  // a CPU tensor
  EXPECT_TRUE(autocast::detail::cached_cast(kFloat, f, kCPU).is_same(f));
}

TEST(AutocastCast, Prioritize) {
  Tensor f = ones({2}, kFloat), b = ones({2}, kBFloat16), d = ones({2}, kDouble),
         h = ones({2}, kHalf);
  using autocast::detail::prioritize;
  EXPECT_EQ(prioritize(kBFloat16, b, kCPU), kBFloat16);
  EXPECT_EQ(prioritize(kBFloat16, f, kCPU), kFloat);
  EXPECT_EQ(prioritize(kFloat, b, kCPU), kFloat);
  EXPECT_EQ(prioritize(kBFloat16, d, kCPU), kBFloat16);  // float64 is ignored
  EXPECT_THROW(prioritize(kBFloat16, h, kCPU), Error);
}

TEST(AutocastBanned, BinaryCrossEntropyOnAFakeCudaDevice) {
  testing::FakeCudaBackend backend;
  Tensor x = full({2, 2}, 0.5, kFloat).to(kCUDA), y = full({2, 2}, 0.5, kFloat).to(kCUDA);
  AutocastGuard guard(kCUDA);
  try {
    binary_cross_entropy(x, y, Tensor(), loss_reduction::kMean);
    FAIL() << "did not throw";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to "
              "autocast.\n"
              "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
              "In this case, combine the two layers using "
              "torch.nn.functional.binary_cross_entropy_with_logits\n"
              "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and "
              "BCEWithLogits are\n"
              "safe to autocast.");
  }
}

}  // namespace
}  // namespace ember
