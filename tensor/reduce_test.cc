// Reductions, scans and softmax against PyTorch 1.13 (values from
// tools/golden/reduce.py).

#include "tensor/reduce.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "tensor/creation.h"
#include "tensor/empty.h"
#include "tensor/parallel.h"
#include "tensor/random.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using testing::error_of;
using testing::from_values;
using testing::GoldenEntry;
using testing::make_input;  // mk() in tools/golden/golden_util.py

const GoldenEntry kGolden[] = {
#include "tensor/testdata/reduce_golden.inc"
};

// Sizes, dtype and values of PyTorch's result; floating values within a
// relative tolerance `rel` (PyTorch's float64 value vs ember's result in
// `dtype`). Integer and bool results must be exact.
::testing::AssertionResult Near(const Tensor& t, const std::string& name, ScalarType dtype,
                                double rel = 0) {
  return testing::near_golden(t, testing::find_golden(kGolden, name), dtype, rel);
}

constexpr double kF = 1e-6;   // float32 results vs PyTorch's float64
constexpr double kH = 4e-3;   // float16 / bfloat16

TEST(SumTest, WholeAndAlongDims) {
  Tensor x = make_input({3, 4, 5});
  EXPECT_TRUE(Near(x.sum(), "sum_all", kFloat, kF));
  EXPECT_TRUE(Near(x.sum({1}), "sum_dim1", kFloat, kF));
  EXPECT_TRUE(Near(x.sum({0, 2}, true), "sum_dims02_keep", kFloat, kF));
  EXPECT_TRUE(Near(sum(x, {-1}), "sum_neg_dim", kFloat, kF));
}

TEST(SumTest, NonContiguousInputs) {
  Tensor x = make_input({3, 4, 5});
  EXPECT_TRUE(Near(x.transpose(0, 2).sum({0}), "sum_transposed_dim0", kFloat, kF));
  EXPECT_TRUE(Near(x.transpose(0, 2).sum({2}), "sum_transposed_dim2", kFloat, kF));
  EXPECT_TRUE(Near(x.slice(1, 0, 4, 2).slice(2, 1, 5).sum({1}), "sum_sliced", kFloat, kF));
  EXPECT_TRUE(Near(make_input({1, 4}, kDouble).expand({3, 4}).sum({0}), "sum_expanded", kDouble));
}

TEST(SumTest, IntegerBoolAndReducedFloatDtypes) {
  EXPECT_TRUE(Near(make_input({3, 4}, kInt).sum({1}), "sum_int32", kLong));
  EXPECT_TRUE(Near(make_input({3, 4}, kByte).sum(), "sum_uint8", kLong));
  EXPECT_TRUE(Near(make_input({3, 4}, kBool).sum({0}), "sum_bool", kLong));
  EXPECT_TRUE(Near(make_input({3, 4}, kInt).sum({1}, false, kFloat), "sum_int_dtype_float", kFloat));
  EXPECT_EQ(make_input({3, 4}, kInt).sum(kInt).dtype(), kInt);
  EXPECT_TRUE(Near(make_input({3, 4}, kHalf).sum({1}), "sum_half", kHalf));
  EXPECT_TRUE(Near(make_input({3, 4}, kBFloat16).sum({0}), "sum_bfloat16", kBFloat16));
}

TEST(SumTest, EmptyReductionIsZero) {
  EXPECT_TRUE(Near(empty({2, 0}).sum({1}), "sum_empty_dim", kFloat));
}

Tensor BigInput(int64_t n) {
  Tensor t = empty({n}, kFloat);
  for (int64_t i = 0; i < n; ++i) t.data_ptr<float>()[i] = static_cast<float>((i % 1000) * 0.001);
  return t;
}

TEST(SumTest, LargeParallelSumsMatchFloat64) {
  // Chunked across threads; the result must not depend on the thread count.
  Tensor big = BigInput(100003);
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    EXPECT_TRUE(Near(big.sum(), "sum_big", kFloat, 1e-6)) << threads;
  }
  Tensor b2 = big.slice(0, 0, 100000);
  EXPECT_TRUE(Near(b2.view({4, 25000}).sum({1}), "sum_big_rows", kFloat, 1e-6));
  EXPECT_TRUE(Near(b2.view({25000, 4}).sum({0}), "sum_big_cols", kFloat, 1e-6));
  set_num_threads(1);
  float one = big.sum().item<float>();
  set_num_threads(2);
  EXPECT_EQ(big.sum().item<float>(), one);
}

