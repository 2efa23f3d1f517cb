#!/usr/bin/python3
"""What PyTorch 1.13 gives for tensor/conv_tbc_test.cc's cases: conv_tbc's
values and conv_tbc_backward's three gradients (torch.ops.aten, the
functions libtorch exposes), dtypes, and conv_tbc's errors. Run with
Debian's PyTorch: /usr/bin/python3 tools/golden/conv_tbc.py
Writes tensor/testdata/conv_tbc_golden.inc and conv_tbc_errors_golden.inc."""
import torch

from golden_util import ErrorWriter, GoldenWriter, mk

g = GoldenWriter("conv_tbc")
e = ErrorWriter("conv_tbc", first_line=True)
aten = torch.ops.aten

for dtn, dt in (("f32", torch.float32), ("f64", torch.float64)):
    x, w, b = mk([5, 2, 3], dt, 1), mk([3, 3, 4], dt, 2), mk([4], dt, 3)
    for pad in (0, 1, -1, 3):
        name = "%s/pad%d" % (dtn, pad)
        out = aten.conv_tbc(x, w, b, pad)
        g.add(name + "/out", out)
        grad = mk(list(out.shape), dt, 7)
        gi, gw, gb = aten.conv_tbc_backward(grad, x, w, b, pad)
        g.add(name + "/grad_input", gi)
        g.add(name + "/grad_weight", gw)
        g.add(name + "/grad_bias", gb)
    # taps that reach nothing: one input step, a kernel of 3, pad 1
    x1 = mk([1, 2, 3], dt, 4)
    out = aten.conv_tbc(x1, w, b, 1)
    g.add(dtn + "/short/out", out)
    gi, gw, gb = aten.conv_tbc_backward(mk(list(out.shape), dt, 7), x1, w, b, 1)
    g.add(dtn + "/short/grad_input", gi)
    g.add(dtn + "/short/grad_weight", gw)
    g.add(dtn + "/short/grad_bias", gb)

xl, wl, bl = mk([4, 2, 3], torch.int64, 1), mk([2, 3, 2], torch.int64, 2), mk([2], torch.int64, 3)
g.add("long/out", aten.conv_tbc(xl, wl, bl, 1))
xd, wd = mk([4, 2, 3], torch.float64, 1), mk([2, 3, 2], torch.float64, 2)
g.add("mixed_bias/out", aten.conv_tbc(xd, wd, mk([2], torch.float32, 3), 0))
g.add("zero_len/out", aten.conv_tbc(xd[:1], wd, mk([2], torch.float64, 3), 0))

x, w, b = mk([5, 2, 3]), mk([3, 3, 4]), mk([4])
e.err("input dims", lambda: aten.conv_tbc(x[0], w, b))
e.err("weight dims", lambda: aten.conv_tbc(x, w[0], b))
e.err("bias dims", lambda: aten.conv_tbc(x, w, b[None]))
e.err("in channels", lambda: aten.conv_tbc(x, w[:, :2], b))
e.err("out channels", lambda: aten.conv_tbc(x, w, b[:3]))
e.err("negative length", lambda: aten.conv_tbc(x, w, b, -2))
e.err("weight dtype", lambda: aten.conv_tbc(x, w.double(), b))

g.write()
e.write()
