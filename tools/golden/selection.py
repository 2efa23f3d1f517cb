#!/usr/bin/python3
"""Golden values for tensor/selection_test.cc (run with Debian's /usr/bin/python3).

Writes tensor/testdata/selection_golden.inc (tensors: the inputs, named
in_*, and every result) and tensor/testdata/selection_errors_golden.inc
(PyTorch's message for each bad call). The test builds the same inputs and
makes the same calls in C++; comments name the Python each entry mirrors.
"""

import warnings

import torch

from golden_util import ErrorWriter, GoldenWriter

warnings.filterwarnings("ignore")
w = GoldenWriter("selection")
nan = float("nan")

X = torch.tensor([[1.5, -2., nan, 0.], [3., 3., -1., 7.], [0.5, 2., 2., -4.]])
T = torch.tensor([[1.5, -2., nan, 0.], [3., 3.5, -1., 7.], [0.5, 2., 2.25, -4.]])  # no ties
C = X > 0
Yi = torch.tensor([10, 20, 30, 40])
I8 = torch.arange(12, dtype=torch.int8).view(3, 4)
M3 = torch.tensor([True, False, True])
S = torch.arange(12.).view(3, 4) * 10
IDX = torch.tensor([[3, 0], [1, 1], [0, 2]])
TIES = torch.tensor([[3, 1, 3, 1, 2, 1]])
# Rows of 300 values out of five, and two NaNs: topk's tie order
# (Note [PyTorch's topk ties]) on both of its paths (k * 64 <= n or not).
MANY_TIES = torch.tensor([float((i * 7919) % 5) for i in range(600)]).view(2, 300)
MANY_TIES[0, 17] = nan
MANY_TIES[1, 250] = nan
for name, t in [("x", X), ("t", T), ("c", C), ("yi", Yi), ("i8", I8), ("m3", M3), ("s", S),
                ("idx", IDX), ("ties", TIES), ("many_ties", MANY_TIES)]:
    w.add("in_" + name, t)

# where
w.add("where_bcast", torch.where(C, X, Yi))
w.add("where_transposed_scalar", torch.where(C.t(), X.t(), 0.5))
w.add("where_int_scalars", torch.where(C, 1, 0))
w.add("where_float_int_scalars", torch.where(C, 1.0, 0))
w.add("where_int8_0dim", torch.where(C, I8, torch.tensor(5)))
w.add("where_half_double", torch.where(C, X.half(), X.double()))
w.add("where_bool", torch.where(C, C, M3.view(3, 1)))
r = torch.where(C.t())
w.add("where_cond_0", r[0])
w.add("where_cond_1", r[1])
w.add("nonzero_t", torch.nonzero(C.t()))
w.add("nonzero_float", torch.nonzero(X))
w.add("nonzero_0dim", torch.nonzero(torch.tensor(2.0)))

# masked ops
w.add("masked_select_bcast", X.t().masked_select(M3))
w.add("masked_select_int_bcast", Yi.masked_select(C))
w.add("masked_fill_scalar", X.masked_fill(C, -9.))
w.add("masked_fill_bcast", Yi.masked_fill(C, 5))
w.add("masked_fill_half_tensor", X.half().masked_fill(C, torch.tensor(2.5)))
w.add("masked_fill_int_float_value", I8.masked_fill(C, 3.7))
w.add("masked_fill_bool", C.masked_fill(M3.view(3, 1), True))
z = X.clone()
z[:, 1:3].masked_fill_(torch.tensor([True, False]), 100.)
w.add("masked_fill_inplace_slice", z)
z = X.clone()
z.masked_scatter_(C, S)
w.add("masked_scatter", z)
z = X.clone()
# Mask broadcast over rows, source a transposed (column-major) view: both
# are read in logical row-major order.
z.masked_scatter_(torch.tensor([True, False, False, True]), S.t().contiguous().t())
w.add("masked_scatter_bcast_strided_source", z)

# take
w.add("take_transposed", torch.take(X.t(), torch.tensor([[0, -1], [5, 11]])))
w.add("take_bf16", torch.take(S.bfloat16(), torch.tensor([2, -12])))
w.add("take_seed", torch.take(torch.tensor([[4, 3, 5], [6, 7, 8]]), torch.tensor([0, 2, 5])))

# gather / scatter
w.add("gather_seed", torch.gather(torch.tensor([[1, 2], [3, 4]]), 1, torch.tensor([[0, 0], [1, 0]])))
w.add("gather_dim1", X.gather(1, IDX))
w.add("gather_dim0_tindex", S.gather(0, torch.tensor([[2, 0, 1], [1, 1, 0]]).t()))
w.add("gather_expanded_self", Yi.expand(3, 4).gather(0, torch.tensor([[2, 1, 0, 2]])))
w.add("gather_neg_dim", X.gather(-1, IDX))
w.add("scatter_src", torch.zeros(3, 4).scatter_(1, IDX, S))
w.add("scatter_value", torch.zeros(3, 4, dtype=torch.int32).scatter(0, torch.tensor([[2, 0, 1, 2]]), 7))
w.add("scatter_add_dup", torch.ones(3, 4).scatter_add(1, torch.tensor([[0, 0, 0], [3, 3, 1], [2, 2, 2]]), S))
w.add("scatter_add_bf16", torch.zeros(2, 3, dtype=torch.bfloat16).scatter_add_(
    0, torch.tensor([[1, 0, 1], [1, 1, 1]]), torch.full((2, 3), 1.5, dtype=torch.bfloat16)))
