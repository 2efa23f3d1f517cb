// The CUDA index kernels (tensor/cuda/index_ops.cc: gather, scatter_,
// scatter_add_, index_select, index_add_, index_copy_, index_fill_, take,
// embedding, tril/triu) against the CPU on the same inputs, over dtypes and
// layouts (transposed, sliced, expanded), empty tensors, and the device-side
// index check (Note [Device-side index checks]): a bad value surfaces as the
// CPU's error at the next synchronization, and the device stays usable.
// Every test needs a GPU and skips without one.

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "tensor/all.h"
#include "tensor/cuda/cuda.h"
#include "tensor/cuda/ops_testing.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using ::ember::testing::error_of;
using namespace ::ember::cuda_testing;  // NOLINT
using namespace ::ember::indexing;      // NOLINT

// An int64 tensor of `sizes` whose values are f(linear position).
Tensor index_of(IntArrayRef sizes, const std::function<int64_t(int64_t)>& f) {
  Tensor t = empty(sizes, TensorOptions(kLong));
  int64_t* p = t.data_ptr<int64_t>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = f(i);
  return t;
}

// What `f` throws once the device has been synchronized: the deferred
// device-side check reports there.
std::string device_error_of(const std::function<Tensor()>& f) {
  return error_of([&] {
    Tensor r = f();
    r.to(Device(kCPU));
  });
}

TEST(CudaIndexOpsTest, GatherEveryDtypeAndLayout) {
  SKIP_WITHOUT_CUDA_DEVICE();
  // Rows r of column c hold (3r + c) % 5: in range for dim 0 of a [5, 7].
  const Tensor idx = index_of({5, 7}, [](int64_t i) { return (3 * (i / 7) + i % 7) % 5; });
  const Tensor didx = idx.to(kCuda);
  for (ScalarType t : kAll) {
    SCOPED_TRACE(scalar_type_name(t));
    const Tensor x = values({5, 7}, t), dx = x.to(kCuda);
    expect_same(gather(dx, 0, didx), gather(x, 0, idx));
    expect_same(gather(dx, 0, didx.index({Slice(0, 3), Slice(1, None, 2)})),
                gather(x, 0, idx.index({Slice(0, 3), Slice(1, None, 2)})));
    // Along dim 1 with a transposed self and index.
    const Tensor xt = values({7, 5}, t).t(), dxt = values({7, 5}, t).to(kCuda).t();
    ASSERT_FALSE(dxt.is_contiguous());
    expect_same(gather(dxt, 1, didx), gather(xt, 1, idx));
    // A transposed index (not contiguous) and an expanded one.
    const Tensor it = index_of({7, 5}, [](int64_t i) { return (i * 7) % 5; });
    expect_same(gather(dx, 0, it.to(kCuda).t()), gather(x, 0, it.t()));
    const Tensor ie = index_of({1, 7}, [](int64_t i) { return (i * 3) % 5; });
    expect_same(gather(dx, 0, ie.to(kCuda).expand({4, 7})), gather(x, 0, ie.expand({4, 7})));
    expect_same(gather(dx, -1, index_of({5, 3}, [](int64_t i) { return (i * 5) % 7; }).to(kCuda)),
                gather(x, -1, index_of({5, 3}, [](int64_t i) { return (i * 5) % 7; })));
  }
  // 3-D, every dim; 0-dim; empty.
  const Tensor x3 = values({3, 4, 5}, kFloat), dx3 = x3.to(kCuda);
  for (int64_t d = 0; d < 3; ++d) {
    const int64_t n = x3.size(d);
    const Tensor i3 = index_of({3, 4, 5}, [n](int64_t i) { return (i * 7 + 1) % n; });
    expect_same(gather(dx3, d, i3.to(kCuda)), gather(x3, d, i3));
  }
  const Tensor s = tensor(2.5), i0 = tensor(int64_t{0});
  expect_same(gather(s.to(kCuda), 0, i0.to(kCuda)), gather(s, 0, i0));
  const Tensor none = empty({0, 5}, TensorOptions(kLong));
  expect_same(gather(dx3[0], 0, none.to(kCuda)), gather(x3[0], 0, none));
}

