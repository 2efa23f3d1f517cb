"""Golden values for nn/functional/*_test.cc (the nn ops of tensor/nn_ops.h
through ember::nn::functional).

Run with Debian's PyTorch: /usr/bin/python3 tools/golden/nn_ops.py
Writes tensor/testdata/nn_ops_golden.inc and nn_ops_errors_golden.inc (read by
the kernels' tests in tensor/ and the functional tests in nn/functional/).

Each case "<case>/<f32|f64>" stores its inputs (in0, in1...: contiguous,
random, so that max pooling has no ties), the output ("out"), and the
gradient of sum(out * mk(out.shape, seed=7)) for each floating input
("grad0"...). A case's function applies the same views (transposes) in the
C++ test as here.
"""

import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_util import ErrorWriter, GoldenWriter, grad_case, mk  # noqa: E402

w = GoldenWriter("nn_ops", package="tensor")
errors = ErrorWriter("nn_ops", package="tensor")
err = errors.err
gen = torch.Generator().manual_seed(1234)


def rnd(*shape):
    return torch.randn(*shape, generator=gen, dtype=torch.float64)


def idx(high, *shape):
    return torch.randint(0, high, shape, generator=gen, dtype=torch.int64)


def case(name, fn, inputs, grads=(0,), outputs=1):
    """inputs: float64 or integer tensors; grads: which inputs get gradients."""
    grad_case(w, name, fn, inputs, grads, outputs)


# --- convolution ----------------------------------------------------------------
case("conv2d_basic", lambda x, k, b: F.conv2d(x, k, b), [rnd(2, 3, 7, 6), rnd(4, 3, 3, 3), rnd(4)],
     grads=(0, 1, 2))
case("conv2d_stride_pad", lambda x, k, b: F.conv2d(x, k, b, stride=2, padding=1),
     [rnd(2, 3, 7, 6), rnd(4, 3, 3, 3), rnd(4)], grads=(0, 1, 2))
case("conv2d_dilation", lambda x, k: F.conv2d(x, k, stride=(1, 2), padding=(1, 2), dilation=2),
     [rnd(2, 2, 8, 9), rnd(3, 2, 3, 2)], grads=(0, 1))
case("conv2d_groups", lambda x, k, b: F.conv2d(x, k, b, groups=2),
     [rnd(2, 4, 6, 5), rnd(6, 2, 3, 3), rnd(6)], grads=(0, 1, 2))
case("conv2d_same", lambda x, k: F.conv2d(x, k, padding="same"),
     [rnd(2, 2, 6, 5), rnd(3, 2, 4, 3)], grads=(0, 1))
case("conv2d_valid", lambda x, k: F.conv2d(x, k, padding="valid"),
     [rnd(1, 2, 5, 5), rnd(3, 2, 2, 2)], grads=(0, 1))
case("conv2d_noncontig", lambda x, k: F.conv2d(x.transpose(2, 3), k.transpose(2, 3), padding=1),
     [rnd(2, 3, 5, 6), rnd(4, 3, 3, 2)], grads=(0, 1))
case("conv2d_unbatched", lambda x, k, b: F.conv2d(x, k, b),
     [rnd(3, 5, 5), rnd(2, 3, 2, 2), rnd(2)], grads=(0, 1, 2))
case("conv1d_basic", lambda x, k, b: F.conv1d(x, k, b, stride=2, padding=1),
     [rnd(2, 3, 9), rnd(4, 3, 3), rnd(4)], grads=(0, 1, 2))
case("conv1d_groups_dilation", lambda x, k: F.conv1d(x, k, groups=3, dilation=2),
     [rnd(2, 3, 8), rnd(3, 1, 2)], grads=(0, 1))

err("conv2d_dims", lambda: F.conv2d(torch.zeros(2, 3), torch.zeros(1, 1, 1, 1)))
err("conv2d_channels", lambda: F.conv2d(torch.zeros(1, 5, 8, 8), torch.zeros(4, 3, 3, 3)))
err("conv2d_groups", lambda: F.conv2d(torch.zeros(1, 4, 8, 8), torch.zeros(3, 2, 3, 3), groups=2))
err("conv2d_kernel", lambda: F.conv2d(torch.zeros(1, 3, 2, 2), torch.zeros(4, 3, 3, 3)))
err("conv2d_same_strided",
    lambda: F.conv2d(torch.zeros(1, 3, 5, 5), torch.zeros(4, 3, 3, 3), stride=2, padding="same"))
