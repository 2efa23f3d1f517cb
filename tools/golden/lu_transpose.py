#!/usr/bin/python3
"""1.13 factors a C-contiguous matrix as its transpose in det, slogdet,
inverse and linalg.solve (Note [LU of the transpose], tensor/linalg_more.cc):
the values of tensor/linalg_more_test.cc's FactorsTheTransposeOfAContiguousMatrix.
Run with Debian's PyTorch: /usr/bin/python3 tools/golden/lu_transpose.py"""
import torch

inf = float("inf")


def nc(a):
    return a.t().contiguous().t()


tie = torch.tensor([[1.0, 2.0, 3.0], [1.0, 5.0, 7.0], [-1.0, 0.0, 2.0]], dtype=torch.float64)
print("det tie", repr(torch.det(tie).item()), repr(torch.det(nc(tie)).item()))
a1 = torch.tensor([[0.609555, -1.27003, -0.324239], [1.9358, inf, 1.59488],
                   [-1.28083, 1.96262, -0.541895]], dtype=torch.float64)
print("det a1", torch.det(a1).item(), torch.det(nc(a1)).item())
a2 = torch.tensor([[0.366007, 3.21165, 0.961068], [-2.74369, -1.36667, -0.572073],
                   [0.962397, -inf, -2.09934]])
print("slogdet a2", [t.item() for t in torch.linalg.slogdet(a2)],
      [t.item() for t in torch.linalg.slogdet(nc(a2))])
a3 = torch.tensor([[3.2856, -3.24192, -1.56775], [-inf, 2.01037, 1.10073],
                   [0.96148, 1.2348, -3.09527]], dtype=torch.float64)
print("inverse a3", torch.linalg.inv(a3).tolist(), torch.linalg.inv(nc(a3)).tolist())
a4 = torch.tensor([[-0.872898, -2.11294, 0.0499441], [-2.83808, -4.21378, 2.37714],
                   [-1.99691, -inf, -2.17308]], dtype=torch.float64)
b = torch.tensor([[1.0, 2.0], [0.5, -1.0], [3.0, 0.25]], dtype=torch.float64)
print("solve a4", torch.linalg.solve(a4, b).tolist(), torch.linalg.solve(nc(a4), b).tolist(),
      torch.linalg.solve(a4, b.t(), left=False).tolist())
