#include "ember.h"

#include <gtest/gtest.h>

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
  for (ember::data::Example& batch : loader) {
    if (batches++ == 0) EXPECT_EQ(batch.data.sizes(), ember::IntArrayRef({64, 1, 28, 28}));
  }
  EXPECT_EQ(batches, 157);  // ceil(10000 / 64)

  std::string path = ::testing::TempDir() + "/w.safetensors";
  ember::save({{"weight", x.detach()}}, path);
  EXPECT_TRUE(ember::load(path).at(0).second.equal(x.detach()));
}

}  // namespace
