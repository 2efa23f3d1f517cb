// shape_more.h against PyTorch 1.13 (tools/golden/shape_more.py printed every
// expected value and message): shapes, dtypes, views, empty and 0-dim
// inputs, errors.
#include "tensor/shape_more.h"

#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using testing::error_of;
using testing::expect_values;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Tensor T(std::vector<int64_t> sizes, std::vector<double> values, ScalarType dtype) {
  return testing::from_values(sizes, values, dtype);
}

void expect_list(const std::vector<Tensor>& got, const std::vector<Tensor>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) expect_values(got[i], want[i]);
}

Tensor S() { return T({}, {2.5}, kDouble); }
Tensor V() { return T({3}, {1.0, 2.0, 3.0}, kDouble); }
Tensor M() { return T({2, 2}, {1.0, 2.0, 3.0, 4.0}, kDouble); }
Tensor B3() { return arange(12, kDouble).reshape({2, 3, 2}); }
Tensor I() { return T({2}, {4, 5}, kLong); }

TEST(ShapeMore, AtLeast) {
  expect_values(atleast_1d(S()), T({1}, {2.5}, kDouble));
  expect_values(atleast_2d(S()), T({1, 1}, {2.5}, kDouble));
  expect_values(atleast_3d(S()), T({1, 1, 1}, {2.5}, kDouble));
  expect_values(atleast_1d(V()), V());
  expect_values(atleast_2d(V()), T({1, 3}, {1.0, 2.0, 3.0}, kDouble));
  expect_values(atleast_3d(V()), T({1, 3, 1}, {1.0, 2.0, 3.0}, kDouble));
  expect_values(atleast_1d(M()), M());
  expect_values(atleast_2d(M()), M());
  expect_values(atleast_3d(M()), T({2, 2, 1}, {1.0, 2.0, 3.0, 4.0}, kDouble));
  for (auto f : {+[](const Tensor& t) { return atleast_1d(t); },
                 +[](const Tensor& t) { return atleast_2d(t); },
                 +[](const Tensor& t) { return atleast_3d(t); }}) {
    expect_values(f(B3()), B3());
  }
  // Views of the input.
  const Tensor m = M();
  EXPECT_TRUE(testing::shares_storage(atleast_3d(m), m));
  expect_list(atleast_3d(std::vector<Tensor>{S(), V()}),
              {T({1, 1, 1}, {2.5}, kDouble), T({1, 3, 1}, {1.0, 2.0, 3.0}, kDouble)});
  EXPECT_EQ(atleast_1d(std::vector<Tensor>{S(), M()}).size(), 2u);
  EXPECT_EQ(atleast_2d(std::vector<Tensor>{}).size(), 0u);
}

TEST(ShapeMore, Stacks) {
  const Tensor v2 = V().slice(0, 0, 2);
  expect_values(column_stack({v2, I()}), T({2, 2}, {1.0, 4.0, 2.0, 5.0}, kDouble));
  expect_values(column_stack({T({2}, {7.0, 8.0}, kDouble), M()}),
                T({2, 3}, {7.0, 1.0, 2.0, 8.0, 3.0, 4.0}, kDouble));
  expect_values(column_stack({S(), S()}), T({1, 2}, {2.5, 2.5}, kDouble));
  EXPECT_EQ(error_of([] { column_stack({}); }), "column_stack expects a non-empty TensorList");
  EXPECT_EQ(error_of([] {
              column_stack({V(), M()});
            }),
            "Sizes of tensors must match except in dimension 1. Expected size 3 but got size 2 "
            "for tensor number 1 in the list.");
  expect_values(row_stack({V(), V()}), T({2, 3}, {1.0, 2.0, 3.0, 1.0, 2.0, 3.0}, kDouble));
  EXPECT_EQ(error_of([] { row_stack({}); }), "vstack expects a non-empty TensorList");
  expect_values(dstack({M(), M()}),
                T({2, 2, 2}, {1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 4.0, 4.0}, kDouble));
  expect_values(dstack({v2, I()}), T({1, 2, 2}, {1.0, 4.0, 2.0, 5.0}, kDouble));
  expect_values(dstack({S(), S()}), T({1, 1, 2}, {2.5, 2.5}, kDouble));
  EXPECT_EQ(error_of([] { dstack({}); }), "dstack expects a non-empty TensorList");
  expect_values(concatenate({M(), M()}, 1),
                T({2, 4}, {1.0, 2.0, 1.0, 2.0, 3.0, 4.0, 3.0, 4.0}, kDouble));
  expect_values(concatenate({M(), M()}), cat({M(), M()}));
}

