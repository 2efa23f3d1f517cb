// The MNIST trainer on a few hundred Fashion-MNIST images: the seed's
// network, learning, and checkpoints that resume exactly.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "serialize/checkpoint.h"
#include "tensor/all.h"
#include "trainers/mnist_net.h"
#include "trainers/mnist_train.h"

namespace ember {
namespace trainers {
namespace {

MnistConfig small() {
  MnistConfig c;
  c.train_limit = 1024;
  c.test_limit = 512;
  c.num_workers = 0;
  // One compute thread: with two, the same step repeated in one process can
  // differ in the last bits of conv2's weight gradient (not reproduced with
  // the convolution alone; open), which would defeat the bit-exact resume
  // check below.
  c.threads = 1;
  return c;
}

std::string temp_dir() {
  std::string t = ::testing::TempDir() + "mnist_XXXXXX";
  EXPECT_NE(mkdtemp(t.data()), nullptr);
  return t;
}

TEST(MnistNetTest, PrintsAsTheSeed) {
  std::ostringstream s;
  s << *Net();
  EXPECT_EQ(s.str(),
            "Net(\n"
            "  (conv1): Conv2d(1, 20, kernel_size=(5, 5), stride=(1, 1))\n"
            "  (conv2): Conv2d(20, 50, kernel_size=(5, 5), stride=(1, 1))\n"
            "  (fc1): Linear(in_features=800, out_features=500, bias=True)\n"
            "  (fc2): Linear(in_features=500, out_features=10, bias=True)\n"
            ")");
}

TEST(MnistNetTest, MapsImagesToTenLogits) {
  Net net;
  EXPECT_EQ(net->forward(randn({3, 1, 28, 28})).sizes(), IntArrayRef({3, 10}));
}

TEST(MnistTrainTest, LearnsAndPrintsTheSeedsLines) {
  MnistConfig c = small();
  c.epochs = 2;
  std::ostringstream out;
  auto results = train_mnist(c, out);
  ASSERT_EQ(results.size(), 2u);
  // 32 steps of SGD with momentum are far above chance (10%) on Fashion-MNIST.
  EXPECT_GT(results[1].accuracy, 50.0) << out.str();
  EXPECT_LT(results[1].test_loss, results[0].test_loss + 1e-3) << out.str();
  EXPECT_NE(out.str().find("Train Epoch: 1 \tLoss: "), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("Test set: Average loss: "), std::string::npos) << out.str();
}

// --profile_steps: the first steps are profiled, and the table and the
// trace show the net's ops, the backward nodes and the optimizer.
TEST(MnistTrainTest, ProfilesTheFirstSteps) {
  MnistConfig c = small();
  c.epochs = 1;
  c.train_limit = 256;
  c.test_limit = 64;
  c.profile_steps = 3;
  c.profile_trace = temp_dir() + "/trace.json";
  std::ostringstream out;
  train_mnist(c, out);
  const std::string s = out.str();
  // The table's 20 rows are the ops with most self time, which vary.
  EXPECT_NE(s.find("# of Calls"), std::string::npos) << s;
  EXPECT_NE(s.find("Self CPU time total: "), std::string::npos) << s;
  std::ifstream trace(c.profile_trace);
  std::stringstream json;
  json << trace.rdbuf();
  for (const char* name : {"aten::convolution", "ConvolutionBackward0", "Optimizer.step#SGD.step",
                           "ProfilerStep#0", "ProfilerStep#2"}) {
    EXPECT_NE(json.str().find(std::string("\"name\": \"") + name + "\""), std::string::npos)
        << name;
  }
  EXPECT_EQ(json.str().find("ProfilerStep#3"), std::string::npos);
  c.profile_steps = -1;
  EXPECT_THROW(train_mnist(c, out), ValueError);
}

// --amp: autocast to bfloat16, or float16 with a GradScaler, learns as
// float32 does (issue 18 asks within 0.5 points after 5 full epochs;
// BENCHMARKS.md has that run, this is the small one).
TEST(MnistTrainTest, MixedPrecisionLearnsAsFloat32Does) {
  MnistConfig c = small();
  c.epochs = 2;
  std::ostringstream out;
  const double fp32 = train_mnist(c, out).back().accuracy;
  for (const char* amp : {"bf16", "fp16"}) {
    c.amp = amp;
    const std::vector<EpochResult> r = train_mnist(c, out);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_TRUE(std::isfinite(r.back().train_loss)) << amp;
    EXPECT_GT(r.back().accuracy, 50.0) << amp;
    EXPECT_NEAR(r.back().accuracy, fp32, 5.0) << amp;
  }
  c.amp = "fp8";
  try {
    train_mnist(c, out);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("amp must be bf16, fp16 or empty"), std::string::npos);
  }
}

TEST(MnistTrainTest, ResumedRunMatchesTheUninterruptedOne) {
  const std::string dir = temp_dir();
  MnistConfig c = small();
  c.epochs = 2;
  c.checkpoint_dir = dir;
  std::ostringstream full_out;
  auto full = train_mnist(c, full_out);
  ASSERT_EQ(full.size(), 2u);

  Checkpoint ckpt = Checkpoint::load(dir + "/epoch_1.safetensors");
  EXPECT_EQ(ckpt.get_int("epoch"), 1);
  EXPECT_TRUE(ckpt.has_state_dict("model"));
  EXPECT_TRUE(ckpt.has_state_dict("optimizer"));

  MnistConfig r = small();
  r.epochs = 2;
  r.resume = dir + "/epoch_1.safetensors";
  r.checkpoint_dir = dir + "/resumed";
  std::ostringstream resumed_out;
  auto resumed = train_mnist(r, resumed_out);
  ASSERT_EQ(resumed.size(), 1u);
  EXPECT_EQ(resumed[0].epoch, 2);
  // Model, momentum buffers and batch order restored: the same numbers.
  EXPECT_EQ(resumed[0].train_loss, full[1].train_loss);
  EXPECT_EQ(resumed[0].test_loss, full[1].test_loss);
  EXPECT_EQ(resumed[0].accuracy, full[1].accuracy);
  // And the same model and optimizer state after epoch 2.
  const NamedTensors a = Checkpoint::load(dir + "/epoch_2.safetensors").tensors();
  const NamedTensors b = Checkpoint::load(dir + "/resumed/epoch_2.safetensors").tensors();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].first, b[i].first);
    EXPECT_TRUE(equal(a[i].second, b[i].second)) << a[i].first;
  }
  std::filesystem::remove_all(dir);
}

