// A CUDA tensor must never reach a CPU loop, which would read device memory
// on the host: an op either runs the kernel its table holds for the device
// (else an error names the backend) or falls back to the CPU with copies
// (Note [CPU fallback]). With the host-backed fake backend
// (tensor/testing/fake_cuda.h) and no CUDA kernels linked, table ops must
// throw, and fallback ops must return on the device what the CPU op
// returns; an op that ran its CPU loop on "device" memory would do neither
// test's bidding. This target must not link //tensor/cuda.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "tensor/creation.h"
#include "tensor/indexing.h"
#include "tensor/linalg.h"
#include "tensor/linalg_factor.h"
#include "tensor/linalg_more.h"
#include "tensor/linalg_spectral.h"
#include "tensor/math.h"
#include "tensor/nn_ops.h"
#include "tensor/quantize.h"
#include "tensor/random.h"
#include "tensor/reduce.h"
#include "tensor/reduce_ops.h"
#include "tensor/selection.h"
#include "tensor/shape.h"
#include "tensor/sort_ops.h"
#include "tensor/testing/fake_cuda.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using ::ember::testing::error_of;

struct Case {
  const char* name;
  std::function<void()> run;
};

class DeviceGuardTest : public ::testing::Test {
 protected:
  Tensor dev(const Tensor& cpu) { return cpu.to(Device(kCUDA, 0)); }
  testing::FakeCudaBackend backend_;
};

// The first fallback of each op says so on stderr, once per process.
// (First in this file: the other tests' fallbacks would warn first.)
TEST_F(DeviceGuardTest, FallbackWarnsOncePerOp) {
  Tensor m = dev(arange(6, TensorOptions(kFloat)).view({2, 3}));
  ::testing::internal::CaptureStderr();
  nonzero(m);
  nonzero(m);
  topk(m, 1);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(err,
            "UserWarning: The operator 'nonzero' is not currently implemented for the CUDA "
            "backend; it falls back to run on the CPU, copying its inputs there and its results "
            "back. This may have performance implications.\n"
            "UserWarning: The operator 'topk' is not currently implemented for the CUDA "
            "backend; it falls back to run on the CPU, copying its inputs there and its results "
            "back. This may have performance implications.\n");
}

