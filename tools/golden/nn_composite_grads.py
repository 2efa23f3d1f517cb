#!/usr/bin/python3
"""Gradients of ops that ember composes but PyTorch 1.13 records as one
node (autograd/derivatives/nn_composite.cc), where 1.13's formula differs
from the composition's chain rule: cdist/pdist at p = 0 (zeros), ties of
the inf-norm (each tying component gets the whole gradient), coincident
points and zero components (0), empty inputs; embedding_bag's max mode
with ties (the first row of a bag's maximum gets the gradient) and bags
that are empty or hold only padding_idx. Each case: the inputs
("<case>/in<i>"), the gradient of the output ("<case>/gout") and the
gradients of the floating inputs ("<case>/grad<i>"). Run with Debian's
PyTorch:
    /usr/bin/python3 tools/golden/nn_composite_grads.py
Writes autograd/testdata/nn_composite_grads_golden.inc."""
import torch
import torch.nn.functional as F

from golden_util import GoldenWriter

inf = float("inf")
W = GoldenWriter("nn_composite_grads", package="autograd")
GEN = torch.Generator().manual_seed(22)


def case(name, fn, *inputs, dtype=torch.float64):
    W.grad_case(name, fn, *inputs, generator=GEN, dtype=dtype)


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

EB_W = [[1.0, 2.0], [3.0, 2.0], [3.0, 0.5], [-1.0, 2.0], [0.0, 0.0]]
EB_IDX = torch.tensor([0, 1, 2, 3, 4, 4, 1, 1])
EB_OFF = torch.tensor([0, 4, 4, 6])  # bags [0 1 2 3] [] [4 4] [1 1]
case("embedding_bag_max_ties", lambda w, i, o: F.embedding_bag(i, w, o, mode="max"),
     EB_W, EB_IDX, EB_OFF)
case("embedding_bag_max_padding",
     lambda w, i, o: F.embedding_bag(i, w, o, mode="max", padding_idx=4), EB_W, EB_IDX, EB_OFF)
case("embedding_bag_mean_padding",
     lambda w, i, o: F.embedding_bag(i, w, o, mode="mean", padding_idx=4), EB_W, EB_IDX, EB_OFF)
case("embedding_bag_psw_padding",
     lambda w, i, o, p: F.embedding_bag(i, w, o, mode="sum", padding_idx=1, per_sample_weights=p),
     EB_W, EB_IDX, EB_OFF, [0.5, -1.0, 2.0, 1.5, 0.25, -0.5, 3.0, 1.0])
case("embedding_bag_empty_input",
     lambda w, i, o: F.embedding_bag(i, w, o, mode="max"), EB_W,
     torch.tensor([], dtype=torch.int64), torch.tensor([0, 0]))
W.write()