TEST(ShapeMore, BlockDiag) {
  expect_values(block_diag({M(), V(), S(), I()}),
                T({5, 8}, {1.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 4.0, 0.0, 0.0, 0.0, 0.0,
                           0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                           0.0, 2.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 4.0, 5.0},
                  kDouble));
  expect_values(block_diag({}), T({1, 0}, {}, kFloat));
  expect_values(block_diag({I(), T({1, 2}, {1, 2}, kInt)}),
                T({2, 4}, {4, 5, 0, 0, 0, 0, 1, 2}, kLong));
  expect_values(block_diag({zeros({0, 2}, kDouble), M()}),
                T({2, 4}, {0.0, 0.0, 1.0, 2.0, 0.0, 0.0, 3.0, 4.0}, kDouble));
  EXPECT_EQ(error_of([] {
              block_diag({M(), B3()});
            }),
            "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input 1 has 3 "
            "dimensions");
}

TEST(ShapeMore, CartesianProdAndCombinations) {
  expect_values(cartesian_prod({V(), I().to(kDouble)}),
                T({6, 2}, {1.0, 4.0, 1.0, 5.0, 2.0, 4.0, 2.0, 5.0, 3.0, 4.0, 3.0, 5.0}, kDouble));
  expect_values(cartesian_prod({V()}), V());
  expect_values(cartesian_prod({I(), I(), T({1}, {7}, kLong)}),
                T({4, 3}, {4, 4, 7, 4, 5, 7, 5, 4, 7, 5, 5, 7}, kLong));
  EXPECT_EQ(error_of([] {
              cartesian_prod({V(), M()});
            }),
            "Expect a 1D vector, but got shape [2, 2]");
  EXPECT_EQ(error_of([] {
              cartesian_prod({V(), I()});
            }),
            "meshgrid expects all tensors to have the same dtype");

  expect_values(combinations(T({4}, {1.0, 2.0, 3.0, 4.0}, kDouble)),
                T({6, 2}, {1.0, 2.0, 1.0, 3.0, 1.0, 4.0, 2.0, 3.0, 2.0, 4.0, 3.0, 4.0}, kDouble));
  expect_values(combinations(T({4}, {1, 2, 3, 4}, kLong), 3),
                T({4, 3}, {1, 2, 3, 1, 2, 4, 1, 3, 4, 2, 3, 4}, kLong));
  expect_values(combinations(V(), 2, true),
                T({6, 2}, {1.0, 1.0, 1.0, 2.0, 1.0, 3.0, 2.0, 2.0, 2.0, 3.0, 3.0, 3.0}, kDouble));
  expect_values(combinations(V(), 0), T({0}, {}, kDouble));
  expect_values(combinations(V(), 1), T({3, 1}, {1.0, 2.0, 3.0}, kDouble));
  expect_values(combinations(V(), 4), T({0, 4}, {}, kDouble));
  expect_values(combinations(V().slice(0, 0, 0), 2), T({0, 2}, {}, kDouble));
  EXPECT_EQ(error_of([] { combinations(M()); }), "Expect a 1D vector, but got shape [2, 2]");
  EXPECT_EQ(error_of([] { combinations(V(), -1); }), "Expect a non-negative number, but got -1");
}

