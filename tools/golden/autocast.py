#!/usr/bin/python3
"""The dtype each op returns under torch.autocast, for nn/functional/autocast_test.cc.

Run with Debian's PyTorch: /usr/bin/python3 tools/golden/autocast.py
Writes nn/functional/testdata/autocast_golden.inc:
  {"op", "input dtypes", expected dtype},
one line per (op, floating-input dtypes) that ember has, where the input
dtypes are one letter per floating input, in argument order (f: float32,
b: bfloat16, d: float64). The values are what PyTorch 1.13's CPU autocast
(bfloat16) returns; a case PyTorch cannot run on the CPU is left out with a
comment. Inputs are built the same way on the C++ side (the op table there
has one lambda per op name here).

On a machine with a GPU and PyTorch 2.x, `python3 tools/golden/autocast.py
--cuda` prints the same table under torch.autocast("cuda") with b meaning
float16, to compare with kCudaCases in nn/functional/autocast_test.cc.
"""
import sys
import os

import torch
import torch.nn.functional as F

from golden_util import DTYPE_NAMES, write_inc

LETTER = {"f": torch.float32, "b": torch.bfloat16, "d": torch.float64}


DEVICE = "cpu"


def t(shape, dtype, lo=0.1, hi=0.9):
    # Values inside every op's domain (log, acos, rsqrt...); the dtype is all
    # the table records.
    n = 1
    for s in shape:
        n *= s
    return torch.linspace(lo, hi, n, dtype=torch.float64).reshape(shape).to(DEVICE, dtype)


def idx(*v):
    return torch.tensor(v, dtype=torch.long, device=DEVICE)


# op name -> (function of the floating inputs' dtypes, number of floating inputs)
OPS = {}


def op(name, n):
    def deco(fn):
        OPS[name] = (fn, n)
        return fn
    return deco


def unary(name, fn):
    OPS[name] = (lambda d: fn(t((3, 4), d[0])), 1)


# --- products and convolutions ---------------------------------------------
op("mm", 2)(lambda d: torch.mm(t((3, 4), d[0]), t((4, 5), d[1])))
op("bmm", 2)(lambda d: torch.bmm(t((2, 3, 4), d[0]), t((2, 4, 5), d[1])))
op("matmul", 2)(lambda d: torch.matmul(t((2, 3, 4), d[0]), t((4, 5), d[1])))
op("matmul_1d", 2)(lambda d: torch.matmul(t((4,), d[0]), t((4,), d[1])))
op("addmm", 3)(lambda d: torch.addmm(t((3, 5), d[0]), t((3, 4), d[1]), t((4, 5), d[2])))
op("mv", 2)(lambda d: torch.mv(t((3, 4), d[0]), t((4,), d[1])))
op("dot", 2)(lambda d: torch.dot(t((4,), d[0]), t((4,), d[1])))
op("outer", 2)(lambda d: torch.outer(t((3,), d[0]), t((4,), d[1])))
op("linear", 3)(lambda d: F.linear(t((3, 4), d[0]), t((5, 4), d[1]), t((5,), d[2])))
op("linear_nobias", 2)(lambda d: F.linear(t((2, 3, 4), d[0]), t((5, 4), d[1])))
op("conv1d", 3)(lambda d: F.conv1d(t((2, 3, 8), d[0]), t((4, 3, 3), d[1]), t((4,), d[2])))
op("conv2d", 3)(lambda d: F.conv2d(t((2, 3, 6, 6), d[0]), t((4, 3, 3, 3), d[1]), t((4,), d[2]),
                                   padding=1))
op("convolution", 3)(lambda d: torch.convolution(t((2, 3, 6, 6), d[0]), t((4, 3, 3, 3), d[1]),
                                                 t((4,), d[2]), [1, 1], [0, 0], [1, 1], False,
                                                 [0, 0], 1))
op("conv_transpose1d", 3)(lambda d: F.conv_transpose1d(t((2, 3, 8), d[0]), t((3, 4, 3), d[1]),
                                                       t((4,), d[2])))
