// introsort.h against std::sort (as mode's CPU kernel calls it): the same
// permutation of equal keys, for lengths around the insertion-sort
// threshold, many ties, sorted and reversed inputs (the heapsort fallback),
// and NaN keys. Runs on the host: no GPU needed.

#include "tensor/cuda/introsort.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>
#include <vector>

namespace ember {
namespace {

template <typename K>
void expect_same_as_std_sort(const std::vector<K>& keys) {
  const int64_t n = static_cast<int64_t>(keys.size());
  std::vector<std::pair<K, int64_t>> el(keys.size());
  for (int64_t i = 0; i < n; ++i) el[i] = {keys[i], i};
  std::sort(el.begin(), el.end(),
            [](const std::pair<K, int64_t>& a, const std::pair<K, int64_t>& b) {
              return a.first < b.first;
            });
  std::vector<K> k = keys;
  std::vector<int64_t> ix(keys.size());
  for (int64_t i = 0; i < n; ++i) ix[i] = i;
  introsort::sort(introsort::Pairs<K>{k.data(), ix.data()}, n);
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(ix[i], el[i].second) << "n=" << n << " at " << i;
  }
}

TEST(IntrosortTest, SamePermutationAsStdSort) {
  std::mt19937 rng(7);
  for (int64_t n : {0, 1, 2, 3, 15, 16, 17, 31, 33, 100, 257, 1000, 4099}) {
    for (int distinct : {1, 2, 3, 10, 1000000}) {
      std::uniform_int_distribution<int> d(0, distinct - 1);
      std::vector<int> keys(n);
      for (int& v : keys) v = d(rng);
      expect_same_as_std_sort(keys);
      std::sort(keys.begin(), keys.end());
      expect_same_as_std_sort(keys);
      std::reverse(keys.begin(), keys.end());
      expect_same_as_std_sort(keys);
    }
  }
}

// Inputs that drive libstdc++ into its heapsort fallback (median-of-three
// killers are rare; organ-pipe and sawtooth patterns deepen it).
TEST(IntrosortTest, AdversarialPatterns) {
  for (int64_t n : {64, 500, 2048}) {
    std::vector<int64_t> organ(n), saw(n);
    for (int64_t i = 0; i < n; ++i) {
      organ[i] = std::min(i, n - 1 - i);
      saw[i] = i % 7;
    }
    expect_same_as_std_sort(organ);
    expect_same_as_std_sort(saw);
    // A median-of-3 killer sequence.
    std::vector<int64_t> killer(n);
    for (int64_t i = 0; i < n / 2; ++i) {
      killer[i] = (i % 2 == 0) ? i + 1 : n / 2 + i;
      killer[n / 2 + i] = 2 * (i + 1);
    }
    expect_same_as_std_sort(killer);
  }
}

TEST(IntrosortTest, FloatKeysWithNaN) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> d(0, 5);
  for (int64_t n : {5, 17, 40, 300}) {
    std::vector<float> keys(n);
    for (float& v : keys) {
      const int r = d(rng);
      v = r == 0 ? NAN : static_cast<float>(r) / 2;
    }
    expect_same_as_std_sort(keys);
  }
}

}  // namespace
}  // namespace ember
