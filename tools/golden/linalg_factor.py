#!/usr/bin/python3
"""What PyTorch 1.13 gives for tensor/linalg_factor_test.cc (linalg.qr,
torch.qr, geqrf, orgqr / householder_product, ormqr, lu_factor(_ex),
lu_unpack, linalg.lu, lu_solve, linalg.lu_solve, Tensor.lu): values,
gradients and error messages. Run with Debian's PyTorch:
/usr/bin/python3 tools/golden/linalg_factor.py
Writes tensor/testdata/linalg_factor_golden.inc and
tensor/testdata/linalg_factor_errors_golden.inc."""
import warnings

import torch

from golden_util import ErrorWriter, GoldenWriter

warnings.simplefilter("ignore")  # torch.qr, torch.lu, torch.lu_solve are deprecated

D = torch.float64
# Fixed inputs; the test reads them back from the table ("in/...").
INPUTS = {
    "sq": torch.tensor([[4., 1., 2.], [1., -3., 0.5], [2., 0.5, 5.]], dtype=D),
    "tall": torch.tensor([[1., 2.], [3., -4.], [0.5, 6.], [-2., 1.]], dtype=D),
    "wide": torch.tensor([[1., 2., 3., -1.], [3., -4., 0.5, 2.]], dtype=D),
    "batch": torch.tensor([[[2., 1.], [1., 3.]], [[0., 1.], [-2., 1.5]], [[1., 2.], [2., 4.]]],
                          dtype=D),
    "B": torch.tensor([[1., 2.], [3., 4.], [5., 6.]], dtype=D),
    "C4": torch.tensor([[1., 0., 2.], [-1., 3., 1.], [4., 0., 2.], [0.5, 1., -1.]], dtype=D),
}

g = GoldenWriter("linalg_factor")
for name, t in INPUTS.items():
    g.add("in/" + name, t)


def add(name, r):
    if isinstance(r, tuple):
        for i, t in enumerate(r):
            g.add("%s/%d" % (name, i), t)
    else:
        g.add(name, r)


sq, tall, wide, batch = INPUTS["sq"], INPUTS["tall"], INPUTS["wide"], INPUTS["batch"]
for n, A in (("sq", sq), ("tall", tall), ("wide", wide), ("batch", batch),
             ("sqT", sq.t())):
    for mode in ("reduced", "complete", "r"):
        add("qr/%s/%s" % (n, mode), tuple(torch.linalg.qr(A, mode=mode)))
    add("geqrf/" + n, tuple(torch.geqrf(A)))
    add("lu_factor_ex/" + n, tuple(torch.linalg.lu_factor_ex(A)))
    add("linalg_lu/" + n, tuple(torch.linalg.lu(A)))
add("qr/float/reduced", tuple(torch.linalg.qr(tall.float())))
add("qr/empty/reduced", tuple(torch.linalg.qr(torch.zeros(0, 3, dtype=D))))
add("qr/empty/complete", tuple(torch.linalg.qr(torch.zeros(3, 0, dtype=D), mode="complete")))
add("qr/empty_batch/reduced", tuple(torch.linalg.qr(torch.zeros(2, 0, 0, dtype=D))))
add("torch.qr/tall/some", tuple(torch.qr(tall)))
add("torch.qr/tall/full", tuple(torch.qr(tall, some=False)))

a, tau = torch.geqrf(tall)
add("orgqr/tall", torch.orgqr(a, tau))
add("orgqr/tall/k1", torch.linalg.householder_product(tall, tau[:1]))
ab, taub = torch.geqrf(batch)
add("orgqr/batch", torch.orgqr(ab, taub))
C4 = INPUTS["C4"]
for left in (True, False):
    for tr in (False, True):
        other = C4 if left else C4.t()
        add("ormqr/%d%d" % (left, tr), torch.ormqr(a, tau, other, left=left, transpose=tr))