err("conv2d_bias", lambda: F.conv2d(torch.zeros(1, 3, 5, 5), torch.zeros(4, 3, 3, 3), torch.zeros(3)))
err("conv1d_dims", lambda: F.conv1d(torch.zeros(2, 3, 4, 5), torch.zeros(1, 3, 1)))

# --- pooling ----------------------------------------------------------------------
case("max_pool2d_k2", lambda x: F.max_pool2d(x, 2, return_indices=True), [rnd(2, 3, 6, 5)],
     outputs=2)
case("max_pool2d_s2p1", lambda x: F.max_pool2d(x, 3, stride=2, padding=1), [rnd(2, 2, 7, 6)])
case("max_pool2d_ceil_dil", lambda x: F.max_pool2d(x, (3, 2), stride=(2, 1), dilation=(1, 2),
                                                   ceil_mode=True), [rnd(1, 2, 8, 7)])
case("max_pool2d_unbatched_nc", lambda x: F.max_pool2d(x.transpose(1, 2), 2), [rnd(3, 5, 6)])
case("avg_pool2d_k2", lambda x: F.avg_pool2d(x, 2), [rnd(2, 3, 6, 5)])
case("avg_pool2d_pad_exclude", lambda x: F.avg_pool2d(x, 3, stride=2, padding=1,
                                                      count_include_pad=False), [rnd(2, 2, 7, 6)])
case("avg_pool2d_ceil", lambda x: F.avg_pool2d(x, (3, 2), stride=2, padding=1, ceil_mode=True),
     [rnd(1, 2, 6, 7)])
case("avg_pool2d_divisor", lambda x: F.avg_pool2d(x.transpose(2, 3), 2, divisor_override=3),
     [rnd(2, 2, 5, 6)])
case("adaptive_avg_pool2d_3x2", lambda x: F.adaptive_avg_pool2d(x, (3, 2)), [rnd(2, 3, 7, 5)])
case("adaptive_avg_pool2d_1", lambda x: F.adaptive_avg_pool2d(x, 1), [rnd(3, 4, 6)])

err("max_pool2d_dims", lambda: F.max_pool2d(torch.zeros(2, 3), 2))
err("max_pool2d_pad", lambda: F.max_pool2d(torch.zeros(1, 1, 5, 5), 3, padding=2))
err("max_pool2d_small", lambda: F.max_pool2d(torch.zeros(1, 1, 2, 2), 3))
err("max_pool2d_dilation", lambda: F.max_pool2d(torch.zeros(1, 1, 5, 5), 2, dilation=0))
err("avg_pool2d_divisor", lambda: F.avg_pool2d(torch.zeros(1, 1, 5, 5), 2, divisor_override=0))
err("adaptive_avg_pool2d_dims", lambda: F.adaptive_avg_pool2d(torch.zeros(2, 3), 2))

# --- activations --------------------------------------------------------------------
case("relu", lambda x: F.relu(x.t()), [rnd(4, 3)])
case("leaky_relu", lambda x: F.leaky_relu(x, 0.2), [rnd(3, 4)])
case("gelu", lambda x: F.gelu(x.t()), [rnd(4, 5)])
case("gelu_tanh", lambda x: F.gelu(x, approximate="tanh"), [rnd(3, 5)])
case("sigmoid", lambda x: torch.sigmoid(x), [rnd(3, 4)])
case("tanh", lambda x: torch.tanh(x), [rnd(3, 4)])
case("softmax", lambda x: F.softmax(x, 1), [rnd(3, 4, 2)])
case("log_softmax", lambda x: F.log_softmax(x.transpose(0, 1), -1), [rnd(3, 4)])
case("linear", lambda x, k, b: F.linear(x, k, b), [rnd(2, 3, 4), rnd(5, 4), rnd(5)],
     grads=(0, 1, 2))
case("linear_2d_nobias", lambda x, k: F.linear(x, k), [rnd(3, 4), rnd(2, 4)], grads=(0, 1))

err("gelu_approximate", lambda: F.gelu(torch.zeros(2), approximate="foo"))
err("dropout_p", lambda: F.dropout(torch.zeros(2), p=1.5))

# dropout draws bernoulli_(1 - p) from the default generator.
torch.manual_seed(0)
w.add("dropout/out", F.dropout(mk([4, 5], torch.float32), p=0.3))

# --- normalization --------------------------------------------------------------------


def bn_train(x, k, b, rm, rv):
    out = F.batch_norm(x, rm, rv, k, b, training=True, momentum=0.2, eps=1e-3)
    return out, rm, rv


