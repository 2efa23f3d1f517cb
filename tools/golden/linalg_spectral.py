#!/usr/bin/python3
"""What PyTorch 1.13 gives for tensor/linalg_spectral_test.cc's cases (svd,
linalg.svd/svdvals, eigh/eigvalsh, symeig, pinv/pinverse, lstsq,
matrix_rank, matrix_exp, det's gradient at singular matrices). Run with
Debian's PyTorch:
/usr/bin/python3 tools/golden/linalg_spectral.py
It writes tensor/testdata/linalg_spectral_golden.inc (values) and
tensor/testdata/linalg_spectral_errors_golden.inc (messages).

Singular vectors and eigenvectors are unique only up to sign (LAPACK picks
one), so the tables hold reconstructions (U diag(S) Vh, V diag(L) V^T) and
|U|, |V| where the sign is the only freedom; singular values, eigenvalues,
pinv, lstsq solutions and matrix_exp are unique and stored as they are."""
import os
import sys
import warnings

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_util import ErrorWriter, GoldenWriter  # noqa: E402

warnings.simplefilter("ignore")  # torch.svd / symeig / matrix_rank(tol=) are deprecated
D = torch.float64

# Fixed inputs (the test rebuilds them from the same lists).
A = torch.tensor([[4., 1., 2.], [1., -3., 0.5], [2., 0.5, 5.], [0., 1., -1.]], dtype=D)  # 4x3
W = A.t()  # 3x4, non-contiguous
S3 = torch.tensor([[2., -1., 0.5], [-1., 3., 0.25], [0.5, 0.25, 1.]], dtype=D)  # symmetric
B2 = torch.tensor([[[2., 1.], [1., 3.]], [[0., 1.], [-2., 1.5]]], dtype=D)  # batch
R1 = torch.tensor([[1., 2., 3.], [2., 4., 6.], [-1., -2., -3.]], dtype=D)  # rank 1
R2 = torch.tensor([[1., 2., 3.], [4., 5., 6.], [7., 8., 9.]], dtype=D)  # rank 2
RHS = torch.tensor([[1., 2.], [3., 4.], [5., 6.], [7., 8.]], dtype=D)  # 4x2
M = torch.tensor([[0.5, -1., 0.25], [2., 0.1, -0.3], [0.7, 1.5, -0.2]], dtype=D)
BIG = torch.tensor([[1., 2.], [-3., 4.]], dtype=D) * 3  # needs scaling and squaring

g = GoldenWriter("linalg_spectral")
e = ErrorWriter("linalg_spectral")


def svd_parts(name, X, full):
    U, S, Vh = torch.linalg.svd(X, full_matrices=full)
    g.add(name + "/S", S)
    k = S.shape[-1]
    g.add(name + "/USVh", U[..., :, :k].matmul(S.unsqueeze(-1) * Vh[..., :k, :]))
    g.add(name + "/absU", U[..., :, :k].abs())
    g.add(name + "/absVh", Vh[..., :k, :].abs())
    g.add(name + "/shapes", torch.tensor([list(U.shape)[-2:] + list(Vh.shape)[-2:]]))


for nm, X in (("A", A), ("W", W), ("S3", S3), ("B2", B2), ("R1", R1)):
    svd_parts("svd/" + nm + "/full", X, True)
    svd_parts("svd/" + nm + "/reduced", X, False)
    g.add("svdvals/" + nm, torch.linalg.svdvals(X))
g.add("svdvals/A/f32", torch.linalg.svdvals(A.float()))
U, S, V = torch.svd(A)
g.add("torch.svd/A/UUSV", U.matmul(S.unsqueeze(-1) * V.mT))
g.add("torch.svd/A/shapes", torch.tensor([list(U.shape) + list(V.shape)]))
U, S, V = torch.svd(A, some=False)
g.add("torch.svd/A/full/shapes", torch.tensor([list(U.shape) + list(V.shape)]))
for nm, X in (("A", A), ("W", W)):
    for some in (True, False):
        U, S, V = torch.svd(X, some=some, compute_uv=False)
        g.add("torch.svd/%s/nouv/some%d/U" % (nm, some), U)
        g.add("torch.svd/%s/nouv/some%d/S" % (nm, some), S)
        g.add("torch.svd/%s/nouv/some%d/V" % (nm, some), V)
for shape in ((0, 3), (3, 0), (2, 0, 0)):
    U, S, Vh = torch.linalg.svd(torch.zeros(shape, dtype=D))
    g.add("svd/empty%s/shapes" % "x".join(map(str, shape)),
          torch.tensor([list(U.shape) + list(S.shape) + list(Vh.shape)]))
    U, S, Vh = torch.linalg.svd(torch.zeros(shape, dtype=D), full_matrices=False)
    g.add("svd/empty%s/reduced/shapes" % "x".join(map(str, shape)),
          torch.tensor([list(U.shape) + list(S.shape) + list(Vh.shape)]))

