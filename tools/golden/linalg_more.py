#!/usr/bin/python3
"""What PyTorch 1.13 gives for tensor/linalg_more_test.cc's cases (inverse,
det, slogdet, logdet, linalg.solve, triangular_solve, cholesky,
cholesky_solve, cholesky_inverse). Run with Debian's PyTorch:
/usr/bin/python3 tools/golden/linalg_more.py
The printed values (float64 with 17 digits) are pasted into the test."""
import warnings

import torch

warnings.simplefilter("ignore")  # torch.cholesky / triangular_solve are deprecated
torch.set_printoptions(precision=17)

# Fixed inputs (no random numbers: the test rebuilds them from these lists).
A = torch.tensor([[4., 1., 2.], [1., -3., 0.5], [2., 0.5, 5.]], dtype=torch.float64)
A2 = torch.tensor([[[2., 1.], [1., 3.]], [[0., 1.], [-2., 1.5]]], dtype=torch.float64)
AT = torch.tensor([[1., 2., 0.], [-1., 3., 1.], [4., 0., 2.]], dtype=torch.float64).t()  # non-contiguous
SPD = torch.tensor([[4., 2., 0.4], [2., 5., 1.], [0.4, 1., 3.]], dtype=torch.float64)
B = torch.tensor([[1., 2.], [3., 4.], [5., 6.]], dtype=torch.float64)
SING = torch.tensor([[1., 2.], [2., 4.]], dtype=torch.float64)


def flat(t):
    return [float(v) for v in t.reshape(-1).tolist()]


def show(name, f):
    try:
        r = f()
        if isinstance(r, tuple):
            print(name, "->", [(tuple(t.shape), flat(t)) for t in r])
        else:
            print(name, "->", tuple(r.shape), str(r.dtype), flat(r))
    except Exception as e:  # noqa: BLE001
        print(name, "-> error:", str(e).split("\n")[0])


show("inverse A", lambda: A.inverse())
show("inverse A2", lambda: A2.inverse())
show("inverse AT", lambda: AT.inverse())
show("inverse float", lambda: A.float().inverse())
show("inverse 1x1", lambda: torch.tensor([[4.]], dtype=torch.float64).inverse())
show("inverse 0x0", lambda: torch.zeros(0, 0, dtype=torch.float64).inverse())
show("inverse 2x0x0", lambda: torch.zeros(2, 0, 0, dtype=torch.float64).inverse())
show("linalg.inv A", lambda: torch.linalg.inv(A))
show("inverse singular", lambda: SING.inverse())
show("inverse singular 3", lambda: torch.tensor([[1., 2, 0], [2, 4, 0], [0, 0, 1]]).inverse())
show("inverse singular batch", lambda: torch.stack([torch.eye(2, dtype=torch.float64), SING]).inverse())
show("inverse nonsquare", lambda: torch.ones(2, 3).inverse())
show("inverse 1d", lambda: torch.ones(3).inverse())
show("inverse long", lambda: torch.ones(2, 2, dtype=torch.long).inverse())
show("inverse half", lambda: torch.ones(2, 2, dtype=torch.half).inverse())

show("det A", lambda: A.det())
show("det A2", lambda: A2.det())
show("det AT", lambda: AT.det())
show("det float", lambda: A.float().det())
show("det 1x1", lambda: torch.tensor([[-4.]], dtype=torch.float64).det())
show("det 0x0", lambda: torch.zeros(0, 0, dtype=torch.float64).det())
show("det 2x0x0", lambda: torch.zeros(2, 0, 0, dtype=torch.float64).det())
show("det singular", lambda: SING.det())
show("det zeros", lambda: torch.zeros(2, 2, dtype=torch.float64).det())
show("det nonsquare", lambda: torch.ones(2, 3).det())
show("det 1d", lambda: torch.ones(3).det())
show("det long", lambda: torch.ones(2, 2, dtype=torch.long).det())
show("linalg.det A2", lambda: torch.linalg.det(A2))

show("slogdet A", lambda: A.slogdet())
show("slogdet A2", lambda: A2.slogdet())
show("slogdet AT", lambda: AT.slogdet())
show("slogdet singular", lambda: SING.slogdet())
show("slogdet 0x0", lambda: torch.zeros(0, 0, dtype=torch.float64).slogdet())
show("slogdet nonsquare", lambda: torch.ones(2, 3).slogdet())
show("slogdet long", lambda: torch.ones(2, 2, dtype=torch.long).slogdet())
show("linalg.slogdet A", lambda: torch.linalg.slogdet(A))

show("logdet A", lambda: A.logdet())
show("logdet A2", lambda: A2.logdet())
show("logdet SPD", lambda: SPD.logdet())
show("logdet singular", lambda: SING.logdet())
show("logdet nonsquare", lambda: torch.ones(2, 3).logdet())
show("logdet long", lambda: torch.ones(2, 2, dtype=torch.long).logdet())

