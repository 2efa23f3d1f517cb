#!/usr/bin/python3
"""Layers PyTorch 1.13 has and ember lacked (issue 19's "rest of torch.nn"):
softmin / Softmax2d, channel_shuffle, lp_pool1d/2d, local_response_norm and
bilinear (and nn.Bilinear's initialization), max_unpool1d/2d/3d, rrelu,
for nn/functional/layers_misc_test.cc: inputs, outputs and input gradients
in float32 and float64 (op_case). Run with Debian's PyTorch:
/usr/bin/python3 tools/golden/layers_misc.py"""
import torch
import torch.nn as nn
import torch.nn.functional as F

from golden_util import GoldenWriter, mk


def main():
    w = GoldenWriter("layers_misc", "nn/functional")
    x4 = mk([2, 6, 3, 4], torch.float64) * 0.25 - 1.0
    x3 = mk([2, 4, 7], torch.float64) * 0.25 - 1.0
    pos4 = mk([2, 3, 5, 6], torch.float64) * 0.2 + 0.1
    w.op_case("softmin_dim1", lambda x: F.softmin(x, dim=1), [x4])
    w.op_case("softmax2d", lambda x: nn.Softmax2d()(x), [x4])
    w.op_case("softmax2d_3d", lambda x: nn.Softmax2d()(x), [x4[0]])
    # 1.13 has no derivative for channel_shuffle (2.x added one): forward only.
    w.op_case("channel_shuffle_3", lambda x: F.channel_shuffle(x, 3), [x4], grads=())
    w.op_case("channel_shuffle_2_3d", lambda x: F.channel_shuffle(x, 2), [x3], grads=())
    w.op_case("lp_pool2d_p2", lambda x: F.lp_pool2d(x, 2.0, 2), [pos4])
    w.op_case("lp_pool2d_p3_stride1_ceil",
              lambda x: F.lp_pool2d(x, 3.0, (2, 3), stride=1, ceil_mode=True), [pos4])
    w.op_case("lp_pool2d_p1_signed", lambda x: F.lp_pool2d(x, 1.0, 2), [x4])
    w.op_case("lp_pool1d_p2", lambda x: F.lp_pool1d(x, 2.0, 3, stride=2), [x3.abs() + 0.1])
    w.op_case("local_response_norm_4d", lambda x: F.local_response_norm(x, 3), [x4])
    w.op_case("local_response_norm_3d",
              lambda x: F.local_response_norm(x, 2, alpha=0.01, beta=0.5, k=2.0), [x3])
    w.op_case("local_response_norm_5d",
              lambda x: F.local_response_norm(x, 4), [x4.reshape(2, 6, 3, 2, 2)])
    x1 = mk([2, 3, 4], torch.float64) * 0.2 - 0.5
    x2 = mk([2, 3, 5], torch.float64, 4) * 0.15 - 0.4
    wt = mk([2, 4, 5], torch.float64, 9) * 0.1 - 0.3
    b = torch.tensor([0.25, -0.5], dtype=torch.float64)
    w.op_case("bilinear", F.bilinear, [x1, x2, wt, b], grads=(0, 1, 2, 3))
    w.op_case("bilinear_no_bias", lambda a, c, d: F.bilinear(a, c, d), [x1[0], x2[0], wt],
              grads=(0, 1, 2))
    # max_unpool of max_pool's output and indices.
    v2, i2 = F.max_pool2d(x4, 2, return_indices=True)
    w.op_case("max_unpool2d", lambda v, i: F.max_unpool2d(v, i, 2), [v2, i2])
    w.op_case("max_unpool2d_output_size",
              lambda v, i: F.max_unpool2d(v, i, 2, output_size=[2, 6, 3, 5]), [v2, i2])
    v1, i1 = F.max_pool1d(x3, 3, stride=2, padding=1, return_indices=True)
    w.op_case("max_unpool1d", lambda v, i: F.max_unpool1d(v, i, 3, stride=2, padding=1), [v1, i1])
    x5 = mk([1, 2, 4, 4, 4], torch.float64) * 0.1 - 0.3
    v3, i3 = F.max_pool3d(x5, 2, return_indices=True)
    w.op_case("max_unpool3d", lambda v, i: F.max_unpool3d(v, i, 2), [v3, i3])
    w.op_case("max_unpool2d_unbatched", lambda v, i: F.max_unpool2d(v, i, 2), [v2[0], i2[0]])
    # rrelu while training: slopes drawn under manual_seed(0) (per dtype).
    for name, dt in (("f32", torch.float32), ("f64", torch.float64)):
        xr = (mk([3, 7], dt) * 0.3 - 1.2).requires_grad_()
        torch.manual_seed(0)
        out = F.rrelu(xr, 0.1, 0.4, training=True)
        (out * mk([3, 7], dt, 7)).sum().backward()
        w.add("rrelu_train/%s/out" % name, out)
        w.add("rrelu_train/%s/grad" % name, xr.grad)
    w.op_case("rrelu_eval", lambda x: F.rrelu(x, 0.1, 0.4, training=False), [x4])
    # nn.Bilinear's initialization under manual_seed(0).
    torch.manual_seed(0)
    m = torch.nn.Bilinear(3, 4, 2)
    w.add("bilinear_init/weight", m.weight)
    w.add("bilinear_init/bias", m.bias)
    w.write()


if __name__ == "__main__":
    main()
