#!/usr/bin/python3
"""What PyTorch 1.13 gives for the cases of tensor/sort_ops_test.cc (median,
nanmedian, mode, msort, cummax/cummin, logcumsumexp, quantile/nanquantile,
aminmax, unique and its libtorch spellings, histc, bincount) and the
gradients of the cases in autograd/gradcheck_test.cc's SortOps.
Run with Debian's PyTorch: /usr/bin/python3 tools/golden/sort_ops.py
Each line is `name -> value`, a tensor written as the test's T(sizes,
{values}, dtype), a tuple as several, an error as its message; the values
are pasted into the test."""
import math

import torch

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
    flat = t.detach().reshape(-1).tolist()
    sizes = "{" + ", ".join(str(s) for s in t.shape) + "}"
    return "T(%s, {%s}, %s)" % (sizes, ", ".join(num(v) for v in flat), DT[t.dtype])


def show(name, f):
    try:
        r = f()
        print(name, "->", cpp(r))
    except Exception as e:  # noqa: BLE001
        print(name, "-> error:", str(e).split("\n")[0])


# Ties, NaN and infinities; rows of odd and even length.
X = torch.tensor([[1.5, -0.5, 2.0, -0.5, 3.0], [nan, 1.0, -inf, 1.0, inf],
                  [2.0, 1.0, 2.0, 1.0, nan]], dtype=torch.float64)
L = torch.tensor([[3, 1, 2, 3, 1, 5], [0, 0, 4, 4, 4, 0]])
E = torch.tensor([[2.0, 1.0, 2.0, 1.0], [4.0, -1.0, 0.5, 7.0]], dtype=torch.float64)

show("median X", lambda: X.median())
show("median E", lambda: E.median())
show("median L", lambda: L.median())
show("median empty", lambda: torch.tensor([], dtype=torch.float64).median())
show("median X 1", lambda: X.median(1))
show("median X 0 keepdim", lambda: X.median(0, keepdim=True))
show("median E -1", lambda: E.median(-1))
show("median E.t 0", lambda: E.t().median(0))
show("median L 1", lambda: L.median(1))
show("median 0-dim", lambda: torch.tensor(2.5, dtype=torch.float64).median(0))
show("median empty dim", lambda: torch.empty(0, 3).median(0))
show("median empty other dim", lambda: torch.empty(0, 3).median(1))
show("median bool", lambda: torch.tensor([True, False]).median())
show("median bool dim", lambda: torch.tensor([True, False]).median(0))
show("median dim out of range", lambda: X.median(2))
show("nanmedian X", lambda: X.nanmedian())
show("nanmedian all nan", lambda: torch.tensor([nan, nan], dtype=torch.float64).nanmedian())
show("nanmedian bool", lambda: torch.tensor([True]).nanmedian())
show("nanmedian bool dim", lambda: torch.tensor([True]).nanmedian(0))
show("nanmedian X 1", lambda: X.nanmedian(1))
show("nanmedian X 0", lambda: X.nanmedian(0))
show("nanmedian nan rows", lambda: torch.tensor([[nan, nan, 1.0], [nan, nan, nan]],
                                                dtype=torch.float64).nanmedian(1))
show("nanmedian L 1 keepdim", lambda: L.nanmedian(1, True))

show("mode L 1", lambda: L.mode(1))
show("mode L 0", lambda: L.mode(0))
show("mode L default", lambda: L.mode())
show("mode X 1", lambda: X.mode(1))
show("mode nan first", lambda: torch.tensor([nan, nan, nan, 1.0], dtype=torch.float64).mode())
show("mode nan 2", lambda: torch.tensor([1.0, nan, nan, 2.0, 2.0], dtype=torch.float64).mode())
show("mode bool", lambda: torch.tensor([True, False, True]).mode())
show("mode 0-dim", lambda: torch.tensor(4).mode())
show("mode keepdim", lambda: L.t().mode(0, True))
show("mode empty dim", lambda: torch.empty(0, 3).mode(0))
big = (torch.arange(60) * 7 % 11 % 4).reshape(2, 30)
show("mode big input", lambda: big)
show("mode big", lambda: big.mode(1))
show("mode big float", lambda: big.float().mode(1))

show("msort", lambda: X.msort())
show("msort L", lambda: L.msort())
show("msort 0-dim", lambda: torch.tensor(3.0).msort())