// The same run on the GPU: the same figures up to float rounding (the
// order of the sums differs), and a CUDA checkpoint that resumes on the CPU.
TEST(MnistTrainTest, TrainsOnCudaLikeOnTheCpu) {
  if (!cuda::is_available()) GTEST_SKIP() << "no usable CUDA device on this machine";
  MnistConfig c = small();
  c.epochs = 1;
  std::ostringstream cpu_out, gpu_out;
  auto cpu = train_mnist(c, cpu_out);
  const std::string dir = temp_dir();
  c.device = "cuda";
  c.checkpoint_dir = dir;
  auto gpu = train_mnist(c, gpu_out);
  ASSERT_EQ(gpu.size(), 1u);
  EXPECT_NEAR(gpu[0].train_loss, cpu[0].train_loss, 1e-3) << gpu_out.str();
  EXPECT_NEAR(gpu[0].test_loss, cpu[0].test_loss, 1e-4) << gpu_out.str();
  EXPECT_NEAR(gpu[0].accuracy, cpu[0].accuracy, 0.5) << gpu_out.str();
  MnistConfig r = small();
  r.epochs = 2;
  r.resume = dir + "/epoch_1.safetensors";
  std::ostringstream resumed;
  EXPECT_EQ(train_mnist(r, resumed).size(), 1u) << resumed.str();
  std::filesystem::remove_all(dir);
}

TEST(MnistTrainTest, CudaWithoutADeviceIsAClearError) {
  if (cuda::is_available()) GTEST_SKIP() << "this machine has a GPU";
  MnistConfig c = small();
  c.device = "cuda";
  std::ostringstream out;
  try {
    train_mnist(c, out);
    ADD_FAILURE() << "training on a missing GPU did not fail";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_TRUE(what.find("NVIDIA driver") != std::string::npos ||
                what.find("No CUDA GPUs") != std::string::npos ||
                what.find("not compiled with CUDA") != std::string::npos)
        << what;
  }
}

