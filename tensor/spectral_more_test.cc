// spectral_more.h against PyTorch 1.13 (tools/golden/spectral_more.py wrote
// testdata/spectral_more_golden.inc and spectral_more_errors_golden.inc):
// einsum's equation forms and errors, cdist's two forms and pdist, the five
// windows with their special lengths, and nuclear_norm.
#include "tensor/spectral_more.h"

#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using testing::GoldenEntry;
using testing::GoldenError;

const GoldenEntry kGolden[] = {
#include "tensor/testdata/spectral_more_golden.inc"
};
const GoldenError kErrors[] = {
#include "tensor/testdata/spectral_more_errors_golden.inc"
};

// The script's mk(): sin(1.3 * arange(numel) + seed) in float64, then cast.
Tensor mk(std::vector<int64_t> shape, int64_t seed = 0, ScalarType dtype = kDouble) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return (arange(n, kDouble) * 1.3 + static_cast<double>(seed)).sin().reshape(shape).to(dtype);
}

// PyTorch's values; float32 results within float rounding, float64 ones
// within a few ulps (libm's sin and a different summation order).
void check(const std::string& name, const Tensor& t) {
  const GoldenEntry& g = testing::find_golden(kGolden, name);
  const double rel = g.dtype == kFloat ? 2e-6 : (g.dtype == kDouble ? 1e-12 : 0);
  EXPECT_TRUE(testing::near_golden(t, g, g.dtype, rel)) << name;
}

void check_error(const std::string& name, const std::function<void()>& f) {
  testing::expect_golden_error(kErrors, name, f);
}

TEST(SpectralMoreTest, EinsumForms) {
  const Tensor A = mk({3, 4}, 0), B = mk({4, 5}, 1);
  check("einsum ij,jk->ik", einsum("ij,jk->ik", {A, B}));
  check("einsum ij,jk", einsum("ij,jk", {A, B}));
  check("einsum bij,bjk->bik", einsum("bij,bjk->bik", {mk({2, 3, 4}, 2), mk({2, 4, 2}, 3)}));
  check("einsum ii", einsum("ii", {mk({3, 3}, 4)}));
  check("einsum ii->i", einsum("ii->i", {mk({3, 3}, 4)}));
  check("einsum i,j->ij", einsum("i,j->ij", {mk({3}, 5), mk({4}, 6)}));
  check("einsum i,j", einsum("i,j", {mk({3}, 5), mk({4}, 6)}));
  check("einsum ...ij,...jk", einsum("...ij,...jk", {mk({2, 1, 3, 4}, 7), mk({3, 4, 2}, 8)}));
  check("einsum ...ij,...jk->...ik",
        einsum("...ij,...jk->...ik", {mk({2, 3, 4}, 7), mk({4, 2}, 8)}));
  check("einsum ij->", einsum("ij->", {A}));
  check("einsum ij->ji", einsum("ij->ji", {A}));
  check("einsum ji", einsum("ji", {A}));
  check("einsum ij,jk,kl->il", einsum("ij,jk,kl->il", {A, B, mk({5, 2}, 9)}));
  check("einsum ij,jk,kl", einsum("ij,jk,kl", {A, B, mk({5, 2}, 9)}));
  check("einsum bn,anm,bm->ba",
        einsum("bn,anm,bm->ba", {mk({2, 3}, 1), mk({4, 3, 5}, 2), mk({2, 5}, 3)}));
  check("einsum iij->j", einsum("iij->j", {mk({3, 3, 2}, 10)}));
  check("einsum iji->ij", einsum("iji->ij", {mk({3, 2, 3}, 10)}));
  check("einsum i,i->", einsum("i,i->", {mk({5}, 1), mk({5}, 2)}));
  check("einsum i,i->i", einsum("i,i->i", {mk({5}, 1), mk({5}, 2)}));
  check("einsum ij,ij->ij", einsum("ij,ij->ij", {A, mk({3, 4}, 3)}));
  check("einsum Ab,bc->cA", einsum("Ab,bc->cA", {A, B}));
  // Implicit output: upper case sorts before lower case.
  check("einsum ba,Bc", einsum("ba,Bc", {mk({2, 3}, 1), mk({2, 2}, 2)}));
  check("einsum ... spaces", einsum(" i j , j k -> i k ", {A, B}));
  check("einsum i...->...", einsum("i...->...", {mk({3, 2, 2}, 11)}));
  check("einsum ...->...", einsum("...", {mk({2, 3}, 11)}));
  check("einsum ij,kj->ik broadcast 1", einsum("ij,kj->ik", {mk({3, 1}, 1), mk({2, 4}, 2)}));
  check("einsum bij,bjk broadcast batch",
        einsum("bij,bjk->bik", {mk({1, 2, 3}, 1), mk({4, 3, 2}, 2)}));
  check("einsum 0-dim", einsum(",i->i", {tensor(2.5, kDouble), mk({3}, 1)}));
  check("einsum empty", einsum("ij,jk->ik", {zeros({2, 0}, kDouble), zeros({0, 3}, kDouble)}));
  check("einsum float", einsum("ij,jk->ik", {A.to(kFloat), B.to(kFloat)}));
  check("einsum long", einsum("ij,jk->ik", {arange(6).reshape({2, 3}), arange(6).reshape({3, 2})}));
  // A product without contraction promotes; a contraction wants one dtype.
  check("einsum mixed mul", einsum("i,j->ij", {mk({2}, 1, kFloat), mk({2}, 2)}));
}