add("lu_factor_ex/singular", tuple(torch.linalg.lu_factor_ex(batch[2])))
add("lu_factor_ex/float", tuple(torch.linalg.lu_factor_ex(sq.float())))
add("lu_factor_ex/empty", tuple(torch.linalg.lu_factor_ex(torch.zeros(2, 0, 3, dtype=D))))
add("tensor_lu/sq", tuple(sq.lu(get_infos=True)))
LU, piv = torch.linalg.lu_factor(sq)
add("lu_unpack/sq", tuple(torch.lu_unpack(LU, piv)))
LUw, pivw = torch.linalg.lu_factor(wide)
add("lu_unpack/wide", tuple(torch.lu_unpack(LUw, pivw)))
LUt, pivt = torch.linalg.lu_factor(tall)
add("lu_unpack/tall", tuple(torch.lu_unpack(LUt, pivt)))
B = INPUTS["B"]
add("lu_solve/old", torch.lu_solve(B, LU, piv))
for left in (True, False):
    for adj in (False, True):
        rhs = B if left else B.t()
        add("lu_solve/%d%d" % (left, adj), torch.linalg.lu_solve(LU, piv, rhs, left=left,
                                                                 adjoint=adj))
LUb, pivb = torch.linalg.lu_factor(batch[:2])
add("lu_solve/batch", torch.linalg.lu_solve(LUb, pivb, B[:2]))

# Gradients of sum(out * W) for fixed W (the test rebuilds W as the
# table's "w/..." entries).


def grads(name, fn, *xs):
    xs = [x.clone().requires_grad_() for x in xs]
    outs = fn(*xs)
    outs = outs if isinstance(outs, tuple) else (outs,)
    total = 0
    for i, o in enumerate(outs):
        if o.requires_grad and o.numel() > 0:
            w = torch.linspace(-1, 1, o.numel(), dtype=D).reshape(o.shape)
            total = total + (o * w).sum()
    total.backward()
    for i, x in enumerate(xs):
        g.add("%s/grad%d" % (name, i), x.grad)


grads("grad/qr/tall", lambda x: torch.linalg.qr(x), tall)
grads("grad/qr/wide", lambda x: torch.linalg.qr(x), wide)
grads("grad/qr/sq_complete", lambda x: torch.linalg.qr(x, mode="complete"), sq)
grads("grad/orgqr", lambda x, t: torch.linalg.householder_product(x, t), a, tau)
grads("grad/lu_factor/sq", lambda x: torch.linalg.lu_factor(x)[0], sq)
grads("grad/lu_factor/wide", lambda x: torch.linalg.lu_factor(x)[0], wide)
grads("grad/lu_factor/tall", lambda x: torch.linalg.lu_factor(x)[0], tall)
grads("grad/linalg_lu/tall", lambda x: torch.linalg.lu(x)[1:], tall)
grads("grad/lu_solve", lambda x, b: torch.linalg.lu_solve(x, piv, b), LU, B)
add("linalg_lu/empty_batch", tuple(torch.linalg.lu(torch.zeros(2, 0, 3, dtype=D))))
add("lu_solve/empty", torch.linalg.lu_solve(torch.zeros(0, 0, dtype=D),
                                            torch.zeros(0, dtype=torch.int32),
                                            torch.zeros(0, 2, dtype=D)))
add("lu_unpack/long", tuple(torch.lu_unpack(torch.tensor([[2, 1], [1, 3]]),
                                            torch.tensor([2, 2], dtype=torch.int32))))
g.write()

e = ErrorWriter("linalg_factor")
e.err("qr 1d", lambda: torch.linalg.qr(torch.ones(2)))
e.err("qr long", lambda: torch.linalg.qr(torch.ones(2, 2, dtype=torch.long)))
e.err("qr mode", lambda: torch.linalg.qr(torch.ones(2, 2), mode="foo"))
e.err("qr half", lambda: torch.linalg.qr(torch.ones(2, 2, dtype=torch.half)))
e.err("qr r backward",
      lambda: torch.linalg.qr(tall.clone().requires_grad_(), mode="r")[1].sum().backward())
