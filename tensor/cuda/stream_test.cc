// Streams, events and the stream-aware caching allocator (Note [CUDA
// streams] in stream.cc). The GPU tests skip without a device; the API's
// errors without one and the CUDA_VISIBLE_DEVICES child run everywhere.

#include "tensor/cuda/stream.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "tensor/all.h"
#include "tensor/cuda/cuda.h"
#include "tensor/cuda/spin_for_tests.h"

namespace ember {
namespace cuda {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

#define SKIP_WITHOUT_CUDA_DEVICE()                                                               \
  do {                                                                                           \
    if (!::ember::cuda::is_available()) GTEST_SKIP() << "no usable CUDA device on this machine"; \
  } while (0)

const Device kCuda(kCUDA, 0);

// --- everywhere ---

TEST(StreamApi, ValueSemanticsWithoutADevice) {
  CUDAStream a(0, 0), b(0, 0), c(0, 33), d(1, 0);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(a, d);
  EXPECT_EQ(c.id(), 33);
  EXPECT_EQ(d.device_index(), 1);
  std::ostringstream os;
  os << c;
  EXPECT_EQ(os.str(), "stream 33 on device cuda:0");
}

TEST(StreamApi, ErrorsWithoutADevice) {
  if (is_available()) GTEST_SKIP() << "this machine has a CUDA device";
  EXPECT_THROW(getCurrentCUDAStream(), Error);
  EXPECT_THROW(getDefaultCUDAStream(), Error);
  EXPECT_THROW(getStreamFromPool(), Error);
  EXPECT_THROW(setCurrentCUDAStream(CUDAStream(0, 0)), Error);
  EXPECT_THROW(CUDAStreamGuard guard(CUDAStream(0, 0)), Error);
  EXPECT_THROW(CUDAStream(0, 0).synchronize(), Error);
  CUDAEvent e;
  EXPECT_THROW(e.record(), Error);
  EXPECT_EQ(memory_allocated(), 0);
  EXPECT_EQ(max_memory_allocated(), 0);
  EXPECT_EQ(memory_reserved(), 0);
  EXPECT_EQ(max_memory_reserved(), 0);
  reset_peak_memory_stats();
}

TEST(StreamApi, UnrecordedEventNeedsNoDevice) {
  CUDAEvent e, f;
  EXPECT_FALSE(e.isCreated());
  EXPECT_TRUE(e.query());
  e.synchronize();
  EXPECT_EQ(e.flags(), kEventDisableTiming);
  try {
    e.elapsed_time(f);
    FAIL() << "expected an error";
  } catch (const Error& err) {
    EXPECT_STREQ(err.what(), "Both events must be recorded before calculating elapsed time.");
  }
  CUDAEvent moved(std::move(e));
  EXPECT_FALSE(moved.isCreated());
}

TEST(StreamApi, RecordStreamOnACpuTensor) {
  Tensor t = ones({3});
  try {
    t.record_stream(CUDAStream(0, 0));
    FAIL() << "expected an error";
  } catch (const Error& err) {
    EXPECT_STREQ(err.what(),
                 "Could not run 'aten::record_stream' with arguments from the 'CPU' backend.");
  }
}

// CUDA_VISIBLE_DEVICES= (empty) hides every device: the child sees none.
TEST(VisibleDevicesChild, Report) {
  const char* child = std::getenv("EMBER_STREAM_TEST_CHILD");
  if (child == nullptr) GTEST_SKIP() << "runs only as VisibleDevices.EmptyHidesEveryDevice's child";
  EXPECT_EQ(device_count(), 0u);
  EXPECT_FALSE(is_available());
  EXPECT_THROW(getCurrentCUDAStream(), Error);
}

TEST(VisibleDevices, EmptyHidesEveryDevice) {
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    setenv("EMBER_STREAM_TEST_CHILD", "1", 1);
    unsetenv("GTEST_OUTPUT");  // Bazel's XML report is the parent's
    unsetenv("XML_OUTPUT_FILE");
    char* argv[] = {const_cast<char*>("stream_test"),
                    const_cast<char*>("--gtest_filter=VisibleDevicesChild.Report"), nullptr};
    execv("/proc/self/exe", argv);
    _exit(127);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the child with CUDA_VISIBLE_DEVICES= failed";
}

// --- on a GPU ---

TEST(Stream, CurrentDefaultAndPoolIdentities) {
  SKIP_WITHOUT_CUDA_DEVICE();
  CUDAStream current = getCurrentCUDAStream();
  EXPECT_EQ(current, getDefaultCUDAStream());
  EXPECT_EQ(current.id(), 0);
  EXPECT_EQ(current.device_index(), current_device());
  EXPECT_EQ(current.stream(), nullptr);  // the legacy default stream
  EXPECT_EQ(current.priority(), 0);
  EXPECT_TRUE(current.query());

  CUDAStream low = getStreamFromPool();
  CUDAStream high = getStreamFromPool(/*isHighPriority=*/true);
  EXPECT_GE(low.id(), 32);
  EXPECT_LT(low.id(), 64);
  EXPECT_GE(high.id(), 64);
  EXPECT_LT(high.id(), 96);
  EXPECT_NE(low.stream(), nullptr);
  EXPECT_NE(low.stream(), high.stream());
  EXPECT_LE(high.priority(), low.priority());
  // Round robin over 32 streams: the 33rd is the first again.
  CUDAStream first = getStreamFromPool();
  for (int i = 0; i < 31; ++i) EXPECT_NE(getStreamFromPool(), first);
  EXPECT_EQ(getStreamFromPool(), first);
}

TEST(Stream, SetCurrentAndGuardRestore) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const int device = current_device();
  CUDAStream s = getStreamFromPool();
  {
    CUDAStreamGuard guard(s);
    EXPECT_EQ(getCurrentCUDAStream(), s);
    EXPECT_EQ(guard.original_stream(), getDefaultCUDAStream());
    CUDAStream t = getStreamFromPool();
    guard.reset_stream(t);
    EXPECT_EQ(getCurrentCUDAStream(), t);
  }
  EXPECT_EQ(getCurrentCUDAStream(), getDefaultCUDAStream());
  EXPECT_EQ(current_device(), device);