# eigh / eigvalsh / symeig
for uplo in ("L", "U"):
    L, V = torch.linalg.eigh(A[:3], UPLO=uplo)  # reads one triangle only
    g.add("eigh/A3/%s/L" % uplo, L)
    g.add("eigh/A3/%s/VLVt" % uplo, V.matmul(L.unsqueeze(-1) * V.mT))
    g.add("eigh/A3/%s/absV" % uplo, V.abs())
    g.add("eigvalsh/A3/%s" % uplo, torch.linalg.eigvalsh(A[:3], UPLO=uplo))
L, V = torch.linalg.eigh(S3)
g.add("eigh/S3/L", L)
g.add("eigh/S3/absV", V.abs())
g.add("eigh/B2/L", torch.linalg.eigh(B2)[0])
g.add("eigh/S3/f32/L", torch.linalg.eigh(S3.float())[0])
g.add("eigvalsh/A3/lower_u", torch.linalg.eigvalsh(A[:3], UPLO="u"))
for ev in (False, True):
    for up in (False, True):
        L, V = torch.symeig(A[:3], eigenvectors=ev, upper=up)
        g.add("symeig/A3/ev%d/up%d/L" % (ev, up), L)
        g.add("symeig/A3/ev%d/up%d/absV" % (ev, up), V.abs())
g.add("eigh/empty/shapes", torch.tensor([[s for t in torch.linalg.eigh(torch.zeros(2, 0, 0, dtype=D))
                                          for s in t.shape]]))

# pinv / pinverse
g.add("pinv/A", torch.linalg.pinv(A))
g.add("pinv/W", torch.linalg.pinv(W))
g.add("pinv/B2", torch.linalg.pinv(B2))
g.add("pinv/R2", torch.linalg.pinv(R2))
g.add("pinv/R2/rcond", torch.linalg.pinv(R2, rcond=0.1))
g.add("pinv/A/rtol", torch.linalg.pinv(A, rtol=0.5))
g.add("pinv/A/atol", torch.linalg.pinv(A, atol=3.0))
g.add("pinv/A/atol_rtol", torch.linalg.pinv(A, atol=1.0, rtol=0.5))
g.add("pinv/B2/atol_t", torch.linalg.pinv(B2, atol=torch.tensor([1.0, 2.0], dtype=D)))
g.add("pinv/S3/herm", torch.linalg.pinv(S3, hermitian=True))
g.add("pinv/R2sym/herm", torch.linalg.pinv(R2 + R2.t(), hermitian=True, rtol=0.1))
g.add("pinverse/A", A.pinverse())
g.add("pinverse/R2/rcond", R2.pinverse(rcond=0.1))
g.add("pinv/A/f32", torch.linalg.pinv(A.float()))
g.add("pinv/empty", torch.linalg.pinv(torch.zeros(0, 3, dtype=D)))

# lstsq: every driver, tall and wide, full rank and not
for drv in ("gelsy", "gels", "gelsd", "gelss"):
    for nm, X, Y in (("tall", A, RHS), ("wide", W, RHS[:3]), ("B2", B2, RHS[:2].expand(2, 2, 2)),
                     ("vec", A, RHS[:, 0])):
        r = torch.linalg.lstsq(X, Y, driver=drv)
        for k, part in enumerate(("solution", "residuals", "rank", "singular_values")):
            g.add("lstsq/%s/%s/%s" % (drv, nm, part), r[k])
    if drv != "gels":  # gels assumes full rank
        r = torch.linalg.lstsq(torch.cat([R1, R1[:1]]), RHS, driver=drv)
        for k, part in enumerate(("solution", "residuals", "rank", "singular_values")):
            g.add("lstsq/%s/R1/%s" % (drv, part), r[k])
r = torch.linalg.lstsq(A, RHS)
g.add("lstsq/default/tall/solution", r[0])
g.add("lstsq/default/tall/rank", r[2])
r = torch.linalg.lstsq(A, RHS, rcond=0.5, driver="gelsd")
g.add("lstsq/gelsd/rcond/rank", r[2])
g.add("lstsq/gelsd/rcond/solution", r[0])
g.add("lstsq/f32/solution", torch.linalg.lstsq(A.float(), RHS.float())[0])

# matrix_rank
g.add("rank/A", torch.linalg.matrix_rank(A))
g.add("rank/R1", torch.linalg.matrix_rank(R1))
g.add("rank/R2", torch.linalg.matrix_rank(R2))
g.add("rank/B2", torch.linalg.matrix_rank(B2))
g.add("rank/A/atol", torch.linalg.matrix_rank(A, atol=4.0))
g.add("rank/A/rtol", torch.linalg.matrix_rank(A, rtol=0.5))
g.add("rank/A/tol", torch.linalg.matrix_rank(A, tol=4.0))
g.add("rank/S3/herm", torch.linalg.matrix_rank(S3, hermitian=True))
g.add("rank/R2/herm", torch.linalg.matrix_rank(R2 + R2.t(), hermitian=True))
g.add("rank/B2/atol_t", torch.linalg.matrix_rank(B2, atol=torch.tensor([1.0, 3.0], dtype=D)))
g.add("rank/empty", torch.linalg.matrix_rank(torch.zeros(2, 0, 3, dtype=D)))

