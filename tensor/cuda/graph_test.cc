// CUDA graphs (graph.h, Note [CUDA graphs] in graph.cc): capture and replay,
// in-place inputs, the capture errors, host reads during capture, and the
// private memory pool. The GPU tests skip without a device; the API's
// errors without one run everywhere.

#include "tensor/cuda/graph.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "tensor/all.h"
#include "tensor/cuda/cuda.h"
#include "tensor/cuda/stream.h"

namespace ember {
namespace cuda {
namespace {

using ::testing::HasSubstr;

#define SKIP_WITHOUT_CUDA_DEVICE()                                                               \
  do {                                                                                           \
    if (!::ember::cuda::is_available()) GTEST_SKIP() << "no usable CUDA device on this machine"; \
  } while (0)

const Device kCuda(kCUDA, 0);

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

void expect_close(const Tensor& got, const Tensor& want, double tol = 1e-5) {
  ASSERT_EQ(got.sizes(), want.sizes());
  EXPECT_TRUE(allclose(got.to(Device(kCPU)), want, tol, tol)) << "got\n"
                                                              << got.to(Device(kCPU)) << "\nwant\n"
                                                              << want;
}

// --- everywhere ---

TEST(GraphApi, ErrorsWithoutADevice) {
  if (is_available()) GTEST_SKIP() << "this machine has a CUDA device";
  const std::string e = error_of([] { CUDAGraph g; });
  EXPECT_TRUE(e == "Torch not compiled with CUDA enabled" || e == "No CUDA GPUs are available" ||
              e.find("NVIDIA driver") != std::string::npos ||
              e.find("CUDA driver initialization failed") != std::string::npos)
      << e;
  EXPECT_THROW(graph_pool_handle(), Error);
}

// --- on a GPU ---

// y = relu(a * 2 + 1) @ b + sum(a), with the number operands captured as
// constants (Note [CUDA graphs]).
Tensor step(const Tensor& a, const Tensor& b) { return (a * 2 + 1).relu().matmul(b) + a.sum(); }

TEST(Graph, ReplayFollowsInputsOverwrittenInPlace) {
  SKIP_WITHOUT_CUDA_DEVICE();
  Tensor a_cpu = randn({4, 5}), b_cpu = randn({5, 3});
  CUDAGraph g;
  Tensor a, b, y;
  {
    CUDAStreamGuard guard(getStreamFromPool());
    a = a_cpu.to(kCuda);
    b = b_cpu.to(kCuda);
    step(a, b);  // warm-up on the capture stream
    g.capture_begin();
    y = step(a, b);
    g.capture_end();
    g.replay();
    expect_close(y, step(a_cpu, b_cpu));
    a.copy_(randn({4, 5}));
    b.mul_(-1);
    g.replay();
    expect_close(y, step(a.to(Device(kCPU)), b.to(Device(kCPU))));
  }
  // Captured on a pool stream, replayed on the default stream.
  a.copy_(a_cpu);
  b.copy_(b_cpu);
  g.replay();
  expect_close(y, step(a_cpu, b_cpu));
  // A graph that owns a capture refuses another; after reset it captures again.
  {
    CUDAStreamGuard guard(getStreamFromPool());
    EXPECT_EQ(error_of([&] { g.capture_begin(); }),
              "This CUDAGraph instance already owns a captured graph. To capture a new graph, "
              "create a new instance.");
    g.reset();
    g.capture_begin();
    y = a - b.sum();
    g.capture_end();
    g.replay();
    expect_close(y, a_cpu - b_cpu.sum());
  }
}

TEST(Graph, CaptureErrors) {
  SKIP_WITHOUT_CUDA_DEVICE();
  CUDAGraph g;
  EXPECT_EQ(error_of([&] { g.replay(); }),
            "Called CUDAGraph::replay without a preceding successful capture.");
  EXPECT_EQ(error_of([&] { g.pool(); }),
            "Called CUDAGraph::pool() without a preceding successful capture.");
  EXPECT_EQ(error_of([&] { g.capture_begin(); }),
            "CUDA graphs must be captured on a non-default stream. (However, after capture, "
            "it's ok to replay them on the default stream.)");
  CUDAStream s = getStreamFromPool();
  CUDAStreamGuard guard(s);
  Tensor x = ones({8}, TensorOptions().device(kCuda));
  g.capture_begin();
  Tensor y = x + 1;
  guard.reset_stream(getStreamFromPool());
  EXPECT_EQ(error_of([&] { g.capture_end(); }), "Capture must end on the same stream it began on.");
  guard.reset_stream(s);
  g.capture_end();
  g.replay();
  EXPECT_TRUE(equal(y.to(Device(kCPU)), full({8}, 2.f)));
}

// A host read inside the captured region throws ember's error before any
// CUDA call, and the capture stays usable.
TEST(Graph, HostReadDuringCaptureThrowsAClearError) {
  SKIP_WITHOUT_CUDA_DEVICE();
  CUDAStream s = getStreamFromPool();
  CUDAStreamGuard guard(s);
  Tensor x = arange(6, TensorOptions(kFloat).device(kCuda));
  CUDAGraph g;
  g.capture_begin();
  Tensor y = x * 3;
  const std::string msg = "synchronizes with the host, which a CUDA graph capture does not allow";
  EXPECT_THAT(error_of([&] { y.sum().item<float>(); }), HasSubstr(msg));
  EXPECT_THAT(error_of([&] { y.to(Device(kCPU)); }), HasSubstr(msg));
  EXPECT_THAT(error_of([&] { synchronize(); }), HasSubstr(msg));
  EXPECT_THAT(error_of([&] { s.synchronize(); }), HasSubstr(msg));
  EXPECT_THAT(error_of([&] { s.query(); }), HasSubstr(msg));
  // Several elements from pageable memory cannot be captured either.
  EXPECT_THAT(error_of([&] { x.copy_(zeros({6})); }), HasSubstr(msg));
  g.capture_end();
  g.replay();
  EXPECT_TRUE(equal(y.to(Device(kCPU)), arange(6, TensorOptions(kFloat)) * 3));
}

// An index kernel captured in a graph writes the device's index record at
// each replay: a bad index written into the input later surfaces at the
// next host read (Note [Device-side index checks]).
TEST(Graph, ReplayedIndexKernelsReportBadIndices) {
  SKIP_WITHOUT_CUDA_DEVICE();
  CUDAStreamGuard guard(getStreamFromPool());
  Tensor w = randn({5, 3}).to(kCuda);
  Tensor idx = tensor({0, 4, 2}).to(kLong).to(kCuda);
  w.index_select(0, idx);
  CUDAGraph g;
  g.capture_begin();
  Tensor y = w.index_select(0, idx);
  g.capture_end();
  g.replay();
  expect_close(y, w.to(Device(kCPU)).index_select(0, tensor({0, 4, 2}).to(kLong)));
  idx.copy_(tensor({0, 7, 2}).to(kLong));
  g.replay();
  EXPECT_THAT(error_of([&] { y.to(Device(kCPU)); }), HasSubstr("out of"));
  // Reported once.
  idx.copy_(tensor({1, 1, 1}).to(kLong));
  g.replay();
  expect_close(y, w.to(Device(kCPU))[1].expand({3, 3}));
}

// Blocks allocated or freed during capture belong to the graph's private
// pool: no eager allocation gets them, a capture reuses what it freed, and
// reset() hands them to the general cache.
TEST(Graph, PrivatePoolHoldsCaptureMemoryUntilReset) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const int64_t kMiB = 1 << 20;
  CUDAStreamGuard guard(getStreamFromPool());
  Tensor x = ones({kMiB / 4}, TensorOptions().device(kCuda));
  (x * 2).sum();  // warm-up: kernels loaded, the index record etc. allocated
  synchronize();
  empty_cache();
  ASSERT_EQ(cached_bytes(), 0u);
  const int64_t allocated0 = memory_allocated();
  const int64_t reserved0 = memory_reserved();

