#!/usr/bin/python3
"""What PyTorch 1.13 gives for tensor/reduce_ops_test.cc's cases
(scatter_reduce, index_reduce, igamma/igammac, histogram, histogramdd). Run with Debian's
PyTorch: /usr/bin/python3 tools/golden/reduce_ops.py
Writes tensor/testdata/reduce_ops_golden.inc (values) and
reduce_ops_errors_golden.inc (messages).

igamma/igammac: near the peak x ~ a for a > 20 PyTorch's asymptotic series
is off by up to ~1e-9 relative; where it is off from mpmath's exact value by
more than 1e-12, the golden holds mpmath's (entry "igamma/grid/exact")."""
import warnings

import mpmath
import torch

from golden_util import ErrorWriter, GoldenWriter, mk

warnings.simplefilter("ignore")  # scatter_reduce is "in beta"
mpmath.mp.dps = 40
g = GoldenWriter("reduce_ops")
e = ErrorWriter("reduce_ops")
inf, nan = float("inf"), float("nan")
REDUCES = ["sum", "prod", "mean", "amax", "amin"]

# --- scatter_reduce ---
self2 = mk([3, 4], torch.float64, 1)
src2 = mk([2, 4], torch.float64, 5)
idx2 = torch.tensor([[0, 2, 0, 1], [2, 2, 0, 1]])
g.add("scatter/self", self2)
g.add("scatter/src", src2)
g.add("scatter/index", idx2)
IDX_DIM1 = torch.tensor([[3, 1], [0, 0], [2, 3]])
for r in REDUCES:
    for inc in (True, False):
        name = "scatter/%s/%d" % (r, inc)
        g.add(name + "/dim0", self2.scatter_reduce(0, idx2, src2, r, include_self=inc))
        # along dim 1, src a non-contiguous [3, 2] view
        g.add(name + "/dim1", self2.scatter_reduce(1, IDX_DIM1, src2.t()[:3], r, include_self=inc))
        # transposed (non-contiguous) self
        g.add(name + "/t", self2.t().scatter_reduce(0, idx2.t()[:3], src2.t(), r, include_self=inc))
        # gradients of sum(out * w)
        s = self2.clone().requires_grad_()
        x = src2.clone().requires_grad_()
        out = s.scatter_reduce(0, idx2, x, r, include_self=inc)
        (out * mk([3, 4], torch.float64, 7)).sum().backward()
        g.add(name + "/grad_self", s.grad)
        g.add(name + "/grad_src", x.grad)
# integer and other dtypes
ints = torch.tensor([-1, 2, 3, 4, 7])
ii = torch.tensor([0, 0, 1, 1, 4, 4])
isrc = torch.tensor([-2, -2, 2, 3, 5, 6])
for dt in (torch.int64, torch.int32, torch.uint8, torch.int16):
    for r in REDUCES:
        for inc in (True, False):
            a = ints.abs().to(dt) if dt == torch.uint8 else ints.to(dt)
            b = isrc.abs().to(dt) if dt == torch.uint8 else isrc.to(dt)
            g.add("scatter/int/%s/%s/%d" % (str(dt)[6:], r, inc), a.scatter_reduce(0, ii, b, r, include_self=inc))
for dt in (torch.float16, torch.bfloat16, torch.float32):
    for r in REDUCES:
        a = torch.tensor([1., 2., -3., 4.5]).to(dt)
        b = torch.tensor([3., 7., 0.1, -2., 1.3]).to(dt)
        g.add("scatter/%s/%s" % (str(dt)[6:], r), a.scatter_reduce(0, torch.tensor([0, 0, 0, 2, 2]), b, r))
for r in ("sum", "prod", "amax", "amin"):
    g.add("scatter/bool/" + r, torch.tensor([True, False, False]).scatter_reduce(
        0, torch.tensor([0, 1, 1]), torch.tensor([False, True, False]), r))
for r in ("amax", "amin"):
    for inc in (True, False):
        g.add("scatter/nan/%s/%d" % (r, inc), torch.tensor([1., nan, 3.]).scatter_reduce(
            0, torch.tensor([0, 0, 2, 1]), torch.tensor([nan, 2., 5., 4.]), r, include_self=inc))
