#!/usr/bin/python3
"""The last torch.nn layers ember lacked (issue 19's "rest of torch.nn"):
InstanceNorm3d, adaptive_max_pool3d, AdaptiveLogSoftmaxWithLoss,
fractional_max_pool2d/3d and CrossMapLRN2d, for nn/functional/nn_rest_test.cc:
inputs, outputs and gradients in float32 and float64 (op_case), what is
drawn under manual_seed, printed forms and PyTorch's errors. Run with
Debian's PyTorch: /usr/bin/python3 tools/golden/nn_rest.py"""
import torch
import torch.nn as nn
import torch.nn.functional as F

from golden_util import ErrorWriter, GoldenWriter, StringWriter, mk


def instance_norm3d(w):
    x5 = mk([2, 3, 2, 3, 4], torch.float64) * 0.3 - 0.4
    wt = torch.tensor([0.5, -1.25, 2.0], dtype=torch.float64)
    b = torch.tensor([0.25, 0.0, -0.75], dtype=torch.float64)
    w.op_case("instance_norm3d_affine", lambda x, g, c: F.instance_norm(x, weight=g, bias=c),
              [x5, wt, b], grads=(0, 1, 2))
    w.op_case("instance_norm3d_unbatched", lambda x: nn.InstanceNorm3d(3)(x), [x5[1]])
    # Tracked statistics: two training steps, then eval (float32).
    m = nn.InstanceNorm3d(3, momentum=0.3, track_running_stats=True)
    x = x5.float()
    w.add("in3d/train1", m(x))
    w.add("in3d/train2", m(x * 2 + 1))
    w.add("in3d/running_mean", m.running_mean)
    w.add("in3d/running_var", m.running_var)
    m.eval()
    w.add("in3d/eval", m(x))


def adaptive_max_pool3d(w):
    x = mk([2, 3, 5, 6, 7], torch.float64) * 0.5 - 0.25  # with ties
    w.op_case("adaptive_max_pool3d", lambda t: F.adaptive_max_pool3d(t, (2, 4, 3), True), [x],
              outputs=2)
    w.op_case("adaptive_max_pool3d_unbatched", lambda t: F.adaptive_max_pool3d(t, 3, True),
              [x[1]], outputs=2)
    w.op_case("adaptive_max_pool3d_grow", lambda t: F.adaptive_max_pool3d(t, (7, 2, 9), True),
              [x[:1, :2]], outputs=2)


def asm(w, s):
    torch.manual_seed(0)
    m = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0)
    torch.manual_seed(1)
    mb = nn.AdaptiveLogSoftmaxWithLoss(16, 20, [4, 9, 15], head_bias=True)
    s.add("asm.params", "\n".join("%s %s" % (n, list(p.shape)) for n, p in m.named_parameters()))
    s.add("asm.params_bias",
          "\n".join("%s %s" % (n, list(p.shape)) for n, p in mb.named_parameters()))
    s.add("asm.repr", repr(mb))
    for n, p in m.named_parameters():
        w.add("asm/init/" + n, p)
    for n, p in mb.named_parameters():
        w.add("asm_bias/init/" + n, p)
    target = torch.tensor([0, 5, 9, 2, 3, 7, 6, 1], dtype=torch.int64)
    for dtn, dt in (("f32", torch.float32), ("f64", torch.float64)):
        mm = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0).to(dt)
        mm.load_state_dict(m.state_dict())
        x = (mk([8, 8], dt) * 0.7).requires_grad_()
        out, loss = mm(x, target)
        w.add("asm/%s/out" % dtn, out)
        w.add("asm/%s/loss" % dtn, loss)
        (loss + (out * mk([8], dt, 7)).sum()).backward()
        w.add("asm/%s/grad_input" % dtn, x.grad)
        for n, p in mm.named_parameters():
            w.add("asm/%s/grad/%s" % (dtn, n), p.grad)
        with torch.no_grad():
            w.add("asm/%s/log_prob" % dtn, mm.log_prob(x))
            w.add("asm/%s/predict" % dtn, mm.predict(x))
        # Unbatched: a 1-d input with a 0-d target.
        o1, l1 = mm(x[3].detach(), target[3])
        w.add("asm/%s/out_unbatched" % dtn, o1)
        w.add("asm/%s/loss_unbatched" % dtn, l1)
    # head_bias, three clusters, some rows predicted outside the shortlist.
    xb = mk([6, 16], torch.float32, 3) * 0.9
    tb = torch.tensor([0, 19, 4, 10, 15, 8], dtype=torch.int64)
    out, loss = mb(xb, tb)
    w.add("asm_bias/out", out)
    w.add("asm_bias/loss", loss)
    with torch.no_grad():
        w.add("asm_bias/log_prob", mb.log_prob(xb))
        w.add("asm_bias/predict", mb.predict(xb))


