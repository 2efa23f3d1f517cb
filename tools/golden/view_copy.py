#!/usr/bin/python3
"""What PyTorch 1.13's *_copy view ops give, for tensor/view_copy_test.cc:
each result's values ("<case>") and strides ("<case>/strides"), and the
errors of bad arguments. Inputs are golden_util.mk():
  X = mk([3, 4]), XT = X.t(), P = mk([2, 3, 4]).permute(2, 0, 1), L = mk([3, 4], int64).
Run with Debian's PyTorch: /usr/bin/python3 tools/golden/view_copy.py
Writes tensor/testdata/view_copy_golden.inc and view_copy_errors_golden.inc."""
import torch

from golden_util import ErrorWriter, GoldenWriter, mk

# 1.13's Python binding of torch.slice_copy mis-reads absent bounds
# (torch.slice_copy(x) keeps one row); libtorch's at::slice_copy, which ember
# mirrors, is the dispatcher op, called here as torch.ops.aten.slice_copy.
slice_copy = torch.ops.aten.slice_copy.Tensor

X = mk([3, 4])
XT = X.t()
P = mk([2, 3, 4]).permute(2, 0, 1)
L = mk([3, 4], torch.int64)

CASES = {
    "as_strided_copy": lambda: torch.as_strided_copy(X, (2, 2), (1, 2), 1),
    "as_strided_copy_overlap": lambda: torch.as_strided_copy(X, (3, 2), (1, 1)),
    "diagonal_copy": lambda: torch.diagonal_copy(X),
    "diagonal_copy_P": lambda: torch.diagonal_copy(P, 1, 0, -1),
    "expand_copy": lambda: torch.expand_copy(X[:1], (2, 3, 4)),
    "expand_copy_T": lambda: torch.expand_copy(XT[:, :1], (5, 4, 3)),
    "permute_copy": lambda: torch.permute_copy(X, (1, 0)),
    "permute_copy_P": lambda: torch.permute_copy(P, (-1, 0, 1)),
    "select_copy": lambda: torch.select_copy(X, 1, -1),
    "select_copy_P": lambda: torch.select_copy(P, 0, 1),
    "slice_copy": lambda: slice_copy(X, 1, 1, None, 2),
    "slice_copy_default": lambda: slice_copy(XT),
    "slice_copy_clamp": lambda: slice_copy(X, 0, -10, 100, 2),
    "squeeze_copy": lambda: torch.squeeze_copy(X[:1].t()),
    "squeeze_copy_dim": lambda: torch.squeeze_copy(X[:1], 0),
    "squeeze_copy_dim_keep": lambda: torch.squeeze_copy(X, 1),
    "t_copy": lambda: torch.t_copy(X),
    "t_copy_1d": lambda: torch.t_copy(X[0]),
    "transpose_copy": lambda: torch.transpose_copy(P, 0, -1),
    "unfold_copy": lambda: torch.unfold_copy(X, 1, 2, 1),
    "unfold_copy_T": lambda: torch.unfold_copy(XT, 0, 3, 2),
    "unsqueeze_copy": lambda: torch.unsqueeze_copy(X, -1),
    "unsqueeze_copy_P": lambda: torch.unsqueeze_copy(P, 1),
    "view_copy": lambda: torch.view_copy(X, (2, -1)),
    "view_copy_T": lambda: torch.view_copy(XT, (12,)),
    "view_copy_long": lambda: torch.view_copy(L, (4, 3)),
    "view_copy_dtype": lambda: torch.view_copy(X, torch.int32),
    "view_copy_dtype_half": lambda: torch.view_copy(X, torch.float16),
    "alias_copy": lambda: torch.alias_copy(P),
    "detach_copy": lambda: torch.detach_copy(XT),
}
LIST_CASES = {
    "split_copy": lambda: torch.split_copy(X, 3, 1),
    "split_copy_T": lambda: torch.split_copy(XT, 3, 0),
    "split_with_sizes_copy": lambda: torch.split_with_sizes_copy(X, [1, 0, 2], 0),
    "unbind_copy": lambda: torch.unbind_copy(P, -1),
}

g = GoldenWriter("view_copy")
for name, f in CASES.items():
    r = f()
    g.add(name, r)
    g.add(name + "/strides", torch.tensor(r.stride(), dtype=torch.int64))
for name, f in LIST_CASES.items():
    for i, r in enumerate(f()):
        g.add("%s/%d" % (name, i), r)
        g.add("%s/%d/strides" % (name, i), torch.tensor(r.stride(), dtype=torch.int64))
g.write()

e = ErrorWriter("view_copy", first_line=True)
e.err("as_strided_copy_negative", lambda: torch.as_strided_copy(X, (2, 2), (1, -1)))
e.err("as_strided_copy_storage", lambda: torch.as_strided_copy(X, (20,), (1,)))
e.err("diagonal_copy_same", lambda: torch.diagonal_copy(X, 0, 1, -1))
e.err("expand_copy_few", lambda: torch.expand_copy(X, (4,)))
e.err("expand_copy_size", lambda: torch.expand_copy(X, (3, 5)))
e.err("permute_copy_len", lambda: torch.permute_copy(X, (0,)))
e.err("permute_copy_dup", lambda: torch.permute_copy(X, (0, 0)))
e.err("select_copy_index", lambda: torch.select_copy(X, 0, 3))
e.err("select_copy_0dim", lambda: torch.select_copy(torch.tensor(1.0), 0, 0))
e.err("slice_copy_step", lambda: slice_copy(X, 0, 0, 2, 0))
e.err("split_copy_zero", lambda: torch.split_copy(X, 0, 1))
e.err("split_with_sizes_copy_sum", lambda: torch.split_with_sizes_copy(X, [1, 1], 0))
e.err("squeeze_copy_dim", lambda: torch.squeeze_copy(X, 2))
e.err("t_copy_3d", lambda: torch.t_copy(P))
e.err("transpose_copy_dim", lambda: torch.transpose_copy(X, 0, 2))
e.err("unbind_copy_0dim", lambda: torch.unbind_copy(torch.tensor(1.0)))
e.err("unfold_copy_size", lambda: torch.unfold_copy(X, 0, 4, 1))
e.err("unfold_copy_step", lambda: torch.unfold_copy(X, 0, 2, 0))
e.err("unsqueeze_copy_dim", lambda: torch.unsqueeze_copy(X, 3))
e.err("view_copy_numel", lambda: torch.view_copy(X, (5,)))
e.err("view_copy_dtype_stride", lambda: torch.view_copy(XT, torch.float16))
e.write()
