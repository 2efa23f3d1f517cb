// save/load of live modules and optimizers, and a training checkpoint that
// resumes exactly: model, optimizer and scheduler state and scalars in one
// file.
#include "serialize/module.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "autograd/autograd.h"
#include "nn/nn.h"
#include "optim/optim.h"
#include "serialize/pt_sample.h"
#include "serialize/test_nets.h"
#include "tensor/all.h"

namespace ember {
namespace {

namespace F = nn::functional;

using serialize_testing::SmallNet;

// tools/pt_interop.py make's values: kSecondLoss, kThirdLoss, kAfterThird_*.
#include "serialize/testdata/pt_golden.inc"

std::string testdata(const std::string& name) {
  return std::string(serialize_testing::kPtTestdata) + name;
}

// Every test runs for both formats: safetensors and PyTorch's .pt.
class ModuleSaveTest : public ::testing::TestWithParam<std::string> {
 protected:
  // `stem` with the extension under test.
  std::string path(const std::string& stem) { return dir_ + "/" + stem + GetParam(); }
  void SetUp() override {
    char d[] = "/tmp/ember_module_test_XXXXXX";
    ASSERT_NE(mkdtemp(d), nullptr);
    dir_ = d;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // One SGD-with-momentum step on a fixed batch; returns the loss.
  static double step(SmallNet& net, optim::Optimizer& opt, const Tensor& x, const Tensor& y) {
    opt.zero_grad();
    Tensor loss = F::cross_entropy(net->forward(x), y);
    loss.backward();
    opt.step();
    return loss.item<double>();
  }

  std::string dir_;
};

void expect_same_state(const nn::Module& a, const nn::Module& b) {
  auto sa = a.state_dict();
  auto sb = b.state_dict();
  ASSERT_EQ(sa.size(), sb.size());
  for (size_t i = 0; i < sa.size(); ++i) {
    EXPECT_EQ(sa[i].first, sb[i].first);
    EXPECT_TRUE(equal(sa[i].second, sb[i].second)) << sa[i].first;
  }
}

TEST_P(ModuleSaveTest, ModuleRoundTripIncludesBuffers) {
  manual_seed(0);
  SmallNet a;
  a->forward(randn({5, 4}));  // training mode: BatchNorm's running stats move
  save(a, path("net"));
  manual_seed(1);
  SmallNet b;
  load(b, path("net"));
  expect_same_state(*a, *b);
  EXPECT_EQ(b->bn->num_batches_tracked.item<int64_t>(), 1);
  // Loading writes in place: parameters keep their identity (an optimizer
  // built before the load still holds them).
  EXPECT_TRUE(b->parameters()[0].is_same(b->fc1->weight));
  EXPECT_TRUE(b->fc1->weight.requires_grad());
}

TEST_P(ModuleSaveTest, LoadIntoADifferentModuleSaysWhatDiffers) {
  SmallNet a;
  save(a, path("net"));
  nn::Linear other(4, 8);
  try {
    load(other, path("net"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("Unexpected key(s) in state_dict: \"fc1.weight\""), std::string::npos) << m;
    EXPECT_NE(m.find("Missing key(s) in state_dict: \"weight\", \"bias\""), std::string::npos)
        << m;
  }
}

TEST_P(ModuleSaveTest, MissingFileIsAnError) {
  SmallNet a;
  EXPECT_THROW(load(a, path("absent")), Error);
}

TEST_P(ModuleSaveTest, OptimizerRoundTripContinuesIdentically) {
  manual_seed(0);
  Tensor x = randn({6, 4});
  Tensor y = randint(3, {6});
  SmallNet a;
  optim::Adam opt_a(a->parameters(), optim::AdamOptions(0.01));
  step(a, opt_a, x, y);
  step(a, opt_a, x, y);
  save(a, path("net"));
  save(opt_a, path("opt"));

  SmallNet b;
  optim::Adam opt_b(b->parameters(), optim::AdamOptions(0.5));  // options come from the file
  load(b, path("net"));
  load(opt_b, path("opt"));
  EXPECT_DOUBLE_EQ(opt_b.param_groups()[0].options().get_lr(), 0.01);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(step(b, opt_b, x, y), step(a, opt_a, x, y));
  expect_same_state(*a, *b);
}

TEST_P(ModuleSaveTest, CheckpointResumesModelOptimizerAndScheduler) {
  manual_seed(0);
  Tensor x = randn({6, 4});
  Tensor y = randint(3, {6});
  SmallNet a;
  optim::SGD opt_a(a->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  optim::StepLR sched_a(opt_a, /*step_size=*/2, /*gamma=*/0.5);
  for (int epoch = 0; epoch < 3; ++epoch) {
    step(a, opt_a, x, y);
    sched_a.step();
  }
  Checkpoint ckpt;
  ckpt.add_state_dict("model", a->state_dict());
  ckpt.add_state_dict("optimizer", opt_a.state_dict().to_named_tensors());
  ckpt.add_state_dict("scheduler", sched_a.state_dict());
  ckpt.set("epoch", 3);
  ckpt.set("loss", 0.25);
  ckpt.save(path("ckpt"));

  Checkpoint back = Checkpoint::load(path("ckpt"), "cpu");
  SmallNet b;
  optim::SGD opt_b(b->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  optim::StepLR sched_b(opt_b, /*step_size=*/2, /*gamma=*/0.5);
  b->load_state_dict(back.state_dict("model"));
  opt_b.load_state_dict(optim::OptimizerStateDict::from_named_tensors(back.state_dict("optimizer")));
  sched_b.load_state_dict(back.state_dict("scheduler"));
  EXPECT_EQ(back.get_int("epoch"), 3);
  EXPECT_DOUBLE_EQ(back.get_double("loss"), 0.25);
  EXPECT_EQ(sched_b.last_epoch(), 3);
  EXPECT_EQ(sched_b.get_last_lr(), sched_a.get_last_lr());

  // Two more epochs each: the same losses (momentum buffers restored) and
  // the same learning rates (the schedule restored).
  for (int epoch = 3; epoch < 5; ++epoch) {
    EXPECT_EQ(step(b, opt_b, x, y), step(a, opt_a, x, y)) << "epoch " << epoch;
    sched_a.step();
    sched_b.step();
    EXPECT_EQ(sched_b.get_last_lr(), sched_a.get_last_lr());
  }
  expect_same_state(*a, *b);
}

// --- modules and optimizers that PyTorch saved -------------------------------------

// batch() of tools/pt_interop.py.
std::pair<Tensor, Tensor> torch_batch() {
  return {(arange(24, TensorOptions(kLong)) * 7 % 23).to(kFloat).reshape({6, 4}) / 11 - 1,
          tensor({0, 1, 2, 0, 1, 2}, kLong)};
}

void expect_close(const Tensor& got, const std::vector<double>& want, double tol,
                  const std::string& what) {
  const Tensor flat = got.detach().to(kDouble).reshape({-1}).contiguous();
  ASSERT_EQ(flat.numel(), static_cast<int64_t>(want.size())) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(flat.data_ptr<double>()[i], want[i], tol) << what << "[" << i << "]";
  }
}

// PyTorch trained SmallNet with Adam for two steps and saved both; ember
// takes the third step and lands where PyTorch's third step did.
void expect_third_step_matches_pytorch(SmallNet& net, optim::Adam& adam) {
  EXPECT_DOUBLE_EQ(adam.param_groups()[0].options().get_lr(), 0.01);
  auto [x, y] = torch_batch();
  adam.zero_grad();
  Tensor loss = F::cross_entropy(net->forward(x), y);
  loss.backward();
  adam.step();
  EXPECT_NEAR(loss.item<double>(), kThirdLoss, 1e-6);
  expect_close(net->fc1->weight, kAfterThird_fc1_weight, 1e-6, "fc1.weight");
  expect_close(net->fc2->weight, kAfterThird_fc2_weight, 1e-6, "fc2.weight");
  expect_close(net->fc2->bias, kAfterThird_fc2_bias, 1e-6, "fc2.bias");
  expect_close(net->bn->weight, kAfterThird_bn_weight, 1e-6, "bn.weight");
  expect_close(net->bn->running_mean, kAfterThird_bn_running_mean, 1e-6, "bn.running_mean");
}

TEST(PyTorchFilesTest, ModuleAndAdamStateContinueTraining) {
  SmallNet net;
  EXPECT_TRUE(load(net, testdata("torch_smallnet.pt")).empty());
  EXPECT_EQ(net->bn->num_batches_tracked.item<int64_t>(), 2);
  optim::Adam adam(net->parameters(), optim::AdamOptions(0.5));  // lr comes from the file
  load(adam, testdata("torch_adam.pt"));
  expect_third_step_matches_pytorch(net, adam);
}

TEST(PyTorchFilesTest, APyTorchCheckpointDictResumes) {
  // torch.save({"model": ..., "optimizer": ..., "epoch": 2, "loss": ..., ...}).
  const Checkpoint ckpt = Checkpoint::load(testdata("torch_checkpoint.pt"));
  EXPECT_EQ(ckpt.state_dict_names(), (std::vector<std::string>{"model", "optimizer"}));
  EXPECT_EQ(ckpt.get_int("epoch"), 2);
  EXPECT_DOUBLE_EQ(ckpt.get_double("loss"), kSecondLoss);
  EXPECT_EQ(ckpt.get_string("note"), "resumed");
  EXPECT_EQ(ckpt.get_int("big"), int64_t{1} << 40);
  EXPECT_EQ(ckpt.get_int("negative"), -70000);
  EXPECT_EQ(ckpt.get_tensor("losses").numel(), 2);
  EXPECT_FALSE(ckpt.contains("scheduler"));  // None
  SmallNet net;
  net->load_state_dict(ckpt.state_dict("model"));
  optim::Adam adam(net->parameters(), optim::AdamOptions(0.5));
  adam.load_state_dict(optim::OptimizerStateDict::from_named_tensors(ckpt.state_dict("optimizer")));
  expect_third_step_matches_pytorch(net, adam);
}

INSTANTIATE_TEST_SUITE_P(Formats, ModuleSaveTest, ::testing::Values(".safetensors", ".pt"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param == ".pt" ? std::string("pt")
                                                      : std::string("safetensors");
                         });

}  // namespace
}  // namespace ember
