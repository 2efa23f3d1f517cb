#!/usr/bin/python3
"""Golden values for tensor/indexing_test.cc (run with Debian's /usr/bin/python3).

Writes tensor/testdata/indexing_golden.inc (inputs in_*, and the result of
each indexing expression) and tensor/testdata/indexing_errors_golden.inc.
Entry names say which Python expression the test spells in C++.
"""

import warnings

import torch

from golden_util import ErrorWriter, GoldenWriter

warnings.filterwarnings("ignore")
w = GoldenWriter("indexing")
tt = torch.tensor

A = torch.arange(24).view(2, 3, 4)
X = tt([[0.4573, 0.8571], [0.7237, 0.0265]])  # the seed tutorial's x
w.add("in_a", A)
w.add("in_x", X)

# Views: integers, slices, None, Ellipsis.
w.add("a_1", A[1])
w.add("a_m1_2", A[-1, 2])
w.add("a_all_1", A[:, 1])
w.add("a_ellipsis_1to3", A[..., 1:3])
w.add("a_none_1_none", A[None, 1, None])
w.add("a_0_ellipsis_step2", A[0, ..., ::2])
w.add("a_all_m2_1step2", A[:, -2:, 1::2])
w.add("a_clamped_slice", A[-10:10, 5:1])
w.add("a_true", A[True])
w.add("a_false", A[False])
w.add("a_0dim_int_tensor", A[tt(1)])
w.add("x_all_1", X[:, 1])

# Advanced indexing (copies).
w.add("a_idx", A[tt([1, 0, 1])])
w.add("a_all_idx", A[:, tt([2, 0])])
w.add("a_separated", A[tt([0, 1]), :, tt([1, 2])])
w.add("a_adjacent", A[:, tt([0, 1]), tt([1, 2])])
w.add("a_2d_idx_int", A[:, tt([[0, 1]]), 1])
w.add("a_int_slice_idx", A[1, :, tt([0, 1])])
w.add("a_0dim_slice_idx", A[tt(1), :, tt([0, 1])])
w.add("a_none_0dim_slice_idx", A[None, tt(1), :, tt([0, 1])])
w.add("a_negative_idx", A[..., tt([-1, 0])])
w.add("a_bcast_idx", A[tt([[0], [1]]), tt([2, 0, 1])])
w.add("a_mask_gt", A[A > 10])
w.add("a_mask_dim1", A[:, tt([True, False, True])])
w.add("a_mask_2d", A[tt([[True, False, True], [False, False, True]])])
w.add("a_transposed_idx", A.transpose(0, 2)[tt([1, 3])])
w.add("a_true_idx", A[True, tt([1, 0])])
w.add("x_mask_gt", X[X > 0.5])
w.add("x_bool_tensor_idx", X[tt([False, True])])

# index_put_ (setitem).
b = A.clone(); b[b > 10] = 0; w.add("put_mask_scalar", b)
b = A.clone(); b[tt([0, 1]), :, tt([1, 2])] = tt([100, 200, 300]); w.add("put_separated_bcast", b)
b = A.clone(); b[:, 1] = tt([7, 8, 9, 10]); w.add("put_view_bcast", b)
b = A.clone(); b[..., 0] = -1; w.add("put_view_scalar", b)
b = A.clone(); b[0] = torch.full((1, 3, 4), 5); w.add("put_leading_ones", b)
b = A.clone(); b[:, 0] = tt(2.7); w.add("put_view_casts", b)
b = A.clone(); b[tt([1, 1]), tt([0, 2])] = tt([[-5], [-6], [-7], [-8]]).view(4); w.add("put_adv_rows", b)
b = A.clone(); b[:, tt([True, False, True]), 3] = 50; w.add("put_mask_and_int", b)
b = X.clone(); b[b > 0.5] = tt(1.0); w.add("put_x_mask_tensor", b)
w.add("put_accumulate", torch.zeros(5).index_put_((tt([0, 0, 2]),), tt([1., 2., 3.]), accumulate=True))
b = torch.zeros(3, 2, dtype=torch.float16); b[tt([2, 0])] = tt([1.5, -2.], dtype=torch.float16); w.add("put_half_rows", b)
w.write()

# The tests hold ember to the first line of PyTorch's message.
errors = ErrorWriter("indexing", first_line=True)
err = errors.err


def setitem(t, i, v):
    t[i] = v


x = torch.arange(6.).view(2, 3)
err("int_out_of_bounds", lambda: x[5])
err("int_out_of_bounds_dim1", lambda: x[:, 3])
err("none_then_int", lambda: x[None, 5])
err("negative_step", lambda: x[::-1])
err("too_many", lambda: x[0, 0, 0])
err("zero_dim", lambda: tt(3.)[0])
err("tensor_out_of_bounds", lambda: x[tt([5])])
err("tensor_out_of_bounds_dim1", lambda: x[tt([0, 1]), tt([0, 3])])
err("float_index", lambda: x[tt([1.])])
err("int32_index", lambda: x[tt([1], dtype=torch.int32)])
err("mask_shape", lambda: x[torch.ones(3, dtype=torch.bool)])
err("mask_shape_dim1", lambda: x[:, tt([True, False])])
err("bcast_indices", lambda: x[tt([0, 1]), tt([0, 1, 2])])
err("put_value_shape", lambda: setitem(x.clone(), tt([0]), torch.ones(4)))
err("put_dtype", lambda: setitem(torch.arange(6).view(2, 3), tt([1]), tt([9], dtype=torch.int32)))
err("put_view_shape", lambda: setitem(x.clone(), (slice(None), 1), torch.ones(3)))

errors.write()
