"""Golden values for the nn ops added after nn_ops.py: transposed
convolution, group and instance norm, and the activations beyond
relu/leaky_relu/gelu (nn/functional/{conv,normalization,activation}_test.cc).

Run with Debian's PyTorch: /usr/bin/python3 tools/golden/nn_ops_more.py
Writes nn/functional/testdata/nn_ops_more_golden.inc and
nn_ops_more_errors_golden.inc, in nn_ops.py's format: each case
"<case>/<f32|f64>" stores its inputs (in0, in1...), the output ("out") and
the gradient of sum(out * mk(out.shape, seed=7)) for each input in grads
("grad0"...); the C++ test applies the same views.
"""

import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_util import ErrorWriter, GoldenWriter, grad_case, mk  # noqa: E402

torch.set_num_threads(1)
w = GoldenWriter("nn_ops_more", package="nn/functional")
errors = ErrorWriter("nn_ops_more", package="nn/functional")
err = errors.err
gen = torch.Generator().manual_seed(4321)


def rnd(*shape):
    return torch.randn(*shape, generator=gen, dtype=torch.float64)


def case(name, fn, inputs, grads=(0,), outputs=1):
    """inputs: float64 or integer tensors; grads: which inputs get gradients."""
    grad_case(w, name, fn, inputs, grads, outputs)


# --- transposed convolution ----------------------------------------------------------
case("conv_transpose2d_basic", lambda x, k, b: F.conv_transpose2d(x, k, b),
     [rnd(2, 4, 3, 4), rnd(4, 3, 3, 2), rnd(3)], grads=(0, 1, 2))
case("conv_transpose2d_stride_pad_outpad",
     lambda x, k, b: F.conv_transpose2d(x, k, b, stride=2, padding=1, output_padding=1),
     [rnd(2, 2, 4, 3), rnd(2, 3, 3, 3), rnd(3)], grads=(0, 1, 2))
case("conv_transpose2d_groups_dilation",
     lambda x, k: F.conv_transpose2d(x, k, stride=(1, 2), padding=(1, 0), groups=2,
                                     dilation=(2, 1)),
     [rnd(2, 4, 3, 3), rnd(4, 2, 2, 3)], grads=(0, 1))
# output_padding >= stride, allowed below the dilation.
case("conv_transpose2d_outpad_dilation",
     lambda x, k, b: F.conv_transpose2d(x, k, b, stride=(1, 2), output_padding=(2, 1),
                                        dilation=(3, 1)),
     [rnd(1, 2, 3, 3), rnd(2, 2, 2, 2), rnd(2)], grads=(0, 1, 2))
case("conv_transpose2d_noncontig",
     lambda x, k: F.conv_transpose2d(x.transpose(2, 3), k.transpose(2, 3), stride=2),
     [rnd(2, 3, 4, 3), rnd(3, 2, 3, 2)], grads=(0, 1))
case("conv_transpose2d_unbatched", lambda x, k, b: F.conv_transpose2d(x, k, b, stride=2),
     [rnd(2, 3, 3), rnd(2, 3, 2, 2), rnd(3)], grads=(0, 1, 2))
case("conv_transpose1d_basic",
     lambda x, k, b: F.conv_transpose1d(x, k, b, stride=2, padding=1, output_padding=1),
     [rnd(2, 3, 5), rnd(3, 2, 3), rnd(2)], grads=(0, 1, 2))
case("conv_transpose1d_groups_dilation",
     lambda x, k: F.conv_transpose1d(x, k, groups=3, dilation=2, output_padding=1),
     [rnd(2, 3, 4), rnd(3, 2, 3)], grads=(0, 1))

r = torch.zeros
err("conv_transpose2d_dims", lambda: F.conv_transpose2d(r(2, 3), r(2, 3, 3, 3)))
err("conv_transpose1d_dims", lambda: F.conv_transpose1d(r(1, 2, 3, 3), r(2, 3, 3)))
err("conv_transpose2d_channels", lambda: F.conv_transpose2d(r(1, 4, 3, 3), r(2, 3, 3, 3)))
err("conv_transpose1d_channels", lambda: F.conv_transpose1d(r(1, 4, 3), r(2, 3, 3)))
err("conv_transpose2d_groups",
    lambda: F.conv_transpose2d(r(1, 3, 3, 3), r(3, 2, 3, 3), groups=2))
