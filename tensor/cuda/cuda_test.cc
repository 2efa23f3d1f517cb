#include "tensor/cuda/cuda.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "tensor/copy.h"
#include "tensor/dispatch.h"
#include "tensor/empty.h"
#include "tensor/tensor.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

constexpr char kNotCompiled[] = "Torch not compiled with CUDA enabled";
constexpr char kNoDriver[] =
    "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
    "installed a driver from http://www.nvidia.com/Download/index.aspx";

const ScalarType kAllTypes[] = {kBool, kByte,  kChar,     kShort, kInt,
                                kLong, kHalf, kBFloat16, kFloat, kDouble};

using ::ember::testing::error_of;

bool nvidia_driver_loaded() { return std::filesystem::exists("/proc/driver/nvidia/version"); }

#define SKIP_WITHOUT_CUDA_DEVICE()                                                  \
  do {                                                                              \
    if (!cuda::is_available()) {                                                    \
      GTEST_SKIP() << "no usable CUDA device (built with CUDA: "                    \
                   << (kBuiltWithCuda ? "yes" : "no") << "); GPU tests run only on " \
                   << "a machine with an NVIDIA GPU and driver";                    \
    }                                                                               \
  } while (0)

const bool kBuiltWithCuda = cuda::is_built();

// A view of t's storage with the given geometry (the test depends on the
// core library only, so it builds its views by hand).
Tensor view_of(const Tensor& t, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  return Tensor(std::make_shared<TensorImpl>(t.impl()->storage(), t.dtype(), sizes, strides,
                                             offset));
}

Tensor transposed(const Tensor& t) {  // a 2-d t.t()
  return view_of(t, {t.sizes()[1], t.sizes()[0]}, {t.strides()[1], t.strides()[0]},
                 t.storage_offset());
}

// A CPU tensor of `sizes` whose element i is a distinct value of `dtype`
// (i, alternating in sign for signed types; i % 2 for bool).
Tensor sample(IntArrayRef sizes, ScalarType dtype) {
  Tensor t = empty(sizes, TensorOptions(dtype));
  EMBER_DISPATCH_ALL_TYPES(dtype, "sample", [&] {
    scalar_t* p = t.data_ptr<scalar_t>();
    for (int64_t i = 0; i < t.numel(); ++i) {
      double v = (i % 3 == 1 && is_signed(dtype)) ? -static_cast<double>(i) : i;
      p[i] = static_cast<scalar_t>(dtype == kBool ? i % 2 : v);
    }
  });
  return t;
}