C = torch.tensor([1.0, 3.0, nan, 2.0, 5.0, nan, 1.0], dtype=torch.float64)
show("cummax C", lambda: C.cummax(0))
show("cummin C", lambda: C.cummin(0))
show("cummax L 1", lambda: L.cummax(1))
show("cummin L 1", lambda: L.cummin(1))
show("cummax L 0", lambda: L.cummax(0))
show("cummax X.t -2", lambda: X.t().cummax(-2))
show("cummin X.t -2", lambda: X.t().cummin(-2))
show("cummax bool", lambda: torch.tensor([False, True, False, True]).cummax(0))
show("cummin bool", lambda: torch.tensor([True, False, True, False]).cummin(0))
show("cummax 0-dim", lambda: torch.tensor(2.0).cummax(0))
show("cummax empty", lambda: torch.empty(0, 2).cummax(0))
show("cummax inf", lambda: torch.tensor([-inf, -inf, 2.0, inf, inf]).cummax(0))

show("logcumsumexp X 1", lambda: X.logcumsumexp(1))
show("logcumsumexp X.t 0", lambda: X.t().logcumsumexp(0))
show("logcumsumexp far", lambda: torch.tensor([-1000.0, 0.0, -inf, 1000.0],
                                              dtype=torch.float64).logcumsumexp(0))
show("logcumsumexp infs", lambda: torch.tensor([-inf, -inf, inf, inf, 1.0]).logcumsumexp(0))
show("logcumsumexp float", lambda: torch.tensor([[0.5, 1.5], [2.0, -3.0]]).logcumsumexp(0))
show("logcumsumexp 0-dim", lambda: torch.tensor(1.5).logcumsumexp(0))
show("logcumsumexp long", lambda: torch.tensor([1, 2]).logcumsumexp(0))
show("logcumsumexp half", lambda: torch.tensor([1.0]).half().logcumsumexp(0))

Q = torch.tensor([[0.5, 3.0, -1.0, 2.0], [4.0, 1.0, 1.0, 0.0], [nan, 2.0, 1.0, 3.0]],
                 dtype=torch.float64)
q3 = torch.tensor([0.0, 0.3, 0.5, 1.0], dtype=torch.float64)
for mode in ["linear", "lower", "higher", "midpoint", "nearest"]:
    show("quantile all 0.4 " + mode, lambda: Q[:2].quantile(0.4, interpolation=mode))
    show("quantile 1 q3 " + mode, lambda: Q.quantile(q3, dim=1, interpolation=mode))
    show("nanquantile 1 q3 " + mode, lambda: Q.nanquantile(q3, dim=1, interpolation=mode))
show("quantile nearest ties", lambda: torch.tensor([0.0, 1.0, 2.0, 3.0, 4.0]).quantile(
    torch.tensor([0.125, 0.375, 0.625]), interpolation="nearest"))
show("quantile all nan", lambda: Q.quantile(0.5))
show("nanquantile all", lambda: Q.nanquantile(0.5))
show("quantile 0 keepdim", lambda: Q.quantile(0.25, dim=0, keepdim=True))
show("quantile -1 q 0-dim tensor", lambda: Q.quantile(torch.tensor(0.75, dtype=torch.float64), dim=-1))
show("quantile keepdim no dim", lambda: Q[:2].quantile(q3[:2], keepdim=True))
show("nanquantile all nan row", lambda: torch.tensor([[nan, nan], [1.0, 2.0]]).nanquantile(0.5, 1))
show("quantile .t 1 keepdim", lambda: Q.t().quantile(0.25, 1, keepdim=True))
show("quantile float", lambda: torch.tensor([1.0, 2.0, 4.0]).quantile(0.3))
show("quantile 0-dim", lambda: torch.tensor(3.0).quantile(0.5, dim=0))
show("quantile int", lambda: torch.tensor([1, 2]).quantile(0.5))
show("quantile q > 1", lambda: torch.tensor([1.0, 2.0]).quantile(1.5))
show("quantile q < 0", lambda: torch.tensor([1.0, 2.0]).quantile(-0.5))
show("quantile q tensor range", lambda: torch.tensor([1.0, 2.0]).quantile(torch.tensor([0.5, 1.5])))
show("quantile interpolation", lambda: torch.tensor([1.0, 2.0]).quantile(0.5, interpolation="foo"))
show("quantile empty", lambda: torch.tensor([]).quantile(0.5))
show("quantile q 2-d", lambda: torch.tensor([1.0, 2.0]).quantile(torch.tensor([[0.5]])))
show("quantile q dtype", lambda: torch.tensor([1.0, 2.0]).quantile(
    torch.tensor([0.5], dtype=torch.float64)))
