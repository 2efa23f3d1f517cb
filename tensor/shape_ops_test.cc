// shape_ops.h against PyTorch 1.13 (tools/golden/shape_ops.py printed every
// expected value: dtype, sizes, strides where PyTorch's are not row-major,
// values, and the error messages). Gradients are checked in
// autograd/gradcheck_test.cc (ShapeOps), grad_fn names in
// nn/functional/grad_fn_names_test.cc.
#include "tensor/shape_ops.h"

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using testing::error_of;

// One expected result, as the golden script prints it.
struct Want {
  ScalarType dtype;
  std::vector<int64_t> sizes, strides;
  std::vector<double> values;
};

void expect_tensor(const Tensor& t, const Want& w) {
  ASSERT_TRUE(t.defined());
  EXPECT_EQ(t.dtype(), w.dtype);
  ASSERT_EQ(t.sizes(), IntArrayRef(w.sizes));
  EXPECT_EQ(t.strides(), IntArrayRef(w.strides));
  const Tensor flat = t.to(kDouble).contiguous().reshape({-1});
  ASSERT_EQ(flat.numel(), static_cast<int64_t>(w.values.size()));
  for (int64_t i = 0; i < flat.numel(); ++i) {
    const double x = flat[i].item<double>(), y = w.values[i];
    EXPECT_TRUE(x == y || (std::isnan(x) && std::isnan(y)) || std::abs(x - y) <= 1e-6 * std::abs(y))
        << "at " << i << ": " << x << ", want " << y;
  }
}

void expect_tensors(const std::vector<Tensor>& ts, const std::vector<Want>& ws) {
  ASSERT_EQ(ts.size(), ws.size());
  for (size_t i = 0; i < ts.size(); ++i) {
    SCOPED_TRACE(i);
    expect_tensor(ts[i], ws[i]);
  }
}

Tensor X() { return arange(6, kFloat).view({2, 3}); }
// [2, 3], column-major.
Tensor XT() { return arange(6, kFloat).view({3, 2}).t(); }
Tensor M() { return arange(9, kFloat).view({3, 3}); }
Tensor I7() { return arange(7, kLong); }
Tensor Z() { return zeros({3, 4}); }
Tensor L(std::vector<int64_t> v) { return tensor(v, kLong); }
Tensor F(std::vector<float> v) { return tensor(v, kFloat); }

TEST(ShapeOpsTest, Tile) {
  expect_tensor(X().tile({2}), {kFloat, {2, 6}, {6, 1}, {0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5}});
  expect_tensor(tile(X(), {2, 1, 2}),
                {kFloat, {2, 2, 6}, {12, 6, 1}, {0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5,
                                                 0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5}});
  expect_tensor(tensor(3.0f).tile({}), {kFloat, {}, {}, {3}});
  expect_tensor(tensor(3.0f).tile({2}), {kFloat, {2}, {1}, {3, 3}});
  expect_tensor(XT().tile({1, 2}), {kFloat, {2, 6}, {6, 1}, {0, 2, 4, 0, 2, 4, 1, 3, 5, 1, 3, 5}});
  EXPECT_EQ(error_of([] { X().tile({-1}); }),
            "Trying to create tensor with negative dimension -3: [2, -3]");
}

TEST(ShapeOpsTest, RepeatInterleave) {
  expect_tensor(X().repeat_interleave(2),
                {kFloat, {12}, {1}, {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5}});
  expect_tensor(X().repeat_interleave(2, -1),
                {kFloat, {2, 6}, {6, 1}, {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5}});
  expect_tensor(tensor(3.0f).repeat_interleave(2), {kFloat, {2}, {1}, {3, 3}});
  expect_tensor(X().repeat_interleave(L({1, 2}), 0),
                {kFloat, {3, 3}, {3, 1}, {0, 1, 2, 3, 4, 5, 3, 4, 5}});
  expect_tensor(XT().repeat_interleave(L({0, 2, 1}), 1),
                {kFloat, {2, 3}, {3, 1}, {2, 2, 4, 3, 3, 5}});
  expect_tensor(X().repeat_interleave(tensor(int64_t{2}), 1),
                {kFloat, {2, 6}, {6, 1}, {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5}});
  expect_tensor(X().repeat_interleave(L({1, 0, 1, 0, 1, 2})), {kFloat, {5}, {1}, {0, 2, 4, 5, 5}});
  expect_tensor(X().repeat_interleave(L({1, 2}), 0, 3),
                {kFloat, {3, 3}, {3, 1}, {0, 1, 2, 3, 4, 5, 3, 4, 5}});
  expect_tensor(zeros({0, 2}).repeat_interleave(2, 0), {kFloat, {0, 2}, {2, 1}, {}});
  expect_tensor(repeat_interleave(L({1, 0, 3})), {kLong, {4}, {1}, {0, 2, 2, 2}});
  expect_tensor(repeat_interleave(tensor({2, 1}, kInt)), {kInt, {3}, {1}, {0, 0, 1}});
  EXPECT_EQ(error_of([] { X().repeat_interleave(-1); }), "repeats can not be negative");
  EXPECT_EQ(error_of([] {
              X().repeat_interleave(L({1, 2, 3}), 0);
            }),
            "repeats must have the same size as input along dim");
  EXPECT_EQ(error_of([] { X().repeat_interleave(L({1, -2}), 0); }), "repeats can not be negative");
  EXPECT_EQ(error_of([] {
              X().repeat_interleave(L({1, 2}).view({1, 2}), 0);
            }),
            "repeats must be 0-dim or 1-dim tensor");
  EXPECT_EQ(error_of([] {
              X().repeat_interleave(F({1, 2}), 0);
            }),
            "\"repeat_interleave_cpu\" not implemented for 'Float'");
  EXPECT_EQ(error_of([] { X().repeat_interleave(2, 0, 3); }),
            "allocated size does not match required size");
  EXPECT_EQ(error_of([] { X().repeat_interleave(2, 2); }),
            "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  EXPECT_EQ(error_of([] {
              repeat_interleave(L({1, 0, 3}).view({1, 3}));
            }),
            "repeat_interleave only accept 1D vector as repeat");
}