w.add("scatter_add_long_transposed", torch.zeros(4, 3, dtype=torch.int64).scatter_add_(
    0, torch.tensor([[0, 1, 1, 3], [2, 2, 0, 0]]).t(), torch.arange(12).view(3, 4).t()))

# index_*
w.add("index_select_dim1", X.index_select(1, torch.tensor([3, 0, 3])))
w.add("index_select_transposed_int32", X.t().index_select(0, torch.tensor([2, 1], dtype=torch.int32)))
w.add("index_select_0dim", torch.tensor(5.).index_select(0, torch.tensor(0)))
w.add("index_add_alpha_dup", torch.zeros(3, 4).index_add_(0, torch.tensor([0, 2, 0]), S, alpha=2))
w.add("index_add_long_dim1", torch.ones(3, 4, dtype=torch.int64).index_add_(
    1, torch.tensor([1, 1]), torch.arange(6).view(3, 2)))
w.add("index_add_bcast_source", torch.zeros(2, 3).index_add_(0, torch.tensor([1]), torch.ones(1, 1)))
w.add("index_fill_neg", X.clone().index_fill_(1, torch.tensor([-1, 0]), -5.))
w.add("index_fill_transposed", X.clone().t().index_fill_(0, torch.tensor([1]), 8.).t())
w.add("index_copy", torch.zeros(3, 4).index_copy_(0, torch.tensor([2, 0]), S[:2]))
w.add("index_copy_dim1_transposed_src", torch.zeros(3, 4).index_copy_(1, torch.tensor([3, 1, 0]), S[:, :3].t().contiguous().t()))

# sort family
def add2(name, r):
    w.add(name + "_values", r[0])
    w.add(name + "_indices", r[1])

add2("sort_nan", X.sort())
add2("sort_desc_nan", X.sort(descending=True))
add2("sort_dim0", T.sort(0))
add2("sort_transposed_desc", T.t().sort(1, descending=True))
add2("sort_stable_ties", TIES.sort(stable=True))
add2("sort_stable_ties_desc", TIES.sort(stable=True, descending=True))
add2("sort_half", T.half().sort())
# The default sort of rows longer than 16 orders ties as 1.13's std::sort
# (Note [PyTorch's unstable sort]); stable=True keeps them in order.
add2("sort_many_ties", MANY_TIES.sort())
add2("sort_many_ties_desc", MANY_TIES.sort(descending=True))
add2("sort_many_ties_dim0", MANY_TIES.t().sort(0))
add2("sort_many_ties_stable", MANY_TIES.sort(stable=True))
add2("sort_many_ties_stable_desc", MANY_TIES.sort(stable=True, descending=True))
w.add("argsort_many_ties", MANY_TIES.argsort())
w.add("argsort_many_ties_int", MANY_TIES.long().argsort(descending=True))
add2("sort_bool", C.sort(dim=1, stable=True))
w.add("argsort_desc", T.argsort(dim=1, descending=True))
add2("topk_2", T.topk(2))
add2("topk_smallest", T.topk(2, largest=False))
add2("topk_dim0", T.topk(1, dim=0))
add2("topk_int_transposed", torch.tensor([[5, 1, 9], [2, 8, 4]]).t().topk(2, dim=0))
add2("topk_bf16", T.bfloat16().topk(3))
for k in (3, 4, 40, 299):
    add2("topk_ties_%d" % k, MANY_TIES.topk(k))
    add2("topk_ties_smallest_%d" % k, MANY_TIES.topk(k, largest=False))
add2("topk_ties_unsorted", MANY_TIES.topk(40, sorted=False))
for k in (1, 7, 150, 299):
    add2("kthvalue_ties_%d" % k, MANY_TIES.kthvalue(k))
add2("kthvalue_2", T.kthvalue(2))
add2("kthvalue_dim0_keepdim", T.kthvalue(3, 0, keepdim=True))
add2("kthvalue_int", torch.tensor([[5, 1, 9], [2, 8, 4]]).kthvalue(1))
w.write()

# Error messages.
# The tests hold ember to the first line of PyTorch's message.
errors = ErrorWriter("selection", first_line=True)
err = errors.err