show("nanquantile q > 1", lambda: torch.tensor([1.0, 2.0]).nanquantile(2.0))

show("aminmax X", lambda: X.aminmax())
show("aminmax E", lambda: E.aminmax())
show("aminmax L 1", lambda: L.aminmax(dim=1))
show("aminmax L 0 keepdim", lambda: L.aminmax(dim=0, keepdim=True))
show("aminmax E keepdim", lambda: E.aminmax(keepdim=True))
show("aminmax E.t -1", lambda: E.t().aminmax(dim=-1))
show("aminmax bool", lambda: torch.tensor([True, False]).aminmax())
show("aminmax 0-dim", lambda: torch.tensor(2.0).aminmax(dim=0))
show("aminmax empty", lambda: torch.tensor([]).aminmax())
show("aminmax empty dim", lambda: torch.empty(0, 3).aminmax(dim=0))
show("aminmax empty other dim", lambda: torch.empty(0, 3).aminmax(dim=1))

U = torch.tensor([[3, 1, 2], [3, 1, 5], [0, 2, 2]])
show("_unique2", lambda: torch._unique2(U, True, True, True))
show("_unique2 plain", lambda: torch._unique2(U))
show("_unique", lambda: torch._unique(U, True, True))
show("_unique2 .t inverse", lambda: torch._unique2(U.t(), True, True)[1])
show("unique float", lambda: torch.unique(torch.tensor([2.0, -0.0, 0.0, 2.0, -inf])))
# PyTorch 1.13's CPU unique orders NaN by hashing and gives NaN's inverse
# and counts wrongly (a count of 0); ember keeps each NaN apart, last, as
# its sort orders them, with their true inverse and counts.
show("unique float nan", lambda: torch.unique(torch.tensor([1.0, nan, 1.0, nan]), True, True, True))
show("unique bool", lambda: torch._unique2(torch.tensor([True, False, True]), True, True, True))
show("unique empty", lambda: torch._unique2(torch.tensor([], dtype=torch.int64), True, True, True))
show("unique 0-dim", lambda: torch._unique2(torch.tensor(5), True, True, True))
UD = torch.tensor([[1, 2, 1, 1], [0, 3, 0, 1], [1, 2, 1, 1]])
show("unique_dim 0", lambda: torch.unique(UD, True, True, True, 0))
show("unique_dim 1", lambda: torch.unique(UD, True, True, True, 1))
show("unique_dim -1 plain", lambda: torch.unique(UD, dim=-1))
show("unique_dim .t 1", lambda: torch.unique(UD.t(), dim=1))
show("unique_dim empty 0", lambda: torch.unique(torch.empty(0, 3), True, True, True, 0))
show("unique_dim empty 1", lambda: torch.unique(torch.empty(0, 3), True, True, True, 1))
show("unique_dim two empty", lambda: torch.unique(torch.empty(0, 0), dim=0))
UT = torch.tensor([[[1, 0], [0, 1], [1, 0]], [[0, 1], [0, 0], [1, 1]]])
show("unique_dim 3-d -1", lambda: torch.unique(UT, True, True, True, -1))
show("unique_dim 3-d -1 strides", lambda: torch.tensor(torch.unique(UT, dim=-1).stride()))
show("unique_consecutive", lambda: torch.unique_consecutive(
    torch.tensor([1, 1, 2, 2, 3, 1, 1, 2]), True, True))
show("unique_consecutive 2-d", lambda: torch.unique_consecutive(U, True, True))
show("unique_consecutive plain", lambda: torch.unique_consecutive(U))
show("unique_consecutive nan", lambda: torch.unique_consecutive(
    torch.tensor([nan, nan, 1.0, 1.0]), True, True))
show("unique_consecutive dim 1", lambda: torch.unique_consecutive(
    torch.tensor([[1, 1, 2, 1], [0, 0, 3, 0]]), True, True, 1))
