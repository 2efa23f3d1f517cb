// The CUDA compute kernels (Note [CUDA compute kernels]) against the CPU
// kernels on the same inputs: elementwise math over dtypes and layouts,
// casts, reductions, matrix products, and the errors for what CUDA does not
// run. Every test needs a GPU and skips without one.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "tensor/all.h"
#include "tensor/cuda/cuda.h"
#include "tensor/cuda/ops_testing.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using ::ember::testing::error_of;
using namespace ::ember::indexing;  // NOLINT

using namespace ::ember::cuda_testing;  // NOLINT

TEST(CudaOpsTest, ArithmeticEveryNumericDtype) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kNumeric) {
    SCOPED_TRACE(scalar_type_name(t));
    Tensor a = values({37, 5}, t), b = values({37, 5}, t, 4);
    Tensor da = a.to(kCuda), db = b.to(kCuda);
    const double tol = rtol_for(t);
    expect_matches(da + db, a + b, tol, tol);
    expect_matches(da - db, a - b, tol, tol);
    expect_matches(da * db, a * b, tol, tol);
    expect_matches(add(da, db, 3), add(a, b, 3), tol, tol);
    expect_matches(maximum(da, db), maximum(a, b));
    expect_matches(minimum(da, db), minimum(a, b));
    expect_matches(da.lt(db), a.lt(b));
    expect_matches(da.ge(db), a.ge(b));
    expect_matches(da.eq(db), a.eq(b));
    if (is_floating_point(t)) expect_matches(da / db, a / b, tol, tol);
  }
}

TEST(CudaOpsTest, BoolArithmeticAndComparisons) {
  SKIP_WITHOUT_CUDA_DEVICE();
  Tensor a = values({64}, kBool), b = values({3, 64}, kBool);
  Tensor da = a.to(kCuda), db = b.to(kCuda);
  expect_matches(da + db, a + b);
  expect_matches(da * db, a * b);
  expect_matches(da.ne(db), a.ne(b));
  expect_matches(maximum(da, db), maximum(a, b));
}

TEST(CudaOpsTest, BroadcastTransposedAndSlicedOperands) {
  SKIP_WITHOUT_CUDA_DEVICE();
  Tensor a = values({6, 40}, kFloat), row = values({40}, kFloat), col = values({6, 1}, kFloat);
  Tensor da = a.to(kCuda);
  expect_matches(da + row.to(kCuda), a + row);
  expect_matches(da * col.to(kCuda), a * col);
  expect_matches(da.t() - a.t().contiguous().to(kCuda), a.t() - a.t().contiguous());
  Tensor s = a.index({Slice(1, None, 2), Slice(None, None, 3)});
  Tensor ds = da.index({Slice(1, None, 2), Slice(None, None, 3)});
  expect_matches(ds * ds.exp(), s * s.exp(), 1e-5, 1e-5);
  // A 3-d broadcast whose dims do not coalesce.
  Tensor x = values({4, 1, 7}, kDouble), y = values({1, 5, 7}, kDouble);
  expect_matches(x.to(kCuda) / y.to(kCuda), x / y, 1e-12, 1e-12);
}

TEST(CudaOpsTest, NumbersAndCpuScalarTensors) {
  SKIP_WITHOUT_CUDA_DEVICE();
  Tensor a = values({100}, kFloat);
  Tensor da = a.to(kCuda);
  expect_matches(da * 2.5, a * 2.5);
  expect_matches(2.5 - da, 2.5 - a);
  expect_matches(da + tensor(3.0), a + tensor(3.0));  // a 0-dim CPU tensor
  // int tensor * float number promotes to the default float dtype.
  Tensor i = values({50}, kInt);
  expect_matches(i.to(kCuda) * 0.5, i * 0.5);
  EXPECT_TRUE((i.to(kCuda) * 0.5).is_cuda());
}

TEST(CudaOpsTest, InPlaceOnNonContiguousView) {
  SKIP_WITHOUT_CUDA_DEVICE();
  Tensor a = values({8, 9}, kDouble), b = values({9, 8}, kDouble);
  Tensor da = a.to(kCuda);
  Tensor va = a.t(), vda = da.t();
  va.add_(b, 2);
  vda.add_(b.to(kCuda), 2);
  expect_matches(da, a, 1e-12, 1e-12);
  // int8 += int16 computes in int16 and casts back (a temporary output).
  Tensor c = values({30}, kChar), d = values({30}, kShort);
  Tensor dc = c.to(kCuda);
  c.add_(d);
  dc.add_(d.to(kCuda));
  expect_matches(dc, c);
}