err("conv_transpose2d_bias", lambda: F.conv_transpose2d(r(1, 2, 3, 3), r(2, 3, 3, 3), r(2)))
err("conv_transpose2d_output_padding",
    lambda: F.conv_transpose2d(r(1, 2, 3, 3), r(2, 3, 3, 3), stride=2, output_padding=2))
err("conv_transpose1d_output_padding",
    lambda: F.conv_transpose1d(r(1, 2, 3), r(2, 3, 3), stride=2, output_padding=2))
err("conv_transpose2d_small",
    lambda: F.conv_transpose2d(r(1, 2, 1, 1), r(2, 3, 1, 1), padding=2))
err("conv_transpose1d_small", lambda: F.conv_transpose1d(r(1, 2, 1), r(2, 3, 1), padding=2))
err("conv_transpose2d_stride", lambda: F.conv_transpose2d(r(1, 2, 3, 3), r(2, 3, 3, 3), stride=0))
err("conv_transpose2d_padding",
    lambda: F.conv_transpose2d(r(1, 2, 3, 3), r(2, 3, 3, 3), padding=-1))
err("conv_transpose2d_negative_output_padding",
    lambda: F.conv_transpose2d(r(1, 2, 3, 3), r(2, 3, 3, 3), output_padding=-1))
err("conv_transpose2d_dilation",
    lambda: F.conv_transpose2d(r(1, 2, 3, 3), r(2, 3, 3, 3), dilation=0))
err("conv_transpose2d_nonpositive_groups",
    lambda: F.conv_transpose2d(r(1, 2, 3, 3), r(2, 3, 3, 3), groups=0))
err("conv_transpose2d_dtype",
    lambda: F.conv_transpose2d(r(1, 2, 3, 3), r(2, 3, 3, 3, dtype=torch.float64)))

# --- group and instance norm ----------------------------------------------------------
case("group_norm", lambda x, k, b: F.group_norm(x, 3, k, b, eps=1e-3),
     [rnd(2, 6, 3, 2), rnd(6), rnd(6)], grads=(0, 1, 2))
case("group_norm_noncontig", lambda x: F.group_norm(x.transpose(2, 3), 2), [rnd(3, 4, 2, 5)])
case("group_norm_2d", lambda x, k: F.group_norm(x, 2, weight=k), [rnd(4, 6), rnd(6)],
     grads=(0, 1))
case("instance_norm", lambda x, k, b: F.instance_norm(x, weight=k, bias=b),
     [rnd(2, 3, 5), rnd(3), rnd(3)], grads=(0, 1, 2))


def in_train(x, rm, rv):
    out = F.instance_norm(x.transpose(2, 3), rm, rv, momentum=0.2, eps=1e-3)
    return out, rm, rv


case("instance_norm_running", in_train, [rnd(2, 3, 4, 3), rnd(3), rnd(3).abs()], outputs=3)
case("instance_norm_eval",
     lambda x, rm, rv: F.instance_norm(x, rm, rv, use_input_stats=False),
     [rnd(2, 3, 4), rnd(3), rnd(3).abs()])

err("group_norm_divisible", lambda: F.group_norm(r(2, 5, 3), 2))
err("group_norm_weight", lambda: F.group_norm(r(2, 4, 3), 2, r(3)))
err("group_norm_one_value", lambda: F.group_norm(r(1, 2), 2))
err("instance_norm_spatial", lambda: F.instance_norm(r(2, 5, 1)))
err("instance_norm_running_size", lambda: F.instance_norm(r(2, 3, 4), r(4), r(4)))
err("instance_norm_weight_size", lambda: F.instance_norm(r(2, 3, 4), weight=r(4)))
err("instance_norm_no_stats",
    lambda: F.instance_norm(r(2, 3, 4), use_input_stats=False))