e.err("qr complete tall backward",
      lambda: torch.linalg.qr(tall.clone().requires_grad_(), mode="complete")[0].sum().backward())
e.err("geqrf 1d", lambda: torch.geqrf(torch.ones(2)))
e.err("geqrf long", lambda: torch.geqrf(torch.ones(2, 2, dtype=torch.long)))
e.err("geqrf backward", lambda: torch.geqrf(sq.clone().requires_grad_())[0].sum().backward())
e.err("orgqr 1d", lambda: torch.orgqr(torch.ones(2), torch.ones(1)))
e.err("orgqr wide", lambda: torch.orgqr(torch.ones(2, 3), torch.ones(1)))
e.err("orgqr tau long", lambda: torch.orgqr(torch.ones(3, 2), torch.ones(3)))
e.err("orgqr tau ndim", lambda: torch.orgqr(torch.ones(3, 2), torch.ones(1, 2)))
e.err("orgqr tau batch", lambda: torch.orgqr(torch.ones(2, 3, 2), torch.ones(3, 2)))
e.err("orgqr dtype", lambda: torch.orgqr(torch.ones(3, 2), torch.ones(2, dtype=D)))
e.err("orgqr long", lambda: torch.orgqr(torch.ones(3, 2, dtype=torch.long),
                                        torch.ones(2, dtype=torch.long)))
e.err("ormqr 1d", lambda: torch.ormqr(torch.ones(2), torch.ones(1), torch.ones(2, 2)))
e.err("ormqr other 1d", lambda: torch.ormqr(torch.ones(2, 2), torch.ones(1), torch.ones(2)))
e.err("ormqr tau", lambda: torch.ormqr(torch.ones(3, 2), torch.ones(3), torch.ones(3, 2)))
e.err("ormqr shape", lambda: torch.ormqr(torch.ones(3, 2), torch.ones(2), torch.ones(4, 2)))
e.err("ormqr shape right",
      lambda: torch.ormqr(torch.ones(3, 2), torch.ones(2), torch.ones(2, 4), left=False))
e.err("ormqr dtype",
      lambda: torch.ormqr(torch.ones(3, 2), torch.ones(2), torch.ones(3, 2, dtype=D)))
e.err("ormqr batch",
      lambda: torch.ormqr(torch.ones(2, 3, 2), torch.ones(2, 2), torch.ones(3, 3, 2)))
e.err("ormqr backward", lambda: torch.ormqr(a.clone().requires_grad_(), tau, C4).sum().backward())
e.err("lu_factor 1d", lambda: torch.linalg.lu_factor(torch.ones(2)))
e.err("lu_factor long", lambda: torch.linalg.lu_factor(torch.ones(2, 2, dtype=torch.long)))
e.err("lu_factor pivot", lambda: torch.linalg.lu_factor(torch.ones(2, 2), pivot=False))
e.err("linalg_lu pivot", lambda: torch.linalg.lu(torch.ones(2, 2), pivot=False))
e.err("lu_factor singular", lambda: torch.linalg.lu_factor(batch[2]))
e.err("lu_factor singular batch", lambda: torch.linalg.lu_factor(batch))
e.err("lu_factor_ex check", lambda: torch.linalg.lu_factor_ex(batch[2], check_errors=True))
e.err("lu long", lambda: torch.ones(2, 2, dtype=torch.long).lu())
e.err("linalg_lu long", lambda: torch.linalg.lu(torch.ones(2, 2, dtype=torch.long)))
e.err("lu_unpack 1d", lambda: torch.lu_unpack(torch.ones(2), torch.ones(2, dtype=torch.int32)))
e.err("lu_unpack pivots dtype", lambda: torch.lu_unpack(torch.ones(2, 2), torch.ones(2)))
e.err("lu_unpack pivots range",
      lambda: torch.lu_unpack(torch.ones(2, 2), torch.tensor([3, 2], dtype=torch.int32)))