TEST(CudaOpsTest, UnaryFloatingFunctions) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kFloating) {
    SCOPED_TRACE(scalar_type_name(t));
    Tensor a = values({257}, t, 3), pos = values({257}, t, 3).abs() + 0.1;
    Tensor da = a.to(kCuda), dpos = pos.to(kCuda);
    const double tol = std::max(rtol_for(t), 1e-6);
    expect_matches(-da, -a);
    expect_matches(da.abs(), a.abs());
    expect_matches(dpos.sqrt(), pos.sqrt(), tol, tol);
    expect_matches(dpos.rsqrt(), pos.rsqrt(), tol, tol);
    expect_matches(da.exp(), a.exp(), tol, tol);
    expect_matches(dpos.log(), pos.log(), tol, tol);
    expect_matches(dpos.log1p(), pos.log1p(), tol, tol);
    expect_matches(da.sin(), a.sin(), tol, tol);
    expect_matches(da.cos(), a.cos(), tol, tol);
    expect_matches(da.tanh(), a.tanh(), tol, tol);
    expect_matches(da.sigmoid(), a.sigmoid(), tol, tol);
    expect_matches(dpos.reciprocal(), pos.reciprocal(), tol, tol);
    expect_matches(da.relu(), a.relu());
    expect_matches(da.clamp_max(1), a.clamp_max(1));
  }
}

TEST(CudaOpsTest, IntegerInputsOfFloatingFunctionsPromote) {
  SKIP_WITHOUT_CUDA_DEVICE();
  Tensor i = values({40}, kLong).abs();
  Tensor r = i.to(kCuda).sqrt();
  EXPECT_EQ(r.dtype(), kFloat);
  expect_matches(r, i.sqrt(), 1e-6, 1e-6);
  expect_matches(i.to(kCuda).neg(), i.neg());
  expect_matches(i.to(kCuda).relu(), i.relu());
}

TEST(CudaOpsTest, OptimizerPointwiseOps) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : {kFloat, kDouble}) {
    SCOPED_TRACE(scalar_type_name(t));
    Tensor a = values({5, 9}, t, 1), b = values({5, 9}, t, 2), c = values({9}, t, 2).abs() + 0.5;
    Tensor da = a.to(kCuda), db = b.to(kCuda), dc = c.to(kCuda);
    const double tol = rtol_for(t);
    expect_matches(da.lerp(db, 0.3), a.lerp(b, 0.3), tol, tol);
    expect_matches(da.lerp(db, 0.9), a.lerp(b, 0.9), tol, tol);
    expect_matches(da.addcmul(db, dc, -0.5), a.addcmul(b, c, -0.5), tol, tol);
    expect_matches(da.addcdiv(db, dc, 2), a.addcdiv(b, c, 2), tol, tol);
  }
  Tensor i = values({7}, kLong), j = values({7}, kLong);
  expect_matches(i.to(kCuda).addcmul(j.to(kCuda), j.to(kCuda), 2), i.addcmul(j, j, 2));
}

TEST(CudaOpsTest, NanPropagation) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor a = tensor({1.0, nan, 3.0, -nan}), b = tensor({nan, 2.0, 1.0, 0.0});
  expect_matches(maximum(a.to(kCuda), b.to(kCuda)), maximum(a, b));
  expect_matches(minimum(a.to(kCuda), b.to(kCuda)), minimum(a, b));
  expect_matches(a.to(kCuda).relu(), a.relu());
  expect_matches(a.to(kCuda).amax(), a.amax());
}

TEST(CudaOpsTest, CastEveryPair) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const ScalarType all[] = {kBool, kByte,  kChar,     kShort, kInt,
                            kLong, kHalf, kBFloat16, kFloat, kDouble};
  for (ScalarType from : all) {
    Tensor a = values({3, 33}, from, 100);
    Tensor da = a.to(kCuda);
    for (ScalarType to : all) {
      SCOPED_TRACE(std::string(scalar_type_name(from)) + " -> " + scalar_type_name(to));
      expect_matches(da.to(to), a.to(to), 0, 0);
      expect_matches(da.t().to(to), a.t().to(to), 0, 0);  // a strided source
    }
  }
}

TEST(CudaOpsTest, FullReductions) {
  SKIP_WITHOUT_CUDA_DEVICE();
  // Big enough to be split over many blocks and combined in a second pass.
  Tensor a = values({3000, 1234}, kFloat, 1);
  Tensor da = a.to(kCuda);
  expect_matches(da.sum(), a.sum(), 1e-6, 1e-3);
  expect_matches(da.mean(), a.mean(), 1e-6, 1e-6);
  expect_matches(da.amax(), a.amax(), 0, 0);
  expect_matches(da.amin(), a.amin(), 0, 0);
  Tensor small = values({20}, kDouble, 1.5);
  expect_matches(small.to(kCuda).prod(), small.prod(), 1e-12, 0);
  Tensor i = values({1000}, kInt);
  expect_matches(i.to(kCuda).sum(), i.sum());  // int64
  Tensor flags = values({999}, kBool);
  expect_matches(flags.to(kCuda).sum(), flags.sum());
  expect_matches(flags.to(kCuda).all(), flags.all());
  expect_matches(flags.to(kCuda).any(), flags.any());
  expect_matches(count_nonzero(i.to(kCuda)), count_nonzero(i));
}