TEST(ShapeMore, Meshgrid) {
  const Tensor id = I().to(kDouble);
  expect_list(meshgrid({V(), id}, "ij"), {T({3, 2}, {1.0, 1.0, 2.0, 2.0, 3.0, 3.0}, kDouble),
                                          T({3, 2}, {4.0, 5.0, 4.0, 5.0, 4.0, 5.0}, kDouble)});
  const std::vector<Tensor> xy = meshgrid({V(), id}, "xy");
  expect_list(xy, {T({2, 3}, {1.0, 2.0, 3.0, 1.0, 2.0, 3.0}, kDouble),
                   T({2, 3}, {4.0, 4.0, 4.0, 5.0, 5.0, 5.0}, kDouble)});
  // Expanded views, as PyTorch's: strides (0, 1).
  EXPECT_EQ(std::vector<int64_t>(xy[0].strides().begin(), xy[0].strides().end()),
            (std::vector<int64_t>{0, 1}));
  expect_list(meshgrid({I(), T({3}, {7, 8, 9}, kLong), T({}, {6}, kLong)}, "xy"),
              {T({3, 2, 1}, {4, 5, 4, 5, 4, 5}, kLong), T({3, 2, 1}, {7, 7, 8, 8, 9, 9}, kLong),
               T({3, 2, 1}, {6, 6, 6, 6, 6, 6}, kLong)});
  expect_list(meshgrid({V()}, "xy"), {V()});
  expect_list(meshgrid({V(), id}), meshgrid({V(), id}, "ij"));
  EXPECT_EQ(error_of([] { meshgrid({}, "ij"); }), "meshgrid expects a non-empty TensorList");
  EXPECT_EQ(error_of([] {
              meshgrid({V(), I()}, "ij");
            }),
            "meshgrid expects all tensors to have the same dtype");
  EXPECT_EQ(error_of([] {
              meshgrid({V(), V()}, "yx");
            }),
            "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: yx");
  EXPECT_EQ(error_of([] {
              meshgrid({V(), M()}, "ij");
            }).rfind("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: ", 0),
            0u);
}

TEST(ShapeMore, TriIndices) {
  expect_values(tril_indices(3, 3), T({2, 6}, {0, 1, 1, 2, 2, 2, 0, 0, 1, 0, 1, 2}, kLong));
  expect_values(triu_indices(3, 3), T({2, 6}, {0, 0, 0, 1, 1, 2, 0, 1, 2, 1, 2, 2}, kLong));
  expect_values(
      tril_indices(4, 3, 1),
      T({2, 11}, {0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 0, 1, 0, 1, 2, 0, 1, 2, 0, 1, 2}, kLong));
  expect_values(triu_indices(4, 3, 1), T({2, 3}, {0, 0, 1, 1, 2, 2}, kLong));
  expect_values(tril_indices(3, 4, -1), T({2, 3}, {1, 2, 2, 0, 0, 1}, kLong));
  expect_values(
      triu_indices(3, 4, -1),
      T({2, 11}, {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 0, 1, 2, 3, 0, 1, 2, 3, 1, 2, 3}, kLong));
  expect_values(
      tril_indices(3, 5, 2),
      T({2, 12}, {0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 2, 0, 1, 2, 0, 1, 2, 3, 0, 1, 2, 3, 4}, kLong));
  expect_values(triu_indices(3, 5, 2), T({2, 6}, {0, 0, 0, 1, 1, 2, 2, 3, 4, 3, 4, 4}, kLong));
  for (auto f : {+[](int64_t r, int64_t c, int64_t o) { return tril_indices(r, c, o); },
                 +[](int64_t r, int64_t c, int64_t o) { return triu_indices(r, c, o); }}) {
    expect_values(f(0, 3, 0), T({2, 0}, {}, kLong));
    expect_values(f(3, 0, 0), T({2, 0}, {}, kLong));
  }
  expect_values(tril_indices(2, 3, -5), T({2, 0}, {}, kLong));
  expect_values(triu_indices(2, 3, -5), T({2, 6}, {0, 0, 0, 1, 1, 1, 0, 1, 2, 0, 1, 2}, kLong));
  expect_values(tril_indices(2, 3, 7), T({2, 6}, {0, 0, 0, 1, 1, 1, 0, 1, 2, 0, 1, 2}, kLong));
  expect_values(triu_indices(2, 3, 7), T({2, 0}, {}, kLong));
  expect_values(tril_indices(2, 2, 0, kInt), T({2, 3}, {0, 1, 1, 0, 0, 1}, kInt));
  EXPECT_EQ(error_of([] { tril_indices(2, 2, 0, kDouble); }),
            "\"tril_indices\" not implemented for 'Double'");
  EXPECT_EQ(error_of([] { tril_indices(-1, 2); }), "row must be non-negative, got-1");
  EXPECT_EQ(error_of([] { tril_indices(2, -1); }), "col must be non-negative, got-1");
  EXPECT_EQ(error_of([] { triu_indices(-1, 2); }), "row must be non-negative, got-1");
  EXPECT_EQ(error_of([] { triu_indices(2, -3); }), "col must be non-negative, got-3");
}

