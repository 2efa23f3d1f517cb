#!/usr/bin/python3
"""What PyTorch 1.13 gives for tensor/more_ops_test.cc's cases (put/put_,
fill_diagonal_, mvlgamma, renorm, frexp, cov/corrcoef, is_nonzero, T,
where, resize_). Run with Debian's PyTorch: /usr/bin/python3 tools/golden/more_ops.py
The printed values are pasted into the test."""
import torch

inf, nan = float("inf"), float("nan")
x = torch.arange(12.).view(3, 4)


def show(name, f):
    try:
        r = f()
        if isinstance(r, tuple):
            print(name, "->", [(t.tolist(), str(t.dtype)) for t in r])
        elif isinstance(r, torch.Tensor):
            print(name, "->", r.tolist(), r.dtype, tuple(r.shape), r.stride())
        else:
            print(name, "->", r)
    except Exception as e:  # noqa: BLE001
        print(name, "-> error:", str(e).split("\n")[0])


show("put_", lambda: x.clone().put_(torch.tensor([0, 5, -1]), torch.tensor([9., 8., 7.])))
show("put_ accumulate", lambda: x.clone().put_(torch.tensor([0, 0]), torch.tensor([1., 2.]),
                                               accumulate=True))
show("put_ transposed", lambda: x.t().clone().put_(torch.tensor([1, 6]), torch.tensor([100., 200.])))
show("put", lambda: x.put(torch.tensor([1]), torch.tensor([5.])))
show("put 0-dim", lambda: torch.tensor(3.).put(torch.tensor([-1]), torch.tensor([5.])))
show("put_ out of range", lambda: x.clone().put_(torch.tensor([3, 12]), torch.tensor([1., 2.])))
show("put_ numel", lambda: x.clone().put_(torch.tensor([1, 2]), torch.tensor([5.])))
show("put_ float index", lambda: x.clone().put_(torch.tensor([1.]), torch.tensor([5.])))
show("put_ dtype", lambda: x.clone().put_(torch.tensor([1]), torch.tensor([5.], dtype=torch.float64)))
show("fill_diagonal_", lambda: torch.zeros(3, 4).fill_diagonal_(5))
show("fill_diagonal_ tall", lambda: torch.zeros(7, 3).fill_diagonal_(5))
show("fill_diagonal_ wrap", lambda: torch.zeros(7, 3).fill_diagonal_(5, wrap=True))
show("fill_diagonal_ 3d", lambda: torch.zeros(2, 2, 2).fill_diagonal_(1))
show("fill_diagonal_ long", lambda: torch.zeros(3, 3, dtype=torch.long).fill_diagonal_(2.7))
show("fill_diagonal_ unequal", lambda: torch.zeros(2, 3, 2).fill_diagonal_(1))
show("fill_diagonal_ 1d", lambda: torch.zeros(3).fill_diagonal_(1))
show("mvlgamma 2", lambda: torch.tensor([2.5, 3., 1.6], dtype=torch.float64).mvlgamma(2))
show("mvlgamma 3", lambda: torch.tensor([1., 3.], dtype=torch.float64).mvlgamma(3))
show("mvlgamma int", lambda: torch.tensor([2, 3]).mvlgamma(2))
show("mvlgamma 0", lambda: torch.tensor([2.5]).mvlgamma(0))
show("mvlgamma bool", lambda: torch.tensor([True]).mvlgamma(1))
show("renorm 2 0 5", lambda: x.double().renorm(2, 0, 5))
show("renorm 1 1 10", lambda: x.double().renorm(1, 1, 10))
show("renorm inf -2 3", lambda: x.double().renorm(inf, -2, 3))
show("renorm p -1", lambda: x.renorm(-1, 0, 3))
show("renorm maxnorm -1", lambda: x.renorm(2, 0, -1))
show("renorm 1-d", lambda: torch.tensor([1., 2.]).renorm(2, 0, 1))
show("frexp", lambda: torch.frexp(torch.tensor([8., 0.3, -5., 0., inf, nan, 1e-40, -0.0, 1.0,
                                                 -0.75])))
show("frexp f64", lambda: torch.frexp(torch.tensor([8., 0.3, 1e-310, 2.0**-1074, 1e308],
                                                    dtype=torch.float64)))
show("frexp half", lambda: torch.frexp(torch.tensor([3., 1., 6e-8]).half()))
show("frexp int", lambda: torch.frexp(torch.tensor([1, 2])))
c = torch.tensor([[0., 1, 2], [2, 1, 0.5]], dtype=torch.float64)
show("cov", lambda: torch.cov(c))
show("cov 0", lambda: torch.cov(c, correction=0))
show("cov weights", lambda: torch.cov(c, fweights=torch.tensor([1, 2, 1]),
                                      aweights=torch.tensor([0.5, 1., 2.], dtype=torch.float64)))
show("cov 1-d int", lambda: torch.cov(torch.tensor([1, 2, 4])))
show("cov 3-d", lambda: torch.cov(torch.zeros(2, 2, 2)))
show("cov fweights float", lambda: torch.cov(c, fweights=torch.tensor([1., 2., 1.])))
show("cov aweights int", lambda: torch.cov(c, aweights=torch.tensor([1, 2, 1])))
show("cov fweights numel", lambda: torch.cov(c, fweights=torch.tensor([1, 2])))
show("cov fweights negative", lambda: torch.cov(c, fweights=torch.tensor([1, -2, 1])))
show("cov weights zero", lambda: torch.cov(c, fweights=torch.tensor([0, 0, 0])))
show("corrcoef", lambda: torch.corrcoef(torch.tensor([[0., 1, 2], [2, 1, 0.5], [1, 1, 1]],
                                                     dtype=torch.float64)))
show("corrcoef 1-d", lambda: torch.corrcoef(torch.tensor([1., 2., 4.])))
show("is_nonzero", lambda: [torch.tensor([0.]).is_nonzero(), torch.tensor(3).is_nonzero(),
                            torch.tensor([[True]]).is_nonzero()])
show("is_nonzero empty", lambda: torch.tensor([]).is_nonzero())
show("is_nonzero many", lambda: x.is_nonzero())
show("T", lambda: torch.arange(24.).view(2, 3, 4).T)
show("where", lambda: x.where(x > 5, torch.tensor([1., 2., 3., 4.])))
show("resize_ grad", lambda: torch.tensor([1., 2, 3]).requires_grad_().resize_(2))
show("resize_ negative", lambda: torch.tensor([1., 2, 3]).resize_(-1, 2))
