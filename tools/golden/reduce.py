"""Golden values for tensor/reduce_test.cc (reductions, scans, softmax).

Run with Debian's PyTorch: /usr/bin/python3 tools/golden/reduce.py
Writes tensor/testdata/reduce_golden.inc. Inputs come from mk() in
golden_util.py, which the test mirrors exactly (make_input in
tensor/testing/golden.cc). Float reductions are
stored as computed by PyTorch in float64 from the same (dtype-exact) inputs,
so the test can hold ember's float32 results to a tolerance that is
independent of summation order.
"""

import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_util import GoldenWriter, mk  # noqa: E402


w = GoldenWriter("reduce")


def add(name, t):
    w.add(name, t)


def exact64(t):
    """PyTorch's result in float64 from the same values (reference for floats)."""
    return t.to(torch.float64)


x = mk((3, 4, 5))
xd = exact64(x)

# --- sum / mean / prod ------------------------------------------------------
add("sum_all", xd.sum())
add("sum_dim1", xd.sum(1))
add("sum_dims02_keep", xd.sum((0, 2), keepdim=True))
add("sum_neg_dim", xd.sum(-1))
add("sum_transposed_dim0", xd.transpose(0, 2).sum(0))  # tile mode
add("sum_transposed_dim2", xd.transpose(0, 2).sum(2))
add("sum_sliced", xd[:, ::2, 1:].sum(1))
add("sum_expanded", mk((1, 4), torch.float64).expand(3, 4).sum(0))
add("sum_int32", mk((3, 4), torch.int32).sum(1))
add("sum_uint8", mk((3, 4), torch.uint8).sum())
add("sum_bool", mk((3, 4), torch.bool).sum(0))
add("sum_int_dtype_float", mk((3, 4), torch.int32).sum(1, dtype=torch.float32))
add("sum_half", mk((3, 4), torch.float16).sum(1))
add("sum_bfloat16", mk((3, 4), torch.bfloat16).sum(0))
add("sum_empty_dim", torch.empty(2, 0).sum(1))
big = (torch.arange(100003, dtype=torch.float64) % 1000) * 0.001
add("sum_big", big.sum())
add("sum_big_rows", big[:100000].reshape(4, 25000).sum(1))
add("sum_big_cols", big[:100000].reshape(25000, 4).sum(0))
add("mean_dim2", xd.mean(2))
add("mean_all", xd.mean())
add("mean_keep", xd.mean((0, 1), keepdim=True))
add("mean_half", mk((3, 4), torch.float16).mean(1))
add("mean_int_dtype", mk((3, 4), torch.int32).mean(1, dtype=torch.float64))
add("mean_empty", torch.empty(0).mean())
add("prod_dim1", mk((3, 4, 5), torch.float64).prod(1))
add("prod_int", mk((3, 4), torch.int16).prod(1))
add("prod_bool", mk((3, 4), torch.bool).prod(1))
add("prod_all", mk((2, 3), torch.float64).prod())

# --- max / min / arg --------------------------------------------------------
add("max_all", x.max())
add("min_all", x.min())
v, i = x.max(1)
add("max_dim1_values", v)
add("max_dim1_indices", i)
v, i = x.min(2, keepdim=True)
add("min_dim2_values", v)
add("min_dim2_indices", i)
v, i = x.transpose(0, 2).max(0)
add("max_transposed_values", v)
add("max_transposed_indices", i)
add("amax_dims12", x.amax((1, 2)))
add("amin_dim0_keep", x.amin(0, keepdim=True))
add("argmax_all", x.argmax())
add("argmin_dim1", x.argmin(1))
add("argmax_dim0_keep", x.argmax(0, keepdim=True))
add("argmax_keep_nodim", x.argmax(keepdim=True))
add("argmax_transposed", x.transpose(0, 1).argmax(2))
nan = torch.tensor([[1.0, float("nan"), 3.0, float("nan")], [2.0, 5.0, 5.0, -1.0]])
add("max_nan", nan.max())
v, i = nan.max(1)
add("max_nan_values", v)
add("max_nan_indices", i)
add("argmin_nan", nan.argmin(1))
add("amax_nan", nan.amax(1))
add("max_int8", mk((3, 4), torch.int8).max(1)[0])
add("argmax_int8", mk((3, 4), torch.int8).argmax(1))
add("max_bool", mk((3, 4), torch.bool).max(1)[0])
add("amin_half", mk((3, 4), torch.float16).amin(1))
add("max_scalar_values", torch.tensor(2.5).max(0)[0])
add("max_scalar_indices", torch.tensor(2.5).max(0)[1])
add("max_empty_other_dim", torch.empty(0, 3).max(1)[0])

