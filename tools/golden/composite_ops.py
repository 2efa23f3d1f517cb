#!/usr/bin/python3
"""What PyTorch 1.13 gives for the cases of tensor/composite_ops_test.cc
(nan_to_num, diff, kron, nansum/nanmean, deg2rad/rad2deg, logaddexp(2),
xlogy, sgn, positive) and the gradients of autograd/gradcheck_test.cc's
cases. Run with Debian's PyTorch: /usr/bin/python3 tools/golden/composite_ops.py
The printed values are pasted into the tests."""
import torch

inf, nan = float("inf"), float("nan")
x = torch.tensor([[1.5, -0.0, nan, 2.0], [inf, -3.0, 0.5, -inf]], dtype=torch.float64)
y = torch.tensor([[0.5, 2.0, 1.0, nan], [1.0, -1.0, 0.0, 2.0]], dtype=torch.float64)


def err(f):
    try:
        r = f()
        return (str(r.dtype), r.tolist())
    except Exception as e:  # noqa: BLE001
        return "error: " + str(e).split("\n")[0]


def show(name, v):
    print(name, "->", v)


show("nan_to_num", x.nan_to_num().tolist())
show("nan_to_num(1, 2, -2)", x.nan_to_num(1.0, 2.0, -2.0).tolist())
show("nan_to_num half", err(lambda: torch.tensor([1.0, inf, -inf, nan]).half().nan_to_num()))
show("nan_to_num bf16", err(lambda: torch.tensor([inf, -inf]).bfloat16().nan_to_num()))
show("nan_to_num int", err(lambda: torch.tensor([1, 2]).nan_to_num()))
show("diff", x.diff().tolist())
show("diff dim 0", x.diff(dim=0).tolist())
show("diff n 2", x.diff(n=2).tolist())
show("diff prepend append", err(lambda: torch.tensor([1, 3, 6]).diff(
    prepend=torch.tensor([0]), append=torch.tensor([10, 11]))))
show("diff bool", err(lambda: torch.tensor([True, False, False, True]).diff()))
show("diff n 5", err(lambda: torch.tensor([1.0, 2.0, 4.0]).diff(n=5)))
show("diff 0-dim", err(lambda: torch.tensor(1.0).diff()))
show("diff prepend dims", err(lambda: torch.tensor([1.0, 2.0]).diff(prepend=torch.tensor([[1.0]]))))
show("kron", err(lambda: torch.tensor([[1, 2], [3, 4]]).kron(torch.tensor([[0, 1], [1, 0]]))))
show("kron sizes", list(torch.ones(2, 3).kron(torch.ones(4)).shape))
show("kron int float", err(lambda: torch.tensor([1, 2]).kron(torch.tensor([1.5]))))
show("nansum", x.nansum().item())
show("nansum 1", x.nansum(1).tolist())
show("nansum y", y.nansum().item())
show("nansum int", err(lambda: torch.tensor([1, 2]).nansum()))
show("nanmean", x.nanmean().item())
show("nanmean 1", x.nanmean(1).tolist())
show("nanmean y 0 keepdim", y.nanmean(0, keepdim=True).tolist())
show("nanmean int", err(lambda: torch.tensor([1, 2]).nanmean()))
show("deg2rad", err(lambda: torch.tensor([180.0, 90.0]).deg2rad()))
show("deg2rad int", err(lambda: torch.tensor([180, 90]).deg2rad()))
show("rad2deg", err(lambda: torch.tensor([3.141592653589793, 1.0], dtype=torch.float64).rad2deg()))
show("logaddexp", x.logaddexp(y).tolist())
show("logaddexp infs", err(lambda: torch.tensor([inf, -inf, -inf]).logaddexp(torch.tensor([inf, -inf, 1.0]))))
show("logaddexp2", x.logaddexp2(y).tolist())
show("logaddexp int", err(lambda: torch.tensor([1]).logaddexp(torch.tensor([2]))))
show("xlogy", x.xlogy(y).tolist())
show("xlogy zeros", err(lambda: torch.tensor([0.0, 0.0, 1.0]).xlogy(torch.tensor([0.0, nan, 0.0]))))
show("xlogy int", err(lambda: torch.tensor([1, 2]).xlogy(torch.tensor([2, 3]))))
show("xlogy scalar", err(lambda: torch.tensor([1.0, 0.0]).xlogy(2)))
show("sgn", x.sgn().tolist())
show("positive bool", err(lambda: torch.tensor([True]).positive()))

