#!/usr/bin/python3
"""What PyTorch 1.13 gives for tensor/native_norms_test.cc's cases:
native_group_norm (output, mean, rstd and the gradients of each), and its
errors. Run with Debian's PyTorch: /usr/bin/python3 tools/golden/native_norms.py
Writes tensor/testdata/native_norms_golden.inc and native_norms_errors_golden.inc."""
import torch

from golden_util import ErrorWriter, GoldenWriter, mk

g = GoldenWriter("native_norms")
e = ErrorWriter("native_norms", first_line=True)
aten = torch.ops.aten

# --- native_group_norm ---
for dtn, dt in (("f32", torch.float32), ("f64", torch.float64)):
    x, w, b = mk([2, 4, 3], dt, 1), mk([4], dt, 2), mk([4], dt, 3)
    for name, args in (("affine", (x, w, b, 2, 4, 3, 2)), ("plain", (x, None, None, 2, 4, 3, 4)),
                       ("flat", (x.reshape(2, 12), w, None, 2, 4, 3, 1)),
                       ("image", (mk([2, 4, 2, 3], dt, 4), w, None, 2, 4, 6, 2))):
        xs = args[0].clone().requires_grad_()
        ws = args[1].clone().requires_grad_() if args[1] is not None else None
        bs = args[2].clone().requires_grad_() if args[2] is not None else None
        out, mean, rstd = aten.native_group_norm(xs, ws, bs, *args[3:], 1e-5)
        base = "gn/%s/%s" % (dtn, name)
        g.add(base + "/out", out)
        g.add(base + "/mean", mean)
        g.add(base + "/rstd", rstd)
        # gradients of sum(out * u) + sum(mean * v) + sum(rstd * z)
        loss = ((out * mk(list(out.shape), dt, 7)).sum() + (mean * mk(list(mean.shape), dt, 8)).sum()
                + (rstd * mk(list(rstd.shape), dt, 9)).sum())
        if name == "flat":
            continue  # 1.13's backward fails for an input not shaped [N, C, *]
        loss.backward()
        g.add(base + "/grad_input", xs.grad)
        if ws is not None:
            g.add(base + "/grad_weight", ws.grad)
        if bs is not None:
            g.add(base + "/grad_bias", bs.grad)
o = aten.native_group_norm(mk([2, 4, 3], torch.bfloat16, 1), None, None, 2, 4, 3, 2, 1e-5)
g.add("gn/bf16/out", o[0])
g.add("gn/bf16/mean", o[1])
g.add("gn/bf16/rstd", o[2])
o = aten.native_group_norm(torch.zeros(0, 4, 3), None, None, 0, 4, 3, 2, 1e-5)
g.add("gn/empty/mean", o[1])

x, w = mk([2, 4, 3]), mk([4])
e.err("gn groups", lambda: aten.native_group_norm(x, w, None, 2, 4, 3, 3, 1e-5))
e.err("gn groups 0", lambda: aten.native_group_norm(x, w, None, 2, 4, 3, 0, 1e-5))
e.err("gn weight", lambda: aten.native_group_norm(x, w[:3], None, 2, 4, 3, 2, 1e-5))
e.err("gn bias", lambda: aten.native_group_norm(x, w, w[:3], 2, 4, 3, 2, 1e-5))
e.err("gn bias no weight", lambda: aten.native_group_norm(x, None, w[:3], 2, 4, 3, 2, 1e-5))
e.err("gn weight 2d", lambda: aten.native_group_norm(x, w.view(2, 2), None, 2, 4, 3, 2, 1e-5))
e.err("gn numel", lambda: aten.native_group_norm(x, w, None, 2, 4, 4, 2, 1e-5))
e.err("gn long", lambda: aten.native_group_norm(x.long(), None, None, 2, 4, 3, 2, 1e-5))
e.err("gn half", lambda: aten.native_group_norm(x.half(), None, None, 2, 4, 3, 2, 1e-5))
e.err("gn weight dtype", lambda: aten.native_group_norm(x.double(), w, None, 2, 4, 3, 2, 1e-5))

g.write()
e.write()