case("batch_norm_train", bn_train, [rnd(4, 3, 2, 3), rnd(3), rnd(3), rnd(3), rnd(3).abs()],
     grads=(0, 1, 2), outputs=3)
case("batch_norm_train_1d", lambda x: F.batch_norm(x, None, None, training=True), [rnd(5, 3)])
case("batch_norm_eval", lambda x, k, b, rm, rv: F.batch_norm(x.transpose(2, 3), rm, rv, k, b),
     [rnd(2, 3, 3, 4), rnd(3), rnd(3), rnd(3), rnd(3).abs()], grads=(0, 1, 2))
case("layer_norm", lambda x, k, b: F.layer_norm(x, [4, 5], k, b),
     [rnd(2, 3, 4, 5), rnd(4, 5), rnd(4, 5)], grads=(0, 1, 2))
case("layer_norm_plain", lambda x: F.layer_norm(x.t(), [3], eps=1e-2), [rnd(3, 4)])

err("batch_norm_running", lambda: F.batch_norm(torch.zeros(2, 3), torch.zeros(4), torch.zeros(3)))
err("batch_norm_one_value",
    lambda: F.batch_norm(torch.zeros(1, 3), torch.zeros(3), torch.zeros(3), training=True))
err("layer_norm_shape", lambda: F.layer_norm(torch.zeros(2, 3, 4), [5]))

# --- embedding ------------------------------------------------------------------------
case("embedding", lambda k, i: F.embedding(i, k), [rnd(10, 3), torch.tensor([[1, 2, 4], [4, 3, 9]])])
case("embedding_padding", lambda k, i: F.embedding(i, k, padding_idx=-6),
     [rnd(10, 3), torch.tensor([[1, 2, 4], [4, 3, 9]])])
err("embedding_range", lambda: F.embedding(torch.tensor([0, 5]), torch.zeros(5, 2)))

# --- losses ---------------------------------------------------------------------------
for r in ("none", "mean", "sum"):
    case("mse_loss_" + r, lambda x, t: F.mse_loss(x, t, reduction=r), [rnd(3, 4), rnd(3, 4)],
         grads=(0, 1))
    case("l1_loss_" + r, lambda x, t: F.l1_loss(x.t(), t, reduction=r), [rnd(4, 3), rnd(3, 4)],
         grads=(0, 1))
    case("smooth_l1_loss_" + r, lambda x, t: F.smooth_l1_loss(x, t, reduction=r, beta=0.5),
         [rnd(3, 4), rnd(3, 4)], grads=(0, 1))
    case("nll_loss_" + r, lambda x, t, k: F.nll_loss(x, t, k, ignore_index=1, reduction=r),
         [rnd(5, 4), torch.tensor([0, 1, 3, 2, 3]), rnd(4).abs()])
    case("nll_loss_2d_" + r, lambda x, t: F.nll_loss(x, t, reduction=r),
         [rnd(2, 3, 2, 4), idx(3, 2, 2, 4)])
    case("cross_entropy_" + r, lambda x, t: F.cross_entropy(x, t, reduction=r),
         [rnd(5, 4), torch.tensor([0, 1, 3, 2, 3])])
    case("cross_entropy_smooth_" + r,
         lambda x, t, k: F.cross_entropy(x, t, k, ignore_index=2, label_smoothing=0.1, reduction=r),
         [rnd(5, 4), torch.tensor([0, 1, 3, 2, 3]), rnd(4).abs()])
    case("cross_entropy_nd_" + r, lambda x, t: F.cross_entropy(x, t, reduction=r, label_smoothing=0.2),
         [rnd(2, 3, 4), idx(3, 2, 4)])
    case("cross_entropy_probs_" + r,
         lambda x, t: F.cross_entropy(x, t, reduction=r, label_smoothing=0.1),
         [rnd(3, 4), torch.rand(3, 4, generator=gen, dtype=torch.float64)])
    case("bce_" + r, lambda x, t, k: F.binary_cross_entropy(x, t, k, reduction=r),
         [torch.rand(3, 4, generator=gen, dtype=torch.float64) * 0.9 + 0.05,
          torch.rand(3, 4, generator=gen, dtype=torch.float64), rnd(4).abs()], grads=(0, 1))
    case("bce_logits_" + r,
         lambda x, t, k, p: F.binary_cross_entropy_with_logits(x, t, k, reduction=r, pos_weight=p),
         [rnd(3, 4), torch.rand(3, 4, generator=gen, dtype=torch.float64), rnd(3, 1).abs(),
          rnd(4).abs()], grads=(0, 1))