TEST(CudaIndexOpsTest, ScatterSrcAndValue) {
  SKIP_WITHOUT_CUDA_DEVICE();
  // A permutation down each column: every element written once, so the
  // result does not depend on the order of the writes.
  const Tensor idx = index_of({5, 7}, [](int64_t i) { return (3 * (i / 7) + i % 7) % 5; });
  const Tensor didx = idx.to(kCuda);
  for (ScalarType t : kAll) {
    SCOPED_TRACE(scalar_type_name(t));
    const Tensor x = values({5, 7}, t), src = values({6, 8}, t);
    const Tensor dx = x.to(kCuda), dsrc = src.to(kCuda);
    expect_same(scatter(dx, 0, didx, dsrc), scatter(x, 0, idx, src));
    expect_same(scatter(dx, 0, didx, 1), scatter(x, 0, idx, 1));
    // A partial index (fewer rows and columns than self).
    const Tensor part = idx.index({Slice(0, 2), Slice(0, 4)});
    expect_same(scatter(dx, 0, part.to(kCuda), dsrc), scatter(x, 0, part, src));
    // In place on a transposed view, with a transposed source.
    Tensor host = values({7, 5}, t), dev = host.to(kCuda);
    host.t().scatter_(0, idx, src.t().t());
    dev.t().scatter_(0, didx, dsrc);
    expect_same(dev, host);
    // Expanded source.
    const Tensor row = values({1, 7}, t);
    expect_same(scatter(dx, 0, didx, row.to(kCuda).expand({5, 7})),
                scatter(x, 0, idx, row.expand({5, 7})));
  }
  // Along the last dim of a 3-D tensor, a value that needs converting.
  const Tensor x3 = values({2, 3, 4}, kHalf);
  const Tensor i3 = index_of({2, 3, 4}, [](int64_t i) { return (i % 4 + i / 4) % 4; });
  expect_same(scatter(x3.to(kCuda), 2, i3.to(kCuda), 0.1), scatter(x3, 2, i3, 0.1));
  // Empty index: nothing changes.
  const Tensor ie = empty({0, 7}, TensorOptions(kLong));
  const Tensor x = values({5, 7}, kFloat);
  expect_same(scatter(x.to(kCuda), 0, ie.to(kCuda), x.to(kCuda)), scatter(x, 0, ie, x));
}

TEST(CudaIndexOpsTest, ScatterAddRepeatedIndices) {
  SKIP_WITHOUT_CUDA_DEVICE();
  // Many positions of a column hit the same row.
  const Tensor idx = index_of({9, 7}, [](int64_t i) { return ((i / 7) * (i % 7)) % 4; });
  const Tensor didx = idx.to(kCuda);
  for (ScalarType t : kAll) {
    SCOPED_TRACE(scalar_type_name(t));
    const Tensor x = values({4, 7}, t), src = values({9, 7}, t);
    const Tensor dx = x.to(kCuda), dsrc = src.to(kCuda);
    const double tol = is_floating_point(t) ? rtol_for(t) * 8 : 0;
    // Integers wrap in their width: exact in any order.
    expect_matches(scatter_add(dx, 0, didx, dsrc), scatter_add(x, 0, idx, src), tol, tol);
    expect_matches(scatter_add(dx.t().contiguous().t(), 0, didx, dsrc.t().contiguous().t()),
                   scatter_add(x, 0, idx, src), tol, tol);
  }
  // Along dim 1, into a transposed self, and PyTorch's embedding backward.
  const Tensor x = values({6, 4}, kFloat), src = values({6, 9}, kFloat);
  const Tensor i1 = index_of({6, 9}, [](int64_t i) { return (i * 5) % 4; });
  Tensor host = values({4, 6}, kFloat), dev = host.to(kCuda);
  host.t().scatter_add_(1, i1, src);
  dev.t().scatter_add_(1, i1.to(kCuda), src.to(kCuda));
  expect_matches(dev, host, 1e-5, 1e-5);
  // Large enough for many blocks to collide on few rows.
  const Tensor big = values({4096, 16}, kFloat);
  const Tensor bi = index_of({4096, 16}, [](int64_t i) { return (i * 7919) % 13; });
  expect_matches(zeros({13, 16}).to(kCuda).scatter_add_(0, bi.to(kCuda), big.to(kCuda)),
                 zeros({13, 16}).scatter_add_(0, bi, big), 1e-4, 1e-4);
  const Tensor ib = index_of({4096, 16}, [](int64_t i) { return (i * 31) % 13; });
  const Tensor li = values({4096, 16}, kLong);
  expect_same(zeros({13, 16}, kLong).to(kCuda).scatter_add_(0, ib.to(kCuda), li.to(kCuda)),
              zeros({13, 16}, kLong).scatter_add_(0, ib, li));
}

