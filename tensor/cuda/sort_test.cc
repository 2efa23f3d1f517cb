// sort.cu and compact.cu (Note [Device sort], tensor/sort_kernels.h) against
// the CPU on the same inputs: sort/argsort/msort bit for bit (values and
// indices) over every dtype, with ties, NaN of either sign, infinities and
// -0.0, along every dim, for transposed, expanded, empty, 0-dim, long
// (100k) and many-row inputs; topk and kthvalue (values exact, indices
// exact where there are no ties and naming an equal element where there
// are); nonzero, where(cond), masked_select and masked_scatter_ exactly,
// with broadcast masks and the errors; cuda::sort_int64_pairs. Needs a
// GPU; skips without one. Without CUDA kernels these ops reach the CPU
// through Note [CPU fallback] (device_guard_test).

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>

#include "tensor/all.h"
#include "tensor/cuda/ops_testing.h"
#include "tensor/testing/golden.h"

#if EMBER_TEST_CUDA_ENABLED
#include "tensor/cuda/device_sort.h"
#endif

namespace ember {
namespace {

using ::ember::testing::error_of;
using namespace ::ember::cuda_testing;  // NOLINT

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// The same sizes, dtype and bytes (so -0.0 is not 0.0 and NaN payloads
// count).
void expect_same_bits(const Tensor& cuda_result, const Tensor& cpu_result) {
  ASSERT_TRUE(cuda_result.is_cuda());
  const Tensor got = cuda_result.to(Device(kCPU)).contiguous();
  const Tensor want = cpu_result.contiguous();
  ASSERT_EQ(got.sizes(), want.sizes());
  ASSERT_EQ(got.dtype(), want.dtype());
  EXPECT_EQ(std::memcmp(got.data_ptr(), want.data_ptr(), got.numel() * got.element_size()), 0)
      << "CUDA:\n"
      << got << "\nCPU:\n"
      << want;
}

// Rows with many ties; floating ones also hold NaN of both signs, both
// infinities and both zeros.
Tensor with_specials(IntArrayRef sizes, ScalarType t) {
  Tensor x = values(sizes, kDouble, 3);
  if (t != kBool) x = (x * 2).round() / 2;
  if (is_floating_point(t)) {
    Tensor flat = x.view({-1});
    const double specials[] = {kNaN, -kNaN, kInf, -kInf, 0.0, -0.0, kNaN, -0.0, 0.0, -kInf};
    for (int64_t i = 0; i < 10 && i * 3 < flat.numel(); ++i) flat[i * 3].fill_(specials[i]);
  }
  return t == kBool ? x.gt(0) : x.to(t);
}

// The device sort is stable whether asked or not, so its indices are the
// CPU's stable sort's (the CPU's default orders the ties of rows longer
// than 16 as 1.13's std::sort: Note [PyTorch's unstable sort]).
void expect_sort_matches(const Tensor& x, int64_t dim, bool descending) {
  SCOPED_TRACE(::testing::Message() << "dim " << dim << " descending " << descending);
  const auto [v, i] = sort(x.to(kCuda), dim, descending);
  const auto [cv, ci] = sort(x, /*stable=*/true, dim, descending);
  expect_same_bits(v, cv);
  expect_same_bits(i, ci);
  EXPECT_EQ(v.strides(), cv.strides());
}

TEST(CudaSortTest, SortMatchesTheCpuBitForBit) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kAll) {
    SCOPED_TRACE(scalar_type_name(t));
    const Tensor x = with_specials({7, 9}, t);
    const Tensor x3 = with_specials({3, 4, 5}, t);
    for (bool descending : {false, true}) {
      for (int64_t dim : {0, 1, -1}) {
        expect_sort_matches(x, dim, descending);
        expect_sort_matches(x.t(), dim, descending);
        expect_sort_matches(x3, dim, descending);
        expect_sort_matches(x3.transpose(0, 2), dim, descending);
      }
      // Expanded (stride 0) rows, and a 1-d one.
      expect_sort_matches(x[2].expand({4, 9}), 0, descending);
      expect_sort_matches(x[2].expand({4, 9}), 1, descending);
      expect_sort_matches(x.reshape({-1}), 0, descending);
    }
  }
}

