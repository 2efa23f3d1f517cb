#!/usr/bin/python3
"""Golden values for tensor/quantize_test.cc (run with Debian's /usr/bin/python3).

Writes tensor/testdata/quantize_golden.inc: for each case the input, the
int_repr and the dequantized values PyTorch gives.
"""

import torch

from golden_util import GoldenWriter

w = GoldenWriter("quantize")


def case(name, x, scale, zero_point, dtype):
    q = torch.quantize_per_tensor(x, scale, zero_point, dtype)
    w.add(name + "/input", x)
    w.add(name + "/int_repr", q.int_repr())
    w.add(name + "/dequantize", q.dequantize())


# The seed example.
case("seed", torch.tensor([-1.0, 0.0, 1.0, 2.0]), 0.1, 10, torch.quint8)
# Ties round half to even; values beyond the range clamp.
case("ties_qint8", torch.tensor([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 300.0, -300.0]), 1.0, 0,
     torch.qint8)
case("clamp_quint8", torch.tensor([-5.0, 0.0, 12.7, 100.0]), 0.05, 3, torch.quint8)
# An odd scale over many values: 200 elements take PyTorch's vectorized
# dequantize for the first 192 and the scalar one for the tail.
g = torch.Generator().manual_seed(0)
x = torch.randn(200, generator=g) * 3
case("randn_qint8", x, 0.0371, -7, torch.qint8)
case("randn_quint8", x, 0.0523, 131, torch.quint8)
# A non-contiguous (transposed) input; the result is contiguous.
m = torch.arange(12, dtype=torch.float32).reshape(3, 4) * 0.37 - 2
case("transposed", m.t(), 0.11, 20, torch.quint8)
w.write()
