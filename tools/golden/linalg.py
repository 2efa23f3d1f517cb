"""Golden values for tensor/linalg_test.cc (matmul, mm, bmm, mv, dot, outer,
addmm).

Run with Debian's PyTorch: /usr/bin/python3 tools/golden/linalg.py
Writes tensor/testdata/linalg_golden.inc. Inputs come from mk() in
golden_util.py, which the test mirrors exactly (make_input in
tensor/testing/golden.cc); float results are
computed by PyTorch in float64 from the same values, so the test holds
ember's float32 results to a tolerance independent of BLAS blocking.
"""

import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_util import GoldenWriter, mk  # noqa: E402


def d(t):
    return t.to(torch.float64)


w = GoldenWriter("linalg")
add = w.add

a = d(mk((3, 4)))
b = d(mk((4, 5), seed=1))
add("mm", a @ b)
add("mm_transposed_a", d(mk((4, 3))).t() @ b)
add("mm_transposed_b", a @ d(mk((5, 4), seed=1)).t())
add("mm_sliced", d(mk((6, 4)))[::2] @ d(mk((4, 10), seed=1))[:, 1::2])
add("mm_expanded", d(mk((1, 4))).expand(3, 4) @ b)
add("mm_int32", mk((3, 4), torch.int32) @ mk((4, 5), torch.int32, seed=1))
add("mm_int64", mk((3, 4), torch.int64).t().contiguous().t() @ mk((4, 5), torch.int64, seed=1))
add("mm_bfloat16", (mk((3, 4), torch.bfloat16).float() @ mk((4, 5), torch.bfloat16, seed=1).float()).bfloat16())
add("mm_empty_k", torch.zeros(2, 0) @ torch.zeros(0, 3))
add("mv", a @ d(mk((4,), seed=2)))
add("mv_transposed", d(mk((4, 3))).t() @ d(mk((8,), seed=2))[::2])
add("mv_int", mk((3, 4), torch.int64) @ mk((4,), torch.int64, seed=2))
add("dot", d(mk((7,))) @ d(mk((7,), seed=3)))
add("dot_strided", d(mk((14,)))[::2] @ d(mk((7,), seed=3)))
add("dot_int", mk((7,), torch.int32) @ mk((7,), torch.int32, seed=3))
add("vec_mat", d(mk((4,), seed=2)) @ b)
add("bmm", d(mk((2, 3, 4))).bmm(d(mk((2, 4, 5), seed=1))))
add("bmm_transposed", d(mk((2, 4, 3))).transpose(1, 2).bmm(d(mk((5, 4, 2), seed=1)).permute(2, 1, 0)))
add("matmul_3d_2d", d(mk((2, 3, 4))) @ b)
add("matmul_3d_1d", d(mk((2, 3, 4))) @ d(mk((4,), seed=2)))
add("matmul_1d_3d", d(mk((4,), seed=2)) @ d(mk((2, 4, 5), seed=1)))
add("matmul_2d_3d", a @ d(mk((2, 4, 5), seed=1)))
add("matmul_broadcast", d(mk((2, 1, 3, 4))) @ d(mk((3, 4, 5), seed=1)))
add("matmul_4d_transposed", d(mk((2, 3, 3, 4))).transpose(-1, -2) @ d(mk((2, 3, 3, 2), seed=1)))
add("matmul_3d_2d_noncontig", d(mk((3, 2, 4))).transpose(0, 1) @ b)
add("matmul_int_batched", mk((2, 3, 4), torch.int64) @ mk((2, 4, 2), torch.int64, seed=1))
add("outer", d(mk((3,))).outer(d(mk((4,), seed=1))))
add("outer_promote", mk((3,), torch.int32).outer(mk((4,), torch.float64, seed=1)))
add("outer_int", mk((3,), torch.int64).outer(mk((4,), torch.int64, seed=1)))
add("addmm", torch.addmm(d(mk((3, 5), seed=4)), a, b, beta=0.5, alpha=2))
add("addmm_broadcast", torch.addmm(d(mk((5,), seed=4)), a, b))
add("addmm_beta0", torch.addmm(torch.full((3, 5), float("nan"), dtype=torch.float64), a, b,
                               beta=0))
add("addmm_int", torch.addmm(mk((3, 5), torch.int64, seed=4), mk((3, 4), torch.int64),
                             mk((4, 5), torch.int64, seed=1), beta=2, alpha=3))
big = torch.arange(64 * 48, dtype=torch.float64).reshape(64, 48) % 13 * 0.125
big2 = torch.arange(48 * 80, dtype=torch.float64).reshape(48, 80) % 7 * 0.5
add("mm_big", big @ big2)
w.write()
