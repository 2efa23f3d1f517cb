#include "data/sampler.h"

#include <gtest/gtest.h>

#include "data/test_golden.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "data/dataset.h"
#include "tensor/creation.h"
#include "tensor/random.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace data {
namespace {

const testing::Golden<int64_t> kGolden[] = {
#include "data/testdata/sampler_golden.inc"
};

const std::vector<int64_t>& golden(const std::string& name) { return testing::find_golden(kGolden, name); }

TEST(SequentialSamplerTest, InOrder) {
  SequentialSampler s(5);
  EXPECT_EQ(s.indices(), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(s.size(), 5);
  EXPECT_TRUE(SequentialSampler(0).indices().empty());
  EXPECT_THROW(SequentialSampler(-1), ValueError);
}

TEST(RandomSamplerTest, MatchesPyTorchWithGenerator) {
  for (auto [n, seed] : std::vector<std::pair<int64_t, uint64_t>>{{10, 0}, {100, 42}, {1, 3}}) {
    RandomSampler s(n, false, std::nullopt, Generator(seed));
    const std::string base = "random_n" + std::to_string(n) + "_seed" + std::to_string(seed);
    // The generator carries on from one epoch to the next.
    EXPECT_EQ(s.indices(), golden(base + "_epoch0"));
    EXPECT_EQ(s.indices(), golden(base + "_epoch1"));
  }
}

TEST(RandomSamplerTest, ReplacementDrawsInChunksOf32) {
  RandomSampler s(10, true, 70, Generator(3));
  EXPECT_EQ(s.size(), 70);
  EXPECT_EQ(s.indices(), golden("random_replacement_n10_num70_seed3"));
  EXPECT_EQ(RandomSampler(7, true, 5, Generator(9)).indices(),
            golden("random_replacement_n7_num5_seed9"));
}

TEST(RandomSamplerTest, NumSamplesBeyondSizeChainsPermutations) {
  RandomSampler s(10, false, 25, Generator(5));
  const std::vector<int64_t> idx = s.indices();
  EXPECT_EQ(idx, golden("random_n10_num25_seed5"));
  // Each full block of 10 is a permutation.
  std::vector<int64_t> first(idx.begin(), idx.begin() + 10);
  std::sort(first.begin(), first.end());
  for (int64_t i = 0; i < 10; ++i) EXPECT_EQ(first[i], i);
}

TEST(RandomSamplerTest, DefaultGeneratorSeedsAFreshOneEachEpoch) {
  manual_seed(7);
  RandomSampler s(12);
  EXPECT_EQ(s.indices(), golden("random_default_gen_manual_seed7_epoch0"));
  EXPECT_EQ(s.indices(), golden("random_default_gen_manual_seed7_epoch1"));
}

TEST(RandomSamplerTest, RejectsBadArguments) {
  EXPECT_THROW(RandomSampler(10, false, 0), ValueError);
  EXPECT_THROW(RandomSampler(-2), ValueError);
  // An empty dataset: PyTorch's ValueError, not a division by zero later.
  EXPECT_EQ(ember::testing::error_of([] { RandomSampler(0); }),
            "num_samples should be a positive integer value, but got num_samples=0");
  RandomSampler empty(0, true, 4, Generator(1));
  EXPECT_THROW(empty.indices(), ValueError);
}

struct DistCase {
  int64_t n, replicas;
  bool drop_last, shuffle;
  uint64_t seed;
};

std::string dist_name(const DistCase& c, int64_t rank, int64_t epoch) {
  return "distributed_n" + std::to_string(c.n) + "_r" + std::to_string(c.replicas) + "_rank" +
         std::to_string(rank) + "_drop" + std::to_string(c.drop_last) + "_shuffle" +
         std::to_string(c.shuffle) + "_seed" + std::to_string(c.seed) + "_epoch" +
         std::to_string(epoch);
}

const DistCase kDistCases[] = {{90, 2, false, true, 0}, {10, 3, false, true, 0},
                               {10, 3, true, true, 0},  {5, 8, false, true, 1},
                               {7, 3, false, false, 0}, {7, 3, true, false, 0},
                               {1, 3, true, true, 0},   {101, 4, false, true, 1234}};

TEST(DistributedSamplerTest, MatchesPyTorch) {
  for (const DistCase& c : kDistCases) {
    for (int64_t epoch : {0, 1}) {
      for (int64_t rank = 0; rank < c.replicas; ++rank) {
        DistributedSampler s(c.n, c.replicas, rank, c.shuffle, c.seed, c.drop_last);
        s.set_epoch(epoch);
        const std::string name = dist_name(c, rank, epoch);
        const std::vector<int64_t> idx = s.indices();
        EXPECT_EQ(idx, golden(name)) << name;
        EXPECT_EQ(static_cast<int64_t>(idx.size()), s.size()) << name;
      }
    }
  }
}

TEST(DistributedSamplerTest, RanksCoverTheDatasetAndDisjointWhenNoPadding) {
  for (const DistCase& c : kDistCases) {
    std::vector<int64_t> all;
    for (int64_t rank = 0; rank < c.replicas; ++rank) {
      DistributedSampler s(c.n, c.replicas, rank, c.shuffle, c.seed, c.drop_last);
      s.set_epoch(3);
      const std::vector<int64_t> idx = s.indices();
      all.insert(all.end(), idx.begin(), idx.end());
    }
    const std::set<int64_t> distinct(all.begin(), all.end());
    EXPECT_EQ(all.size(), static_cast<size_t>(DistributedSampler(c.n, c.replicas, 0, c.shuffle,
                                                                 c.seed, c.drop_last)
                                                  .total_size()));
    if (c.drop_last) {
      // Truncated to a multiple of the replicas: disjoint, nothing repeated.
      EXPECT_EQ(distinct.size(), all.size());
      EXPECT_EQ(static_cast<int64_t>(all.size()), c.n / c.replicas * c.replicas);
    } else {
      // Padded: every index appears, repeats only to fill the last round.
      EXPECT_EQ(static_cast<int64_t>(distinct.size()), c.n);
      EXPECT_LT(static_cast<int64_t>(all.size()) - c.n, c.replicas);
    }
    for (int64_t i : all) {
      EXPECT_GE(i, 0);
      EXPECT_LT(i, c.n);
    }
  }
}

// Seed 004's case: 90 samples, 2 replicas, batch 30.
TEST(DistributedSamplerTest, NinetySamplesTwoReplicasBatchThirty) {
  std::set<int64_t> seen;
  for (int64_t rank = 0; rank < 2; ++rank) {
    auto s = std::make_shared<DistributedSampler>(90, 2, rank);
    EXPECT_EQ(s->size(), 45);
    BatchSampler b(s, 30, false);
    const auto batches = b.batches();
    ASSERT_EQ(batches.size(), 2u);
    EXPECT_EQ(batches[0].size(), 30u);
    EXPECT_EQ(batches[1].size(), 15u);
    for (const auto& batch : batches) {
      for (int64_t i : batch) EXPECT_TRUE(seen.insert(i).second) << "index " << i << " twice";
    }
  }
  EXPECT_EQ(seen.size(), 90u);
}

TEST(DistributedSamplerTest, EpochChangesTheOrderSeedKeepsIt) {
  DistributedSampler a(50, 2, 0, true, 7), b(50, 2, 0, true, 7);
  EXPECT_EQ(a.indices(), b.indices());
  a.set_epoch(1);
  EXPECT_NE(a.indices(), b.indices());
  EXPECT_EQ(a.epoch(), 1);
}

TEST(DistributedSamplerTest, RejectsBadRank) {
  try {
    DistributedSampler(10, 2, 2);
    FAIL() << "no error";
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(), "Invalid rank 2, rank should be in the interval [0, 1]");
  }
  EXPECT_THROW(DistributedSampler(10, 2, -1), ValueError);
  EXPECT_THROW(DistributedSampler(10, 0, 0), ValueError);
}

TEST(BatchSamplerTest, GroupsAndDropsLast) {
  auto seq = std::make_shared<SequentialSampler>(7);
  BatchSampler keep(seq, 3, false), drop(seq, 3, true);
  EXPECT_EQ(keep.batches(), (std::vector<std::vector<int64_t>>{{0, 1, 2}, {3, 4, 5}, {6}}));
  EXPECT_EQ(keep.size(), 3);
  EXPECT_EQ(drop.batches(), (std::vector<std::vector<int64_t>>{{0, 1, 2}, {3, 4, 5}}));
  EXPECT_EQ(drop.size(), 2);
  EXPECT_THROW(BatchSampler(seq, 0, false), ValueError);
  EXPECT_THROW(BatchSampler(nullptr, 2, false), ValueError);
}

TEST(RandomSplitTest, MatchesPyTorch) {
  auto ds = std::make_shared<TensorDataset>(std::vector<Tensor>{arange(11)});
  auto by_count = random_split(std::make_shared<TensorDataset>(std::vector<Tensor>{arange(10)}),
                               {3, 7}, Generator(42));
  ASSERT_EQ(by_count.size(), 2u);
  EXPECT_EQ(by_count[0]->indices(), golden("split_counts_3_7_n10_seed42_part0"));
  EXPECT_EQ(by_count[1]->indices(), golden("split_counts_3_7_n10_seed42_part1"));
  auto by_fraction = random_split(ds, {0.5, 0.3, 0.2}, Generator(1));
  ASSERT_EQ(by_fraction.size(), 3u);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(by_fraction[k]->indices(),
              golden("split_fractions_05_03_02_n11_seed1_part" + std::to_string(k)));
  }
  auto thirds = random_split(std::make_shared<TensorDataset>(std::vector<Tensor>{arange(10)}),
                             {1.0 / 3, 1.0 / 3, 1.0 / 3}, Generator(2));
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(thirds[k]->indices(), golden("split_fractions_033x3_n10_seed2_part" + std::to_string(k)));
  }
  // A subset reads through to the dataset.
  EXPECT_EQ(by_fraction[0]->get(0).data.item<int64_t>(), by_fraction[0]->indices()[0]);
}

TEST(RandomSplitTest, RejectsLengthsThatDoNotAddUp) {
  auto ds = std::make_shared<TensorDataset>(std::vector<Tensor>{arange(10)});
  try {
    random_split(ds, {3, 6});
    FAIL() << "no error";
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(), "Sum of input lengths does not equal the length of the input dataset!");
  }
  EXPECT_THROW(random_split(ds, {1.5, -0.5}), ValueError);
  EXPECT_THROW(random_split(ds, {2.5, 7.5}), ValueError);
  std::vector<int64_t> counts{4, 6};
  EXPECT_EQ(random_split(ds, counts)[1]->size(), 6);
}

}  // namespace
}  // namespace data
}  // namespace ember