show("unique_dim_consecutive 0", lambda: torch.unique_consecutive(UD, True, True, 0))

H = torch.tensor([1.0, 2.0, 1.0, 2.5, 4.0, -1.0, nan, 3.0], dtype=torch.float64)
show("histc H 4", lambda: H[H == H].histc(4))
show("histc H 4 0 3", lambda: H.histc(4, 0, 3))
show("histc H 3 1 2", lambda: H.histc(3, 1, 2))
show("histc nan", lambda: torch.tensor([nan, nan, 1.5]).histc(3, 1, 2))
show("histc float edges", lambda: torch.tensor([0.0, 0.1, 0.2, 0.3, 0.7, 0.9, 1.0]).histc(10, 0, 1))
show("histc constant", lambda: torch.tensor([2.0, 2.0, 2.0]).histc(4))
show("histc bf16", lambda: torch.tensor([0.1, 0.5, 0.9, 1.3, 1.7, 2.0, 0.3]).bfloat16().histc(5))
# linspace's last edge (its vectorized lanes) rounds below the maximum: left out.
show("histc max left out", lambda: torch.tensor([-1.74, 0.05, 0.4, 3.06, -1.34, 1.36],
                                                dtype=torch.float64).histc(7))
# Bins by interpolation alone, the division first (Note [histc's bins]):
# -3.453125, below the bfloat16 edge -3.4375, still lands in bin 3; a float
# just below an edge lands in the next bin.
show("histc bf16 edges", lambda: torch.tensor([-1.703125, -3.453125, -7.5, 2.625, -8.0,
                                               -0.08984375]).bfloat16().histc(7))
E = torch.linspace(-1.3, 2.9, 6)
show("histc float edge neighbours", lambda: torch.cat(
    [E, E.nextafter(torch.tensor(-1e9)), E.nextafter(torch.tensor(1e9))]).histc(5, -1.3, 2.9))
show("histc empty", lambda: torch.tensor([]).histc(3))
show("histc 2-d", lambda: torch.tensor([[1.0, 2.0], [3.0, 4.0]]).histc(2))
show("histc nan range", lambda: H.histc(4))
show("histc inf range", lambda: torch.tensor([1.0, inf]).histc(4))
show("histc long", lambda: torch.tensor([1, 2]).histc())
show("histc bins 0", lambda: torch.tensor([1.0, 2.0]).histc(0))
show("histc min > max", lambda: torch.tensor([1.0, 2.0]).histc(4, 3, 1))

B = torch.tensor([1, 3, 1, 0, 5])
show("bincount", lambda: B.bincount())
show("bincount minlength", lambda: B.bincount(minlength=8))
show("bincount float weights", lambda: B.bincount(torch.tensor([0.5, 1.0, 2.0, -1.0, 0.25])))
show("bincount double weights", lambda: B.bincount(torch.tensor([0.5, 1.0, 2.0, -1.0, 0.25],
                                                                dtype=torch.float64)))
show("bincount long weights", lambda: B.bincount(torch.tensor([1, 2, 3, 4, 5])))
show("bincount empty", lambda: torch.tensor([], dtype=torch.int64).bincount(minlength=3))
show("bincount empty weights", lambda: torch.tensor([], dtype=torch.int64).bincount(
    torch.tensor([]), 2))
show("bincount negative", lambda: torch.tensor([1, -1]).bincount())
show("bincount 2-d", lambda: torch.tensor([[1]]).bincount())
show("bincount float", lambda: torch.tensor([1.0]).bincount())
show("bincount weights size", lambda: B.bincount(torch.tensor([1.0])))
show("bincount minlength < 0", lambda: B.bincount(minlength=-1))

# searchsorted / bucketize: both sides, NaN (last), per-row boundaries,
# promotion between the two dtypes, sorter, scalars, int32 output.
SB = torch.tensor([1., 3, 5, 7, 9])
SV = torch.tensor([[3., 6, 9], [3, 6, nan]])
show("ss left", lambda: torch.searchsorted(SB, SV))
show("ss right", lambda: torch.searchsorted(SB, SV, right=True))
show("ss side right", lambda: torch.searchsorted(SB, SV, side="right"))
show("ss int32", lambda: torch.searchsorted(SB, SV, out_int32=True))
show("ss scalar", lambda: torch.searchsorted(SB, 6))
show("ss scalar promotes", lambda: torch.searchsorted(torch.tensor([1, 3, 5]), 3.5))
show("ss rows", lambda: torch.searchsorted(torch.tensor([[1, 3, 5], [2, 4, 6]]),
                                           torch.tensor([[3, 6], [1, 4]])))
