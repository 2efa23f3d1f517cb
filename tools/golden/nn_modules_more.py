"""Golden values for the modules added after nn_modules.py: ConvTranspose1d/2d,
GroupNorm, InstanceNorm1d/2d and the activation layers beyond ReLU/LeakyReLU/
GELU (nn/conv_transpose_test.cc, nn/instancenorm_test.cc,
nn/activation_test.cc): initial parameters after torch.manual_seed(0),
forward values, running statistics, printed forms, parameter names and
shapes, and the modules' errors.

Run with /usr/bin/python3 (Debian's torch 1.13). Writes
nn/testdata/nn_modules_more_{golden,errors_golden,strings_golden}.inc.
"""

import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_util import ErrorWriter, GoldenWriter, StringWriter, mk, params_string  # noqa: E402

torch.set_num_threads(1)
g = GoldenWriter("nn_modules_more", package="nn")
errors = ErrorWriter("nn_modules_more", package="nn")
strings = StringWriter("nn_modules_more", package="nn")




# --- layers with parameters: init under manual_seed(0), forward on mk() -------------------
LAYERS = {
    "convt1d": (lambda: nn.ConvTranspose1d(2, 4, 3, stride=2, padding=1, output_padding=1),
                mk((2, 2, 5))),
    "convt2d_groups": (lambda: nn.ConvTranspose2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 0),
                                                  groups=2, bias=False), mk((2, 4, 3, 4), seed=1)),
    "convt2d_dilation": (lambda: nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1, dilation=2),
                         mk((1, 2, 3, 3), seed=2)),
    "convt2d_unbatched": (lambda: nn.ConvTranspose2d(2, 3, 2), mk((2, 3, 3), seed=3)),
    "groupnorm": (lambda: nn.GroupNorm(2, 4), mk((2, 4, 3))),
    "groupnorm_noaffine": (lambda: nn.GroupNorm(3, 6, eps=1e-3, affine=False), mk((2, 6, 2, 2))),
    "instancenorm1d": (lambda: nn.InstanceNorm1d(3), mk((2, 3, 4))),
    "instancenorm1d_unbatched": (lambda: nn.InstanceNorm1d(3, affine=True), mk((3, 5), seed=1)),
    "prelu": (lambda: nn.PReLU(), mk((3, 4))),
    "prelu3": (lambda: nn.PReLU(3, init=0.1), mk((2, 3, 2))),
}
modules = {}
for name, (make, x) in LAYERS.items():
    torch.manual_seed(0)
    m = modules[name] = make()
    for pname, p in m.named_parameters():
        g.add("init.%s.%s" % (name, pname), p)
    strings.add("params." + name, params_string(m))
    strings.add("state_dict." + name, "\n".join(m.state_dict().keys()))
    g.add("forward.%s.input" % name, x)
    g.add("forward.%s.output" % name, m(x))

# ConvTranspose2d's forward(input, output_size): output_padding from the size.
torch.manual_seed(0)
up = nn.ConvTranspose2d(2, 3, 3, stride=(3, 2), padding=1)
x = mk((1, 2, 3, 4))
g.add("output_size.input", x)
g.add("output_size.out_8x8", up(x, output_size=[8, 8]))
g.add("output_size.out_9x8_full", up(x, output_size=[1, 3, 9, 8]))
g.add("output_size.out_unbatched", up(x[0], output_size=[3, 7, 8]))
errors.err("output_size.length", lambda: up(x, output_size=[8]))
errors.err("output_size.range", lambda: up(x, output_size=[10, 8]))
errors.err("output_size.range_unbatched", lambda: up(x[0], output_size=[7, 10]))

# InstanceNorm2d tracking statistics: two training steps, then eval.
torch.manual_seed(0)
inorm = nn.InstanceNorm2d(3, affine=True, track_running_stats=True, momentum=0.3)
strings.add("params.instancenorm2d_tracked", params_string(inorm))
strings.add("state_dict.instancenorm2d_tracked", "\n".join(inorm.state_dict().keys()))
xi = mk((2, 3, 2, 3))
g.add("in2d.input", xi)
g.add("in2d.train1", inorm(xi))
g.add("in2d.train2", inorm(xi * 2 + 1))
for b, t in inorm.named_buffers():
    g.add("in2d." + b, t)