g.add("scatter/0d", torch.tensor(1.5).scatter_reduce(0, torch.tensor(0), torch.tensor(2.), "prod"))
# errors
x34 = torch.zeros(3, 4)
e.err("scatter_reduce reduce", lambda: x34.scatter_reduce(0, idx2, src2.float(), "max"))
e.err("scatter_reduce index dtype", lambda: x34.scatter_reduce(0, idx2.int(), src2.float(), "sum"))
e.err("scatter_reduce src dtype", lambda: x34.scatter_reduce(0, idx2, src2, "sum"))
e.err("scatter_reduce out of bounds", lambda: x34.scatter_reduce(0, idx2 + 2, src2.float(), "sum"))
e.err("scatter_reduce index size", lambda: x34.scatter_reduce(0, torch.zeros(3, 5, dtype=torch.long), src2.float(), "sum"))
e.err("scatter_reduce index dims", lambda: x34.scatter_reduce(0, torch.zeros(3, dtype=torch.long), src2.float(), "sum"))
e.err("scatter_reduce bool mean", lambda: torch.tensor([True]).scatter_reduce(0, torch.tensor([0]), torch.tensor([True]), "mean"))

# --- index_reduce ---
self3 = mk([4, 3], torch.float64, 2)
src3 = mk([5, 3], torch.float64, 4)
idx3 = torch.tensor([0, 2, 0, 3, 2])
g.add("index/self", self3)
g.add("index/src", src3)
for r in ("prod", "mean", "amax", "amin"):
    for inc in (True, False):
        name = "index/%s/%d" % (r, inc)
        g.add(name + "/dim0", self3.index_reduce(0, idx3, src3, r, include_self=inc))
        g.add(name + "/dim1", self3.index_reduce(1, torch.tensor([2, 0, 2, 2, 1]), mk([5, 4], torch.float64, 3).t(), r, include_self=inc))
        g.add(name + "/t", self3.t().index_reduce(1, idx3[:3].int(), src3.t()[:, :3], r, include_self=inc))
        g.add(name + "/bcast", self3.index_reduce(0, idx3, src3[:, :1], r, include_self=inc))
        s = self3.clone().requires_grad_()
        x = src3.clone().requires_grad_()
        out = s.index_reduce(0, idx3, x, r, include_self=inc)
        (out * mk([4, 3], torch.float64, 7)).sum().backward()
        g.add(name + "/grad_self", s.grad)
        g.add(name + "/grad_src", x.grad)
        g.add("index/int/%s/%d" % (r, inc), ints.index_reduce(0, ii, isrc, r, include_self=inc))
for r in ("amax", "amin"):
    g.add("index/nan/" + r, torch.tensor([1., nan, 3.]).index_reduce(
        0, torch.tensor([0, 0, 2, 1]), torch.tensor([nan, 2., 5., 4.]), r))
g.add("index/0d", torch.tensor(1.5).index_reduce(0, torch.tensor([0, 0]), torch.tensor([2., 3.]), "prod"))
x43 = torch.zeros(4, 3)
s53 = torch.ones(5, 3)
e.err("index_reduce reduce", lambda: x43.index_reduce(0, idx3, s53, "sum"))
e.err("index_reduce index dtype", lambda: x43.index_reduce(0, idx3.float(), s53, "prod"))
e.err("index_reduce source dtype", lambda: x43.index_reduce(0, idx3, s53.double(), "prod"))
e.err("index_reduce numel", lambda: x43.index_reduce(0, idx3[:3], s53, "prod"))
e.err("index_reduce out of range", lambda: x43.index_reduce(0, idx3 + 2, s53, "prod"))
e.err("index_reduce index dim", lambda: x43.index_reduce(0, idx3[:4].view(2, 2), torch.ones(4, 3), "prod"))
e.err("index_reduce broadcast", lambda: x43.index_reduce(0, idx3, torch.ones(5, 2), "prod"))
e.err("index_reduce bool", lambda: torch.tensor([True]).index_reduce(0, torch.tensor([0]), torch.tensor([True]), "amax"))