# --- var / std / norm / logsumexp -------------------------------------------
add("var_all", xd.var())
add("var_dim1", xd.var(1))
add("var_biased_dims", xd.var((0, 2), unbiased=False))
add("var_correction2", torch.var(xd, 2, correction=2, keepdim=True))
add("std_dim0", xd.std(0))
add("std_transposed", xd.transpose(0, 2).std(0))
add("var_single", torch.ones(1, dtype=torch.float64).var())
add("var_half", mk((3, 4), torch.float16).var(1))
add("std_mean_std", torch.std_mean(xd, 1)[0])
add("std_mean_mean", torch.std_mean(xd, 1)[1])
for name, p in [("2", 2), ("1", 1), ("inf", float("inf")), ("neginf", float("-inf")),
                ("0", 0), ("3", 3), ("half", 0.5)]:
    add("norm_p%s_dim2" % name, xd.norm(p, 2))
add("norm_all", xd.norm())
add("norm_fro_dims", torch.norm(xd, "fro", (0, 1)))
add("norm_keep", xd.norm(1, (1, 2), keepdim=True))
add("norm_bfloat16", mk((3, 4), torch.bfloat16).norm())
add("logsumexp_dim1", xd.logsumexp(1))
add("logsumexp_dims", xd.logsumexp((0, 2), keepdim=True))
add("logsumexp_large", torch.tensor([[1000.0, 1000.0, 990.0], [-1000.0, -1001.0, -1002.0]],
                                    dtype=torch.float64).logsumexp(1))
add("logsumexp_inf", torch.tensor([float("-inf"), float("-inf")]).logsumexp(0))
add("logsumexp_posinf", torch.tensor([float("inf"), 1.0, float("inf")]).logsumexp(0))
add("logsumexp_int", mk((3, 4), torch.int32).logsumexp(1))

# --- all / any / count_nonzero ----------------------------------------------
add("all_dim1", mk((3, 4), torch.float32).all(1))
add("any_dim0", mk((3, 4), torch.int32).any(0))
add("all_uint8", mk((3, 4), torch.uint8).all())
add("any_bool", mk((3, 4), torch.bool).any(1))
add("all_bool_all", mk((3, 4), torch.bool).all())
add("count_nonzero_all", mk((3, 4, 5), torch.int64).count_nonzero())
add("count_nonzero_dim", mk((3, 4, 5)).count_nonzero(1))

# --- cumsum / cumprod -------------------------------------------------------
add("cumsum_dim1", xd.cumsum(1))
add("cumsum_dim2", xd.cumsum(2))
add("cumsum_transposed", xd.transpose(0, 2).cumsum(1))
add("cumsum_int", mk((3, 4), torch.int32).cumsum(1))
add("cumsum_bool", mk((3, 4), torch.bool).cumsum(0))
add("cumsum_int_dtype", mk((3, 4), torch.int32).cumsum(1, dtype=torch.int32))
add("cumprod_dim0", mk((3, 4), torch.float64).cumprod(0))
add("cumprod_int", mk((3, 4), torch.int64).cumprod(1))

# --- softmax / log_softmax --------------------------------------------------
add("softmax_dim2", xd.softmax(2))
add("softmax_dim0", xd.softmax(0))
add("softmax_transposed", xd.transpose(0, 2).softmax(1))
add("log_softmax_dim1", xd.log_softmax(1))
add("log_softmax_dim2", xd.log_softmax(2))
add("softmax_int_dtype", mk((3, 4), torch.int64).softmax(1, dtype=torch.float32))
add("softmax_large", torch.tensor([[1000.0, 999.0, -1000.0]], dtype=torch.float64).softmax(1))
add("log_softmax_large",
    torch.tensor([[1000.0, 999.0, -1000.0]], dtype=torch.float64).log_softmax(1))
add("softmax_scalar", torch.tensor(3.0).softmax(0))

w.write()
