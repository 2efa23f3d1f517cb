#!/usr/bin/python3
"""What PyTorch 1.13 gives for the cases of tensor/spectral_more_test.cc:
einsum, cdist, pdist, the window functions (hann, hamming, blackman,
bartlett, kaiser) and nuclear_norm, with their error messages.
Run with Debian's PyTorch: /usr/bin/python3 tools/golden/spectral_more.py
Writes tensor/testdata/spectral_more_golden.inc (results) and
spectral_more_errors_golden.inc (messages). Inputs are mk(shape, seed) = sin(1.3 * arange(numel) + seed) in
float64 (the test builds the same)."""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_util import ErrorWriter, GoldenWriter  # noqa: E402

GW = GoldenWriter("spectral_more")
EW = ErrorWriter("spectral_more", first_line=True)


def show(name, f):
    """Records f()'s tensor, or the error it raises."""
    try:
        r = f()
    except Exception:  # noqa: BLE001
        EW.err(name, f)
        return
    GW.add(name, r)


def mk(shape, seed=0, dtype=torch.float64):
    n = 1
    for s in shape:
        n *= s
    return torch.sin(1.3 * torch.arange(n, dtype=torch.float64) + seed).reshape(shape).to(dtype)


A, B = mk((3, 4), 0), mk((4, 5), 1)
show("einsum ij,jk->ik", lambda: torch.einsum("ij,jk->ik", A, B))
show("einsum ij,jk", lambda: torch.einsum("ij,jk", A, B))
show("einsum bij,bjk->bik", lambda: torch.einsum("bij,bjk->bik", mk((2, 3, 4), 2), mk((2, 4, 2), 3)))
show("einsum ii", lambda: torch.einsum("ii", mk((3, 3), 4)))
show("einsum ii->i", lambda: torch.einsum("ii->i", mk((3, 3), 4)))
show("einsum i,j->ij", lambda: torch.einsum("i,j->ij", mk((3,), 5), mk((4,), 6)))
show("einsum i,j", lambda: torch.einsum("i,j", mk((3,), 5), mk((4,), 6)))
show("einsum ...ij,...jk", lambda: torch.einsum("...ij,...jk", mk((2, 1, 3, 4), 7), mk((3, 4, 2), 8)))
show("einsum ...ij,...jk->...ik", lambda: torch.einsum("...ij,...jk->...ik", mk((2, 3, 4), 7), mk((4, 2), 8)))
show("einsum ij->", lambda: torch.einsum("ij->", A))
show("einsum ij->ji", lambda: torch.einsum("ij->ji", A))
show("einsum ji", lambda: torch.einsum("ji", A))
show("einsum ij,jk,kl->il", lambda: torch.einsum("ij,jk,kl->il", A, B, mk((5, 2), 9)))
show("einsum ij,jk,kl", lambda: torch.einsum("ij,jk,kl", A, B, mk((5, 2), 9)))
show("einsum bn,anm,bm->ba", lambda: torch.einsum("bn,anm,bm->ba", mk((2, 3), 1), mk((4, 3, 5), 2), mk((2, 5), 3)))
show("einsum iij->j", lambda: torch.einsum("iij->j", mk((3, 3, 2), 10)))
show("einsum iji->ij", lambda: torch.einsum("iji->ij", mk((3, 2, 3), 10)))
show("einsum i,i->", lambda: torch.einsum("i,i->", mk((5,), 1), mk((5,), 2)))
show("einsum i,i->i", lambda: torch.einsum("i,i->i", mk((5,), 1), mk((5,), 2)))
show("einsum ij,ij->ij", lambda: torch.einsum("ij,ij->ij", A, mk((3, 4), 3)))
show("einsum Ab,bc->cA", lambda: torch.einsum("Ab,bc->cA", A, B))
show("einsum ba,Bc", lambda: torch.einsum("ba,Bc", mk((2, 3), 1), mk((2, 2), 2)))
show("einsum ... spaces", lambda: torch.einsum(" i j , j k -> i k ", A, B))
show("einsum i...->...", lambda: torch.einsum("i...->...", mk((3, 2, 2), 11)))
show("einsum ...->...", lambda: torch.einsum("...", mk((2, 3), 11)))
show("einsum ij,kj->ik broadcast 1", lambda: torch.einsum("ij,kj->ik", mk((3, 1), 1), mk((2, 4), 2)))
show("einsum bij,bjk broadcast batch", lambda: torch.einsum("bij,bjk->bik", mk((1, 2, 3), 1), mk((4, 3, 2), 2)))
show("einsum 0-dim", lambda: torch.einsum(",i->i", torch.tensor(2.5, dtype=torch.float64), mk((3,), 1)))
show("einsum empty", lambda: torch.einsum("ij,jk->ik", torch.zeros(2, 0, dtype=torch.float64), torch.zeros(0, 3, dtype=torch.float64)))
show("einsum float", lambda: torch.einsum("ij,jk->ik", A.float(), B.float()))
show("einsum long", lambda: torch.einsum("ij,jk->ik", torch.arange(6).reshape(2, 3), torch.arange(6).reshape(3, 2)))
show("einsum mixed mul", lambda: torch.einsum("i,j->ij", mk((2,), 1).float(), mk((2,), 2)))
show("einsum mixed bmm", lambda: torch.einsum("ij,jk->ik", A.float(), B))
show("einsum mixed dot", lambda: torch.einsum("i,i->", mk((2,), 1).float(), mk((2,), 2)))
show("einsum repeated output", lambda: torch.einsum("ij->ii", A))
show("einsum output not in input", lambda: torch.einsum("ij->k", A))
show("einsum too few operands", lambda: torch.einsum("ij,jk->ik", A))
show("einsum too many operands", lambda: torch.einsum("ij->ij", A, B))
show("einsum invalid subscript", lambda: torch.einsum("i1,jk->ik", A, B))
show("einsum invalid output subscript", lambda: torch.einsum("ij->i1", A))
show("einsum wrong ndim", lambda: torch.einsum("ijk->i", A))
show("einsum wrong ndim ell", lambda: torch.einsum("ijk...->i", A))
show("einsum two ellipses", lambda: torch.einsum("...i...->i", A))
show("einsum bad dot", lambda: torch.einsum("i..j->i", A))
show("einsum output two ellipses", lambda: torch.einsum("...ij->......", A))
show("einsum output bad dot", lambda: torch.einsum("...ij->..", A))
show("einsum diag size", lambda: torch.einsum("ii->i", A))
show("einsum no broadcast", lambda: torch.einsum("ij,jk->ik", A, mk((3, 5), 1)))
show("einsum no broadcast mul", lambda: torch.einsum("i,i->i", mk((3,), 1), mk((2,), 1)))