TEST(SpectralMoreTest, EinsumErrors) {
  const Tensor A = mk({3, 4}, 0), B = mk({4, 5}, 1);
  check_error("einsum mixed bmm", [&] { einsum("ij,jk->ik", {A.to(kFloat), B}); });
  check_error("einsum mixed dot", [&] { einsum("i,i->", {mk({2}, 1, kFloat), mk({2}, 2)}); });
  // Python's torch.einsum words this one itself; libtorch's text:
  testing::expect_error([] { einsum("i->i", {}); }, "einsum(): must provide at least one operand");
  check_error("einsum repeated output", [&] { einsum("ij->ii", {A}); });
  check_error("einsum output not in input", [&] { einsum("ij->k", {A}); });
  check_error("einsum too few operands", [&] { einsum("ij,jk->ik", {A}); });
  check_error("einsum too many operands", [&] { einsum("ij->ij", {A, B}); });
  check_error("einsum invalid subscript", [&] { einsum("i1,jk->ik", {A, B}); });
  check_error("einsum invalid output subscript", [&] { einsum("ij->i1", {A}); });
  check_error("einsum wrong ndim", [&] { einsum("ijk->i", {A}); });
  check_error("einsum wrong ndim ell", [&] { einsum("ijk...->i", {A}); });
  check_error("einsum two ellipses", [&] { einsum("...i...->i", {A}); });
  check_error("einsum bad dot", [&] { einsum("i..j->i", {A}); });
  check_error("einsum output two ellipses", [&] { einsum("...ij->......", {A}); });
  check_error("einsum output bad dot", [&] { einsum("...ij->..", {A}); });
  check_error("einsum diag size", [&] { einsum("ii->i", {A}); });
  check_error("einsum no broadcast", [&] { einsum("ij,jk->ik", {A, mk({3, 5}, 1)}); });
  check_error("einsum no broadcast mul", [&] { einsum("i,i->i", {mk({3}, 1), mk({2}, 1)}); });
  testing::expect_error(
      [] {
        einsum("...i,...i->...", {ones({2, 3}), ones({4, 3})});
      },
      "einsum(): dimension 0 covered by ellipsis in operand 1has size 4 which does not "
      "broadcast with previously seen ellipsis with size 2 for the respective dimension");
}

