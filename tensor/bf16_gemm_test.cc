// Note [bfloat16 CPU GEMM]: oneDNN's bfloat16 matmul (called directly,
// split across threads, and through the public products when
// EMBER_CPU_GEMM=onednn pins it) against float64 products of the same
// bfloat16 values.
#include <cstdlib>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tensor/blas.h"
#include "tensor/cpu_info.h"
#include "tensor/creation.h"
#include "tensor/error.h"
#include "tensor/linalg.h"
#include "tensor/math.h"
#include "tensor/onednn.h"
#include "tensor/parallel.h"
#include "tensor/random.h"

namespace ember {
namespace {

// The largest difference from `want`, relative to max(1, its largest value).
double rel_err(const Tensor& got, const Tensor& want) {
  const double scale = want.abs().max().item<double>() + 1;
  return (got.to(kDouble) - want.to(kDouble)).abs().max().item<double>() / scale;
}

// A bfloat16 matrix (and its float64 twin) of `rows` x `cols` seen through a
// larger buffer: rows `ld` apart, or columns when `trans` (BLAS's op(X)).
struct Operand {
  Tensor storage;  // bfloat16, what the call reads
  Tensor value;    // float64 [rows, cols], the logical matrix
  int64_t ld;
};

Operand operand(int64_t rows, int64_t cols, bool trans, int64_t pad) {
  const Tensor full = trans ? randn({cols, rows + pad}) : randn({rows, cols + pad});
  Operand o;
  o.storage = full.to(kBFloat16);
  const Tensor logical = trans ? o.storage.slice(1, 0, rows).t() : o.storage.slice(1, 0, cols);
  o.value = logical.to(kDouble);
  o.ld = trans ? rows + pad : cols + pad;
  return o;
}

struct GemmCase {
  int64_t m, n, k;
  bool ta, tb;
  float alpha, beta;
};

const GemmCase kCases[] = {
    {7, 5, 9, false, false, 1, 0},   {7, 5, 9, true, false, 1, 0},
    {7, 5, 9, false, true, 0.5, 0},  {7, 5, 9, true, true, 1, 2},
    {1, 17, 33, false, false, 1, 1}, {33, 1, 8, false, true, -1, 0.25},
    {64, 48, 80, true, false, 1, 0},
};

// C = alpha op(A) op(B) + beta C in float32 from bfloat16 operands, within
// float accumulation of the float64 result.
void check_case(const GemmCase& g, bool split) {
  manual_seed(3);
  const Operand a = operand(g.m, g.k, g.ta, 3), b = operand(g.k, g.n, g.tb, 2);
  const Tensor c0 = randn({g.m, g.n});
  Tensor c = c0.clone();
  const auto* ap = static_cast<const BFloat16*>(a.storage.data_ptr());
  const auto* bp = static_cast<const BFloat16*>(b.storage.data_ptr());
  if (split) {
    detail::blas_gemm(g.ta, g.tb, g.m, g.n, g.k, g.alpha, ap, a.ld, bp, b.ld, g.beta,
                      c.data_ptr<float>(), g.n);
  } else {
    ASSERT_TRUE(detail::onednn::gemm_bf16(g.ta, g.tb, g.m, g.n, g.k, g.alpha, ap, a.ld, bp, b.ld,
                                          g.beta, c.data_ptr<float>(), g.n));
  }
  Tensor want = a.value.mm(b.value) * g.alpha;
  if (g.beta != 0) want = want + c0.to(kDouble) * g.beta;
  EXPECT_LT(rel_err(c, want), 1e-5)
      << g.m << "x" << g.n << "x" << g.k << " ta " << g.ta << " tb " << g.tb << " split " << split;
}

// oneDNN builds bfloat16 matmuls on CPUs with AVX-512 (natively or
// emulated) and declines elsewhere: on AVX2-only hosts gemm_bf16 returns
// false and the products keep the float32 copy (issue 18: whatever is
// fastest there). A decline anywhere else is a failure.
bool bf16_matmul_here() {
  static const bool here = !detail::onednn::gemm_impl_bf16().empty();
  return here;
}
bool declines_only_without_avx512() {
  if (bf16_matmul_here()) return false;
  EXPECT_FALSE(cpu_info().avx512f) << "oneDNN declined a bfloat16 matmul on an AVX-512 CPU";
  return true;
}

TEST(BFloat16Gemm, MatmulMatchesFloat64) {
  if (declines_only_without_avx512()) {
    const GemmCase& g = kCases[0];
    const Operand a = operand(g.m, g.k, g.ta, 3), b = operand(g.k, g.n, g.tb, 2);
    Tensor c = randn({g.m, g.n});
    EXPECT_FALSE(detail::onednn::gemm_bf16(g.ta, g.tb, g.m, g.n, g.k, g.alpha, a.storage.data_ptr(),
                                           a.ld, b.storage.data_ptr(), b.ld, g.beta,
                                           c.data_ptr<float>(), g.n));
    GTEST_SKIP() << "no oneDNN bfloat16 matmul on this CPU (" << cpu_info().isa_level() << ")";
  }
  for (const GemmCase& g : kCases) check_case(g, false);
}

// Through blas_gemm on two threads: rows split (m >= n), columns split, and
// small products kept whole.
TEST(BFloat16Gemm, SplitAcrossThreadsMatchesFloat64) {
  if (declines_only_without_avx512()) {
    // Called directly (the products check first), blas_gemm says why.
    const GemmCase& g = kCases[0];
    const Operand a = operand(g.m, g.k, g.ta, 3), b = operand(g.k, g.n, g.tb, 2);
    Tensor c = randn({g.m, g.n});
    std::string error;
    try {
      detail::blas_gemm(g.ta, g.tb, g.m, g.n, g.k, g.alpha,
                        static_cast<const BFloat16*>(a.storage.data_ptr()), a.ld,
                        static_cast<const BFloat16*>(b.storage.data_ptr()), b.ld, g.beta,
                        c.data_ptr<float>(), g.n);
    } catch (const Error& e) {
      error = e.what();
    }
    EXPECT_NE(error.find("oneDNN has no bfloat16 matmul"), std::string::npos) << error;
    GTEST_SKIP() << "no oneDNN bfloat16 matmul on this CPU (" << cpu_info().isa_level() << ")";
  }
  set_num_threads(2);
  for (const GemmCase& g : kCases) check_case(g, true);
  for (const GemmCase& g :
       {GemmCase{96, 130, 90, false, true, 1, 0}, GemmCase{150, 70, 100, true, false, 2, 1}}) {
    check_case(g, true);
  }
  set_num_threads(1);
}

// Without a pin, the matmul takes bfloat16 products only where the CPU has
// native bfloat16 instructions (this one may or may not).
TEST(BFloat16Gemm, DefaultChoiceFollowsNativeBFloat16) {
  if (std::getenv("EMBER_CPU_GEMM") != nullptr) GTEST_SKIP() << "EMBER_CPU_GEMM is set";
  EXPECT_EQ(detail::use_bf16_gemm(), detail::onednn::native_bf16());
}

// EMBER_CPU_GEMM=onednn sends the public bfloat16 products to the matmul
// (in a child: the choice is read once per process), on two threads: each
// within bfloat16 rounding of the float64 product of the same values, and
// as bfloat16.
bool close(const Tensor& got, const Tensor& want) {
  return got.dtype() == kBFloat16 && got.sizes() == want.sizes() && rel_err(got, want) < 8e-3;
}

bool bf16_products_agree_with_float64() {
  if (!detail::use_bf16_gemm()) return false;
  set_num_threads(2);
  manual_seed(4);
  auto bf = [](const Tensor& t) { return t.to(kBFloat16); };
  auto d = [](const Tensor& t) { return t.to(kDouble); };
  const Tensor a = bf(randn({40, 70})), b = bf(randn({70, 90})), bias = bf(randn({90}));
  const Tensor x3 = bf(randn({4, 30, 70})), y3 = bf(randn({4, 90, 70}));
  const Tensor v = bf(randn({70})), w = bf(randn({70}));
  // A row-strided slice and a transposed batch reach the matmul unpacked,
  // a doubly strided one packed.
  const Tensor sliced = bf(randn({40, 140})).slice(1, 0, 140, 2);
  return close(a.mm(b), d(a).mm(d(b))) &&
         close(a.t().t().mm(b.t().contiguous().t()), d(a).mm(d(b))) &&
         close(addmm(bias, a, b, 0.5, 2), d(bias) * 0.5 + d(a).mm(d(b)) * 2) &&
         close(bmm(x3, y3.transpose(1, 2)), d(x3).bmm(d(y3).transpose(1, 2))) &&
         close(matmul(x3, b), d(x3).matmul(d(b))) && close(a.mv(v), d(a).mv(d(v))) &&
         close(v.dot(w), d(v).dot(d(w))) && close(sliced.mm(b), d(sliced).mm(d(b))) &&
         close(sliced.t().t().slice(0, 0, 40, 3).mm(b), d(sliced).slice(0, 0, 40, 3).mm(d(b))) &&
         // An empty reduction: beta * C alone, and zeros.
         close(addmm(bias, bf(randn({40, 0})), bf(randn({0, 90})), 0.5, 2),
               (d(bias) * 0.5).expand({40, 90})) &&
         close(bf(randn({3, 0})).mm(bf(randn({0, 4}))), zeros({3, 4}, TensorOptions(kDouble)));
}

TEST(BFloat16Gemm, PublicProductsTakeTheMatmulWhenPinned) {
  if (declines_only_without_avx512()) {
    GTEST_SKIP() << "no oneDNN bfloat16 matmul on this CPU (" << cpu_info().isa_level() << ")";
  }
  ::testing::FLAGS_gtest_death_test_style = "threadsafe";
  EXPECT_EXIT(
      {
        setenv("EMBER_CPU_GEMM", "onednn", 1);
        std::exit(bf16_products_agree_with_float64() ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

// EMBER_CPU_GEMM=openblas keeps the float32 copy for bfloat16.
TEST(BFloat16Gemm, OpenBlasPinKeepsTheFloatCopy) {
  ::testing::FLAGS_gtest_death_test_style = "threadsafe";
  EXPECT_EXIT(
      {
        setenv("EMBER_CPU_GEMM", "openblas", 1);
        std::exit(detail::use_bf16_gemm() ? 1 : 0);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace ember
