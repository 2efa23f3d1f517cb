// linalg_spectral.h against PyTorch 1.13 (tools/golden/linalg_spectral.py
// wrote every expected value and message). Singular vectors and
// eigenvectors are compared through reconstructions and absolute values,
// where LAPACK's choice of sign is the only freedom.
#include "tensor/linalg_spectral.h"

#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using testing::GoldenEntry;
using testing::GoldenError;

const GoldenEntry kGolden[] = {
#include "tensor/testdata/linalg_spectral_golden.inc"
};
const GoldenError kErrors[] = {
#include "tensor/testdata/linalg_spectral_errors_golden.inc"
};

Tensor d(std::vector<double> v, std::vector<int64_t> shape) {
  return tensor(v, kDouble).view(shape);
}

// The golden script's inputs.
Tensor A() { return d({4, 1, 2, 1, -3, 0.5, 2, 0.5, 5, 0, 1, -1}, {4, 3}); }
Tensor W() { return A().t(); }
Tensor S3() { return d({2, -1, 0.5, -1, 3, 0.25, 0.5, 0.25, 1}, {3, 3}); }
Tensor B2() { return d({2, 1, 1, 3, 0, 1, -2, 1.5}, {2, 2, 2}); }
Tensor R1() { return d({1, 2, 3, 2, 4, 6, -1, -2, -3}, {3, 3}); }
Tensor R2() { return d({1, 2, 3, 4, 5, 6, 7, 8, 9}, {3, 3}); }
Tensor RHS() { return d({1, 2, 3, 4, 5, 6, 7, 8}, {4, 2}); }
Tensor M() { return d({0.5, -1, 0.25, 2, 0.1, -0.3, 0.7, 1.5, -0.2}, {3, 3}); }
Tensor BIG() { return d({1, 2, -3, 4}, {2, 2}) * 3; }

// t against the golden `name` (computed in float64), within rel.
void expect_golden(const Tensor& t, const std::string& name, double rel = 1e-12,
                   ScalarType dtype = kDouble) {
  EXPECT_TRUE(testing::near_golden(t, testing::find_golden(kGolden, name), dtype, rel)) << name;
}

// The golden's sizes as a list (the "shapes" entries).
std::vector<int64_t> golden_shape(const std::string& name) {
  std::vector<int64_t> out;
  for (double v : testing::find_golden(kGolden, name).values)
    out.push_back(static_cast<int64_t>(v));
  return out;
}

std::vector<int64_t> cat_shapes(std::initializer_list<Tensor> ts, int64_t last) {
  std::vector<int64_t> out;
  for (const Tensor& t : ts) {
    const int64_t from = last < 0 ? 0 : t.dim() - last;
    for (int64_t i = from; i < t.dim(); ++i) out.push_back(t.size(i));
  }
  return out;
}

void expect_error(const std::string& name, const std::function<void()>& f) {
  testing::expect_golden_error(kErrors, name, f);
}

