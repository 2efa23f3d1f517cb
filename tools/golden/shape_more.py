#!/usr/bin/python3
"""What PyTorch 1.13 gives for the cases of tensor/shape_more_test.cc
(atleast_*d, column_stack, row_stack, dstack, concatenate, block_diag,
cartesian_prod, combinations, meshgrid, tril_indices, triu_indices, vander,
adjoint, chain_matmul, trapezoid, trapz, cumulative_trapezoid, isin).
Run with Debian's PyTorch: /usr/bin/python3 tools/golden/shape_more.py
Each line is `name -> value`, a tensor written as the test's T(sizes,
{values}, dtype), a list as several, an error as its message; the values
are pasted into the test."""
import math
import warnings

import torch

warnings.simplefilter("ignore")
inf, nan = float("inf"), float("nan")
DT = {torch.float64: "kDouble", torch.float32: "kFloat", torch.int64: "kLong",
      torch.int32: "kInt", torch.bool: "kBool", torch.float16: "kHalf",
      torch.bfloat16: "kBFloat16", torch.uint8: "kByte"}


def num(v):
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, float):
        if math.isnan(v):
            return "kNaN"
        if math.isinf(v):
            return "kInf" if v > 0 else "-kInf"
        return repr(v)
    return str(v)


def cpp(t):
    if isinstance(t, (tuple, list)):
        return ", ".join(cpp(x) for x in t)
    if isinstance(t, bool):
        return num(t)
    flat = t.detach().reshape(-1).tolist()
    sizes = "{" + ", ".join(str(s) for s in t.shape) + "}"
    return "T(%s, {%s}, %s)" % (sizes, ", ".join(num(v) for v in flat), DT[t.dtype])


def show(name, f):
    try:
        r = f()
        print(name, "->", cpp(r))
    except Exception as e:  # noqa: BLE001
        print(name, "-> error:", str(e).split("\n")[0])


S = torch.tensor(2.5, dtype=torch.float64)          # 0-dim
V = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
M = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64)
B3 = torch.arange(12, dtype=torch.float64).reshape(2, 3, 2)
I = torch.tensor([4, 5], dtype=torch.int64)

for n, t in [("S", S), ("V", V), ("M", M), ("B3", B3)]:
    for k in (1, 2, 3):
        show("atleast_%dd %s" % (k, n), lambda: getattr(torch, "atleast_%dd" % k)(t))