x = torch.arange(6.).view(2, 3)
err("where_float_cond", lambda: torch.where(x, x, x))
err("where_bcast", lambda: torch.where(x > 0, x, torch.ones(3, 3)))
err("masked_select_float_mask", lambda: x.masked_select(x))
err("masked_fill_1d_value", lambda: x.masked_fill(torch.ones(2, 3, dtype=torch.bool), torch.tensor([1., 2])))
err("masked_fill_bcast", lambda: x.masked_fill(torch.ones(3, 3, dtype=torch.bool), 1.))
err("masked_fill_inplace_shape", lambda: x.masked_fill_(torch.ones(1, 2, 3, dtype=torch.bool), 1.))
err("masked_scatter_short_source", lambda: x.clone().masked_scatter_(torch.ones(2, 3, dtype=torch.bool), torch.ones(2)))
err("masked_scatter_dtype", lambda: x.clone().masked_scatter_(torch.ones(2, 3, dtype=torch.bool), torch.ones(6, dtype=torch.int64)))
err("masked_scatter_expand", lambda: x.clone().masked_scatter_(torch.ones(2, dtype=torch.bool), torch.ones(6)))
err("take_out_of_range", lambda: x.take(torch.tensor([10])))
err("take_negative_out_of_range", lambda: x.take(torch.tensor([-7])))
err("take_float_index", lambda: x.take(torch.tensor([1.])))
err("gather_out_of_bounds", lambda: x.gather(0, torch.tensor([[5]])))
err("gather_negative", lambda: x.gather(0, torch.tensor([[-1]])))
err("gather_dims", lambda: x.gather(0, torch.tensor([5])))
err("gather_int32", lambda: x.gather(0, torch.tensor([[1]], dtype=torch.int32)))
err("gather_size", lambda: x.gather(0, torch.tensor([[1, 1, 1, 1]])))
err("gather_bad_dim", lambda: x.gather(2, torch.tensor([[1]])))
err("scatter_out_of_bounds", lambda: x.clone().scatter_(0, torch.tensor([[5]]), torch.ones(2, 3)))
err("scatter_size", lambda: x.clone().scatter_(0, torch.tensor([[1, 1, 1, 1]]), torch.ones(2, 3)))
err("scatter_src_size", lambda: x.clone().scatter_(0, torch.tensor([[1, 1]]), torch.ones(1, 1)))
err("scatter_value_size", lambda: x.clone().scatter_(0, torch.tensor([[1, 1, 1, 1]]), 2.))
err("scatter_dims", lambda: x.clone().scatter_(0, torch.tensor([1]), torch.ones(2, 3)))
err("scatter_int32", lambda: x.clone().scatter_(0, torch.tensor([[1]], dtype=torch.int32), torch.ones(2, 3)))
err("scatter_dtype", lambda: x.clone().scatter_(0, torch.tensor([[1]]), torch.ones(2, 3, dtype=torch.float64)))
err("scatter_add_dtype", lambda: x.clone().scatter_add_(0, torch.tensor([[1]]), torch.ones(2, 3, dtype=torch.float64)))
err("index_select_out_of_range", lambda: x.index_select(0, torch.tensor([5])))
err("index_select_2d", lambda: x.index_select(0, torch.tensor([[0]])))
err("index_select_float", lambda: x.index_select(0, torch.tensor([0.])))
err("index_add_out_of_range", lambda: x.clone().index_add_(0, torch.tensor([5]), torch.ones(1, 3)))
err("index_add_slice", lambda: x.clone().index_add_(0, torch.tensor([0]), torch.ones(1, 4)))
err("index_add_count", lambda: x.clone().index_add_(0, torch.tensor([0, 1]), torch.ones(1, 3)))
err("index_add_dtype", lambda: x.clone().index_add_(0, torch.tensor([0]), torch.ones(1, 3, dtype=torch.float64)))
err("index_add_2d_index", lambda: x.clone().index_add_(0, torch.tensor([[0]]), torch.ones(1, 3)))
err("index_add_float_index", lambda: x.clone().index_add_(0, torch.tensor([0.]), torch.ones(1, 3)))
err("index_fill_out_of_range", lambda: x.clone().index_fill_(0, torch.tensor([5]), 1))
err("index_fill_negative", lambda: x.clone().index_fill_(0, torch.tensor([-3]), 1))
err("index_fill_float_index", lambda: x.clone().index_fill_(0, torch.tensor([0.]), 1))
err("index_copy_out_of_range", lambda: x.clone().index_copy_(0, torch.tensor([5]), torch.ones(1, 3)))
err("index_copy_slice", lambda: x.clone().index_copy_(0, torch.tensor([0]), torch.ones(1, 4)))
err("index_copy_count", lambda: x.clone().index_copy_(0, torch.tensor([0, 1]), torch.ones(1, 3)))
err("index_copy_dtype", lambda: x.clone().index_copy_(0, torch.tensor([0]), torch.ones(1, 3, dtype=torch.float64)))
err("index_copy_dims", lambda: x.clone().index_copy_(0, torch.tensor([0]), torch.ones(3)))
err("topk_k", lambda: x.topk(4))
err("topk_negative_k", lambda: x.topk(-1))
err("topk_bool", lambda: torch.ones(3, dtype=torch.bool).topk(1))
err("kthvalue_k", lambda: x.kthvalue(4))
err("kthvalue_zero", lambda: x.kthvalue(0))
err("kthvalue_bool", lambda: torch.ones(3, dtype=torch.bool).kthvalue(1))
err("sort_dim", lambda: x.sort(2))

errors.write()
