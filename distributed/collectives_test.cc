// The module-level collectives against values computed by hand, with real
// processes (world sizes 2 and 3) initialized through init_process_group
// ("gloo", a FileStore in a fresh directory): sync and async forms, global
// src/dst ranks on subgroups, argument errors, non-members and the
// not-initialized error.

#include "distributed/collectives.h"

#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "distributed/gloo_test_util.h"
#include "distributed/init.h"
#include "distributed/testing/multiprocess.h"
#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember::distributed {
namespace {

using std::chrono::milliseconds;
using testing::tensors_equal;
using Clock = std::chrono::steady_clock;

constexpr milliseconds kTimeout{30000};

void run_world(int size, const std::function<void(int rank, int size)>& fn) {
  testing::run_world(size, fn, kTimeout);
}

void run_worlds(const std::function<void(int rank, int size)>& fn) {
  for (int size : {2, 3}) run_world(size, fn);
}

using ::ember::testing::error_of;

void wait(const std::shared_ptr<Work>& w) {
  ASSERT_NE(w, nullptr);
  EXPECT_TRUE(w->wait());
  EXPECT_TRUE(w->is_completed());
}

TEST(Collectives, AllReduceSyncAndAsync) {
  run_worlds([](int r, int R) {
    Tensor t = full({3}, r + 1.0);
    EXPECT_EQ(all_reduce(t), nullptr);  // waited: PyTorch returns None
    EXPECT_TRUE(tensors_equal(t, full({3}, R * (R + 1) / 2.0)));

    Tensor m = arange(4, kInt) * (r + 1);
    auto work = all_reduce(m, ReduceOp::MAX, std::nullopt, true);
    wait(work);
    EXPECT_TRUE(tensors_equal(m, arange(4, kInt) * R));

    Tensor p = full({2}, r + 2, kLong);  // 2 * 3 (* 4)
    all_reduce(p, ReduceOp::PRODUCT, get_default_group());
    EXPECT_TRUE(tensors_equal(p, full({2}, R == 2 ? 6 : 24, kLong)));
  });
}

TEST(Collectives, BroadcastFromNonZeroSource) {
  run_worlds([](int r, int R) {
    Tensor t = arange(4, kFloat) + 10 * r;
    EXPECT_EQ(broadcast(t, R - 1), nullptr);
    EXPECT_TRUE(tensors_equal(t, arange(4, kFloat) + 10 * (R - 1)));

    Tensor a = full({2, 2}, r, kInt);
    wait(broadcast(a, 1, std::nullopt, true));
    EXPECT_TRUE(tensors_equal(a, full({2, 2}, 1, kInt)));
  });
}

// src is a global rank: on the group {1, 2}, global rank 2 is group rank 1.
TEST(Collectives, BroadcastOnSubgroupTranslatesGlobalSource) {
  run_world(3, [](int r, int) {
    Group g = new_group({1, 2});
    Tensor t = full({3}, 10 * r, kLong);
    if (r == 0) {
      EXPECT_EQ(broadcast(t, 2, g), nullptr);  // non-member: nothing happens
      EXPECT_TRUE(tensors_equal(t, full({3}, 0, kLong)));
    } else {
      broadcast(t, 2, g);
      EXPECT_TRUE(tensors_equal(t, full({3}, 20, kLong)));
      Tensor u = full({1}, r, kInt);
      wait(broadcast(u, 1, g, true));  // global 1 = group rank 0
      EXPECT_TRUE(tensors_equal(u, full({1}, 1, kInt)));
      // Rank 0 is in the world but not in the group.
      EXPECT_EQ(error_of([&] { broadcast(t, 0, g); }),
                "Invalid src rank 0 for broadcast: global rank 0 is not part of group '1' "
                "(ranks [1, 2])");
    }
    barrier();
  });
}

TEST(Collectives, Reduce) {
  run_worlds([](int r, int R) {
    Tensor t = full({3}, r + 1, kLong);
    EXPECT_EQ(reduce(t, R - 1), nullptr);
    if (r == R - 1) {
      EXPECT_TRUE(tensors_equal(t, full({3}, R * (R + 1) / 2, kLong)));
    }

    Tensor m = full({2}, 5.0 - r, kFloat);
    wait(reduce(m, 0, ReduceOp::MIN, std::nullopt, true));
    if (r == 0) {
      EXPECT_TRUE(tensors_equal(m, full({2}, 5.0 - (R - 1), kFloat)));
    }
  });
}

TEST(Collectives, AllGather) {
  run_worlds([](int r, int R) {
    Tensor t = full({2}, r, kInt);
    std::vector<Tensor> list;
    for (int i = 0; i < R; ++i) list.push_back(zeros({2}, kInt));
    EXPECT_EQ(all_gather(list, t), nullptr);
    for (int i = 0; i < R; ++i) EXPECT_TRUE(tensors_equal(list[i], full({2}, i, kInt))) << i;

    std::vector<Tensor> async_list;
    for (int i = 0; i < R; ++i) async_list.push_back(zeros({1, 3}));
    wait(all_gather(async_list, arange(3, kFloat).view({1, 3}) * (r + 1), std::nullopt, true));
    for (int i = 0; i < R; ++i) {
      EXPECT_TRUE(tensors_equal(async_list[i], arange(3, kFloat).view({1, 3}) * (i + 1))) << i;
    }
  });
}

TEST(Collectives, GatherAndScatter) {
  run_worlds([](int r, int R) {
    const int dst = R - 1;
    std::vector<Tensor> gathered;
    if (r == dst) {
      for (int i = 0; i < R; ++i) gathered.push_back(zeros({3}, kLong));
    }
    // An empty list off dst is PyTorch's "not given" ([] is falsy).
    EXPECT_EQ(gather(full({3}, 7 * r, kLong), &gathered, dst), nullptr);
    if (r == dst) {
      for (int i = 0; i < R; ++i) EXPECT_TRUE(tensors_equal(gathered[i], full({3}, 7 * i, kLong)));
    }

    const int src = 1;
    std::vector<Tensor> parts;
    if (r == src) {
      for (int i = 0; i < R; ++i) parts.push_back(full({2}, 100 + i, kFloat));
    }
    Tensor got = zeros({2});
    wait(scatter(got, r == src ? &parts : nullptr, src, std::nullopt, true));
    EXPECT_TRUE(tensors_equal(got, full({2}, 100 + r, kFloat)));
  });
}

// Every rank's call is wrong, so every rank throws before issuing anything.
TEST(Collectives, GatherAndScatterArgumentErrors) {
  run_world(2, [](int r, int) {
    Tensor t = zeros({2});
    std::vector<Tensor> list{zeros({2}), zeros({2})};
    if (r == 0) {
      EXPECT_EQ(error_of([&] { gather(t, nullptr, 0); }),
                "Argument ``gather_list`` must be specified on destination rank.");
      EXPECT_EQ(error_of([&] { scatter(t, nullptr, 0); }),
                "Argument ``scatter_list`` must be specified on source rank.");
    } else {
      EXPECT_EQ(error_of([&] { gather(t, &list, 0); }),
                "Argument ``gather_list`` must NOT be specified on non-destination ranks.");
      EXPECT_EQ(error_of([&] { scatter(t, &list, 0); }),
                "Argument ``scatter_list`` must NOT be specified on non-source ranks.");
    }
    EXPECT_THROW(gather(t, &list, 2), ValueError);
    EXPECT_EQ(error_of([&] { scatter(t, &list, 2); }),
              "Invalid src rank 2 for scatter: global rank 2 is not part of group "
              "'default_pg' (ranks [0, 1])");
    // The group still works afterwards.
    Tensor one = ones({1});
    all_reduce(one);
    EXPECT_TRUE(tensors_equal(one, full({1}, 2.0f)));
  });
}

TEST(Collectives, ReduceScatter) {
  run_worlds([](int r, int R) {
    std::vector<Tensor> inputs;
    for (int i = 0; i < R; ++i) inputs.push_back(full({2}, 10 * r + i, kInt));
    Tensor out = zeros({2}, kInt);
    // out = sum over ranks j of (10 j + r).
    EXPECT_EQ(reduce_scatter(out, inputs), nullptr);
    EXPECT_TRUE(tensors_equal(out, full({2}, 10 * R * (R - 1) / 2 + R * r, kInt)));

    Tensor mx = zeros({2}, kInt);
    wait(reduce_scatter(mx, inputs, ReduceOp::MAX, std::nullopt, true));
    EXPECT_TRUE(tensors_equal(mx, full({2}, 10 * (R - 1) + r, kInt)));
  });
}

TEST(Collectives, AllToAllSingle) {
  run_worlds([](int r, int R) {
    // Equal splits: element i goes to rank i, so out[j] = rank j's element r.
    Tensor in = arange(R, kLong) + 10 * r;
    Tensor out = zeros({R}, kLong);
    EXPECT_EQ(all_to_all_single(out, in), nullptr);
    EXPECT_TRUE(tensors_equal(out, arange(R, kLong) * 10 + r));

    // Uneven: rank r sends rank i a block of r + i + 1 rows of 100 r + i.
    std::vector<int64_t> in_splits, out_splits;
    std::vector<Tensor> in_blocks, want_blocks;
    for (int i = 0; i < R; ++i) {
      in_splits.push_back(r + i + 1);
      in_blocks.push_back(full({r + i + 1, 2}, 100 * r + i, kFloat));
      out_splits.push_back(i + r + 1);  // what rank i sends here
      want_blocks.push_back(full({i + r + 1, 2}, 100 * i + r, kFloat));
    }
    Tensor want = cat(want_blocks);
    Tensor uneven = zeros({want.size(0), 2});
    wait(all_to_all_single(uneven, cat(in_blocks), out_splits, in_splits, std::nullopt, true));
    EXPECT_TRUE(tensors_equal(uneven, want));
  });
}

TEST(Collectives, SendRecv) {
  run_world(3, [](int r, int) {
    // A specific source, with a tag.
    if (r == 0) send(full({2}, 5.0f), 2, std::nullopt, 7);
    if (r == 2) {
      Tensor t = zeros({2});
      EXPECT_EQ(recv(t, 0, std::nullopt, 7), 0);
      EXPECT_TRUE(tensors_equal(t, full({2}, 5.0f)));
    }
    // Any source: recv returns the sender.
    if (r != 2) {
      send(full({1}, 10 * r, kInt), 2);
    } else {
      std::vector<int> senders;
      for (int i = 0; i < 2; ++i) {
        Tensor t = zeros({1}, kInt);
        const int from = recv(t);
        EXPECT_TRUE(tensors_equal(t, full({1}, 10 * from, kInt))) << from;
        senders.push_back(from);
      }
      std::sort(senders.begin(), senders.end());
      EXPECT_EQ(senders, (std::vector<int>{0, 1}));
    }
    EXPECT_EQ(error_of([&] { send(zeros({1}), r); }),
              "Invalid destination rank: destination rank should not be the same as the rank "
              "of the current process.");
    EXPECT_EQ(error_of([&] { send(zeros({1}), 3); }),
              "Invalid dst rank 3 for send: global rank 3 is not part of group 'default_pg' "
              "(ranks [0, 1, 2])");
    barrier();
  });
}

TEST(Collectives, IsendIrecv) {
  run_world(3, [](int r, int) {
    // A ring: r sends to r + 1 and receives from r - 1 (specific source).
    Tensor got = zeros({3}, kLong);
    auto rw = irecv(got, (r + 2) % 3);
    auto sw = isend(full({3}, r, kLong), (r + 1) % 3);
    wait(sw);
    wait(rw);
    EXPECT_TRUE(tensors_equal(got, full({3}, (r + 2) % 3, kLong)));

    // Any source on a subgroup: the Work names the GROUP rank, as PyTorch's
    // Work._source_rank(); recv returns the GLOBAL rank.
    Group g = new_group({1, 2});
    if (r == 2) {
      Tensor t = zeros({1});
      auto w = irecv(t, -1, g, 3);
      wait(w);
      EXPECT_EQ(w->source_rank(), 0);
      EXPECT_TRUE(tensors_equal(t, full({1}, 1.0f)));
      EXPECT_EQ(recv(t, -1, g), 1);
      EXPECT_TRUE(tensors_equal(t, full({1}, 2.0f)));
    } else if (r == 1) {
      wait(isend(full({1}, 1.0f), 2, g, 3));
      send(full({1}, 2.0f), 2, g);
    } else {
      EXPECT_EQ(isend(zeros({1}), 1, g), nullptr);
      Tensor t = zeros({1});
      EXPECT_EQ(irecv(t, 1, g), nullptr);
    }
    barrier();
  });
}

TEST(Collectives, Barrier) {
  run_worlds([](int r, int R) {
    // The last rank arrives late; nobody may leave before it arrives.
    const auto t0 = Clock::now();
    if (r == R - 1) std::this_thread::sleep_for(milliseconds(500));
    EXPECT_EQ(barrier(), nullptr);
    EXPECT_GE(std::chrono::duration<double>(Clock::now() - t0).count(), 0.25);
    wait(barrier(std::nullopt, true));
    monitored_barrier(std::nullopt, milliseconds(10000));
  });
}

TEST(Collectives, NonMemberCallsAreNoOps) {
  run_world(3, [](int r, int) {
    Group g = new_group({0, 1});
    if (r == 2) {
      Tensor t = full({2}, 9.0f);
      std::vector<Tensor> list{zeros({2}), zeros({2})};
      ::testing::internal::CaptureStderr();
      EXPECT_EQ(all_reduce(t, ReduceOp::SUM, g), nullptr);
      EXPECT_EQ(all_reduce(t, ReduceOp::SUM, g, true), nullptr);
      send(t, 0, g);
      // PyTorch's UserWarning, once per function as Python's filter shows it.
      EXPECT_EQ(::testing::internal::GetCapturedStderr(),
                "UserWarning: Running all_reduce on global rank 2 which does not belong to the "
                "given group.\n"
                "UserWarning: Running send on global rank 2 which does not belong to the given "
                "group.\n");
      EXPECT_EQ(broadcast(t, 0, g), nullptr);
      EXPECT_EQ(reduce(t, 0, ReduceOp::SUM, g), nullptr);
      EXPECT_EQ(all_gather(list, t, g), nullptr);
      // Not even the argument checks run: a non-member returns first.
      EXPECT_EQ(gather(t, &list, 0, g), nullptr);
      EXPECT_EQ(scatter(t, nullptr, 0, g), nullptr);
      EXPECT_EQ(reduce_scatter(t, list, ReduceOp::SUM, g), nullptr);
      EXPECT_EQ(all_to_all_single(t, t, {}, {}, g), nullptr);
      EXPECT_EQ(recv(t, 0, g), -1);
      EXPECT_EQ(isend(t, 0, g), nullptr);
      EXPECT_EQ(irecv(t, -1, g), nullptr);
      EXPECT_EQ(barrier(g), nullptr);
      monitored_barrier(g, milliseconds(100));
      // A default-constructed Group is a handle to no group: same behavior.
      EXPECT_EQ(all_reduce(t, ReduceOp::SUM, Group()), nullptr);
      EXPECT_TRUE(tensors_equal(t, full({2}, 9.0f)));
      EXPECT_TRUE(tensors_equal(list[0], zeros({2})));
    } else {
      Tensor t = full({2}, r + 1.0f);
      all_reduce(t, ReduceOp::SUM, g);
      EXPECT_TRUE(tensors_equal(t, full({2}, 3.0f)));
    }
    barrier();
  });
}

// The parent process never initializes.
TEST(Collectives, NotInitialized) {
  ASSERT_FALSE(is_initialized());
  const std::string want =
      "Default process group has not been initialized, please make sure to call "
      "init_process_group.";
  Tensor t = zeros({2});
  std::vector<Tensor> list{zeros({2})};
  EXPECT_EQ(error_of([&] { all_reduce(t); }), want);
  EXPECT_EQ(error_of([&] { broadcast(t, 0); }), want);
  EXPECT_EQ(error_of([&] { reduce(t, 0); }), want);
  EXPECT_EQ(error_of([&] { all_gather(list, t); }), want);
  EXPECT_EQ(error_of([&] { gather(t, &list); }), want);
  EXPECT_EQ(error_of([&] { scatter(t, &list); }), want);
  EXPECT_EQ(error_of([&] { reduce_scatter(t, list); }), want);
  EXPECT_EQ(error_of([&] { all_to_all_single(t, t); }), want);
  EXPECT_EQ(error_of([&] { send(t, 1); }), want);
  EXPECT_EQ(error_of([&] { recv(t); }), want);
  EXPECT_EQ(error_of([&] { isend(t, 1); }), want);
  EXPECT_EQ(error_of([&] { irecv(t); }), want);
  EXPECT_EQ(error_of([&] { barrier(); }), want);
  EXPECT_EQ(error_of([&] { monitored_barrier(); }), want);
  EXPECT_THROW(all_reduce(t), Error);
}

TEST(Collectives, UndefinedTensorIsATypeError) {
  Tensor undefined;
  EXPECT_THROW(all_reduce(undefined), TypeError);
  EXPECT_EQ(error_of([&] { broadcast(undefined, 0); }),
            "Invalid function argument. Expected parameter `tensor` to be a defined Tensor.");
}

}  // namespace
}  // namespace ember::distributed