// Reducing only dims of size 1 (every output is one input element), on a
// transposed input and over more outputs than one thread's grain, by every
// kind of reduction: each output is that element's own reduction.
TEST(SumTest, ReductionsOverSizeOneDims) {
  const Tensor base = randn({300, 1, 70});
  const Tensor x = base.transpose(0, 2);  // [70, 1, 300], strides (1, 70, 70)
  const Tensor v = x.squeeze(1);
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    EXPECT_TRUE(x.sum(1).equal(v)) << threads;
    EXPECT_TRUE(x.sum({1}, /*keepdim=*/true).equal(x)) << threads;
    EXPECT_TRUE(x.mean(1).equal(v)) << threads;
    EXPECT_TRUE(x.prod(1).equal(v)) << threads;
    EXPECT_TRUE(x.amax(1).equal(v)) << threads;
    EXPECT_TRUE(x.abs().norm(2, 1).allclose(v.abs(), 1e-6, 0)) << threads;
    EXPECT_TRUE(x.logsumexp(1).allclose(v, 1e-6, 1e-6)) << threads;
    auto [values, indices] = x.max(1);
    EXPECT_TRUE(values.equal(v)) << threads;
    EXPECT_TRUE(indices.equal(zeros({70, 300}, TensorOptions(kLong)))) << threads;
    EXPECT_TRUE(x.var(1, /*unbiased=*/false).equal(zeros({70, 300}))) << threads;
    EXPECT_TRUE(x.var(1).isnan().all().item<bool>()) << threads;  // n - 1 = 0
    EXPECT_TRUE((x > 0).any(1).equal(v > 0)) << threads;
    // A bfloat16 input sums in float and rounds back: the values themselves.
    const Tensor b = x.to(kBFloat16);
    EXPECT_TRUE(b.sum(1).equal(b.squeeze(1))) << threads;
  }
  set_num_threads(1);
}

// Note [Short sum rows] (reduce_kernels.cc): sums and means over a
// contiguous last dim shorter than one AVX2 register are a double add chain
// from 0 in order, rounded once (as the engine computed them), checked here
// against that chain, with -0, infinities
// and NaN among the values, in float and double, on two threads.
template <typename T>
void expect_short_rows(ScalarType dtype) {
  const int threads = get_num_threads();
  set_num_threads(2);
  const double inf = std::numeric_limits<double>::infinity();
  for (int64_t n = 1; n < 32 / static_cast<int64_t>(sizeof(T)); ++n) {
    const int64_t rows = 5003;
    Tensor x = randn({rows, n}, TensorOptions(dtype)) * 1000;
    T* p = x.data_ptr<T>();
    p[3] = -0.0;
    p[7 % (rows * n)] = static_cast<T>(inf);
    p[n * 11] = static_cast<T>(-inf);
    p[n * 13 + n - 1] = static_cast<T>(std::nan(""));
    for (int64_t k = 0; k < n; ++k) p[n * 17 + k] = -0.0;  // an all -0 row sums to +0
    const Tensor s = x.sum(1), m = x.mean(1);
    for (int64_t r = 0; r < rows; ++r) {
      double t = 0;
      for (int64_t k = 0; k < n; ++k) t += static_cast<double>(p[r * n + k]);
      const T want_s = static_cast<T>(t), want_m = static_cast<T>(t * (1.0 / n));
      const T got_s = s.data_ptr<T>()[r], got_m = m.data_ptr<T>()[r];
      if (std::isnan(want_s)) {
        EXPECT_TRUE(std::isnan(got_s)) << n << " " << r;
        EXPECT_TRUE(std::isnan(got_m)) << n << " " << r;
        continue;
      }
      EXPECT_EQ(std::memcmp(&got_s, &want_s, sizeof(T)), 0) << n << " " << r << ": " << got_s;
      EXPECT_EQ(std::memcmp(&got_m, &want_m, sizeof(T)), 0) << n << " " << r << ": " << got_m;
    }
  }
  set_num_threads(threads);
}

TEST(SumTest, ShortLastDimRows) {
  expect_short_rows<float>(kFloat);
  expect_short_rows<double>(kDouble);
}