// Table ops without a CUDA entry: an error that names the backend.
TEST_F(DeviceGuardTest, TableOpsWithoutACudaKernelSayWhich) {
  Tensor x = dev(arange(24, TensorOptions(kFloat)).view({2, 3, 4}));
  Tensor img = dev(arange(2 * 3 * 4 * 4, TensorOptions(kFloat)).view({2, 3, 4, 4}));
  Tensor mask = dev(ones({2, 3, 4}, TensorOptions(kBool)));
  Tensor idx = dev(tensor({int64_t{0}, 2, 1}));
  Tensor ch = dev(ones({3}, TensorOptions(kFloat)));
  Tensor m = dev(arange(12, TensorOptions(kFloat)).view({3, 4}));
  Tensor idx3 = dev(tensor({{{int64_t{0}, 1, 2, 0}, {2, 2, 1, 0}}, {{1, 0, 0, 2}, {0, 1, 2, 1}}}));
  const std::vector<Case> cases = {
      {"add", [&] { x + x; }},
      {"floor", [&] { x.floor(); }},
      {"erf", [&] { x.erf(); }},
      {"pow", [&] { x.pow(2); }},
      {"atan2", [&] { atan2(x, x); }},
      {"fmod", [&] { fmod(x, 2); }},
      {"clamp", [&] { clamp(x, 0, 1); }},
      {"isnan", [&] { isnan(x); }},
      {"equal", [&] { equal(x, x); }},
      {"logical_and", [&] { logical_and(x, x); }},
      {"bitwise_and", [&] { bitwise_and(idx, idx); }},
      {"where", [&] { where(mask, x, x); }},
      {"masked_fill", [&] { masked_fill(x, mask, 0.5); }},
      {"sum", [&] { sum(x); }},
      {"var", [&] { var(x); }},
      {"cumsum", [&] { cumsum(x, 1); }},
      {"argmax", [&] { argmax(x); }},
      {"mm", [&] { mm(x[0], x[0].t()); }},
      {"convolution",
       [&] {
         convolution(img, dev(ones({2, 3, 3, 3})), {}, {1, 1}, {0, 0}, {1, 1}, 1);
       }},
      {"max_pool2d",
       [&] {
         max_pool2d_with_indices(img, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false);
       }},
      {"gelu", [&] { gelu(x); }},
      {"batch_norm", [&] { native_batch_norm(img, ch, ch, {}, {}, true, 0.1, 1e-5); }},
      {"layer_norm", [&] { native_layer_norm(x, {4}, {}, {}, 1e-5); }},
      {"mse_loss", [&] { mse_loss(x, x, loss_reduction::kMean); }},
      {"bce_with_logits",
       [&] { binary_cross_entropy_with_logits(x, x, {}, {}, loss_reduction::kMean); }},
      // Random fills (Note [Device random numbers], tensor/random.cc).
      {"rand", [&] { rand({5}, x.options()); }},
      {"randn", [&] { randn({20}, x.options()); }},
      {"normal", [&] { normal(1, 2, {20}, x.options()); }},
      {"randint", [&] { randint(9, {5}, idx.options()); }},
      {"randperm", [&] { randperm(6, idx.options()); }},
      {"rand_like", [&] { rand_like(x); }},
      {"uniform_", [&] { x.uniform_(-2, 2); }},
      {"normal_", [&] { x.normal_(1, 3); }},
      {"bernoulli_", [&] { x.bernoulli_(0.3); }},
      {"bernoulli_tensor", [&] { x.bernoulli_(x); }},
      {"bernoulli", [&] { x.bernoulli(); }},
      {"random_", [&] { idx.random_(0, 7); }},
      {"exponential_", [&] { x.exponential_(2); }},
      {"cauchy_", [&] { x.cauchy_(); }},
      {"log_normal_", [&] { x.log_normal_(); }},
      {"geometric_", [&] { x.geometric_(0.4); }},
      {"geometric_long", [&] { idx.clone().geometric_(0.4); }},
      {"uniform_cuda_generator", [&] { uniform_(x, 0, 1, Generator(Device(kCUDA, 0), 5)); }},
      // The index-tensor ops and tril/triu (tensor/index_kernels.h).
      {"take", [&] { take(x, idx3); }},
      {"gather", [&] { gather(x, 1, idx3); }},
      {"scatter", [&] { scatter(x, 1, idx3, x); }},
      {"scatter_value", [&] { scatter(x, 1, idx3, 7.5); }},
      {"scatter_add", [&] { scatter_add(x, 1, idx3, x); }},
      {"index_select", [&] { index_select(x, 1, idx); }},
      {"index_add_", [&] { m.clone().index_add_(0, idx, m, 2); }},
      {"index_fill_", [&] { m.clone().index_fill_(1, idx, -1); }},
      {"index_copy_", [&] { m.clone().index_copy_(0, idx, m); }},
      {"tril", [&] { tril(m, -1); }},
      {"triu", [&] { triu(m, 1); }},
      {"embedding", [&] { embedding(m, idx3); }},
      {"embedding_backward",
       [&] {
         embedding_backward(dev(ones({2, 2, 4, 4})), idx3, 3, -1);
       }},
      {"avg_pool2d",
       [&] {
         avg_pool2d(img, {2, 2}, {2, 2}, {1, 1}, true, false, std::nullopt);
       }},
      {"avg_pool2d_backward",
       [&] {
         avg_pool2d_backward(dev(ones({2, 3, 2, 2})), {2, 3, 4, 4}, {2, 2}, {2, 2}, {0, 0}, false,
                             true, std::nullopt);
       }},
      {"adaptive_avg_pool2d",
       [&] {
         adaptive_avg_pool2d(img, {3, 2});
       }},
      {"adaptive_avg_pool2d_backward",
       [&] {
         adaptive_avg_pool2d_backward(dev(ones({2, 3, 3, 2})), {2, 3, 4, 4});
       }},
  };
  for (const Case& c : cases) {
    EXPECT_THAT(error_of(c.run), ::testing::HasSubstr("'CUDA' backend")) << c.name;
  }
}

// A device tensor draws from a generator of its device type, as in PyTorch;
// the argument checks run before any kernel is looked up.
TEST_F(DeviceGuardTest, RandomFillsCheckTheirArgumentsOnTheDevice) {
  Tensor x = dev(zeros({4}, TensorOptions(kFloat)));
  Tensor i8 = dev(zeros({4}, TensorOptions(kChar)));
  EXPECT_EQ(error_of([&] { uniform_(x, 0, 1, Generator(5)); }),
            "Expected a 'cuda' device type for generator but found 'cpu'");
  EXPECT_EQ(error_of([&] { x.uniform_(1, 0); }),
            "uniform_ expects to return a [from, to) range, but found from=1 > to=0");
  EXPECT_EQ(error_of([&] { x.normal_(0, -1); }), "normal expects std >= 0.0, but found std -1");
  EXPECT_EQ(error_of([&] { x.bernoulli_(1.5); }),
            "bernoulli_ expects p to be in [0, 1], but got p=1.5");
  EXPECT_EQ(error_of([&] { i8.random_(-200, 0); }), "from is out of bounds for signed char");
  EXPECT_EQ(error_of([&] { i8.normal_(); }), "\"normal_kernel_cuda\" not implemented for 'Char'");
}