# --- igamma / igammac ---
A = [0.001, 0.003, 0.01, 0.05, 0.1, 0.3, 0.5, 0.9, 1., 1.5, 2., 3.7, 5., 9.9, 10., 15., 20., 25.,
     33.3, 50., 99., 150., 199., 201., 300., 500., 800., 1000.]
X = [0., 1e-5, 0.001, 0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 1., 1.05, 1.1, 1.2, 1.5, 2., 3., 5., 7., 10.,
     14., 20., 25., 30., 45., 60., 100., 150., 190., 210., 250., 320., 450., 500., 600., 750., 900.,
     980., 1000.]
a = torch.tensor([p for p in A for _ in X], dtype=torch.float64)
x = torch.tensor([q for _ in A for q in X], dtype=torch.float64)
g.add("igamma/grid/a", a)
g.add("igamma/grid/x", x)
for fn, name, upper in ((torch.igamma, "igamma", False), (torch.igammac, "igammac", True)):
    t = fn(a, x)
    exact = t.clone()
    for i in range(len(a)):
        if x[i] == 0:
            continue
        ref = mpmath.gammainc(a[i].item(), 0 if not upper else x[i].item(),
                              x[i].item() if not upper else mpmath.inf, regularized=True)
        ref = float(ref)
        if abs(t[i].item() - ref) > 1e-12 * abs(ref):
            exact[i] = ref
    g.add(name + "/grid", t)
    g.add(name + "/grid/exact", exact)
ea = torch.tensor([0., 0., 1., 1., inf, inf, 2., -1., nan, 1., 0., 2., 3.], dtype=torch.float64)
ex = torch.tensor([0., 1., 0., inf, 1., inf, inf, 1., 1., nan, -1., -0.5, 2.], dtype=torch.float64)
g.add("igamma/edge/a", ea)
g.add("igamma/edge/x", ex)
g.add("igamma/edge", torch.igamma(ea, ex))
g.add("igammac/edge", torch.igammac(ea, ex))
fa = torch.tensor([0.5, 1., 2.5, 10., 30.])
fx = torch.tensor([0.2, 1., 3., 9., 31.])
for dt in (torch.float32, torch.float16, torch.bfloat16):
    g.add("igamma/" + str(dt)[6:], torch.igamma(fa.to(dt), fx.to(dt)))
    g.add("igammac/" + str(dt)[6:], torch.igammac(fa.to(dt), fx.to(dt)))
g.add("igamma/mixed", torch.igamma(fa, torch.tensor([1, 2, 3, 4, 5])))
g.add("igamma/bcast", torch.igamma(fa.double().view(5, 1), fx.double()[:3]))
aa = torch.tensor([1.5, 2., 0.7], dtype=torch.float64)
xx = torch.tensor([0.5, 3., 1.2], dtype=torch.float64, requires_grad=True)
torch.igamma(aa, xx).sum().backward()
g.add("igamma/grad", xx.grad)
xx.grad = None
torch.igammac(aa, xx).sum().backward()
g.add("igammac/grad", xx.grad)
e.err("igamma long", lambda: torch.igamma(torch.tensor([1, 2]), torch.tensor([1, 2])))
e.err("igamma bool", lambda: torch.igamma(torch.tensor([True]), torch.tensor([True])))
e.err("igamma_ long", lambda: torch.tensor([1, 2]).igamma_(torch.tensor([1., 2.])))
e.err("igamma grad input", lambda: torch.igamma(aa.clone().requires_grad_(), xx).sum().backward())
e.err("igammac grad input", lambda: torch.igammac(aa.clone().requires_grad_(), xx).sum().backward())

# --- histogram ---
h = torch.tensor([1., 2, 1, 4, 5.5, -3, 2.5, 4])
g.add("hist/in", h)


def hist(name, *args, **kw):
    r = torch.histogram(*args, **kw)
    g.add(name + "/hist", r.hist)
    g.add(name + "/edges", r.bin_edges)


