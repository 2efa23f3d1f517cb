// Seed 003's Horovod program (examples/horovod_mnist.cc) with two ranks
// under ember's launcher, where horovodrun would start it: rank 0 reports
// every epoch and the loss falls.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "distributed/testing/multiprocess.h"

namespace {

TEST(HorovodMnistTest, TwoRanksUnderTheLauncherLearn) {
  std::ifstream probe("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz");
  if (!probe.good()) GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  const auto run = ember::distributed::testing::run_program(
      {"distributed/launch", "--nproc_per_node=2", "--master_port=0", "examples/horovod_mnist",
       "--train_limit=1024", "--epochs=3", "--batch_size=32"},
      std::chrono::seconds(120));
  const std::string& out = run.out;
  const int status = run.status;
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
  std::vector<double> losses;
  std::regex line(R"(\[rank0\]: Epoch \d: mean training loss ([0-9.]+))");
  for (std::sregex_iterator it(out.begin(), out.end(), line), end; it != end; ++it) {
    losses.push_back(std::stod((*it)[1]));
  }
  ASSERT_EQ(losses.size(), 3u) << out;
  EXPECT_LT(losses[2], losses[0]) << out;
  EXPECT_LT(losses[2], 1.5) << out;  // chance is ln(10) = 2.30
  EXPECT_EQ(out.find("[rank1]: Epoch"), std::string::npos) << out;
}

}  // namespace