TEST(CudaIndexOpsTest, IndexSelectAndEmbedding) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const Tensor idx = tensor({int64_t{4}, 0, 2, 2, 1, 4});
  for (ScalarType t : kAll) {
    SCOPED_TRACE(scalar_type_name(t));
    const Tensor x = values({5, 6}, t), dx = x.to(kCuda);
    expect_same(index_select(dx, 0, idx.to(kCuda)), index_select(x, 0, idx));
    expect_same(index_select(dx, 1, idx.to(kCuda)), index_select(x, 1, idx));
    expect_same(index_select(dx, -1, idx.to(kInt).to(kCuda)), index_select(x, -1, idx.to(kInt)));
    // Transposed and sliced self; a strided index.
    expect_same(index_select(dx.t(), 1, idx.to(kCuda)), index_select(x.t(), 1, idx));
    expect_same(index_select(dx.index({Slice(None, None, 2)}), 1, idx.to(kCuda)),
                index_select(x.index({Slice(None, None, 2)}), 1, idx));
    expect_same(index_select(dx, 1, idx.to(kCuda).index({Slice(None, None, 2)})),
                index_select(x, 1, idx.index({Slice(None, None, 2)})));
  }
  // 3-D along the middle; a 0-dim self and index; an empty index.
  const Tensor x3 = values({3, 5, 4}, kDouble);
  expect_same(index_select(x3.to(kCuda), 1, idx.to(kCuda)), index_select(x3, 1, idx));
  const Tensor s = tensor(1.5), i0 = tensor(int64_t{0});
  expect_same(index_select(s.to(kCuda), 0, i0.to(kCuda)), index_select(s, 0, i0));
  const Tensor none = empty({0}, TensorOptions(kLong));
  expect_same(index_select(x3.to(kCuda), 2, none.to(kCuda)), index_select(x3, 2, none));
  // embedding and its backward (index_add_) at a language model's shape.
  const Tensor w = values({1000, 64}, kFloat);
  const Tensor tok = index_of({8, 33}, [](int64_t i) { return (i * 7919) % 1000; });
  expect_same(embedding(w.to(kCuda), tok.to(kCuda)), embedding(w, tok));
  const Tensor g = values({8, 33, 64}, kFloat);
  expect_matches(embedding_backward(g.to(kCuda), tok.to(kCuda), 1000, 3),
                 embedding_backward(g, tok, 1000, 3), 1e-5, 1e-5);
}

TEST(CudaIndexOpsTest, IndexAddCopyFill) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const Tensor rep = tensor({int64_t{2}, 0, 2, 3, 2});  // repeats: index_add_ accumulates
  const Tensor perm = tensor({int64_t{3}, 0, 4, 1});    // distinct: index_copy_ is exact
  const Tensor fill = tensor({int64_t{-1}, 0, 2, -5, 2});
  for (ScalarType t : kAll) {
    SCOPED_TRACE(scalar_type_name(t));
    const Tensor x = values({5, 6}, t), dx = x.to(kCuda);
    const double tol = is_floating_point(t) ? rtol_for(t) * 8 : 0;
    const Tensor src = values({5, 6}, t);
    const Scalar alpha = t == kBool ? Scalar(true) : Scalar(3);
    expect_matches(dx.index_add(0, rep.to(kCuda), src.to(kCuda), alpha),
                   x.index_add(0, rep, src, alpha), tol, tol);
    expect_matches(dx.t().index_add(1, rep.to(kCuda), src.to(kCuda).t()),
                   x.t().index_add(1, rep, src.t()), tol, tol);
    // index_copy_: rows and columns, transposed source.
    const Tensor s4 = values({4, 6}, t);
    expect_same(dx.index_copy(0, perm.to(kCuda), s4.to(kCuda)), x.index_copy(0, perm, s4));
    const Tensor s5 = values({4, 5}, t);
    expect_same(dx.index_copy(1, perm.to(kCuda), s5.to(kCuda).t()), x.index_copy(1, perm, s5.t()));
    expect_same(dx.t().index_copy(0, perm.to(kCuda), s5.to(kCuda)), x.t().index_copy(0, perm, s5));
    // index_fill_: negative values count from the end; repeats are harmless.
    expect_same(dx.index_fill(0, fill.to(kCuda), 1), x.index_fill(0, fill, 1));
    expect_same(dx.t().index_fill(1, fill.to(kCuda), 0), x.t().index_fill(1, fill, 0));
  }
  // index_add_ with a fractional alpha (each product rounds as the CPU's),
  // a broadcast source slice and a 3-D self.
  const Tensor x3 = values({4, 5, 3}, kFloat), s3 = values({5, 5, 3}, kFloat);
  expect_matches(x3.to(kCuda).index_add(0, rep.to(kCuda), s3.to(kCuda), 2.5),
                 x3.index_add(0, rep, s3, 2.5), 1e-5, 1e-5);
  const Tensor sb = values({5, 1, 3}, kFloat);
  expect_matches(x3.to(kCuda).index_add(0, rep.to(kCuda), sb.to(kCuda).expand({5, 5, 3})),
                 x3.index_add(0, rep, sb.expand({5, 5, 3})), 1e-5, 1e-5);
  expect_matches(x3.to(kCuda).index_add(0, rep.to(kCuda), sb.to(kCuda)), x3.index_add(0, rep, sb),
                 1e-5, 1e-5);
  expect_matches(
      x3.to(kCuda).index_add(1, rep.to(kCuda).to(kInt),
                             s3.transpose(0, 1).to(kCuda).transpose(0, 1).index({Slice(0, 4)})),
      x3.index_add(1, rep.to(kInt), s3.index({Slice(0, 4)})), 1e-5, 1e-5);
  // Empty index: nothing changes.
  const Tensor none = empty({0}, TensorOptions(kLong));
  expect_same(x3.to(kCuda).index_add(0, none.to(kCuda), empty({0, 5, 3}).to(kCuda)),
              x3.index_add(0, none, empty({0, 5, 3})));
  expect_same(x3.to(kCuda).index_fill(2, none.to(kCuda), 7), x3.index_fill(2, none, 7));
}

