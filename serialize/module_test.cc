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
#include "tensor/all.h"

namespace ember {
namespace {

namespace F = nn::functional;

class SmallNetImpl : public nn::Module {
 public:
  SmallNetImpl()
      : fc1(register_module("fc1", nn::Linear(4, 8))),
        bn(register_module("bn", nn::BatchNorm1d(8))),
        fc2(register_module("fc2", nn::Linear(8, 3))) {}
  Tensor forward(const Tensor& x) { return fc2->forward(F::relu(bn->forward(fc1->forward(x)))); }
  nn::Linear fc1;
  nn::BatchNorm1d bn;
  nn::Linear fc2;
};
EMBER_MODULE(SmallNet);

class ModuleSaveTest : public ::testing::Test {
 protected:
  std::string path(const std::string& name) { return dir_ + "/" + name; }
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

TEST_F(ModuleSaveTest, ModuleRoundTripIncludesBuffers) {
  manual_seed(0);
  SmallNet a;
  a->forward(randn({5, 4}));  // training mode: BatchNorm's running stats move
  save(a, path("net.safetensors"));
  manual_seed(1);
  SmallNet b;
  load(b, path("net.safetensors"));
  expect_same_state(*a, *b);
  EXPECT_EQ(b->bn->num_batches_tracked.item<int64_t>(), 1);
  // Loading writes in place: parameters keep their identity (an optimizer
  // built before the load still holds them).
  EXPECT_TRUE(b->parameters()[0].is_same(b->fc1->weight));
  EXPECT_TRUE(b->fc1->weight.requires_grad());
}

TEST_F(ModuleSaveTest, LoadIntoADifferentModuleSaysWhatDiffers) {
  SmallNet a;
  save(a, path("net.safetensors"));
  nn::Linear other(4, 8);
  try {
    load(other, path("net.safetensors"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("Unexpected key(s) in state_dict: \"fc1.weight\""), std::string::npos) << m;
    EXPECT_NE(m.find("Missing key(s) in state_dict: \"weight\", \"bias\""), std::string::npos)
        << m;
  }
}

TEST_F(ModuleSaveTest, MissingFileIsAnError) {
  SmallNet a;
  EXPECT_THROW(load(a, path("absent.safetensors")), Error);
}

TEST_F(ModuleSaveTest, OptimizerRoundTripContinuesIdentically) {
  manual_seed(0);
  Tensor x = randn({6, 4});
  Tensor y = randint(3, {6});
  SmallNet a;
  optim::Adam opt_a(a->parameters(), optim::AdamOptions(0.01));
  step(a, opt_a, x, y);
  step(a, opt_a, x, y);
  save(a, path("net.safetensors"));
  save(opt_a, path("opt.safetensors"));

  SmallNet b;
  optim::Adam opt_b(b->parameters(), optim::AdamOptions(0.5));  // options come from the file
  load(b, path("net.safetensors"));
  load(opt_b, path("opt.safetensors"));
  EXPECT_DOUBLE_EQ(opt_b.param_groups()[0].options().get_lr(), 0.01);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(step(b, opt_b, x, y), step(a, opt_a, x, y));
  expect_same_state(*a, *b);
}

TEST_F(ModuleSaveTest, CheckpointResumesModelOptimizerAndScheduler) {
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
  ckpt.save(path("ckpt.safetensors"));

  Checkpoint back = Checkpoint::load(path("ckpt.safetensors"), "cpu");
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

}  // namespace
}  // namespace ember