// The bytes of t's elements in logical (row-major) order; t is on the CPU.
std::vector<uint8_t> element_bytes(const Tensor& t) {
  EXPECT_TRUE(t.is_cpu());
  int64_t esz = t.element_size();
  std::vector<uint8_t> out(t.numel() * esz);
  std::vector<int64_t> idx(t.dim(), 0);
  const uint8_t* base = static_cast<const uint8_t*>(t.data_ptr());
  for (int64_t n = 0; n < t.numel(); ++n) {
    int64_t off = 0;
    for (int64_t d = 0; d < t.dim(); ++d) off += idx[d] * t.strides()[d];
    std::memcpy(&out[n * esz], base + off * esz, esz);
    for (int64_t d = t.dim() - 1; d >= 0; --d) {
      if (++idx[d] < t.sizes()[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

// a and b (on any device) hold the same dtype, shape and element bits.
void expect_same(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.dtype(), b.dtype());
  ASSERT_EQ(a.sizes(), b.sizes());
  EXPECT_EQ(element_bytes(a.is_cpu() ? a : a.cpu()), element_bytes(b.is_cpu() ? b : b.cpu()))
      << scalar_type_name(a.dtype());
}

// --- without a device ---------------------------------------------------------

TEST(CudaApiTest, AvailabilityAgreesWithDeviceCount) {
  EXPECT_EQ(cuda::is_available(), cuda::device_count() > 0);
  cuda::empty_cache();  // never throws, device or not
}

// torch.backends.cudnn: a version exactly when available; enabled is a
// switch where cuDNN is built in and false where it is not.
TEST(CudaApiTest, CudnnSwitch) {
  EXPECT_EQ(cuda::cudnn_is_available(), cuda::cudnn_version() != 0);
  if (!cuda::cudnn_is_available()) {
    EXPECT_FALSE(cuda::cudnn_enabled());
    return;
  }
  EXPECT_GE(cuda::cudnn_version(), 90000);
  EXPECT_TRUE(cuda::cudnn_enabled());
  cuda::set_cudnn_enabled(false);
  EXPECT_FALSE(cuda::cudnn_enabled());
  cuda::set_cudnn_enabled(true);
  EXPECT_TRUE(cuda::cudnn_enabled());
}

TEST(CudaApiTest, IsBuiltMatchesTheToolkit) {
  // The toolkit this test was built against, per @local_config_cuda.
  EXPECT_EQ(cuda::is_built(), EMBER_TEST_CUDA_ENABLED == 1);
}

TEST(CudaApiTest, CpuOnlyBuildSaysNotCompiled) {
  if (kBuiltWithCuda) GTEST_SKIP() << "built with the CUDA toolkit";
  EXPECT_FALSE(cuda::is_available());
  EXPECT_EQ(cuda::device_count(), 0u);
  Tensor x = sample({2, 3}, kFloat);
  EXPECT_EQ(error_of([&] { x.to(Device("cuda")); }), kNotCompiled);
  EXPECT_EQ(error_of([&] { x.cuda(); }), kNotCompiled);
  EXPECT_EQ(error_of([&] { empty({2}, TensorOptions().device(kCUDA)); }), kNotCompiled);
  EXPECT_EQ(error_of([] { cuda::current_device(); }), kNotCompiled);
  EXPECT_EQ(error_of([] { cuda::set_device(0); }), kNotCompiled);
  EXPECT_EQ(error_of([] { cuda::synchronize(); }), kNotCompiled);
}

// Built with the toolkit on a machine without the NVIDIA driver (this
// project's build and CI machines): PyTorch's no-driver error.
TEST(CudaApiTest, NoDriverGivesPyTorchError) {
  if (!kBuiltWithCuda) GTEST_SKIP() << "CPU-only build";
  if (nvidia_driver_loaded()) GTEST_SKIP() << "the NVIDIA driver is loaded";
  EXPECT_FALSE(cuda::is_available());
  EXPECT_EQ(cuda::device_count(), 0u);
  Tensor x = sample({2, 3}, kFloat);
  EXPECT_EQ(error_of([&] { x.to(Device("cuda")); }), kNoDriver);
  EXPECT_EQ(error_of([&] { x.to(Device("cuda:1"), kDouble); }), kNoDriver);
  EXPECT_EQ(error_of([&] { empty({2}, TensorOptions().device(kCUDA)); }), kNoDriver);
  EXPECT_EQ(error_of([] { cuda::current_device(); }), kNoDriver);
  EXPECT_EQ(error_of([] { cuda::set_device(0); }), kNoDriver);
  EXPECT_EQ(error_of([] { cuda::synchronize(); }), kNoDriver);
}

// --- with a device ----------------------------------------------------------

TEST(CudaDeviceTest, DeviceSelection) {
  SKIP_WITHOUT_CUDA_DEVICE();
  EXPECT_GE(cuda::device_count(), 1u);
  EXPECT_EQ(cuda::current_device(), 0);
  cuda::set_device(0);
  cuda::synchronize();
  cuda::synchronize(0);
  int past_end = static_cast<int>(cuda::device_count());
  EXPECT_EQ(error_of([&] { cuda::set_device(past_end); }), "CUDA error: invalid device ordinal");
  Tensor x = sample({3}, kFloat);
  EXPECT_EQ(error_of([&] { x.to(Device(kCUDA, static_cast<int8_t>(past_end))); }),
            "CUDA error: invalid device ordinal");
}

// Note [CUDA after fork]: a child forked after the parent used CUDA gets
// PyTorch's error at its first device use, not the runtime's "initialization
// error" at some later call.
TEST(CudaDeviceTest, ForkedChildOfAnInitializedParentGetsAClearError) {
  SKIP_WITHOUT_CUDA_DEVICE();
  Tensor warm = sample({2}, kFloat).cuda();  // the parent initializes CUDA
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(fds[0]);
    std::string message = error_of([] { empty({2}, TensorOptions().device(kCUDA)); });
    ssize_t written = write(fds[1], message.data(), message.size());
    _exit(written == static_cast<ssize_t>(message.size()) ? 0 : 1);
  }
  close(fds[1]);
  std::string message;
  char buf[512];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) message.append(buf, n);
  close(fds[0]);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(message.rfind("Cannot re-initialize CUDA in forked subprocess.", 0), 0u) << message;
  EXPECT_TRUE(warm.is_cuda());  // the parent's CUDA still works
  EXPECT_EQ(warm.cpu().sum().item<float>(), sample({2}, kFloat).sum().item<float>());
}

TEST(CudaDeviceTest, RoundTripContiguousEveryDtype) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kAllTypes) {
    Tensor x = sample({3, 5}, t);
    Tensor d = x.to(Device("cuda"));
    EXPECT_TRUE(d.is_cuda());
    EXPECT_EQ(d.device(), Device(kCUDA, 0));
    EXPECT_EQ(d.dtype(), t);
    EXPECT_EQ(d.sizes(), x.sizes());
    Tensor back = d.cpu();
    EXPECT_TRUE(back.is_cpu());
    expect_same(back, x);
  }
}

