#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "tensor/copy.h"
#include "tensor/empty.h"
#include "tensor/iterator.h"
#include "tensor/loops.h"
#include "tensor/parallel.h"
#include "tensor/tensor.h"

namespace ember {
namespace {

TEST(DtypeTest, PromoteTypes) {
  EXPECT_EQ(promote_types(kByte, kChar), kShort);
  EXPECT_EQ(promote_types(kInt, kFloat), kFloat);
  EXPECT_EQ(promote_types(kHalf, kBFloat16), kFloat);
  EXPECT_EQ(promote_types(kBool, kLong), kLong);
  EXPECT_EQ(promote_types(kLong, kDouble), kDouble);
  EXPECT_EQ(promote_types(kByte, kLong), kLong);
  EXPECT_EQ(promote_types(kShort, kInt), kInt);
  EXPECT_FALSE(can_cast(kFloat, kLong));
  EXPECT_TRUE(can_cast(kLong, kFloat));
  EXPECT_FALSE(can_cast(kInt, kBool));
}

TEST(DtypeTest, HalfRoundTrip) {
  for (float f : {0.0f, 1.0f, -2.5f, 65504.0f, 1e-5f, 3.14159f}) {
    Half h(f);
    EXPECT_EQ(Half::from_float_portable(f), h.x) << f;
    EXPECT_FLOAT_EQ(Half::to_float_portable(h.x), static_cast<float>(h));
  }
  EXPECT_EQ(static_cast<float>(Half(3.14159f)), 3.140625f);
  EXPECT_EQ(static_cast<float>(BFloat16(3.14159f)), 3.140625f);
}

TEST(DtypeTest, DefaultDtype) {
  EXPECT_EQ(get_default_dtype(), kFloat);
  set_default_dtype(kDouble);
  EXPECT_EQ(empty({2}).dtype(), kDouble);
  set_default_dtype(kFloat);
  EXPECT_THROW(set_default_dtype(kLong), TypeError);
}

TEST(DeviceTest, Parse) {
  EXPECT_EQ(Device("cuda:1").index(), 1);
  EXPECT_TRUE(Device("cuda").is_cuda());
  EXPECT_EQ(Device("cpu").str(), "cpu");
  EXPECT_THROW(Device("tpu"), Error);
  EXPECT_THROW(Device("cuda:x"), Error);
}

TEST(EmptyTest, ShapeAndErrors) {
  Tensor t = empty({2, 3}, kLong);
  EXPECT_EQ(t.dim(), 2);
  EXPECT_EQ(t.numel(), 6);
  EXPECT_EQ(t.strides()[0], 3);
  EXPECT_EQ(t.dtype(), kLong);
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(t.size(-1), 3);
  EXPECT_THROW(t.size(2), IndexError);
  try {
    empty({2, -1});
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "Trying to create tensor with negative dimension -1: [2, -1]");
  }
}

TEST(CopyTest, CastAndBroadcast) {
  Tensor src = empty({3}, kInt);
  int32_t* p = src.data_ptr<int32_t>();
  p[0] = 1;
  p[1] = -2;
  p[2] = 3;
  Tensor dst = empty({2, 3}, kFloat);
  dst.copy_(src);
  const float* d = dst.data_ptr<float>();
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(d[r * 3 + 0], 1.0f);
    EXPECT_EQ(d[r * 3 + 1], -2.0f);
    EXPECT_EQ(d[r * 3 + 2], 3.0f);
  }
  Tensor b = src.to(kBool);
  EXPECT_TRUE(b.data_ptr<bool>()[1]);
}

TEST(CopyTest, DataPtrTypeMismatch) {
  Tensor t = empty({2}, kFloat);
  try {
    t.data_ptr<int64_t>();
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "expected scalar type Long but found Float");
  }
}

// t.grad().cpu() without a gradient: libtorch's error, not a crash.
TEST(CopyTest, ToOnAnUndefinedTensorThrows) {
  const Tensor undefined;
  for (auto to : std::vector<std::function<Tensor()>>{
           [&] { return undefined.to(Device(kCPU)); }, [&] { return undefined.to(kFloat); },
           [&] { return undefined.to(Device(kCPU), kFloat); },
           [&] { return undefined.to(TensorOptions(kFloat)); }}) {
    try {
      to();
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("to() called on an undefined Tensor"),
                std::string::npos);
    }
  }
}

TEST(IteratorTest, BinaryBroadcastAndPromotion) {
  Tensor a = empty({3, 1}, kInt);
  Tensor b = empty({2}, kFloat);
  for (int i = 0; i < 3; ++i) a.data_ptr<int32_t>()[i] = i + 1;
  b.data_ptr<float>()[0] = 10;
  b.data_ptr<float>()[1] = 20;
  TensorIterator it = TensorIterator::binary_op(Tensor(), a, b);
  EXPECT_EQ(it.common_dtype(), kFloat);
  cpu_kernel(it, [](float x, float y) -> float { return x + y; });
  Tensor out = it.output();
  ASSERT_EQ(out.sizes(), IntArrayRef({3, 2}));
  const float* o = out.data_ptr<float>();
  EXPECT_EQ(o[0], 11);
  EXPECT_EQ(o[1], 21);
  EXPECT_EQ(o[4], 13);
  EXPECT_EQ(o[5], 23);
}

