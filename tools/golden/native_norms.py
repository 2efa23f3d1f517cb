#!/usr/bin/python3
"""What PyTorch 1.13 gives for tensor/native_norms_test.cc's cases:
native_group_norm (output, mean, rstd and the gradients of each),
norm_except_dim, _weight_norm and _weight_norm_interface (values and
gradients), and their errors. Run with Debian's PyTorch: /usr/bin/python3 tools/golden/native_norms.py
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

# --- norm_except_dim, _weight_norm, _weight_norm_interface ---
for dtn, dt in (("f32", torch.float32), ("f64", torch.float64)):
    v = mk([3, 4, 2], dt, 1)
    for pw in (2, 1, 3, 0):
        for dim in (0, 1, 2, -1, -2):
            g.add("ned/%s/p%d/d%d" % (dtn, pw, dim), torch.norm_except_dim(v, pw, dim))
    g.add("ned/%s/t" % dtn, torch.norm_except_dim(v.transpose(0, 2), 2, 0))
    for dim, gshape in ((0, [3, 1, 1]), (2, [1, 1, 2]), (1, [1, 4, 1]), (-1, [])):
        vs = v.clone().requires_grad_()
        gs = (mk(gshape, dt, 5) + 2).requires_grad_()
        w = torch._weight_norm(vs, gs, dim)
        base = "wn/%s/d%d" % (dtn, dim)
        g.add(base + "/w", w)
        (w * mk(list(w.shape), dt, 7)).sum().backward()
        g.add(base + "/grad_v", vs.grad)
        g.add(base + "/grad_g", gs.grad)
    for dim, gshape in ((0, [3]), (2, [1, 1, 2])):
        vs = v.clone().requires_grad_()
        gs = (mk(gshape, dt, 5) + 2).requires_grad_()
        w, n = aten._weight_norm_interface(vs, gs, dim)
        base = "wni/%s/d%d" % (dtn, dim)
        g.add(base + "/w", w)
        g.add(base + "/norms", n)
        (w * mk(list(w.shape), dt, 7)).sum().backward()
        g.add(base + "/grad_v", vs.grad)
        g.add(base + "/grad_g", gs.grad)
w, n = aten._weight_norm_interface(mk([3, 4], torch.bfloat16, 1), mk([3, 1], torch.bfloat16, 5) + 2, 0)
g.add("wni/bf16/w", w)
g.add("wni/bf16/norms", n)

v = mk([3, 4])
e.err("ned dim", lambda: torch.norm_except_dim(v, 2, 2))
e.err("ned int", lambda: torch.norm_except_dim(v.int(), 2, 0))
e.err("ned 0d", lambda: torch.norm_except_dim(torch.tensor(2.), 2, 0))
e.err("wni dim", lambda: aten._weight_norm_interface(v, mk([3, 1]), -1))
e.err("wni dtype", lambda: aten._weight_norm_interface(v, mk([3, 1]).double(), 0))
e.err("wni int", lambda: aten._weight_norm_interface(v.int(), mk([3, 1]).int(), 0))
e.err("wn dtype", lambda: torch._weight_norm(v, mk([3, 1]).double(), 0))
e.err("wn 0d", lambda: torch._weight_norm(torch.tensor(2.), torch.tensor(3.), 0))

g.write()
e.write()