  CUDAGraph g;
  std::set<const void*> graph_ptrs;
  Tensor out;
  g.capture_begin();
  {
    Tensor tmp = x * 2;
    const void* p1 = tmp.data_ptr();
    graph_ptrs.insert(p1);
    tmp = Tensor();
    Tensor tmp2 = x + 5;  // same size, same stream: reuses the block freed above
    EXPECT_EQ(tmp2.data_ptr(), p1);
    out = tmp2 * 3;
    graph_ptrs.insert(out.data_ptr());
  }
  g.capture_end();
  EXPECT_EQ(memory_allocated(), allocated0 + kMiB);  // out only
  EXPECT_GE(memory_reserved(), reserved0 + 2 * kMiB);
  EXPECT_EQ(cached_bytes(), 0u);  // the pool's free blocks are not in the general cache

  // An eager allocation of the same size on the same stream gets a new block.
  Tensor eager = empty({kMiB / 4}, TensorOptions().device(kCuda));
  EXPECT_EQ(graph_ptrs.count(eager.data_ptr()), 0u);
  eager.fill_(7);

  g.replay();
  EXPECT_TRUE(equal(out.to(Device(kCPU)), full({kMiB / 4}, 18.f)));
  EXPECT_TRUE(equal(eager.to(Device(kCPU)), full({kMiB / 4}, 7.f)));