TEST(LinalgSpectralTest, Svd) {
  const std::vector<std::pair<std::string, Tensor>> inputs = {
      {"A", A()}, {"W", W()}, {"S3", S3()}, {"B2", B2()}, {"R1", R1()}};
  for (const auto& [nm, X] : inputs) {
    for (bool full : {true, false}) {
      const std::string p = "svd/" + nm + (full ? "/full" : "/reduced");
      auto [U, S, Vh] = linalg_svd(X, full);
      const int64_t k = S.size(-1);
      expect_golden(S, p + "/S");
      const Tensor Uk = U.narrow(-1, 0, k), Vk = Vh.narrow(-2, 0, k);
      expect_golden(Uk.matmul(S.unsqueeze(-1) * Vk), p + "/USVh");
      if (nm != "R1") {  // R1's vectors for its zero singular values are not unique
        expect_golden(Uk.abs(), p + "/absU", 1e-10);
        expect_golden(Vk.abs(), p + "/absVh", 1e-10);
      }
      EXPECT_EQ(cat_shapes({U, Vh}, 2), golden_shape(p + "/shapes")) << p;
      // Orthonormal columns.
      EXPECT_TRUE(allclose(U.mT().matmul(U), eye(U.size(-1), kDouble).expand_as(U.mT().matmul(U)),
                           1e-12, 1e-12));
    }
    expect_golden(linalg_svdvals(X), "svdvals/" + nm);
  }
  expect_golden(linalg_svdvals(A().to(kFloat)), "svdvals/A/f32", 1e-6, kFloat);
  auto [U, S, V] = A().svd();
  expect_golden(U.matmul(S.unsqueeze(-1) * V.mT()), "torch.svd/A/UUSV");
  EXPECT_EQ(cat_shapes({U, V}, 2), golden_shape("torch.svd/A/shapes"));
  std::tie(U, S, V) = svd(A(), false);
  EXPECT_EQ(cat_shapes({U, V}, 2), golden_shape("torch.svd/A/full/shapes"));
  for (const auto& [nm, X] : {std::pair<std::string, Tensor>{"A", A()}, {"W", W()}}) {
    for (bool some : {true, false}) {
      const std::string p = "torch.svd/" + nm + "/nouv/some" + (some ? "1" : "0");
      std::tie(U, S, V) = X.svd(some, false);
      expect_golden(U, p + "/U", 0);
      expect_golden(S, p + "/S");
      expect_golden(V, p + "/V", 0);
    }
  }
  for (std::vector<int64_t> shape : {std::vector<int64_t>{0, 3}, {3, 0}, {2, 0, 0}}) {
    std::string nm;
    for (size_t i = 0; i < shape.size(); ++i) nm += (i ? "x" : "") + std::to_string(shape[i]);
    std::tie(U, S, V) = linalg_svd(zeros(shape, kDouble));
    EXPECT_EQ(cat_shapes({U, S, V}, -1), golden_shape("svd/empty" + nm + "/shapes")) << nm;
    std::tie(U, S, V) = linalg_svd(zeros(shape, kDouble), false);
    EXPECT_EQ(cat_shapes({U, S, V}, -1), golden_shape("svd/empty" + nm + "/reduced/shapes")) << nm;
  }
}

TEST(LinalgSpectralTest, Eigh) {
  const Tensor A3 = A().narrow(0, 0, 3);
  for (const std::string uplo : {"L", "U"}) {
    auto [L, V] = linalg_eigh(A3, uplo);
    expect_golden(L, "eigh/A3/" + uplo + "/L");
    expect_golden(V.matmul(L.unsqueeze(-1) * V.mT()), "eigh/A3/" + uplo + "/VLVt");
    expect_golden(V.abs(), "eigh/A3/" + uplo + "/absV", 1e-10);
    expect_golden(linalg_eigvalsh(A3, uplo), "eigvalsh/A3/" + uplo);
  }
  expect_golden(linalg_eigvalsh(A3, "u"), "eigvalsh/A3/lower_u");
  auto [L, V] = linalg_eigh(S3());
  expect_golden(L, "eigh/S3/L");
  expect_golden(V.abs(), "eigh/S3/absV", 1e-10);
  expect_golden(std::get<0>(linalg_eigh(B2())), "eigh/B2/L");
  expect_golden(std::get<0>(linalg_eigh(S3().to(kFloat))), "eigh/S3/f32/L", 1e-6, kFloat);
  for (bool ev : {false, true}) {
    for (bool up : {false, true}) {
      const std::string p =
          std::string("symeig/A3/ev") + (ev ? "1" : "0") + "/up" + (up ? "1" : "0");
      std::tie(L, V) = A3.symeig(ev, up);
      expect_golden(L, p + "/L");
      expect_golden(V.abs(), p + "/absV", 1e-10);
    }
  }
  std::tie(L, V) = linalg_eigh(zeros({2, 0, 0}, kDouble));
  EXPECT_EQ(cat_shapes({L, V}, -1), golden_shape("eigh/empty/shapes"));
}

