#!/usr/bin/python3
"""Gradients of ops that ember composes but PyTorch 1.13 records as one
node (autograd/derivatives/nn_composite.cc), where 1.13's formula differs
from the composition's chain rule: cdist/pdist at p = 0 (zeros), ties of
the inf-norm (each tying component gets the whole gradient), coincident
points and zero components (0), empty inputs. Each case: the inputs
("<case>/in<i>"), the gradient of the output ("<case>/gout") and the
gradients of the floating inputs ("<case>/grad<i>"). Run with Debian's
PyTorch:
    /usr/bin/python3 tools/golden/nn_composite_grads.py
Writes autograd/testdata/nn_composite_grads_golden.inc."""
import torch

from golden_util import GoldenWriter

inf = float("inf")
W = GoldenWriter("nn_composite_grads", package="autograd")
GEN = torch.Generator().manual_seed(22)


def case(name, fn, *inputs, dtype=torch.float64):
    xs = []
    for i, x in enumerate(inputs):
        x = torch.tensor(x, dtype=dtype) if not isinstance(x, torch.Tensor) else x
        W.add("%s/in%d" % (name, i), x)
        xs.append(x.clone().requires_grad_(x.is_floating_point()))
    out = fn(*xs)
    g = torch.randn(out.shape, generator=GEN, dtype=torch.float64).to(out.dtype)
    W.add("%s/gout" % name, g)
    out.backward(g)
    for i, x in enumerate(xs):
        if x.requires_grad:
            W.add("%s/grad%d" % (name, i), x.grad)


A = [[0.0, 1.0, 2.0], [1.0, 1.0, 3.0]]
B = [[0.0, 2.0, 2.0], [1.0, 1.0, 3.0], [0.5, 0.0, 0.0]]
for p in (0, 0.5, 1, 1.5, 2, 3, inf):
    tag = "inf" if p == inf else str(p).replace(".", "_")
    case("cdist_p" + tag, lambda a, b: torch.cdist(a, b, p), A, B)
    case("pdist_p" + tag, lambda b: torch.pdist(b, p), B)
case("cdist_mm_coincident", lambda a, b: torch.cdist(a, b, compute_mode="use_mm_for_euclid_dist"),
     A, B)
case("cdist_batch_broadcast", lambda a, b: torch.cdist(a, b, 1.5),
     torch.tensor([A, B[:2]], dtype=torch.float64), B)
case("cdist_empty_rows", lambda a, b: torch.cdist(a, b), torch.zeros(0, 3, dtype=torch.float64), B)
case("cdist_no_columns", lambda a, b: torch.cdist(a, b, 3), torch.zeros(2, 0, dtype=torch.float64),
     torch.zeros(3, 0, dtype=torch.float64))
case("pdist_one_row", lambda x: torch.pdist(x), [[1.0, 2.0, 3.0]])
case("pdist_f32_inf", lambda x: torch.pdist(x, inf), B, dtype=torch.float32)
W.write()