TEST(CudaSortTest, SortEdgeShapes) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : {kFloat, kLong, kBool, kHalf}) {
    SCOPED_TRACE(scalar_type_name(t));
    for (bool descending : {false, true}) {
      expect_sort_matches(with_specials({5, 1}, t), 1, descending);  // rows of one
      expect_sort_matches(with_specials({5, 1}, t), 0, descending);
      expect_sort_matches(empty({4, 0}, TensorOptions(t)), 1, descending);    // rows of none
      expect_sort_matches(empty({0, 4}, TensorOptions(t)), 1, descending);    // no rows
      expect_sort_matches(with_specials({1}, t).reshape({}), 0, descending);  // 0-dim
    }
  }
}

TEST(CudaSortTest, LongRowsAndManyRows) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kAll) {
    SCOPED_TRACE(scalar_type_name(t));
    // One long row (a single radix sort), then many short ones (the row
    // number in the key; a second pass by row for 8-byte keys).
    const Tensor longrow = with_specials({100000}, t);
    const Tensor many = with_specials({3000, 37}, t);
    for (bool descending : {false, true}) {
      expect_sort_matches(longrow, 0, descending);
      expect_sort_matches(many, 1, descending);
      expect_sort_matches(many, 0, descending);
    }
  }
  // Rows longer than any block, several of them.
  expect_sort_matches(with_specials({3, 70000}, kDouble), 1, true);
  expect_sort_matches(with_specials({3, 70000}, kInt), 1, false);
}

TEST(CudaSortTest, StableArgsortMsort) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const Tensor x = with_specials({6, 8}, kFloat);
  const Tensor xc = x.to(kCuda);
  expect_same_bits(argsort(xc, 1, true), argsort(x, 1, true));
  expect_same_bits(argsort(xc, /*stable=*/true, 0, false), argsort(x, true, 0, false));
  expect_same_bits(std::get<1>(sort(xc, /*stable=*/true, 1, false)),
                   std::get<1>(sort(x, true, 1, false)));
  expect_same_bits(msort(xc), msort(x));
  expect_same_bits(xc.argsort(-1), x.argsort(-1));  // rows of 8: the CPU's default is stable
}

// topk's and kthvalue's index names an element equal to the value (a NaN
// for a NaN).
void expect_indices_name_values(const Tensor& self, int64_t dim, const Tensor& values,
                                const Tensor& indices) {
  const Tensor picked = self.to(kCuda).gather(dim, indices).to(Device(kCPU));
  const Tensor v = values.to(Device(kCPU));
  EXPECT_TRUE(picked.to(kDouble).equal(v.to(kDouble)) ||
              picked.to(kDouble).allclose(v.to(kDouble), 0, 0, /*equal_nan=*/true))
      << picked << "\n"
      << v;
}

// 0..59 shuffled (fits every dtype), as [6, 10].
Tensor distinct_values(ScalarType t) {
  manual_seed(7);
  return arange(60, TensorOptions(kDouble)).index_select(0, randperm(60)).to(t).reshape({6, 10});
}

