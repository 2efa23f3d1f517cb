// pytorch/examples' C++ programs, ported by tools/libtorch_port.py alone,
// run as a user runs them: each compiles (the build is half of this test),
// and each learns: its own printed losses fall.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "distributed/testing/multiprocess.h"
#include "tensorboard/summary.h"

namespace {

using ember::distributed::testing::free_port;
using ember::distributed::testing::make_temp_dir;
using ember::distributed::testing::read_file;
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

// custom-dataset's own layout, as for Caltech-101: ./info.txt lists
// "class/image_NNNN.ext label train|test" and the images are under
// ./dataset/. Three classes (labels 0-2 of the program's 102) told apart by
// their colour, 8 training and 2 test images each, of assorted sizes (the
// program resizes them to 224x224), half PNG and half binary PPM: ten epochs
// of its AlexNet take seconds.
class InImageDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = make_temp_dir();
    ASSERT_EQ(mkdir((dir_ + "/dataset").c_str(), 0755), 0);
    std::ofstream info(dir_ + "/info.txt");
    const char* names[] = {"red", "green", "blue"};
    uint32_t seed = 1;
    // A linear congruential generator: the same images on every run.
    auto next = [&seed](uint32_t n) {
      seed = seed * 1664525u + 1013904223u;
      return (seed >> 8) % n;
    };
    for (int label = 0; label < 3; ++label) {
      ASSERT_EQ(mkdir((dir_ + "/dataset/" + names[label]).c_str(), 0755), 0);
      for (int i = 0; i < 10; ++i) {
        ember::tensorboard::Image image;
        image.height = 40 + static_cast<int64_t>(next(60));
        image.width = 40 + static_cast<int64_t>(next(60));
        image.channels = 3;
        for (int64_t p = 0; p < image.height * image.width; ++p) {
          for (int c = 0; c < 3; ++c) {
            image.pixels.push_back(static_cast<uint8_t>((c == label ? 170 : 20) + next(60)));
          }
        }
        char file[32];
        std::snprintf(file, sizeof file, "image_%04d.%s", i + 1, i % 2 ? "ppm" : "png");
        const std::string name = std::string(names[label]) + "/" + file;
        std::ofstream f(dir_ + "/dataset/" + name, std::ios::binary);
        if (i % 2) {
          f << "P6\n" << image.width << " " << image.height << "\n255\n";
          f.write(reinterpret_cast<const char*>(image.pixels.data()),
                  static_cast<std::streamsize>(image.pixels.size()));
        } else {
          f << ember::tensorboard::encode_png(image);
        }
        ASSERT_TRUE(f.good()) << name;
        // The last line has no newline: the program reads until eof and
        // would take a trailing empty line as a record.
        info << (label + i ? "\n" : "") << name << " " << label << " "
             << (i < 8 ? "train" : "test");
      }
    }
    ASSERT_TRUE(info.good());
  }
  void TearDown() override { remove_tree(dir_); }
  std::string dir_;
};

// OpenCV reads the images (cv::imread, cv::resize, cv::split), a CRTP
// Dataset<CustomDataset> with non-const get() serves them through
// map(Stack<>) and make_data_loader<SequentialSampler>, and the Sequential
// of Functional(max_pool2d, 3, stride, 0, 1, false) and
// Functional(reshape, ExpandingArray) layers learns the three classes.
TEST_F(InImageDir, CustomDatasetLearnsFromImagesReadWithOpenCV) {
#ifndef EMBER_HAVE_OPENCV
  GTEST_SKIP() << "OpenCV's development packages are not installed (./bazelw installs "
                  "libopencv-core-dev, libopencv-imgproc-dev and libopencv-imgcodecs-dev)";
#endif
  ProgramOptions o;
  o.cwd = dir_;
  const ProgramRun run = run_program(command("custom-dataset"), std::chrono::seconds(600), o);
  ASSERT_EQ(run.status, 0) << run.out;
  EXPECT_NE(run.out.find("Running on: "), std::string::npos) << run.out;
  // Each epoch (ten) prints the first batch's running figures and the test
  // set's: "Test Loss: <sum of batch means / 6>\tAcc: <fraction right>".
  EXPECT_EQ(values_after(run.out, "Train Epoch: \\d+ \\d+/24\\s+Loss:").size(), 10u) << run.out;
  const std::vector<double> loss = values_after(run.out, "Test Loss:");
  const std::vector<double> acc = values_after(run.out, "Test Loss: [-+0-9.eE]+\\s+Acc:");
  ASSERT_EQ(loss.size(), 10u) << run.out;
  ASSERT_EQ(acc.size(), 10u) << run.out;
  for (double l : loss) EXPECT_TRUE(std::isfinite(l)) << run.out;
  EXPECT_LT(loss[9], 0.25 * loss[0]) << run.out;
  EXPECT_GE(acc[9], 5.0 / 6.0) << run.out;
}

