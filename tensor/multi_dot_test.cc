// linalg_multi_dot (shape_more.h) against PyTorch 1.13
// (tools/golden/multi_dot.py): values, result shapes for 1-D ends, errors,
// and the multiplication order 1.13 chooses (Note [multi_dot order]).
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using testing::make_input;

const testing::GoldenEntry kGolden[] = {
#include "tensor/testdata/multi_dot_golden.inc"
};
const testing::GoldenError kErrors[] = {
#include "tensor/testdata/multi_dot_errors_golden.inc"
};

// Operand i is make_input(shapes[i], dtype, i), as the script's ops().
std::vector<Tensor> ops(const std::vector<std::vector<int64_t>>& shapes,
                        ScalarType dtype = kDouble) {
  std::vector<Tensor> out;
  for (size_t i = 0; i < shapes.size(); ++i) {
    out.push_back(make_input(shapes[i], dtype, static_cast<int64_t>(i)));
  }
  return out;
}

TEST(MultiDot, MatchesPyTorch) {
  const std::vector<std::pair<std::string, std::vector<std::vector<int64_t>>>> cases = {
      {"mat_mat", {{2, 3}, {3, 4}}},
      {"vec_vec", {{3}, {3}}},
      {"mat_vec", {{2, 3}, {3}}},
      {"vec_mat", {{2}, {2, 3}}},
      {"vec_mat_vec", {{3}, {3, 4}, {4}}},
      {"three_left", {{10, 100}, {100, 5}, {5, 50}}},
      {"three_right", {{50, 5}, {5, 100}, {100, 10}}},
      {"four", {{2, 30}, {30, 3}, {3, 40}, {40, 2}}},
      {"five_vectors", {{6}, {6, 2}, {2, 7}, {7, 3}, {3}}},
      {"empty_rows", {{0, 3}, {3, 2}, {2, 4}}},
      {"empty_inner", {{2, 0}, {0, 3}}},
  };
  for (const auto& [name, shapes] : cases) {
    EXPECT_TRUE(
        testing::matches_golden(linalg_multi_dot(ops(shapes)), testing::find_golden(kGolden, name)))
        << name;
  }
  EXPECT_TRUE(testing::matches_golden(linalg_multi_dot(ops({{2, 3}, {3, 4}, {4, 2}}, kLong)),
                                      testing::find_golden(kGolden, "long")));
}

// float32 products whose rounding depends on the order: each result is
// bit-identical to the product in the order 1.13 picks.
TEST(MultiDot, Order) {
  manual_seed(3);
  auto r = [](int64_t m, int64_t n) { return randn({m, n}); };
  {
    // (AB)C costs 10*5*(100+50) = 7500 against A(BC)'s 100*50*(10+5).
    const Tensor a = r(10, 100), b = r(100, 5), c = r(5, 50);
    EXPECT_TRUE(linalg_multi_dot({a, b, c}).equal(a.mm(b).mm(c)));
  }
  {
    const Tensor a = r(50, 5), b = r(5, 100), c = r(100, 10);
    EXPECT_TRUE(linalg_multi_dot({a, b, c}).equal(a.mm(b.mm(c))));
    EXPECT_TRUE(chain_matmul({a, b, c}).equal(a.mm(b.mm(c))));
  }
  {
    // The chain programme's orders (flops: 2x30 30x3 3x40 40x2 cost 432 as
    // (AB)(CD); 40x2 2x30 30x3 3x40 cost 3620 as A((BC)D); 10x2 2x30 30x3
    // 3x40 40x5 cost 910 as A((BC)(DE))).
    const Tensor a = r(2, 30), b = r(30, 3), c = r(3, 40), d = r(40, 2);
    EXPECT_TRUE(linalg_multi_dot({a, b, c, d}).equal(a.mm(b).mm(c.mm(d))));
    const Tensor e = r(40, 2), f = r(2, 30), g = r(30, 3), h = r(3, 40);
    EXPECT_TRUE(linalg_multi_dot({e, f, g, h}).equal(e.mm(f.mm(g).mm(h))));
    EXPECT_TRUE(chain_matmul({e, f, g, h}).equal(e.mm(f.mm(g).mm(h))));
    const Tensor i = r(10, 2), j = r(2, 30), k = r(30, 3), l = r(3, 40), m = r(40, 5);
    EXPECT_TRUE(linalg_multi_dot({i, j, k, l, m}).equal(i.mm(j.mm(k).mm(l.mm(m)))));
  }
  {
    // 1-D ends are a row and a column: 1x100 100x100 100x1 costs the same
    // either way, and a tie goes to (AB)C.
    const Tensor v = randn({100}), m = r(100, 100), w = randn({100});
    EXPECT_TRUE(linalg_multi_dot({v, m, w}).equal(
        v.unsqueeze(0).mm(m).mm(w.unsqueeze(1)).view(IntArrayRef{})));
  }
}

TEST(MultiDot, Errors) {
  using testing::expect_golden_error;
  expect_golden_error(kErrors, "one", [] { linalg_multi_dot(ops({{2, 2}})); });
  expect_golden_error(kErrors, "none", [] { linalg_multi_dot({}); });
  expect_golden_error(kErrors, "first_3d", [] { linalg_multi_dot(ops({{2, 2, 2}, {2, 2}})); });
  expect_golden_error(kErrors, "last_3d", [] { linalg_multi_dot(ops({{2, 2}, {2, 2, 2}})); });
  expect_golden_error(kErrors, "last_0d", [] { linalg_multi_dot(ops({{2, 2}, {}})); });
  expect_golden_error(kErrors, "middle_1d", [] { linalg_multi_dot(ops({{2, 2}, {2}, {2, 2}})); });
  expect_golden_error(kErrors, "dtype", [] {
    linalg_multi_dot({make_input({2, 2}), make_input({2, 2}, kDouble, 1)});
  });
  expect_golden_error(kErrors, "shapes", [] { linalg_multi_dot(ops({{2, 3}, {2, 2}})); });
  expect_golden_error(kErrors, "shapes_vec", [] { linalg_multi_dot(ops({{3}, {2, 2}})); });
}

}  // namespace
}  // namespace ember