# matrix_exp
g.add("matrix_exp/M", torch.matrix_exp(M))
g.add("matrix_exp/BIG", torch.linalg.matrix_exp(BIG))
g.add("matrix_exp/B2", B2.matrix_exp())
g.add("matrix_exp/zero", torch.zeros(2, 2, dtype=D).matrix_exp())
g.add("matrix_exp/M/f32", M.float().matrix_exp())
g.add("matrix_exp/1x1", torch.tensor([[2.]], dtype=D).matrix_exp())
g.add("matrix_exp/empty", torch.zeros(0, 0, dtype=D).matrix_exp())
g.add("matrix_exp/large", (M * 40).matrix_exp())

# det's gradient at singular matrices: the adjugate, which PyTorch computes
# through an SVD under grad mode (create_graph=True). Without grad mode its
# LU path returns zeros at a singular matrix (wrong for rank n-1: R2's
# adjugate is not zero, and PyTorch's own gradcheck fails there); ember
# always gives the adjugate.
def det_grad(X, w=None):
    x = X.clone().requires_grad_()
    d = torch.linalg.det(x)
    return torch.autograd.grad(d if w is None else (d * w).sum(), x, create_graph=True)[0]


g.add("det_grad/R1", det_grad(R1))
g.add("det_grad/R2", det_grad(R2))
g.add("det_grad/batch", det_grad(torch.stack([R2, S3]), torch.tensor([1., -2.], dtype=D)))

# errors
L64 = torch.ones(2, 2, dtype=torch.long)
e.err("svd long", lambda: torch.linalg.svd(L64))
e.err("svd 1d", lambda: torch.linalg.svd(torch.ones(3)))
e.err("svd driver", lambda: torch.linalg.svd(torch.ones(2, 2), driver="gesvd"))
e.err("svdvals long", lambda: torch.linalg.svdvals(L64))
e.err("svdvals 1d", lambda: torch.linalg.svdvals(torch.ones(3)))
e.err("torch.svd long", lambda: torch.svd(L64))
e.err("torch.svd 1d", lambda: torch.svd(torch.ones(3)))
e.err("eigh long", lambda: torch.linalg.eigh(L64))
e.err("eigh 1d", lambda: torch.linalg.eigh(torch.ones(3)))
e.err("eigh nonsquare", lambda: torch.linalg.eigh(torch.ones(2, 3)))
e.err("eigh uplo", lambda: torch.linalg.eigh(torch.ones(2, 2), UPLO="X"))
e.err("eigh uplo long", lambda: torch.linalg.eigh(torch.ones(2, 2), UPLO="LU"))
e.err("eigvalsh long", lambda: torch.linalg.eigvalsh(L64))
e.err("eigvalsh nonsquare", lambda: torch.linalg.eigvalsh(torch.ones(2, 3)))
e.err("eigvalsh uplo", lambda: torch.linalg.eigvalsh(torch.ones(2, 2), UPLO="Q"))
e.err("symeig long", lambda: torch.symeig(L64))
e.err("symeig nonsquare", lambda: torch.symeig(torch.ones(2, 3)))
e.err("symeig 1d", lambda: torch.symeig(torch.ones(3)))
e.err("pinv long", lambda: torch.linalg.pinv(L64))
e.err("pinv 1d", lambda: torch.linalg.pinv(torch.ones(3)))
e.err("pinverse long", lambda: L64.pinverse())
e.err("lstsq long", lambda: torch.linalg.lstsq(L64, L64))
e.err("lstsq dtypes", lambda: torch.linalg.lstsq(torch.ones(2, 2), torch.ones(2, 2, dtype=D)))
e.err("lstsq 1d", lambda: torch.linalg.lstsq(torch.ones(3), torch.ones(3)))
e.err("lstsq rows", lambda: torch.linalg.lstsq(torch.ones(3, 2), torch.ones(2, 2)))
e.err("lstsq rows vec", lambda: torch.linalg.lstsq(torch.ones(3, 2), torch.ones(2)))
e.err("lstsq driver", lambda: torch.linalg.lstsq(torch.ones(2, 2), torch.ones(2, 2), driver="foo"))
e.err("rank long", lambda: torch.linalg.matrix_rank(L64))
e.err("rank 1d", lambda: torch.linalg.matrix_rank(torch.ones(3)))
e.err("matrix_exp long", lambda: torch.matrix_exp(L64))
e.err("matrix_exp nonsquare", lambda: torch.matrix_exp(torch.ones(2, 3)))
e.err("matrix_exp 1d", lambda: torch.matrix_exp(torch.ones(3)))
e.err("symeig backward noev", lambda: torch.symeig(S3.clone().requires_grad_())[0].sum().backward())

g.write()
e.write()