  setCurrentCUDAStream(s);
  EXPECT_EQ(getCurrentCUDAStream(), s);
  setCurrentCUDAStream(getDefaultCUDAStream());

  if (device_count() >= 2) {
    CUDAStream other = getStreamFromPool(false, 1);
    {
      CUDAStreamGuard guard(other);
      EXPECT_EQ(current_device(), 1);
      EXPECT_EQ(getCurrentCUDAStream(1), other);
      EXPECT_EQ(getCurrentCUDAStream(0), getDefaultCUDAStream(0));
    }
    EXPECT_EQ(current_device(), device);
    EXPECT_EQ(getCurrentCUDAStream(1), getDefaultCUDAStream(1));
  }
}

TEST(Stream, CurrentStreamIsPerThread) {
  SKIP_WITHOUT_CUDA_DEVICE();
  CUDAStream s = getStreamFromPool();
  CUDAStreamGuard guard(s);
  CUDAStream seen(-1, -1);
  std::thread([&] { seen = getCurrentCUDAStream(0); }).join();
  EXPECT_EQ(seen, getDefaultCUDAStream(0));
  EXPECT_EQ(getCurrentCUDAStream(), s);
}

TEST(Stream, OpsRunOnTheCurrentStream) {
  SKIP_WITHOUT_CUDA_DEVICE();
  CUDAStream s = getStreamFromPool();
  CUDAStreamGuard guard(s);
  testing::spin(200000);  // 200 ms on s
  Tensor x = ones({1 << 20}, TensorOptions(kFloat).device(kCuda));
  EXPECT_FALSE(s.query()) << "the fill should be queued behind the spin on the current stream";
  EXPECT_FLOAT_EQ(x.sum().item<float>(), static_cast<float>(1 << 20));  // waits for s
  Tensor a = ones({64, 64}, TensorOptions(kFloat).device(kCuda));
  testing::spin(50000);
  Tensor m = a.matmul(a);  // cuBLAS on s, behind the spin
  EXPECT_FLOAT_EQ(m.sum().item<float>(), 64.0f * 64 * 64);
  EXPECT_TRUE(s.query());
}

TEST(Event, QueryRecordSynchronizeAndElapsedTime) {
  SKIP_WITHOUT_CUDA_DEVICE();
  CUDAStream s = getStreamFromPool();
  CUDAStreamGuard guard(s);
  CUDAEvent start(kEventDefault), end(kEventDefault);
  start.record();
  testing::spin(50000);
  end.record(s);
  EXPECT_TRUE(start.isCreated());
  EXPECT_EQ(end.device_index(), s.device_index());
  EXPECT_FALSE(end.query());
  end.synchronize();
  EXPECT_TRUE(end.query());
  const float ms = start.elapsed_time(end);
  EXPECT_GT(ms, 0.f);
  EXPECT_GT(ms, 40.f);

  CUDAEvent untimed, untimed_end;  // timing disabled by default, as libtorch
  untimed.record();
  untimed_end.record();
  untimed_end.synchronize();
  try {
    untimed.elapsed_time(untimed_end);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), StartsWith("CUDA error: "));
  }
}