TEST(CudaSortTest, TopkMatchesTheCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kNumeric) {
    SCOPED_TRACE(scalar_type_name(t));
    // Distinct values: the indices are the CPU's too.
    const Tensor d = distinct_values(t);
    const Tensor ties = with_specials({6, 10}, t);
    for (bool largest : {true, false}) {
      for (int64_t dim : {0, 1}) {
        for (int64_t k : {0, 1, 3, 6}) {
          SCOPED_TRACE(::testing::Message()
                       << "largest " << largest << " dim " << dim << " k " << k);
          auto [v, i] = topk(d.to(kCuda), k, dim, largest, true);
          auto [cv, ci] = topk(d, k, dim, largest, true);
          expect_same_bits(v, cv);
          expect_same_bits(i, ci);
          std::tie(v, i) = topk(ties.to(kCuda), k, dim, largest, true);
          std::tie(cv, ci) = topk(ties, k, dim, largest, true);
          expect_matches(v, cv, 0, 0);
          expect_indices_name_values(ties, dim, v, i);
          // sorted=false: the same elements (here in sorted order).
          std::tie(v, i) = topk(ties.to(kCuda), k, dim, largest, false);
          std::tie(cv, ci) = topk(ties, k, dim, largest, false);
          expect_matches(std::get<0>(sort(v, dim, largest)), std::get<0>(sort(cv, dim, largest)), 0,
                         0);
          expect_indices_name_values(ties, dim, v, i);
        }
      }
    }
  }
  const Tensor s = tensor(2.5f);
  expect_same_bits(std::get<0>(topk(s.to(kCuda), 1)), std::get<0>(topk(s, 1)));
  expect_same_bits(std::get<0>(topk(s.to(kCuda), 0)), std::get<0>(topk(s, 1)));
  EXPECT_EQ(error_of([&] {
              topk(values({3, 4}, kFloat).to(kCuda), 5);
            }),
            "selected index k out of range");
  EXPECT_EQ(error_of([&] {
              topk(values({3, 4}, kBool).to(kCuda), 1);
            }),
            "\"topk_out_cuda\" not implemented for 'Bool'");
}

TEST(CudaSortTest, KthvalueMatchesTheCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kNumeric) {
    SCOPED_TRACE(scalar_type_name(t));
    const Tensor d = distinct_values(t);
    const Tensor ties = with_specials({6, 10}, t);
    for (int64_t dim : {0, 1, -1}) {
      for (bool keepdim : {false, true}) {
        for (int64_t k : {1, 3, 6}) {
          SCOPED_TRACE(::testing::Message() << "dim " << dim << " k " << k);
          auto [v, i] = kthvalue(d.to(kCuda), k, dim, keepdim);
          auto [cv, ci] = kthvalue(d, k, dim, keepdim);
          expect_same_bits(v, cv);
          expect_same_bits(i, ci);
          std::tie(v, i) = kthvalue(ties.to(kCuda), k, dim, keepdim);
          std::tie(cv, ci) = kthvalue(ties, k, dim, keepdim);
          expect_matches(v, cv, 0, 0);
          expect_indices_name_values(ties, dim, keepdim ? v : v.unsqueeze(dim),
                                     keepdim ? i : i.unsqueeze(dim));
        }
      }
    }
  }
  EXPECT_EQ(error_of([&] {
              kthvalue(values({3, 4}, kFloat).to(kCuda), 5, 1);
            }),
            "kthvalue(): selected number k out of range for dimension 1");
  EXPECT_EQ(error_of([&] {
              kthvalue(values({3, 4}, kBool).to(kCuda), 1);
            }),
            "\"kthvalue_cuda\" not implemented for 'Bool'");
}

// Note [Small-k topk]: k <= 16 over rows of at most 65536 selects without
// sorting; the result is bit for bit the first k columns of the stable
// sort (the other path), ties, NaN and -0.0 included, on both sides of
// both limits.
TEST(CudaSortTest, SmallKSelectionIsTheSortedPrefix) {
  SKIP_WITHOUT_CUDA_DEVICE();
  struct Shape {
    int64_t rows, len;
  };
  for (ScalarType t : {kFloat, kHalf, kBFloat16, kDouble, kLong, kByte, kInt}) {
    for (const Shape& sh : {Shape{300, 1000}, Shape{2, 65536}, Shape{2, 65537}, Shape{7, 17}}) {
      const Tensor x = with_specials({sh.rows, sh.len}, t).to(kCuda);
      for (bool largest : {true, false}) {
        const auto [sv, si] = sort(x, 1, largest);
        for (int64_t k : {1, 5, 16, 17}) {
          if (k > sh.len) continue;
          SCOPED_TRACE(::testing::Message() << scalar_type_name(t) << " [" << sh.rows << ", "
                                            << sh.len << "] largest " << largest << " k " << k);
          const auto [v, i] = topk(x, k, 1, largest, true);
          expect_same_bits(v, sv.narrow(1, 0, k).to(Device(kCPU)));
          expect_same_bits(i, si.narrow(1, 0, k).to(Device(kCPU)));
          if (!largest) {
            const auto [kv, ki] = kthvalue(x, k, 1);
            expect_same_bits(kv, sv.select(1, k - 1).to(Device(kCPU)));
            expect_same_bits(ki, si.select(1, k - 1).to(Device(kCPU)));
          }
        }
      }
    }
  }
}