// The first n items of a gzipped IDX file of Fashion-MNIST, written
// uncompressed with its count set to n (the MNIST readers take either).
void write_idx_subset(const std::string& gz, const std::string& out, int64_t n,
                      size_t header_bytes, size_t item_bytes) {
  FILE* p = popen(("gzip -dc '" + gz + "'").c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string bytes;
  char buf[1 << 16];
  for (size_t got; (got = fread(buf, 1, sizeof buf, p)) > 0;) bytes.append(buf, got);
  ASSERT_EQ(pclose(p), 0) << gz;
  ASSERT_GE(bytes.size(), header_bytes + n * item_bytes) << gz;
  for (int i = 0; i < 4; ++i) bytes[4 + i] = static_cast<char>((n >> (8 * (3 - i))) & 0xff);
  std::ofstream f(out, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(header_bytes + n * item_bytes));
  ASSERT_TRUE(f.good()) << out;
}

// dist-mnist reads "../data": a scratch directory with data/ (6400 training
// and 1000 test images of Fashion-MNIST, so ten epochs take seconds) and
// run/, where the program runs.
class InSmallDataDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = make_temp_dir();
    ASSERT_EQ(mkdir((dir_ + "/data").c_str(), 0755), 0);
    ASSERT_EQ(mkdir((dir_ + "/run").c_str(), 0755), 0);
    const std::string src = std::string(kFashionMnist) + "/";
    const std::string dst = dir_ + "/data/";
    for (const auto& [set, n] : {std::pair<std::string, int64_t>{"train", 6400}, {"t10k", 1000}}) {
      write_idx_subset(src + set + "-images-idx3-ubyte.gz", dst + set + "-images-idx3-ubyte", n,
                       16, 28 * 28);
      write_idx_subset(src + set + "-labels-idx1-ubyte.gz", dst + set + "-labels-idx1-ubyte", n, 8,
                       1);
    }
  }
  void TearDown() override { remove_tree(dir_); }

  // Runs dist-mnist once per rank, all at once, each with `env` plus its
  // rank's variables; returns each rank's output.
  std::vector<std::string> run_ranks(int world, const std::string& env,
                                     const std::string& rank_var, const std::string& size_var,
                                     int* status) {
    const std::vector<std::string> prog = command("dist-mnist");
    std::string script = "cd run || exit 1; ";
    for (int r = 0; r < world; ++r) {
      script += env + " " + rank_var + "=" + std::to_string(r) + " " + size_var + "=" +
                std::to_string(world) + " " + prog[2] + " > rank" + std::to_string(r) +
                ".log 2>&1 & p" + std::to_string(r) + "=$!; ";
    }
    script += "s=0; ";
    for (int r = 0; r < world; ++r) script += "wait $p" + std::to_string(r) + " || s=1; ";
    script += "exit $s";
    ProgramOptions o;
    o.cwd = dir_;
    const ProgramRun run = run_program({"/bin/sh", "-c", script}, std::chrono::seconds(240), o);
    *status = run.status;
    std::vector<std::string> outs;
    for (int r = 0; r < world; ++r) {
      outs.push_back(read_file(dir_ + "/run/rank" + std::to_string(r) + ".log"));
    }
    return outs;
  }
  std::string dir_;
};

// pytorch/examples' dist-mnist as mpirun starts it (Open MPI's rank
// variables, MASTER_ADDR/MASTER_PORT exported): c10d::ProcessGroupMPI is
// ember's gloo group; gradients are all-reduced by hand each step, both
// ranks learn, and rank 0 tests.
TEST_F(InSmallDataDir, DistMnistTrainsOnTwoRanksStartedAsMpirunStartsThem) {
  int status = -1;
  const std::string env =
      "MASTER_ADDR=127.0.0.1 MASTER_PORT=" + std::to_string(free_port()) + " GLOO_SOCKET_IFNAME=lo";
  const std::vector<std::string> out =
      run_ranks(2, env, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", &status);
  ASSERT_EQ(status, 0) << out[0] << "\n----\n" << out[1];
  for (int r = 0; r < 2; ++r) {
    const std::vector<double> acc =
        values_after(out[r], "Accuracy in rank " + std::to_string(r) + " in epoch \\d+ -");
    ASSERT_EQ(acc.size(), 10u) << out[r];
    EXPECT_GT(acc[9], acc[0]) << out[r];
    EXPECT_GT(acc[9], 50.0) << out[r];  // chance is 10%
  }
  const std::vector<double> test = values_after(out[0], "Test Accuracy -");
  ASSERT_EQ(test.size(), 1u) << out[0];
  EXPECT_GT(test[0], 50.0) << out[0];
  EXPECT_EQ(out[1].find("Test Accuracy"), std::string::npos) << out[1];
}

// Without MASTER_ADDR the ranks cannot meet: a clear error, not a hang.
TEST_F(InSmallDataDir, DistMnistSaysWhatMpirunMustExport) {
  int status = -1;
  const std::vector<std::string> out =
      run_ranks(2, "env -u MASTER_ADDR -u MASTER_PORT", "PMI_RANK", "PMI_SIZE", &status);
  EXPECT_NE(status, 0);
  for (const std::string& o : out) {
    EXPECT_NE(o.find("needs MASTER_ADDR and MASTER_PORT"), std::string::npos) << o;
  }
}

}  // namespace