TEST(Event, OrdersWorkBetweenStreams) {
  SKIP_WITHOUT_CUDA_DEVICE();
  CUDAStream a = getStreamFromPool(), b = getStreamFromPool();
  Tensor x;
  CUDAEvent ready;
  {
    CUDAStreamGuard guard(a);
    testing::spin(100000);
    x = full({1 << 16}, 3.0f, TensorOptions(kFloat).device(kCuda));
    ready.record();
  }
  CUDAStreamGuard guard(b);
  ready.block(b);
  Tensor y = x * 2;
  EXPECT_FLOAT_EQ(y.sum().item<float>(), 6.0f * (1 << 16));
  x.record_stream(b);  // used on b: the allocator must know
}

TEST(Allocator, BlockFreedOnOneStreamIsNotReusedOnAnother) {
  SKIP_WITHOUT_CUDA_DEVICE();
  // On a stream-unaware allocator, z gets x's block and b's fill overwrites
  // it before a's sum (behind the spin) reads it.
  CUDAStream a = getStreamFromPool(), b = getStreamFromPool();
  const int64_t n = 1 << 20;
  Tensor sum;
  const void* freed = nullptr;
  {
    CUDAStreamGuard guard(a);
    Tensor x = ones({n}, TensorOptions(kFloat).device(kCuda));
    testing::spin(200000);
    sum = x.sum();
    freed = x.data_ptr();
  }  // x freed: its block belongs to a
  {
    CUDAStreamGuard guard(b);
    Tensor z = empty({n}, TensorOptions(kFloat).device(kCuda));
    EXPECT_NE(z.data_ptr(), freed);
    z.fill_(5);
    b.synchronize();
  }
  {
    CUDAStreamGuard guard(a);
    EXPECT_FLOAT_EQ(sum.item<float>(), static_cast<float>(n));
    // On its own stream the block is reused at once.
    Tensor again = empty({n}, TensorOptions(kFloat).device(kCuda));
    EXPECT_EQ(again.data_ptr(), freed);
  }
}

TEST(Allocator, RecordStreamKeepsABlockUntilTheStreamIsDone) {
  SKIP_WITHOUT_CUDA_DEVICE();
  CUDAStream a = getStreamFromPool(), b = getStreamFromPool();
  const int64_t n = 1 << 18;
  CUDAStreamGuard guard(a);
  Tensor x = ones({n}, TensorOptions(kFloat).device(kCuda));
  a.synchronize();
  const void* p = x.data_ptr();
  Tensor y;
  {
    CUDAStreamGuard on_b(b);
    testing::spin(200000);
    y = x * 3;  // reads x on b, after the spin
  }
  x.record_stream(b);
  x = Tensor();  // freed while b still has to read it
  Tensor z = empty({n}, TensorOptions(kFloat).device(kCuda));
  EXPECT_NE(z.data_ptr(), p) << "reused while b still reads it";
  z.fill_(7);
  b.synchronize();
  {
    CUDAStreamGuard on_b(b);
    EXPECT_FLOAT_EQ(y.sum().item<float>(), 3.0f * n);
  }
  // b finished: the next allocation on a polls the event and gets it back.
  Tensor w = empty({n}, TensorOptions(kFloat).device(kCuda));
  EXPECT_EQ(w.data_ptr(), p);
}

TEST(MemoryStats, AllocatedReservedAndPeaks) {
  SKIP_WITHOUT_CUDA_DEVICE();
  synchronize();
  empty_cache();
  const int64_t base = memory_allocated();
  const int64_t base_reserved = memory_reserved();
  reset_peak_memory_stats();
  EXPECT_EQ(max_memory_allocated(), base);
  {
    Tensor t = empty({1 << 18}, TensorOptions(kFloat).device(kCuda));  // 1 MiB, a size class
    EXPECT_EQ(memory_allocated(), base + (1 << 20));
    EXPECT_EQ(memory_reserved(), base_reserved + (1 << 20));
    EXPECT_EQ(max_memory_allocated(), base + (1 << 20));
    Tensor u = empty({1 << 18}, TensorOptions(kFloat).device(kCuda));
    EXPECT_EQ(max_memory_allocated(), base + (2 << 20));
  }
  EXPECT_EQ(memory_allocated(), base);
  EXPECT_EQ(memory_reserved(), base_reserved + (2 << 20));  // cached
  EXPECT_EQ(max_memory_allocated(), base + (2 << 20));
  EXPECT_EQ(max_memory_reserved(), base_reserved + (2 << 20));
  reset_peak_memory_stats();
  EXPECT_EQ(max_memory_allocated(), base);
  empty_cache();
  EXPECT_EQ(memory_reserved(), base_reserved);
  const std::string summary = memory_summary();
  EXPECT_THAT(summary, HasSubstr("Allocated memory"));
  EXPECT_THAT(summary, HasSubstr("GPU reserved memory"));
}