TEST(ShapeOpsTest, RavelFlipRot90) {
  Tensor x = X();
  Tensor r = x.ravel();
  expect_tensor(r, {kFloat, {6}, {1}, {0, 1, 2, 3, 4, 5}});
  EXPECT_EQ(r.data_ptr(), x.data_ptr());  // a view of a contiguous self
  expect_tensor(ravel(XT()), {kFloat, {6}, {1}, {0, 2, 4, 1, 3, 5}});
  expect_tensor(X().fliplr(), {kFloat, {2, 3}, {3, 1}, {2, 1, 0, 5, 4, 3}});
  expect_tensor(flipud(XT()), {kFloat, {2, 3}, {1, 2}, {1, 3, 5, 0, 2, 4}});
  EXPECT_EQ(error_of([] { arange(3).fliplr(); }), "Input must be >= 2-d.");
  EXPECT_EQ(error_of([] { tensor(int64_t{1}).flipud(); }), "Input must be >= 1-d.");

  expect_tensor(X().rot90(), {kFloat, {3, 2}, {1, 3}, {2, 5, 1, 4, 0, 3}});
  expect_tensor(X().rot90(-1), {kFloat, {3, 2}, {1, 3}, {3, 0, 4, 1, 5, 2}});
  expect_tensor(X().rot90(2), {kFloat, {2, 3}, {3, 1}, {5, 4, 3, 2, 1, 0}});
  expect_tensor(rot90(X(), 3), {kFloat, {3, 2}, {1, 3}, {3, 0, 4, 1, 5, 2}});
  expect_tensor(XT().rot90(0), {kFloat, {2, 3}, {3, 1}, {0, 2, 4, 1, 3, 5}});
  expect_tensor(X().rot90(5, {1, 0}), {kFloat, {3, 2}, {1, 3}, {3, 0, 4, 1, 5, 2}});
  expect_tensor(X().rot90(1, {-2, -1}), {kFloat, {3, 2}, {1, 3}, {2, 5, 1, 4, 0, 3}});
  expect_tensor(arange(8).view({2, 2, 2}).rot90(1, {0, 2}),
                {kLong, {2, 2, 2}, {1, 2, 4}, {1, 5, 3, 7, 0, 4, 2, 6}});
  EXPECT_EQ(error_of([] { arange(3).rot90(); }),
            "expected total dims >= 2, but got total dims = 1");
  EXPECT_EQ(error_of([] {
              X().rot90(1, {0, 0});
            }),
            "expected rotation dims to be different, but got dim0 = 0 and dim1 = 0");
  EXPECT_EQ(error_of([] {
              X().rot90(1, {0, 1, 1});
            }),
            "expected total rotation dims == 2, but got dims = 3");
  EXPECT_EQ(error_of([] {
              X().rot90(1, {0, -2});
            }),
            "expected rotation dims to be different, but got dim0 = 0 and dim1 = -2");
  EXPECT_EQ(error_of([] {
              zeros({2, 2, 2}).rot90(1, {0, 3});
            }),
            "expected rotation dims to be different, but got dim0 = 0 and dim1 = 3");
}