# --- activations ------------------------------------------------------------------------
case("elu", lambda x: F.elu(x.t(), alpha=0.7), [rnd(4, 3) * 2])
case("selu", lambda x: F.selu(x), [rnd(3, 4) * 2])
case("celu", lambda x: F.celu(x.t(), alpha=1.5), [rnd(4, 3) * 2])
case("silu", lambda x: F.silu(x.t()), [rnd(4, 3) * 3])
case("mish", lambda x: F.mish(x), [rnd(3, 4) * 3])
case("softplus", lambda x: F.softplus(x.t()), [rnd(4, 3) * 3])
case("softplus_beta_threshold", lambda x: F.softplus(x, beta=2, threshold=5), [rnd(3, 4) * 4])
case("softsign", lambda x: F.softsign(x.t()), [rnd(4, 3) * 2])
case("hardtanh", lambda x: F.hardtanh(x.t(), -0.5, 1.2), [rnd(4, 3)])
case("relu6", lambda x: F.relu6(x), [rnd(3, 4) * 4])
case("hardsigmoid", lambda x: F.hardsigmoid(x.t()), [rnd(4, 3) * 4])
case("hardswish", lambda x: F.hardswish(x), [rnd(3, 4) * 4])
case("prelu", lambda x, k: F.prelu(x.transpose(1, 2), k), [rnd(2, 4, 3), rnd(3)], grads=(0, 1))
case("prelu_one", lambda x, k: F.prelu(x.t(), k), [rnd(4, 3), rnd(1)], grads=(0, 1))
case("prelu_1d", lambda x, k: F.prelu(x, k), [rnd(5), rnd(1)], grads=(0, 1))
case("logsigmoid", lambda x: F.logsigmoid(x.t()), [rnd(4, 3) * 3])
case("tanhshrink", lambda x: F.tanhshrink(x), [rnd(3, 4) * 2])
case("softshrink", lambda x: F.softshrink(x.t(), 0.7), [rnd(4, 3)])
case("hardshrink", lambda x: F.hardshrink(x, 0.4), [rnd(3, 4)])
case("threshold", lambda x: F.threshold(x.t(), 0.3, -2.0), [rnd(4, 3)])

# Edge values: the kinks of each piecewise activation (where PyTorch's
# gradient conventions show), and inputs far out where a naive formula
# overflows or cancels.
edges = torch.tensor([-1000.0, -100.0, -30.0, -20.5, -6.0, -3.0, -1.0, -1e-8, 0.0, 1e-8, 1.0,
                      3.0, 6.0, 10.0, 19.9, 20.0, 20.5, 30.0, 100.0, 1000.0], dtype=torch.float64)


def per_element(fn):
    """fn applied to each element alone. PyTorch 1.13's hardswish backward
    disagrees with itself at x = 3: its scalar loop (tensors shorter than a
    vector, and the tails) gives 1.5 (x <= 3 takes the x / 3 + 1/2 branch, as
    derivatives.yaml and PyTorch 2.x everywhere), its vectorized loop 1.0.
    One element at a time takes the scalar loop, the rule ember follows."""
    return lambda x: torch.cat([fn(x[i:i + 1]) for i in range(x.numel())])


EDGE_FNS = {
    "elu": F.elu, "selu": F.selu, "celu": lambda x: F.celu(x, 0.5), "silu": F.silu,
    "mish": F.mish, "softplus": F.softplus,
    "softplus_beta": lambda x: F.softplus(x, beta=0.5, threshold=10),
    "softsign": F.softsign, "hardtanh": F.hardtanh, "relu6": F.relu6,
    "hardsigmoid": F.hardsigmoid, "hardswish": per_element(F.hardswish),
    "logsigmoid": F.logsigmoid,
    "tanhshrink": F.tanhshrink, "softshrink": lambda x: F.softshrink(x, 1.0),
    "hardshrink": lambda x: F.hardshrink(x, 1.0), "threshold": lambda x: F.threshold(x, 1.0, -7.0),
    "relu": F.relu, "leaky_relu": lambda x: F.leaky_relu(x, 0.1),
}
for name, fn in EDGE_FNS.items():
    case("edge_" + name, fn, [edges])

err("celu_alpha", lambda: F.celu(r(3), 0.0))
err("softshrink_lambda", lambda: F.softshrink(r(3), -0.5))
err("prelu_zero_dim", lambda: F.prelu(r(()), r(3)))
err("prelu_channels", lambda: F.prelu(r(2, 4), r(3)))
err("prelu_1d_channels", lambda: F.prelu(r(3), r(3)))

errors.write()
w.write()