op("conv_transpose2d", 3)(lambda d: F.conv_transpose2d(t((2, 3, 5, 5), d[0]),
                                                       t((3, 4, 3, 3), d[1]), t((4,), d[2])))
op("prelu", 2)(lambda d: F.prelu(t((2, 3, 4), d[0], -1, 1), t((3,), d[1])))

# --- elementwise -----------------------------------------------------------
for _name in ["acos", "asin", "cosh", "exp", "expm1", "log", "log10", "log2", "log1p",
              "reciprocal", "rsqrt", "sinh", "tan",
              # not in the lists: the input's dtype
              "sin", "sqrt", "tanh", "sigmoid", "relu", "neg", "abs"]:
    unary(_name, getattr(torch, _name))
op("pow", 2)(lambda d: torch.pow(t((3, 4), d[0]), t((3, 4), d[1])))
op("pow_scalar", 1)(lambda d: torch.pow(t((3, 4), d[0]), 2.5))
op("scalar_pow", 1)(lambda d: torch.pow(2.5, t((3, 4), d[0])))
op("add", 2)(lambda d: torch.add(t((3, 4), d[0]), t((3, 4), d[1])))
op("mul", 2)(lambda d: torch.mul(t((3, 4), d[0]), t((3, 4), d[1])))
op("atan2", 2)(lambda d: torch.atan2(t((3, 4), d[0]), t((3, 4), d[1])))
op("addcmul", 3)(lambda d: torch.addcmul(t((3, 4), d[0]), t((3, 4), d[1]), t((3, 4), d[2])))
op("addcdiv", 3)(lambda d: torch.addcdiv(t((3, 4), d[0]), t((3, 4), d[1]), t((3, 4), d[2])))

# --- activations -----------------------------------------------------------
op("softplus", 1)(lambda d: F.softplus(t((3, 4), d[0])))
op("gelu", 1)(lambda d: F.gelu(t((3, 4), d[0])))
op("silu", 1)(lambda d: F.silu(t((3, 4), d[0])))
op("softmax", 1)(lambda d: torch.softmax(t((3, 4), d[0]), 1))
op("log_softmax", 1)(lambda d: torch.log_softmax(t((3, 4), d[0]), 1))

# --- reductions ------------------------------------------------------------
op("sum", 1)(lambda d: torch.sum(t((3, 4), d[0])))
op("sum_dim", 1)(lambda d: torch.sum(t((3, 4), d[0]), [1]))
op("prod", 1)(lambda d: torch.prod(t((3, 4), d[0])))
op("prod_dim", 1)(lambda d: torch.prod(t((3, 4), d[0]), 1))
op("cumsum", 1)(lambda d: torch.cumsum(t((3, 4), d[0]), 1))
op("cumprod", 1)(lambda d: torch.cumprod(t((3, 4), d[0]), 1))
op("mean", 1)(lambda d: torch.mean(t((3, 4), d[0])))
op("logsumexp", 1)(lambda d: torch.logsumexp(t((3, 4), d[0]), [1]))
op("norm", 1)(lambda d: torch.norm(t((3, 4), d[0])))
op("norm_p1", 1)(lambda d: torch.norm(t((3, 4), d[0]), 1))
op("norm_dim", 1)(lambda d: torch.norm(t((3, 4), d[0]), 2, [1]))
op("norm_fro_dim", 1)(lambda d: torch.norm(t((3, 4), d[0]), "fro", [1]))

# --- normalization ---------------------------------------------------------
op("layer_norm", 3)(lambda d: F.layer_norm(t((3, 4), d[0]), [4], t((4,), d[1]), t((4,), d[2])))
op("layer_norm_noaffine", 1)(lambda d: F.layer_norm(t((3, 4), d[0]), [4]))
op("group_norm", 3)(lambda d: F.group_norm(t((2, 4, 3), d[0]), 2, t((4,), d[1]), t((4,), d[2])))
op("batch_norm", 3)(lambda d: F.batch_norm(t((2, 3, 4), d[0]), None, None, t((3,), d[1]),
                                           t((3,), d[2]), training=True))