TEST(CudaDeviceTest, RoundTripKeepsTransposedLayout) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kAllTypes) {
    Tensor x = transposed(sample({4, 6}, t));  // (6, 4), strides (1, 6)
    Tensor d = x.cuda();
    // to() keeps a dense layout, as PyTorch's preserve_format does.
    EXPECT_EQ(d.strides(), x.strides());
    expect_same(d.cpu(), x);
  }
}

TEST(CudaDeviceTest, RoundTripSlicedAndExpanded) {
  SKIP_WITHOUT_CUDA_DEVICE();
  Tensor base = sample({6, 8}, kFloat);
  // base[1::2, ::3]: not dense, gathered on the host before the upload.
  Tensor sliced = view_of(base, {3, 3}, {16, 3}, 8);
  Tensor d = sliced.cuda();
  EXPECT_TRUE(d.is_contiguous());
  expect_same(d.cpu(), sliced);
  // A row expanded to (4, 8) (stride 0).
  Tensor expanded = view_of(base, {4, 8}, {0, 1}, 8);
  expect_same(expanded.cuda().cpu(), expanded);
}

TEST(CudaDeviceTest, NonContiguousDeviceTensorToHost) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : {kBool, kChar, kHalf, kFloat, kDouble}) {
    Tensor x = sample({5, 7}, t);
    Tensor d = x.cuda();
    // Device views: transposed, sliced with a step, and a column.
    expect_same(transposed(d).cpu(), transposed(x));
    expect_same(view_of(d, {2, 3}, {14, 2}, 1).cpu(), view_of(x, {2, 3}, {14, 2}, 1));
    expect_same(view_of(d, {5}, {7}, 3).cpu(), view_of(x, {5}, {7}, 3));
  }
}

TEST(CudaDeviceTest, CopyIntoNonContiguousDeviceTensor) {
  SKIP_WITHOUT_CUDA_DEVICE();
  Tensor d = sample({4, 4}, kInt).cuda();
  Tensor host = sample({4, 4}, kInt);
  Tensor src = sample({2, 4}, kInt);
  // d[::2, :] = src, on the device and on the host, must agree.
  view_of(d, {2, 4}, {8, 1}, 0).copy_(src);
  view_of(host, {2, 4}, {8, 1}, 0).copy_(src);
  expect_same(d, host);
  // d.t() = host tensor: scattered by the strided kernel.
  Tensor src2 = sample({4, 4}, kInt);
  transposed(d).copy_(src2);
  transposed(host).copy_(src2);
  expect_same(d, host);
}