  // A pool block freed after capture stays in the pool.
  out = Tensor();
  EXPECT_EQ(cached_bytes(), 0u);
  empty_cache();
  EXPECT_GE(memory_reserved(), reserved0 + 3 * kMiB);

  g.reset();
  EXPECT_EQ(memory_allocated(), allocated0 + kMiB);  // eager
  EXPECT_GE(cached_bytes(), static_cast<size_t>(2 * kMiB));
  empty_cache();
  EXPECT_EQ(cached_bytes(), 0u);
  EXPECT_EQ(memory_reserved(), reserved0 + kMiB);  // eager only
}

// Graphs share a pool when asked; the pool lives until both reset.
TEST(Graph, SharedPool) {
  SKIP_WITHOUT_CUDA_DEVICE();
  CUDAStreamGuard guard(getStreamFromPool());
  Tensor x = ones({1024}, TensorOptions().device(kCuda));
  (x + 1).sum();
  CUDAGraph g1, g2;
  const MempoolId_t handle = graph_pool_handle();
  EXPECT_EQ(handle.first, 0u);
  EXPECT_NE(handle.second, 0u);
  g1.capture_begin(handle);
  Tensor y1 = x + 1;
  g1.capture_end();
  EXPECT_EQ(g1.pool(), handle);
  g2.capture_begin(g1.pool());
  Tensor y2 = y1 * 2;
  g2.capture_end();
  g1.replay();
  g2.replay();
  EXPECT_TRUE(equal(y2.to(Device(kCPU)), full({1024}, 4.f)));
  g1.reset();
  g2.replay();  // the pool is still g2's
  EXPECT_TRUE(equal(y2.to(Device(kCPU)), full({1024}, 4.f)));
  g2.reset();
}

// Note [Graph-safe random numbers]: each replay draws new numbers, exactly
// those the same fills would draw eagerly from the generator's state at
// that point, and eager fills between replays take the offsets after them.
TEST(Graph, RandomFillsDrawNewNumbersAtEachReplay) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const TensorOptions opts = TensorOptions(kFloat).device(kCuda);
  auto fills = [&](Tensor& u, Tensor& n, Tensor& b) {
    u = rand({1000}, opts);
    n = randn({3, 333}, opts);
    b = empty({777}, opts).bernoulli_(0.3);
  };
  CUDAStreamGuard guard(getStreamFromPool());
  CUDAGraph g;
  Tensor u, n, b;
  g.capture_begin();
  fills(u, n, b);
  g.capture_end();

  manual_seed(5);
  std::vector<Tensor> replayed;
  for (int i = 0; i < 2; ++i) {
    g.replay();
    for (const Tensor& t : {u, n, b}) replayed.push_back(t.to(Device(kCPU)));
    replayed.push_back(rand({10}, opts).to(Device(kCPU)));  // eager, between replays
  }
  manual_seed(5);
  std::vector<Tensor> eager;
  for (int i = 0; i < 2; ++i) {
    Tensor eu, en, eb;
    fills(eu, en, eb);
    for (const Tensor& t : {eu, en, eb}) eager.push_back(t.to(Device(kCPU)));
    eager.push_back(rand({10}, opts).to(Device(kCPU)));
  }
  ASSERT_EQ(replayed.size(), eager.size());
  for (size_t i = 0; i < eager.size(); ++i) {
    EXPECT_TRUE(equal(replayed[i], eager[i])) << "tensor " << i;
  }
  EXPECT_FALSE(equal(replayed[0], replayed[4]));  // the second replay's rand differs
  EXPECT_FALSE(equal(replayed[1], replayed[5]));
}

// Only the capture device's default generator may be used during capture
// (PyTorch's rule and message); the capture stays usable.
TEST(Graph, CapturedFillFromAnotherGeneratorThrows) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const TensorOptions opts = TensorOptions(kFloat).device(kCuda);
  Generator mine(kCuda, 7);
  CUDAStreamGuard guard(getStreamFromPool());
  CUDAGraph g;
  Tensor x = zeros({16}, opts);
  g.capture_begin();
  EXPECT_THAT(error_of([&] { uniform_(x, 0, 1, mine); }),
              HasSubstr("you may only use the default CUDA RNG generator on the device that's "
                        "current when capture begins"));
  Tensor y = x + 1;
  g.capture_end();
  g.replay();
  EXPECT_TRUE(equal(y.to(Device(kCPU)), ones({16})));
}

}  // namespace
}  // namespace cuda
}  // namespace ember
