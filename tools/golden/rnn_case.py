"""The recorded layer case that tools/golden/rnn.py and rnn_packing.py share
(read by nn/rnn_test_golden.h): a module built under torch.manual_seed(0),
its parameters, inputs, results and the gradients of

    loss = sum(result_i * mk(result_i.shape, seed=5 + i))

with respect to the input, the given initial states and every parameter.
"""

import torch

from golden_util import mk


def weighted_loss(outs):
    """sum(out_i * mk(out_i.shape, seed=5 + i)): every element of every
    result gets its own weight, so each gradient is checked."""
    return sum((t * mk(tuple(t.shape), seed=5 + i)).sum() for i, t in enumerate(outs))


def flatten(t):
    """(output, (h, c)) / (output, h) / (h, c) / h as a list."""
    if isinstance(t, tuple):
        return [u for v in t for u in flatten(v)]
    return [t]


def record_case(g, name, make, x, hx=None, train=False, forward_seed=None, run=None):
    """Stores <name>.param.<key>, .input, .hx<i>, .out<i> and .grad.* in
    GoldenWriter g. run(m, x, hx) -> the results (default: m's own forward,
    flattened). Returns the module."""
    torch.manual_seed(0)
    m = make()
    m.train(train)
    for pname, p in m.named_parameters():
        g.add("%s.param.%s" % (name, pname), p)
    x = x.clone().requires_grad_()
    g.add(name + ".input", x)
    hx_leaves = []
    if hx is not None:
        if isinstance(hx, tuple):
            hx = tuple(h.clone().requires_grad_() for h in hx)
            hx_leaves = list(hx)
        else:
            hx = hx.clone().requires_grad_()
            hx_leaves = [hx]
        for i, h in enumerate(hx_leaves):
            g.add("%s.hx%d" % (name, i), h)
    if forward_seed is not None:
        torch.manual_seed(forward_seed)
    if run is None:
        flat = flatten(m(x) if hx is None else m(x, hx))
    else:
        flat = run(m, x, hx)
    for i, t in enumerate(flat):
        g.add("%s.out%d" % (name, i), t)
    weighted_loss(flat).backward()
    g.add(name + ".grad.input", x.grad)
    for i, h in enumerate(hx_leaves):
        g.add("%s.grad.hx%d" % (name, i), h.grad)
    for pname, p in m.named_parameters():
        g.add("%s.grad.%s" % (name, pname), p.grad)
    return m