TEST(CudaOpsTest, ReductionsAlongDims) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : {kFloat, kDouble, kHalf, kLong}) {
    SCOPED_TRACE(scalar_type_name(t));
    Tensor a = values({7, 13, 11}, t, 2);
    Tensor da = a.to(kCuda);
    const double tol = std::max(rtol_for(t), 1e-6);
    for (std::vector<int64_t> dims : std::vector<std::vector<int64_t>>{
             {0}, {1}, {2}, {0, 2}, {1, 2}, {-1, 0}}) {
      for (bool keepdim : {false, true}) {
        expect_matches(da.sum(dims, keepdim), a.sum(dims, keepdim), tol, tol);
        expect_matches(da.amax(dims, keepdim), a.amax(dims, keepdim), 0, 0);
      }
    }
    if (is_floating_point(t)) expect_matches(da.mean({1}), a.mean({1}), tol, tol);
    // A transposed input: the reduced dim is strided.
    expect_matches(da.transpose(0, 2).sum({0}), a.transpose(0, 2).sum({0}), tol, tol);
    expect_matches(da.prod(1), a.prod(1), tol, tol);
  }
  Tensor u = values({5, 6}, kByte);
  expect_matches(u.to(kCuda).all(1), u.all(1));  // uint8 in, uint8 out
  expect_matches(u.to(kCuda).any(0, true), u.any(0, true));
}

TEST(CudaOpsTest, MaxMinWithIndicesAndArgmax) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : {kFloat, kDouble, kHalf, kInt}) {
    SCOPED_TRACE(scalar_type_name(t));
    Tensor a = values({6, 300, 5}, t, 3);  // small range: many ties, first index wins
    Tensor da = a.to(kCuda);
    for (int64_t dim : {0, 1, 2}) {
      auto [v, i] = a.max(dim);
      auto [dv, di] = da.max(dim);
      expect_matches(dv, v, 0, 0);
      expect_matches(di, i);
      auto [v2, i2] = a.min(dim, true);
      auto [dv2, di2] = da.min(dim, true);
      expect_matches(dv2, v2, 0, 0);
      expect_matches(di2, i2);
      expect_matches(da.argmax(dim), a.argmax(dim));
      expect_matches(da.argmin(dim, true), a.argmin(dim, true));
    }
    expect_matches(da.argmax(), a.argmax());
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor n = tensor({1.0, nan, 5.0, nan, 2.0}).to(kDouble);
  expect_matches(n.to(kCuda).argmax(), n.argmax());
  expect_matches(n.to(kCuda).argmin(), n.argmin());
}

TEST(CudaOpsTest, EmptyReductions) {
  SKIP_WITHOUT_CUDA_DEVICE();
  Tensor e = empty({0, 4}, TensorOptions(kFloat));
  expect_matches(e.to(kCuda).sum(), e.sum());
  expect_matches(e.to(kCuda).sum({0}), e.sum({0}));
  expect_matches(e.to(kCuda).prod(), e.prod());
}

TEST(CudaOpsTest, MatrixProducts) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : {kFloat, kDouble}) {
    SCOPED_TRACE(scalar_type_name(t));
    const double tol = t == kFloat ? 1e-4 : 1e-12;
    Tensor a = values({33, 17}, t, 1), b = values({17, 21}, t, 1);
    Tensor da = a.to(kCuda), db = b.to(kCuda);
    expect_matches(da.mm(db), a.mm(b), tol, tol);
    expect_matches(db.t().mm(da.t()), b.t().mm(a.t()), tol, tol);  // transposed operands
    Tensor bias = values({21}, t, 1);
    expect_matches(addmm(bias.to(kCuda), da, db, 0.5, 2), addmm(bias, a, b, 0.5, 2), tol, tol);
    Tensor v = values({17}, t, 1);
    expect_matches(da.mv(v.to(kCuda)), a.mv(v), tol, tol);
    expect_matches(matmul(v.to(kCuda), db), matmul(v, b), tol, tol);
    // Batched, with a broadcast batch dim and a sliced (non-BLAS) operand.
    Tensor x = values({4, 3, 6, 5}, t, 1), y = values({3, 5, 2}, t, 1);
    expect_matches(matmul(x.to(kCuda), y.to(kCuda)), matmul(x, y), tol, tol);
    Tensor xs = x.index({Slice(), Slice(), Slice(None, None, 2), Slice(None, None, 2)});
    Tensor dxs = x.to(kCuda).index({Slice(), Slice(), Slice(None, None, 2), Slice(None, None, 2)});
    Tensor w = values({3, 3, 4}, t, 1);
    expect_matches(matmul(dxs, w.to(kCuda)), matmul(xs, w), tol, tol);
    Tensor p = values({5, 8, 3}, t, 1), q = values({5, 3, 9}, t, 1);
    expect_matches(p.to(kCuda).bmm(q.to(kCuda)), p.bmm(q), tol, tol);
  }
  // K == 0: zeros (and beta * self for addmm).
  Tensor z1 = empty({3, 0}, TensorOptions(kFloat)), z2 = empty({0, 4}, TensorOptions(kFloat));
  expect_matches(z1.to(kCuda).mm(z2.to(kCuda)), z1.mm(z2));
}