TEST(IteratorTest, BroadcastError) {
  try {
    TensorIterator::binary_op(Tensor(), empty({2, 3}), empty({2, 4}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
                 "dimension 1");
  }
}

TEST(IteratorTest, WrappedNumberPromotion) {
  Tensor i = empty({2}, kInt);
  EXPECT_EQ(result_type(i, Scalar(2)), kInt);
  EXPECT_EQ(result_type(i, Scalar(2.5)), kFloat);
  Tensor h = empty({2}, kHalf);
  EXPECT_EQ(result_type(h, Scalar(2.5)), kHalf);
  EXPECT_EQ(result_type(empty({2}, kByte), empty({}, kLong)), kByte);
  EXPECT_EQ(result_type(empty({2}, kByte), empty({}, kDouble)), kDouble);
}

TEST(IteratorTest, InPlaceCastError) {
  Tensor out = empty({2}, kLong);
  try {
    TensorIterator::binary_op(out, out, empty({2}, kFloat));
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "result type Float can't be cast to the desired output type Long");
  }
}

TEST(ParallelTest, CoversRangeOnce) {
  set_num_threads(2);
  std::vector<int> hits(1000000, 0);
  parallel_for(0, 1000000, 1000, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) hits[i]++;
  });
  for (int h : hits) ASSERT_EQ(h, 1);
  EXPECT_THROW(parallel_for(0, 100000, 10, [](int64_t, int64_t) { throw Error("boom"); }), Error);
  set_num_threads(1);
  EXPECT_EQ(get_num_threads(), 1);
}

// Note [Spin before sleeping] in parallel.cc: jobs that follow each other
// at once are taken by spinning helpers, jobs after an idle gap longer than
// the spin bounds by sleeping ones; both hand-offs must lose no chunk, with
// more threads than cores too.
TEST(ParallelTest, BackToBackAndAfterIdle) {
  for (int nt : {2, 3, 4}) {
    set_num_threads(nt);
    for (int job = 0; job < 300; ++job) {
      if (job % 50 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(3));
      const int64_t n = 1000 + job * 37;
      std::vector<int> hits(n, 0);
      parallel_for(0, n, 100, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) hits[i]++;
      });
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[i], 1) << "threads " << nt << " job " << job;
    }
  }
  set_num_threads(2);
}

// Note [Owned ranges, stolen pieces] in parallel.cc: 16 indices, grain 1,
// 2 threads: each thread owns 8 pieces of one index. Index 8, the first of
// the helper's own range, waits until every other index has run. Only a
// thread that steals the helper's other pieces (9..15) from the back can
// get there; with one fixed half per thread it would wait for itself. The
// wait has a deadline so that a regression fails instead of hanging.
TEST(ParallelTest, IdleThreadStealsTheOthersPieces) {
  set_num_threads(2);
  for (int job = 0; job < 20; ++job) {
    std::atomic<int> done{0};
    std::vector<std::atomic<int>> hits(16);
    bool stuck = false;
    parallel_for(0, 16, 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        if (i == 8) {
          auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
          while (done.load() < 15 && std::chrono::steady_clock::now() < deadline) {
            std::this_thread::yield();
          }
          if (done.load() < 15) stuck = true;
        }
        hits[i]++;
        done++;
      }
    });
    ASSERT_FALSE(stuck) << "job " << job << ": nobody took the pieces after index 8";
    for (int i = 0; i < 16; ++i) ASSERT_EQ(hits[i].load(), 1) << "index " << i;
  }
}

// Note [Pool after fork]: a fork()ed child (distributed::spawn, the
// multiprocess tests) has none of the parent's pool threads; its
// parallel_for must still run, with the parent's thread count.
TEST(ParallelTest, UsableInForkedChild) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "ThreadSanitizer cannot start threads in a forked child";
#endif
  set_num_threads(2);
  std::vector<int> warm(100000, 0);
  parallel_for(0, 100000, 100, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) warm[i]++;
  });
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    alarm(10);  // a deadlocked child dies of SIGALRM instead of hanging the test
    std::vector<int> hits(1000000, 0);
    parallel_for(0, 1000000, 1000, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) hits[i]++;
    });
    bool ok = get_num_threads() == 2;
    for (int h : hits) ok = ok && h == 1;
    // Two chunks that each wait for the other to start: only two live
    // threads finish them without the 2 s fallback.
    std::atomic<int> started{0};
    std::atomic<bool> concurrent{true};
    parallel_for(0, 2, 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        started++;
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
        while (started.load() < 2 && std::chrono::steady_clock::now() < deadline) {
          std::this_thread::yield();
        }
        if (started.load() < 2) concurrent = false;
      }
    });
    _exit(ok ? (concurrent ? 0 : 2) : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "child killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: wrong result or thread count, 2: ran on one thread";
}

TEST(ParallelTest, FillLarge) {
  set_num_threads(2);
  Tensor t = empty({1 << 20}, kFloat);
  t.fill_(2.5);
  const float* p = t.data_ptr<float>();
  for (int64_t i = 0; i < t.numel(); ++i) ASSERT_EQ(p[i], 2.5f);
}

}  // namespace
}  // namespace ember