TEST(ShapeMore, Vander) {
  expect_values(vander(V()), T({3, 3}, {1.0, 1.0, 1.0, 4.0, 2.0, 1.0, 9.0, 3.0, 1.0}, kDouble));
  expect_values(vander(V(), 4, true),
                T({3, 4}, {1.0, 1.0, 1.0, 1.0, 1.0, 2.0, 4.0, 8.0, 1.0, 3.0, 9.0, 27.0}, kDouble));
  expect_values(vander(V(), 1), T({3, 1}, {1.0, 1.0, 1.0}, kDouble));
  expect_values(vander(V(), 0), T({3, 0}, {}, kDouble));
  expect_values(vander(I()), T({2, 2}, {4, 1, 5, 1}, kLong));
  expect_values(vander(T({2}, {1, 0}, kBool)), T({2, 2}, {1, 1, 0, 1}, kLong));
  expect_values(vander(T({2}, {2, 3}, kInt), 3), T({2, 3}, {4, 2, 1, 9, 3, 1}, kLong));
  expect_values(vander(T({2}, {2.0, 0.5}, kFloat), 3),
                T({2, 3}, {4.0, 2.0, 1.0, 0.25, 0.5, 1.0}, kFloat));
  EXPECT_EQ(error_of([] { vander(M()); }), "x must be a one-dimensional tensor.");
  EXPECT_EQ(error_of([] { vander(V(), -1); }), "N must be non-negative.");
}

TEST(ShapeMore, AdjointAndIsNeg) {
  const Tensor m = M();
  expect_values(adjoint(m), T({2, 2}, {1.0, 3.0, 2.0, 4.0}, kDouble));
  EXPECT_TRUE(testing::shares_storage(m.adjoint(), m));
  expect_values(
      B3().adjoint(),
      T({2, 2, 3}, {0.0, 2.0, 4.0, 1.0, 3.0, 5.0, 6.0, 8.0, 10.0, 7.0, 9.0, 11.0}, kDouble));
  expect_values(B3().mH(), B3().adjoint());
  expect_values(adjoint(S()), S());
  expect_values(S().mH(), S());
  EXPECT_EQ(error_of([] { adjoint(V()); }),
            "tensor.adjoint() is only supported on matrices or batches of matrices. Got 1-D "
            "tensor.");
  EXPECT_EQ(error_of([] { V().mH(); }),
            "tensor.mH is only supported on matrices or batches of matrices. Got 1-D tensor.");
  EXPECT_FALSE(is_neg(V()));
  EXPECT_FALSE(V().neg().is_neg());
}