TEST(CudaOpsTest, SoftmaxAlongEveryDim) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kFloating) {
    SCOPED_TRACE(scalar_type_name(t));
    Tensor a = values({6, 10, 7}, t, 8);
    Tensor da = a.to(kCuda);
    const double tol = std::max(rtol_for(t), 1e-6);
    for (int64_t dim : {0, 1, 2, -1}) {
      expect_matches(softmax(da, dim), softmax(a, dim), tol, tol);
      expect_matches(log_softmax(da, dim), log_softmax(a, dim), tol, tol);
    }
  }
  // Large values: the running max keeps exp from overflowing.
  Tensor big = tensor({1000.0f, 1001.0f, -1000.0f});
  expect_matches(log_softmax(big.to(kCuda), 0), log_softmax(big, 0));
  // Rows longer than a block (a block per row strides over them), and a NaN
  // in a row, which the block's max carries to the whole row as the CPU does.
  Tensor wide = values({5, 1500}, kFloat, 9);
  wide.index_put_({2, 700}, std::nan(""));
  Tensor dwide = wide.to(kCuda);
  expect_matches(softmax(dwide, 1), softmax(wide, 1), 1e-6, 1e-6);
  expect_matches(log_softmax(dwide, 1), log_softmax(wide, 1), 1e-6, 1e-6);
  EXPECT_TRUE(log_softmax(dwide, 1).cpu().index({2}).isnan().all().item<bool>());
}

TEST(CudaOpsTest, NllLossForwardAndBackward) {
  SKIP_WITHOUT_CUDA_DEVICE();
  Tensor logp = log_softmax(values({9, 5}, kDouble, 3), 1);
  Tensor target = tensor({0, 4, 2, 2, 1, 3, 0, 4, 1}).to(kLong);
  Tensor weight = values({5}, kDouble, 1).abs() + 0.2;
  Tensor dlogp = logp.to(kCuda), dtarget = target.to(kCuda), dweight = weight.to(kCuda);
  for (int64_t reduction :
       {loss_reduction::kNone, loss_reduction::kSum, loss_reduction::kMean}) {
    for (int64_t ignore : {-100, 2}) {
      for (bool weighted : {false, true}) {
        SCOPED_TRACE(::testing::Message() << reduction << " " << ignore << " " << weighted);
        auto [out, total] = nll_loss_forward(logp, target, weighted ? weight : Tensor(), reduction,
                                             ignore);
        auto [dout, dtotal] = nll_loss_forward(dlogp, dtarget, weighted ? dweight : Tensor(),
                                               reduction, ignore);
        expect_matches(dout, out, 1e-12, 1e-12);
        expect_matches(dtotal, total, 1e-12, 1e-12);
        Tensor gy = reduction == loss_reduction::kNone ? values({9}, kDouble, 1) : tensor(0.7).to(kDouble);
        expect_matches(nll_loss_backward(gy.to(kCuda), dlogp, dtarget, weighted ? dweight : Tensor(),
                                         reduction, ignore, dtotal),
                       nll_loss_backward(gy, logp, target, weighted ? weight : Tensor(), reduction,
                                         ignore, total),
                       1e-12, 1e-12);
      }
    }
  }
  // [N, C, H, W] input (nll_loss2d), float.
  Tensor x = log_softmax(values({2, 3, 4, 5}, kFloat, 2), 1);
  Tensor t = (values({2, 4, 5}, kFloat, 3).abs().floor().clamp_max(2)).to(kLong);
  auto [o2, w2] = nll_loss_forward(x, t, Tensor(), loss_reduction::kMean, -100);
  auto [do2, dw2] = nll_loss_forward(x.to(kCuda), t.to(kCuda), Tensor(), loss_reduction::kMean, -100);
  expect_matches(do2, o2, 1e-5, 1e-6);
  // The target check runs on the device (Note [Device-side index checks]):
  // the error surfaces at the next host read.
  EXPECT_EQ(
      error_of([&] {
        std::get<0>(nll_loss_forward(dlogp, tensor({0, 7, 1, 1, 1, 1, 1, 1, 1}).to(kLong).to(kCuda),
                                     Tensor(), loss_reduction::kMean, -100))
            .item<float>();
      }),
      "Target 7 is out of bounds.");
  EXPECT_EQ(error_of([&] { nll_loss_forward(dlogp, target, Tensor(), loss_reduction::kMean, -100); }),
            "Expected all tensors to be on the same device, but found at least two devices, "
            "cuda:0 and cpu!");
}

// float16 and bfloat16 products run on tensor cores with float32
// accumulation and one rounding, as the CPU computes them in float and
// rounds once: the results agree to the dtype's rounding.
TEST(CudaOpsTest, ReducedPrecisionMatrixProducts) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : {kHalf, kBFloat16}) {
    SCOPED_TRACE(scalar_type_name(t));
    const double tol = rtol_for(t);
    Tensor a = values({64, 40}, t, 1), b = values({40, 24}, t, 1);
    Tensor da = a.to(kCuda), db = b.to(kCuda);
    EXPECT_EQ(da.mm(db).dtype(), t);
    expect_matches(da.mm(db), a.mm(b), tol, tol);
    expect_matches(db.t().mm(da.t()), b.t().mm(a.t()), tol, tol);
    Tensor bias = values({24}, t, 1);
    expect_matches(addmm(bias.to(kCuda), da, db, 0.5, 2), addmm(bias, a, b, 0.5, 2), tol, tol);
    Tensor v = values({40}, t, 1);
    expect_matches(da.mv(v.to(kCuda)), a.mv(v), tol, tol);
    expect_matches(v.to(kCuda).dot(v.to(kCuda)), v.dot(v), tol, tol);
    Tensor p = values({5, 8, 3}, t, 1), q = values({5, 3, 9}, t, 1);
    expect_matches(p.to(kCuda).bmm(q.to(kCuda)), p.bmm(q), tol, tol);
    Tensor x = values({4, 3, 6, 5}, t, 1), y = values({3, 5, 2}, t, 1);
    expect_matches(matmul(x.to(kCuda), y.to(kCuda)), matmul(x, y), tol, tol);
    Tensor w = values({24, 40}, t, 1);
    // nn::Linear's product: a transposed weight.
    expect_matches(addmm(bias.to(kCuda), da, w.to(kCuda).t()), addmm(bias, a, w.t()), tol, tol);
  }
}