show("atleast_3d list", lambda: torch.atleast_3d([S, V]))
show("column_stack V I", lambda: torch.column_stack([V[:2], I]))
show("column_stack S M", lambda: torch.column_stack([torch.tensor([7.0, 8.0], dtype=torch.float64), M]))
show("column_stack S S", lambda: torch.column_stack([S, S]))
show("column_stack empty", lambda: torch.column_stack([]))
show("column_stack bad", lambda: torch.column_stack([V, M]))
show("row_stack V V", lambda: torch.row_stack([V, V]))
show("row_stack empty", lambda: torch.row_stack([]))
show("dstack M M", lambda: torch.dstack([M, M]))
show("dstack V I", lambda: torch.dstack([V[:2], I]))
show("dstack S", lambda: torch.dstack([S, S]))
show("dstack empty", lambda: torch.dstack([]))
show("concatenate M M 1", lambda: torch.concatenate([M, M], 1) if hasattr(torch, "concatenate") else torch._C._VariableFunctions.concatenate([M, M], 1))
show("block_diag", lambda: torch.block_diag(M, V, S, I))
show("block_diag empty", lambda: torch.block_diag())
show("block_diag int", lambda: torch.block_diag(I, torch.tensor([[1, 2]], dtype=torch.int32)))
show("block_diag zero", lambda: torch.block_diag(torch.zeros(0, 2, dtype=torch.float64), M))
show("block_diag 3d", lambda: torch.block_diag(M, B3))
show("cartesian_prod", lambda: torch.cartesian_prod(V, I.double()))
show("cartesian_prod one", lambda: torch.cartesian_prod(V))
show("cartesian_prod three", lambda: torch.cartesian_prod(I, I, torch.tensor([7])))
show("cartesian_prod 2d", lambda: torch.cartesian_prod(V, M))
show("cartesian_prod mixed", lambda: torch.cartesian_prod(V, I))
show("combinations", lambda: torch.combinations(torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64)))
show("combinations r3", lambda: torch.combinations(torch.tensor([1, 2, 3, 4]), 3))
show("combinations repl", lambda: torch.combinations(V, 2, True))
show("combinations r0", lambda: torch.combinations(V, 0))
show("combinations r1", lambda: torch.combinations(V, 1))
show("combinations r4", lambda: torch.combinations(V, 4))
show("combinations n0", lambda: torch.combinations(V[:0], 2))
show("combinations 2d", lambda: torch.combinations(M))
show("combinations neg", lambda: torch.combinations(V, -1))
show("meshgrid ij", lambda: torch.meshgrid(V, I.double(), indexing="ij"))
show("meshgrid xy", lambda: torch.meshgrid(V, I.double(), indexing="xy"))
show("meshgrid xy3", lambda: torch.meshgrid(I, torch.tensor([7, 8, 9]), torch.tensor(6), indexing="xy"))
show("meshgrid one xy", lambda: torch.meshgrid(V, indexing="xy"))
show("meshgrid default", lambda: torch.meshgrid(V, I.double()))
show("meshgrid empty", lambda: torch.meshgrid([], indexing="ij"))
show("meshgrid dtype", lambda: torch.meshgrid(V, I, indexing="ij"))
show("meshgrid bad indexing", lambda: torch.meshgrid(V, V, indexing="yx"))
show("meshgrid 2d", lambda: torch.meshgrid(V, M, indexing="ij"))
show("meshgrid stride", lambda: torch.tensor(torch.meshgrid(V, I.double(), indexing="xy")[0].stride()))
for (r, c, o) in [(3, 3, 0), (4, 3, 1), (3, 4, -1), (3, 5, 2), (0, 3, 0), (3, 0, 0), (2, 3, -5), (2, 3, 7)]:
    show("tril_indices %d %d %d" % (r, c, o), lambda: torch.tril_indices(r, c, o))
    show("triu_indices %d %d %d" % (r, c, o), lambda: torch.triu_indices(r, c, o))
