// topk_select.h's insertion and merge against a full sort, with many ties:
// the small-k topk (topk.cu) is the k smallest (key, position) pairs.

#include "tensor/cuda/topk_select.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace ember {
namespace cuda {
namespace topk {
namespace {

std::vector<Cand> sorted_prefix(std::vector<Cand> v, int k) {
  std::sort(v.begin(), v.end(), less);
  v.resize(k);
  return v;
}

void expect_same(const std::vector<Cand>& got, const std::vector<Cand>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].key, want[i].key) << i;
    EXPECT_EQ(got[i].pos, want[i].pos) << i;
  }
}

// What one thread of topk.cu keeps: the k smallest of its strided share.
std::vector<Cand> thread_list(const std::vector<Cand>& row, int k, int tid, int threads) {
  std::vector<Cand> list(k, sentinel());
  for (size_t j = tid; j < row.size(); j += threads) insert(list.data(), k, row[j]);
  return list;
}

TEST(TopkSelectTest, BlockReductionIsTheSortedPrefix) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    const int len = 1 + static_cast<int>(rng() % 3000);
    const int k = 1 + static_cast<int>(rng() % std::min(kMaxK, len));
    const uint64_t distinct = 1 + rng() % 50;  // many ties
    std::vector<Cand> row(len);
    for (int j = 0; j < len; ++j) {
      row[j] = {trial % 3 == 0 ? ~uint64_t{0} - rng() % distinct : rng() % distinct, j};
    }
    // topk.cu's block: 128 lists, merged pairwise in a tree.
    const int threads = 128;
    std::vector<std::vector<Cand>> lists(threads);
    for (int t = 0; t < threads; ++t) lists[t] = thread_list(row, k, t, threads);
    for (int half = threads / 2; half > 0; half /= 2) {
      for (int t = 0; t < half; ++t) {
        std::vector<Cand> out(k);
        merge(lists[t].data(), lists[t + half].data(), out.data(), k);
        lists[t] = out;
      }
    }
    SCOPED_TRACE(::testing::Message() << "len " << len << " k " << k);
    expect_same(lists[0], sorted_prefix(row, k));
  }
}

TEST(TopkSelectTest, SentinelsSortAfterTheLargestKey) {
  const Cand nan_like{~uint64_t{0}, 7};
  EXPECT_TRUE(less(nan_like, sentinel()));
  std::vector<Cand> list(3, sentinel());
  insert(list.data(), 3, nan_like);
  insert(list.data(), 3, Cand{~uint64_t{0}, 2});
  EXPECT_EQ(list[0].pos, 2);
  EXPECT_EQ(list[1].pos, 7);
  EXPECT_EQ(list[2].pos, INT64_MAX);
}

}  // namespace
}  // namespace topk
}  // namespace cuda
}  // namespace ember