show("solve A B", lambda: torch.linalg.solve(A, B))
show("solve A vec", lambda: torch.linalg.solve(A, B[:, 0]))
show("solve AT B", lambda: torch.linalg.solve(AT, B))
show("solve A2 vec batch", lambda: torch.linalg.solve(A2, torch.tensor([[1., 2], [3, 4]], dtype=torch.float64)))
show("solve A2 B broadcast", lambda: torch.linalg.solve(A2, torch.tensor([[1., 2, 3], [4, 5, 6]], dtype=torch.float64)))
show("solve A B left=False", lambda: torch.linalg.solve(A, B.t(), left=False))
show("solve singular", lambda: torch.linalg.solve(SING, torch.ones(2, dtype=torch.float64)))
show("solve singular batch", lambda: torch.linalg.solve(torch.stack([torch.eye(2, dtype=torch.float64), SING]), torch.ones(2, 2, dtype=torch.float64)))
show("solve shapes", lambda: torch.linalg.solve(torch.ones(2, 2), torch.ones(3)))
show("solve shapes right", lambda: torch.linalg.solve(torch.ones(2, 2), torch.ones(2, 3), left=False))
show("solve nonsquare", lambda: torch.linalg.solve(torch.ones(2, 3), torch.ones(3)))
show("solve dtypes", lambda: torch.linalg.solve(torch.ones(2, 2), torch.ones(2, dtype=torch.float64)))
show("solve long", lambda: torch.linalg.solve(torch.ones(2, 2, dtype=torch.long), torch.ones(2, dtype=torch.long)))

U = torch.tensor([[2., 1., -1.], [9., 3., 0.5], [9., 9., 4.]], dtype=torch.float64)
show("triangular_solve upper", lambda: torch.triangular_solve(B, U))
show("triangular_solve lower", lambda: torch.triangular_solve(B, U, upper=False))
show("triangular_solve transpose", lambda: torch.triangular_solve(B, U, transpose=True))
show("triangular_solve unit", lambda: torch.triangular_solve(B, U, upper=False, unitriangular=True))
show("triangular_solve batch", lambda: torch.triangular_solve(B, torch.stack([U, U.t()])))
show("triangular_solve singular", lambda: torch.triangular_solve(torch.ones(2, 1, dtype=torch.float64), torch.tensor([[1., 2], [0, 0]], dtype=torch.float64)))
show("triangular_solve b 1d", lambda: torch.triangular_solve(torch.ones(2), torch.eye(2)))
show("triangular_solve sizes", lambda: torch.triangular_solve(torch.ones(3, 1), torch.eye(2)))
show("triangular_solve nonsquare", lambda: torch.triangular_solve(torch.ones(2, 1), torch.ones(2, 3)))
show("triangular_solve dtypes", lambda: torch.triangular_solve(torch.ones(2, 1), torch.eye(2, dtype=torch.float64)))
show("triangular_solve long", lambda: torch.triangular_solve(torch.ones(2, 1, dtype=torch.long), torch.eye(2, dtype=torch.long)))

show("cholesky SPD", lambda: SPD.cholesky())
show("cholesky SPD upper", lambda: SPD.cholesky(upper=True))
show("linalg.cholesky SPD", lambda: torch.linalg.cholesky(SPD))
show("linalg.cholesky SPD upper", lambda: torch.linalg.cholesky(SPD, upper=True))
show("cholesky lower only", lambda: torch.linalg.cholesky(SPD.tril()))
show("cholesky batch", lambda: torch.linalg.cholesky(torch.stack([SPD[:2, :2], torch.eye(2, dtype=torch.float64)])))
show("cholesky not pd", lambda: torch.linalg.cholesky(torch.tensor([[1., 2], [2, 1]])))
show("cholesky not pd batch", lambda: torch.linalg.cholesky(torch.tensor([[[1., 0], [0, 1]], [[1., 2], [2, 1]]])))
show("torch.cholesky not pd", lambda: torch.cholesky(torch.tensor([[1., 2], [2, 1]])))
show("cholesky nonsquare", lambda: torch.linalg.cholesky(torch.ones(2, 3)))
show("cholesky long", lambda: torch.ones(2, 2, dtype=torch.long).cholesky())
show("linalg.cholesky long", lambda: torch.linalg.cholesky(torch.ones(2, 2, dtype=torch.long)))
L = torch.linalg.cholesky(SPD)
show("cholesky_solve", lambda: torch.cholesky_solve(B, L))
show("cholesky_solve upper", lambda: torch.cholesky_solve(B, L.t(), upper=True))
show("cholesky_solve batch", lambda: torch.cholesky_solve(torch.stack([B, 2 * B]), L))
show("cholesky_solve b 1d", lambda: torch.cholesky_solve(torch.ones(2), torch.eye(2)))
show("cholesky_solve sizes", lambda: torch.cholesky_solve(torch.ones(3, 2), torch.eye(2)))
show("cholesky_solve nonsquare", lambda: torch.cholesky_solve(torch.ones(2, 2), torch.ones(2, 3)))
show("cholesky_solve dtypes", lambda: torch.cholesky_solve(torch.ones(2, 2), torch.eye(2, dtype=torch.float64)))
show("cholesky_solve long", lambda: torch.cholesky_solve(torch.ones(2, 2, dtype=torch.long), torch.eye(2, dtype=torch.long)))
show("cholesky_inverse", lambda: torch.cholesky_inverse(L))
show("cholesky_inverse upper", lambda: torch.cholesky_inverse(L.t(), upper=True))
show("cholesky_inverse 0x0", lambda: torch.cholesky_inverse(torch.zeros(0, 0)))
show("cholesky_inverse nonsquare", lambda: torch.cholesky_inverse(torch.ones(2, 3)))
show("cholesky_inverse long", lambda: torch.cholesky_inverse(torch.ones(2, 2, dtype=torch.long)))