X1, X2 = mk((4, 3), 1), mk((5, 3), 2)
for p in (2.0, 1.0, 0.0, 3.0, 0.5, float("inf")):
    show("cdist p=%r" % p, lambda: torch.cdist(X1, X2, p=p))
show("cdist mm forced", lambda: torch.cdist(X1, X2, compute_mode="use_mm_for_euclid_dist"))
show("cdist batch", lambda: torch.cdist(mk((2, 1, 3, 2), 3), mk((3, 4, 2), 4)))
big1, big2 = mk((30, 3), 5), mk((2, 3), 6)
show("cdist big", lambda: torch.cdist(big1, big2))
show("cdist big no mm", lambda: torch.cdist(big1, big2, compute_mode="donot_use_mm_for_euclid_dist"))
show("cdist big p1", lambda: torch.cdist(big1, big2, p=1))
show("cdist float", lambda: torch.cdist(X1.float(), X2.float()))
show("cdist same", lambda: torch.cdist(X1, X1))
show("cdist empty rows", lambda: torch.cdist(torch.zeros(0, 3, dtype=torch.float64), X2))
show("cdist empty cols", lambda: torch.cdist(torch.zeros(2, 0, dtype=torch.float64), torch.zeros(3, 0, dtype=torch.float64)))
show("cdist 1d", lambda: torch.cdist(mk((3,), 1), X2))
show("cdist 1d x2", lambda: torch.cdist(X1, mk((3,), 1)))
show("cdist cols", lambda: torch.cdist(X1, mk((5, 2), 1)))
show("cdist long", lambda: torch.cdist(torch.ones(2, 3, dtype=torch.long), torch.ones(2, 3, dtype=torch.long)))
show("cdist negative p", lambda: torch.cdist(X1, X2, p=-1.0))
show("cdist mixed", lambda: torch.cdist(X1.float(), X2))
show("cdist batch mismatch", lambda: torch.cdist(mk((2, 3, 2), 3), mk((3, 4, 2), 4)))
for p in (2.0, 1.0, 0.0, 3.0, float("inf")):
    show("pdist p=%r" % p, lambda: torch.pdist(mk((4, 3), 7), p=p))
