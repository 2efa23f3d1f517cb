#include "data/dataloader.h"

#include <gtest/gtest.h>

#include "data/test_golden.h"

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "data/transforms.h"
#include "data/worker.h"
#include "tensor/creation.h"
#include "tensor/indexing.h"
#include "tensor/cuda/cuda.h"
#include "tensor/math.h"
#include "tensor/random.h"

namespace ember {
namespace data {
namespace {

const testing::Golden<int64_t> kGolden[] = {
#include "data/testdata/dataloader_golden.inc"
};

const std::vector<int64_t>& golden(const std::string& name) { return testing::find_golden(kGolden, name); }

std::vector<int64_t> ints(const Tensor& t) {
  const Tensor c = t.contiguous().to(kLong);
  const int64_t* p = c.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + c.numel());
}

std::shared_ptr<TensorDataset> range_dataset(int64_t n) {
  return std::make_shared<TensorDataset>(arange(n), arange(n) * 10);
}

// Records how it is used; can be slow, and can fail at one index.
class ProbeDataset : public MapStyleDataset<Tensor> {
 public:
  explicit ProbeDataset(int64_t n, int sleep_ms = 0, int64_t fail_at = -1)
      : n_(n), sleep_ms_(sleep_ms), fail_at_(fail_at) {}
  Tensor get(int64_t i) const override {
    calls_.fetch_add(1);
    in_flight_.fetch_add(1);
    if (sleep_ms_ > 0) std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms_));
    in_flight_.fetch_sub(1);
    if (i == fail_at_) throw ValueError("bad sample " + std::to_string(i));
    const WorkerInfo* w = get_worker_info();
    return tensor(std::vector<int64_t>{i, w ? w->id : -1});
  }
  int64_t size() const override { return n_; }
  int64_t calls() const { return calls_.load(); }
  int64_t in_flight() const { return in_flight_.load(); }

 private:
  int64_t n_;
  int sleep_ms_;
  int64_t fail_at_;
  mutable std::atomic<int64_t> calls_{0}, in_flight_{0};
};

std::vector<std::vector<int64_t>> epoch_of(DataLoader<Example<>>& loader) {
  std::vector<std::vector<int64_t>> out;
  for (Example<>& b : loader) out.push_back(ints(b.data));
  return out;
}

TEST(DataLoaderTest, SequentialBatchesAndSize) {
  DataLoader loader(range_dataset(10), DataLoaderOptions().batch_size(4));
  EXPECT_EQ(loader.size(), 3);
  std::vector<std::vector<int64_t>> seen;
  for (Example<>& b : loader) {
    seen.push_back(ints(b.data));
    EXPECT_EQ(ints(b.target), ints(b.data * 10));
  }
  EXPECT_EQ(seen, (std::vector<std::vector<int64_t>>{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9}}));
  DataLoader dropping(range_dataset(10), DataLoaderOptions().batch_size(4).drop_last(true));
  EXPECT_EQ(dropping.size(), 2);
  EXPECT_EQ(epoch_of(dropping).size(), 2u);
}

TEST(DataLoaderTest, ShuffleMatchesPyTorchEachEpoch) {
  manual_seed(11);
  DataLoader loader(std::make_shared<TensorDataset>(std::vector<Tensor>{arange(20)}),
                    DataLoaderOptions().batch_size(6).shuffle(true));
  for (int epoch = 0; epoch < 2; ++epoch) {
    const auto batches = epoch_of(loader);
    ASSERT_EQ(batches.size(), 4u);
    for (size_t k = 0; k < batches.size(); ++k) {
      EXPECT_EQ(batches[k], golden("shuffle_manual_seed11_epoch" + std::to_string(epoch) +
                                   "_batch" + std::to_string(k)));
    }
  }
}