hist("hist/4", h, 4)
hist("hist/4/f64", h.double(), 4)
hist("hist/default", h)
hist("hist/range", h, 4, range=(0., 4.))
hist("hist/tensor", h, torch.tensor([0., 1, 2.5, 10]))
hist("hist/weight", h, 3, weight=torch.arange(8.))
hist("hist/density", h, 3, weight=torch.arange(8.), density=True)
hist("hist/density/tensor", h.double(), torch.tensor([-4., 1, 2.5, 10], dtype=torch.float64), density=True)
hist("hist/empty", torch.tensor([]), 3)
hist("hist/same", torch.tensor([2., 2.]), 3)
hist("hist/same_range", torch.tensor([2., 2.]), 3, range=(1., 1.))
hist("hist/2d_t", torch.tensor([[1., 2, 7], [3, 4, 0.5]]).t(), 5)
hist("hist/fine", torch.tensor([0.1, 0.2, 0.3], dtype=torch.float64), 7)
g.add("hist/tenth/in", torch.arange(0., 1.01, 0.1))
hist("hist/tenth", torch.arange(0., 1.01, 0.1), 10)
hist("hist/nonmonotonic", torch.tensor([1., 2]), torch.tensor([1., 0.]))
e.err("histogram nan", lambda: torch.histogram(torch.tensor([1., nan]), 3))
e.err("histogram inf", lambda: torch.histogram(torch.tensor([1., inf]), 3))
e.err("histogram range nan", lambda: torch.histogram(torch.tensor([1., 2.]), 3, range=(nan, 1.)))
e.err("histogram long", lambda: torch.histogram(torch.tensor([1, 2]), 3))
e.err("histogram half", lambda: torch.histogram(torch.tensor([1., 2]).half(), 3))
e.err("histogram bins 0", lambda: torch.histogram(torch.tensor([1., 2]), 0))
e.err("histogram bins -1", lambda: torch.histogram(torch.tensor([1., 2]), -1))
e.err("histogram min max", lambda: torch.histogram(torch.tensor([1., 2]), 3, range=(2., 1.)))
e.err("histogram bins 2d", lambda: torch.histogram(torch.tensor([1., 2]), torch.tensor([[1., 2.]])))
e.err("histogram bins dtype", lambda: torch.histogram(torch.tensor([1., 2]), torch.tensor([1., 2.]).double()))
e.err("histogram bins 1", lambda: torch.histogram(torch.tensor([1., 2]), torch.tensor([1.])))
e.err("histogram weight shape", lambda: torch.histogram(torch.tensor([1., 2]), 3, weight=torch.tensor([1.])))
e.err("histogram weight dtype", lambda: torch.histogram(torch.tensor([1., 2]), 3, weight=torch.tensor([1., 2]).double()))

e.err("histogram range 3", lambda: torch.histogram(torch.tensor([1., 2]), 3, range=[0., 1., 2.]))
e.err("histogram int range", lambda: torch.histogram(torch.tensor([1, 2]).int(), 3, range=[0., 1.]))
e.err("histogram int bins tensor", lambda: torch.histogram(torch.tensor([1, 2]).int(), torch.tensor([0, 1, 2]).int()))

# --- histogramdd (at::histogramdd's three overloads: torch.ops.aten) ---
HDD = torch.ops.aten.histogramdd
hdd_in = torch.tensor([[0., 1.], [1., 2.], [2., 3.], [0.5, 2.5], [1.5, 1.], [2., 1.5], [0.2, 3.]])
g.add("hdd/in", hdd_in)
g.add("hdd/w", torch.arange(1., 8.))


def hdd(name, r):
    g.add(name + "/hist", r[0])
    for d, edge in enumerate(r[1]):
        g.add("%s/edges%d" % (name, d), edge)