case("bce_logits_plain", lambda x, t: F.binary_cross_entropy_with_logits(x, t),
     [rnd(3, 4) * 3, torch.rand(3, 4, generator=gen, dtype=torch.float64)], grads=(0, 1))
case("nll_loss_1d", lambda x, t: F.nll_loss(x, t), [rnd(4), torch.tensor(2)])

err("nll_loss_batch", lambda: F.nll_loss(torch.zeros(3, 4), torch.tensor([0, 1])))
err("nll_loss_target", lambda: F.nll_loss(torch.zeros(2, 4), torch.tensor([0, 5])))
err("nll_loss_weight", lambda: F.nll_loss(torch.zeros(2, 4), torch.tensor([0, 1]),
                                          weight=torch.zeros(3)))
err("nll_loss_nd_target", lambda: F.nll_loss(torch.zeros(2, 4, 3), torch.tensor([0, 1])))
err("cross_entropy_target", lambda: F.cross_entropy(torch.zeros(2, 4), torch.tensor([0, 5])))
err("bce_size", lambda: F.binary_cross_entropy(torch.zeros(2, 3), torch.zeros(3)))
err("bce_range", lambda: F.binary_cross_entropy(torch.zeros(2, 3) + 2, torch.zeros(2, 3)))
err("bce_logits_size", lambda: F.binary_cross_entropy_with_logits(torch.zeros(2, 3), torch.zeros(3)))

# --- F.pad --------------------------------------------------------------------
case("pad_constant", lambda x: F.pad(x, (1, 2, 0, 1), value=1.5), [rnd(2, 3, 4)])
case("pad_constant_negative", lambda x: F.pad(x, (-1, 2, 1, -2)), [rnd(2, 3, 4)])
case("pad_constant_3dims", lambda x: F.pad(x.transpose(0, 2), (1, 0, 0, 1, 2, 1)), [rnd(3, 2, 2)])
case("pad_reflect_1d", lambda x: F.pad(x, (2, 3), mode="reflect"), [rnd(2, 3, 5)])
case("pad_reflect_2d", lambda x: F.pad(x, (1, 2, 2, 1), mode="reflect"), [rnd(2, 2, 4, 5)])
case("pad_reflect_2d_unbatched", lambda x: F.pad(x.transpose(1, 2), (-1, 1, 1, 1), mode="reflect"),
     [rnd(2, 5, 4)])
case("pad_reflect_3d", lambda x: F.pad(x, (1, 1, 1, 0, 0, 2), mode="reflect"), [rnd(1, 2, 3, 3, 4)])
case("pad_replicate_1d", lambda x: F.pad(x, (3, 1), mode="replicate"), [rnd(3, 2)])
case("pad_replicate_2d", lambda x: F.pad(x, (2, 0, 1, 3), mode="replicate"), [rnd(2, 2, 3, 4)])
case("pad_replicate_3d", lambda x: F.pad(x, (1, 2, 0, 1, 1, 1), mode="replicate"),
     [rnd(2, 2, 3, 2)])
case("pad_circular_1d", lambda x: F.pad(x, (2, 3), mode="circular"), [rnd(2, 3, 3)])
case("pad_circular_2d", lambda x: F.pad(x, (1, 2, -1, 2), mode="circular"), [rnd(1, 2, 4, 3)])
case("pad_circular_3d", lambda x: F.pad(x, (0, 1, 2, 1, 1, 0), mode="circular"),
     [rnd(1, 2, 2, 2, 3)])

x3 = torch.arange(6.).view(1, 2, 3)
err("pad_odd", lambda: F.pad(x3, (1,)))
err("pad_too_long", lambda: F.pad(x3, (1, 1, 1, 1, 1, 1, 1, 1)))
err("pad_reflect_too_big", lambda: F.pad(x3, (3, 3), mode="reflect"))
err("pad_reflect_value", lambda: F.pad(x3, (1, 1), mode="reflect", value=1))
err("pad_replicate_dims", lambda: F.pad(x3, (1, 1, 1, 1, 1, 1), mode="replicate"))
err("pad_replicate_1d_input", lambda: F.pad(torch.zeros(3), (1, 1), mode="replicate"))
err("pad_circular_wrap", lambda: F.pad(x3, (4, 4), mode="circular"))
err("pad_circular_unbatched", lambda: F.pad(torch.zeros(2, 3, 4), (1, 1, 1, 1), mode="circular"))
err("pad_replicate_empty", lambda: F.pad(torch.zeros(2, 0, 3), (1, 1), mode="replicate"))

errors.write()
w.write()