# --- losses ----------------------------------------------------------------
op("mse_loss", 2)(lambda d: F.mse_loss(t((3, 4), d[0]), t((3, 4), d[1])))
op("l1_loss", 2)(lambda d: F.l1_loss(t((3, 4), d[0]), t((3, 4), d[1])))
op("smooth_l1_loss", 2)(lambda d: F.smooth_l1_loss(t((3, 4), d[0]), t((3, 4), d[1])))
op("huber_loss", 2)(lambda d: F.huber_loss(t((3, 4), d[0]), t((3, 4), d[1])))
op("nll_loss", 1)(lambda d: F.nll_loss(t((3, 4), d[0], -2, -1), idx(0, 3, 1)))
op("cross_entropy", 1)(lambda d: F.cross_entropy(t((3, 4), d[0]), idx(0, 3, 1)))
op("binary_cross_entropy", 2)(lambda d: F.binary_cross_entropy(t((3, 4), d[0]), t((3, 4), d[1])))
op("binary_cross_entropy_with_logits", 2)(
    lambda d: F.binary_cross_entropy_with_logits(t((3, 4), d[0]), t((3, 4), d[1])))

# --- joining and indexing --------------------------------------------------
op("cat", 2)(lambda d: torch.cat([t((2, 4), d[0]), t((3, 4), d[1])]))
op("stack", 2)(lambda d: torch.stack([t((3, 4), d[0]), t((3, 4), d[1])]))
op("index_copy", 2)(lambda d: t((4, 3), d[0]).index_copy(0, idx(2, 0), t((2, 3), d[1])))
op("index_put", 2)(lambda d: t((4, 3), d[0]).index_put((idx(2, 0),), t((2, 3), d[1])))
op("scatter_add", 2)(lambda d: t((3, 4), d[0]).scatter_add(1, idx(0, 1, 2, 3).repeat(2, 1),
                                                           t((2, 4), d[1])))
op("where", 2)(lambda d: torch.where(t((3, 4), torch.float32) > 0.5, t((3, 4), d[0]),
                                     t((3, 4), d[1])))


def variants(n):
    """The floating-input dtypes tried for an op with n floating inputs:
    all float32, all bfloat16, all float64, and each one-off mix."""
    out = ["f" * n, "b" * n, "d" * n]
    for i in range(n):
        out.append("".join("b" if j == i else "f" for j in range(n)))
        if n > 1:
            out.append("".join("f" if j == i else "b" for j in range(n)))
        out.append("".join("d" if j == i else "f" for j in range(n)))
    seen, uniq = set(), []
    for v in out:
        if v not in seen:
            seen.add(v)
            uniq.append(v)
    return uniq


def table(device, lower):
    lines = []
    for name, (fn, n) in OPS.items():
        for v in variants(n):
            dtypes = [lower if c == "b" else LETTER[c] for c in v]
            try:
                with torch.autocast(device, dtype=lower):
                    r = fn(dtypes)
            except Exception as e:  # noqa: BLE001 - kernels PyTorch 1.13 lacks
                lines.append('  // %s %s: %s' % (name, v, str(e).split("\n")[0][:100]))
                continue
            lines.append('  {"%s", "%s", %s},' % (name, v, DTYPE_NAMES[r.dtype]))
    return lines


def main():
    global DEVICE
    if "--cuda" in sys.argv:
        DEVICE = "cuda"
        print("// PyTorch %s, torch.autocast(\"cuda\", dtype=torch.float16)" % torch.__version__)
        print("\n".join(table("cuda", torch.float16)))
        return
    lines = table("cpu", torch.bfloat16)
    write_inc("autocast_golden.inc", "autocast",
              "{op, floating-input dtypes (f float32, b bfloat16, d float64), result dtype "
              "under torch.autocast(\"cpu\", dtype=torch.bfloat16)}",
              lines, "cases", package=os.path.join("nn", "functional"))


if __name__ == "__main__":
    main()