// TF32 (Note [float32 matmul precision]): off by default for cuBLAS, so
// float32 products match the CPU to float rounding; allowed, they round
// each operand to a 10-bit mantissa, visibly different but close.
TEST(CudaOpsTest, Float32MatmulPrecisionSwitchesTf32) {
  SKIP_WITHOUT_CUDA_DEVICE();
  struct Restore {
    ~Restore() { set_float32_matmul_precision("highest"); }
  } restore;
  ASSERT_FALSE(cuda::matmul::allow_tf32());
  Tensor a = values({256, 512}, kFloat, 1), b = values({512, 128}, kFloat, 1);
  Tensor exact = a.to(kDouble).mm(b.to(kDouble));
  Tensor da = a.to(kCuda), db = b.to(kCuda);
  auto max_err = [&](const Tensor& r) {
    return (r.to(Device(kCPU)).to(kDouble) - exact).abs().max().item<double>();
  };
  const double fp32 = max_err(da.mm(db));
  EXPECT_LT(fp32, 1e-4);
  for (const char* p : {"high", "medium"}) {
    set_float32_matmul_precision(p);
    const double tf32 = max_err(da.mm(db));
    EXPECT_GT(tf32, 10 * fp32) << p;  // TF32 really ran
    EXPECT_LT(tf32, 0.1) << p;        // and is still a product of these matrices
  }
  cuda::matmul::set_allow_tf32(false);
  EXPECT_EQ(max_err(da.mm(db)), fp32);
}

// cuDNN convolutions in float16 and bfloat16 (tensor cores), against the
// CPU's float convolution of the same values, rounded once; and float32
// with cuDNN's TF32 allowed (PyTorch's default) stays close.
TEST(CudaOpsTest, ReducedPrecisionConvolution) {
  SKIP_WITHOUT_CUDA_DEVICE();
  struct Restore {
    ~Restore() {
      cuda::set_cudnn_enabled(true);
      cuda::set_cudnn_allow_tf32(true);
    }
  } restore;
  for (bool cudnn : {true, false}) {
    cuda::set_cudnn_enabled(cudnn);
    SCOPED_TRACE(cudnn ? "cuDNN" : "im2col");
    for (ScalarType t : {kHalf, kBFloat16}) {
      SCOPED_TRACE(scalar_type_name(t));
      const double tol = 2 * rtol_for(t);
      Tensor x = values({4, 8, 12, 12}, t, 1), w = values({16, 8, 3, 3}, t, 1);
      Tensor b = values({16}, t, 1);
      Tensor ref = convolution(x.to(kFloat), w.to(kFloat), b.to(kFloat), {1, 1}, {1, 1}, {1, 1}, 1);
      Tensor out = convolution(x.to(kCuda), w.to(kCuda), b.to(kCuda), {1, 1}, {1, 1}, {1, 1}, 1);
      EXPECT_EQ(out.dtype(), t);
      expect_matches(out.to(kFloat), ref, tol, tol * 8);
      Tensor gy = values(ref.sizes(), t, 1);
      auto [gx, gw, gb] = convolution_backward(gy.to(kFloat), x.to(kFloat), w.to(kFloat), {1, 1},
                                               {1, 1}, {1, 1}, 1, {true, true, true});
      auto [dgx, dgw, dgb] = convolution_backward(gy.to(kCuda), x.to(kCuda), w.to(kCuda), {1, 1},
                                                  {1, 1}, {1, 1}, 1, {true, true, true});
      EXPECT_EQ(dgw.dtype(), t);
      // Sums of 4*12*12 products (the weight's gradient) round further.
      expect_matches(dgx.to(kFloat), gx, tol, tol * 8);
      expect_matches(dgw.to(kFloat), gw, tol, tol * 64);
      expect_matches(dgb.to(kFloat), gb, tol, tol * 64);
    }
  }
  cuda::set_cudnn_enabled(true);
  ASSERT_TRUE(cuda::cudnn_allow_tf32());
  Tensor x = values({8, 32, 16, 16}, kFloat, 1), w = values({32, 32, 3, 3}, kFloat, 1);
  Tensor exact = convolution(x.to(kDouble), w.to(kDouble), Tensor(), {1, 1}, {1, 1}, {1, 1}, 1);
  Tensor tf32 = convolution(x.to(kCuda), w.to(kCuda), Tensor(), {1, 1}, {1, 1}, {1, 1}, 1);
  EXPECT_LT((tf32.to(Device(kCPU)).to(kDouble) - exact).abs().max().item<double>(), 0.1);
  cuda::set_cudnn_allow_tf32(false);
  Tensor fp32 = convolution(x.to(kCuda), w.to(kCuda), Tensor(), {1, 1}, {1, 1}, {1, 1}, 1);
  EXPECT_LT((fp32.to(Device(kCPU)).to(kDouble) - exact).abs().max().item<double>(), 1e-4);
}