TEST(DataLoaderTest, ShuffleWithGeneratorAndWorkersMatchesPyTorch) {
  for (int64_t workers : {0, 1, 2, 3}) {
    DataLoader loader(std::make_shared<TensorDataset>(std::vector<Tensor>{arange(20)}),
                      DataLoaderOptions()
                          .batch_size(6)
                          .shuffle(true)
                          .drop_last(true)
                          .num_workers(workers)
                          .generator(Generator(5)));
    for (int epoch = 0; epoch < 2; ++epoch) {
      const auto batches = epoch_of(loader);
      ASSERT_EQ(batches.size(), 3u);
      for (size_t k = 0; k < batches.size(); ++k) {
        EXPECT_EQ(batches[k], golden("shuffle_generator5_drop_last_epoch" + std::to_string(epoch) +
                                     "_batch" + std::to_string(k)))
            << workers << " workers";
      }
    }
  }
}

TEST(DataLoaderTest, WorkersDeliverInSamplerOrderRoundRobin) {
  // Slow, uneven samples: the order must still be the sampler's.
  auto ds = std::make_shared<ProbeDataset>(37, 1);
  DataLoader loader(ds, DataLoaderOptions().batch_size(3).num_workers(3).prefetch_factor(2));
  int64_t b = 0;
  for (Tensor& batch : loader) {
    for (int64_t r = 0; r < batch.size(0); ++r) {
      EXPECT_EQ(batch.index({r, 0}).item<int64_t>(), b * 3 + r);
      // Batch b is built by worker b % num_workers.
      EXPECT_EQ(batch.index({r, 1}).item<int64_t>(), b % 3);
    }
    ++b;
  }
  EXPECT_EQ(b, 13);
  EXPECT_EQ(ds->calls(), 37);
}

TEST(DataLoaderTest, MainThreadHasNoWorkerInfo) {
  auto ds = std::make_shared<ProbeDataset>(4);
  DataLoader loader(ds, DataLoaderOptions().batch_size(2));
  for (Tensor& batch : loader) EXPECT_EQ(batch.index({0, 1}).item<int64_t>(), -1);
  EXPECT_EQ(get_worker_info(), nullptr);
}

TEST(DataLoaderTest, PrefetchBoundsTheBatchesAhead) {
  auto ds = std::make_shared<ProbeDataset>(400);
  DataLoader loader(ds, DataLoaderOptions().batch_size(4).num_workers(2).prefetch_factor(3));
  // Waits (up to 10 s, for slow sanitizer runs) until the workers have
  // loaded `want` samples, then a little longer to see that they stop there.
  auto settle = [&](int64_t want) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (ds->calls() < want && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return ds->calls();
  };
  auto it = loader.begin();
  ASSERT_NE(it, loader.end());
  // The batch in hand plus prefetch_factor * num_workers batches, no more.
  EXPECT_EQ(settle((1 + 3 * 2) * 4), (1 + 3 * 2) * 4);
  ++it;
  EXPECT_EQ(settle((2 + 3 * 2) * 4), (2 + 3 * 2) * 4);
}

TEST(DataLoaderTest, WorkerExceptionNamesTheSampleAndTheEpochGoesOn) {
  for (int64_t workers : {0, 2}) {
    auto ds = std::make_shared<ProbeDataset>(12, 0, 7);
    DataLoader loader(ds, DataLoaderOptions().batch_size(3).num_workers(workers));
    auto it = loader.begin();
    ++it;  // batch 1
    try {
      ++it;  // batch 2 holds index 7
      FAIL() << "no error";
    } catch (const DataLoaderError& e) {
      EXPECT_EQ(e.sample_index(), 7);
      EXPECT_EQ(e.batch_index(), 2);
      EXPECT_EQ(e.worker_id(), workers == 0 ? -1 : 0);
      const std::string want = workers == 0
                                   ? "Caught an exception in the DataLoader's main thread while "
                                     "loading sample index 7 of batch 2: bad sample 7"
                                   : "Caught an exception in DataLoader worker 0 while loading "
                                     "sample index 7 of batch 2: bad sample 7";
      EXPECT_EQ(e.what(), want);
    }
    ++it;
    ASSERT_NE(it, loader.end());
    EXPECT_EQ(it->index({0, 0}).item<int64_t>(), 9);
  }
}

