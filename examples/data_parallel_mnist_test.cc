// Seed 000's DataParallel program (examples/data_parallel_mnist.cc) over two
// CPU "devices": the loss falls, and every step's loss is the one the same
// program prints for the module alone (--devices=cpu), within float32's
// rounding.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "distributed/testing/multiprocess.h"

namespace {

constexpr int kSteps = 30;

// The losses the program prints with `devices`.
std::vector<double> losses(const std::string& devices, std::string* out) {
  const auto run = ember::distributed::testing::run_program(
      {"examples/data_parallel_mnist", "--devices=" + devices, "--steps=" + std::to_string(kSteps)},
      std::chrono::seconds(120));
  *out = run.out;
  EXPECT_TRUE(WIFEXITED(run.status) && WEXITSTATUS(run.status) == 0) << run.out;
  std::vector<double> found;
  std::regex line(R"(step \d+: loss ([0-9.]+))");
  for (std::sregex_iterator it(out->begin(), out->end(), line), end; it != end; ++it) {
    found.push_back(std::stod((*it)[1]));
  }
  return found;
}

TEST(DataParallelMnistTest, TwoCpuReplicasLearnLikeTheModuleAlone) {
  std::ifstream probe("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz");
  if (!probe.good()) GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  std::string dp_out, alone_out;
  const std::vector<double> dp = losses("cpu,cpu", &dp_out);
  const std::vector<double> alone = losses("cpu", &alone_out);
  EXPECT_NE(dp_out.find("DataParallel over cpu, cpu\n"), std::string::npos) << dp_out;
  EXPECT_NE(alone_out.find("DataParallel over cpu (the module alone)\n"), std::string::npos)
      << alone_out;
  ASSERT_EQ(dp.size(), static_cast<size_t>(kSteps)) << dp_out;
  ASSERT_EQ(alone.size(), static_cast<size_t>(kSteps)) << alone_out;
  for (int i = 0; i < kSteps; ++i) {
    // float32: the two half-batch gradients are summed in another order
    // (and their GEMMs have other shapes), and the difference that makes
    // grows along the trajectory: 1e-5 for the first 20 steps; the last
    // ten (losses near 1) reached 1e-4 when conv1's weight gradient moved
    // from OpenBLAS to oneDNN (Note [GEMM backends]).
    const double tol = i < 20 ? 1e-5 : 5e-4;
    EXPECT_NEAR(dp[i], alone[i], tol) << "step " << i + 1 << "\n" << dp_out << alone_out;
  }
  const double last = (dp[kSteps - 1] + dp[kSteps - 2] + dp[kSteps - 3]) / 3;
  EXPECT_LT(last, dp[0] - 0.5) << dp_out;  // from about ln(10) = 2.30
}

}  // namespace