TEST(MnistTrainTest, MissingDataSaysWhichFile) {
  MnistConfig c = small();
  c.data_root = "/nonexistent/mnist";
  std::ostringstream out;
  try {
    train_mnist(c, out);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/mnist"), std::string::npos) << e.what();
  }
}

TEST(MnistTrainTest, BrokenCheckpointIsAnError) {
  const std::string dir = temp_dir();
  const std::string path = dir + "/broken.safetensors";
  FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("not a checkpoint", f);
  std::fclose(f);
  MnistConfig c = small();
  c.resume = path;
  std::ostringstream out;
  EXPECT_THROW(train_mnist(c, out), Error);
  std::filesystem::remove_all(dir);
}

MnistConfig tiny() {
  MnistConfig c = small();
  c.train_limit = 128;
  c.test_limit = 64;
  c.epochs = 1;
  return c;
}

std::string error_of(const MnistConfig& c) {
  std::ostringstream out;
  try {
    train_mnist(c, out);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

std::string be32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
          static_cast<char>(v)};
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// An MNIST folder of n training and m test images (all zero).
std::string mnist_folder(uint32_t n, uint32_t m) {
  const std::string dir = temp_dir();
  for (auto [prefix, count] : {std::pair<std::string, uint32_t>{"train", n}, {"t10k", m}}) {
    write_file(dir + "/" + prefix + "-images-idx3-ubyte",
               be32(0x803) + be32(count) + be32(28) + be32(28) + std::string(count * 784, '\0'));
    write_file(dir + "/" + prefix + "-labels-idx1-ubyte",
               be32(0x801) + be32(count) + std::string(count, '\3'));
  }
  return dir;
}

// PyTorch refuses an empty dataset up front (RandomSampler's ValueError);
// so does the trainer, for either set, instead of SIGFPE or "-nan%".
TEST(MnistTrainTest, EmptyDataSetsAreClearErrors) {
  MnistConfig c = tiny();
  c.train_limit = c.test_limit = 0;
  c.data_root = mnist_folder(0, 5);
  EXPECT_EQ(error_of(c),
            "the training set in '" + c.data_root + "' is empty: there is nothing to train on");
  std::filesystem::remove_all(c.data_root);
  c.data_root = mnist_folder(5, 0);
  EXPECT_EQ(error_of(c), "the test set in '" + c.data_root +
                             "' is empty: accuracy and test loss would be undefined");
  std::filesystem::remove_all(c.data_root);
}

TEST(MnistTrainTest, UnusableCheckpointDirFailsBeforeTraining) {
  const std::string dir = temp_dir();
  MnistConfig c = tiny();
  c.epochs = 50;  // it would take minutes to fail after an epoch
  c.checkpoint_dir = dir + "/a_file";
  write_file(c.checkpoint_dir, "x");
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(error_of(c),
            "checkpoint_dir '" + c.checkpoint_dir + "' is a regular file, not a directory");
  c.checkpoint_dir = dir + "/missing/parent";
  EXPECT_EQ(error_of(c),
            "cannot create checkpoint_dir '" + c.checkpoint_dir + "': No such file or directory");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  std::filesystem::remove_all(dir);
}

TEST(MnistTrainTest, KeepsOnlyTheNewestCheckpoints) {
  const std::string dir = temp_dir();
  MnistConfig c = tiny();
  c.epochs = 3;
  c.checkpoint_dir = dir;
  c.keep_checkpoints = 2;
  write_file(dir + "/notes.txt", "not a checkpoint");  // other files stay
  std::ostringstream out;
  train_mnist(c, out);
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names,
            (std::vector<std::string>{"epoch_2.safetensors", "epoch_3.safetensors", "notes.txt"}));
  std::filesystem::remove_all(dir);
}