inorm.eval()
g.add("in2d.eval", inorm(xi))
g.add("in2d.eval_unbatched", inorm(xi[1]))

# --- activation layers on one input ------------------------------------------------------
ACTS = {
    "elu": nn.ELU(0.5), "selu": nn.SELU(), "celu": nn.CELU(2.0), "silu": nn.SiLU(),
    "mish": nn.Mish(), "softplus": nn.Softplus(2, 1.5), "softsign": nn.Softsign(),
    "hardtanh": nn.Hardtanh(-0.5, 0.75), "relu6": nn.ReLU6(), "hardsigmoid": nn.Hardsigmoid(),
    "hardswish": nn.Hardswish(), "logsigmoid": nn.LogSigmoid(), "tanhshrink": nn.Tanhshrink(),
    "softshrink": nn.Softshrink(0.3), "hardshrink": nn.Hardshrink(0.6),
    "threshold": nn.Threshold(0.25, -3.0),
}
xa = mk((3, 4)) * 9
g.add("act.input", xa)
for name, m in ACTS.items():
    g.add("act.%s.output" % name, m(xa))

# --- printed forms ----------------------------------------------------------------------
REPRS = {
    "convs": nn.ModuleList([nn.ConvTranspose1d(2, 4, 3, stride=2, padding=1, output_padding=1),
                            nn.ConvTranspose2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 0),
                                               groups=2, bias=False),
                            nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1, dilation=2),
                            nn.ConvTranspose2d(2, 3, 2)]),
    "norms": nn.ModuleList([nn.GroupNorm(2, 4), nn.GroupNorm(3, 6, eps=1e-3, affine=False),
                            nn.InstanceNorm1d(3), nn.InstanceNorm1d(3, affine=True),
                            nn.InstanceNorm2d(4, eps=1e-3, momentum=0.3, affine=True,
                                              track_running_stats=True)]),
    "activations": nn.ModuleList([
        nn.ELU(), nn.ELU(0.5, inplace=True), nn.SELU(), nn.SELU(True), nn.CELU(), nn.CELU(2.0),
        nn.SiLU(), nn.SiLU(True), nn.Mish(), nn.Mish(True), nn.Softplus(), nn.Softplus(2, 1.5),
        nn.Softsign(), nn.Hardtanh(), nn.Hardtanh(-0.5, 0.75, True), nn.ReLU6(), nn.ReLU6(True),
        nn.Hardsigmoid(), nn.Hardswish(True), nn.PReLU(), nn.PReLU(3, 0.1), nn.LogSigmoid(),
        nn.Tanhshrink(), nn.Softshrink(), nn.Softshrink(0.3), nn.Hardshrink(0.6),
        # ember prints an integral threshold or value as an int (nn/activation.h).
        nn.Threshold(0.25, -3), nn.Threshold(1, 20, True)]),
}
for name, m in REPRS.items():
    strings.add("repr." + name, repr(m))

# --- constructor and input errors --------------------------------------------------------
errors.err("convt.padding_mode", lambda: nn.ConvTranspose2d(2, 3, 3, padding_mode="reflect"))
errors.err("convt.groups_in", lambda: nn.ConvTranspose2d(3, 4, 3, groups=2))
errors.err("convt.groups_out", lambda: nn.ConvTranspose1d(4, 3, 3, groups=2))
errors.err("groupnorm.divisible", lambda: nn.GroupNorm(4, 6))
errors.err("instancenorm1d.dims", lambda: nn.InstanceNorm1d(3)(torch.zeros(2, 3, 4, 5)))
errors.err("instancenorm2d.dims", lambda: nn.InstanceNorm2d(3)(torch.zeros(2, 3)))

g.write()
errors.write()
strings.write()