TEST(SpectralMoreTest, Cdist) {
  const Tensor X1 = mk({4, 3}, 1), X2 = mk({5, 3}, 2);
  check("cdist p=2.0", cdist(X1, X2));
  check("cdist p=1.0", cdist(X1, X2, 1));
  check("cdist p=0.0", cdist(X1, X2, 0));
  check("cdist p=3.0", cdist(X1, X2, 3));
  check("cdist p=0.5", cdist(X1, X2, 0.5));
  check("cdist p=inf", cdist(X1, X2, std::numeric_limits<double>::infinity()));
  check("cdist mm forced", cdist(X1, X2, 2, 1));
  check("cdist batch", cdist(mk({2, 1, 3, 2}, 3), mk({3, 4, 2}, 4)));
  const Tensor big1 = mk({30, 3}, 5), big2 = mk({2, 3}, 6);
  check("cdist big", cdist(big1, big2));
  check("cdist big no mm", cdist(big1, big2, 2, 2));
  check("cdist big p1", cdist(big1, big2, 1));
  check("cdist float", cdist(X1.to(kFloat), X2.to(kFloat)));
  check("cdist same", cdist(X1, X1));
  check("cdist empty rows", cdist(zeros({0, 3}, kDouble), X2));
  check("cdist empty cols", cdist(zeros({2, 0}, kDouble), zeros({3, 0}, kDouble)));
  // The two forms round differently: 1.13 picks the matmul one past 25 rows.
  const Tensor direct = cdist(big1, big2, 2, 2), mm = cdist(big1, big2, 2, 1);
  EXPECT_TRUE(cdist(big1, big2).equal(mm));
  EXPECT_TRUE(cdist(X1, X2).equal(cdist(X1, X2, 2, 2)));
  EXPECT_TRUE(direct.allclose(mm, 1e-12, 1e-12));

  check_error("cdist 1d", [&] { cdist(mk({3}, 1), X2); });
  check_error("cdist 1d x2", [&] { cdist(X1, mk({3}, 1)); });
  check_error("cdist cols", [&] { cdist(X1, mk({5, 2}, 1)); });
  check_error("cdist long", [] { cdist(ones({2, 3}, kLong), ones({2, 3}, kLong)); });
  check_error("cdist negative p", [&] { cdist(X1, X2, -1); });
  check_error("cdist mixed", [&] { cdist(X1.to(kFloat), X2); });
  check_error("cdist batch mismatch", [] { cdist(mk({2, 3, 2}, 3), mk({3, 4, 2}, 4)); });
  testing::expect_error([&] { cdist(X1, X2, 2, 3); }, "possible modes: 0, 1, 2, but was: 3");
}

TEST(SpectralMoreTest, Pdist) {
  const Tensor X = mk({4, 3}, 7);
  check("pdist p=2.0", pdist(X));
  check("pdist p=1.0", pdist(X, 1));
  check("pdist p=0.0", pdist(X, 0));
  check("pdist p=3.0", pdist(X, 3));
  check("pdist p=inf", pdist(X, std::numeric_limits<double>::infinity()));
  check("pdist one row", pdist(mk({1, 3}, 7)));
  check("pdist float", pdist(mk({3, 2}, 7, kFloat)));
  check_error("pdist 3d", [] { pdist(mk({2, 3, 2}, 7)); });
  check_error("pdist long", [] { pdist(ones({2, 3}, kLong)); });
  check_error("pdist negative p", [&] { pdist(X, -1); });
}

// The CPU's direct differences give the bits of the index_select form,
// on a transposed input with rows no multiple of eight, for each p; p = 1
// and 2 (Note [pdist on the CPU]) their norms within rounding.
TEST(SpectralMoreTest, PdistDifferencesAsTheGathers) {
  for (ScalarType t : {kFloat, kDouble}) {
    const Tensor x = randn({11, 5}, t).t();
    const Tensor idx = triu_indices(5, 5, 1);
    const Tensor d = x.index_select(0, idx[0]) - x.index_select(0, idx[1]);
    for (double p : {0.0, 3.0, std::numeric_limits<double>::infinity()}) {
      EXPECT_TRUE(pdist(x, p).equal(d.norm(p, {1}))) << p;
    }
    for (double p : {1.0, 2.0}) {
      EXPECT_TRUE(pdist(x, p).allclose(d.norm(p, {1}), 1e-6, 0)) << p;
    }
  }
  EXPECT_TRUE(pdist(ones({3, 0})).equal(zeros({3})));
  // Rows of 70 (the CPU loop's lanes): within rounding of the norm of the
  // differences; NaN and infinity as theirs.
  for (ScalarType t : {kFloat, kDouble}) {
    Tensor x = randn({6, 70}, t);
    x[2][40].fill_(std::numeric_limits<double>::quiet_NaN());
    x[4][3].fill_(std::numeric_limits<double>::infinity());
    const Tensor idx = triu_indices(6, 6, 1);
    const Tensor d = x.index_select(0, idx[0]) - x.index_select(0, idx[1]);
    for (double p : {1.0, 2.0}) {
      EXPECT_TRUE(pdist(x, p).allclose(d.norm(p, {1}), 1e-6, 0, /*equal_nan=*/true)) << p;
    }
  }
}