TEST(LinalgSpectralTest, Pinv) {
  expect_golden(linalg_pinv(A()), "pinv/A");
  expect_golden(linalg_pinv(W()), "pinv/W");
  expect_golden(linalg_pinv(B2()), "pinv/B2");
  expect_golden(linalg_pinv(R2()), "pinv/R2", 1e-9);
  expect_golden(linalg_pinv(R2(), 0.1), "pinv/R2/rcond");
  expect_golden(linalg_pinv(A(), std::nullopt, 0.5), "pinv/A/rtol");
  expect_golden(linalg_pinv(A(), 3.0, std::nullopt), "pinv/A/atol");
  expect_golden(linalg_pinv(A(), std::optional<double>(1.0), 0.5), "pinv/A/atol_rtol");
  expect_golden(linalg_pinv(B2(), std::optional<Tensor>(tensor({1.0, 2.0}, kDouble))),
                "pinv/B2/atol_t");
  expect_golden(linalg_pinv(S3(), std::optional<Tensor>(), std::nullopt, true), "pinv/S3/herm");
  expect_golden(linalg_pinv(R2() + R2().t(), std::nullopt, 0.1, true), "pinv/R2sym/herm");
  expect_golden(A().pinverse(), "pinverse/A");
  expect_golden(pinverse(R2(), 0.1), "pinverse/R2/rcond");
  expect_golden(linalg_pinv(A().to(kFloat)), "pinv/A/f32", 1e-5, kFloat);
  expect_golden(linalg_pinv(zeros({0, 3}, kDouble)), "pinv/empty");
}

// The solution is a view of LAPACK's column-major buffer, as PyTorch's
// (strides from Debian's PyTorch 1.13).
TEST(LinalgSpectralTest, LstsqSolutionStrides) {
  for (const char* drv : {"gelsy", "gelsd", "gels"}) {
    EXPECT_EQ(std::get<0>(linalg_lstsq(ones({4, 2}, kDouble) + eye(4, 2, kDouble),
                                       ones({4, 3}, kDouble), std::nullopt, drv))
                  .strides(),
              IntArrayRef({1, 4}))
        << drv;
  }
  EXPECT_EQ(std::get<0>(linalg_lstsq(eye(2, 4, kDouble), ones({2, 3}, kDouble))).strides(),
            IntArrayRef({1, 4}));
  EXPECT_EQ(std::get<0>(linalg_lstsq(eye(3, kDouble).expand({2, 3, 3}), ones({2, 3, 2}, kDouble)))
                .strides(),
            IntArrayRef({6, 1, 3}));
}

TEST(LinalgSpectralTest, Lstsq) {
  const std::vector<std::string> parts = {"solution", "residuals", "rank", "singular_values"};
  for (const std::string drv : {"gelsy", "gels", "gelsd", "gelss"}) {
    const std::vector<std::tuple<std::string, Tensor, Tensor>> cases = {
        {"tall", A(), RHS()},
        {"wide", W(), RHS().narrow(0, 0, 3)},
        {"B2", B2(), RHS().narrow(0, 0, 2).expand({2, 2, 2})},
        {"vec", A(), RHS().select(1, 0)},
        {"R1", cat({R1(), R1().narrow(0, 0, 1)}), RHS()}};
    for (const auto& [nm, X, Y] : cases) {
      if (nm == "R1" && drv == "gels") continue;
      auto r = linalg_lstsq(X, Y, std::nullopt, drv);
      const Tensor got[] = {std::get<0>(r), std::get<1>(r), std::get<2>(r), std::get<3>(r)};
      for (size_t k = 0; k < parts.size(); ++k) {
        const std::string name = "lstsq/" + drv + "/" + nm + "/" + parts[k];
        if (nm == "R1" && k == 0) {
          // Rank-deficient: the minimum-norm solution of gelsd/gelss, one
          // of many from gelsy; compare A X instead.
          continue;
        }
        const bool is_rank = k == 2;
        const double tol = (nm == "R1" && k == 3) ? 1e-14 : 1e-10;
        EXPECT_TRUE(testing::near_golden(got[k], testing::find_golden(kGolden, name),
                                         is_rank ? kLong : kDouble, is_rank ? 0 : tol))
            << name;
      }
    }
  }
  auto r = linalg_lstsq(A(), RHS());
  expect_golden(std::get<0>(r), "lstsq/default/tall/solution", 1e-10);
  EXPECT_TRUE(testing::near_golden(
      std::get<2>(r), testing::find_golden(kGolden, "lstsq/default/tall/rank"), kLong));
  r = linalg_lstsq(A(), RHS(), 0.5, "gelsd");
  EXPECT_TRUE(testing::near_golden(std::get<2>(r),
                                   testing::find_golden(kGolden, "lstsq/gelsd/rcond/rank"), kLong));
  expect_golden(std::get<0>(r), "lstsq/gelsd/rcond/solution", 1e-10);
  expect_golden(std::get<0>(linalg_lstsq(A().to(kFloat), RHS().to(kFloat))), "lstsq/f32/solution",
                1e-4, kFloat);
}

