// Issue 17's end state: no op leaves the device. Every op family that once
// went through Note [CPU fallback] (tensor/fallback.h) runs here on CUDA,
// and afterwards the process's list of fallen-back ops must be empty; the
// failure names each op that fell back. Needs a GPU, skips without one.
// (//tensor:device_guard_test checks the fallback itself, on the fake
// backend, which links no kernels.)

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "tensor/all.h"
#include "tensor/cuda/ops_testing.h"
#include "tensor/fallback.h"

namespace ember {
namespace {

using namespace ::ember::cuda_testing;  // NOLINT
using namespace ::ember::indexing;      // NOLINT

TEST(NoFallbackTest, EveryOpStaysOnTheDevice) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const Tensor x = values({4, 5, 6}, kFloat).to(kCuda);
  const Tensor m = values({5, 6}, kFloat).to(kCuda);
  const Tensor idx = tensor({int64_t{0}, 3, 1}).to(kCuda);
  const Tensor mask = x > 0;
  const Tensor img = values({2, 3, 8, 8}, kFloat).to(kCuda);
  const Tensor a = (values({2, 3, 3}, kDouble) + eye(3, TensorOptions(kDouble)) * 4).to(kCuda);
  const Tensor spd = a.matmul(a.mT());
  const Tensor b = values({2, 3, 2}, kDouble).to(kCuda);
  const std::vector<std::function<void()>> ops = {
      // indexing
      [&] { x.index({idx}); },
      [&] {
        x.index({Slice(), idx});
      },
      [&] { x.index({mask}); },
      [&] {
        Tensor y = x.clone();
        index_put_(y, {idx}, zeros({3, 5, 6}).to(kCuda), /*accumulate=*/true);
      },
      [&] { x.clone().index_put_({mask}, 1.5); },
      [&] {
        gather(m, 1, idx.view({1, 3}).expand({5, 3}));
      },
      [&] {
        m.clone().scatter_add_(0, idx.view({3, 1}).expand({3, 6}), m.narrow(0, 0, 3));
      },
      [&] { index_select(m, 0, idx); },
      [&] { m.clone().index_add_(0, idx, m.narrow(0, 0, 3)); },
      [&] { take(m, idx); },
      [&] {
        put(m, idx, tensor({1.0f, 2.0f, 3.0f}).to(kCuda));
      },
      [&] { m.tril(); },
      // selection and sorting
      [&] { nonzero(mask); },
      [&] { where(mask); },
      [&] { masked_select(x, mask); },
      [&] { x.clone().masked_scatter_(mask, x * 2); },
      [&] { sort(x, 1); },
      [&] { argsort(x, 2, true); },
      [&] { topk(x, 2); },
      [&] { kthvalue(x, 2, 1); },
      [&] { unique(x.round()); },
      [&] { median(x, 1); },
      [&] { quantile(m, 0.3, 1); },
      [&] { mode(x.round(), 1); },
      [&] { histc(m, 7); },
      [&] { cummax(x, 1); },
      [&] { logcumsumexp(x, 2); },
      [&] { searchsorted(std::get<0>(m.sort(1)), m); },
      [&] { bincount(idx); },
      // reductions by index
      [&] {
        scatter_reduce(m, 0, idx.view({3, 1}).expand({3, 6}), m, "amax");
      },
      [&] { index_reduce(m, 0, idx, m.narrow(0, 0, 3), "prod"); },
      // nn ops
      [&] {
        avg_pool2d(img, {2, 2});
      },
      [&] {
        adaptive_avg_pool2d(img, {3, 3});
      },
      [&] {
        adaptive_avg_pool2d_backward(ones({2, 3, 3, 3}).to(kCuda), img.sizes());
      },
      [&] { embedding(m, idx); },
      [&] {
        embedding_backward(ones({3, 6}).to(kCuda), idx, 5, -1);
      },
      // random numbers
      [&] { rand_like(x); },
      [&] { x.clone().bernoulli_(0.3); },
      [&] { multinomial(m.abs() + 0.1, 4, /*replacement=*/true); },
      [&] { multinomial(m.abs() + 0.1, 4, /*replacement=*/false); },
      [&] { poisson(m.abs()); },
      [&] { binomial(m.abs().round(), full_like(m, 0.25)); },
      [&] { randperm(9, TensorOptions(kLong).device(kCuda)); },
      // linear algebra
      [&] { linalg_inv(a); },
      [&] { linalg_det(a); },
      [&] { linalg_solve(a, b); },
      [&] { linalg_cholesky(spd); },
      [&] { triangular_solve(b, a.triu()); },
      [&] { linalg_lu_factor(a); },
      [&] {
        auto [LU, piv] = linalg_lu_factor(a);
        linalg_lu_solve(LU, piv, b);
      },
      [&] { linalg_qr(a); },
      [&] { linalg_eigh(spd); },
      [&] { linalg_svd(a); },
      [&] { linalg_lstsq(a, b); },
  };
  for (const auto& op : ops) op();
  cuda::synchronize();
  const std::vector<std::string> fell_back = detail::fallen_back_ops();
  EXPECT_TRUE(fell_back.empty()) << "ops that fell back to the CPU: "
                                 << absl::StrJoin(fell_back, ", ");
}

}  // namespace
}  // namespace ember