TEST(CudaOpsTest, ConvolutionForwardAndBackward) {
  SKIP_WITHOUT_CUDA_DEVICE();
  struct Case {
    std::vector<int64_t> x, w, stride, padding, dilation;
    int64_t groups;
    bool double_only = false;  // sums too long to compare in float
  };
  const Case cases[] = {
      {{2, 3, 9, 8}, {4, 3, 3, 3}, {1, 1}, {0, 0}, {1, 1}, 1},
      {{3, 4, 10, 11}, {6, 2, 3, 2}, {2, 1}, {1, 0}, {1, 2}, 2},  // groups, stride, dilation
      {{2, 2, 7}, {3, 2, 3}, {2}, {1}, {1}, 1},                   // 1-D
      // Columns of 38 MB (double) per sample: the batch runs in 3 chunks
      // under conv.cc's 256 MB column buffer.
      {{20, 32, 130, 130}, {2, 32, 3, 3}, {1, 1}, {0, 0}, {1, 1}, 1, true},
  };
  // Both paths: cuDNN (where it takes the case) and im2col + cuBLAS; float32
  // without TF32, to compare with the CPU at float rounding.
  struct RestoreCudnn {
    ~RestoreCudnn() {
      cuda::set_cudnn_enabled(true);
      cuda::set_cudnn_allow_tf32(true);
    }
  } restore;
  cuda::set_cudnn_allow_tf32(false);
  RecordProperty("cudnn_version", std::to_string(cuda::cudnn_version()));
  for (bool cudnn : {true, false}) {
    cuda::set_cudnn_enabled(cudnn);
    SCOPED_TRACE(cudnn ? "cuDNN" : "im2col");
    for (const Case& c : cases) {
      for (ScalarType t : {kFloat, kDouble}) {
        if (c.double_only && t == kFloat) continue;
        const double tol = t == kFloat ? 1e-4 : (c.double_only ? 1e-9 : 1e-11);
        Tensor x = values(c.x, t, 1), w = values(c.w, t, 1), b = values({c.w[0]}, t, 1);
        Tensor dx = x.to(kCuda), dw = w.to(kCuda), db = b.to(kCuda);
        Tensor out = convolution(x, w, b, c.stride, c.padding, c.dilation, c.groups);
        Tensor dout = convolution(dx, dw, db, c.stride, c.padding, c.dilation, c.groups);
        expect_matches(dout, out, tol, tol);
        Tensor gy = values(out.sizes(), t, 1);
        auto [gx, gw, gb] = convolution_backward(gy, x, w, c.stride, c.padding, c.dilation,
                                                 c.groups, {true, true, true});
        auto [dgx, dgw, dgb] = convolution_backward(gy.to(kCuda), dx, dw, c.stride, c.padding,
                                                    c.dilation, c.groups, {true, true, true});
        expect_matches(dgx, gx, tol, tol);
        expect_matches(dgw, gw, tol, tol);
        expect_matches(dgb, gb, tol, tol);
      }
    }
  }
}

TEST(CudaOpsTest, MaxPoolForwardAndBackward) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : {kFloat, kDouble}) {
    Tensor x = values({2, 3, 9, 10}, t, 5);
    for (bool ceil_mode : {false, true}) {
      auto [out, idx] = max_pool2d_with_indices(x, {3, 2}, {2, 2}, {1, 0}, {1, 1}, ceil_mode);
      auto [dout, didx] =
          max_pool2d_with_indices(x.to(kCuda), {3, 2}, {2, 2}, {1, 0}, {1, 1}, ceil_mode);
      expect_matches(dout, out, 0, 0);
      expect_matches(didx, idx);
      Tensor gy = values(out.sizes(), t, 1);
      expect_matches(max_pool2d_with_indices_backward(gy.to(kCuda), x.sizes(), didx),
                     max_pool2d_with_indices_backward(gy, x.sizes(), idx), 1e-6, 1e-6);
    }
  }
}

// half and bfloat16 (a ResNet under autocast pools its batch norm's
// bfloat16 output) against the CPU's float kernel on the same rounded
// values: the maxima and indices exactly, the gradient to the dtype's
// rounding (windows overlap: an input may take several gradients).
TEST(CudaOpsTest, MaxPoolHalfAndBFloat16) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : {kHalf, kBFloat16}) {
    Tensor x = values({2, 3, 9, 10}, kFloat, 5).to(t);
    auto [out, idx] = max_pool2d_with_indices(x.to(kFloat), {3, 3}, {2, 2}, {1, 1}, {1, 1}, false);
    auto [dout, didx] =
        max_pool2d_with_indices(x.to(kCuda), {3, 3}, {2, 2}, {1, 1}, {1, 1}, false);
    ASSERT_EQ(dout.dtype(), t);
    expect_matches(dout.to(kFloat), out, 0, 0);
    expect_matches(didx, idx);
    Tensor gy = values(out.sizes(), kFloat, 1).to(t);
    Tensor want = max_pool2d_with_indices_backward(gy.to(kFloat), x.sizes(), idx);
    Tensor got = max_pool2d_with_indices_backward(gy.to(kCuda), x.sizes(), didx);
    ASSERT_EQ(got.dtype(), t);
    expect_matches(got.to(kFloat), want, 1e-2, 1e-2);
  }
}

