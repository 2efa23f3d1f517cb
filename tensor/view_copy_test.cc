// view_copy.h against PyTorch 1.13 (tools/golden/view_copy.py): values and
// strides of each copy, that it owns its storage, and the views' errors.
#include "tensor/view_copy.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using testing::make_input;

const testing::GoldenEntry kGolden[] = {
#include "tensor/testdata/view_copy_golden.inc"
};
const testing::GoldenError kErrors[] = {
#include "tensor/testdata/view_copy_errors_golden.inc"
};

Tensor X() { return make_input({3, 4}); }
Tensor XT() { return X().t(); }
Tensor P() { return make_input({2, 3, 4}).permute({2, 0, 1}); }
Tensor L() { return make_input({3, 4}, kLong); }

// The case's input: its copy must not share storage with it.
struct Case {
  std::function<Tensor()> input;
  std::function<Tensor(const Tensor&)> op;
};

const std::map<std::string, Case>& cases() {
  static const auto* m = new std::map<std::string, Case>{
      {"as_strided_copy",
       {X,
        [](const Tensor& x) {
          return as_strided_copy(x, {2, 2}, {1, 2}, 1);
        }}},
      {"as_strided_copy_overlap",
       {X,
        [](const Tensor& x) {
          return as_strided_copy(x, {3, 2}, {1, 1});
        }}},
      {"diagonal_copy", {X, [](const Tensor& x) { return diagonal_copy(x); }}},
      {"diagonal_copy_P", {P, [](const Tensor& x) { return diagonal_copy(x, 1, 0, -1); }}},
      {"expand_copy",
       {X,
        [](const Tensor& x) {
          return expand_copy(x.slice(0, 0, 1), {2, 3, 4});
        }}},
      {"expand_copy_T",
       {XT,
        [](const Tensor& x) {
          return expand_copy(x.slice(1, 0, 1), {5, 4, 3});
        }}},
      {"permute_copy",
       {X,
        [](const Tensor& x) {
          return permute_copy(x, {1, 0});
        }}},
      {"permute_copy_P",
       {P,
        [](const Tensor& x) {
          return permute_copy(x, {-1, 0, 1});
        }}},
      {"select_copy", {X, [](const Tensor& x) { return select_copy(x, 1, -1); }}},
      {"select_copy_P", {P, [](const Tensor& x) { return select_copy(x, 0, 1); }}},
      {"slice_copy", {X, [](const Tensor& x) { return slice_copy(x, 1, 1, std::nullopt, 2); }}},
      {"slice_copy_default", {XT, [](const Tensor& x) { return slice_copy(x); }}},
      {"slice_copy_clamp", {X, [](const Tensor& x) { return slice_copy(x, 0, -10, 100, 2); }}},
      {"squeeze_copy", {X, [](const Tensor& x) { return squeeze_copy(x.slice(0, 0, 1).t()); }}},
      {"squeeze_copy_dim", {X, [](const Tensor& x) { return squeeze_copy(x.slice(0, 0, 1), 0); }}},
      {"squeeze_copy_dim_keep", {X, [](const Tensor& x) { return squeeze_copy(x, 1); }}},
      {"t_copy", {X, [](const Tensor& x) { return t_copy(x); }}},
      {"t_copy_1d", {X, [](const Tensor& x) { return t_copy(x.select(0, 0)); }}},
      {"transpose_copy", {P, [](const Tensor& x) { return transpose_copy(x, 0, -1); }}},
      {"unfold_copy", {X, [](const Tensor& x) { return unfold_copy(x, 1, 2, 1); }}},
      {"unfold_copy_T", {XT, [](const Tensor& x) { return unfold_copy(x, 0, 3, 2); }}},
      {"unsqueeze_copy", {X, [](const Tensor& x) { return unsqueeze_copy(x, -1); }}},
      {"unsqueeze_copy_P", {P, [](const Tensor& x) { return unsqueeze_copy(x, 1); }}},
      {"view_copy",
       {X,
        [](const Tensor& x) {
          return view_copy(x, {2, -1});
        }}},
      {"view_copy_T", {XT, [](const Tensor& x) { return view_copy(x, {12}); }}},
      {"view_copy_long",
       {L,
        [](const Tensor& x) {
          return view_copy(x, {4, 3});
        }}},
      {"view_copy_dtype", {X, [](const Tensor& x) { return view_copy(x, kInt); }}},
      {"view_copy_dtype_half", {X, [](const Tensor& x) { return view_copy(x, kHalf); }}},
      {"alias_copy", {P, [](const Tensor& x) { return alias_copy(x); }}},
      {"detach_copy", {XT, [](const Tensor& x) { return detach_copy(x); }}},
  };
  return *m;
}

struct ListCase {
  std::function<Tensor()> input;
  std::function<std::vector<Tensor>(const Tensor&)> op;
};

