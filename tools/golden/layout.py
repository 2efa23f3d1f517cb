#!/usr/bin/python3
"""The layout (strides) of results in PyTorch 1.13, for nn/functional/layout_test.cc
(issue 22, "Result layout"): elementwise ops, *_like factories, clone, to,
and the nn ops that keep channels-last, on transposed, permuted,
channels-last, non-dense, expanded and empty inputs; the numbers
rand_like/randn_like put into a non-contiguous layout under a seed; and the
strides of a leaf's .grad (the gradient layout contract).
Run with Debian's PyTorch: /usr/bin/python3 tools/golden/layout.py"""
import torch
import torch.nn.functional as F
from torch._prims_common import suggest_memory_format  # the C++ rule, ported

from golden_util import write_inc, cpp_double


def base(n):
    return torch.arange(n, dtype=torch.float32) * 0.1 + 0.05


# Each input is built the same way in the C++ test (nn/functional/layout_test.cc).
INPUTS = {
    "contig": lambda: base(6).reshape(3, 2),
    "t": lambda: base(6).reshape(2, 3).t(),
    "perm3": lambda: base(24).reshape(2, 3, 4).permute(2, 0, 1),
    "cl": lambda: base(120).reshape(2, 4, 5, 3).permute(0, 3, 1, 2),
    "nondense": lambda: base(24).reshape(4, 6).t()[:, ::2],
    "size1": lambda: base(6).reshape(2, 1, 3).permute(2, 1, 0),
    "nc11": lambda: base(6).reshape(2, 3, 1, 1),
    "expanded": lambda: base(3).reshape(3, 1).expand(3, 4),
    "empty_t": lambda: torch.zeros(0, 3).t(),
    "cl_c1": lambda: base(20).reshape(2, 5, 2, 1).permute(0, 3, 1, 2),
}

# Each op has the same name in the C++ test.
OPS = {
    "neg": lambda x: -x,
    "exp": torch.exp,
    "sqrt": torch.sqrt,
    "abs": torch.abs,
    "sin": torch.sin,
    "tanh": torch.tanh,
    "sigmoid": torch.sigmoid,
    "relu": torch.relu,
    "gelu": F.gelu,
    "silu": F.silu,
    "softplus": F.softplus,
    "elu": F.elu,
    "leaky_relu": F.leaky_relu,
    "hardswish": F.hardswish,
    "hardsigmoid": F.hardsigmoid,
    "hardtanh": F.hardtanh,
    "relu6": F.relu6,
    "mish": F.mish,
    "clamp": lambda x: x.clamp(0.1, 0.5),
    "pow2": lambda x: x.pow(2),
    "mul_scalar": lambda x: x * 2,
    "add_scalar": lambda x: x + 1,
    "rsub_scalar": lambda x: 1 - x,
    "div_scalar": lambda x: x / 3,
    "floor": torch.floor,
    "sign": torch.sign,
    "reciprocal": torch.reciprocal,
    "erf": torch.erf,
    "gt_scalar": lambda x: x > 0.3,
    "to_double": lambda x: x.to(torch.float64),
    "to_int": lambda x: x.to(torch.int32),
    "clone": lambda x: x.clone(),
    "empty_like": torch.empty_like,
    "zeros_like": torch.zeros_like,
    "ones_like": torch.ones_like,
    "full_like": lambda x: torch.full_like(x, 7),
    "rand_like": torch.rand_like,
    "randn_like": torch.randn_like,
    "where": lambda x: torch.where(x > 0.3, x, torch.zeros(())),
    "masked_fill": lambda x: x.masked_fill(x > 0.3, 0),
    "add_self": lambda x: x + x,
    "add_contig": lambda x: x + x.contiguous(),
    "contig_add": lambda x: x.contiguous() + x,
    "add_row": lambda x: x + base(x.shape[-1]),
    "row_add": lambda x: base(x.shape[-1]) + x,
    "add_0dim": lambda x: x + torch.tensor(2.0),
    "int_add_float": lambda x: x.to(torch.int64) + 0.5,
    "lerp": lambda x: torch.lerp(x, x.contiguous(), 0.3),
    "addcmul": lambda x: torch.addcmul(x, x, x, value=0.5),
    "dropout_eval": lambda x: F.dropout(x, 0.5, training=False),
    "contiguous": lambda x: x.contiguous(),
}