// And sums over dim 0 of 1 to 33 rows into contiguous outputs (reduce_kernels.cc's
// sum_short_columns): each output the rows' double chain in order, rounded once.
template <typename T>
void expect_short_columns(ScalarType dtype) {
  const int threads = get_num_threads();
  set_num_threads(2);
  for (int64_t n : {1, 2, 3, 7, 8, 31, 32, 33}) {
    const int64_t cols = 3001;
    Tensor x = randn({n, cols}, TensorOptions(dtype)) * 1000;
    T* p = x.data_ptr<T>();
    p[5] = std::numeric_limits<T>::infinity();
    p[cols - 1] = static_cast<T>(std::nan(""));
    for (int64_t r = 0; r < n; ++r) p[r * cols + 9] = -0.0;  // an all -0 column sums to +0
    const Tensor s = x.sum(0), m = x.mean(0);
    for (int64_t c = 0; c < cols; ++c) {
      double t = 0;
      for (int64_t r = 0; r < n; ++r) t += static_cast<double>(p[r * cols + c]);
      const T want_s = static_cast<T>(t), want_m = static_cast<T>(t * (1.0 / n));
      const T got_s = s.data_ptr<T>()[c], got_m = m.data_ptr<T>()[c];
      if (std::isnan(want_s)) {
        EXPECT_TRUE(std::isnan(got_s) && std::isnan(got_m)) << n << " " << c;
        continue;
      }
      EXPECT_EQ(std::memcmp(&got_s, &want_s, sizeof(T)), 0) << n << " " << c << ": " << got_s;
      EXPECT_EQ(std::memcmp(&got_m, &want_m, sizeof(T)), 0) << n << " " << c << ": " << got_m;
    }
  }
  set_num_threads(threads);
}

TEST(SumTest, FewRowsIntoContiguousOutputs) {
  expect_short_columns<float>(kFloat);
  expect_short_columns<double>(kDouble);
}

TEST(MeanTest, FloatDtypes) {
  Tensor x = make_input({3, 4, 5});
  EXPECT_TRUE(Near(x.mean({2}), "mean_dim2", kFloat, kF));
  EXPECT_TRUE(Near(x.mean(), "mean_all", kFloat, kF));
  EXPECT_TRUE(Near(x.mean({0, 1}, true), "mean_keep", kFloat, kF));
  EXPECT_TRUE(Near(make_input({3, 4}, kHalf).mean({1}), "mean_half", kHalf, kH));
  EXPECT_TRUE(Near(make_input({3, 4}, kInt).mean({1}, false, kDouble), "mean_int_dtype", kDouble));
  EXPECT_TRUE(Near(empty({0}).mean(), "mean_empty", kFloat));
}

TEST(MeanTest, IntegerInputErrors) {
  EXPECT_EQ(error_of([] { make_input({3}, kLong).mean(); }),
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            "complex dtype. Got: Long");
  EXPECT_EQ(error_of([] { make_input({2, 3}).mean({1}, false, kLong); }),
            "mean(): could not infer output dtype. Optional dtype must be either a floating point "
            "or complex dtype. Got: Long");
}

TEST(ProdTest, Dtypes) {
  EXPECT_TRUE(Near(make_input({3, 4, 5}, kDouble).prod(1), "prod_dim1", kDouble, 1e-15));
  EXPECT_TRUE(Near(make_input({3, 4}, kShort).prod(1), "prod_int", kLong));
  EXPECT_TRUE(Near(make_input({3, 4}, kBool).prod(1), "prod_bool", kLong));
  EXPECT_TRUE(Near(make_input({2, 3}, kDouble).prod(), "prod_all", kDouble));
}

