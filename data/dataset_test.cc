#include "data/dataset.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tensor/creation.h"
#include "tensor/math.h"

namespace ember {
namespace data {
namespace {

// A user dataset of plain structs (the kind a collate function batches).
struct Pair {
  int64_t a;
  std::string b;
};
class PairDataset : public MapStyleDataset<Pair> {
 public:
  explicit PairDataset(int64_t n) : n_(n) {}
  Pair get(int64_t i) const override { return {i * 10, "s" + std::to_string(i)}; }
  int64_t size() const override { return n_; }

 private:
  int64_t n_;
};

TEST(TensorDatasetTest, RowsOfEachTensor) {
  TensorDataset ds(arange(12).view({4, 3}), arange(4) * 2);
  EXPECT_EQ(ds.size(), 4);
  Example<> e = ds.get(2);
  EXPECT_EQ(e.data.sizes(), (std::vector<int64_t>{3}));
  EXPECT_EQ(e.data[0].item<int64_t>(), 6);
  EXPECT_EQ(e.target.item<int64_t>(), 4);
  // Negative indices count from the end, as in Python.
  EXPECT_EQ(ds.get(-1).target.item<int64_t>(), 6);
}

TEST(TensorDatasetTest, SingleTensorHasNoTarget) {
  TensorDataset ds(std::vector<Tensor>{arange(3)});
  EXPECT_EQ(ds.get(1).data.item<int64_t>(), 1);
  EXPECT_FALSE(ds.get(1).target.defined());
}

TEST(TensorDatasetTest, SizeMismatchAndBadIndex) {
  try {
    TensorDataset(arange(4), arange(5));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "Size mismatch between tensors");
  }
  EXPECT_THROW(TensorDataset(std::vector<Tensor>{}), Error);
  TensorDataset ds(arange(4), arange(4));
  EXPECT_THROW(ds.get(4), IndexError);
  EXPECT_THROW(ds.get(-5), IndexError);
}

TEST(SubsetTest, IndicesInOrder) {
  auto base = std::make_shared<PairDataset>(10);
  Subset<Pair> sub(base, {7, 2, 2});
  EXPECT_EQ(sub.size(), 3);
  EXPECT_EQ(sub.get(0).a, 70);
  EXPECT_EQ(sub.get(2).b, "s2");
  EXPECT_THROW(sub.get(3), IndexError);
}

TEST(ConcatDatasetTest, IndexesAcrossParts) {
  auto a = std::make_shared<PairDataset>(3);
  auto b = std::make_shared<PairDataset>(0);
  auto c = std::make_shared<PairDataset>(2);
  ConcatDataset<Pair> cat({a, b, c});
  EXPECT_EQ(cat.size(), 5);
  EXPECT_EQ(cat.cumulative_sizes(), (std::vector<int64_t>{3, 3, 5}));
  EXPECT_EQ(cat.get(2).a, 20);
  EXPECT_EQ(cat.get(3).a, 0);  // first sample of c (b is empty)
  EXPECT_EQ(cat.get(4).a, 10);
  EXPECT_EQ(cat.get(-1).a, 10);
  EXPECT_THROW(cat.get(5), IndexError);
  EXPECT_THROW(ConcatDataset<Pair>({}), Error);
}

TEST(SplitLengthsTest, FractionsFloorThenRoundRobin) {
  // PyTorch: floor(11 * [0.5, 0.3, 0.2]) = [5, 3, 2], one left over -> [6, 3, 2].
  EXPECT_EQ(split_lengths(11, {0.5, 0.3, 0.2}), (std::vector<int64_t>{6, 3, 2}));
  EXPECT_EQ(split_lengths(10, {4, 6}), (std::vector<int64_t>{4, 6}));
  EXPECT_EQ(split_lengths(2, {1.0 / 3, 1.0 / 3, 1.0 / 3}), (std::vector<int64_t>{1, 1, 0}));
  EXPECT_THROW(split_lengths(10, {}), ValueError);
}

}  // namespace
}  // namespace data
}  // namespace ember