TEST(CudaIndexOpsTest, Take) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const Tensor idx = tensor({{int64_t{0}, -1, 7}, {29, -30, 3}});
  for (ScalarType t : kAll) {
    SCOPED_TRACE(scalar_type_name(t));
    const Tensor x = values({5, 6}, t), dx = x.to(kCuda);
    expect_same(take(dx, idx.to(kCuda)), take(x, idx));
    // Row-major order of a transposed self; a transposed index.
    expect_same(take(dx.t(), idx.to(kCuda).t()), take(x.t(), idx.t()));
  }
  expect_same(take(tensor(3.5).to(kCuda), tensor(int64_t{-1}).to(kCuda)),
              take(tensor(3.5), tensor(int64_t{-1})));
  const Tensor none = empty({0, 3}, TensorOptions(kLong));
  expect_same(take(values({5, 6}, kFloat).to(kCuda), none.to(kCuda)),
              take(values({5, 6}, kFloat), none));
}

TEST(CudaIndexOpsTest, TrilTriu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kAll) {
    SCOPED_TRACE(scalar_type_name(t));
    const Tensor x = values({2, 5, 7}, t), dx = x.to(kCuda);
    for (int64_t d : {-8, -2, 0, 1, 3, 9}) {
      SCOPED_TRACE(d);
      expect_same(tril(dx, d), tril(x, d));
      expect_same(triu(dx, d), triu(x, d));
      expect_same(tril(dx.transpose(1, 2), d), tril(x.transpose(1, 2), d));
      expect_same(triu(dx[1].t(), d), triu(x[1].t(), d));
    }
  }
  Tensor host = values({4, 4}, kFloat), dev = host.to(kCuda);
  host.tril_(-1);
  dev.tril_(-1);
  expect_same(dev, host);
  expect_same(triu(empty({0, 3}).to(kCuda)), triu(empty({0, 3})));
  expect_same(tril(empty({2, 0, 3}).to(kCuda)), tril(empty({2, 0, 3})));
}

