"""Golden values for the modules of issue 19's "rest of torch.nn": Conv3d,
ConvTranspose3d, BatchNorm3d, the 1-d / 3-d / adaptive
poolings, Upsample, Fold and Unfold (nn/conv3d_test.cc,
nn/pooling_extra_test.cc, nn/resample_test.cc): initial parameters after
torch.manual_seed(0), forward values, running statistics, printed forms,
parameter names and shapes, and the modules' errors. The functional ops
are checked in detail by nn_ops_extra.py.

Run with /usr/bin/python3 (Debian's torch 1.13). Writes
nn/testdata/nn_modules_extra_{golden,errors_golden,strings_golden}.inc.
"""

import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_util import ErrorWriter, GoldenWriter, StringWriter, mk, params_string  # noqa: E402

torch.set_num_threads(1)
g = GoldenWriter("nn_modules_extra", package="nn")
errors = ErrorWriter("nn_modules_extra", package="nn")
strings = StringWriter("nn_modules_extra", package="nn")




# --- layers with parameters: init under manual_seed(0), forward on mk() -------------------
LAYERS = {
    "conv3d": (lambda: nn.Conv3d(2, 3, (2, 3, 2), stride=(1, 2, 1), padding=1),
               mk((2, 2, 3, 4, 3))),
    "conv3d_groups": (lambda: nn.Conv3d(4, 2, 2, groups=2, bias=False, dilation=(2, 1, 1)),
                      mk((1, 4, 3, 2, 3), seed=1)),
    "conv3d_reflect": (lambda: nn.Conv3d(1, 2, 3, padding=1, padding_mode="reflect"),
                       mk((1, 3, 3, 4), seed=2)),
    "convt3d": (lambda: nn.ConvTranspose3d(2, 4, (2, 3, 2), stride=2, padding=(0, 1, 0),
                                           output_padding=(1, 0, 1)),
                mk((2, 2, 2, 3, 2))),
    "convt3d_groups": (lambda: nn.ConvTranspose3d(4, 2, 2, groups=2, bias=False),
                       mk((4, 2, 2, 3), seed=3)),
}
for name, (make, x) in LAYERS.items():
    torch.manual_seed(0)
    m = make()
    for pname, p in m.named_parameters():
        g.add("init.%s.%s" % (name, pname), p)
    strings.add("params." + name, params_string(m))
    strings.add("state_dict." + name, "\n".join(m.state_dict().keys()))
    g.add("forward.%s.input" % name, x)
    g.add("forward.%s.output" % name, m(x))

# ConvTranspose3d's forward(input, output_size).
torch.manual_seed(0)
up = nn.ConvTranspose3d(2, 3, 3, stride=(3, 2, 2), padding=1)
x = mk((1, 2, 2, 3, 2))
g.add("output_size.input", x)
g.add("output_size.out", up(x, output_size=[5, 6, 4]))

# BatchNorm3d: two training steps, then eval.
torch.manual_seed(0)
bn = nn.BatchNorm3d(3, momentum=0.3)
strings.add("params.batchnorm3d", params_string(bn))
strings.add("state_dict.batchnorm3d", "\n".join(bn.state_dict().keys()))
xb = mk((2, 3, 2, 2, 3))
g.add("bn3d.input", xb)
g.add("bn3d.train1", bn(xb))
g.add("bn3d.train2", bn(xb * 2 + 1))
for b, t in bn.named_buffers():
    g.add("bn3d." + b, t)
bn.eval()
g.add("bn3d.eval", bn(xb))

# --- printed forms ----------------------------------------------------------------------
REPRS = {
    "convs": nn.ModuleList([
        nn.Conv3d(2, 3, (2, 3, 2), stride=(1, 2, 1), padding=1),
        nn.Conv3d(4, 2, 2, groups=2, bias=False, dilation=(2, 1, 1)),
        nn.Conv3d(1, 2, 3, padding="same", padding_mode="reflect"),
        nn.ConvTranspose3d(2, 4, (2, 3, 2), stride=2, padding=(0, 1, 0), output_padding=(1, 0, 1)),
        nn.ConvTranspose3d(4, 2, 2, groups=2, bias=False)]),
    "pools": nn.ModuleList([
        nn.MaxPool1d(3), nn.MaxPool1d(3, 2, 1, 2, return_indices=True, ceil_mode=True),
        nn.MaxPool3d(2), nn.MaxPool3d((3, 2, 2), (2, 1, 2), 1, ceil_mode=True),
        nn.AvgPool1d(3), nn.AvgPool1d(4, 2, 1, True, False),
        nn.AvgPool3d(2), nn.AvgPool3d((3, 2, 2), 1, (1, 0, 1), False, False, 3),
        nn.AdaptiveAvgPool1d(3), nn.AdaptiveAvgPool3d(2), nn.AdaptiveAvgPool3d((2, 3, 1)),
        nn.AdaptiveMaxPool1d(3), nn.AdaptiveMaxPool2d(2), nn.AdaptiveMaxPool2d((3, 2), True)]),
    "resample": nn.ModuleList([
        nn.Upsample(scale_factor=2), nn.Upsample(size=(2, 3), mode="bilinear", align_corners=True),
        nn.Upsample(size=5, mode="linear"), nn.Upsample(scale_factor=(1.5, 2.0), mode="bicubic"),
        nn.Fold((4, 5), 2), nn.Fold(6, (2, 3), dilation=2, padding=1, stride=(1, 2)),
        nn.Unfold(2), nn.Unfold((2, 3), 1, 1, 2)]),
    "others": nn.ModuleList([
        nn.BatchNorm3d(3), nn.BatchNorm3d(4, eps=1e-3, momentum=None, affine=False)]),
}
for name, m in REPRS.items():
    strings.add("repr." + name, repr(m))

# --- constructor and input errors --------------------------------------------------------
errors.err("conv3d.groups", lambda: nn.Conv3d(3, 4, 3, groups=2))
errors.err("convt3d.padding_mode", lambda: nn.ConvTranspose3d(2, 3, 3, padding_mode="reflect"))
errors.err("batchnorm3d.dims", lambda: nn.BatchNorm3d(3)(torch.zeros(2, 3, 4, 5)))

g.write()
errors.write()
strings.write()