// avg_pool2d (padding, ceil_mode, count_include_pad, divisor_override) and
// adaptive_avg_pool2d sum each window in the CPU's order: forwards equal
// to the bit; backwards gather in the CPU's order (tolerance only for a
// fused multiply-add on one side).
TEST(CudaOpsTest, AvgPoolsForwardAndBackward) {
  SKIP_WITHOUT_CUDA_DEVICE();
  struct Config {
    std::vector<int64_t> k, s, pad;
    bool ceil_mode, count_include_pad;
    std::optional<int64_t> divisor;
  };
  const std::vector<Config> configs = {
      {{2, 2}, {2, 2}, {0, 0}, false, true, std::nullopt},
      {{3, 2}, {2, 1}, {1, 1}, true, false, std::nullopt},
      {{3, 3}, {2, 2}, {1, 1}, true, true, std::nullopt},
      {{3, 3}, {1, 2}, {1, 0}, false, true, 5},
      {{1, 4}, {3, 3}, {0, 2}, true, false, std::nullopt},
  };
  for (ScalarType t : {kFloat, kDouble}) {
    SCOPED_TRACE(scalar_type_name(t));
    const Tensor x = values({2, 3, 9, 10}, t, 5);
    for (const Config& c : configs) {
      const Tensor out = avg_pool2d(x, c.k, c.s, c.pad, c.ceil_mode, c.count_include_pad, c.divisor);
      expect_matches(avg_pool2d(x.to(kCuda), c.k, c.s, c.pad, c.ceil_mode, c.count_include_pad,
                                c.divisor),
                     out, 0, 0);
      // A non-contiguous input (made contiguous by the op) and an unbatched one.
      expect_matches(avg_pool2d(x.to(kCuda).transpose(2, 3), c.k, c.s, c.pad, c.ceil_mode,
                                c.count_include_pad, c.divisor),
                     avg_pool2d(x.transpose(2, 3), c.k, c.s, c.pad, c.ceil_mode,
                                c.count_include_pad, c.divisor),
                     0, 0);
      expect_matches(avg_pool2d(x[1].to(kCuda), c.k, c.s, c.pad, c.ceil_mode, c.count_include_pad,
                                c.divisor),
                     avg_pool2d(x[1], c.k, c.s, c.pad, c.ceil_mode, c.count_include_pad, c.divisor),
                     0, 0);
      const Tensor gy = values(out.sizes(), t, 1);
      expect_matches(avg_pool2d_backward(gy.to(kCuda), x.sizes(), c.k, c.s, c.pad, c.ceil_mode,
                                         c.count_include_pad, c.divisor),
                     avg_pool2d_backward(gy, x.sizes(), c.k, c.s, c.pad, c.ceil_mode,
                                         c.count_include_pad, c.divisor),
                     1e-6, 1e-6);
    }
    for (std::vector<int64_t> o : {std::vector<int64_t>{1, 1}, {3, 4}, {4, 7}, {9, 10}, {12, 13}}) {
      // A 1x1 output is a mean (as PyTorch's), whose CUDA reduction sums in
      // its own order.
      const double tol = o == std::vector<int64_t>{1, 1} ? 1e-6 : 0;
      const Tensor out = adaptive_avg_pool2d(x, o);
      expect_matches(adaptive_avg_pool2d(x.to(kCuda), o), out, tol, tol);
      expect_matches(adaptive_avg_pool2d(x.to(kCuda).transpose(2, 3), o),
                     adaptive_avg_pool2d(x.transpose(2, 3), o), tol, tol);
      const Tensor gy = values(out.sizes(), t, 1);
      expect_matches(adaptive_avg_pool2d_backward(gy.to(kCuda), x.sizes()),
                     adaptive_avg_pool2d_backward(gy, x.sizes()), 1e-6, 1e-6);
    }
  }
  // int64 averages truncate (forward only, as on the CPU); other dtypes are
  // refused with the CPU's message.
  const Tensor xl = values({1, 2, 6, 6}, kLong, 50);
  expect_matches(avg_pool2d(xl.to(kCuda), {2, 2}, {2, 2}, {1, 1}, false, true, std::nullopt),
                 avg_pool2d(xl, {2, 2}, {2, 2}, {1, 1}, false, true, std::nullopt));
  const Tensor xi = values({1, 2, 6, 6}, kInt);
  EXPECT_EQ(error_of([&] { avg_pool2d(xi.to(kCuda), {2, 2}, {2, 2}, {0, 0}, false, true, std::nullopt); }),
            error_of([&] { avg_pool2d(xi, {2, 2}, {2, 2}, {0, 0}, false, true, std::nullopt); }));
  EXPECT_EQ(error_of([&] { adaptive_avg_pool2d(xl.to(kCuda), {2, 2}); }),
            error_of([&] { adaptive_avg_pool2d(xl, {2, 2}); }));
  // Empty batches.
  const Tensor e = empty({0, 3, 6, 6});
  expect_matches(avg_pool2d(e.to(kCuda), {2, 2}, {2, 2}, {0, 0}, false, true, std::nullopt),
                 avg_pool2d(e, {2, 2}, {2, 2}, {0, 0}, false, true, std::nullopt));
  expect_matches(adaptive_avg_pool2d(e.to(kCuda), {2, 3}), adaptive_avg_pool2d(e, {2, 3}));
}

