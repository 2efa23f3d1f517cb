#!/usr/bin/python3
"""Dropout1d/2d/3d, alpha and feature-alpha dropout, native_dropout (its
output, bool mask and gradient, through native_dropout_backward) as PyTorch 1.13 computes them
under manual_seed, for nn/functional/dropout_test.cc (issue 23: libtorch's
Dropout2d/Dropout3d/AlphaDropout/FeatureAlphaDropout). The unbatched
dropout2d/3d cases follow libtorch's C++ API (the sample is unsqueezed),
which for a 3-D dropout2d input differs from Python 1.13's F.dropout2d.
Each case: the input (arange-based), the output after manual_seed(3) and
the input's gradient of sum(out * arange-based weights).
Run with Debian's PyTorch: /usr/bin/python3 tools/golden/dropout.py"""
import torch
from torch import _VF

from golden_util import GoldenWriter


def feature(x, p):
    return _VF.feature_dropout(x, p, True)


def unbatched(x, p):
    return _VF.feature_dropout(x.unsqueeze(0), p, True).squeeze(0)


CASES = [
    # name, shape, transpose last two dims first, fn(x)
    ("dropout1d_3d", (2, 3, 4), False, lambda x: torch.nn.functional.dropout1d(x, 0.4)),
    ("dropout1d_2d", (3, 4), False, lambda x: torch.nn.functional.dropout1d(x, 0.4)),
    ("dropout2d_4d", (2, 3, 2, 2), False, lambda x: feature(x, 0.4)),
    ("dropout2d_3d", (3, 2, 2), False, lambda x: unbatched(x, 0.4)),
    ("dropout3d_5d", (2, 3, 1, 2, 2), False, lambda x: feature(x, 0.5)),
    ("dropout3d_4d", (3, 1, 2, 2), False, lambda x: unbatched(x, 0.5)),
    ("alpha_dropout", (4, 5), False, lambda x: _VF.alpha_dropout(x, 0.3, True)),
    ("feature_alpha_dropout", (2, 4, 3), False, lambda x: _VF.feature_alpha_dropout(x, 0.3, True)),
    ("dropout_transposed", (4, 5), True, lambda x: torch.nn.functional.dropout(x, 0.5)),
]


# name, shape, transpose, p, train (None: PyTorch's default, training)
NATIVE = [
    ("native_dropout", (4, 5), False, 0.3, True),
    ("native_dropout_default_train", (4, 5), False, 0.6, None),
    ("native_dropout_eval", (4, 5), False, 0.3, False),
    ("native_dropout_p1", (4, 5), False, 1.0, True),
    ("native_dropout_p0", (4, 5), False, 0.0, True),
    ("native_dropout_transposed", (4, 5), True, 0.5, True),
]


def main():
    w = GoldenWriter("dropout", "nn/functional")
    for name, shape, transpose, p, train in NATIVE:
        x = (torch.arange(20, dtype=torch.float32) * 0.1 - 0.7).reshape(shape)
        if transpose:
            x = x.reshape(shape[::-1]).t()
        x = x.detach().requires_grad_()
        torch.manual_seed(3)
        out, mask = torch.native_dropout(x, p, train)
        assert out.grad_fn.name() == "NativeDropoutBackward0"
        assert out.stride() == x.stride(), (name, out.stride())
        weights = (torch.arange(out.numel(), dtype=torch.float32) * 0.05 + 1).reshape(out.shape)
        (out * weights).sum().backward()
        w.add(name + "/out", out)
        w.add(name + "/mask", mask)
        if train is not None:  # 1.13's gradient for train=None scales by 1 (a bug ember fixes)
            w.add(name + "/grad", x.grad)
    for name, shape, transpose, fn in CASES:
        n = 1
        for s in shape:
            n *= s
        x = (torch.arange(n, dtype=torch.float32) * 0.1 - 0.7).reshape(shape)
        if transpose:
            x = x.reshape(shape[::-1]).t()
        x = x.detach().requires_grad_()
        torch.manual_seed(3)
        out = fn(x)
        weights = (torch.arange(out.numel(), dtype=torch.float32) * 0.05 + 1).reshape(out.shape)
        (out * weights).sum().backward()
        w.add(name + "/out", out)
        w.add(name + "/grad", x.grad)
    w.write()


if __name__ == "__main__":
    main()