const std::map<std::string, ListCase>& list_cases() {
  static const auto* m = new std::map<std::string, ListCase>{
      {"split_copy", {X, [](const Tensor& x) { return split_copy(x, 3, 1); }}},
      {"split_copy_T", {XT, [](const Tensor& x) { return split_copy(x, 3, 0); }}},
      {"split_with_sizes_copy",
       {X,
        [](const Tensor& x) {
          return split_with_sizes_copy(x, {1, 0, 2}, 0);
        }}},
      {"unbind_copy", {P, [](const Tensor& x) { return unbind_copy(x, -1); }}},
  };
  return *m;
}

void expect_copy(const std::string& name, const Tensor& input, const Tensor& got) {
  EXPECT_TRUE(testing::matches_golden(got, testing::find_golden(kGolden, name))) << name;
  const testing::GoldenEntry& strides = testing::find_golden(kGolden, name + "/strides");
  std::vector<int64_t> want(strides.values.begin(), strides.values.end());
  EXPECT_EQ(std::vector<int64_t>(got.strides().begin(), got.strides().end()), want) << name;
  EXPECT_FALSE(testing::shares_storage(got, input)) << name;
}

TEST(ViewCopy, MatchesPyTorch) {
  for (const auto& [name, c] : cases()) {
    const Tensor x = c.input();
    expect_copy(name, x, c.op(x));
  }
  for (const auto& [name, c] : list_cases()) {
    const Tensor x = c.input();
    const std::vector<Tensor> got = c.op(x);
    for (size_t i = 0; i < got.size(); ++i) {
      expect_copy(name + "/" + std::to_string(i), x, got[i]);
    }
    // No piece beyond PyTorch's.
    bool found = false;
    for (const auto& g : kGolden)
      found = found || name + "/" + std::to_string(got.size()) == g.name;
    EXPECT_FALSE(found) << name;
  }
}

// A write to the copy leaves the input alone.
TEST(ViewCopy, OwnsItsStorage) {
  const Tensor x = X();
  Tensor c = permute_copy(x, {1, 0});
  c.fill_(7.0);
  EXPECT_EQ(x.index({0, 1}).item<float>(), 1.0f);
  EXPECT_EQ(c.index({1, 0}).item<float>(), 7.0f);
}

TEST(ViewCopy, Errors) {
  using testing::expect_golden_error;
  const Tensor x = X();
  const Tensor xt = XT();
  const Tensor p = P();
  const Tensor s = scalar_tensor(1.0);
  expect_golden_error(kErrors, "as_strided_copy_negative", [&] {
    as_strided_copy(x, {2, 2}, {1, -1});
  });
  expect_golden_error(kErrors, "as_strided_copy_storage", [&] { as_strided_copy(x, {20}, {1}); });
  expect_golden_error(kErrors, "diagonal_copy_same", [&] { diagonal_copy(x, 0, 1, -1); });
  expect_golden_error(kErrors, "expand_copy_few", [&] { expand_copy(x, {4}); });
  expect_golden_error(kErrors, "expand_copy_size", [&] { expand_copy(x, {3, 5}); });
  expect_golden_error(kErrors, "permute_copy_len", [&] { permute_copy(x, {0}); });
  expect_golden_error(kErrors, "permute_copy_dup", [&] { permute_copy(x, {0, 0}); });
  expect_golden_error(kErrors, "select_copy_index", [&] { select_copy(x, 0, 3); });
  expect_golden_error(kErrors, "select_copy_0dim", [&] { select_copy(s, 0, 0); });
  expect_golden_error(kErrors, "slice_copy_step", [&] { slice_copy(x, 0, 0, 2, 0); });
  expect_golden_error(kErrors, "split_copy_zero", [&] { split_copy(x, 0, 1); });
  expect_golden_error(kErrors, "split_with_sizes_copy_sum", [&] {
    split_with_sizes_copy(x, {1, 1}, 0);
  });
  expect_golden_error(kErrors, "squeeze_copy_dim", [&] { squeeze_copy(x, 2); });
  expect_golden_error(kErrors, "t_copy_3d", [&] { t_copy(p); });
  expect_golden_error(kErrors, "transpose_copy_dim", [&] { transpose_copy(x, 0, 2); });
  expect_golden_error(kErrors, "unbind_copy_0dim", [&] { unbind_copy(s); });
  expect_golden_error(kErrors, "unfold_copy_size", [&] { unfold_copy(x, 0, 4, 1); });
  expect_golden_error(kErrors, "unfold_copy_step", [&] { unfold_copy(x, 0, 2, 0); });
  expect_golden_error(kErrors, "unsqueeze_copy_dim", [&] { unsqueeze_copy(x, 3); });
  expect_golden_error(kErrors, "view_copy_numel", [&] { view_copy(x, {5}); });
  expect_golden_error(kErrors, "view_copy_dtype_stride", [&] { view_copy(xt, kHalf); });
}

}  // namespace
}  // namespace ember