TEST(ShapeMore, ChainMatmul) {
  const Tensor A = arange(6, kDouble).reshape({2, 3});
  const Tensor B = arange(12, kDouble).reshape({3, 4}) - 5;
  const Tensor C = arange(8, kDouble).reshape({4, 2}) * 0.5;
  expect_values(chain_matmul({A, B, C}), T({2, 2}, {72.0, 91.0, 144.0, 172.0}, kDouble));
  expect_values(chain_matmul({A}), A);
  EXPECT_FALSE(testing::shares_storage(chain_matmul({A}), A));
  expect_values(chain_matmul({A, B}),
                T({2, 4}, {5.0, 8.0, 11.0, 14.0, -4.0, 8.0, 20.0, 32.0}, kDouble));
  // Four and five matrices go through the chain order; compare with the
  // left-to-right product.
  const Tensor D = arange(6, kDouble).reshape({2, 3}) - 1;
  const Tensor E = arange(3, kDouble).reshape({3, 1});
  expect_values(chain_matmul({A, B, C, D}), A.mm(B).mm(C).mm(D), 1e-12);
  expect_values(chain_matmul({A, B, C, D, E}), A.mm(B).mm(C).mm(D).mm(E), 1e-12);
  EXPECT_EQ(error_of([] { chain_matmul({}); }), "chain_matmul(): Expected one or more matrices");
  EXPECT_EQ(error_of([&] {
              chain_matmul({A, V()});
            }),
            "Tensor dimension is 1, expected 2 instead.");
  EXPECT_EQ(error_of([&] {
              chain_matmul({V(), A});
            }),
            "Tensor dimension is 1, expected 2 instead.");
  EXPECT_EQ(error_of([&] { chain_matmul({V()}); }), "Tensor dimension is 1, expected 2 instead.");
  EXPECT_EQ(error_of([&] {
              chain_matmul({A, C});
            }),
            "multi_dot(): tensors 0 and 1 with shapes [2, 3] and [4, 2] cannot be multiplied");
  EXPECT_EQ(error_of([&] {
              chain_matmul({A, B.to(kFloat)});
            }),
            "multi_dot(): all tensors must have be the same dtype but tensor 0 is double and "
            "tensor 1 float");
}

Tensor Y() { return T({2, 4}, {1.0, 4.0, 9.0, 16.0, 2.0, -1.0, 0.5, 3.0}, kDouble); }
Tensor X1() { return T({4}, {0.0, 1.0, 3.0, 6.0}, kDouble); }
Tensor X2() { return T({2, 4}, {0.0, 1.0, 3.0, 6.0, 1.0, 1.5, 2.0, 4.0}, kDouble); }
Tensor YL() { return T({2, 3}, {1, 4, 9, 2, 3, 5}, kLong); }
Tensor XL() { return T({3}, {0, 1, 3}, kLong); }
Tensor Xcol() { return T({2}, {0.0, 2.0}, kDouble); }