TEST(LinalgSpectralTest, MatrixRank) {
  auto rank = [](const Tensor& t, const std::string& name) {
    EXPECT_TRUE(testing::near_golden(t, testing::find_golden(kGolden, name), kLong)) << name;
  };
  rank(linalg_matrix_rank(A()), "rank/A");
  rank(linalg_matrix_rank(R1()), "rank/R1");
  rank(linalg_matrix_rank(R2()), "rank/R2");
  rank(linalg_matrix_rank(B2()), "rank/B2");
  rank(linalg_matrix_rank(A(), 4.0, std::nullopt), "rank/A/atol");
  rank(linalg_matrix_rank(A(), std::nullopt, 0.5), "rank/A/rtol");
  rank(linalg_matrix_rank(A(), 4.0), "rank/A/tol");
  rank(linalg_matrix_rank(S3(), std::optional<Tensor>(), std::nullopt, true), "rank/S3/herm");
  rank(linalg_matrix_rank(R2() + R2().t(), std::optional<Tensor>(), std::nullopt, true),
       "rank/R2/herm");
  rank(linalg_matrix_rank(B2(), std::optional<Tensor>(tensor({1.0, 3.0}, kDouble))),
       "rank/B2/atol_t");
  rank(linalg_matrix_rank(zeros({2, 0, 3}, kDouble)), "rank/empty");
}

TEST(LinalgSpectralTest, MatrixExp) {
  expect_golden(matrix_exp(M()), "matrix_exp/M");
  expect_golden(linalg_matrix_exp(BIG()), "matrix_exp/BIG");
  expect_golden(B2().matrix_exp(), "matrix_exp/B2");
  expect_golden(zeros({2, 2}, kDouble).matrix_exp(), "matrix_exp/zero");
  expect_golden(M().to(kFloat).matrix_exp(), "matrix_exp/M/f32", 1e-6, kFloat);
  expect_golden(d({2}, {1, 1}).matrix_exp(), "matrix_exp/1x1");
  expect_golden(zeros({0, 0}, kDouble).matrix_exp(), "matrix_exp/empty");
  expect_golden((M() * 40).matrix_exp(), "matrix_exp/large", 1e-10);
}

