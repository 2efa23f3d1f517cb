// Note [Gloo and device tensors] without a GPU: ranks hand ProcessGroupGloo
// tensors of the host-backed fake CUDA backend (tensor/testing/fake_cuda.h);
// every op stages them through host copies, writes results back on the
// device, and leaves non-contiguous device views' bases updated. Real
// processes on 127.0.0.1. This target must not link //tensor/cuda.

#include <gtest/gtest.h>

#include "distributed/file_store.h"
#include "distributed/process_group_gloo.h"
#include "distributed/testing/multiprocess.h"
#include "tensor/creation.h"
#include "tensor/math.h"
#include "tensor/shape.h"
#include "tensor/testing/fake_cuda.h"

namespace ember::distributed {
namespace {

const Device kDev(kCUDA, 0);

Tensor dev(const Tensor& t) { return t.to(kDev); }

// Checks on the host what a device tensor holds.
::testing::AssertionResult on_device_equal(const Tensor& got, const Tensor& want) {
  if (got.device() != kDev) {
    return ::testing::AssertionFailure() << "on " << got.device().str() << ", not cuda:0";
  }
  if (!equal(got.to(Device(kCPU)), want)) return ::testing::AssertionFailure() << "values differ";
  return ::testing::AssertionSuccess();
}

void wait(const std::shared_ptr<Work>& w) { EXPECT_TRUE(w->wait()); }

void every_op_on_device(ProcessGroupGloo& pg) {
  ember::testing::FakeCudaBackend backend;
  const int R = pg.size(), r = pg.rank();
  {  // allreduce: contiguous, AVG, and a transposed view (writes reach its base)
    std::vector<Tensor> v{dev(arange(6, kFloat) + r)};
    wait(pg.allreduce(v));
    EXPECT_TRUE(on_device_equal(v[0], arange(6, kFloat) * R + R * (R - 1) / 2));
    std::vector<Tensor> a{dev(full({4}, 2 * r, kInt))};
    wait(pg.allreduce(a, {ReduceOp::AVG}));
    EXPECT_TRUE(on_device_equal(a[0], full({4}, R - 1, kInt)));
    Tensor base = dev(arange(12, kDouble).reshape({3, 4}) + r);
    std::vector<Tensor> t{base.t()};
    ASSERT_FALSE(t[0].is_contiguous());
    wait(pg.allreduce(t));
    EXPECT_TRUE(on_device_equal(base, arange(12, kDouble).reshape({3, 4}) * R + R * (R - 1) / 2));
  }
  {  // broadcast from the last rank, into two tensors
    std::vector<Tensor> b{dev(full({5}, r, kLong)), dev(zeros({5}, kLong))};
    wait(pg.broadcast(b, {R - 1}));
    EXPECT_TRUE(on_device_equal(b[0], full({5}, R - 1, kLong)));
    EXPECT_TRUE(on_device_equal(b[1], full({5}, R - 1, kLong)));
  }
  {  // reduce to rank 0
    std::vector<Tensor> v{dev(full({3}, r + 1.0))};
    wait(pg.reduce(v, {ReduceOp::MAX, 0}));
    if (r == 0) EXPECT_TRUE(on_device_equal(v[0], full({3}, double(R))));
  }
  {  // allgather and gather
    std::vector<Tensor> in{dev(full({2, 2}, r, kFloat))};
    std::vector<std::vector<Tensor>> out(1);
    for (int i = 0; i < R; ++i) out[0].push_back(dev(zeros({2, 2}, kFloat)));
    wait(pg.allgather(out, in));
    for (int i = 0; i < R; ++i) EXPECT_TRUE(on_device_equal(out[0][i], full({2, 2}, i, kFloat)));
    std::vector<std::vector<Tensor>> g;
    if (r == 0) g = out;
    wait(pg.gather(g, in, 0));
  }
  {  // scatter from rank 0, reduce_scatter, all-to-all
    std::vector<Tensor> out{dev(zeros({3}, kFloat))};
    std::vector<std::vector<Tensor>> in;
    if (r == 0) {
      in.resize(1);
      for (int i = 0; i < R; ++i) in[0].push_back(dev(full({3}, 10.0f * i)));
    }
    wait(pg.scatter(out, in, 0));
    EXPECT_TRUE(on_device_equal(out[0], full({3}, 10.0f * r)));
    std::vector<Tensor> rs{dev(zeros({2}, kFloat))};
    std::vector<std::vector<Tensor>> parts(1);
    for (int i = 0; i < R; ++i) parts[0].push_back(dev(full({2}, float(i + r))));
    wait(pg.reduce_scatter(rs, parts));
    EXPECT_TRUE(on_device_equal(rs[0], full({2}, float(R * r + R * (R - 1) / 2))));
    Tensor send = dev(arange(R, kLong) + 100 * r), recv = dev(zeros({R}, kLong));
    wait(pg.alltoall_base(recv, send, {}, {}));
    EXPECT_TRUE(on_device_equal(recv, arange(R, kLong) * 100 + r));
  }
  {  // point to point around the ring
    std::vector<Tensor> s{dev(full({4}, r, kShort))}, q{dev(zeros({4}, kShort))};
    auto sw = pg.send(s, (r + 1) % R, 7);
    wait(pg.recv(q, (r + R - 1) % R, 7));
    wait(sw);
    EXPECT_TRUE(on_device_equal(q[0], full({4}, (r + R - 1) % R, kShort)));
  }
  // Tensors of one op stay on one device.
  std::vector<Tensor> mixed{dev(zeros({2})), zeros({2})};
  try {
    pg.allreduce(mixed);
    ADD_FAILURE() << "mixed devices were accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "ProcessGroupGloo::allreduce: tensors must all be on the same device (got "
                 "cuda:0 and cpu)");
  }
}

void run_group(int size) {
  const std::string dir = testing::make_temp_dir();
  auto results = testing::run_processes(
      size,
      [&](int rank) {
        ProcessGroupGloo::Options o;
        o.hostname = "127.0.0.1";
        auto store = std::make_shared<FileStore>(dir + "/store", std::chrono::seconds(30));
        ProcessGroupGloo pg(store, rank, size, o);
        every_op_on_device(pg);
      },
      std::chrono::seconds(60));
  testing::remove_tree(dir);
  EXPECT_TRUE(testing::all_succeeded(results));
}

TEST(ProcessGroupGlooDevice, EveryOpStagesDeviceTensorsWorldSize2) { run_group(2); }
TEST(ProcessGroupGlooDevice, EveryOpStagesDeviceTensorsWorldSize3) { run_group(3); }

}  // namespace
}  // namespace ember::distributed
