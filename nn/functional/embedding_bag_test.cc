// F::embedding_bag against PyTorch 1.13 (tools/golden/embedding_bag.py):
// outputs and the gradients of weight and per_sample_weights in float32 and
// float64, PyTorch's errors, and gradcheck.
#include <string>
#include <vector>

#include "autograd/gradcheck.h"
#include "gtest/gtest.h"
#include "nn/functional/embedding.h"
#include "nn/functional/testing/nn_golden.h"
#include "tensor/all.h"

namespace ember {
namespace testing {
namespace {

namespace F = nn::functional;
using V = std::vector<Tensor>;

const GoldenEntry kGolden[] = {
#include "nn/functional/testdata/embedding_bag_golden.inc"
};
const GoldenError kErrors[] = {
#include "nn/functional/testdata/embedding_bag_errors_golden.inc"
};

// A case's inputs are weight, input[, offsets][, per_sample_weights]:
// `o` gets the offsets (1-D input) and per_sample_weights from them.
void check(const std::string& name, F::EmbeddingBagFuncOptions o, bool has_offsets = true,
           bool has_psw = false) {
  const int n = 2 + has_offsets + has_psw;
  std::vector<int> grads = {0};
  if (has_psw) grads.push_back(n - 1);
  check_case_in(kGolden, name, n, grads, [&](const V& v) {
    F::EmbeddingBagFuncOptions opts = o;
    if (has_offsets) opts.offsets(v[2]);
    if (has_psw) opts.per_sample_weights(v[n - 1]);
    return F::embedding_bag(v[1], v[0], opts);
  });
}

F::EmbeddingBagFuncOptions mode(EmbeddingBagMode m) { return F::EmbeddingBagFuncOptions().mode(m); }

TEST(EmbeddingBagTest, ModesMatchPyTorch) {
  const std::vector<std::pair<std::string, EmbeddingBagMode>> modes = {
      {"sum", kSum}, {"mean", kMean}, {"max", kMax}};
  for (const auto& [name, m] : modes) {
    check(name + "_1d", mode(m));
    check(name + "_2d", mode(m), /*has_offsets=*/false);
    check(name + "_last_offset", mode(m).include_last_offset(true));
    check(name + "_padding_idx", mode(m).padding_idx(4));
  }
  check("max_padding_idx_negative", mode(kMax).padding_idx(-1));
  check("sum_all_empty", mode(kMax));
  check("mean_int32", {});
}

TEST(EmbeddingBagTest, PerSampleWeightsMatchPyTorch) {
  check("sum_per_sample_weights", mode(kSum), true, true);
  check("sum_per_sample_weights_2d", mode(kSum), false, true);
  check("sum_per_sample_weights_padding", mode(kSum).padding_idx(2).include_last_offset(true), true,
        true);
}

TEST(EmbeddingBagTest, ScaleGradByFreqAndMaxNormMatchPyTorch) {
  check("sum_scale_grad_by_freq", mode(kSum).scale_grad_by_freq(true));
  check("mean_scale_grad_by_freq", mode(kMean).scale_grad_by_freq(true));
  check("mean_max_norm", mode(kMean).max_norm(1.0));
  check("max_max_norm_p1", mode(kMax).max_norm(1.5).norm_type(1.0));
}

// Where PyTorch 1.13's CPU backward takes the wrong counts (see
// EmbeddingBagFuncOptions::scale_grad_by_freq), the documented gradient:
// each occurrence's gradient over its index's count, so every looked-up
// row gets 1 from sum(out).
TEST(EmbeddingBagTest, ScaleGradByFreqDividesByEachIndexCount) {
  Tensor w = zeros({10, 1}).requires_grad_(true);
  F::embedding_bag(tensor({1, 2, 4, 5, 4, 3, 2, 9}, kLong), w,
                   mode(kSum).offsets(tensor({0, 2, 2, 5}, kLong)).scale_grad_by_freq(true))
      .sum()
      .backward();
  EXPECT_EQ(values_of(w.grad()), (std::vector<double>{0, 1, 1, 1, 1, 1, 0, 0, 0, 1}));
}

TEST(EmbeddingBagTest, ErrorsMatchPyTorch) {
  auto err = [](const std::string& name, const std::function<void()>& f) {
    expect_golden_error(kErrors, name, f);
  };
  const Tensor w = zeros({6, 2});
  const Tensor i = tensor({1, 2, 3, 4, 5}, kLong);
  const Tensor off = tensor({0}, kLong);
  auto bag = [&](const Tensor& input, const F::EmbeddingBagFuncOptions& o) {
    return [=] { F::embedding_bag(input, w, o); };
  };
  err("psw_shape", bag(i, mode(kSum).offsets(off).per_sample_weights(ones({4}))));
  err("psw_mode", bag(i, mode(kMax).offsets(off).per_sample_weights(ones({5}))));
  err("offsets_2d_input", bag(i.reshape({1, 5}), F::EmbeddingBagFuncOptions().offsets(off)));
  err("offsets_none", bag(i, {}));
  err("offsets_dim", bag(i, F::EmbeddingBagFuncOptions().offsets(off.reshape({1, 1}))));
  err("input_dim", bag(i.reshape({1, 1, 5}), {}));
  err("max_scale_grad", bag(i, mode(kMax).offsets(off).scale_grad_by_freq(true)));
  err("max_sparse", bag(i, mode(kMax).offsets(off).sparse(true)));
  err("mode", [&] { F::embedding_bag(i, w, mode(kNone).offsets(off)); });
  err("indices_dtype", bag(i.to(kFloat), F::EmbeddingBagFuncOptions().offsets(off)));
  err("offsets_dtype", bag(i, F::EmbeddingBagFuncOptions().offsets(zeros({1}))));
  err("padding_idx_high", bag(i, F::EmbeddingBagFuncOptions().offsets(off).padding_idx(6)));
  err("padding_idx_low", bag(i, F::EmbeddingBagFuncOptions().offsets(off).padding_idx(-7)));
  err("offsets_first", bag(i, F::EmbeddingBagFuncOptions().offsets(tensor({1, 2}, kLong))));
  err("offsets_last", bag(i, F::EmbeddingBagFuncOptions().offsets(tensor({0, 7}, kLong))));
  err("last_offset_empty",
      bag(i, F::EmbeddingBagFuncOptions().offsets(zeros({0}, kLong)).include_last_offset(true)));
  err("index_range", bag(tensor({1, 9}, kLong), F::EmbeddingBagFuncOptions().offsets(off)));
}

TEST(EmbeddingBagTest, ErrorsPyTorchDoesNotSpell) {
  const Tensor w = zeros({6, 2});
  const Tensor i = tensor({1, 2, 3, 4, 5}, kLong);
  // ember has no sparse gradients.
  expect_error([&] { F::embedding_bag(i, w, mode(kSum).offsets(tensor({0}, kLong)).sparse(true)); },
               "embedding_bag: sparse=true is not supported: ember has no sparse gradients");
  // PyTorch reads decreasing offsets as out-of-order bags without an error.
  expect_error(
      [&] {
        F::embedding_bag(i, w, F::EmbeddingBagFuncOptions().offsets(tensor({0, 3, 2}, kLong)));
      },
      "embedding_bag: offsets must be non-decreasing, but offsets[2] = 2 is less than "
      "offsets[1] = 3");
}

TEST(EmbeddingBagTest, Gradcheck) {
  const Tensor idx = tensor({1, 2, 4, 5, 4, 3, 2, 0}, kLong);
  const Tensor off = tensor({0, 2, 2, 5}, kLong);
  // Distinct values: max mode's finite differences need no ties.
  manual_seed(0);
  auto leaf = [](IntArrayRef s) { return randn(s, kDouble).requires_grad_(true); };
  for (EmbeddingBagMode m : std::vector<EmbeddingBagMode>{kSum, kMean, kMax}) {
    SCOPED_TRACE(m.name());
    EXPECT_EQ(autograd::gradcheck(
                  [&](const V& v) {
                    return V{F::embedding_bag(idx, v[0], mode(m).offsets(off).padding_idx(3))};
                  },
                  {leaf({6, 3})}),
              "");
  }
  EXPECT_EQ(
      autograd::gradcheck(
          [&](const V& v) {
            return V{F::embedding_bag(idx, v[0], mode(kSum).offsets(off).per_sample_weights(v[1]))};
          },
          {leaf({6, 3}), leaf({8})}),
      "");
}

}  // namespace
}  // namespace testing
}  // namespace ember