TEST(CudaDeviceTest, CopyBroadcastsAndCasts) {
  SKIP_WITHOUT_CUDA_DEVICE();
  Tensor row = sample({4}, kFloat);
  Tensor expected = empty({3, 4}, TensorOptions(kDouble));
  expected.copy_(row);  // the CPU copy_ is the reference
  // host -> device with broadcast and cast.
  Tensor d = empty({3, 4}, TensorOptions(kDouble).device(kCUDA));
  d.copy_(row);
  expect_same(d, expected);
  // device -> device with broadcast (same dtype) and with a cast.
  Tensor d2 = empty({3, 4}, TensorOptions(kDouble).device(kCUDA));
  d2.copy_(row.to(kDouble).cuda());
  expect_same(d2, expected);
  Tensor d3 = empty({3, 4}, TensorOptions(kDouble).device(kCUDA));
  d3.copy_(row.cuda());
  expect_same(d3, expected);
  // device -> host with a cast.
  Tensor h = empty({3, 4}, TensorOptions(kDouble));
  h.copy_(row.cuda());
  expect_same(h, expected);
  // to(device, dtype) casts as the CPU does, including float -> int truncation.
  Tensor f = sample({2, 3}, kFloat);
  expect_same(f.to(Device("cuda"), kInt).cpu(), f.to(kInt));
  expect_same(f.cuda().to(kHalf).cpu(), f.to(kHalf));
}

TEST(CudaDeviceTest, CopyShapeErrors) {
  SKIP_WITHOUT_CUDA_DEVICE();
  Tensor d = empty({3, 4}, TensorOptions(kFloat).device(kCUDA));
  EXPECT_EQ(error_of([&] { d.copy_(sample({3, 5}, kFloat)); }),
            "The size of tensor a (4) must match the size of tensor b (5) at non-singleton "
            "dimension 1");
  EXPECT_EQ(error_of([&] { d.copy_(sample({2, 3, 4}, kFloat)); }),
            "output with shape [3, 4] doesn't match the broadcast shape [2, 3, 4]");
}

TEST(CudaDeviceTest, FillEveryDtype) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kAllTypes) {
    Tensor d = empty({3, 5}, TensorOptions(t).device(kCUDA));
    d.fill_(Scalar(2.75));
    Tensor expected = empty({3, 5}, TensorOptions(t));
    expected.fill_(Scalar(2.75));  // the CPU kernel is the reference
    expect_same(d, expected);
    d.zero_();
    expected.zero_();
    expect_same(d, expected);
  }
  Tensor l = empty({4}, TensorOptions(kLong).device(kCUDA));
  l.fill_(Scalar(int64_t{1} << 40));
  EXPECT_EQ(l.cpu().data_ptr<int64_t>()[2], int64_t{1} << 40);
}

TEST(CudaDeviceTest, FillNonContiguousViewOnly) {
  SKIP_WITHOUT_CUDA_DEVICE();
  Tensor host = sample({4, 6}, kFloat);
  Tensor d = host.cuda();
  // Column 1 of the transposed view, and every other row.
  view_of(d, {6}, {1}, 6).fill_(Scalar(-1.5));
  view_of(d, {2, 6}, {12, 1}, 0).fill_(Scalar(7));
  view_of(host, {6}, {1}, 6).fill_(Scalar(-1.5));
  view_of(host, {2, 6}, {12, 1}, 0).fill_(Scalar(7));
  expect_same(d, host);
  // fill_ with a 0-dim tensor goes through copy_.
  transposed(d).fill_(scalar_tensor(Scalar(3), TensorOptions(kFloat)));
  host.fill_(Scalar(3));
  expect_same(d, host);
}

TEST(CudaDeviceTest, AllocatorReusesFreedBlocks) {
  SKIP_WITHOUT_CUDA_DEVICE();
  cuda::empty_cache();
  EXPECT_EQ(cuda::cached_bytes(), 0u);
  void* first;
  {
    Tensor a = empty({1 << 20}, TensorOptions(kFloat).device(kCUDA));
    first = a.data_ptr();
  }
  EXPECT_GE(cuda::cached_bytes(), size_t{4} << 20);
  Tensor b = empty({1 << 20}, TensorOptions(kFloat).device(kCUDA));
  EXPECT_EQ(b.data_ptr(), first);
  b = Tensor();
  cuda::empty_cache();
  EXPECT_EQ(cuda::cached_bytes(), 0u);
}

TEST(CudaDeviceTest, EmptyTensors) {
  SKIP_WITHOUT_CUDA_DEVICE();
  Tensor e = sample({0, 3}, kFloat).cuda();
  EXPECT_TRUE(e.is_cuda());
  EXPECT_EQ(e.numel(), 0);
  EXPECT_EQ(e.cpu().sizes(), e.sizes());
  e.fill_(Scalar(1));
}

}  // namespace
}  // namespace ember