// Note [Non-finite input to the SVD]: NaN raises PyTorch 1.13's message;
// infinities give its NaN singular values (pinv zeros, rank 0), never a
// LAPACK call that may not return.
TEST(LinalgSpectralTest, NonFiniteInputs) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor with_nan = tensor({{nan, 1.0}, {2.0, 3.0}}, kDouble);
  const std::string nan_message =
      "linalg.svd: The algorithm failed to converge because the input matrix contained "
      "non-finite values.";
  EXPECT_EQ(testing::error_of([&] { linalg_svdvals(with_nan); }), nan_message);
  EXPECT_EQ(testing::error_of([&] { linalg_svd(with_nan.to(kFloat)); }), nan_message);
  EXPECT_EQ(testing::error_of([&] { linalg_pinv(with_nan); }), nan_message);
  const Tensor with_inf = tensor({{inf, 1.0}, {2.0, 3.0}}, kDouble);
  EXPECT_TRUE(linalg_svdvals(with_inf).isnan().all().item<bool>());
  EXPECT_TRUE(linalg_pinv(with_inf).equal(zeros({2, 2}, kDouble)));
  EXPECT_EQ(linalg_matrix_rank(with_inf).item<int64_t>(), 0);
  // Only the bad matrix of a batch is affected.
  const Tensor batch = stack({with_inf, eye(2, kDouble)});
  const Tensor s = linalg_svdvals(batch);
  EXPECT_TRUE(s[0].isnan().all().item<bool>());
  EXPECT_TRUE(s[1].equal(ones({2}, kDouble)));
  const Tensor b = ones({3, 2}, kDouble);
  const Tensor a = tensor({{nan, 1.0}, {2.0, 3.0}, {1.0, 1.0}}, kDouble);
  for (const char* driver : {"gelsd", "gelss"}) {
    EXPECT_EQ(testing::error_of([&] { linalg_lstsq(a, b, std::nullopt, driver); }),
              "torch.linalg.lstsq: the input matrix contains non-finite values, which the "
              "SVD-based drivers (gelsd, gelss) cannot take");
  }
}

TEST(LinalgSpectralTest, Errors) {
  const Tensor L64 = ones({2, 2}, kLong);
  expect_error("svd long", [&] { linalg_svd(L64); });
  expect_error("svd 1d", [] { linalg_svd(ones({3})); });
  expect_error("svd driver", [] { linalg_svd(ones({2, 2}), true, "gesvd"); });
  expect_error("svdvals long", [&] { linalg_svdvals(L64); });
  expect_error("svdvals 1d", [] { linalg_svdvals(ones({3})); });
  expect_error("torch.svd long", [&] { svd(L64); });
  expect_error("torch.svd 1d", [] { ones({3}).svd(); });
  expect_error("eigh long", [&] { linalg_eigh(L64); });
  expect_error("eigh 1d", [] { linalg_eigh(ones({3})); });
  expect_error("eigh nonsquare", [] { linalg_eigh(ones({2, 3})); });
  expect_error("eigh uplo", [] { linalg_eigh(ones({2, 2}), "X"); });
  expect_error("eigh uplo long", [] { linalg_eigh(ones({2, 2}), "LU"); });
  expect_error("eigvalsh long", [&] { linalg_eigvalsh(L64); });
  expect_error("eigvalsh nonsquare", [] { linalg_eigvalsh(ones({2, 3})); });
  expect_error("eigvalsh uplo", [] { linalg_eigvalsh(ones({2, 2}), "Q"); });
  expect_error("symeig long", [&] { symeig(L64); });
  expect_error("symeig nonsquare", [] { ones({2, 3}).symeig(); });
  expect_error("symeig 1d", [] { symeig(ones({3})); });
  expect_error("pinv long", [&] { linalg_pinv(L64); });
  expect_error("pinv 1d", [] { linalg_pinv(ones({3})); });
  expect_error("pinverse long", [&] { L64.pinverse(); });
  expect_error("lstsq long", [&] { linalg_lstsq(L64, L64); });
  expect_error("lstsq dtypes", [] { linalg_lstsq(ones({2, 2}), ones({2, 2}, kDouble)); });
  expect_error("lstsq 1d", [] { linalg_lstsq(ones({3}), ones({3})); });
  expect_error("lstsq rows", [] { linalg_lstsq(ones({3, 2}), ones({2, 2})); });
  expect_error("lstsq rows vec", [] { linalg_lstsq(ones({3, 2}), ones({2})); });
  expect_error("lstsq driver", [] {
    linalg_lstsq(ones({2, 2}), ones({2, 2}), std::nullopt, "foo");
  });
  expect_error("rank long", [&] { linalg_matrix_rank(L64); });
  expect_error("rank 1d", [] { linalg_matrix_rank(ones({3})); });
  expect_error("matrix_exp long", [&] { matrix_exp(L64); });
  expect_error("matrix_exp nonsquare", [] { ones({2, 3}).matrix_exp(); });
  expect_error("matrix_exp 1d", [] { linalg_matrix_exp(ones({3})); });
}

}  // namespace
}  // namespace ember
