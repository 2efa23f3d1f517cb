// Tensor's libtorch spellings: in-place methods on a const Tensor& (Note
// [Const in-place methods]), assignment to a temporary, data() / data<T>(),
// the in-place comparisons, item<T>() in templates, TensorOptions' printed
// form, ember::Reduction, and the top-level nn ops of tensor/nn_ops.h with
// ATen's defaults, against PyTorch 1.13's values.

#include <sstream>
#include <string>
#include <type_traits>

#include <gtest/gtest.h>

#include "tensor/all.h"
#include "tensor/reduction.h"

namespace ember {
namespace {

// A helper that takes its tensor by const reference and updates it in
// place, as libtorch code does with p.grad().
void halve(const Tensor& t) { t.div_(2); }

TEST(LibtorchSpellingsTest, InPlaceMethodsOnConstTensors) {
  const Tensor c = zeros({3});
  c.add_(4);
  EXPECT_TRUE(c.equal(full({3}, 4.0)));
  halve(c);
  EXPECT_TRUE(c.equal(full({3}, 2.0)));
  c.mul_(tensor({1.0f, 2.0f, 3.0f})).sub_(1);
  EXPECT_TRUE(c.equal(tensor({1.0f, 3.0f, 5.0f})));
  c.zero_();
  EXPECT_TRUE(c.equal(zeros({3})));
  c.fill_(7).clamp_(std::nullopt, 5);
  EXPECT_TRUE(c.equal(full({3}, 5.0)));
  // The result is still a Tensor& to the same handle.
  Tensor& same = c.uniform_(0, 1);
  EXPECT_TRUE(same.is_same(c));
}

TEST(LibtorchSpellingsTest, InPlaceComparisonsWithTensorsAndScalars) {
  const Tensor a = tensor({1.0f, 2.0f, 3.0f});
  const Tensor b = tensor({1.0f, 5.0f, 3.0f});
  // Results in self's dtype, as PyTorch's eq_ (1 / 0).
  EXPECT_TRUE(a.clone().eq_(b).equal(tensor({1.0f, 0.0f, 1.0f})));
  EXPECT_TRUE(a.clone().ne_(b).equal(tensor({0.0f, 1.0f, 0.0f})));
  EXPECT_TRUE(a.clone().lt_(b).equal(tensor({0.0f, 1.0f, 0.0f})));
  EXPECT_TRUE(a.clone().le_(b).equal(tensor({1.0f, 1.0f, 1.0f})));
  EXPECT_TRUE(a.clone().gt_(b).equal(tensor({0.0f, 0.0f, 0.0f})));
  EXPECT_TRUE(a.clone().ge_(b).equal(tensor({1.0f, 0.0f, 1.0f})));
  EXPECT_TRUE(a.clone().lt_(2.5).equal(tensor({1.0f, 1.0f, 0.0f})));
  EXPECT_TRUE(a.clone().ge_(2).equal(tensor({0.0f, 1.0f, 1.0f})));
  EXPECT_TRUE(a.clone().eq_(3).equal(tensor({0.0f, 0.0f, 1.0f})));
  // dist-mnist's count: sum(guess.eq_(op)) on int64 tensors.
  Tensor guess = tensor({1, 2, 3}, kLong);
  EXPECT_EQ(sum(guess.eq_(tensor({1, 0, 3}, kLong))).item<int64_t>(), 2);
}

TEST(LibtorchSpellingsTest, AssigningToATemporaryWritesTheData) {
  Tensor x = zeros({2, 3});
  x[0] = 5;                                  // fill_
  x.select(0, 1) = tensor({1.0f, 2.0f, 3.0f});  // copy_
  EXPECT_TRUE(x.equal(tensor({{5.0f, 5.0f, 5.0f}, {1.0f, 2.0f, 3.0f}})));
  // A named Tensor still rebinds.
  Tensor y = x;
  y = zeros({1});
  EXPECT_EQ(x.numel(), 6);
  // dist-mnist's `p.grad().data() = p.grad().data() / numranks`.
  const Tensor& g = x;
  g.data() = g.data() / 2;
  EXPECT_TRUE(x.equal(tensor({{2.5f, 2.5f, 2.5f}, {0.5f, 1.0f, 1.5f}})));
}

TEST(LibtorchSpellingsTest, DataSharesStorageAndDataOfTIsDataPtr) {
  Tensor x = tensor({1.0f, 2.0f});
  Tensor d = x.data();
  EXPECT_FALSE(d.is_same(x));
  EXPECT_EQ(d.data_ptr(), x.data_ptr());
  d.add_(1);
  EXPECT_TRUE(x.equal(tensor({2.0f, 3.0f})));
  EXPECT_EQ(x.data<float>(), x.data_ptr<float>());
  EXPECT_EQ(x.data<float>()[1], 3.0f);
  EXPECT_THROW(x.data<double>(), Error);
}

template <typename T>
T first_item(const Tensor& loss) {
  return loss.template item<T>();  // mnist.cpp's spelling
}

TEST(LibtorchSpellingsTest, ItemOfT) {
  Tensor loss = tensor(0.25f);
  float f = loss.item<float>();
  EXPECT_EQ(f, 0.25f);
  EXPECT_EQ(first_item<double>(loss), 0.25);
  EXPECT_EQ(first_item<int64_t>(tensor(7, kLong)), 7);
}

std::string printed(const TensorOptions& o) {
  std::ostringstream ss;
  ss << o;
  return ss.str();
}

// The strings are libtorch 1.13's (operator<< of c10::TensorOptions).
TEST(LibtorchSpellingsTest, TensorOptionsPrintAsLibtorch) {
  EXPECT_EQ(printed(TensorOptions()),
            "TensorOptions(dtype=float (default), device=cpu (default), layout=Strided "
            "(default), requires_grad=false (default), pinned_memory=false (default), "
            "memory_format=(nullopt))");
  EXPECT_EQ(printed(dtype(kFloat)),
            "TensorOptions(dtype=float, device=cpu (default), layout=Strided (default), "
            "requires_grad=false (default), pinned_memory=false (default), "
            "memory_format=(nullopt))");
  EXPECT_EQ(printed(dtype(kLong).device(kCPU).requires_grad(true)),
            "TensorOptions(dtype=long int, device=cpu, layout=Strided (default), "
            "requires_grad=true, pinned_memory=false (default), memory_format=(nullopt))");
  EXPECT_EQ(printed(TensorOptions(kDouble).memory_format(MemoryFormat::ChannelsLast)),
            "TensorOptions(dtype=double, device=cpu (default), layout=Strided (default), "
            "requires_grad=false (default), pinned_memory=false (default), "
            "memory_format=ChannelsLast)");
}

TEST(LibtorchSpellingsTest, ReductionHasAtensValuesAndNames) {
  EXPECT_EQ(static_cast<int64_t>(Reduction::None), 0);
  EXPECT_EQ(static_cast<int64_t>(Reduction::Mean), 1);
  EXPECT_EQ(static_cast<int64_t>(Reduction::Sum), 2);
  EXPECT_EQ(Reduction::kMean, Reduction::Mean);
  EXPECT_EQ(kSum, Reduction::Sum);
  EXPECT_EQ(kNone, Reduction::None);
  const int64_t as_int = Reduction::Sum;  // ATen's ops take int64_t
  EXPECT_EQ(as_int, 2);
  static_assert(!std::is_convertible<int, Reduction>::value, "no Reduction from a stray int");
}

// torch::max_pool2d(x, 2) and the other ATen forms with their defaults;
// values from PyTorch 1.13.
TEST(LibtorchSpellingsTest, TopLevelPoolingAndLossesWithAtenDefaults) {
  const Tensor p = arange(16.0).view({1, 1, 4, 4});
  EXPECT_TRUE(max_pool2d(p, 2).equal(tensor({5.0f, 7.0f, 13.0f, 15.0f}).view({1, 1, 2, 2})));
  EXPECT_TRUE(max_pool2d(p, {2, 2}, {1, 2}).equal(
      tensor({5.0f, 7.0f, 9.0f, 11.0f, 13.0f, 15.0f}).view({1, 1, 3, 2})));
  EXPECT_TRUE(avg_pool2d(p, 2).equal(tensor({2.5f, 4.5f, 10.5f, 12.5f}).view({1, 1, 2, 2})));
  EXPECT_EQ(std::get<1>(max_pool2d_with_indices(p, 2)).dtype(), kLong);

  const Tensor lp = log_softmax(tensor({{1.0f, 2.0f, 3.0f}, {1.0f, 0.0f, -1.0f}}), 1);
  const Tensor tg = tensor({2, 0}, kLong);
  EXPECT_NEAR(nll_loss(lp, tg).item<double>(), 0.40760594606399536, 1e-6);
  EXPECT_NEAR(nll_loss(lp, tg, /*weight=*/{}, Reduction::Sum).item<double>(), 0.8152118921279907,
              1e-6);
  EXPECT_EQ(nll_loss(lp, tg, {}, Reduction::None).sizes(), IntArrayRef({2}));
  EXPECT_NEAR(nll_loss(lp, tensor({2, -100}, kLong)).item<double>(), 0.40760594606399536,
              1e-6);  // ignore_index=-100

  const Tensor a = tensor({0.0f, 2.0f}), b = tensor({0.5f, 0.0f});
  EXPECT_NEAR(smooth_l1_loss(a, b).item<double>(), 0.8125, 1e-7);
  EXPECT_NEAR(smooth_l1_loss(a, b, Reduction::Sum, 0.5).item<double>(), 2.0, 1e-7);
  EXPECT_NEAR(mse_loss(a, b).item<double>(), 2.125, 1e-7);
  EXPECT_NEAR(binary_cross_entropy(tensor({0.2f, 0.9f}), tensor({0.0f, 1.0f})).item<double>(),
              0.16425204277038574, 1e-6);
  EXPECT_NEAR(binary_cross_entropy_with_logits(a, b).item<double>(),
              binary_cross_entropy(a.sigmoid(), b).item<double>(), 1e-6);
}

}  // namespace
}  // namespace ember
