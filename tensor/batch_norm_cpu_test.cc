// Note [Batch norm kernels] on the CPU (batch_norm_cpu.cc): the three
// kernels against the formulas computed in double with plain ops, on shapes
// whose planes are not multiples of the kernels' eight lanes (including a
// plane of one element, [N, C]) and a batch of one; the channels-last
// kernels (Note [Channels-last batch norm]) on [N, C, H, W] with C not a
// multiple of the vector width, odd planes and N = 1, against the same
// formulas, with channels-last results that do not depend on the thread
// count.
#include <vector>

#include "gtest/gtest.h"
#include "tensor/batch_norm_kernels.h"
#include "tensor/creation.h"
#include "tensor/math.h"
#include "tensor/nn_ops.h"
#include "tensor/parallel.h"
#include "tensor/random.h"
#include "tensor/reduce.h"

namespace ember {
namespace {

const std::vector<std::vector<int64_t>> kShapes = {
    {3, 5, 7, 3}, {4, 3}, {1, 2, 1}, {2, 16, 9}, {2, 3, 64}};

// x's per-channel [C] view broadcast against [N, C, *].
Tensor per_channel(const Tensor& v, int64_t dims) {
  std::vector<int64_t> sizes(dims, 1);
  sizes[1] = v.numel();
  return v.view(sizes);
}

std::vector<int64_t> reduced_dims(int64_t dims) {
  std::vector<int64_t> d{0};
  for (int64_t i = 2; i < dims; ++i) d.push_back(i);
  return d;
}

void expect_close(const Tensor& got, const Tensor& want, double tol, const char* what) {
  ASSERT_EQ(got.sizes(), want.sizes()) << what;
  const double err = (got.to(kDouble) - want.to(kDouble)).abs().max().item<double>();
  EXPECT_LT(err, tol) << what;
}

TEST(BatchNormCpu, TrainingForwardMatchesTheFormula) {
  for (const auto& shape : kShapes) {
    manual_seed(3);
    const Tensor x = randn(shape) * 3 + 2;  // an offset mean tests the two-pass variance
    const int64_t c = shape[1], nd = static_cast<int64_t>(shape.size());
    const Tensor w = randn({c}), b = randn({c});
    Tensor rm = zeros({c}), rv = ones({c});
    auto [out, mean, invstd] = native_batch_norm(x, w, b, rm, rv, true, 0.1, 1e-5);

    const Tensor xd = x.to(kDouble);
    const auto dims = reduced_dims(nd);
    const Tensor mu = xd.mean(dims), var = xd.var(dims, /*unbiased=*/false);
    const double m = static_cast<double>(x.numel() / c);
    const Tensor want = (xd - per_channel(mu, nd)) * per_channel((var + 1e-5).rsqrt(), nd) *
                            per_channel(w.to(kDouble), nd) +
                        per_channel(b.to(kDouble), nd);
    expect_close(mean, mu, 1e-6, "mean");
    expect_close(invstd, (var + 1e-5).rsqrt(), 1e-4, "invstd");
    expect_close(out, want, 1e-4, "output");
    expect_close(rm, mu * 0.1, 1e-6, "running_mean");
    const double bessel = m > 1 ? m / (m - 1) : 1.0;
    expect_close(rv, var * (0.1 * bessel) + 0.9, 1e-5, "running_var");
  }
}

TEST(BatchNormCpu, BackwardKernelsMatchTheFormula) {
  for (const auto& shape : kShapes) {
    manual_seed(4);
    const Tensor x = randn(shape) + 1, gy = randn(shape);
    const int64_t c = shape[1], nd = static_cast<int64_t>(shape.size());
    const Tensor mean = randn({c}), k1 = randn({c}), k2 = randn({c}), k3 = randn({c});
    Tensor gsum = empty({c}), dotp = empty({c});
    detail::batch_norm_backward_reduce_kernel(kCPU)(gy, x, mean, gsum, dotp);
    const auto dims = reduced_dims(nd);
    const Tensor xd = x.to(kDouble), gd = gy.to(kDouble);
    const Tensor centered = xd - per_channel(mean.to(kDouble), nd);
    expect_close(gsum, gd.sum(dims), 1e-4, "gsum");
    expect_close(dotp, (gd * centered).sum(dims), 1e-4, "dotp");

    Tensor gx = empty(x.sizes());
    detail::batch_norm_affine_kernel(kCPU)(gy, x, k1, k2, mean, k3, gx);
    const Tensor want = gd * per_channel(k1.to(kDouble), nd) +
                        centered * per_channel(k2.to(kDouble), nd) +
                        per_channel(k3.to(kDouble), nd);
    expect_close(gx, want, 1e-5, "affine with a centered second term");
  }
}

const std::vector<std::vector<int64_t>> kChannelsLastShapes = {
    {3, 5, 7, 3}, {1, 19, 5, 7}, {4, 33, 3, 5}, {2, 64, 9, 9}, {2, 3, 1, 1}, {4, 7, 40, 50}};

Tensor channels_last(const Tensor& t) { return t.contiguous(MemoryFormat::ChannelsLast); }

TEST(BatchNormCpu, ChannelsLastTrainingForwardMatchesTheFormula) {
  const int threads = get_num_threads();
  for (const auto& shape : kChannelsLastShapes) {
    manual_seed(3);
    const Tensor x = channels_last(randn(shape) * 3 + 2);
    const int64_t c = shape[1];
    const Tensor w = randn({c}), b = randn({c});
    const bool cl = !x.is_contiguous();  // [2, 3, 1, 1] is both: the row-major kernels
    EXPECT_TRUE(detail::batch_norm_kernels_apply(x));
    EXPECT_EQ(detail::batch_norm_layout(x),
              cl ? MemoryFormat::ChannelsLast : MemoryFormat::Contiguous);
    Tensor one[3];
    for (int n : {1, 2}) {
      set_num_threads(n);
      Tensor rm = zeros({c}), rv = ones({c});
      auto [out, mean, invstd] = native_batch_norm(x, w, b, rm, rv, true, 0.1, 1e-5);
      EXPECT_TRUE(out.is_contiguous(MemoryFormat::ChannelsLast));
      const Tensor xd = x.to(kDouble).contiguous();
      const auto dims = reduced_dims(4);
      const Tensor mu = xd.mean(dims), var = xd.var(dims, /*unbiased=*/false);
      const Tensor want = (xd - per_channel(mu, 4)) * per_channel((var + 1e-5).rsqrt(), 4) *
                              per_channel(w.to(kDouble), 4) +
                          per_channel(b.to(kDouble), 4);
      expect_close(mean, mu, 1e-6, "mean");
      expect_close(invstd, (var + 1e-5).rsqrt(), 1e-4, "invstd");
      expect_close(out, want, 1e-4, "output");
      expect_close(rm, mu * 0.1, 1e-6, "running_mean");
      if (n == 1) {
        one[0] = out, one[1] = mean, one[2] = invstd;
      } else {  // fixed blocks: the same bits on two threads
        EXPECT_TRUE(equal(out, one[0]) && equal(mean, one[1]) && equal(invstd, one[2]));
      }
    }
    // Eval: the running statistics, channels-last.
    const Tensor rm = randn({c}), rv = rand({c}) + 0.5;
    auto [eval_out, m2, s2] = native_batch_norm(x, w, b, rm, rv, false, 0.1, 1e-5);
    EXPECT_TRUE(eval_out.is_contiguous(MemoryFormat::ChannelsLast));
    const Tensor want_eval = (x.to(kDouble) - per_channel(rm.to(kDouble), 4)) *
                                 per_channel((rv.to(kDouble) + 1e-5).rsqrt(), 4) *
                                 per_channel(w.to(kDouble), 4) +
                             per_channel(b.to(kDouble), 4);
    expect_close(eval_out, want_eval, 1e-4, "eval output");
  }
  set_num_threads(threads);
}

TEST(BatchNormCpu, ChannelsLastBackwardKernelsMatchTheFormula) {
  for (const auto& shape : kChannelsLastShapes) {
    for (ScalarType type : {kFloat, kDouble}) {
      manual_seed(4);
      const Tensor x = channels_last((randn(shape) + 1).to(type)),
                   gy = channels_last(randn(shape).to(type));
      const int64_t c = shape[1];
      const Tensor mean = randn({c}).to(type), k1 = randn({c}).to(type), k2 = randn({c}).to(type),
                   k3 = randn({c}).to(type);
      const TensorOptions opt(type);
      Tensor gsum = empty({c}, opt), dotp = empty({c}, opt);
      detail::batch_norm_backward_reduce_kernel(kCPU)(gy, x, mean, gsum, dotp);
      const auto dims = reduced_dims(4);
      const Tensor xd = x.to(kDouble), gd = gy.to(kDouble);
      const Tensor centered = xd - per_channel(mean.to(kDouble), 4);
      const double tol = type == kDouble ? 1e-10 : 1e-4;
      expect_close(gsum, gd.sum(dims), tol, "gsum");
      expect_close(dotp, (gd * centered).sum(dims), tol, "dotp");

      Tensor gx = empty(x.sizes(), opt.memory_format(detail::batch_norm_layout(x)));
      detail::batch_norm_affine_kernel(kCPU)(gy, x, k1, k2, mean, k3, gx);
      const Tensor want = gd * per_channel(k1.to(kDouble), 4) +
                          centered * per_channel(k2.to(kDouble), 4) +
                          per_channel(k3.to(kDouble), 4);
      expect_close(gx, want, type == kDouble ? 1e-12 : 1e-5, "affine, channels-last");
    }
  }
}

// A half/bfloat16 CPU input keeps the composed path (the kernels take float
// and double), and its output keeps the input's dtype.
TEST(BatchNormCpu, ReducedPrecisionTakesTheComposedPath) {
  const Tensor x = randn({2, 3, 5}).to(kBFloat16);
  EXPECT_FALSE(detail::batch_norm_kernels_apply(x));
  EXPECT_TRUE(detail::batch_norm_kernels_apply(randn({2, 3, 5})));
  EXPECT_TRUE(detail::batch_norm_kernels_apply(randn({2, 3, 5}).to(kDouble)));
  auto [out, mean, invstd] =
      native_batch_norm(x, ones({3}), zeros({3}), Tensor(), Tensor(), true, 0.1, 1e-5);
  EXPECT_EQ(out.dtype(), kBFloat16);
}

}  // namespace
}  // namespace ember
