// pytorch/examples' C++ programs, ported by tools/libtorch_port.py alone,
// run as a user runs them: each compiles (the build is half of this test),
// and each learns: its own printed losses fall.

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "distributed/testing/multiprocess.h"

namespace {

using ember::distributed::testing::make_temp_dir;
using ember::distributed::testing::ProgramOptions;
using ember::distributed::testing::ProgramRun;
using ember::distributed::testing::remove_tree;
using ember::distributed::testing::run_program;

constexpr const char* kFashionMnist = "/usr/share/datasets/fashion-mnist";

// The command that runs a program. Programs that print with printf to a
// file buffer 4 KiB before anything shows; under stdbuf their output
// arrives as printed, so a test can stop them once it has seen enough.
std::vector<std::string> command(const std::string& name) {
  return {"/usr/bin/stdbuf", "-o0",
          std::string(std::getenv("TEST_SRCDIR")) + "/" + std::getenv("TEST_WORKSPACE") +
              "/examples/libtorch/" + name + "/" + name};
}

// Every number that follows `label` in `out`.
std::vector<double> values_after(const std::string& out, const std::string& label) {
  std::vector<double> v;
  const std::regex re(label + R"(\s*([-+0-9.eE]+))");
  for (auto it = std::sregex_iterator(out.begin(), out.end(), re); it != std::sregex_iterator();
       ++it) {
    v.push_back(std::stod((*it)[1]));
  }
  return v;
}

double mean(const std::vector<double>& v, size_t begin, size_t end) {
  double s = 0;
  for (size_t i = begin; i < end; ++i) s += v[i];
  return s / static_cast<double>(end - begin);
}

// A scratch directory whose ./data holds Fashion-MNIST, where the MNIST
// programs look for it (kDataRoot = "./data").
class InDataDir : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ifstream probe(std::string(kFashionMnist) + "/train-images-idx3-ubyte.gz");
    ASSERT_TRUE(probe.good()) << "dataset-fashion-mnist (installed by ./bazelw) is missing";
    dir_ = make_temp_dir();
    ASSERT_EQ(symlink(kFashionMnist, (dir_ + "/data").c_str()), 0);
  }
  void TearDown() override { remove_tree(dir_); }
  std::string dir_;
};

TEST(LibtorchExamplesTest, RegressionFitsThePolynomial) {
  const ProgramRun run = run_program(command("regression"), std::chrono::seconds(120));
  ASSERT_EQ(run.status, 0) << run.out;
  const std::vector<double> loss = values_after(run.out, "Loss:");
  ASSERT_EQ(loss.size(), 1u) << run.out;
  EXPECT_LT(loss[0], 1e-3) << run.out;
  EXPECT_NE(run.out.find("==> Learned function:\ty = "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("==> Actual function:\ty = "), std::string::npos) << run.out;
}

TEST(LibtorchExamplesTest, AutogradPrintsLibtorchsGradients) {
  const ProgramRun run = run_program(command("autograd"), std::chrono::seconds(120));
  ASSERT_EQ(run.status, 0) << run.out;
  // d(mean(3 (x + 2)^2))/dx at x = 1: 4.5 everywhere.
  EXPECT_NE(run.out.find("tensor([[4.5000, 4.5000],\n        [4.5000, 4.5000]])"),
            std::string::npos)
      << run.out;
  // The graph's node names, as Python prints them (libtorch's C++ prints
  // AddBackward1 and MulBackward1 for its tensor-scalar overloads; ember
  // keeps one set of names, Python's: README's libtorch section).
  for (const char* name : {"AddBackward0", "MulBackward0", "MeanBackward0", "SumBackward0"}) {
    EXPECT_NE(run.out.find(std::string(name) + "\n"), std::string::npos) << name << "\n" << run.out;
  }
  // The vector-Jacobian product: v * 2^k for the k doublings of x.
  EXPECT_NE(run.out.find("tensor([1.0240e+02, 1.0240e+03, 1.0240e-01])"), std::string::npos)
      << run.out;
  // MulConstant's gradient: 5.5 for each of x's two elements.
  EXPECT_NE(run.out.find("tensor([5.5000, 5.5000])"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("Computing higher-order gradients in C++"), std::string::npos);
}

TEST_F(InDataDir, MnistLossFalls) {
  ProgramOptions o;
  o.cwd = dir_;
  // Forty progress reports (400 batches of the first epoch) are enough.
  o.enough = [](const std::string& out) { return values_after(out, "Loss:").size() >= 40; };
  const ProgramRun run = run_program(command("mnist"), std::chrono::seconds(600), o);
  ASSERT_TRUE(run.stopped) << run.out;
  EXPECT_NE(run.out.find("Training on CPU."), std::string::npos) << run.out;
  const std::vector<double> loss = values_after(run.out, "Loss:");
  ASSERT_GE(loss.size(), 40u);
  EXPECT_NEAR(loss[0], 2.3, 0.2);  // log(10): an untrained classifier
  EXPECT_LT(mean(loss, 30, 40), 0.6 * mean(loss, 0, 3)) << run.out;
}

TEST_F(InDataDir, DcganDiscriminatorLearns) {
  ProgramOptions o;
  o.cwd = dir_;
  // Three reports: 30 batches (about a second each on two cores).
  o.enough = [](const std::string& out) { return values_after(out, "G_loss:").size() >= 3; };
  const ProgramRun run = run_program(command("dcgan"), std::chrono::seconds(600), o);
  ASSERT_TRUE(run.stopped) << run.out;
  const std::vector<double> d = values_after(run.out, "D_loss:");
  const std::vector<double> g = values_after(run.out, "G_loss:");
  ASSERT_GE(d.size(), 3u);
  ASSERT_GE(g.size(), 3u);
  // The discriminator's loss (real plus fake binary cross-entropy) starts
  // at chance, 2 log 2 = 1.39, and is far below it within ten batches; the
  // generator's is finite and above chance's log 2, as it is losing.
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_LT(d[i], 1.0) << run.out;
    EXPECT_GT(g[i], std::log(2.0)) << run.out;
    EXPECT_TRUE(std::isfinite(g[i])) << run.out;
  }
}

}  // namespace