TEST(MemoryStats, OutOfMemoryRaisesPyTorchsErrorAndTheProcessGoesOn) {
  SKIP_WITHOUT_CUDA_DEVICE();
  try {
    Tensor huge = empty({int64_t{1} << 50}, TensorOptions(kByte).device(kCuda));  // 1 PiB
    FAIL() << "expected an out-of-memory error";
  } catch (const OutOfMemoryError& e) {
    EXPECT_THAT(e.what(),
                StartsWith("CUDA out of memory. Tried to allocate 1048576.00 GiB (GPU 0; "));
    EXPECT_THAT(e.what(), HasSubstr(" total capacity; "));
    EXPECT_THAT(e.what(), HasSubstr(" already allocated; "));
    EXPECT_THAT(e.what(), HasSubstr(" reserved in total by PyTorch) If reserved memory is >> "
                                    "allocated memory try setting max_split_size_mb to avoid "
                                    "fragmentation.  See documentation for Memory Management and "
                                    "PYTORCH_CUDA_ALLOC_CONF"));
  }
  Tensor t = ones({4}, TensorOptions(kFloat).device(kCuda));
  EXPECT_FLOAT_EQ(t.sum().item<float>(), 4.0f);
  EXPECT_THAT(memory_summary(), HasSubstr("CUDA OOMs: 1"));
}

TEST(Copy, NonBlockingUploadFromPinnedMemoryIsAsynchronous) {
  SKIP_WITHOUT_CUDA_DEVICE();
  CUDAStream s = getStreamFromPool();
  CUDAStreamGuard guard(s);
  Tensor host = arange(1 << 20, TensorOptions(kFloat)).pin_memory();
  testing::spin(200000);
  Tensor dev = host.to(kCuda, /*non_blocking=*/true);
  EXPECT_FALSE(s.query()) << "a non_blocking copy from pinned memory must not wait";
  Tensor back = dev.cpu();  // waits for the current stream
  EXPECT_TRUE(back.equal(host));
  // Blocking from pinned memory: done on return.
  testing::spin(50000);
  Tensor dev2 = host.to(kCuda);
  EXPECT_TRUE(s.query());
  EXPECT_TRUE(dev2.cpu().equal(host));
}

// Note [Pinned host memory cache]: a pinned block freed while a non_blocking
// copy from it is still queued is not handed out again until the copy's
// stream passed it; afterwards it is (no cudaHostAlloc per batch).
TEST(PinnedMemory, BlockOfAQueuedCopyIsReusedOnlyAfterIt) {
  SKIP_WITHOUT_CUDA_DEVICE();
  CUDAStream s = getStreamFromPool();
  CUDAStreamGuard guard(s);
  const int64_t n = 1 << 20;
  Tensor dst = empty({n}, TensorOptions(kFloat).device(kCuda));
  const void* first = nullptr;
  {
    Tensor host = full({n}, 3.f).pin_memory();
    first = host.data_ptr();
    testing::spin(200000);  // the copy waits 200 ms behind this on s
    dst.copy_(host, /*non_blocking=*/true);
  }  // host freed here, its copy still queued
  Tensor again = full({n}, 4.f).pin_memory();
  EXPECT_NE(again.data_ptr(), first) << "a block still read by a queued copy was reused";
  s.synchronize();
  EXPECT_FLOAT_EQ(dst.sum().item<float>(), 3.f * n);  // the copy read 3s, not 4s
  again = Tensor();
  Tensor third = full({n}, 5.f).pin_memory();
  Tensor fourth = full({n}, 6.f).pin_memory();
  const std::set<const void*> got = {third.data_ptr(), fourth.data_ptr()};
  EXPECT_EQ(got.count(first), 1u) << "the block was not reused once its copy was done";
}

}  // namespace
}  // namespace cuda
}  // namespace ember