// An op computed from inputs placed by `on` (the CPU, or the fake device).
struct FallbackCase {
  const char* name;
  std::function<Tensor(const std::function<Tensor(const Tensor&)>& on)> run;
};

// Each case, with its inputs on the fake device, returns there exactly what
// it returns on the CPU.
void expect_device_matches_cpu(const std::vector<FallbackCase>& cases) {
  for (const FallbackCase& c : cases) {
    SCOPED_TRACE(c.name);
    const Tensor want = c.run([](const Tensor& t) { return t; });
    Tensor got;
    ASSERT_EQ(error_of([&] { got = c.run([](const Tensor& t) { return t.to(Device(kCUDA, 0)); }); }),
              "(no error)");
    EXPECT_EQ(got.device(), Device(kCUDA, 0));
    EXPECT_TRUE(equal(got.to(Device(kCPU)), want));
  }
}

// Ops whose loops run on the host: on the device they return, on the
// device, exactly what they return on the CPU. (sort, argsort, topk,
// kthvalue, nonzero, where(cond), masked_select and masked_scatter_ have
// CUDA kernels in //tensor/cuda, tensor/sort_kernels.h's tables, which this
// target does not link: here they still fall back.)
TEST_F(DeviceGuardTest, HostLoopOpsFallBackToTheCpu) {
  const Tensor x = arange(24, TensorOptions(kFloat)).view({2, 3, 4}).sin();
  const Tensor m = arange(12, TensorOptions(kFloat)).view({3, 4}).cos();
  const Tensor idx = tensor({int64_t{0}, 2, 1});
  const Tensor rep = tensor({int64_t{2}, 0, 2});
  const Tensor mask = x > 0.2;
  using On = std::function<Tensor(const Tensor&)>;
  const std::vector<FallbackCase> cases = {
      {"where(cond)", [&](const On& on) { return stack(where(on(mask))); }},
      {"nonzero", [&](const On& on) { return nonzero(on(mask)); }},
      {"masked_select", [&](const On& on) { return masked_select(on(x), on(mask)); }},
      {"masked_scatter_", [&](const On& on) { Tensor y = on(x).clone(); return y.masked_scatter_(on(mask), on(x * 2)); }},
      {"sort", [&](const On& on) { auto [v, i] = sort(on(x), 1, true); return cat({v, i.to(kFloat)}); }},
      {"argsort", [&](const On& on) { return argsort(on(x), 2); }},
      {"topk", [&](const On& on) { auto [v, i] = topk(on(x), 2); return cat({v, i.to(kFloat)}); }},
      {"kthvalue", [&](const On& on) { auto [v, i] = kthvalue(on(x), 2, 1); return cat({v, i.to(kFloat)}); }},
      {"index", [&](const On& on) { return on(m).index({on(idx)}); }},
      {"index_cpu_indices", [&](const On& on) { return on(m).index({indexing::Slice(), idx}); }},
      {"index_mask", [&](const On& on) { return on(x).index({on(mask)}); }},
      {"index_put_", [&](const On& on) { Tensor y = on(m).clone(); return y.index_put_({on(idx)}, 1.5); }},
      {"index_put_tensor", [&](const On& on) { Tensor y = on(m).clone(); return y.index_put_({on(idx)}, on(m * 2)); }},
      {"index_put_accumulate", [&](const On& on) { Tensor y = on(m).clone(); return index_put_(y, {on(rep)}, on(m), true); }},
  };
  expect_device_matches_cpu(cases);
}

// The fallback keeps PyTorch's device rules: inputs on two devices are an
// error, and a CPU tensor cannot be indexed by device indices.
TEST_F(DeviceGuardTest, FallbackOpsRejectMixedDevices) {
  Tensor m = arange(12, TensorOptions(kFloat)).view({3, 4});
  Tensor idx = tensor({int64_t{0}, 2});
  EXPECT_EQ(error_of([&] { index_select(dev(m), 0, idx); }),
            "Expected all tensors to be on the same device, but found at least two devices, "
            "cuda:0 and cpu!");
  EXPECT_EQ(error_of([&] { m.index({dev(idx)}); }),
            "indices should be either on cpu or on the same device as the indexed tensor (cpu)");
}