// Inputs that are zero about half the time; floating ones with -0.0 (zero)
// and NaN (not).
Tensor sparse_input(IntArrayRef sizes, ScalarType t) {
  Tensor x = values(sizes, kDouble, 2).round();
  if (is_floating_point(t) && x.numel() >= 6) {
    Tensor flat = x.view({-1});
    flat[1].fill_(-0.0);
    flat[4].fill_(kNaN);
    flat[5].fill_(-kInf);
  }
  return t == kBool ? x.gt(0) : x.to(t);
}

TEST(CudaSortTest, NonzeroAndWhereMatchTheCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kAll) {
    SCOPED_TRACE(scalar_type_name(t));
    const Tensor x = sparse_input({5, 7, 3}, t);
    for (const Tensor& in :
         {x, x.transpose(0, 2), x[2], x.reshape({-1}), sparse_input({100003}, t),
          zeros({4, 5}, TensorOptions(t)), ones({4, 5}, TensorOptions(t)),
          empty({3, 0, 2}, TensorOptions(t)), sparse_input({1}, t).reshape({})}) {
      const Tensor got = nonzero(in.to(kCuda));
      const Tensor want = nonzero(in);
      expect_same_bits(got, want);
      EXPECT_EQ(got.strides(), want.strides());
      const std::vector<Tensor> cols = where(in.to(kCuda));
      const std::vector<Tensor> want_cols = where(in);
      ASSERT_EQ(cols.size(), want_cols.size());
      for (size_t d = 0; d < cols.size(); ++d) expect_same_bits(cols[d], want_cols[d]);
    }
  }
  EXPECT_EQ(tensor(true).to(kCuda).nonzero().sizes(), IntArrayRef({1, 0}));
  EXPECT_EQ(tensor(false).to(kCuda).nonzero().sizes(), IntArrayRef({0, 0}));
}

TEST(CudaSortTest, MaskedSelectMatchesTheCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kAll) {
    SCOPED_TRACE(scalar_type_name(t));
    const Tensor x = with_specials({4, 5}, t);
    const Tensor m = values({4, 5}, kBool);
    for (const auto& [self, mask] : std::vector<std::pair<Tensor, Tensor>>{
             {x, m},
             {x.t(), m.t()},
             {x, m[1]},                                 // the mask broadcast over rows
             {x.select(1, 2).unsqueeze(1), m},          // self broadcast over columns
             {x, zeros({4, 5}, TensorOptions(kBool))},  // all false
             {x, ones({1, 5}, TensorOptions(kBool))},   // all true
             {x, m.to(kByte)},                          // a (deprecated) uint8 mask
             {with_specials({60000}, t), values({60000}, kBool)}}) {
      expect_same_bits(masked_select(self.to(kCuda), mask.to(kCuda)), masked_select(self, mask));
      expect_same_bits(self.to(kCuda).masked_select(mask.to(kCuda)), self.masked_select(mask));
    }
  }
  EXPECT_EQ(error_of([] { masked_select(ones({3}).to(kCuda), ones({3}).to(kCuda)); }),
            "masked_select: expected BoolTensor or ByteTensor for mask");
  EXPECT_EQ(error_of([] {
              masked_select(ones({3}).to(kCuda), ones({4}, TensorOptions(kBool)).to(kCuda));
            }),
            error_of([] { masked_select(ones({3}), ones({4}, TensorOptions(kBool))); }));
}