TEST(ShapeOpsTest, TensorSplit) {
  expect_tensors(
      I7().tensor_split(3),
      {{kLong, {3}, {1}, {0, 1, 2}}, {kLong, {2}, {1}, {3, 4}}, {kLong, {2}, {1}, {5, 6}}});
  expect_tensors(I7().tensor_split({1, 6, 3, 9}), {{kLong, {1}, {1}, {0}},
                                                   {kLong, {5}, {1}, {1, 2, 3, 4, 5}},
                                                   {kLong, {0}, {1}, {}},
                                                   {kLong, {4}, {1}, {3, 4, 5, 6}},
                                                   {kLong, {0}, {1}, {}}});
  expect_tensors(
      tensor_split(I7(), IntArrayRef({-2, 5})),
      {{kLong, {5}, {1}, {0, 1, 2, 3, 4}}, {kLong, {0}, {1}, {}}, {kLong, {2}, {1}, {5, 6}}});
  expect_tensors(
      I7().tensor_split(L({1, 5})),
      {{kLong, {1}, {1}, {0}}, {kLong, {4}, {1}, {1, 2, 3, 4}}, {kLong, {2}, {1}, {5, 6}}});
  expect_tensors(
      I7().tensor_split(tensor(int64_t{3})),
      {{kLong, {3}, {1}, {0, 1, 2}}, {kLong, {2}, {1}, {3, 4}}, {kLong, {2}, {1}, {5, 6}}});
  expect_tensors(XT().tensor_split(2, -1),
                 {{kFloat, {2, 2}, {1, 2}, {0, 2, 1, 3}}, {kFloat, {2, 1}, {1, 2}, {4, 5}}});
  // The pieces are views.
  Tensor x = X();
  x.tensor_split(2, 1)[1].fill_(-1);
  EXPECT_EQ(x[0][2].item<float>(), -1);
  EXPECT_EQ(error_of([] { I7().tensor_split(0); }),
            "number of sections must be larger than 0, got 0");
  EXPECT_EQ(
      error_of([] { I7().tensor_split(F({1})); }),
      "tensor_split expected tensor_indices_or_sections to have dtype of long, but got Float");
  EXPECT_EQ(error_of([] {
              I7().tensor_split(L({1}).view({1, 1}));
            }),
            "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
            "one-dimensional tensor, but got a tensor with 2 dims");
  EXPECT_EQ(error_of([] { tensor(int64_t{1}).tensor_split(2); }),
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
}

TEST(ShapeOpsTest, HsplitVsplitDsplit) {
  expect_tensors(X().hsplit(3), {{kFloat, {2, 1}, {3, 1}, {0, 3}},
                                 {kFloat, {2, 1}, {3, 1}, {1, 4}},
                                 {kFloat, {2, 1}, {3, 1}, {2, 5}}});
  expect_tensors(arange(4).hsplit(2), {{kLong, {2}, {1}, {0, 1}}, {kLong, {2}, {1}, {2, 3}}});
  expect_tensors(hsplit(X(), IntArrayRef({1})),
                 {{kFloat, {2, 1}, {3, 1}, {0, 3}}, {kFloat, {2, 2}, {3, 1}, {1, 2, 4, 5}}});
  expect_tensors(arange(4).view({2, 2}).vsplit(IntArrayRef({1})),
                 {{kLong, {1, 2}, {2, 1}, {0, 1}}, {kLong, {1, 2}, {2, 1}, {2, 3}}});
  expect_tensors(arange(8).view({1, 2, 4}).dsplit({1, 3}),
                 {{kLong, {1, 2, 1}, {8, 4, 1}, {0, 4}},
                  {kLong, {1, 2, 2}, {8, 4, 1}, {1, 2, 5, 6}},
                  {kLong, {1, 2, 1}, {8, 4, 1}, {3, 7}}});
  expect_tensors(
      dsplit(arange(8).view({1, 2, 4}), 2),
      {{kLong, {1, 2, 2}, {8, 4, 1}, {0, 1, 4, 5}}, {kLong, {1, 2, 2}, {8, 4, 1}, {2, 3, 6, 7}}});
  EXPECT_EQ(error_of([] { X().hsplit(2); }),
            "torch.hsplit attempted to split along dimension 1, but the size of the dimension 3 "
            "is not divisible by the split_size 2!");
  EXPECT_EQ(error_of([] { tensor(int64_t{1}).hsplit(2); }),
            "torch.hsplit requires a tensor with at least 1 dimension, but got a tensor with 0 "
            "dimensions!");
  EXPECT_EQ(error_of([] { arange(4).vsplit(2); }),
            "torch.vsplit requires a tensor with at least 2 dimension, but got a tensor with 1 "
            "dimensions!");
  EXPECT_EQ(error_of([] {
              arange(6, kFloat).view({3, 2}).vsplit(2);
            }),
            "torch.vsplit attempted to split along dimension 0, but the size of the dimension 3 "
            "is not divisible by the split_size 2!");
  EXPECT_EQ(error_of([] { X().dsplit(1); }),
            "torch.dsplit requires a tensor with at least 3 dimension, but got a tensor with 2 "
            "dimensions!");
  EXPECT_EQ(error_of([] {
              arange(8).view({1, 2, 4}).dsplit(3);
            }),
            "torch.dsplit attempted to split along dimension 2, but the size of the dimension 4 "
            "is not divisible by the split_size 3!");
}

TEST(ShapeOpsTest, TakeAlongDim) {
  expect_tensor(X().take_along_dim(L({2, 0}).view({2, 1}), 1), {kFloat, {2, 1}, {1, 1}, {2, 3}});
  expect_tensor(X().take_along_dim(L({1, 0}).view({2, 1}), 0),
                {kFloat, {2, 3}, {3, 1}, {3, 4, 5, 0, 1, 2}});
  expect_tensor(take_along_dim(X(), L({5, 0})), {kFloat, {2}, {1}, {5, 0}});
  expect_tensor(XT().take_along_dim(L({1}).view({1, 1}), -1), {kFloat, {2, 1}, {1, 1}, {2, 3}});
  EXPECT_EQ(error_of([] {
              X().take_along_dim(L({2, 0}).view({1, 2}), 0);
            }),
            "The size of tensor a (3) must match the size of tensor b (2) at non-singleton "
            "dimension 1");
  EXPECT_EQ(error_of([] {
              XT().take_along_dim(L({5, 0}));
            }),
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
  EXPECT_EQ(error_of([] { X().take_along_dim(L({0}), 0); }),
            "torch.take_along_dim(): input and indices should have the same number of dimensions, "
            "but got 2 dimensions for input, and 1 dimensions for indices");
  EXPECT_EQ(error_of([] {
              X().take_along_dim(tensor({0}, kInt).view({1, 1}), 0);
            }),
            "torch.take_along_dim(): dtype of indices should be Long but got Int");
}

TEST(ShapeOpsTest, Views) {
  Tensor b = L({1, 2}).broadcast_to({2, 2});
  expect_tensor(b, {kLong, {2, 2}, {0, 1}, {1, 2, 1, 2}});
  expect_tensor(X().swapaxes(0, -1), {kFloat, {3, 2}, {1, 3}, {0, 3, 1, 4, 2, 5}});
  const std::vector<double> zeros24(24, 0.0);
  expect_tensor(swapdims(zeros({2, 3, 4}), 0, 2), {kFloat, {4, 3, 2}, {1, 4, 12}, zeros24});
  expect_tensor(zeros({2, 3, 4}).moveaxis(0, -1), {kFloat, {3, 4, 2}, {4, 1, 12}, zeros24});
  expect_tensor(zeros({2, 3, 4}).moveaxis({0, 1}, {2, 0}),
                {kFloat, {3, 4, 2}, {4, 1, 12}, zeros24});
  expect_tensor(moveaxis(zeros({2, 3, 4}), IntArrayRef({-1}), IntArrayRef({0})),
                {kFloat, {4, 2, 3}, {1, 12, 4}, zeros24});
  expect_tensor(tensor(1.0f).movedim(IntArrayRef({0}), IntArrayRef({0})), {kFloat, {}, {}, {1}});
  EXPECT_EQ(error_of([] {
              zeros({2, 3, 4}).moveaxis({0, 0}, {2, 1});
            }),
            "movedim: repeated dim in `source` ([0, 0])");
  EXPECT_EQ(error_of([] {
              zeros({2, 3, 4}).moveaxis({0, 1}, {1, -2});
            }),
            "movedim: repeated dim in `destination` ([1, -2])");
  EXPECT_EQ(error_of([] {
              zeros({2, 3, 4}).moveaxis(IntArrayRef({0}), IntArrayRef({2, 1}));
            }),
            "movedim: Invalid source or destination dims: source ([0] dims) should contain the "
            "same number of dims as destination ([2, 1] dims)");
  Tensor y = X() * 1;
  EXPECT_TRUE(y.swapaxes_(0, 1).is_same(y));
  EXPECT_EQ(y.sizes(), IntArrayRef({3, 2}));
  EXPECT_TRUE(y.swapdims_(1, 0).is_same(y));
  EXPECT_EQ(y.strides(), IntArrayRef({3, 1}));

  expect_tensors(arange(5).unsafe_split(2),
                 {{kLong, {2}, {1}, {0, 1}}, {kLong, {2}, {1}, {2, 3}}, {kLong, {1}, {1}, {4}}});
  expect_tensors(unsafe_chunk(arange(5), 3),
                 {{kLong, {2}, {1}, {0, 1}}, {kLong, {2}, {1}, {2, 3}}, {kLong, {1}, {1}, {4}}});
  expect_tensors(
      arange(10, kFloat).view({5, 2}).unsafe_split_with_sizes({2, 3}),
      {{kFloat, {2, 2}, {2, 1}, {0, 1, 2, 3}}, {kFloat, {3, 2}, {2, 1}, {4, 5, 6, 7, 8, 9}}});
  expect_tensors(
      unsafe_split_with_sizes(arange(10, kFloat).view({2, 5}), {1, 4}, 1),
      {{kFloat, {2, 1}, {5, 1}, {0, 5}}, {kFloat, {2, 4}, {5, 1}, {1, 2, 3, 4, 6, 7, 8, 9}}});
  EXPECT_EQ(error_of([] {
              arange(10, kFloat).view({2, 5}).unsafe_split_with_sizes({1, 3}, 1);
            }),
            "split_with_sizes expects split_sizes to sum exactly to 5 (input tensor's size at "
            "dimension 1), but got split_sizes=[1, 3]");
  Tensor x = X();
  Tensor n = narrow_copy(x, -1, -2, 2);
  expect_tensor(n, {kFloat, {2, 2}, {2, 1}, {1, 2, 4, 5}});
  n.fill_(0);  // a copy
  EXPECT_EQ(x[0][1].item<float>(), 1);
  expect_tensor(XT().narrow_copy(0, 1, 1), {kFloat, {1, 3}, {3, 1}, {1, 3, 5}});
  EXPECT_EQ(error_of([] { X().narrow_copy(1, 2, 2); }),
            "start (2) + length (2) exceeds dimension size (3).");
}

TEST(ShapeOpsTest, SumToSizeAndArgwhere) {
  expect_tensor(X().sum_to_size({1, 3}), {kFloat, {1, 3}, {3, 1}, {3, 5, 7}});
  expect_tensor(X().sum_to_size({3}), {kFloat, {3}, {1}, {3, 5, 7}});
  expect_tensor(XT().sum_to_size({2, 1}), {kFloat, {2, 1}, {1, 1}, {6, 9}});
  expect_tensor(ones({2, 3}, kInt).sum_to_size({1, 3}), {kLong, {1, 3}, {3, 1}, {2, 2, 2}});
  expect_tensor(X().sum_to_size({}), {kFloat, {}, {}, {15}});
  Tensor x = X();
  EXPECT_TRUE(x.sum_to_size({2, 3}).is_same(x));
  EXPECT_EQ(error_of([] {
              X().sum_to_size({2, 2});
            }),
            "size {[2, 2]} is not expandable to size {[2, 3]}.");
  Tensor w = argwhere(F({0, 1, 2, 0}).view({2, 2}));
  EXPECT_EQ(w.dtype(), kLong);
  EXPECT_TRUE(w.equal(L({0, 1, 1, 0}).view({2, 2})));
  EXPECT_EQ(tensor(1.0f).argwhere().sizes(), IntArrayRef({1, 0}));
}

TEST(ShapeOpsTest, NewFactories) {
  Tensor i = ones({2}, kInt);
  expect_tensor(i.new_zeros({2, 3}), {kInt, {2, 3}, {3, 1}, {0, 0, 0, 0, 0, 0}});
  expect_tensor(X().new_ones({2}, kDouble), {kDouble, {2}, {1}, {1, 1}});
  expect_tensor(i.new_full({2}, 7), {kInt, {2}, {1}, {7, 7}});
  expect_tensor(XT().new_empty({2, 3}).fill_(0), {kFloat, {2, 3}, {3, 1}, {0, 0, 0, 0, 0, 0}});
  expect_tensor(X().new_empty_strided({2, 3}, {1, 2}).fill_(0),
                {kFloat, {2, 3}, {1, 2}, {0, 0, 0, 0, 0, 0}});
}

TEST(ShapeOpsTest, TraceInner) {
  expect_tensor(M().trace(), {kFloat, {}, {}, {12}});
  expect_tensor(trace(XT()), {kFloat, {}, {}, {3}});
  expect_tensor(arange(9, kInt).view({3, 3}).trace(), {kLong, {}, {}, {12}});
  expect_tensor(zeros({0, 3}).trace(), {kFloat, {}, {}, {0}});
  EXPECT_EQ(error_of([] { ones({2, 2}, kBool).trace(); }), "\"trace\" not implemented for 'Bool'");
  EXPECT_EQ(error_of([] { eye(2).to(kHalf).trace(); }), "\"trace\" not implemented for 'Half'");
  EXPECT_EQ(error_of([] { arange(3, kFloat).trace(); }),
            "trace: expected a matrix, but got tensor with dim 1");

  expect_tensor(X().inner(arange(12, kFloat).view({4, 3})),
                {kFloat, {2, 4}, {4, 1}, {5, 14, 23, 32, 14, 50, 86, 122}});
  expect_tensor(inner(tensor(2.0f), X()), {kFloat, {2, 3}, {3, 1}, {0, 2, 4, 6, 8, 10}});
  expect_tensor(arange(3, kFloat).inner(arange(3, kFloat)), {kFloat, {}, {}, {5}});
  expect_tensor(arange(3).inner(arange(3)), {kLong, {}, {}, {5}});
  expect_tensor(arange(12, kFloat).view({2, 2, 3}).inner(XT()),
                {kFloat, {2, 2, 2}, {4, 2, 1}, {10, 13, 28, 40, 46, 67, 64, 94}});
  expect_tensor(ones({2, 0}).inner(ones({3, 0})), {kFloat, {2, 3}, {3, 1}, {0, 0, 0, 0, 0, 0}});
  EXPECT_EQ(error_of([] { X().inner(ones({2})); }),
            "inner() the last dimension must match on both input tensors but got shapes [2, 3] "
            "and [2]");
}

// libtorch 1.13's tensordot (inner is tensordot over the last dims); values
// from torch.tensordot.
TEST(ShapeOpsTest, Tensordot) {
  const Tensor a = arange(24, kFloat).view({2, 3, 4}), b = arange(12, kFloat).view({4, 3});
  expect_tensor(tensordot(a, b, {1, 2}, {1, 0}), {kFloat, {2}, {1}, {440, 1232}});
  // A size-1 contracted dim broadcasts: the other side is summed over it.
  const Tensor bc = tensordot(a, arange(5, kFloat).view({1, 5}), {0}, {0});
  EXPECT_EQ(bc.sizes(), IntArrayRef({3, 4, 5}));
  EXPECT_TRUE(bc.equal(a.sum(0).unsqueeze(-1) * arange(5, kFloat))) << bc;
  expect_tensor(tensordot(tensor({1, 2}, kByte), tensor({{3}, {4}}, kLong), {0}, {1}),
                {kLong, {2}, {1}, {9, 12}});
  // ...and an int32 sum is int64, which mm refuses beside int32 (as 1.13).
  EXPECT_EQ(error_of([] {
              tensordot(tensor({1, 2}, kInt), tensor({{3}, {4}}, kInt), {0}, {1});
            }),
            "expected scalar type Long but found Int");
  EXPECT_EQ(error_of([] { inner(tensor({4}, kInt), tensor({0}, kInt)); }),
            "expected scalar type Long but found Int");
  expect_tensor(inner(tensor({2}, kByte), tensor({-1}, kLong)), {kLong, {}, {}, {-2}});
  EXPECT_EQ(error_of([&] {
              tensordot(a, b, {1}, {1, 0});
            }),
            "both dimension lists should have same length");
  EXPECT_EQ(error_of([&] { tensordot(a, b, {1}, {0}); }),
            "contracted dimensions need to match, but first has size 3 in dim 1 and second has "
            "size 4 in dim 0");
  EXPECT_EQ(error_of([&] {
              tensordot(a, b, {1, -2}, {1, 1});
            }),
            "dim 1 appears multiple times in the list of dims");
}

TEST(ShapeOpsTest, Addmv) {
  const Tensor v3 = F({1, -1, 2});
  expect_tensor(ones({2}).addmv(X(), v3, 2, 0.5), {kFloat, {2}, {1}, {3.5, 6.5}});
  expect_tensor(addmv(ones({2}), XT(), v3), {kFloat, {2}, {1}, {7, 9}});
  expect_tensor(tensor(1.0f).addmv(X(), v3), {kFloat, {2}, {1}, {4, 10}});
  const double nan = std::numeric_limits<double>::quiet_NaN();
  expect_tensor(tensor({nan, 1.0}, kFloat).addmv(X(), v3, 0), {kFloat, {2}, {1}, {3, 9}});
  expect_tensor(ones({2}, kLong).addmv(ones({2, 3}, kLong), ones({3}, kLong), 2, 3),
                {kLong, {2}, {1}, {11, 11}});
  expect_tensor(ones({2}, kLong).addmv(ones({2, 3}, kLong), ones({3}, kLong), 0.5, 3),
                {kLong, {2}, {1}, {9, 9}});
  expect_tensor(ones({2}).addmv(ones({2, 0}), ones({0})), {kFloat, {2}, {1}, {1, 1}});
  Tensor s = ones({2});
  EXPECT_TRUE(s.addmv_(X(), v3, 2).is_same(s));
  expect_tensor(s, {kFloat, {2}, {1}, {5, 11}});
  EXPECT_EQ(error_of([&] { ones({2}).addmv(X(), arange(2, kFloat)); }),
            "size mismatch, got 2, 2x3,2");
  EXPECT_EQ(error_of([&] { ones({3}).addmv(X(), v3); }), "size mismatch, got 3, 2x3,3");
  EXPECT_EQ(error_of([] {
              ones({2, 2}).addmv(ones({2, 3}), ones({3}));
            }),
            "vector + matrix @ vector expected, got 2, 2, 1");
  EXPECT_EQ(error_of([&] { ones({2}).addmv_(X().to(kDouble), v3.to(kDouble)); }),
            "Bad in-place call: input tensor dtype float and output tensor dtype double should "
            "match");
  EXPECT_EQ(error_of([] {
              ones({2}, kInt).addmv_(ones({2, 3}, kLong), ones({3}, kLong));
            }),
            "Bad in-place call: input tensor dtype int and output tensor dtype long int should "
            "match");
  EXPECT_EQ(error_of([&] { tensor(1.0f).addmv_(X(), v3); }),
            "Bad in-place call: input tensor size [] and output tensor size [2] should match");
}

TEST(ShapeOpsTest, Addr) {
  const Tensor a2 = F({1, 2}), b3 = F({1, 0, -1});
  expect_tensor(ones({2, 3}).addr(a2, b3, 2, 3), {kFloat, {2, 3}, {3, 1}, {5, 2, -1, 8, 2, -4}});
  expect_tensor(addr(F({1, 2, 3}), a2, b3), {kFloat, {2, 3}, {3, 1}, {2, 2, 2, 3, 2, 1}});
  const double nan = std::numeric_limits<double>::quiet_NaN();
  expect_tensor(tensor({nan}, kFloat).view({1, 1}).addr(ones({1}), ones({1}), 0),
                {kFloat, {1, 1}, {1, 1}, {1}});
  const Tensor bools = tensor({false, true, false, false}).view({2, 2});
  const Tensor tf = tensor({true, false});
  expect_tensor(bools.addr(tf, tf), {kBool, {2, 2}, {2, 1}, {1, 1, 0, 0}});
  expect_tensor(bools.addr(tf, tf, 0), {kBool, {2, 2}, {2, 1}, {1, 0, 0, 0}});
  expect_tensor(ones({2, 2}, kLong).addr(L({1, 2}), L({1, 2}), 2, 3),
                {kLong, {2, 2}, {2, 1}, {5, 8, 8, 14}});
  expect_tensor(ones({2, 2}, kLong).addr(ones({2}), ones({2})),
                {kFloat, {2, 2}, {2, 1}, {2, 2, 2, 2}});
  expect_tensor(ones({2, 2}).addr_(ones({2}, kDouble), ones({2}, kDouble)),
                {kFloat, {2, 2}, {2, 1}, {2, 2, 2, 2}});
  EXPECT_EQ(error_of([] {
              ones({2, 2}, kLong).addr_(ones({2}), ones({2}));
            }),
            "result type Float can't be cast to the desired output type Long");
  Tensor s = ones({2, 2});
  EXPECT_TRUE(s.addr_(ones({2}), arange(2, kFloat)).is_same(s));
  expect_tensor(s, {kFloat, {2, 2}, {2, 1}, {1, 2, 1, 2}});
  // Half rounds each product in PyTorch's order: (alpha * vec1[i]) * vec2[j].
  const Tensor h =
      tensor({3.08203125, -0.5869140625, -4.359375, 1.13671875, -2.169921875, -2.796875})
          .view({2, 3})
          .to(kHalf);
  expect_tensor(
      h.addr(tensor({0.806640625, 1.67578125}).to(kHalf),
             tensor({-1.4384765625, -0.806640625, -1.193359375}).to(kHalf), 2, 3),
      {kHalf, {2, 3}, {3, 1}, {2.68359375, -3.125, -11.609375, -4.95703125, -8.390625, -11.59375}});
  EXPECT_EQ(error_of([&] { ones({2}).addr(a2, b3); }),
            "The expanded size of the tensor (3) must match the existing size (2) at "
            "non-singleton dimension 1.  Target sizes: [2, 3].  Tensor sizes: [2]");
  EXPECT_EQ(error_of([] {
              ones({2, 2}, kLong).addr(L({1, 2}), L({1, 2}), 0.5);
            }),
            "For integral input tensors, argument beta must not be a floating point number.");
  EXPECT_EQ(error_of([] {
              ones({2, 2}, kLong).addr(L({1, 2}), L({1, 2}), 1, 0.5);
            }),
            "For integral input tensors, argument alpha must not be a floating point number.");
  EXPECT_EQ(error_of([] {
              ones({2, 2}).addr(ones({2, 2}), ones({2}));
            }),
            "addr: Expected 1-D argument vec1, but got 2-D");
  EXPECT_EQ(error_of([] {
              ones({2, 2}).addr(ones({2}), ones({2, 1}));
            }),
            "addr: Expected 1-D argument vec2, but got 2-D");
}

// addr's one-pass CPU loop (float, double) gives the composition's values
// bit for bit: (alpha * vec1[i]) * vec2[j] and beta * self rounded on their
// own, then summed; self strided, broadcast along either dim or a scalar;
// strided vectors; lengths that are no multiple of the vector width; beta 0
// never reads self (NaN there).
TEST(ShapeOpsTest, AddrOnePassMatchesComposition) {
  manual_seed(3);
  for (ScalarType t : {kFloat, kDouble}) {
    // [71, 1031]: more than the grain (kGrainSize), rows split across threads.
    for (int64_t m : {1, 13, 37, 1031}) {
      const int64_t n = m == 1031 ? 71 : 7;
      const Tensor v1 = randn({2 * n}, t).slice(0, 0, 2 * n, 2);
      const Tensor v2 = randn({2 * m}, t).slice(0, 0, 2 * m, 2);
      Tensor full = randn({n, m}, t);
      full.index_put_({0, 0}, std::numeric_limits<double>::quiet_NaN());
      const std::vector<Tensor> selves = {full, randn({m, n}, t).t(), randn({m}, t),
                                          randn({n, 1}, t), randn({}, t)};
      for (const Tensor& self : selves) {
        for (double beta : {0.0, 1.0, 2.5}) {
          for (double alpha : {1.0, 0.3}) {
            SCOPED_TRACE(::testing::Message()
                         << scalar_type_name(t) << " m " << m << " self " << self.dim()
                         << "-d beta " << beta << " alpha " << alpha);
            const Tensor prod = (v1.contiguous() * alpha).view({n, 1}) * v2.contiguous();
            const Tensor want = beta == 0 ? prod : self.expand({n, m}) * beta + prod;
            const Tensor got = self.addr(v1, v2, beta, alpha);
            ASSERT_EQ(got.sizes(), want.sizes());
            EXPECT_EQ(got.strides(), want.strides());  // a transposed self's layout
            EXPECT_TRUE(got.equal(want) || (got.isnan() == want.isnan()).all().item<bool>() &&
                                               got.nan_to_num().equal(want.nan_to_num()));
          }
        }
      }
    }
  }
}

TEST(ShapeOpsTest, AddbmmBaddbmm) {
  const Tensor b1 = arange(24, kFloat).view({3, 2, 4}), b2 = arange(24, kFloat).view({3, 4, 2}) / 4;
  expect_tensor(ones({2, 2}).addbmm(b1, b2, 2, 0.5),
                {kFloat, {2, 2}, {2, 1}, {226.5, 240.75, 292.5, 312.75}});
  expect_tensor(addbmm(F({1, 2}), b1, b2), {kFloat, {2, 2}, {2, 1}, {450, 479.5, 582, 623.5}});
  expect_tensor(ones({2, 2}).addbmm(b1.transpose(1, 2).contiguous().transpose(1, 2), b2),
                {kFloat, {2, 2}, {2, 1}, {450, 478.5, 582, 622.5}});
  expect_tensor(ones({2, 2}).addbmm(ones({0, 2, 4}), ones({0, 4, 2})),
                {kFloat, {2, 2}, {2, 1}, {1, 1, 1, 1}});
  expect_tensor(ones({2, 2}, kLong).addbmm(ones({3, 2, 4}, kLong), ones({3, 4, 2}, kLong), 2, 3),
                {kLong, {2, 2}, {2, 1}, {38, 38, 38, 38}});
  expect_tensor(
      ones({2, 2}, kLong).addbmm(ones({3, 2, 4}, kLong), ones({3, 4, 2}, kLong), 0.5, 1.5),
      {kLong, {2, 2}, {2, 1}, {12, 12, 12, 12}});
  Tensor s = ones({2, 2});
  EXPECT_TRUE(s.addbmm_(b1, b2, 1, 2).is_same(s));
  expect_tensor(s, {kFloat, {2, 2}, {2, 1}, {899, 956, 1163, 1244}});
  EXPECT_EQ(error_of([] {
              ones({2, 2}).addbmm(ones({3, 2, 4}), ones({2, 4, 2}));
            }),
            "batch1 and batch2 must have same number of batches, got 3 and 2");
  EXPECT_EQ(error_of([] {
              ones({4, 2}).addbmm(ones({2, 4}), ones({2, 4, 2}));
            }),
            "batch1 must be a 3D tensor");
  EXPECT_EQ(error_of([] {
              ones({2, 2}).addbmm(ones({3, 2, 4}), ones({3, 3, 2}));
            }),
            "Incompatible matrix sizes for bmm (2x4 and 3x2)");
  EXPECT_EQ(error_of([] {
              ones({2, 2}, kLong).addbmm(ones({3, 2, 4}), ones({3, 4, 2}));
            }),
            "self and mat2 must have the same dtype");

  Tensor t = ones({1, 2, 2});
  EXPECT_TRUE(t.baddbmm_(ones({1, 2, 4}), ones({1, 4, 2}), 2).is_same(t));
  expect_tensor(t, {kFloat, {1, 2, 2}, {4, 2, 1}, {6, 6, 6, 6}});
  EXPECT_EQ(error_of([] {
              ones({2, 2}).baddbmm_(ones({3, 2, 4}), ones({3, 4, 2}));
            }),
            "Bad in-place call: input tensor size [2, 2] and output tensor size [3, 2, 2] should "
            "match");
  EXPECT_EQ(error_of([] {
              ones({2, 2, 2}, kHalf).baddbmm_(ones({2, 2, 4}), ones({2, 4, 2}));
            }),
            "Bad in-place call: input tensor dtype c10::Half and output tensor dtype float should "
            "match");
  EXPECT_EQ(error_of([] {
              ones({2, 1, 3}).baddbmm_(ones({2, 1, 3}), ones({2, 3, 1}));
            }),
            "The expanded size of the tensor (1) must match the existing size (3) at "
            "non-singleton dimension 2.  Target sizes: [2, 1, 1].  Tensor sizes: [2, 1, 3]");
}

TEST(ShapeOpsTest, MatrixPower) {
  expect_tensor(M().matrix_power(0), {kFloat, {3, 3}, {3, 1}, {1, 0, 0, 0, 1, 0, 0, 0, 1}});
  Tensor mt = M().t();
  Tensor one = mt.matrix_power(1);
  expect_tensor(one, {kFloat, {3, 3}, {3, 1}, {0, 3, 6, 1, 4, 7, 2, 5, 8}});
  EXPECT_NE(one.data_ptr(), mt.data_ptr());  // a copy
  expect_tensor(arange(4, kFloat).view({2, 2}).t().matrix_power(2),
                {kFloat, {2, 2}, {2, 1}, {2, 6, 3, 11}});
  expect_tensor(matrix_power(M(), 3),
                {kFloat, {3, 3}, {3, 1}, {180, 234, 288, 558, 720, 882, 936, 1206, 1476}});
  expect_tensor(arange(4).view({2, 2}).matrix_power(5),
                {kLong, {2, 2}, {2, 1}, {78, 139, 278, 495}});
  expect_tensor(L({1, 1, 1, 0}).view({2, 2}).matrix_power(6),
                {kLong, {2, 2}, {2, 1}, {13, 8, 8, 5}});
  expect_tensor(arange(8, kFloat).view({2, 2, 2}).matrix_power(2),
                {kFloat, {2, 2, 2}, {4, 2, 1}, {2, 3, 6, 11, 46, 55, 66, 79}});
  expect_tensor(arange(8, kFloat).view({2, 2, 2}).matrix_power(0),
                {kFloat, {2, 2, 2}, {4, 2, 1}, {1, 0, 0, 1, 1, 0, 0, 1}});
  EXPECT_EQ(error_of([] { X().matrix_power(2); }),
            "linalg.matrix_power: A must be batches of square matrices, but they are 2 by 3 "
            "matrices");
  EXPECT_EQ(error_of([] { arange(3, kFloat).matrix_power(2); }),
            "linalg.matrix_power: The input tensor A must have at least 2 dimensions.");
  // Negative powers invert first (PyTorch 1.13's values).
  const Tensor a = tensor({{2.0, 1.0}, {1.0, 3.0}}, kDouble);
  EXPECT_TRUE(a.matrix_power(-1).allclose(tensor({{0.6, -0.2}, {-0.2, 0.4}}, kDouble), 1e-14));
  EXPECT_TRUE(a.matrix_power(-3).allclose(
      tensor({{0.27999999999999997, -0.16}, {-0.16, 0.12000000000000002}}, kDouble), 1e-14));
  EXPECT_EQ(error_of([] {
              tensor({{1, 2}, {3, 4}}, kLong).matrix_power(-1);
            }),
            "linalg.inv: Expected a floating point or complex tensor as input. Got Long");
}

TEST(ShapeOpsTest, DiagEmbedDiagflat) {
  expect_tensor(
      X().diag_embed(),
      {kFloat, {2, 3, 3}, {9, 3, 1}, {0, 0, 0, 0, 1, 0, 0, 0, 2, 3, 0, 0, 0, 4, 0, 0, 0, 5}});
  expect_tensor(arange(2, kFloat).diag_embed(1),
                {kFloat, {3, 3}, {3, 1}, {0, 0, 0, 0, 0, 1, 0, 0, 0}});
  expect_tensor(F({1, 2}).diag_embed(-1, 1, 0),
                {kFloat, {3, 3}, {3, 1}, {0, 1, 0, 0, 0, 2, 0, 0, 0}});
  expect_tensor(diag_embed(X(), -1, 0, 2),
                {kFloat, {4, 2, 4}, {8, 4, 1}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0,
                                                0, 1, 0, 0, 0, 4, 0, 0, 0, 0, 2, 0, 0, 0, 5, 0}});
  expect_tensor(
      XT().diag_embed(),
      {kFloat, {2, 3, 3}, {9, 3, 1}, {0, 0, 0, 0, 2, 0, 0, 0, 4, 1, 0, 0, 0, 3, 0, 0, 0, 5}});
  expect_tensor(L({1, 2}).diag_embed(), {kLong, {2, 2}, {2, 1}, {1, 0, 0, 2}});
  EXPECT_EQ(error_of([] { X().diag_embed(0, 1, 1); }),
            "diagonal dimensions cannot be identical 1, 1");
  EXPECT_EQ(error_of([] { tensor(1.0f).diag_embed(); }),
            "Dimension out of range (expected to be in range of [-1, 0], but got -2)");
  EXPECT_EQ(error_of([] { X().diag_embed(0, 0, 3); }),
            "Dimension out of range (expected to be in range of [-3, 2], but got 3)");

  std::vector<double> d6(36, 0.0);
  for (int i = 0; i < 6; ++i) d6[i * 7] = i;
  expect_tensor(X().diagflat(), {kFloat, {6, 6}, {6, 1}, d6});
  std::vector<double> d6t(36, 0.0);
  const double order[] = {0, 2, 4, 1, 3, 5};
  for (int i = 0; i < 6; ++i) d6t[i * 7] = order[i];
  expect_tensor(diagflat(XT()), {kFloat, {6, 6}, {6, 1}, d6t});
  expect_tensor(L({1, 2}).diagflat(-1), {kLong, {3, 3}, {3, 1}, {0, 0, 0, 1, 0, 0, 0, 2, 0}});
  expect_tensor(L({1, 2}).view({1, 2}).diagflat(1),
                {kLong, {3, 3}, {3, 1}, {0, 1, 0, 0, 0, 2, 0, 0, 0}});
  expect_tensor(tensor(3.0f).diagflat(), {kFloat, {1, 1}, {1, 1}, {3}});
}

TEST(ShapeOpsTest, SelectScatter) {
  expect_tensor(Z().select_scatter(ones({4}), 0, 1),
                {kFloat, {3, 4}, {4, 1}, {0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0}});
  expect_tensor(select_scatter(Z(), arange(3, kFloat), -1, -1),
                {kFloat, {3, 4}, {4, 1}, {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2}});
  expect_tensor(Z().t().select_scatter(ones({4}), 1, 0),
                {kFloat, {4, 3}, {1, 4}, {1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0}});
  expect_tensor(Z().to(kLong).select_scatter(full({4}, 2.5), 0, 0),
                {kLong, {3, 4}, {4, 1}, {2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0}});
  expect_tensor(zeros({3}).select_scatter(tensor(5.0f), 0, 1), {kFloat, {3}, {1}, {0, 5, 0}});
  Tensor z = Z();
  z.select_scatter(ones({4}), 0, 1);
  EXPECT_EQ(z.sum().item<float>(), 0);  // self is not written
  EXPECT_EQ(error_of([] { Z().select_scatter(ones({3}), 0, 1); }),
            "expected src to have a size equal to the slice of self. src size = [3], slice size = "
            "[4]");
  EXPECT_EQ(error_of([] { Z().select_scatter(ones({4}), 0, 3); }),
            "select(): index 3 out of range for tensor of size [3, 4] at dimension 0");
  EXPECT_EQ(error_of([] { Z().select_scatter(ones({4}), 2, 0); }),
            "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

TEST(ShapeOpsTest, SliceScatter) {
  expect_tensor(Z().slice_scatter(ones({2, 4}), 0, 1),
                {kFloat, {3, 4}, {4, 1}, {0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1}});
  expect_tensor(Z().slice_scatter(ones({3, 2}), 1, 0, std::nullopt, 2),
                {kFloat, {3, 4}, {4, 1}, {1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0}});
  expect_tensor(slice_scatter(Z(), ones({3, 1}), 1, 1, 3, 2),
                {kFloat, {3, 4}, {4, 1}, {0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0}});
  expect_tensor(Z().slice_scatter(ones({3, 2}), -1, -2),
                {kFloat, {3, 4}, {4, 1}, {0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1}});
  expect_tensor(Z().slice_scatter(ones({3, 4}), 1, -10, 10),
                {kFloat, {3, 4}, {4, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}});
  expect_tensor(Z().t().slice_scatter(arange(6, kFloat).view({2, 3}), 0, 2),
                {kFloat, {4, 3}, {1, 4}, {0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5}});
  EXPECT_EQ(error_of([] {
              Z().slice_scatter(ones({3, 3}), 1, 0, 4);
            }),
            "expected src to have a size equal to the slice of self. src size = [3, 3], slice "
            "size = [3, 4]");
  EXPECT_EQ(error_of([] {
              Z().slice_scatter(ones({3, 4}), 1, 0, 4, 0);
            }),
            "slice step must be positive");
}

// PyTorch 1.13's values (tools/golden/shape_ops.py "as ..." lines).
TEST(ShapeOpsTest, AsStridedScatter) {
  expect_tensor(Z().as_strided_scatter(arange(1, 5, kFloat).view({2, 2}), {2, 2}, {4, 1}),
                {kFloat, {3, 4}, {4, 1}, {1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 0, 0}});
  expect_tensor(as_strided_scatter(Z(), arange(1, 4, kFloat), {3}, {5}, 1),
                {kFloat, {3, 4}, {4, 1}, {0, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3}});
  // The copy keeps self's layout; offsets count in its storage.
  expect_tensor(Z().t().as_strided_scatter(arange(1, 4, kFloat), {3}, {1}, 2),
                {kFloat, {4, 3}, {1, 4}, {0, 3, 0, 0, 0, 0, 1, 0, 0, 2, 0, 0}});
  expect_tensor(Z().to(kLong).as_strided_scatter(full({2}, 2.5), {2}, {1}),
                {kLong, {3, 4}, {4, 1}, {2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}});
  EXPECT_EQ(error_of([] {
              Z().as_strided_scatter(ones({3}), {2, 2}, {4, 1});
            }),
            "expected src to have a size equal to the slice of self. src size = [3], slice size = "
            "[2, 2]");
}

TEST(ShapeOpsTest, DiagonalScatter) {
  expect_tensor(Z().diagonal_scatter(ones({3})),
                {kFloat, {3, 4}, {4, 1}, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}});
  expect_tensor(Z().diagonal_scatter(arange(3, kFloat), 1),
                {kFloat, {3, 4}, {4, 1}, {0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 2}});
  expect_tensor(Z().t().diagonal_scatter(ones({3})),
                {kFloat, {4, 3}, {1, 4}, {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}});
  expect_tensor(diagonal_scatter(zeros({2, 2, 2}), arange(4, kFloat).view({2, 2}), 0, 0, 2),
                {kFloat, {2, 2, 2}, {4, 2, 1}, {0, 0, 2, 0, 0, 1, 0, 3}});
  EXPECT_EQ(error_of([] { Z().diagonal_scatter(arange(2, kFloat), -1, 1, 0); }),
            "expected src to have a size equal to the slice of self. src size = [2], slice size = "
            "[3]");
  EXPECT_EQ(error_of([] { Z().diagonal_scatter(ones({4})); }),
            "expected src to have a size equal to the slice of self. src size = [4], slice size = "
            "[3]");
}

}  // namespace
}  // namespace ember
