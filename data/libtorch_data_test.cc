// libtorch's torch::data API (datasets.h, samplers.h, data_loader.h,
// batch_transforms.h) against values Debian's libtorch 1.13 gives
// (tools/golden/libtorch_data.sh wrote data/testdata/libtorch_data_golden.inc).

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "data/data_loader.h"
#include "data/datasets.h"
#include "data/samplers.h"
#include "data/test_golden.h"
#include "data/transforms.h"
#include "data/worker.h"
#include "tensor/creation.h"
#include "tensor/math.h"
#include "tensor/random.h"

namespace ember {
namespace data {
namespace {

const testing::Golden<int64_t> kGolden[] = {
#include "data/testdata/libtorch_data_golden.inc"
};

const std::vector<int64_t>& golden(const std::string& name) {
  return testing::find_golden(kGolden, name);
}

std::vector<int64_t> ints(const Tensor& t) {
  const Tensor c = t.contiguous().to(kLong);
  const int64_t* p = c.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + c.numel());
}

std::vector<int64_t> shape(const Tensor& t) { return {t.sizes().begin(), t.sizes().end()}; }

// Every batch of a loader over rows that hold their index, -1 after each.
template <typename Loader>
std::vector<int64_t> epoch(Loader& loader) {
  std::vector<int64_t> out;
  for (auto& batch : loader) {
    for (int64_t v : ints(batch.data)) out.push_back(v);
    out.push_back(-1);
  }
  return out;
}

template <typename Sampler>
std::vector<int64_t> drain(Sampler& sampler, size_t batch_size) {
  std::vector<int64_t> out;
  while (auto batch = sampler.next(batch_size)) {
    for (size_t i : *batch) out.push_back(static_cast<int64_t>(i));
    out.push_back(-1);
  }
  return out;
}

// pytorch/examples' custom-dataset shape: non-const get(size_t), optional
// size, Example<> built from braces. `calls` counts get()s per copy.
class CountingDataset : public data::Dataset<CountingDataset> {
 public:
  explicit CountingDataset(size_t n) : n_(n) {}
  // Each copy counts its own calls.
  CountingDataset(const CountingDataset& o) : fail_at(o.fail_at), n_(o.n_) {}

  Example<> get(size_t index) override {
    ++calls;
    if (fail_at.has_value() && index == *fail_at)
      throw Error("bad example " + std::to_string(index));
    return {full({2}, static_cast<double>(index)), ember::tensor(static_cast<int64_t>(index) % 3)};
  }
  std::optional<size_t> size() const override { return n_; }

  size_t calls = 0;
  std::optional<size_t> fail_at;