TEST(CudaSortTest, MaskedScatterMatchesTheCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kAll) {
    SCOPED_TRACE(scalar_type_name(t));
    const Tensor x = with_specials({4, 5}, t);
    const Tensor src = with_specials({30}, t).flip({0});
    const Tensor m = values({4, 5}, kBool);
    for (const auto& [self, mask] : std::vector<std::pair<Tensor, Tensor>>{
             {x, m},
             {x, m[2]},                                 // the mask broadcast over rows
             {x, m.select(1, 0).unsqueeze(1)},          // and over columns
             {x.t(), m.t()},                            // a transposed self
             {x, zeros({4, 5}, TensorOptions(kBool))},  // all false
             {x, ones({4, 5}, TensorOptions(kBool))},   // all true
             {x, m.to(kByte)}}) {
      Tensor got = self.to(kCuda).clone(MemoryFormat::Preserve);
      got.masked_scatter_(mask.to(kCuda), src.to(kCuda));
      Tensor want = self.clone(MemoryFormat::Preserve);
      want.masked_scatter_(mask, src);
      expect_same_bits(got, want);
      expect_same_bits(self.to(kCuda).masked_scatter(mask.to(kCuda), src.to(kCuda)),
                       self.masked_scatter(mask, src));
    }
    // A 2-d source is read in order.
    Tensor got = x.to(kCuda);
    got.masked_scatter_(m.to(kCuda), src.reshape({5, 6}).to(kCuda));
    Tensor want = x.clone();
    want.masked_scatter_(m, src.reshape({5, 6}));
    expect_same_bits(got, want);
  }
  // A long one.
  const Tensor big = values({70001}, kFloat);
  const Tensor bm = values({70001}, kBool);
  Tensor got = big.to(kCuda);
  got.masked_scatter_(bm.to(kCuda), big.flip({0}).to(kCuda));
  Tensor want = big.clone();
  want.masked_scatter_(bm, big.flip({0}));
  expect_same_bits(got, want);
  // Too short a source raises, and leaves self as it was.
  Tensor y = zeros({2, 3}).to(kCuda);
  EXPECT_EQ(error_of([&] {
              y.masked_scatter_(ones({2, 3}, TensorOptions(kBool)).to(kCuda), ones({5}).to(kCuda));
            }),
            "Number of elements of source < number of ones in mask");
  EXPECT_TRUE(y.to(Device(kCPU)).equal(zeros({2, 3})));
  EXPECT_EQ(error_of([&] {
              y.masked_scatter_(ones({2, 3}, TensorOptions(kBool)).to(kCuda),
                                ones({6}, TensorOptions(kDouble)).to(kCuda));
            }),
            error_of([&] {
              zeros({2, 3}).masked_scatter_(ones({2, 3}, TensorOptions(kBool)),
                                            ones({6}, TensorOptions(kDouble)));
            }));
  EXPECT_EQ(error_of([&] {
              y.masked_scatter_(ones({4, 3}, TensorOptions(kBool)).to(kCuda), ones({12}).to(kCuda));
            }),
            error_of([&] {
              zeros({2, 3}).masked_scatter_(ones({4, 3}, TensorOptions(kBool)), ones({12}));
            }));
}

#if EMBER_TEST_CUDA_ENABLED
TEST(CudaSortTest, SortInt64PairsIsAStableSortByKey) {
  SKIP_WITHOUT_CUDA_DEVICE();
  Tensor keys = randint(-5, 5, {50000}, TensorOptions(kLong));
  keys[7].fill_(std::numeric_limits<int64_t>::max());
  keys[9].fill_(std::numeric_limits<int64_t>::min());
  keys[11].fill_(std::numeric_limits<int64_t>::min());
  const Tensor vals = arange(50000, TensorOptions(kLong)) * 3;
  const auto [k, v] = cuda::sort_int64_pairs(keys.to(kCuda), vals.to(kCuda));
  const auto [ck, order] = sort(keys, /*stable=*/true, 0, false);
  expect_same_bits(k, ck);
  expect_same_bits(v, vals.index_select(0, order));
  const auto [ek, ev] = cuda::sort_int64_pairs(empty({0}, TensorOptions(kLong)).to(kCuda),
                                               empty({0}, TensorOptions(kLong)).to(kCuda));
  EXPECT_EQ(ek.numel(), 0);
  EXPECT_EQ(ev.numel(), 0);
}
#endif

}  // namespace
}  // namespace ember