e.err("lu_solve nonsquare", lambda: torch.linalg.lu_solve(torch.ones(3, 2), piv, torch.ones(3, 2)))
e.err("lu_solve B 1d", lambda: torch.linalg.lu_solve(LU, piv, torch.ones(3, dtype=D)))
e.err("lu_solve shape", lambda: torch.linalg.lu_solve(LU, piv, torch.ones(2, 2, dtype=D)))
e.err("lu_solve shape right",
      lambda: torch.linalg.lu_solve(LU, piv, torch.ones(2, 2, dtype=D), left=False))
e.err("lu_solve dtype", lambda: torch.linalg.lu_solve(LU, piv, torch.ones(3, 2)))
e.err("lu_solve pivots dtype", lambda: torch.linalg.lu_solve(LU, piv.long(), torch.ones(3, 2, dtype=D)))
e.err("lu_solve pivots shape", lambda: torch.linalg.lu_solve(LU, piv[:2], torch.ones(3, 2, dtype=D)))
e.err("old lu_solve shape", lambda: torch.lu_solve(torch.ones(2, 2, dtype=D), LU, piv))
e.err("old lu_solve dtype", lambda: torch.lu_solve(torch.ones(3, 2), LU, piv))
e.err("ormqr k>m", lambda: torch.ormqr(torch.ones(2, 3), torch.ones(3), torch.ones(2, 2)))
e.err("ormqr k>m right",
      lambda: torch.ormqr(torch.ones(2, 3), torch.ones(3), torch.ones(2, 2), left=False))
e.err("ormqr tau ndim", lambda: torch.ormqr(torch.ones(3, 2), torch.ones(1, 2), torch.ones(3, 2)))
e.err("ormqr other ndim",
      lambda: torch.ormqr(torch.ones(3, 2), torch.ones(2), torch.ones(1, 3, 2)))
e.err("ormqr tau batch",
      lambda: torch.ormqr(torch.ones(2, 3, 2), torch.ones(3, 2), torch.ones(2, 3, 2)))
e.err("ormqr tau dtype",
      lambda: torch.ormqr(torch.ones(3, 2), torch.ones(2, dtype=D), torch.ones(3, 2)))
e.err("ormqr long", lambda: torch.ormqr(torch.ones(3, 2, dtype=torch.long),
                                        torch.ones(2, dtype=torch.long),
                                        torch.ones(3, 2, dtype=torch.long)))
e.err("orgqr tau 0d", lambda: torch.linalg.householder_product(torch.ones(3, 2), torch.tensor(1.)))
e.err("qr bfloat16", lambda: torch.linalg.qr(torch.ones(2, 2, dtype=torch.bfloat16)))
e.err("lu_factor half", lambda: torch.linalg.lu_factor(torch.ones(2, 2, dtype=torch.half)))
e.err("lu_factor_ex pivot", lambda: torch.linalg.lu_factor_ex(torch.ones(2, 2), pivot=False))
e.err("lu_solve LU 1d", lambda: torch.linalg.lu_solve(torch.ones(3), piv, torch.ones(3, 2)))
e.err("lu_solve LU long", lambda: torch.linalg.lu_solve(torch.ones(3, 3, dtype=torch.long), piv,
                                                        torch.ones(3, 2, dtype=torch.long)))
e.err("lu_solve pivots batch",
      lambda: torch.linalg.lu_solve(LU, piv.expand(2, 3), torch.ones(3, 2, dtype=D)))
e.err("lu_solve B batch",
      lambda: torch.linalg.lu_solve(LU.expand(2, 3, 3), piv.expand(2, 3).contiguous(),
                                    torch.ones(3, 3, 2, dtype=D)))
e.err("lu_solve pivots small", lambda: torch.linalg.lu_solve(
    LU, torch.tensor([5, 0, -1], dtype=torch.int32), torch.ones(3, 2, dtype=D)))
e.err("lu_solve pivots large", lambda: torch.linalg.lu_solve(
    LU, torch.tensor([5, 2, 3], dtype=torch.int32), torch.ones(3, 2, dtype=D)))
e.write()