def fractional(w):
    x4 = mk([2, 3, 7, 9], torch.float64) * 0.5 - 0.25
    torch.manual_seed(3)
    s2 = torch.rand(2, 3, 2, dtype=torch.float64)
    w.op_case("fmp2d_output_size",
              lambda x, r: F.fractional_max_pool2d(x, 2, output_size=(4, 5), return_indices=True,
                                                   _random_samples=r), [x4, s2], outputs=2)
    w.op_case("fmp2d_ratio",
              lambda x, r: F.fractional_max_pool2d(x, (3, 2), output_ratio=(0.5, 0.7),
                                                   return_indices=True, _random_samples=r),
              [x4, s2], outputs=2)
    w.op_case("fmp2d_unbatched",
              lambda x, r: F.fractional_max_pool2d(x, 3, output_size=5, return_indices=True,
                                                   _random_samples=r), [x4[1], s2[1:]], outputs=2)
    w.op_case("fmp2d_one",
              lambda x, r: F.fractional_max_pool2d(x, 2, output_size=(1, 8), return_indices=True,
                                                   _random_samples=r), [x4, s2], outputs=2)
    x5 = mk([2, 2, 5, 6, 7], torch.float64) * 0.5 - 0.25
    s3 = torch.rand(2, 2, 3, dtype=torch.float64)
    w.op_case("fmp3d_output_size",
              lambda x, r: F.fractional_max_pool3d(x, 2, output_size=(3, 4, 5),
                                                   return_indices=True, _random_samples=r),
              [x5, s3], outputs=2)
    w.op_case("fmp3d_ratio",
              lambda x, r: F.fractional_max_pool3d(x, (2, 3, 2), output_ratio=0.6,
                                                   return_indices=True, _random_samples=r),
              [x5, s3], outputs=2)
    w.op_case("fmp3d_unbatched",
              lambda x, r: F.fractional_max_pool3d(x, 2, output_size=3, return_indices=True,
                                                   _random_samples=r), [x5[0], s3[:1]], outputs=2)
    # Samples drawn from the default generator under manual_seed(5).
    for dtn, dt in (("f32", torch.float32), ("f64", torch.float64)):
        torch.manual_seed(5)
        o, i = F.fractional_max_pool2d(x4.to(dt), 2, output_ratio=0.5, return_indices=True)
        w.add("fmp2d_drawn/%s/out" % dtn, o)
        w.add("fmp2d_drawn/%s/indices" % dtn, i)
        torch.manual_seed(5)
        o, i = nn.FractionalMaxPool3d(2, output_size=(2, 3, 4), return_indices=True)(x5.to(dt))
        w.add("fmp3d_drawn/%s/out" % dtn, o)
        w.add("fmp3d_drawn/%s/indices" % dtn, i)
        torch.manual_seed(5)
        o = nn.FractionalMaxPool2d(3, output_size=4)(x4[0].to(dt))
        w.add("fmp2d_drawn_unbatched/%s/out" % dtn, o)


def cross_map_lrn(w):
    x = mk([2, 7, 3, 4], torch.float64) * 0.4 - 0.3
    for size in (3, 5, 4, 2):
        w.op_case("cross_map_lrn2d_%d" % size,
                  lambda t, size=size: nn.CrossMapLRN2d(size, alpha=0.3, beta=0.6, k=1.5)(t), [x])
    w.op_case("cross_map_lrn2d_defaults", lambda t: nn.CrossMapLRN2d(3)(t), [x[:, :2]])