# nn ops on 4-D inputs (NCHW); weights are contiguous.
NN4D = {
    "conv2d": lambda x: F.conv2d(x, base(x.shape[1] * 4).reshape(4, x.shape[1], 1, 1)),
    "conv_transpose2d": lambda x: F.conv_transpose2d(
        x, base(x.shape[1] * 8).reshape(x.shape[1], 2, 2, 2)),
    # A channels-last weight (model.to(channels_last)) makes the result
    # channels-last whatever the input's layout.
    "conv2d_cl_weight": lambda x: F.conv2d(
        x, base(x.shape[1] * 16).reshape(4, x.shape[1], 2, 2).contiguous(
            memory_format=torch.channels_last), padding=1),
    "max_pool2d": lambda x: F.max_pool2d(x, 2, ceil_mode=True),
    "max_pool2d_indices": lambda x: F.max_pool2d(x, 2, ceil_mode=True, return_indices=True)[1],
    "avg_pool2d": lambda x: F.avg_pool2d(x, 2, ceil_mode=True),
    "adaptive_avg_pool2d_1": lambda x: F.adaptive_avg_pool2d(x, 1),
    "adaptive_avg_pool2d_2": lambda x: F.adaptive_avg_pool2d(x, 2),
    "batch_norm_train": lambda x: F.batch_norm(x, None, None, training=True),
    "batch_norm_eval": lambda x: F.batch_norm(x, torch.zeros(x.shape[1]),
                                              torch.ones(x.shape[1]), training=False),
    "softmax1": lambda x: torch.softmax(x, 1),
    "log_softmax1": lambda x: torch.log_softmax(x, 1),
    "contiguous_cl": lambda x: x.contiguous(memory_format=torch.channels_last),
    "clone_contig": lambda x: x.clone(memory_format=torch.contiguous_format),
    "empty_like_cl": lambda x: torch.empty_like(x, memory_format=torch.channels_last),
    "group_norm": lambda x: F.group_norm(x, 1, base(x.shape[1]), base(x.shape[1])),
    "instance_norm": lambda x: F.instance_norm(x) if x.shape[2] * x.shape[3] > 1 else x,
    "layer_norm": lambda x: F.layer_norm(x, x.shape[2:]),
    "interpolate_nearest": lambda x: F.interpolate(x, scale_factor=2.0),
    "interpolate_bilinear": lambda x: F.interpolate(x, size=(3, 4), mode="bilinear"),
    "pixel_shuffle": lambda x: F.pixel_shuffle(x.repeat(1, 4, 1, 1), 2),
    "dropout2d_eval": lambda x: F.dropout2d(x, training=False),
    "pad_reflect": lambda x: F.pad(x, (1, 1, 0, 0), mode="reflect") if x.shape[3] > 1 else x,
}


# Gradients of leaves made from INPUTS (issue 22, "AccumulateGrad's layout
# contract"): the strides of x.grad after backward.
def twice(x):
    x.exp().sum().backward()
    return x.exp().sum()


GRAD_OPS = {
    "grad_sum": lambda x: x.sum(),
    "grad_exp_sum": lambda x: x.exp().sum(),
    "grad_mul_sum": lambda x: (x * 3).sum(),
    "grad_t_exp_sum": lambda x: x.t().exp().sum() if x.dim() == 2 else x.exp().sum(),
    "grad_accumulated": twice,
}


def seq(v):
    return "{" + ", ".join(str(int(s)) for s in v) + "}"


def main():
    lines = []
    for iname, make in INPUTS.items():
        x = make()
        lines.append('  {"%s", "input", %s, %s, %d, %d, %d},' % (
            iname, seq(x.shape), seq(x.stride()), x.is_contiguous(),
            x.is_contiguous(memory_format=torch.channels_last) if x.dim() == 4 else 0,
            suggest_memory_format(x) == torch.channels_last))
        ops = dict(OPS)
        if x.dim() == 4:
            ops.update(NN4D)
        for oname, op in ops.items():
            y = op(x)
            lines.append('  {"%s", "%s", %s, %s, %d, %d, %d},' % (
                iname, oname, seq(y.shape), seq(y.stride()), y.is_contiguous(),
                y.is_contiguous(memory_format=torch.channels_last) if y.dim() == 4 else 0, 0))
    write_inc("layout_golden.inc", "layout",
              "{input, op, sizes, strides, is_contiguous, is_contiguous(ChannelsLast), "
              "suggest_memory_format is ChannelsLast (inputs only)}", lines, "cases",
              "nn/functional")

    grads = []
    for iname, make in INPUTS.items():
        grad_ops = dict(GRAD_OPS)
        if make().dim() == 4:  # through each nn op's backward too
            for name, f in NN4D.items():
                grad_ops["grad_of_" + name] = lambda x, f=f: f(x).sum()
        for oname, op in grad_ops.items():
            x = make().detach().requires_grad_()
            loss = op(x)
            if not loss.requires_grad:
                continue
            loss.backward()
            g = x.grad
            grads.append('  {"%s", "%s", %s, %s, %d, %d, 0},' % (
                iname, oname, seq(g.shape), seq(g.stride()), g.is_contiguous(),
                g.is_contiguous(memory_format=torch.channels_last) if g.dim() == 4 else 0))
        # The gradient an nn op's backward hands to a non-leaf input (no
        # layout contract applies there): x * 1 keeps x's layout, and a hook
        # on it sees the backward's own result.
        if make().dim() != 4:
            continue
        for name, f in NN4D.items():
            x = make().detach().requires_grad_()
            mid = x * 1
            seen = []
            mid.register_hook(lambda g, seen=seen: seen.append(g))
            loss = f(mid)
            if not loss.requires_grad:
                continue
            loss.sum().backward()
            g = seen[0]
            grads.append('  {"%s", "%s", %s, %s, %d, %d, 0},' % (
                iname, "nonleaf_grad_of_" + name, seq(g.shape), seq(g.stride()),
                g.is_contiguous(), g.is_contiguous(memory_format=torch.channels_last)))
    write_inc("layout_grad_golden.inc", "layout",
              "{leaf input, backward, sizes, strides of .grad (or of the gradient a "
              "non-leaf's hook sees), is_contiguous, is_contiguous(ChannelsLast), 0}",
              grads, "cases", "nn/functional")

    # Random numbers land where PyTorch's iterator puts them: memory order.
    values = []
    for iname in ("t", "perm3", "cl", "nondense"):
        for fname, f in (("rand_like", torch.rand_like), ("randn_like", torch.randn_like)):
            torch.manual_seed(7)
            y = f(INPUTS[iname]())
            flat = y.contiguous().reshape(-1).to(torch.float64).tolist()
            values.append('  {"%s", "%s", {%s}},' % (
                iname, fname, ", ".join(cpp_double(v) for v in flat)))
    write_inc("layout_random_golden.inc", "layout",
              "{input, factory, values in row-major order after manual_seed(7)}", values, "cases",
              "nn/functional")


if __name__ == "__main__":
    main()
