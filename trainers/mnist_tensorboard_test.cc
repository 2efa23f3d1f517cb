// //trainers:mnist --logdir: the binary trains on a few batches and its event
// files, read back by //tensorboard:testing, hold what it printed; under
// --nproc=2 only rank 0 writes.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "tensorboard/testing/event_reader.h"

namespace ember {
namespace trainers {
namespace {

namespace fs = std::filesystem;
namespace tb = tensorboard::testing;

struct ProgramRun {
  int exit_code = -1;
  std::string out;  // stdout and stderr
};

ProgramRun run_mnist(const std::string& args) {
  const std::string command = "trainers/mnist --train_limit=320 --test_limit=128 --epochs=2 "
                              "--batch_size=32 --num_workers=0 --threads=1 --progress=false " +
                              args + " 2>&1";
  ProgramRun run;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return run;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) run.out.append(buf, n);
  const int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

std::string temp_dir(const std::string& name) {
  const std::string dir =
      ::testing::TempDir() + "/mnist_tensorboard_test-" + std::to_string(::getpid()) + "-" + name;
  fs::remove_all(dir);
  return dir;
}

// tag -> (step, value) of every scalar, in file order.
std::map<std::string, std::vector<std::pair<int64_t, float>>> scalars(
    const std::vector<tb::Event>& events) {
  std::map<std::string, std::vector<std::pair<int64_t, float>>> out;
  for (const tb::Event& e : events) {
    if (!e.summary) continue;
    for (const tb::Value& v : *e.summary) {
      if (v.simple_value) out[v.tag].emplace_back(e.step, *v.simple_value);
    }
  }
  return out;
}

// The accuracies the trainer printed ("Accuracy: 61.72%").
std::vector<double> printed_accuracies(const std::string& out) {
  std::vector<double> acc;
  const std::regex line(R"(Accuracy: ([0-9.]+)%)");
  for (auto it = std::sregex_iterator(out.begin(), out.end(), line); it != std::sregex_iterator();
       ++it) {
    acc.push_back(std::stod((*it)[1]));
  }
  return acc;
}

TEST(MnistTensorboardTest, LogsLossAccuracyLearningRateAndImages) {
  const std::string dir = temp_dir("single");
  const ProgramRun run = run_mnist("--logdir=" + dir + " --log_interval=4 --lr=0.02");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  const auto files = tb::event_files(dir);
  ASSERT_EQ(files.size(), 1u);
  const auto events = tb::read_events(files[0]);
  const auto s = scalars(events);

  // 320 images in batches of 32: steps 0..9 and 10..19.
  std::vector<int64_t> loss_steps;
  for (const auto& [step, value] : s.at("train/loss")) {
    loss_steps.push_back(step);
    EXPECT_GT(value, 0);
    EXPECT_LT(value, 5);
  }
  EXPECT_EQ(loss_steps, (std::vector<int64_t>{0, 4, 8, 12, 16}));
  const auto& lr = s.at("train/lr");
  ASSERT_EQ(lr.size(), 2u);
  EXPECT_EQ(lr[0], std::make_pair(int64_t{10}, 0.02f));
  EXPECT_EQ(lr[1], std::make_pair(int64_t{20}, 0.02f));
  ASSERT_EQ(s.at("test/loss").size(), 2u);
  const auto& acc = s.at("test/accuracy");
  const std::vector<double> printed = printed_accuracies(run.out);
  ASSERT_EQ(acc.size(), 2u);
  ASSERT_EQ(printed.size(), 2u) << run.out;
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(acc[i].first, 10 * (i + 1));
    EXPECT_NEAR(acc[i].second, printed[i], 0.006);  // printed with 2 decimals
  }

  // One grid of the first 16 images (8 x 2 of 28 x 28), gray as RGB.
  int images = 0;
  for (const tb::Event& e : events) {
    if (!e.summary || !e.summary->at(0).image) continue;
    ++images;
    const tb::Value& v = e.summary->at(0);
    EXPECT_EQ(v.tag, "train/images");
    EXPECT_EQ(e.step, 0);
    EXPECT_EQ(v.image->height, 56);
    EXPECT_EQ(v.image->width, 224);
    EXPECT_EQ(v.image->colorspace, 3);
    const tb::DecodedPng png = tb::decode_png(v.image->encoded);
    ASSERT_EQ(png.pixels.size(), 56u * 224 * 3);
    int64_t lit = 0;
    for (size_t p = 0; p < png.pixels.size(); p += 3) {
      EXPECT_EQ(png.pixels[p], png.pixels[p + 1]);
      EXPECT_EQ(png.pixels[p], png.pixels[p + 2]);
      lit += png.pixels[p] > 128;
    }
    // Un-normalized Fashion-MNIST: mostly black background, some bright.
    EXPECT_GT(lit, 56 * 224 / 20);
    EXPECT_LT(lit, 56 * 224 / 2);
  }
  EXPECT_EQ(images, 1);
  fs::remove_all(dir);
}

TEST(MnistTensorboardTest, OnlyRankZeroWritesUnderDataParallel) {
  const std::string dir = temp_dir("ddp");
  const ProgramRun run = run_mnist("--nproc=2 --logdir=" + dir);
  ASSERT_EQ(run.exit_code, 0) << run.out;
  EXPECT_TRUE(tb::subdirectories(dir).empty());
  const auto files = tb::event_files(dir);
  ASSERT_EQ(files.size(), 1u);
  // Two ranks of 160 images: 5 steps an epoch.
  const auto s = scalars(tb::read_events(files[0]));
  ASSERT_EQ(s.at("test/accuracy").size(), 2u);
  EXPECT_EQ(s.at("test/accuracy")[1].first, 10);
  EXPECT_EQ(s.at("train/loss").size(), 1u);  // step 0 (the interval is 10)
  fs::remove_all(dir);
}

TEST(MnistTensorboardTest, UnusableLogdirFailsBeforeTraining) {
  const std::string file = temp_dir("file");
  std::ofstream(file) << "x";
  const ProgramRun run = run_mnist("--logdir=" + file + "/runs");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.out.find("cannot create log_dir '" + file + "/runs'"), std::string::npos)
      << run.out;
  EXPECT_EQ(run.out.find("Train Epoch"), std::string::npos) << run.out;
  fs::remove(file);
}

}  // namespace
}  // namespace trainers
}  // namespace ember