// An index out of range: the CPU's error, raised where the host next
// synchronizes with the device (a copy to the host, cuda::synchronize),
// never a silent read; afterwards the device works as before.
TEST(CudaIndexOpsTest, OutOfRangeIndicesRaiseAtTheNextSynchronization) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const Tensor x = values({3, 4}, kFloat).to(kCuda);
  auto dev = [](std::vector<int64_t> v) { return tensor(v).to(kCuda); };
  const Tensor bad = tensor({{int64_t{0}, 1, 3, 2}}).to(kCuda);
  EXPECT_EQ(device_error_of([&] { return gather(x, 0, bad); }),
            "index 3 is out of bounds for dimension 0 with size 3");
  EXPECT_EQ(device_error_of([&] {
              return gather(x, 0, tensor({{int64_t{0}, 1, -3, 2}}).to(kCuda));
            }),
            "index -3 is out of bounds for dimension 0 with size 3");
  EXPECT_EQ(device_error_of([&] { return scatter(x, 0, bad, x); }),
            "index 3 is out of bounds for dimension 0 with size 3");
  EXPECT_EQ(device_error_of([&] { return scatter(x, 0, bad, 1.0); }),
            "index 3 is out of bounds for dimension 0 with size 3");
  EXPECT_EQ(device_error_of([&] { return scatter_add(x, 0, bad, x); }),
            "index 3 is out of bounds for dimension 0 with size 3");
  EXPECT_EQ(device_error_of([&] {
              return index_select(x, 1, dev({0, 4}));
            }),
            "index out of range in self");
  EXPECT_EQ(device_error_of([&] { return index_select(x, 1, dev({-1})); }),
            "index out of range in self");
  EXPECT_EQ(device_error_of([&] {
              return x.index_add(0, dev({0, 3, 1}), x);
            }),
            "index out of range in self");
  EXPECT_EQ(device_error_of([&] {
              return x.index_copy(0, dev({0, 1, 7}), x);
            }),
            "index_copy_(): index 7 is out of bounds for dimension 0 with size 3");
  EXPECT_EQ(device_error_of([&] { return x.index_fill(1, dev({-5}), 2); }),
            "index -5 is out of bounds for dimension 1 with size 4");
  EXPECT_EQ(device_error_of([&] { return take(x, dev({12})); }),
            "out of range: tried to access index 12 on a tensor of 12 elements.");
  EXPECT_EQ(device_error_of([&] {
              return embedding(x, dev({1, 3}));
            }),
            "index out of range in self");
  // IndexError where the CPU raises one.
  ::ember::testing::expect_error<IndexError>(
      [&] { take(x, dev({-13})).to(Device(kCPU)); },
      "out of range: tried to access index -13 on a tensor of 12 elements.");
  // Reported by cuda::synchronize too, and by a copy of another tensor.
  index_select(x, 0, dev({5}));
  EXPECT_EQ(error_of([] { cuda::synchronize(); }), "index out of range in self");
  gather(x, 1, tensor({{int64_t{0}, 4, 1}}).to(kCuda));
  EXPECT_EQ(error_of([&] { x.sum().item<float>(); }),
            "index 4 is out of bounds for dimension 1 with size 4");
  // Reported once; the device is usable afterwards.
  EXPECT_EQ(error_of([] { cuda::synchronize(); }), "(no error)");
  expect_same(index_select(x, 1, dev({3, 0})),
              index_select(x.to(Device(kCPU)), 1, tensor({int64_t{3}, 0})));
  // Host-side checks stay immediate: shapes, dtypes, devices.
  EXPECT_EQ(error_of([&] { gather(x, 0, dev({0})); }),
            "Index tensor must have the same number of dimensions as input tensor");
  EXPECT_EQ(error_of([&] { index_select(x, 0, tensor({int64_t{0}})); }),
            "Expected all tensors to be on the same device, but found at least two devices, "
            "cuda:0 and cpu!");
  EXPECT_EQ(error_of([&] { gather(x, 0, bad.to(kInt)); }),
            "gather(): Expected dtype int64 for index");
}

// reduce_ops.h on CUDA: scatter_reduce_ / index_reduce_ run on the CPU
// (Note [CPU fallback]) and write back into the device tensor; histogram is
// refused with PyTorch 1.13's dispatcher error (it has no CUDA kernel).
TEST(CudaIndexOpsTest, ReduceOpsFallBackToTheCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const Tensor self = testing::make_input({3, 4}, kFloat, 1);
  const Tensor src = testing::make_input({2, 4}, kFloat, 5);
  const Tensor idx = tensor({0, 2, 0, 1, 2, 2, 0, 1}, kLong).view({2, 4});
  for (const char* r : {"sum", "prod", "mean", "amax", "amin"}) {
    SCOPED_TRACE(r);
    const Tensor got = self.to(kCuda).scatter_reduce(0, idx.to(kCuda), src.to(kCuda), r, false);
    EXPECT_TRUE(got.is_cuda());
    expect_same(got, self.scatter_reduce(0, idx, src, r, false));
  }
  const Tensor source = testing::make_input({5, 4}, kFloat, 2);
  const Tensor rows = tensor({0, 2, 0, 1, 2}, kLong);
  Tensor d = self.to(kCuda);
  d.index_reduce_(0, rows.to(kCuda), source.to(kCuda), "amax");
  expect_same(d, self.index_reduce(0, rows, source, "amax"));
  EXPECT_EQ(error_of([&] { histogram(self.to(kCuda), 4); }),
            "Could not run 'aten::histogram.bin_ct' with arguments from the 'CUDA' backend.");
}

}  // namespace
}  // namespace ember