 private:
  size_t n_;
};

TEST(LibtorchDataTest, DatasetIsLibtorchsCrtpBase) {
  static_assert(std::is_base_of<datasets::Dataset<CountingDataset>, CountingDataset>::value);
  static_assert(
      std::is_same<data::Dataset<CountingDataset>, datasets::Dataset<CountingDataset>>::value);
  static_assert(std::is_same<CountingDataset::BatchType, std::vector<Example<>>>::value);
  static_assert(!CountingDataset::is_stateful);
  CountingDataset ds(5);
  const std::vector<Example<>> batch = ds.get_batch(std::vector<size_t>{4, 1});
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_EQ(ints(batch[0].data), (std::vector<int64_t>{4, 4}));
  EXPECT_EQ(batch[1].target.item<int64_t>(), 1);
  EXPECT_EQ(ds.size().value(), 5u);
}

TEST(LibtorchDataTest, ExampleAndTensorExample) {
  Example<> e(ones({2}), zeros({1}));
  EXPECT_EQ(e.data.numel(), 2);
  Example<std::string, int> named{"a", 3};
  EXPECT_EQ(named.target, 3);
  TensorExample x = arange(3);  // implicit from its data
  Tensor& back = x;             // and back
  EXPECT_EQ(ints(back), (std::vector<int64_t>{0, 1, 2}));
  static_assert(std::is_same<TensorExample::TargetType, example::NoTarget>::value);
}

TEST(LibtorchDataTest, RandomSamplerOrdersAreLibtorchs) {
  manual_seed(1);
  auto ds = datasets::TensorDataset(arange(10)).map(transforms::Stack<TensorExample>());
  auto loader = make_data_loader(std::move(ds), 3);
  EXPECT_EQ(epoch(*loader), golden("random_epoch0"));
  EXPECT_EQ(epoch(*loader), golden("random_epoch1"));
  // The loader drew from the default generator exactly what libtorch's did.
  EXPECT_EQ(randint(1000, {1}).item<int64_t>(), golden("random_after")[0]);
}

TEST(LibtorchDataTest, SequentialSamplerAndDropLast) {
  auto ds = datasets::TensorDataset(arange(10)).map(transforms::Stack<TensorExample>());
  auto loader = make_data_loader<samplers::SequentialSampler>(std::move(ds),
                                                              DataLoaderOptions(4).drop_last(true));
  EXPECT_EQ(epoch(*loader), golden("sequential_drop_last"));
  EXPECT_EQ(loader->options().batch_size, 4u);
  EXPECT_TRUE(loader->options().drop_last);
}

TEST(LibtorchDataTest, DistributedSamplersAreLibtorchs) {
  for (size_t rank = 0; rank < 3; ++rank) {
    for (bool dup : {true, false}) {
      const std::string tag = std::to_string(rank) + (dup ? "_dup" : "_nodup");
      samplers::DistributedRandomSampler s(10, 3, rank, dup);
      EXPECT_EQ(drain(s, 2), golden("distributed_random_epoch0_rank" + tag)) << tag;
      s.set_epoch(1);
      EXPECT_EQ(s.epoch(), 1u);
      s.reset();
      EXPECT_EQ(drain(s, 2), golden("distributed_random_epoch1_rank" + tag)) << tag;
      samplers::DistributedSequentialSampler q(10, 3, rank, dup);
      EXPECT_EQ(drain(q, 3), golden("distributed_sequential_rank" + tag)) << tag;
      q.reset();
      EXPECT_EQ(drain(q, 3), golden("distributed_sequential_rank" + tag)) << "again " << tag;
    }
  }
  EXPECT_THROW(samplers::DistributedRandomSampler(10, 2, 2), Error);
}

TEST(LibtorchDataTest, StreamSamplerAndStreamDataset) {
  samplers::StreamSampler s(10);
  std::vector<int64_t> sizes;
  while (auto b = s.next(4)) sizes.push_back(static_cast<int64_t>(b->size()));
  EXPECT_EQ(sizes, golden("stream_sizes"));

  // A StreamDataset is asked for counts; it numbers what it hands out.
  struct Counter : datasets::StreamDataset<Counter, Tensor> {
    Tensor get_batch(size_t n) override {
      Tensor t = arange(static_cast<int64_t>(next), static_cast<int64_t>(next + n));
      next += n;
      return t;
    }
    std::optional<size_t> size() const override { return std::nullopt; }
    size_t next = 0;
  };
  auto loader = make_data_loader(Counter(), samplers::StreamSampler(7), DataLoaderOptions(3));
  std::vector<std::vector<int64_t>> got;
  for (Tensor& t : *loader) got.push_back(ints(t));
  EXPECT_EQ(got, (std::vector<std::vector<int64_t>>{{0, 1, 2}, {3, 4, 5}, {6}}));
  // An unsized dataset cannot get a default sampler.
  try {
    make_data_loader<samplers::SequentialSampler>(Counter(), 3);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Expected the dataset to be sized"), std::string::npos);
  }
}

TEST(LibtorchDataTest, NormalizeThenStackMatchesLibtorchBitForBit) {
  std::vector<Example<>> examples;
  for (int i = 0; i < 2; ++i) {
    examples.push_back(
        {arange(4, kFloat).view({1, 2, 2}) * (i + 1) / 7.0, ember::tensor(int64_t{i})});
  }
  transforms::Normalize<> normalize(0.1307, 0.3081);
  Example<> stacked = transforms::Stack<>().apply_batch(normalize.apply_batch(examples));
  EXPECT_EQ(shape(stacked.data), golden("normalize_stack_shape"));
  const Tensor flat = stacked.data.contiguous().view({-1});
  std::vector<int64_t> bits;
  for (int64_t i = 0; i < flat.numel(); ++i) {
    const float f = flat.data_ptr<float>()[i];
    int32_t b;
    std::memcpy(&b, &f, 4);
    bits.push_back(b);
  }
  EXPECT_EQ(bits, golden("normalize_stack_bits"));
  EXPECT_EQ(ints(stacked.target), golden("normalize_stack_targets"));
  // libtorch's public mean/stddev: float32 C x 1 x 1.
  EXPECT_EQ(shape(normalize.mean), (std::vector<int64_t>{1, 1, 1}));
  EXPECT_EQ(normalize.stddev.dtype(), kFloat);
  // The torchvision spelling of the same class still works.
  EXPECT_EQ(ints(transforms::Normalize({1.0}, {2.0})(full({1, 1, 1}, 5.0))),
            (std::vector<int64_t>{2}));
}

TEST(LibtorchDataTest, LambdasMapExamplesAndBatches) {
  CountingDataset ds(4);
  auto doubled = ds.map(transforms::Lambda<Example<>>([](Example<> e) {
                     e.data = e.data * 2;
                     return e;
                   }))
                     .map(transforms::TensorLambda<>([](Tensor t) { return t + 1; }))
                     .map(transforms::Stack<>())
                     .map(transforms::BatchLambda<Example<>, Tensor>(
                         [](Example<> b) { return b.data.sum(); }));
  static_assert(std::is_same<decltype(doubled)::BatchType, Tensor>::value);
  // (2i + 1) summed over i = 1, 3, each twice.
  EXPECT_EQ(doubled.get_batch(std::vector<size_t>{1, 3}).item<double>(), 2 * (3 + 7));
  EXPECT_EQ(doubled.size().value(), 4u);
  // Collate: a whole batch made into one example.
  transforms::Collate<Example<>> first([](std::vector<Example<>> b) { return b.front(); });
  EXPECT_EQ(ints(first.apply_batch(ds.get_batch(std::vector<size_t>{2, 0})).data),
            (std::vector<int64_t>{2, 2}));
}

TEST(LibtorchDataTest, WorkersEachHaveACopyAndKeepTheOrder) {
  CountingDataset ds(20);
  auto loader = make_data_loader<samplers::SequentialSampler>(
      ds.map(transforms::Stack<>()), DataLoaderOptions(3).workers(2).max_jobs(3));
  EXPECT_EQ(loader->options().workers, 2u);
  EXPECT_EQ(loader->options().max_jobs, 3u);
  for (int e = 0; e < 2; ++e) {
    std::vector<int64_t> seen;
    for (Example<>& b : *loader) {
      const std::vector<int64_t> d = ints(b.data.select(1, 0));
      seen.insert(seen.end(), d.begin(), d.end());
      EXPECT_EQ(shape(b.target), (std::vector<int64_t>{static_cast<int64_t>(d.size())}));
    }
    std::vector<int64_t> want(20);
    for (int64_t i = 0; i < 20; ++i) want[i] = i;
    EXPECT_EQ(seen, want);
  }
  EXPECT_EQ(ds.calls, 0u);  // the loader got copies
}

TEST(LibtorchDataTest, AnExceptionNamesTheWorkerAndBatch) {
  CountingDataset ds(9);
  ds.fail_at = 4;
  auto loader = make_data_loader<samplers::SequentialSampler>(ds.map(transforms::Stack<>()),
                                                              DataLoaderOptions(3).workers(2));
  int batches = 0;
  bool raised = false;
  try {
    for (auto& b : *loader) {
      (void)b;
      ++batches;
    }
  } catch (const DataLoaderError& e) {
    raised = true;
    EXPECT_EQ(e.batch_index(), 1);
    EXPECT_EQ(e.worker_id(), 1);
    EXPECT_NE(std::string(e.what()).find("bad example 4"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(raised);
  EXPECT_EQ(batches, 1);
}

TEST(LibtorchDataTest, TimeoutBoundsTheWaitForABatch) {
  struct Slow : data::Dataset<Slow> {
    Example<> get(size_t) override {
      std::this_thread::sleep_for(std::chrono::milliseconds(400));
      return {zeros({1}), zeros({1})};
    }
    std::optional<size_t> size() const override { return 2; }
  };
  auto loader = make_data_loader(
      Slow(), DataLoaderOptions(1).workers(1).timeout(std::chrono::milliseconds(50)));
  EXPECT_THROW(loader->begin(), Error);
}

// A stateful dataset hands out batches until it runs dry; reset() refills
// it. Shared by the workers, so it locks.
class Chunks : public datasets::StatefulDataset<Chunks, Tensor> {
 public:
  explicit Chunks(int64_t total) : total_(total) {}
  Chunks(const Chunks& o) : total_(o.total_) {}
  std::optional<Tensor> get_batch(size_t n) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (next_ >= total_) return std::nullopt;
    const int64_t end = std::min<int64_t>(total_, next_ + static_cast<int64_t>(n));
    Tensor t = arange(next_, end);
    next_ = end;
    return t;
  }
  std::optional<size_t> size() const override { return total_; }
  void reset() override {
    std::lock_guard<std::mutex> lock(mu_);
    next_ = 0;
    ++resets;
  }
  int resets = 0;

 private:
  std::mutex mu_;
  int64_t total_;
  int64_t next_ = 0;
};

TEST(LibtorchDataTest, StatefulLoaderRunsUntilTheDatasetIsExhausted) {
  static_assert(Chunks::is_stateful);
  auto loader = make_data_loader(Chunks(10), DataLoaderOptions(4));
  for (int e = 0; e < 2; ++e) {
    std::vector<std::vector<int64_t>> got;
    for (Tensor& t : *loader) got.push_back(ints(t));
    EXPECT_EQ(got, (std::vector<std::vector<int64_t>>{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9}}));
  }
  // With workers every example still arrives exactly once.
  auto mapped = Chunks(50).map(transforms::BatchLambda<Tensor>([](Tensor t) { return t * 10; }));
  auto parallel = make_data_loader(std::move(mapped), DataLoaderOptions(4).workers(3));
  for (int e = 0; e < 2; ++e) {
    std::multiset<int64_t> seen;
    for (Tensor& t : *parallel) {
      for (int64_t v : ints(t)) seen.insert(v);
    }
    std::multiset<int64_t> want;
    for (int64_t i = 0; i < 50; ++i) want.insert(i * 10);
    EXPECT_EQ(seen, want) << "epoch " << e;
  }
}

TEST(LibtorchDataTest, SharedDatasetIsOneObject) {
  auto shared = datasets::make_shared_dataset<CountingDataset>(6);
  auto loader =
      make_data_loader<samplers::SequentialSampler>(shared, DataLoaderOptions(4).workers(2));
  size_t n = 0;
  for (auto& batch : *loader) n += batch.size();
  EXPECT_EQ(n, 6u);
  EXPECT_EQ(shared->calls, 6u);  // every worker's copy reached the same dataset
}

TEST(LibtorchDataTest, OptionsThatBelongToDataLoaderAreRefused) {
  EXPECT_THROW(make_data_loader(CountingDataset(4), DataLoaderOptions(2).shuffle(true)), Error);
  EXPECT_THROW(make_data_loader(CountingDataset(4), DataLoaderOptions(0)), Error);
  EXPECT_THROW(make_data_loader(CountingDataset(4), DataLoaderOptions(1).max_jobs(0)), Error);
}

}  // namespace
}  // namespace data
}  // namespace ember
