// float16 / bfloat16 sum, mean, nansum, sum_to_size, norm and logsumexp on the CPU, bit for
// bit against PyTorch 1.13 in contiguous, transposed, permuted,
// channels-last and stepped layouts (issue 22; Note [Reduced-float sum] in
// reduce_sum_lowp.cc, Note [Reduced-float norm]). Values from tools/golden/reduce_lowp.py.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "tensor/all.h"
#include "tensor/parallel.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using testing::GoldenEntry;

const GoldenEntry kGolden[] = {
#include "tensor/testdata/reduce_lowp_golden.inc"
};

std::vector<int64_t> ints(const std::string& name) {
  const GoldenEntry& g = testing::find_golden(kGolden, name);
  return std::vector<int64_t>(g.values.begin(), g.values.end());
}

// source_values() of the generator: float32 values, then the dtype.
Tensor source(int64_t seed, int64_t n, bool nan, ScalarType dtype) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t h =
        ((static_cast<uint64_t>(i + 1) * 2654435761ull + static_cast<uint64_t>(seed) * 40503ull) %
         (uint64_t{1} << 32)) >>
        8;
    v[i] = nan && i % 7 == 0 ? std::numeric_limits<double>::quiet_NaN()
                             : (static_cast<double>(h) - 8388608.0) / 1048576.0;
  }
  return testing::from_values({n}, v, kFloat).to(dtype);
}

// Runs the case `name` (<op>:<dtype>/<label>) and returns its result.
Tensor run_case(const std::string& name) {
  const std::vector<int64_t> src = ints(name + "/src");
  const std::vector<int64_t> geom = ints(name + "/geom");
  const std::vector<int64_t> args = ints(name + "/args");
  const ScalarType dtype = name.find(":bf16/") != std::string::npos ? kBFloat16 : kHalf;
  const Tensor storage = source(src[0], src[1], src[2] != 0, dtype);
  const size_t nd = (geom.size() - 1) / 2;
  const std::vector<int64_t> sizes(geom.begin(), geom.begin() + nd);
  const std::vector<int64_t> strides(geom.begin() + nd, geom.begin() + 2 * nd);
  const Tensor x = storage.as_strided(sizes, strides, geom.back());
  const std::string op = name.substr(0, name.find(':'));
  if (op == "sum_to_size") return x.sum_to_size(args);
  const bool keepdim = args[0] != 0;
  std::vector<int64_t> dims(args.begin() + 1, args.end());
  if (dims.empty()) {
    for (size_t d = 0; d < nd; ++d) dims.push_back(static_cast<int64_t>(d));
  }
  if (op == "sum") return x.sum(dims, keepdim);
  if (op == "mean") return x.mean(dims, keepdim);
  if (op == "nansum") return x.nansum(dims, keepdim);
  if (op == "logsumexp") return x.logsumexp(dims, keepdim);
  if (op.rfind("norm", 0) == 0) return x.norm(std::stod(op.substr(4)), dims, keepdim);
  ADD_FAILURE() << "unknown op " << op;
  return Tensor();
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const GoldenEntry& g : kGolden) {
    const std::string n = g.name;
    if (n.size() > 4 && n.compare(n.size() - 4, 4, "/out") == 0) {
      names.push_back(n.substr(0, n.size() - 4));
    }
  }
  return names;
}

TEST(ReducedFloatSumTest, MatchesPyTorchBitForBit) {
  const std::vector<std::string> names = case_names();
  ASSERT_GE(names.size(), 100u);
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(
        testing::matches_golden(run_case(name), testing::find_golden(kGolden, name + "/out")));
  }
}

// 1.13's multi-threaded results depend on its thread count; ember's are its
// one-thread results with any number of threads.
TEST(ReducedFloatSumTest, SameResultWithOneThread) {
  const int threads = get_num_threads();
  std::vector<Tensor> many;
  const std::vector<std::string> names = case_names();
  for (const std::string& name : names) many.push_back(run_case(name));
  set_num_threads(1);
  for (size_t i = 0; i < names.size(); ++i) {
    SCOPED_TRACE(names[i]);
    testing::expect_values(run_case(names[i]), many[i]);  // NaN matches NaN
  }
  set_num_threads(threads);
}

// The sum of one element, -0 included, is 0 + x as in 1.13; empty sums are
// zeros and empty means NaN.
TEST(ReducedFloatSumTest, EdgeCases) {
  for (ScalarType dt : {kHalf, kBFloat16}) {
    const Tensor negzero = full({1, 3}, -0.0, dt);
    EXPECT_FALSE(std::signbit(negzero.sum().item<double>()));
    EXPECT_FALSE(std::signbit(negzero.sum(0)[1].item<double>()));
    EXPECT_EQ(zeros({0, 4}, dt).sum(0).sum().item<double>(), 0.0);
    EXPECT_TRUE(std::isnan(zeros({0, 4}, dt).mean(0)[0].item<double>()));
    EXPECT_EQ(full({}, 2.5, dt).sum().item<double>(), 2.5);
    EXPECT_EQ(full({3, 2}, 65504.0, kHalf).sum(0)[0].item<double>(),
              std::numeric_limits<double>::infinity());
  }
  // bfloat16 logsumexp with infinite maxima and NaN, as 1.13: inf, -inf, nan.
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor x = testing::from_values({3, 2}, {inf, 1, -inf, -inf, std::nan(""), 1}, kBFloat16);
  const Tensor r = x.logsumexp({1});
  EXPECT_EQ(r[0].item<double>(), inf);
  EXPECT_EQ(r[1].item<double>(), -inf);
  EXPECT_TRUE(std::isnan(r[2].item<double>()));
}

}  // namespace
}  // namespace ember