show("tril_indices double", lambda: torch.tril_indices(2, 2, 0, dtype=torch.float64))
show("tril_indices neg row", lambda: torch.tril_indices(-1, 2))
show("tril_indices neg col", lambda: torch.tril_indices(2, -1))
show("triu_indices neg row", lambda: torch.triu_indices(-1, 2))
show("triu_indices neg col", lambda: torch.triu_indices(2, -3))
show("vander V", lambda: torch.vander(V))
show("vander V 4 inc", lambda: torch.vander(V, 4, True))
show("vander V 1", lambda: torch.vander(V, 1))
show("vander V 0", lambda: torch.vander(V, 0))
show("vander I", lambda: torch.vander(I))
show("vander bool", lambda: torch.vander(torch.tensor([True, False])))
show("vander int32", lambda: torch.vander(torch.tensor([2, 3], dtype=torch.int32), 3))
show("vander float", lambda: torch.vander(torch.tensor([2.0, 0.5]), 3))
show("vander 2d", lambda: torch.vander(M))
show("vander neg", lambda: torch.vander(V, -1))
show("adjoint M", lambda: torch.adjoint(M))
show("adjoint B3", lambda: torch.adjoint(B3))
show("adjoint V", lambda: torch.adjoint(V))
show("adjoint S", lambda: torch.adjoint(S))
print("is_neg ->", cpp(torch.is_neg(V)))
A = torch.arange(6, dtype=torch.float64).reshape(2, 3)
Bm = torch.arange(12, dtype=torch.float64).reshape(3, 4) - 5
C = torch.arange(8, dtype=torch.float64).reshape(4, 2) * 0.5
show("chain_matmul ABC", lambda: torch.chain_matmul(A, Bm, C))
show("chain_matmul A", lambda: torch.chain_matmul(A))
show("chain_matmul AB", lambda: torch.chain_matmul(A, Bm))
show("chain_matmul empty", lambda: torch.chain_matmul())
show("chain_matmul 1d", lambda: torch.chain_matmul(A, V))
show("chain_matmul 1d first", lambda: torch.chain_matmul(V, A))
show("chain_matmul shapes", lambda: torch.chain_matmul(A, C))
show("chain_matmul dtype", lambda: torch.chain_matmul(A, Bm.float()))
show("chain_matmul 1 1d", lambda: torch.chain_matmul(V))
Y = torch.tensor([[1.0, 4.0, 9.0, 16.0], [2.0, -1.0, 0.5, 3.0]], dtype=torch.float64)
X1 = torch.tensor([0.0, 1.0, 3.0, 6.0], dtype=torch.float64)
X2 = torch.tensor([[0.0, 1.0, 3.0, 6.0], [1.0, 1.5, 2.0, 4.0]], dtype=torch.float64)
YL = torch.tensor([[1, 4, 9], [2, 3, 5]])
for fn in ("trapezoid", "cumulative_trapezoid", "trapz"):
    f = getattr(torch, fn)
    show(fn + " Y", lambda: f(Y))
    show(fn + " Y dx", lambda: f(Y, dx=0.5))
    show(fn + " Y dx dim0", lambda: f(Y, dx=2, dim=0))
    show(fn + " Y X1", lambda: f(Y, X1))
    show(fn + " Y X2", lambda: f(Y, X2))
    show(fn + " Y X col dim0", lambda: f(Y, torch.tensor([0.0, 2.0], dtype=torch.float64), dim=0))
    show(fn + " YL", lambda: f(YL))
    show(fn + " YL dx", lambda: f(YL, dx=0.5))
    show(fn + " YL xL", lambda: f(YL, torch.tensor([0, 1, 3])))
    show(fn + " empty dim", lambda: f(torch.zeros(2, 0, dtype=torch.float64)))
    show(fn + " empty dim x", lambda: f(torch.zeros(2, 0, dtype=torch.float64), torch.zeros(0, dtype=torch.float64)))
    show(fn + " one sample", lambda: f(torch.ones(2, 1, dtype=torch.float64)))
    show(fn + " bool", lambda: f(torch.tensor([True, False])))
    show(fn + " bool x", lambda: f(Y, torch.tensor([True, False, True, True])))
    show(fn + " bad x", lambda: f(Y, torch.tensor([0.0, 1.0], dtype=torch.float64)))
    show(fn + " bad dim", lambda: f(Y, dim=2))
    if fn != "trapz":
        show(fn + " bool dx", lambda: f(Y, dx=True))
E = torch.tensor([[1.0, 2.0, nan], [4.0, -0.0, 2.0]], dtype=torch.float64)
TE = torch.tensor([2.0, 0.0, nan, 7.0], dtype=torch.float64)
show("isin", lambda: torch.isin(E, TE))
show("isin invert", lambda: torch.isin(E, TE, invert=True))
show("isin unique", lambda: torch.isin(E, TE, assume_unique=True))
show("isin long float", lambda: torch.isin(torch.tensor([1, 2, 3]), torch.tensor([2.0, 2.5])))
show("isin float long", lambda: torch.isin(torch.tensor([1.0, 2.5, 3.0]), torch.tensor([3, 1])))
show("isin scalar test", lambda: torch.isin(E, 2.0))
show("isin scalar test invert", lambda: torch.isin(E, 2, invert=True))
show("isin scalar long test float", lambda: torch.isin(torch.tensor([1, 2, 3]), 2.5))
show("isin scalar elem", lambda: torch.isin(4.0, TE))
show("isin scalar elem2", lambda: torch.isin(7, TE))
show("isin empty test", lambda: torch.isin(E, torch.tensor([], dtype=torch.float64)))
show("isin large", lambda: torch.isin(torch.arange(10), torch.arange(3, 200, 2)))
show("isin large invert", lambda: torch.isin(torch.arange(10), torch.arange(3, 200, 2), invert=True))
show("isin bool", lambda: torch.isin(torch.tensor([True, False]), torch.tensor([True])))
show("isin int32 long", lambda: torch.isin(torch.tensor([1, 5], dtype=torch.int32), torch.tensor([5])))
show("isin 0dim", lambda: torch.isin(torch.tensor(3), torch.tensor([[3, 4]])))
