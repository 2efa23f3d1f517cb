"""Golden values for models/resnet_test.cc: torchvision 0.14's ResNets.

  - names.<arch>: every state_dict key of each architecture with its shape,
    in order, so that a state_dict torchvision saves loads with strict=True.
  - init.<arch>.<key>.head / .sum: the first values and the sum of each
    parameter and buffer right after construction under manual_seed(0)
    (torchvision's init: kaiming_normal_ fan_out for convs, BN 1/0, fc as
    nn.Linear's default).
  - <arch>.*: with every state_dict entry set by det_values() (weights too
    large to commit; models/resnet_test.cc computes the same values), the
    eval-mode logits of det_input(), then one training step's loss, the
    running stats it updates, and per-parameter gradient summaries (in
    float64: see below why).
  - errors: torchvision's and load_state_dict's messages.

Run with /usr/bin/python3 (Debian's torch 1.13, python3-torchvision 0.14).
Writes models/testdata/resnet_{golden,errors_golden,strings_golden}.inc.
"""

import math
import os
import sys

import torch
import torch.nn.functional as F
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_util import ErrorWriter, GoldenWriter, StringWriter  # noqa: E402

torch.set_num_threads(1)
g = GoldenWriter("resnet", package="models")
errors = ErrorWriter("resnet", package="models")
strings = StringWriter("resnet", package="models")
ARCHS = ("resnet18", "resnet34", "resnet50", "resnet101", "resnet152", "resnext50_32x4d",
         "wide_resnet50_2")


def hash_uniform(n, k):
    """n values in [-1, 1) from an integer hash of (element, entry k): exact
    in int64 here and in uint64 in C++ (det_uniform in resnet_test.cc)."""
    h = (torch.arange(n, dtype=torch.int64) * 2654435761 + (k + 1) * 40503) % 2**32
    h = h ^ (h >> 13)
    h = (h * 1103515245) % 2**32
    h = h ^ (h >> 16)
    return h.to(torch.float64) / 2**31 - 1


def det_values(name, shape, k):
    """Entry k of the state_dict, from its role: scaled so that activations
    stay O(1) through 100 layers in eval mode."""
    n = 1
    for s in shape:
        n *= s
    v = hash_uniform(n, k)
    if name.endswith("running_var"):
        v = 1 + 0.25 * v
    elif name.endswith("running_mean") or name.endswith("bias"):
        v = 0.1 * v
    elif len(shape) == 1:  # a BatchNorm's weight
        v = 0.75 + 0.25 * v
    else:  # conv and fc weights: variance 1 / fan_in
        v = v * math.sqrt(3.0 * shape[0] / n)
    return v.to(torch.float32).reshape(shape)


def set_det_state(model):
    sd = model.state_dict()
    for k, (name, t) in enumerate(sd.items()):
        if t.is_floating_point():
            t.copy_(det_values(name, list(t.shape), k))


def det_input(batch, size):
    return hash_uniform(batch * 3 * size * size, -7).to(torch.float32).reshape(batch, 3, size, size)


# --- state_dict names and shapes ---------------------------------------------------------
for arch in ARCHS:
    m = getattr(torchvision.models, arch)(num_classes=10)
    text = "\n".join("%s %s" % (k, list(v.shape)) for k, v in m.state_dict().items())
    strings.add("names." + arch, text)

# --- initialization under manual_seed(0) -------------------------------------------------
for arch, kwargs in (("resnet18", {}), ("resnet50", {"zero_init_residual": True})):
    torch.manual_seed(0)
    m = getattr(torchvision.models, arch)(num_classes=10, **kwargs)
    for key, t in m.state_dict().items():
        g.add("init.%s.%s.head" % (arch, key), t.reshape(-1)[:6])
        g.add("init.%s.%s.sum" % (arch, key), t.to(torch.float64).sum())

# --- deterministic weights: eval logits, one training step -------------------------------
for arch in ("resnet18", "resnet50"):
    m = getattr(torchvision.models, arch)(num_classes=10)
    with torch.no_grad():
        set_det_state(m)
    x = det_input(2, 64)
    m.eval()
    with torch.no_grad():
        g.add(arch + ".eval_logits", m(x))
    # The training step runs in float64. In float32 its gradients are
    # ill-conditioned with these weights: resnet50's differ from float64's
    # by 0.5% in PyTorch itself (batch statistics of 8 values per channel
    # in layer4), and in resnet18 one pre-activation of layer3.0 sits at
    # 5e-7, so a rounding difference flips its ReLU and moves every
    # gradient below it by 1.5%.
    m.train()
    m.double()
    target = torch.tensor([3, 7])
    loss = F.cross_entropy(m(x.double()), target)
    loss.backward()
    g.add(arch + ".train_loss", loss)
    g.add(arch + ".bn1.running_mean", m.bn1.running_mean)
    g.add(arch + ".layer4.bn_last.running_var",
          m.layer4[-1].bn2.running_var if arch == "resnet18" else m.layer4[-1].bn3.running_var)
    g.add(arch + ".fc.weight.grad_head", m.fc.weight.grad[:, :32])
    g.add(arch + ".fc.bias.grad", m.fc.bias.grad)
    # Per parameter: the gradient's norm and its dot product with the
    # parameter (the loss's derivative along the weights).
    for name, p in m.named_parameters():
        gd = p.grad.to(torch.float64)
        g.add("%s.grad_norm.%s" % (arch, name), gd.norm())
        g.add("%s.grad_dot.%s" % (arch, name), (gd * p.detach().to(torch.float64)).sum())

# --- errors --------------------------------------------------------------------------------
errors.err("basic_block_groups", lambda: torchvision.models.resnet18(groups=2))
errors.err("basic_block_width", lambda: torchvision.models.resnet34(width_per_group=32))
errors.err("load_num_classes", lambda: torchvision.models.resnet18(num_classes=10).load_state_dict(
    torchvision.models.resnet18(num_classes=1000).state_dict()))

g.write()
errors.write()
strings.write()