ca = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
cb = torch.tensor([[0.0, 1.0, 0.0], [1.0, 0.0, 2.0]])
show("cross", err(lambda: ca.cross(cb)))
show("cross transposed", err(lambda: ca.t().cross(cb.t())))
show("cross int", err(lambda: torch.tensor([[1, 2, 3]]).cross(torch.tensor([[0, 1, 0]]))))
show("cross no 3", err(lambda: torch.ones(2, 4).cross(torch.ones(2, 4))))
show("cross dims", err(lambda: ca.cross(torch.tensor([1.0, 0, 0]))))
show("cross dtypes", err(lambda: ca.cross(cb.double())))
show("dist", err(lambda: ca.dist(cb)))
show("dist 1", err(lambda: ca.dist(cb, 1)))
show("dist inf", err(lambda: ca.dist(cb, float("inf"))))
show("lerp tensor", err(lambda: ca.lerp(cb, torch.tensor([0.0, 0.5, 1.0]))))
show("lerp 0-dim", err(lambda: ca.lerp(cb, torch.tensor(0.7))))
show("lerp end dtype", err(lambda: ca.lerp(cb.double(), torch.tensor(0.7))))
show("lerp weight dtype", err(lambda: ca.lerp(cb, torch.tensor(0.7).double())))
show("logit", err(lambda: torch.tensor([0.25, 0.0, 1.0, 0.5]).logit()))
show("logit eps", err(lambda: torch.tensor([0.25, 0.0, 1.0, -1.0]).logit(0.1)))
show("logit int", err(lambda: torch.tensor([1, 0]).logit()))
show("heaviside", err(lambda: torch.tensor([-1.0, 0.0, 2.0, nan]).heaviside(torch.tensor([0.5]))))
show("heaviside int", err(lambda: torch.tensor([-1, 0, 2]).heaviside(torch.tensor([7]))))
show("heaviside dtypes", err(lambda: torch.tensor([-1.0, 0.0]).heaviside(torch.tensor([1]))))
show("bitwise_and 5", err(lambda: torch.tensor([6, 3]).bitwise_and(5)))
show("bitwise_xor True", err(lambda: torch.tensor([True, False]).bitwise_xor(True)))
show("bitwise_or 1.5", err(lambda: torch.tensor([6, 3]).bitwise_or(1.5)))
bx = torch.ones(2, 2)
b1 = torch.arange(12.0).reshape(2, 2, 3)
b2 = torch.arange(12.0).reshape(2, 3, 2)
show("baddbmm", err(lambda: bx.baddbmm(b1, b2, beta=0.5, alpha=2)))
show("baddbmm beta 0 nan", err(lambda: torch.full((2, 2, 2), nan).baddbmm(b1, b2, beta=0)))
show("baddbmm long", err(lambda: torch.ones(2, 2, dtype=torch.long).baddbmm(b1.long(), b2.long())))
show("baddbmm double self", err(lambda: bx.double().baddbmm(b1, b2)))
show("baddbmm int beta 0.5 alpha 2.7", err(lambda: torch.ones(2, 2, dtype=torch.int32).baddbmm(
    b1.int(), b2.int(), beta=0.5, alpha=2.7)))
show("baddbmm int beta 1.5", err(lambda: torch.ones(2, 2, dtype=torch.int32).baddbmm(
    b1.int(), b2.int(), beta=1.5)))

# Gradients (float64) of the gradcheck cases, at points away from the kinks.
a = torch.tensor([[0.3, -1.2, 2.0], [0.7, 1.1, -0.4]], dtype=torch.float64, requires_grad=True)
b = torch.tensor([[1.5, 0.2, -0.6], [0.9, 2.5, 0.3]], dtype=torch.float64, requires_grad=True)
w = torch.tensor([[1.0, -2.0], [0.5, 3.0]], dtype=torch.float64)
for name, f in [("logaddexp", lambda: a.logaddexp(b)), ("logaddexp2", lambda: a.logaddexp2(b)),
                ("xlogy", lambda: a.xlogy(b.abs())), ("kron", lambda: a.kron(w)),
                ("diff", lambda: a.diff(n=2)), ("nanmean", lambda: a.nanmean(1, keepdim=True))]:
    out = f()
    ga, gb = torch.autograd.grad(out, [a, b], torch.ones_like(out), allow_unused=True)
    show("grad " + name, (ga.tolist(), gb.tolist() if gb is not None else None))