TEST(DataLoaderTest, CollateErrorHasNoSampleIndex) {
  // Samples of different lengths cannot be stacked.
  class Ragged : public MapStyleDataset<Tensor> {
   public:
    Tensor get(int64_t i) const override { return arange(i + 1); }
    int64_t size() const override { return 4; }
  };
  DataLoader loader(std::make_shared<Ragged>(), DataLoaderOptions().batch_size(2).num_workers(1));
  try {
    loader.begin();
    FAIL() << "no error";
  } catch (const DataLoaderError& e) {
    EXPECT_EQ(e.sample_index(), -1);
    EXPECT_NE(std::string(e.what()).find("while collating batch 0: stack expects each tensor"),
              std::string::npos)
        << e.what();
  }
}

TEST(DataLoaderTest, DestroyedMidEpochJoinsPromptly) {
  auto ds = std::make_shared<ProbeDataset>(10000, 2);
  const auto start = std::chrono::steady_clock::now();
  {
    DataLoader loader(ds, DataLoaderOptions().batch_size(8).num_workers(2).prefetch_factor(4));
    auto it = loader.begin();
    ++it;
    EXPECT_NE(it, loader.end());
  }  // iterator and loader gone: workers stop between samples and join
  EXPECT_EQ(ds->in_flight(), 0);
  const int64_t calls = ds->calls();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(ds->calls(), calls);  // nothing runs any more
  EXPECT_LT(calls, 10000);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(DataLoaderTest, AbandonedEpochThenANewOne) {
  auto ds = range_dataset(30);
  DataLoader loader(ds, DataLoaderOptions().batch_size(5).num_workers(2));
  for (Example<>& b : loader) {
    EXPECT_EQ(ints(b.data)[0], 0);
    break;
  }
  EXPECT_EQ(epoch_of(loader).size(), 6u);
}

TEST(DataLoaderTest, TimeoutRaises) {
  auto ds = std::make_shared<ProbeDataset>(4, 300);
  DataLoader loader(ds, DataLoaderOptions().batch_size(2).num_workers(1).timeout(0.05));
  try {
    loader.begin();
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "DataLoader timed out after 0.05 seconds");
  }
}

TEST(DataLoaderTest, OptionErrorsUsePyTorchWords) {
  auto ds = range_dataset(4);
  auto expect_error = [&](const DataLoaderOptions& o, const std::string& msg) {
    try {
      DataLoader loader(ds, o);
      FAIL() << "no error for " << msg;
    } catch (const ValueError& e) {
      EXPECT_EQ(e.what(), msg);
    }
  };
  auto seq = std::make_shared<SequentialSampler>(4);
  expect_error(DataLoaderOptions().num_workers(-1),
               "num_workers option should be non-negative; use num_workers=0 to disable "
               "multiprocessing.");
  expect_error(DataLoaderOptions().timeout(-1), "timeout option should be non-negative");
  expect_error(DataLoaderOptions().sampler(seq).shuffle(true),
               "sampler option is mutually exclusive with shuffle");
  expect_error(DataLoaderOptions().batch_sampler(std::make_shared<BatchSampler>(seq, 2, false))
                   .batch_size(2),
               "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
               "drop_last");
  expect_error(DataLoaderOptions().prefetch_factor(2),
               "prefetch_factor option could only be specified in multiprocessing.let num_workers "
               "> 0 to enable multiprocessing, otherwise set prefetch_factor to None.");
  expect_error(DataLoaderOptions().num_workers(1).prefetch_factor(0),
               "prefetch_factor option should be positive, got 0");
  expect_error(DataLoaderOptions().batch_size(0),
               "batch_size should be a positive integer value, but got batch_size=0");
}

TEST(DataLoaderTest, SamplerAndBatchSamplerOptions) {
  auto ds = range_dataset(90);
  // Seed 004: 90 samples over 2 ranks, batch 30 -> batches of 30 and 15.
  for (int64_t rank = 0; rank < 2; ++rank) {
    auto sampler = std::make_shared<DistributedSampler>(90, 2, rank);
    DataLoader loader(ds, DataLoaderOptions().batch_size(30).sampler(sampler).num_workers(2));
    const auto batches = epoch_of(loader);
    ASSERT_EQ(batches.size(), 2u);
    EXPECT_EQ(batches[0].size(), 30u);
    EXPECT_EQ(batches[1].size(), 15u);
    std::vector<int64_t> flat = batches[0];
    flat.insert(flat.end(), batches[1].begin(), batches[1].end());
    EXPECT_EQ(flat, sampler->indices());
  }
  auto bs = std::make_shared<BatchSampler>(std::make_shared<SequentialSampler>(90), 40, true);
  DataLoader loader(ds, DataLoaderOptions().batch_sampler(bs));
  EXPECT_EQ(loader.size(), 2);
  EXPECT_EQ(epoch_of(loader)[1][0], 40);
}

