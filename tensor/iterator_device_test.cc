// Note [Iterator devices] on a machine without a GPU: CUDA tensors from the
// host-backed fake backend (tensor/testing/fake_cuda.h) and a test-only
// CUDA add kernel that runs on the host. This target must not link
// //tensor/cuda.

#include <gtest/gtest.h>

#include "tensor/creation.h"
#include "tensor/loops.h"
#include "tensor/math.h"
#include "tensor/math_kernels.h"
#include "tensor/testing/fake_cuda.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using ::ember::testing::error_of;

// a + alpha * b over float operands that must all be "on the device".
void host_add_for_fake_cuda(TensorIterator& iter, const Scalar& alpha) {
  for (int i = 0; i < iter.ntensors(); ++i) ASSERT_TRUE(iter.operand(i).is_cuda()) << i;
  ASSERT_EQ(iter.common_dtype(), kFloat);
  const float a = alpha.to<float>();
  cpu_kernel(iter, [a](float x, float y) -> float { return x + a * y; });
}

class IteratorDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override { add_kernel.set(kCUDA, &host_add_for_fake_cuda); }
  void TearDown() override { add_kernel.set(kCUDA, nullptr); }

  Tensor on_fake_cuda(const Tensor& cpu) {
    Tensor t = empty(cpu.sizes(), TensorOptions(cpu.dtype()).device(Device(kCUDA, 0)));
    std::memcpy(t.data_ptr(), cpu.contiguous().data_ptr(), cpu.nbytes());
    return t;
  }
  static Tensor to_cpu(const Tensor& t) { return t.to(Device(kCPU)); }

  testing::FakeCudaBackend backend_;
};

// libtorch's spelling: t.to(kCPU) / t.to(kCUDA) (a DeviceType, no index).
TEST_F(IteratorDeviceTest, ToADeviceType) {
  Tensor c = tensor({1.0f, 2.0f});
  EXPECT_TRUE(c.to(kCPU).is_same(c));  // already there: the tensor itself
  Tensor d = c.to(kCUDA);
  EXPECT_TRUE(d.is_cuda());
  EXPECT_EQ(d.device().str(), "cuda:0");
  EXPECT_TRUE(equal(d.to(kCPU), c));
  EXPECT_FALSE(d.to(kCUDA, /*non_blocking=*/false, /*copy=*/true).is_same(d));
}

TEST_F(IteratorDeviceTest, CudaAndCpuTensorsDoNotMix) {
  Tensor d = on_fake_cuda(tensor({1.0f, 2.0f}));
  Tensor c = tensor({3.0f, 4.0f});
  EXPECT_EQ(error_of([&] { d + c; }),
            "Expected all tensors to be on the same device, but found at least two devices, "
            "cuda:0 and cpu!");
  EXPECT_EQ(error_of([&] { c + d; }),
            "Expected all tensors to be on the same device, but found at least two devices, "
            "cpu and cuda:0!");
  // An in-place CPU output with a CUDA input.
  EXPECT_EQ(error_of([&] { c.add_(d); }),
            "Expected all tensors to be on the same device, but found at least two devices, "
            "cpu and cuda:0!");
}

TEST_F(IteratorDeviceTest, NumbersAndCpuScalarsJoinCudaOps) {
  Tensor d = on_fake_cuda(tensor({1.0f, 2.0f, 3.0f}));
  Tensor r = d + 2;  // a wrapped number
  ASSERT_TRUE(r.is_cuda());
  EXPECT_TRUE(to_cpu(r).equal(tensor({3.0f, 4.0f, 5.0f})));
  // A 0-dim CPU tensor as either operand: the result is on the CUDA device.
  Tensor s = tensor(0.5f);
  Tensor r2 = add(s, d, 2);
  ASSERT_TRUE(r2.is_cuda());
  EXPECT_TRUE(to_cpu(r2).equal(tensor({2.5f, 4.5f, 6.5f})));
  Tensor r3 = d + s;
  ASSERT_TRUE(r3.is_cuda());
  EXPECT_TRUE(to_cpu(r3).equal(tensor({1.5f, 2.5f, 3.5f})));
}

TEST_F(IteratorDeviceTest, CpuScalarsAloneStayOnTheCpu) {
  Tensor r = tensor(1.0f) + tensor(2.0f);
  EXPECT_TRUE(r.is_cpu());
  EXPECT_EQ(r.item<float>(), 3.0f);
}

TEST_F(IteratorDeviceTest, OpsWithoutACudaKernelSayWhich) {
  Tensor d = on_fake_cuda(tensor({1.0f, 2.0f}));
  EXPECT_EQ(error_of([&] { d * d; }),
            "Could not run 'mul_kernel' with arguments from the 'CUDA' backend.");
}

}  // namespace
}  // namespace ember