TEST(DimErrorsTest, BadAndRepeatedDims) {
  Tensor x = make_input({2, 3});
  EXPECT_EQ(error_of([&] { x.sum({0, 0}); }), "dim 0 appears multiple times in the list of dims");
  EXPECT_EQ(error_of([&] { x.sum({2}); }),
            "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  EXPECT_THROW(x.amax({-3}), IndexError);
}

TEST(MaxMinTest, WholeTensorAndAlongDim) {
  Tensor x = make_input({3, 4, 5});
  EXPECT_TRUE(Near(x.max(), "max_all", kFloat));
  EXPECT_TRUE(Near(x.min(), "min_all", kFloat));
  auto [v, i] = x.max(1);
  EXPECT_TRUE(Near(v, "max_dim1_values", kFloat));
  EXPECT_TRUE(Near(i, "max_dim1_indices", kLong));
  auto [v2, i2] = x.min(2, true);
  EXPECT_TRUE(Near(v2, "min_dim2_values", kFloat));
  EXPECT_TRUE(Near(i2, "min_dim2_indices", kLong));
  auto [v3, i3] = x.transpose(0, 2).max(0);
  EXPECT_TRUE(Near(v3, "max_transposed_values", kFloat));
  EXPECT_TRUE(Near(i3, "max_transposed_indices", kLong));
}

TEST(MaxMinTest, AmaxAminAndArgTiesPickFirst) {
  Tensor x = make_input({3, 4, 5});
  EXPECT_TRUE(Near(x.amax({1, 2}), "amax_dims12", kFloat));
  EXPECT_TRUE(Near(x.amin({0}, true), "amin_dim0_keep", kFloat));
  EXPECT_TRUE(Near(x.argmax(), "argmax_all", kLong));
  EXPECT_TRUE(Near(x.argmin(1), "argmin_dim1", kLong));
  EXPECT_TRUE(Near(x.argmax(0, true), "argmax_dim0_keep", kLong));
  EXPECT_TRUE(Near(x.argmax(std::nullopt, true), "argmax_keep_nodim", kLong));
  EXPECT_TRUE(Near(x.transpose(0, 1).argmax(2), "argmax_transposed", kLong));
}

TEST(MaxMinTest, NanPropagates) {
  double nan = std::nan("");
  Tensor t = from_values({2, 4}, {1, nan, 3, nan, 2, 5, 5, -1}, kFloat);
  EXPECT_TRUE(Near(t.max(), "max_nan", kFloat));
  auto [v, i] = t.max(1);
  EXPECT_TRUE(Near(v, "max_nan_values", kFloat));
  EXPECT_TRUE(Near(i, "max_nan_indices", kLong));
  EXPECT_TRUE(Near(t.argmin(1), "argmin_nan", kLong));
  EXPECT_TRUE(Near(t.amax({1}), "amax_nan", kFloat));
}

TEST(MaxMinTest, OtherDtypesAndScalars) {
  EXPECT_TRUE(Near(std::get<0>(make_input({3, 4}, kChar).max(1)), "max_int8", kChar));
  EXPECT_TRUE(Near(make_input({3, 4}, kChar).argmax(1), "argmax_int8", kLong));
  EXPECT_TRUE(Near(std::get<0>(make_input({3, 4}, kBool).max(1)), "max_bool", kBool));
  EXPECT_TRUE(Near(make_input({3, 4}, kHalf).amin({1}), "amin_half", kHalf));
  Tensor s = from_values({}, {2.5}, kFloat);
  EXPECT_TRUE(Near(std::get<0>(s.max(0)), "max_scalar_values", kFloat));
  EXPECT_TRUE(Near(std::get<1>(s.max(0)), "max_scalar_indices", kLong));
  EXPECT_TRUE(Near(std::get<0>(empty({0, 3}).max(1)), "max_empty_other_dim", kFloat));
  EXPECT_EQ(error_of([] { make_input({3}, kBool).argmax(); }),
            "\"argmax_cpu\" not implemented for 'Bool'");
}

TEST(MaxMinTest, EmptyErrors) {
  EXPECT_EQ(error_of([] { empty({0}).max(); }),
            "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
            "reduction dim with the 'dim' argument.");
  EXPECT_EQ(error_of([] { empty({0}).min(); }),
            "min(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
            "reduction dim with the 'dim' argument.");
  EXPECT_EQ(error_of([] { empty({0}).amax(); }),
            "amax(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
            "reduction dim with the 'dim' argument.");
  EXPECT_THROW(empty({0}).argmax(), IndexError);
  EXPECT_EQ(error_of([] { empty({0}).argmax(); }),
            "argmax(): Expected reduction dim to be specified for input.numel() == 0.");
  EXPECT_THROW(empty({2, 0}).max(1), IndexError);
  EXPECT_EQ(error_of([] { empty({2, 0}).max(1); }),
            "max(): Expected reduction dim 1 to have non-zero size.");
  EXPECT_EQ(error_of([] { empty({2, 0}).amax({1}); }),
            "amax(): Expected reduction dim 1 to have non-zero size.");
}

// Note: `x.var({1})` would pick var(bool unbiased) (a braced 1 converts to
// bool), as in libtorch; dims are spelled IntArrayRef{...} here.
TEST(VarStdTest, Values) {
  Tensor x = make_input({3, 4, 5});
  EXPECT_TRUE(Near(x.var(), "var_all", kFloat, kF));
  EXPECT_TRUE(Near(x.var(IntArrayRef{1}), "var_dim1", kFloat, kF));
  EXPECT_TRUE(Near(x.var({0, 2}, false), "var_biased_dims", kFloat, kF));
  EXPECT_TRUE(Near(var(x, std::optional<IntArrayRef>(IntArrayRef{2}), std::optional<int64_t>(2), true), "var_correction2", kFloat, kF));
  EXPECT_TRUE(Near(x.std(IntArrayRef{0}), "std_dim0", kFloat, kF));
  EXPECT_TRUE(Near(x.transpose(0, 2).std(IntArrayRef{0}), "std_transposed", kFloat, kF));
  EXPECT_TRUE(Near(from_values({1}, {1}, kDouble).var(), "var_single", kDouble));
  EXPECT_TRUE(Near(make_input({3, 4}, kHalf).var(IntArrayRef{1}), "var_half", kHalf, kH));
  auto [s, m] = std_mean(x, {1});
  EXPECT_TRUE(Near(s, "std_mean_std", kFloat, kF));
  EXPECT_TRUE(Near(m, "std_mean_mean", kFloat, kF));
}

// A braced dim list is a dim list, never the `unbiased` flag.
TEST(VarStdTest, BracedDimListIsADim) {
  Tensor x = make_input({3, 4, 5});
  EXPECT_TRUE(Near(x.var({1}), "var_dim1", kFloat, kF));
  EXPECT_TRUE(Near(var(x, {1}), "var_dim1", kFloat, kF));
  EXPECT_TRUE(Near(x.std({0}), "std_dim0", kFloat, kF));
  EXPECT_TRUE(Near(std(x, {0}), "std_dim0", kFloat, kF));
  EXPECT_TRUE(Near(x.var(true), "var_all", kFloat, kF));
}

TEST(VarStdTest, IntegerInputErrors) {
  EXPECT_EQ(error_of([] { make_input({3}, kLong).var(); }),
            "std and var only support floating point and complex dtypes");
  EXPECT_EQ(error_of([] { make_input({3}, kInt).std(); }),
            "std and var only support floating point and complex dtypes");
}

TEST(NormTest, EveryP) {
  Tensor x = make_input({3, 4, 5});
  const double inf = INFINITY;
  EXPECT_TRUE(Near(x.norm(2, {2}), "norm_p2_dim2", kFloat, kF));
  EXPECT_TRUE(Near(x.norm(1, {2}), "norm_p1_dim2", kFloat, kF));
  EXPECT_TRUE(Near(x.norm(inf, {2}), "norm_pinf_dim2", kFloat, kF));
  EXPECT_TRUE(Near(x.norm(-inf, {2}), "norm_pneginf_dim2", kFloat, kF));
  EXPECT_TRUE(Near(x.norm(0, {2}), "norm_p0_dim2", kFloat, kF));
  EXPECT_TRUE(Near(x.norm(3, {2}), "norm_p3_dim2", kFloat, kF));
  EXPECT_TRUE(Near(x.norm(0.5, {2}), "norm_phalf_dim2", kFloat, kF));
  EXPECT_TRUE(Near(x.norm(), "norm_all", kFloat, kF));
  EXPECT_TRUE(Near(norm(x, "fro", {0, 1}), "norm_fro_dims", kFloat, kF));
  EXPECT_TRUE(Near(x.norm(1, {1, 2}, true), "norm_keep", kFloat, kF));
  EXPECT_TRUE(Near(make_input({3, 4}, kBFloat16).norm(), "norm_bfloat16", kBFloat16, 1e-2));
  EXPECT_EQ(error_of([] { make_input({3}, kLong).norm(); }),
            "norm(): input dtype should be either floating point or complex. Got Long instead.");
}

TEST(LogSumExpTest, StableValues) {
  Tensor x = make_input({3, 4, 5});
  EXPECT_TRUE(Near(x.logsumexp({1}), "logsumexp_dim1", kFloat, kF));
  EXPECT_TRUE(Near(x.logsumexp({0, 2}, true), "logsumexp_dims", kFloat, kF));
  EXPECT_TRUE(Near(from_values({2, 3}, {1000, 1000, 990, -1000, -1001, -1002}, kDouble)
                       .logsumexp({1}),
                   "logsumexp_large", kDouble, 1e-15));
  EXPECT_TRUE(Near(from_values({2}, {-INFINITY, -INFINITY}, kFloat).logsumexp({0}),
                   "logsumexp_inf", kFloat));
  EXPECT_TRUE(Near(from_values({3}, {INFINITY, 1, INFINITY}, kFloat).logsumexp({0}),
                   "logsumexp_posinf", kFloat));
  EXPECT_TRUE(Near(make_input({3, 4}, kInt).logsumexp({1}), "logsumexp_int", kFloat, kF));
}

TEST(AllAnyTest, DtypesAndDims) {
  EXPECT_TRUE(Near(make_input({3, 4}).all(1), "all_dim1", kBool));
  EXPECT_TRUE(Near(make_input({3, 4}, kInt).any(0), "any_dim0", kBool));
  EXPECT_TRUE(Near(make_input({3, 4}, kByte).all(), "all_uint8", kByte));
  EXPECT_TRUE(Near(make_input({3, 4}, kBool).any(1), "any_bool", kBool));
  EXPECT_TRUE(Near(make_input({3, 4}, kBool).all(), "all_bool_all", kBool));
  EXPECT_TRUE(Near(make_input({3, 4, 5}, kLong).count_nonzero(), "count_nonzero_all", kLong));
  EXPECT_TRUE(Near(make_input({3, 4, 5}).count_nonzero(1), "count_nonzero_dim", kLong));
}

TEST(CumulativeTest, CumsumCumprod) {
  Tensor x = make_input({3, 4, 5});
  EXPECT_TRUE(Near(x.cumsum(1), "cumsum_dim1", kFloat, kF));
  EXPECT_TRUE(Near(x.cumsum(2), "cumsum_dim2", kFloat, kF));
  EXPECT_TRUE(Near(x.transpose(0, 2).cumsum(1), "cumsum_transposed", kFloat, kF));
  EXPECT_TRUE(Near(make_input({3, 4}, kInt).cumsum(1), "cumsum_int", kLong));
  EXPECT_TRUE(Near(make_input({3, 4}, kBool).cumsum(0), "cumsum_bool", kLong));
  EXPECT_TRUE(Near(make_input({3, 4}, kInt).cumsum(1, kInt), "cumsum_int_dtype", kInt));
  EXPECT_TRUE(Near(make_input({3, 4}, kDouble).cumprod(0), "cumprod_dim0", kDouble));
  EXPECT_TRUE(Near(make_input({3, 4}, kLong).cumprod(1), "cumprod_int", kLong));
  EXPECT_THROW(x.cumsum(3), IndexError);
}

TEST(SoftmaxTest, Values) {
  Tensor x = make_input({3, 4, 5});
  EXPECT_TRUE(Near(x.softmax(2), "softmax_dim2", kFloat, kF));
  EXPECT_TRUE(Near(x.softmax(0), "softmax_dim0", kFloat, kF));
  EXPECT_TRUE(Near(x.transpose(0, 2).softmax(1), "softmax_transposed", kFloat, kF));
  EXPECT_TRUE(Near(x.log_softmax(1), "log_softmax_dim1", kFloat, kF));
  EXPECT_TRUE(Near(log_softmax(x, -1), "log_softmax_dim2", kFloat, kF));
  EXPECT_TRUE(Near(make_input({3, 4}, kLong).softmax(1, kFloat), "softmax_int_dtype", kFloat, kF));
  Tensor big = from_values({1, 3}, {1000, 999, -1000}, kDouble);
  EXPECT_TRUE(Near(big.softmax(1), "softmax_large", kDouble, 1e-15));
  EXPECT_TRUE(Near(big.log_softmax(1), "log_softmax_large", kDouble, 1e-15));
  EXPECT_TRUE(Near(from_values({}, {3}, kFloat).softmax(0), "softmax_scalar", kFloat));
}

TEST(SoftmaxTest, IntegerInputErrors) {
  EXPECT_EQ(error_of([] { make_input({3}, kLong).softmax(0); }),
            "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'");
  EXPECT_EQ(error_of([] { make_input({3}, kLong).log_softmax(0); }),
            "\"log_softmax_lastdim_kernel_impl\" not implemented for 'Long'");
}

}  // namespace
}  // namespace ember