def errors(e, s):
    e.err("in3d.dims", lambda: nn.InstanceNorm3d(3)(torch.zeros(2, 3, 4)))
    e.err("amp3d.dims", lambda: F.adaptive_max_pool3d(torch.zeros(2, 3, 4), 2))
    e.err("amp3d.empty", lambda: F.adaptive_max_pool3d(torch.zeros(2, 3, 0, 4, 4), 2))
    e.err("asm.cutoffs_sorted", lambda: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [6, 3]))
    e.err("asm.cutoffs_range", lambda: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 10]))
    e.err("asm.cutoffs_unique", lambda: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 3]))
    e.err("asm.cutoffs_positive", lambda: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [0, 3]))
    m = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6])
    e.err("asm.target_range",
          lambda: m(torch.zeros(3, 8), torch.tensor([1, 10, 2])))
    e.err("asm.batch", lambda: m(torch.zeros(3, 8), torch.tensor([1, 2])))
    e.err("asm.multi_target", lambda: m(torch.zeros(3, 8), torch.zeros(3, 1, dtype=torch.long)))
    # 1.13 raises RuntimeError(message, size): the messages are tuples' reprs.
    e.err("asm.input_2d", lambda: m(torch.zeros(3), torch.tensor([1, 2, 3])))
    e.err("asm.input_1d", lambda: m(torch.zeros(3, 8), torch.tensor(1)))
    e.err("fmp2d.none", lambda: nn.FractionalMaxPool2d(2))
    e.err("fmp2d.both", lambda: nn.FractionalMaxPool2d(2, output_size=3, output_ratio=0.5))
    e.err("fmp2d.ratio", lambda: nn.FractionalMaxPool2d(2, output_ratio=(0.5, 1.0)))
    e.err("fmp3d.none", lambda: nn.FractionalMaxPool3d(2))
    e.err("fmp3d.ratio", lambda: nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.5, 0.0)))
    e.err("fmp2d.func_none", lambda: F.fractional_max_pool2d(torch.zeros(1, 1, 4, 4), 2))
    e.err("fmp2d.dims", lambda: F.fractional_max_pool2d(torch.zeros(4, 4), 2, output_size=2,
                                                        _random_samples=torch.rand(1, 4, 2)))
    e.err("fmp2d.empty", lambda: F.fractional_max_pool2d(torch.zeros(1, 0, 4, 4), 2,
                                                         output_size=2,
                                                         _random_samples=torch.rand(1, 0, 2)))
    e.err("fmp2d.too_high", lambda: F.fractional_max_pool2d(torch.zeros(1, 1, 4, 8), 2,
                                                            output_size=(4, 3),
                                                            _random_samples=torch.rand(1, 1, 2)))
    e.err("fmp2d.too_wide", lambda: F.fractional_max_pool2d(torch.zeros(1, 1, 8, 4), 3,
                                                            output_size=(3, 3),
                                                            _random_samples=torch.rand(1, 1, 2)))
    e.err("fmp3d.dims", lambda: F.fractional_max_pool3d(torch.zeros(4, 4, 4), 2, output_size=2,
                                                        _random_samples=torch.rand(1, 4, 3)))
    e.err("fmp3d.too_deep", lambda: F.fractional_max_pool3d(torch.zeros(1, 1, 4, 8, 8), 2,
                                                            output_size=(4, 3, 3),
                                                            _random_samples=torch.rand(1, 1, 3)))
    e.err("fmp3d.too_high", lambda: F.fractional_max_pool3d(torch.zeros(1, 1, 8, 4, 8), 2,
                                                            output_size=(3, 4, 3),
                                                            _random_samples=torch.rand(1, 1, 3)))
    e.err("fmp3d.too_wide", lambda: F.fractional_max_pool3d(torch.zeros(1, 1, 8, 8, 4), 2,
                                                            output_size=(3, 3, 4),
                                                            _random_samples=torch.rand(1, 1, 3)))
    s.add("repr.fmp", "\n".join(repr(m) for m in (
        nn.FractionalMaxPool2d(3, output_size=(4, 5)),
        nn.FractionalMaxPool2d((2, 3), output_ratio=0.5, return_indices=True),
        nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.25, 0.75)),
        nn.AdaptiveMaxPool3d((2, 3, 4)), nn.AdaptiveMaxPool3d(2),
        nn.InstanceNorm3d(4, affine=True),
        nn.CrossMapLRN2d(3), nn.CrossMapLRN2d(5, alpha=0.3, beta=0.6, k=2))))


def main():
    w = GoldenWriter("nn_rest", "nn/functional")
    e = ErrorWriter("nn_rest", package="nn/functional")
    s = StringWriter("nn_rest", "nn/functional")
    instance_norm3d(w)
    adaptive_max_pool3d(w)
    asm(w, s)
    fractional(w)
    cross_map_lrn(w)
    errors(e, s)
    w.write()
    e.write()
    s.write()


if __name__ == "__main__":
    main()