hdd("hdd/bins23", HDD(hdd_in, [2, 3]))
hdd("hdd/bins23/f64", HDD(hdd_in.double(), [2, 3]))
hdd("hdd/int", HDD.int_bins(hdd_in, 4))
hdd("hdd/range", HDD(hdd_in, [2, 2], [0., 1., 1., 2.]))
hdd("hdd/weight", HDD(hdd_in, [3, 2], weight=torch.arange(1., 8.)))
hdd("hdd/density", HDD(hdd_in, [3, 2], weight=torch.arange(1., 8.), density=True))
hdd("hdd/density/f64", HDD.int_bins(hdd_in.double(), 3, density=True))
B0, B1 = torch.tensor([0., 0.5, 2.]), torch.tensor([1., 2., 2.5, 3.])
hdd("hdd/tensors", HDD.TensorList_bins(hdd_in, [B0, B1]))
hdd("hdd/tensors/density", HDD.TensorList_bins(hdd_in, [B0, B1], weight=torch.arange(1., 8.), density=True))
hdd("hdd/tensors/range_ignored", HDD.TensorList_bins(hdd_in, [B0, B1], [0., 1., 0., 1.]))
hdd("hdd/nonmonotonic", HDD.TensorList_bins(hdd_in, [torch.tensor([2., 1., 0.]), B1]))
hdd3 = mk([2, 3, 3], torch.float32, 3)
g.add("hdd/3d/in", hdd3)
hdd("hdd/3d", HDD(hdd3, [2, 3, 2], weight=mk([2, 3], torch.float32, 5)))
hdd("hdd/3d/t", HDD.int_bins(hdd3.transpose(0, 2), 2))
hdd("hdd/empty", HDD(torch.zeros(0, 2), [2, 2]))
hdd("hdd/empty/density", HDD(torch.zeros(0, 2), [2, 2], density=True))
hdd("hdd/same", HDD(torch.ones(2, 2), [2, 2]))
hdd("hdd/scalar_weight", HDD(torch.ones(1, 2), [2, 2], weight=torch.tensor(3.)))
hdd("hdd/zero_dims", HDD(torch.zeros(2, 0), []))
hdd("hdd/1col", HDD.int_bins(hdd_in[:, :1], 3))
x2 = hdd_in
e.err("histogramdd 1d", lambda: HDD(torch.zeros(3), [2]))
e.err("histogramdd 1d tensors", lambda: HDD.TensorList_bins(torch.zeros(3), [B0]))
e.err("histogramdd bins 0", lambda: HDD(x2, [2, 0]))
e.err("histogramdd bins -1", lambda: HDD(x2, [2, -1]))
e.err("histogramdd bins -2", lambda: HDD(x2, [2, -2]))
e.err("histogramdd range size", lambda: HDD(x2, [2, 2], [0., 1.]))
e.err("histogramdd min max", lambda: HDD(x2, [2, 2], [0., 1., 2., 1.]))
e.err("histogramdd range inf", lambda: HDD(x2, [2, 2], [0., 1., 2., inf]))
e.err("histogramdd data nan", lambda: HDD(torch.tensor([[0., nan], [1., 1.]]), [2, 2]))
e.err("histogramdd int", lambda: HDD(x2.int(), [2, 2]))
e.err("histogramdd int range", lambda: HDD(x2.int(), [2, 2], [0., 1., 0., 1.]))
e.err("histogramdd weight shape", lambda: HDD(x2, [2, 2], weight=torch.ones(3)))
e.err("histogramdd weight shape 2d", lambda: HDD(torch.ones(2, 3, 2), [2, 2], weight=torch.ones(3, 2)))
e.err("histogramdd weight dtype", lambda: HDD(x2, [2, 2], weight=torch.ones(7).double()))
e.err("histogramdd weight before bins", lambda: HDD(x2, [2, 0], weight=torch.ones(3)))
e.err("histogramdd tensors count", lambda: HDD.TensorList_bins(x2, [B0]))
e.err("histogramdd tensors one edge", lambda: HDD.TensorList_bins(x2, [B0, torch.tensor([1.])]))
e.err("histogramdd tensors empty", lambda: HDD.TensorList_bins(x2, [B0, torch.tensor([])]))
e.err("histogramdd tensors 2d", lambda: HDD.TensorList_bins(x2, [B0, B1.view(2, 2)]))
e.err("histogramdd tensors dtype", lambda: HDD.TensorList_bins(x2, [B0, B1.double()]))
e.err("histogramdd tensors int", lambda: HDD.TensorList_bins(x2.int(), [B0.int(), B1.int()]))

g.write()
e.write()