// avg_pool2d and adaptive_avg_pool2d in half and bfloat16 (a ResNet's head
// under autocast), accumulating in float, against the CPU's float kernels
// on the same rounded values.
TEST(CudaOpsTest, AvgPoolsHalfAndBFloat16) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : {kHalf, kBFloat16}) {
    const Tensor x = values({2, 3, 9, 10}, kFloat, 5).to(t);
    for (bool count_pad : {true, false}) {
      const Tensor got = avg_pool2d(x.to(kCuda), {3, 3}, {2, 2}, {1, 1}, false, count_pad,
                                    std::nullopt);
      ASSERT_EQ(got.dtype(), t);
      expect_matches(got.to(kFloat),
                     avg_pool2d(x.to(kFloat), {3, 3}, {2, 2}, {1, 1}, false, count_pad,
                                std::nullopt),
                     1e-2, 1e-2);
      const Tensor gy = values(got.sizes(), kFloat, 1).to(t);
      const Tensor gx = avg_pool2d_backward(gy.to(kCuda), x.sizes(), {3, 3}, {2, 2}, {1, 1},
                                            false, count_pad, std::nullopt);
      ASSERT_EQ(gx.dtype(), t);
      expect_matches(gx.to(kFloat),
                     avg_pool2d_backward(gy.to(kFloat), x.sizes(), {3, 3}, {2, 2}, {1, 1}, false,
                                         count_pad, std::nullopt),
                     1e-2, 1e-2);
    }
    for (std::vector<int64_t> o : {std::vector<int64_t>{1, 1}, {4, 7}}) {
      const Tensor got = adaptive_avg_pool2d(x.to(kCuda), o);
      ASSERT_EQ(got.dtype(), t);
      expect_matches(got.to(kFloat), adaptive_avg_pool2d(x.to(kFloat), o), 1e-2, 1e-2);
      const Tensor gy = values(got.sizes(), kFloat, 1).to(t);
      const Tensor gx = adaptive_avg_pool2d_backward(gy.to(kCuda), x.sizes());
      ASSERT_EQ(gx.dtype(), t);
      expect_matches(gx.to(kFloat), adaptive_avg_pool2d_backward(gy.to(kFloat), x.sizes()), 1e-2,
                     1e-2);
    }
  }
}

// The CUDA scan walks each line in the CPU's order with the CPU's
// accumulator types (scan.cu): equal results, bit for bit, in every dtype.
TEST(CudaOpsTest, CumulativeAlongEveryDimMatchesTheCpuExactly) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : {kBool, kByte, kInt, kLong, kHalf, kBFloat16, kFloat, kDouble}) {
    SCOPED_TRACE(scalar_type_name(t));
    Tensor a = values({4, 5, 6}, t, 2);
    Tensor da = a.to(kCuda);
    for (int64_t dim : {0, 1, 2, -1}) {
      expect_matches(da.cumsum(dim), a.cumsum(dim), 0, 0);
      expect_matches(da.cumprod(dim), a.cumprod(dim), 0, 0);
    }
  }
  // A strided input, an output dtype, products that wrap in int64, a NaN
  // that carries on down its line, an empty dim.
  Tensor a = values({6, 7}, kFloat, 3);
  a.index_put_({2, 3}, std::nan(""));
  expect_matches(a.to(kCuda).t().cumsum(1), a.t().cumsum(1), 0, 0);
  expect_matches(a.to(kCuda).cumsum(0, kDouble), a.cumsum(0, kDouble), 0, 0);
  Tensor big = full({70}, int64_t{3}, TensorOptions(kLong));
  expect_matches(big.to(kCuda).cumprod(0), big.cumprod(0));
  Tensor none = empty({3, 0}, TensorOptions(kFloat));
  expect_matches(none.to(kCuda).cumsum(1), none.cumsum(1));
}

TEST(CudaOpsTest, Errors) {
  SKIP_WITHOUT_CUDA_DEVICE();
  Tensor d = values({4, 4}, kFloat).to(kCuda);
  EXPECT_EQ(error_of([&] { d + values({4, 4}, kFloat); }),
            "Expected all tensors to be on the same device, but found at least two devices, "
            "cuda:0 and cpu!");
  Tensor l = values({2, 2}, kLong).to(kCuda);
  EXPECT_EQ(error_of([&] { l.mm(l); }), "\"addmm_cuda\" not implemented for 'Long'");
  EXPECT_EQ(error_of([&] { values({4, 4}, kFloat).mm(d); }),
            "Expected all tensors to be on the same device, but found at least two devices, cpu "
            "and cuda:0!");
}

}  // namespace
}  // namespace ember