// tensor/sort_ops.h's CPU kernels give on the device what they give on
// the CPU. (mode and histc have CUDA kernels, tensor/cuda/mode_histc.cu;
// the fake backend links none, so here they fall back.)
TEST_F(DeviceGuardTest, SortOpsFallBackToTheCpu) {
  const Tensor x = arange(24, TensorOptions(kFloat)).view({2, 3, 4}).sin();
  const Tensor m = arange(12, TensorOptions(kFloat)).view({3, 4}).cos();
  using On = std::function<Tensor(const Tensor&)>;
  auto both = [](const std::tuple<Tensor, Tensor>& r) {
    return cat({std::get<0>(r), std::get<1>(r).to(kFloat)});
  };
  const std::vector<FallbackCase> sort_ops = {
      {"mode", [&](const On& on) { return both(mode(on(x.round()), 1)); }},
      {"cummax", [&](const On& on) { return both(cummax(on(x), 2)); }},
      {"cummin", [&](const On& on) { return both(cummin(on(x), 1)); }},
      {"logcumsumexp", [&](const On& on) { return logcumsumexp(on(x), 1); }},
      {"histc", [&](const On& on) { return histc(on(m), 5); }},
      {"searchsorted",
       [&](const On& on) {
         return searchsorted(on(std::get<0>(m.flatten().sort(0))), on(x)).to(kFloat);
       }},
  };
  expect_device_matches_cpu(sort_ops);
}

// scatter_reduce_ / index_reduce_ (tensor/reduce_ops.h): CUDA kernels in
// tensor/cuda/scatter_reduce.cu, none in the fake backend, so the CPU's
// loop runs on host copies and the result lands on the device.
TEST_F(DeviceGuardTest, ReduceOpsFallBackToTheCpu) {
  const Tensor m = arange(12, TensorOptions(kFloat)).view({3, 4}).cos();
  const Tensor idx = tensor({{int64_t{0}, 2, 0, 1}, {2, 2, 1, 0}});
  const Tensor rows = tensor({int64_t{2}, 0, 2});
  using On = std::function<Tensor(const Tensor&)>;
  const std::vector<FallbackCase> cases = {
      {"scatter_reduce",
       [&](const On& on) { return scatter_reduce(on(m), 0, on(idx), on(m), "amax", false); }},
      {"index_reduce",
       [&](const On& on) { return index_reduce(on(m), 0, on(rows), on(m), "prod"); }},
  };
  expect_device_matches_cpu(cases);
}

// The LAPACK-backed linalg ops on a device without entries in
// tensor/lapack_kernels.h's tables (the fake backend links no cuSOLVER)
// reach the CPU through the fallback, with its results on the device.
TEST_F(DeviceGuardTest, LapackOpsFallBackToTheCpu) {
  const Tensor a = (arange(18, TensorOptions(kDouble)).view({2, 3, 3}).sin() +
                    eye(3, TensorOptions(kDouble)) * 3);
  const Tensor b = arange(12, TensorOptions(kDouble)).view({2, 3, 2}).cos();
  const Tensor spd = a.matmul(a.mT());
  const Tensor L = std::get<0>(linalg_lu_factor(a));
  const Tensor piv = std::get<1>(linalg_lu_factor(a));
  using On = std::function<Tensor(const Tensor&)>;
  const std::vector<FallbackCase> cases = {
      {"linalg_inv", [&](const On& on) { return linalg_inv(on(a)); }},
      {"linalg_det", [&](const On& on) { return linalg_det(on(a)); }},
      {"linalg_slogdet", [&](const On& on) { return std::get<1>(linalg_slogdet(on(a))); }},
      {"linalg_solve", [&](const On& on) { return linalg_solve(on(a), on(b)); }},
      {"linalg_lu_factor", [&](const On& on) { return std::get<0>(linalg_lu_factor(on(a))); }},
      {"linalg_lu_factor_pivots",
       [&](const On& on) { return std::get<1>(linalg_lu_factor(on(a))).to(kDouble); }},
      {"linalg_lu_solve", [&](const On& on) { return linalg_lu_solve(on(L), on(piv), on(b)); }},
      {"triangular_solve",
       [&](const On& on) { return std::get<0>(triangular_solve(on(b), on(a))); }},
      {"cholesky_solve", [&](const On& on) { return cholesky_solve(on(b), on(spd)); }},
      {"linalg_eigvalsh", [&](const On& on) { return linalg_eigvalsh(on(spd)); }},
      {"linalg_eigh", [&](const On& on) { return std::get<1>(linalg_eigh(on(spd))); }},
      {"geqrf", [&](const On& on) { return std::get<0>(geqrf(on(a))); }},
      {"householder_product",
       [&](const On& on) { return linalg_householder_product(on(a), on(b.select(-1, 0))); }},
      {"ormqr", [&](const On& on) { return ormqr(on(a), on(b.select(-1, 0)), on(b)); }},
      {"linalg_svdvals", [&](const On& on) { return linalg_svdvals(on(b)); }},
      // A non-CPU input takes PyTorch's CUDA default driver, gels.
      {"linalg_lstsq",
       [&](const On& on) {
         return std::get<0>(
             linalg_lstsq(on(b), on(a), std::nullopt,
                          on(a).is_cpu() ? "gels" : std::optional<std::string_view>()));
       }},
  };
  expect_device_matches_cpu(cases);
}

}  // namespace
}  // namespace ember
