// c10d's C++ spellings on ProcessGroup, as pytorch/examples' dist-mnist.cpp
// uses them: getRank / getSize, std::shared_ptr<ProcessGroup::Work> with
// ->wait(), allreduce(std::vector<Tensor>&), and abort().

#include <chrono>
#include <memory>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "distributed/gloo_test_util.h"
#include "distributed/process_group_gloo.h"
#include "distributed/testing/multiprocess.h"
#include "tensor/all.h"

namespace ember::distributed {
namespace {

constexpr auto kTimeout = std::chrono::seconds(60);

static_assert(std::is_same<ProcessGroup::Work, Work>::value,
              "ProcessGroup::Work is c10d's name of the Work handle type");

TEST(ProcessGroupSpellings, DistMnistGradientAveraging) {
  const std::string dir = testing::make_temp_dir();
  auto results = testing::run_processes(
      2,
      [&](int rank) {
        std::shared_ptr<ProcessGroup> pg = testing::make_group(dir, rank, 2);
        EXPECT_EQ(pg->getRank(), rank);
        EXPECT_EQ(pg->getRank(), pg->rank());
        EXPECT_EQ(pg->getSize(), 2);
        const int numranks = pg->getSize();
        // Two "parameters" whose gradients are rank + 1 and 10 * (rank + 1).
        std::vector<Tensor> grads = {full({3}, rank + 1.0), full({2}, 10.0 * (rank + 1))};
        std::vector<std::shared_ptr<ProcessGroup::Work>> works;
        for (const Tensor& g : grads) {
          std::vector<Tensor> tmp = {g};
          auto work = pg->allreduce(tmp);
          works.push_back(std::move(work));
        }
        for (auto& work : works) work->wait();
        // dist-mnist's `param.grad().data() = param.grad().data() / numranks`.
        for (const Tensor& g : grads) g.data() = g.data() / numranks;
        EXPECT_TRUE(grads[0].equal(full({3}, 1.5)));   // (1 + 2) / 2
        EXPECT_TRUE(grads[1].equal(full({2}, 15.0)));  // (10 + 20) / 2
      },
      kTimeout);
  testing::remove_tree(dir);
  EXPECT_TRUE(testing::all_succeeded(results));
}

TEST(ProcessGroupSpellings, AbortEndsTheProcessWithStatusOne) {
  const std::string dir = testing::make_temp_dir();
  auto results = testing::run_processes(
      2,
      [&](int rank) {
        ProcessGroupGloo::Options o;
        o.timeout = std::chrono::seconds(20);
        auto pg = testing::make_group(dir, rank, 2, o);
        if (rank == 1) pg->abort();
        // Rank 0: the collective with the aborted rank fails, naming it.
        std::vector<Tensor> t = {ones({2})};
        try {
          pg->allreduce(t)->wait();
          ADD_FAILURE() << "allreduce with an aborted rank succeeded";
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("peer rank 1"), std::string::npos) << e.what();
        }
      },
      kTimeout);
  testing::remove_tree(dir);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_TRUE(results[0].ok()) << results[0];
  EXPECT_EQ(results[1].exit_code, 1) << results[1];
  EXPECT_FALSE(results[1].timed_out);
}

}  // namespace
}  // namespace ember::distributed