TEST(ShapeMore, Trapezoid) {
  // trapz is trapezoid with a double dx, and gives trapezoid's messages.
  using TT = Tensor (*)(const Tensor&, const Tensor&, int64_t);
  for (TT f : {static_cast<TT>(&trapezoid), static_cast<TT>(&trapz)}) {
    expect_values(f(Y(), X1(), -1), T({2}, {53.0, 5.25}, kDouble));
    expect_values(f(Y(), X2(), -1), T({2}, {53.0, 3.625}, kDouble));
    expect_values(f(Y(), Xcol(), 0), T({4}, {3.0, 3.0, 9.5, 19.0}, kDouble));
    expect_values(f(YL(), XL(), -1), T({2}, {15.5, 10.5}, kFloat));
    expect_values(f(zeros({2, 0}, kDouble), zeros({0}, kDouble), -1), T({2}, {0.0, 0.0}, kDouble));
    EXPECT_EQ(error_of([&] {
                f(Y(), T({4}, {1, 0, 1, 1}, kBool), -1);
              }),
              "trapezoid: received a bool input for `x` or `y`, but bool is not supported");
    EXPECT_EQ(error_of([&] {
                f(Y(), T({2}, {0.0, 1.0}, kDouble), -1);
              }),
              "trapezoid: There must be one `x` value for each sample point");
    EXPECT_EQ(error_of([&] { f(Y(), X1(), 2); }),
              "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  }
  for (auto f : {+[](const Tensor&y, double dx, int64_t d) { return trapezoid(y, dx, d); },
                 +[](const Tensor&y, double dx, int64_t d) { return trapz(y, dx, d); }}) {
    expect_values(f(Y(), 1, -1), T({2}, {21.5, 2.0}, kDouble));
    expect_values(f(Y(), 0.5, -1), T({2}, {10.75, 1.0}, kDouble));
    expect_values(f(Y(), 2, 0), T({4}, {3.0, 3.0, 9.5, 19.0}, kDouble));
    expect_values(f(YL(), 1, -1), T({2}, {9.0, 6.5}, kFloat));
    expect_values(f(YL(), 0.5, -1), T({2}, {4.5, 3.25}, kFloat));
    expect_values(f(zeros({2, 0}, kDouble), 1, -1), T({2}, {0.0, 0.0}, kDouble));
    expect_values(f(ones({2, 1}, kDouble), 1, -1), T({2}, {0.0, 0.0}, kDouble));
    EXPECT_EQ(error_of([&] {
                f(T({2}, {1, 0}, kBool), 1, -1);
              }),
              "trapezoid: received a bool input for `y`, but bool is not supported");
    EXPECT_EQ(error_of([&] { f(Y(), 1, 2); }),
              "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  }
  expect_values(trapezoid(Y()), T({2}, {21.5, 2.0}, kDouble));
  expect_values(trapz(Y()), T({2}, {21.5, 2.0}, kDouble));
  expect_values(trapezoid(Y(), X1()), T({2}, {53.0, 5.25}, kDouble));
  EXPECT_EQ(error_of([] { trapezoid(Y(), true); }),
            "trapezoid: Currently, we only support dx as a real number.");
}

TEST(ShapeMore, CumulativeTrapezoid) {
  expect_values(cumulative_trapezoid(Y()), T({2, 3}, {2.5, 9.0, 21.5, 0.5, 0.25, 2.0}, kDouble));
  expect_values(cumulative_trapezoid(Y(), 0.5),
                T({2, 3}, {1.25, 4.5, 10.75, 0.25, 0.125, 1.0}, kDouble));
  expect_values(cumulative_trapezoid(Y(), 2, 0), T({1, 4}, {3.0, 3.0, 9.5, 19.0}, kDouble));
  expect_values(cumulative_trapezoid(Y(), X1()),
                T({2, 3}, {2.5, 15.5, 53.0, 0.5, 0.0, 5.25}, kDouble));
  expect_values(cumulative_trapezoid(Y(), X2()),
                T({2, 3}, {2.5, 15.5, 53.0, 0.25, 0.125, 3.625}, kDouble));
  expect_values(cumulative_trapezoid(Y(), Xcol(), 0), T({1, 4}, {3.0, 3.0, 9.5, 19.0}, kDouble));
  expect_values(cumulative_trapezoid(YL()), T({2, 2}, {2.5, 9.0, 2.5, 6.5}, kFloat));
  expect_values(cumulative_trapezoid(YL(), 0.5), T({2, 2}, {1.25, 4.5, 1.25, 3.25}, kFloat));
  expect_values(cumulative_trapezoid(YL(), XL()), T({2, 2}, {2.5, 15.5, 2.5, 10.5}, kFloat));
  expect_values(cumulative_trapezoid(zeros({2, 0}, kDouble)), T({2, 0}, {}, kDouble));
  expect_values(cumulative_trapezoid(zeros({2, 0}, kDouble), zeros({0}, kDouble)),
                T({2, 0}, {}, kDouble));
  expect_values(cumulative_trapezoid(ones({2, 1}, kDouble)), T({2, 0}, {}, kDouble));
  EXPECT_EQ(error_of([] {
              cumulative_trapezoid(T({2}, {1, 0}, kBool));
            }),
            "cumulative_trapezoid: received a bool input for `y`, but bool is not supported");
  EXPECT_EQ(error_of([] {
              cumulative_trapezoid(Y(), T({4}, {1, 0, 1, 1}, kBool));
            }),
            "cumulative_trapezoid: received a bool input for `x` or `y`, but bool is not "
            "supported");
  EXPECT_EQ(error_of([] {
              cumulative_trapezoid(Y(), T({2}, {0.0, 1.0}, kDouble));
            }),
            "cumulative_trapezoid: There must be one `x` value for each sample point");
  EXPECT_EQ(error_of([] { cumulative_trapezoid(Y(), 1, 2); }),
            "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  EXPECT_EQ(error_of([] { cumulative_trapezoid(Y(), X1(), 2); }),
            "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  EXPECT_EQ(error_of([] { cumulative_trapezoid(Y(), true); }),
            "cumulative_trapezoid: Currently, we only support dx as a real number.");
}

TEST(ShapeMore, Isin) {
  const Tensor E = T({2, 3}, {1.0, 2.0, kNaN, 4.0, -0.0, 2.0}, kDouble);
  const Tensor TE = T({4}, {2.0, 0.0, kNaN, 7.0}, kDouble);
  expect_values(isin(E, TE), T({2, 3}, {0, 1, 0, 0, 1, 1}, kBool));
  expect_values(isin(E, TE, false, true), T({2, 3}, {1, 0, 1, 1, 0, 0}, kBool));
  expect_values(isin(E, TE, true), T({2, 3}, {0, 1, 0, 0, 1, 1}, kBool));
  expect_values(isin(T({3}, {1, 2, 3}, kLong), T({2}, {2.0, 2.5}, kFloat)),
                T({3}, {0, 1, 0}, kBool));
  expect_values(isin(T({3}, {1.0, 2.5, 3.0}, kFloat), T({2}, {3, 1}, kLong)),
                T({3}, {1, 0, 1}, kBool));
  expect_values(isin(E, 2.0), T({2, 3}, {0, 1, 0, 0, 0, 1}, kBool));
  expect_values(isin(E, 2, false, true), T({2, 3}, {1, 0, 1, 1, 1, 0}, kBool));
  expect_values(isin(T({3}, {1, 2, 3}, kLong), 2.5), T({3}, {0, 0, 0}, kBool));
  expect_values(isin(4.0, TE), T({}, {0}, kBool));
  expect_values(isin(7, TE), T({}, {1}, kBool));
  expect_values(isin(E, T({0}, {}, kDouble)), T({2, 3}, {0, 0, 0, 0, 0, 0}, kBool));
  expect_values(isin(E, T({0}, {}, kDouble), false, true), T({2, 3}, {1, 1, 1, 1, 1, 1}, kBool));
  // Many test elements: the sorted search.
  expect_values(isin(arange(10), arange(3, 200, 2)),
                T({10}, {0, 0, 0, 1, 0, 1, 0, 1, 0, 1}, kBool));
  expect_values(isin(arange(10), arange(3, 200, 2), false, true),
                T({10}, {1, 1, 1, 0, 1, 0, 1, 0, 1, 0}, kBool));
  Tensor many = arange(40, kDouble).reshape({4, 10}) * 0.5;
  many.select(0, 0).select(0, 0).fill_(kNaN);
  expect_values(isin(E, many), isin(E, many.reshape({-1}).index_select(0, arange(1, 9)).clone()));
  expect_values(isin(T({2}, {1, 5}, kInt), T({1}, {5}, kLong)), T({2}, {0, 1}, kBool));
  expect_values(isin(T({}, {3}, kLong), T({1, 2}, {3, 4}, kLong)), T({}, {1}, kBool));
  EXPECT_EQ(error_of([] {
              isin(T({2}, {1, 0}, kBool), T({1}, {1}, kBool));
            }),
            "Unsupported input type encountered for isin(): Bool");
  EXPECT_EQ(error_of([] { isin(T({1}, {1.0}, kFloat), T({1}, {1}, kBool)); }),
            "Unsupported input type encountered for isin(): Bool");
  EXPECT_EQ(error_of([] { isin(T({1}, {1.0}, kFloat), true); }),
            "Unsupported input type encountered for isin(): Bool");
  EXPECT_EQ(error_of([] { isin(true, T({1}, {1.0}, kFloat)); }),
            "Unsupported input type encountered for isin(): Bool");
}

}  // namespace
}  // namespace ember
