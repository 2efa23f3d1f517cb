"""Golden values for the double backward of the nn ops
(nn/functional/nn_ops_gradcheck_test.cc): a WGAN-GP-style gradient penalty
and a Hessian-vector product on a tiny net that runs every op whose
derivative calls a *_backward kernel (conv2d strided / padded / dilated /
grouped, conv1d, max / avg / adaptive average pooling, cross_entropy with
class weights and ignore_index, 1-D and 2-D targets).

Run with Debian's PyTorch: /usr/bin/python3 tools/golden/double_backward.py
Writes nn/functional/testdata/double_backward_golden.inc.

Everything is float64. The C++ test reads the stored inputs ("x", "t",
"t2", "cw", the parameters "p/<name>" and the direction "v/<name>"), runs
the same net, and compares:
  loss, penalty        the net's loss and the gradient penalty
  gp/<name>            d(loss + 10 * penalty)/d(name), for x and each parameter
  hvp/<name>           the Hessian of loss (over the parameters) times v
"""

import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_util import GoldenWriter  # noqa: E402

w = GoldenWriter("double_backward", package="nn/functional")
gen = torch.Generator().manual_seed(2024)


def rnd(*shape, scale=1.0):
    return torch.randn(*shape, generator=gen, dtype=torch.float64) * scale


# Parameter order is the order of the C++ test's list.
NAMES = ["w1", "b1", "w2", "b2", "w3", "b3"]
params = {
    "w1": rnd(4, 2, 3, 3, scale=0.5), "b1": rnd(4, scale=0.5),
    "w2": rnd(4, 2, 2, 2, scale=0.5), "b2": rnd(4, scale=0.5),
    "w3": rnd(3, 4, 2, scale=0.5), "b3": rnd(3, scale=0.5),
}
x = rnd(3, 2, 7, 6)
t = torch.tensor([0, 2, 1], dtype=torch.int64)     # sample 2 is ignored (ignore_index=1)
t2 = torch.randint(0, 4, (3, 3, 3), generator=gen, dtype=torch.int64)
cw = torch.tensor([1.0, 0.5, 2.0], dtype=torch.float64)
v = {n: rnd(*p.shape) for n, p in params.items()}


def net(x, p):
    h = torch.tanh(F.conv2d(x, p["w1"], p["b1"], stride=(1, 2), padding=1))  # [3, 4, 7, 3]
    h = F.max_pool2d(h, (3, 2), stride=(2, 1), padding=1, ceil_mode=True)  # [3, 4, 4, 4]
    h = F.conv2d(h, p["w2"], p["b2"], padding=(1, 0), dilation=(2, 1), groups=2)  # [3, 4, 4, 3]
    h2 = h = torch.tanh(h)
    h = F.avg_pool2d(h, (2, 1), stride=1, padding=(1, 0), count_include_pad=False)  # [3, 4, 5, 3]
    h = F.adaptive_avg_pool2d(h, (2, 1)).flatten(2)  # [3, 4, 2]
    logits = F.conv1d(h, p["w3"], p["b3"]).flatten(1)  # [3, 3]
    loss = F.cross_entropy(logits, t, weight=cw, ignore_index=1)
    # A per-position loss on the feature map: the 2-D (nll_loss2d) path.
    loss2 = F.cross_entropy(F.adaptive_avg_pool2d(h2, (3, 3)), t2, reduction="sum")
    return loss + 0.1 * loss2


w.add("x", x)
w.add("t", t)
w.add("t2", t2)
w.add("cw", cw)
for n in NAMES:
    w.add("p/" + n, params[n])
    w.add("v/" + n, v[n])

# Gradient penalty: ((|d loss / dx| - 1)^2).mean() over the samples.
xs = x.clone().requires_grad_(True)
ps = {n: p.clone().requires_grad_(True) for n, p in params.items()}
loss = net(xs, ps)
(gx,) = torch.autograd.grad(loss, xs, create_graph=True)
penalty = ((gx.pow(2).sum((1, 2, 3)).sqrt() - 1) ** 2).mean()
total = loss + 10 * penalty
grads = torch.autograd.grad(total, [xs] + [ps[n] for n in NAMES])
w.add("loss", loss)
w.add("penalty", penalty)
w.add("gp/x", grads[0])
for n, g in zip(NAMES, grads[1:]):
    w.add("gp/" + n, g)

# Hessian-vector product over the parameters.
ps = {n: p.clone().requires_grad_(True) for n, p in params.items()}
loss = net(x, ps)
gs = torch.autograd.grad(loss, [ps[n] for n in NAMES], create_graph=True)
dot = sum((g * v[n]).sum() for n, g in zip(NAMES, gs))
hv = torch.autograd.grad(dot, [ps[n] for n in NAMES])
for n, h in zip(NAMES, hv):
    w.add("hvp/" + n, h)

w.write()
