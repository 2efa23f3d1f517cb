#include "ember.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "distributed/testing/multiprocess.h"
#include "tensor/testing/golden.h"

namespace {

// One line through each library the umbrella header brings in.
TEST(EmberHeaderTest, EveryLibraryIsReachable) {
  ember::Tensor x = ember::ones({2, 2}).requires_grad_();
  ember::Tensor out = (3 * (x + 2) * (x + 2)).mean();
  out.backward();
  EXPECT_TRUE(x.grad().allclose(ember::full({2, 2}, 4.5)));

  ember::data::TensorDataset ds(ember::arange(6).view({3, 2}), ember::arange(3));
  EXPECT_EQ(ds.size(), 3);

  EXPECT_TRUE(ember::distributed::is_gloo_available());
  EXPECT_FALSE(ember::distributed::is_initialized());

  ember::models::GPT2 gpt(
      ember::models::GPT2Config().vocab_size(8).n_positions(4).n_embd(4).n_layer(1).n_head(1));
  EXPECT_EQ(gpt(ember::zeros({1, 3}, ember::kLong)).sizes(), (std::vector<int64_t>{1, 3, 8}));
}

// Automatic mixed precision is part of the umbrella (tensor/autocast.h).
TEST(EmberHeaderTest, Autocast) {
  ember::autocast::AutocastGuard guard(ember::kCPU);
  EXPECT_EQ(ember::mm(ember::ones({2, 2}), ember::ones({2, 2})).dtype(), ember::kBFloat16);
}

// The README's second snippet, as written there.
TEST(EmberHeaderTest, ReadmeSnippet) {
  ember::Tensor x = ember::ones({2, 2}).requires_grad_();
  ember::Tensor out = (3 * (x + 2) * (x + 2)).mean();
  out.backward();
  EXPECT_EQ(out.toString(), "tensor(27., grad_fn=<MeanBackward0>)");
  EXPECT_TRUE(x.grad().allclose(ember::full({2, 2}, 4.5)));

  auto ds = std::make_shared<ember::data::MNIST>(ember::data::kDefaultMnistRoot, /*train=*/false,
                                                 ember::data::transforms::ToTensor());
  ember::data::DataLoader loader(ds, ember::data::DataLoaderOptions().batch_size(64)
                                         .shuffle(true).num_workers(2));
  int64_t batches = 0;
  for (ember::data::Example<>& batch : loader) {
    if (batches++ == 0) {
      EXPECT_EQ(batch.data.sizes(), ember::IntArrayRef({64, 1, 28, 28}));
    }
  }
  EXPECT_EQ(batches, 157);  // ceil(10000 / 64)

  std::string path = ::testing::TempDir() + "/w.safetensors";
  ember::save({{"weight", x.detach()}}, path);
  EXPECT_TRUE(ember::load(path).at(0).second.equal(x.detach()));
}

// The README's training snippet, as written there (the loop over a few
// Fashion-MNIST batches).
namespace nn = ember::nn;
namespace F = ember::nn::functional;

struct NetImpl : nn::Module {
  NetImpl()
      : conv1(register_module("conv1", nn::Conv2d(1, 20, 5))),
        fc1(register_module("fc1", nn::Linear(20 * 12 * 12, 10))) {}
  ember::Tensor forward(ember::Tensor x) {
    x = F::max_pool2d(F::relu(conv1->forward(x)), 2);
    return fc1->forward(x.flatten(1));
  }
  nn::Conv2d conv1;
  nn::Linear fc1;
};
EMBER_MODULE(Net);

TEST(EmberHeaderTest, ReadmeTrainingSnippet) {
  auto ds = std::make_shared<ember::data::MNIST>(ember::data::kDefaultMnistRoot, /*train=*/false,
                                                 ember::data::transforms::ToTensor());
  auto few = std::make_shared<ember::data::Subset<ember::data::Example<>>>(
      ds, std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
  ember::data::DataLoader loader(few, ember::data::DataLoaderOptions().batch_size(8));

  Net net;
  ember::optim::SGD opt(net->parameters(), ember::optim::SGDOptions(0.01).momentum(0.9));
  double first = -1, last = -1;
  for (int epoch = 0; epoch < 5; ++epoch) {
    for (ember::data::Example<>& batch : loader) {
      opt.zero_grad();
      ember::Tensor loss = F::cross_entropy(net->forward(batch.data), batch.target);
      loss.backward();
      opt.step();
      if (first < 0) first = loss.item<double>();
      last = loss.item<double>();
    }
  }
  EXPECT_LT(last, first);  // 10 steps on 16 images: it fits them

  std::string path = ::testing::TempDir() + "/net.safetensors";
  ember::save(net, path);
  Net back;
  ember::load(back, path);
  EXPECT_TRUE(back->fc1->weight.equal(net->fc1->weight));
}

// The README's data-parallel snippet, as written there, in a world of one
// rank (env:// as the launcher would set it).
TEST(EmberHeaderTest, ReadmeDataParallelSnippet) {
  setenv("MASTER_ADDR", "127.0.0.1", 1);
  setenv("MASTER_PORT", std::to_string(ember::distributed::testing::free_port()).c_str(), 1);
  setenv("RANK", "0", 1);
  setenv("WORLD_SIZE", "1", 1);
  auto full = std::make_shared<ember::data::MNIST>(ember::data::kDefaultMnistRoot,
                                                   /*train=*/false,
                                                   ember::data::transforms::ToTensor());
  auto ds = std::make_shared<ember::data::Subset<ember::data::Example<>>>(
      full, std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7});
  Net net;
  Net before;
  before->load_state_dict(net->state_dict());

  namespace dist = ember::distributed;
  dist::init_process_group("gloo");                // env://: RANK, WORLD_SIZE, MASTER_ADDR/PORT
  dist::DistributedDataParallel ddp(net);          // every rank starts from rank 0's weights
  auto sampler = std::make_shared<ember::data::DistributedSampler>(
      ds->size(), dist::get_world_size(), dist::get_rank());
  ember::data::DataLoader shard(ds, ember::data::DataLoaderOptions().batch_size(64).sampler(sampler));
  ember::optim::SGD ddp_opt(ddp->parameters(), ember::optim::SGDOptions(0.01));
  for (ember::data::Example<>& batch : shard) {
    ddp_opt.zero_grad();
    F::cross_entropy(ddp(batch.data), batch.target).backward();  // gradients averaged across ranks
    ddp_opt.step();
  }
  dist::barrier();
  dist::destroy_process_group();

  EXPECT_FALSE(net->fc1->weight.equal(before->fc1->weight));  // it stepped
  EXPECT_TRUE(net->fc1->weight.grad().defined());
}

// A libtorch program's idioms, with `namespace torch = ember`: what a
// port from libtorch writes compiles and means the same.
TEST(EmberHeaderTest, LibtorchIdioms) {
  namespace torch = ember;
  using torch::indexing::Slice;
  torch::manual_seed(1);
  torch::Tensor t = torch::arange(12, torch::kFloat).reshape({3, 4});

  auto a = t.accessor<float, 2>();  // strided element access
  EXPECT_EQ(a[2][3], 11.0f);
  a[0][0] = -1.0f;
  EXPECT_EQ(t.index({0, 0}).item<float>(), -1.0f);
  t.index_put_({0, 0}, 0.0);
  EXPECT_TRUE(t.index({Slice(), 1}).equal(torch::tensor({1.0f, 5.0f, 9.0f})));

  EXPECT_TRUE(t.to(torch::kCPU).is_same(t));  // a DeviceType, not a Device
  torch::Device device(torch::kCPU);
  if (torch::cuda::is_available()) device = torch::Device(torch::kCUDA);

  torch::nn::Sequential seq(torch::nn::Linear(4, 8), torch::nn::ReLU(), torch::nn::Linear(8, 1));
  seq->to(device);
  std::vector<std::string> names;
  for (auto& p : seq->named_parameters()) {  // OrderedDict items: key(), value()
    names.push_back(p.key());
    EXPECT_TRUE(p.value().requires_grad());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"}));
  auto named = seq->named_parameters();  // OrderedDict's lookups
  EXPECT_TRUE(named["2.bias"].is_same(seq->parameters()[3]));
  EXPECT_TRUE(named[1].second.is_same(seq->parameters()[1]));  // by position
  EXPECT_EQ(named.keys(), names);
  EXPECT_EQ(named.find("1.weight"), nullptr);  // ReLU has none
  EXPECT_EQ(ember::testing::error_of([&] { named["fc.weight"]; }),
            "Key 'fc.weight' is not defined (keys: '0.weight', '0.bias', '2.weight', '2.bias')");
  for (auto& [name, p] : seq->named_parameters()) {  // and a std::pair
    EXPECT_EQ(p.is_cuda(), device.is_cuda()) << name;
  }

  torch::optim::Adam opt(seq->parameters(), torch::optim::AdamOptions(1e-3));
  torch::Tensor x = t.to(device), target = torch::zeros({3, 1}).to(device);
  torch::nn::MSELoss loss_fn;
  torch::Tensor loss = loss_fn(seq->forward(x), target);
  EXPECT_TRUE(loss.allclose(torch::nn::functional::mse_loss(seq->forward(x), target)));
  const float before = loss.item<float>();
  for (int i = 0; i < 20; ++i) {
    opt.zero_grad();
    loss = loss_fn(seq->forward(x), target);
    loss.backward();
    opt.step();
  }
  EXPECT_LT(loss_fn(seq->forward(x), target).item<float>(), before);

  auto [values, indices] = t.max(1);
  EXPECT_TRUE(indices.equal(torch::tensor({3, 3, 3}, torch::kLong)));
  EXPECT_TRUE(values.equal(std::get<0>(t.max(1))));
  {
    torch::NoGradGuard no_grad;
    EXPECT_FALSE((seq->forward(x) * 2).requires_grad());
  }
}

}  // namespace