using WindowFn = Tensor (*)(int64_t, bool, const TensorOptions&);

TEST(SpectralMoreTest, Windows) {
  const std::vector<std::pair<std::string, WindowFn>> fns = {
      {"hann", [](int64_t n, bool p, const TensorOptions& o) { return hann_window(n, p, o); }},
      {"hamming",
       [](int64_t n, bool p, const TensorOptions& o) { return hamming_window(n, p, o); }},
      {"blackman",
       [](int64_t n, bool p, const TensorOptions& o) { return blackman_window(n, p, o); }},
      {"bartlett",
       [](int64_t n, bool p, const TensorOptions& o) { return bartlett_window(n, p, o); }},
      {"kaiser", [](int64_t n, bool p, const TensorOptions& o) { return kaiser_window(n, p, o); }},
  };
  for (const auto& [name, f] : fns) {
    for (int64_t n : {0, 1, 2, 5, 8}) {
      check(name + " " + std::to_string(n), f(n, true, {}));
      check(name + " " + std::to_string(n) + " symmetric", f(n, false, {}));
    }
    check(name + " 7 double", f(7, true, kDouble));
    check(name + " 6 symmetric double", f(6, false, kDouble));
    check_error(name + " negative", [&] { f(-1, true, {}); });
    // Python's options print differs in its "(default)" markers only.
    const std::string msg = testing::error_of([&] { f(4, true, kLong); });
    EXPECT_EQ(msg.rfind(name + "_window expects floating point dtypes, got: "
                               "TensorOptions(dtype=long int, device=cpu",
                        0),
              0u)
        << msg;
  }
  // The (window_length, options) overloads are periodic.
  check("hann 8", hann_window(8));
  check("hamming 7 double", hamming_window(7, kDouble));
  check("blackman 7 double", blackman_window(7, kDouble));
  check("bartlett 7 double", bartlett_window(7, kDouble));
  check("kaiser 7 double", kaiser_window(7, kDouble));
  check("hamming alpha", hamming_window(6, true, 0.6, kDouble));
  check("hamming alpha beta", hamming_window(6, false, 0.6, 0.3, kDouble));
  check("kaiser beta", kaiser_window(6, true, 5.0, kDouble));
  check("kaiser beta symmetric", kaiser_window(7, false, 3.0, kDouble));
}

TEST(SpectralMoreTest, NuclearNorm) {
  const Tensor M = mk({3, 4}, 3);
  check("nuclear_norm", nuclear_norm(M));
  check("nuclear_norm keepdim", nuclear_norm(M, true));
  check("nuclear_norm float", nuclear_norm(M.to(kFloat)));
  check("nuclear_norm dim", nuclear_norm(mk({2, 3, 4}, 4), {0, 2}));
  check("nuclear_norm dim keepdim", nuclear_norm(mk({2, 3, 4}, 4), {2, 0}, true));
  check_error("nuclear_norm 3d", [] { nuclear_norm(mk({2, 3, 4}, 4)); });
  check_error("nuclear_norm 1d", [] { nuclear_norm(mk({3}, 4)); });
  // IntArrayRef({0}): a bare {0} picks the bool keepdim overload, as in libtorch.
  check_error("nuclear_norm dim 1", [&] { nuclear_norm(M, IntArrayRef({0})); });
  check_error("nuclear_norm same dims", [&] { nuclear_norm(M, {0, 0}); });
  check_error("nuclear_norm dim range", [&] { nuclear_norm(M, {0, 2}); });
  check_error("nuclear_norm long", [] { nuclear_norm(ones({2, 2}, kLong)); });
}

}  // namespace
}  // namespace ember