show("ss rows right", lambda: torch.searchsorted(torch.tensor([[1, 3, 5], [2, 4, 6]]),
                                                 torch.tensor([[3, 6], [1, 4]]), right=True))
show("ss mixed", lambda: torch.searchsorted(torch.tensor([1, 3, 5]), torch.tensor([2.5, 3.])))
show("ss sorter", lambda: torch.searchsorted(torch.tensor([5., 1, 3]), torch.tensor([2., 3.]),
                                             sorter=torch.tensor([1, 2, 0])))
show("ss sorter right", lambda: torch.searchsorted(torch.tensor([5., 1, 3]),
                                                   torch.tensor([2., 3.]), right=True,
                                                   sorter=torch.tensor([1, 2, 0])))
show("ss transposed", lambda: torch.searchsorted(SB, SV.t()))
show("ss half", lambda: torch.searchsorted(SB.half(), SV.half()))
show("ss empty boundaries", lambda: torch.searchsorted(torch.tensor([]), torch.tensor([1.])))
show("ss empty input", lambda: torch.searchsorted(SB, torch.tensor([])))
show("bucketize", lambda: torch.bucketize(SV, SB))
show("bucketize right", lambda: torch.bucketize(SV, SB, right=True))
show("bucketize scalar", lambda: torch.bucketize(4, SB))
show("bucketize int32", lambda: torch.bucketize(SV, SB, out_int32=True))
show("ss side opposite", lambda: torch.searchsorted(SB, SV, right=True, side="left"))
show("ss side bad", lambda: torch.searchsorted(SB, SV, side="middle"))
show("ss dims", lambda: torch.searchsorted(torch.ones(2, 3), torch.ones(3, 3)))
show("ss 0-d boundaries", lambda: torch.searchsorted(torch.tensor(1.), torch.ones(3)))
show("ss scalar rows", lambda: torch.searchsorted(torch.ones(2, 3), 1.))
show("ss sorter size", lambda: torch.searchsorted(SB, SV, sorter=torch.tensor([0, 1])))
show("ss sorter dtype", lambda: torch.searchsorted(SB, SV, sorter=torch.tensor([0., 1, 2, 3, 4])))
show("ss bool", lambda: torch.searchsorted(torch.tensor([False, True]), torch.tensor([True])))
show("bucketize 2-d", lambda: torch.bucketize(SV, torch.ones(2, 3)))

# angle of real numbers: pi below zero, 0 else (-0 too), NaN kept.
show("angle", lambda: torch.angle(torch.tensor([-1., 0., 2., nan, -0.0, -inf, inf])))
show("angle long", lambda: torch.angle(torch.tensor([-1, 0, 2])))
show("angle bool", lambda: torch.angle(torch.tensor([True, False])))
show("angle half", lambda: torch.angle(torch.tensor([-1., 2]).half()))
show("angle double", lambda: torch.angle(torch.tensor([-1., 2], dtype=torch.float64)))

# Gradients (float64) that the node formulas must give.
g = torch.tensor([[1.0, 2.0, 1.0, 0.5], [3.0, 1.0, 3.0, 2.0]], dtype=torch.float64,
                 requires_grad=True)
for name, f in [("median", lambda: g.median()), ("median 1", lambda: g.median(1)[0]),
                ("nanmedian", lambda: g.nanmedian()), ("mode 1", lambda: g.mode(1)[0]),
                ("cummax 1", lambda: g.cummax(1)[0]), ("cummin 1", lambda: g.cummin(1)[0]),
                ("logcumsumexp 1", lambda: g.logcumsumexp(1)),
                ("quantile 1", lambda: g.quantile(0.4, 1))]:
    out = f()
    w = torch.arange(1.0, out.numel() + 1, dtype=torch.float64).reshape(out.shape)
    show("grad " + name, lambda: torch.autograd.grad(out, [g], w)[0])