struct Row {
  int64_t id;
  std::string name;
};
class RowDataset : public MapStyleDataset<Row> {
 public:
  Row get(int64_t i) const override { return {i, "row" + std::to_string(i)}; }
  int64_t size() const override { return 5; }
};
struct RowBatch {
  Tensor ids;
  std::vector<std::string> names;
};

TEST(DataLoaderTest, UserStructsWithAndWithoutCollate) {
  auto ds = std::make_shared<RowDataset>();
  // Without a collate function a batch is the vector of samples.
  DataLoader plain(ds, DataLoaderOptions().batch_size(2));
  std::vector<std::string> names;
  for (std::vector<Row>& batch : plain) {
    for (Row& r : batch) names.push_back(r.name);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"row0", "row1", "row2", "row3", "row4"}));

  DataLoader<Row, RowBatch> collated(ds, DataLoaderOptions().batch_size(3).num_workers(2),
                                     [](std::vector<Row> rows) {
                                       RowBatch b;
                                       std::vector<int64_t> ids;
                                       for (Row& r : rows) {
                                         ids.push_back(r.id);
                                         b.names.push_back(r.name);
                                       }
                                       b.ids = tensor(ids);
                                       return b;
                                     });
  std::vector<std::vector<int64_t>> ids;
  for (RowBatch& b : collated) ids.push_back(ints(b.ids));
  EXPECT_EQ(ids, (std::vector<std::vector<int64_t>>{{0, 1, 2}, {3, 4}}));
  EXPECT_THROW((DataLoader<Row, RowBatch>(ds, DataLoaderOptions())), Error);
  EXPECT_THROW(DataLoader(ds, DataLoaderOptions().pin_memory(true)), Error);
}

TEST(DataLoaderTest, RandomTransformsInWorkersAreReproducible) {
  // Each worker draws from its own generator seeded base_seed + id.
  auto make = [] {
    auto images = arange(40 * 16, kFloat).view({40, 1, 4, 4});
    class Cropped : public MapStyleDataset<Tensor> {
     public:
      explicit Cropped(Tensor x) : x_(std::move(x)) {}
      Tensor get(int64_t i) const override { return crop_(x_[i]); }
      int64_t size() const override { return x_.size(0); }

     private:
      Tensor x_;
      transforms::RandomCrop crop_{{2}, {1}};
    };
    return std::make_shared<Cropped>(images);
  };
  auto run = [&](uint64_t seed) {
    DataLoader loader(make(), DataLoaderOptions().batch_size(4).num_workers(3).generator(Generator(seed)));
    std::vector<std::vector<int64_t>> out;
    for (Tensor& b : loader) out.push_back(ints(b));
    return out;
  };
  EXPECT_EQ(run(17), run(17));
  EXPECT_NE(run(17), run(18));
}

TEST(DataLoaderTest, PinMemoryPinsWhenCudaIsAvailable) {
  DataLoader loader(range_dataset(8),
                    DataLoaderOptions().batch_size(4).num_workers(1).pin_memory(true));
  int64_t n = 0;
  for (Example<>& b : loader) {
    // Note [pin_memory without CUDA]: ordinary memory without a device.
    EXPECT_EQ(is_pinned(b.data), cuda::is_available());
    EXPECT_EQ(is_pinned(b.target), cuda::is_available());
    EXPECT_EQ(ints(b.data)[0], n * 4);
    ++n;
  }
  EXPECT_EQ(n, 2);
}

TEST(DataLoaderTest, EmptyDatasetHasNoBatches) {
  DataLoader loader(range_dataset(0), DataLoaderOptions().batch_size(3).num_workers(2));
  EXPECT_EQ(loader.size(), 0);
  EXPECT_EQ(loader.begin(), loader.end());
}

}  // namespace
}  // namespace data
}  // namespace ember