show("pdist one row", lambda: torch.pdist(mk((1, 3), 7)))
show("pdist float", lambda: torch.pdist(mk((3, 2), 7).float()))
show("pdist 3d", lambda: torch.pdist(mk((2, 3, 2), 7)))
show("pdist long", lambda: torch.pdist(torch.ones(2, 3, dtype=torch.long)))
show("pdist negative p", lambda: torch.pdist(mk((4, 3), 7), p=-1.0))

for name in ("hann", "hamming", "blackman", "bartlett", "kaiser"):
    f = getattr(torch, name + "_window")
    for n in (0, 1, 2, 5, 8):
        show("%s %d" % (name, n), lambda: f(n))
        show("%s %d symmetric" % (name, n), lambda: f(n, periodic=False))
    show("%s 7 double" % name, lambda: f(7, dtype=torch.float64))
    show("%s 6 symmetric double" % name, lambda: f(6, False, dtype=torch.float64))
    show("%s negative" % name, lambda: f(-1))
    show("%s long" % name, lambda: f(4, dtype=torch.long))
show("hamming alpha", lambda: torch.hamming_window(6, True, 0.6, dtype=torch.float64))
show("hamming alpha beta", lambda: torch.hamming_window(6, False, 0.6, 0.3, dtype=torch.float64))
show("kaiser beta", lambda: torch.kaiser_window(6, True, 5.0, dtype=torch.float64))
show("kaiser beta symmetric", lambda: torch.kaiser_window(7, False, 3.0, dtype=torch.float64))

M = mk((3, 4), 3)
show("nuclear_norm", lambda: torch.nuclear_norm(M))
show("nuclear_norm keepdim", lambda: torch.nuclear_norm(M, keepdim=True))
show("nuclear_norm float", lambda: torch.nuclear_norm(M.float()))
show("nuclear_norm dim", lambda: torch.nuclear_norm(mk((2, 3, 4), 4), dim=(0, 2)))
show("nuclear_norm dim keepdim", lambda: torch.nuclear_norm(mk((2, 3, 4), 4), dim=(2, 0), keepdim=True))
show("nuclear_norm 3d", lambda: torch.nuclear_norm(mk((2, 3, 4), 4)))
show("nuclear_norm 1d", lambda: torch.nuclear_norm(mk((3,), 4)))
show("nuclear_norm dim 1", lambda: torch.nuclear_norm(M, dim=(0,)))
show("nuclear_norm same dims", lambda: torch.nuclear_norm(M, dim=(0, 0)))
show("nuclear_norm dim range", lambda: torch.nuclear_norm(M, dim=(0, 2)))
show("nuclear_norm long", lambda: torch.nuclear_norm(torch.ones(2, 2, dtype=torch.long)))

GW.write()
EW.write()