// A checkpoint that loads but is wrong is refused at load time, naming the
// file, as the same values on the command line are.
class BadCheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = temp_dir();
    MnistConfig c = tiny();
    c.checkpoint_dir = dir_;
    std::ostringstream out;
    train_mnist(c, out);
    good_ = dir_ + "/epoch_1.safetensors";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // The good checkpoint with entry `key` replaced, saved as a new file.
  std::string with(const std::string& key, const Tensor& value) {
    Checkpoint ckpt = Checkpoint::load(good_);
    Checkpoint out;
    for (const std::string& name : ckpt.state_dict_names()) {
      NamedTensors sd = ckpt.state_dict(name);
      for (auto& kv : sd) {
        if (name + "/" + kv.first == key) kv.second = value;
      }
      out.add_state_dict(name, sd);
    }
    out.set("epoch", key == "epoch" ? value : ckpt.get_tensor("epoch"));
    const std::string path = dir_ + "/bad_" + std::to_string(count_++) + ".safetensors";
    out.save(path);
    return path;
  }

  std::string resume_error(const std::string& path, bool verify = true) {
    MnistConfig c = tiny();
    c.epochs = 2;
    c.resume = path;
    c.verify_checksums = verify;
    return error_of(c);
  }

  std::string dir_, good_;
  int count_ = 0;
};

TEST_F(BadCheckpointTest, NanOrNegativeLearningRate) {
  for (double lr : {std::nan(""), -0.01}) {
    const std::string path = with("optimizer/param_groups.0.lr", scalar_tensor(lr, kDouble));
    const std::string err = resume_error(path);
    EXPECT_EQ(err.rfind("cannot resume from '" + path +
                            "': loaded state dict has invalid options "
                            "in param_groups.0: Invalid learning rate: ",
                        0),
              0u)
        << err;
  }
}

TEST_F(BadCheckpointTest, NegativeEpoch) {
  const std::string path = with("epoch", scalar_tensor(int64_t{-4}, kLong));
  EXPECT_EQ(resume_error(path),
            "cannot resume from '" + path + "': its epoch is -4, which is negative");
}

TEST_F(BadCheckpointTest, MomentumBufferOfTheWrongShapeOrDtype) {
  std::string path = with("optimizer/state.0.momentum_buffer", scalar_tensor(0.5, kFloat));
  std::string err = resume_error(path);
  EXPECT_NE(err.find("cannot resume from '" + path +
                     "': loaded state dict has a "
                     "'momentum_buffer' of shape torch.Size([]) for parameter 0"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("(key state.0.momentum_buffer)"), std::string::npos) << err;
  path = with("optimizer/state.1.momentum_buffer", zeros({20}, kLong));
  err = resume_error(path);
  EXPECT_NE(err.find("'momentum_buffer' of dtype Long for parameter 1 of dtype Float (key "
                     "state.1.momentum_buffer)"),
            std::string::npos)
      << err;
}

TEST_F(BadCheckpointTest, NonFiniteWeights) {
  Tensor w = Checkpoint::load(good_).state_dict("model")[0].second.clone();
  w.view({-1})[3].fill_(std::nan(""));
  const std::string path = with("model/conv1.weight", w);
  EXPECT_EQ(resume_error(path), "cannot resume from '" + path +
                                    "': parameter 'conv1.weight' holds non-finite values (NaN "
                                    "or inf)");
}

TEST_F(BadCheckpointTest, FlippedBitIsCaughtByTheChecksum) {
  std::ifstream f(good_, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  // The lowest byte of a float in the middle of the data: a tiny change.
  uint64_t header = 0;
  for (int i = 7; i >= 0; --i) header = header << 8 | static_cast<unsigned char>(bytes[i]);
  const size_t at = 8 + header + ((bytes.size() - 8 - header) / 2 & ~size_t{7});
  bytes[at] = static_cast<char>(bytes[at] ^ 0x04);
  const std::string path = dir_ + "/flipped.safetensors";
  write_file(path, bytes);
  const std::string err = resume_error(path);
  EXPECT_NE(err.find("cannot resume from '" + path + "': " + path +
                     ": checksum mismatch for "
                     "tensor '"),
            std::string::npos)
      << err;
  // --verify_checksums=false reads it (the flipped bit is in the data).
  EXPECT_EQ(resume_error(path, /*verify=*/false), "(no error)");
}

TEST_F(BadCheckpointTest, FifoAsResumeIsRefusedWithoutBlocking) {
  const std::string path = dir_ + "/fifo.safetensors";
  ASSERT_EQ(mkfifo(path.c_str(), 0644), 0);
  EXPECT_EQ(resume_error(path), "cannot resume from '" + path + "': cannot read '" + path +
                                    "': it is a FIFO, not a regular file");
}

}  // namespace
}  // namespace trainers
}  // namespace ember
