"""Golden values for the nn ops of issue 19's "rest of torch.nn": conv3d and
conv_transpose3d, the 1-d and 3-d poolings and the adaptive max poolings,
interpolate and fold / unfold (nn/functional/*_test.cc that
include testing/nn_golden_extra.h).

Run with Debian's PyTorch: /usr/bin/python3 tools/golden/nn_ops_extra.py
Writes nn/functional/testdata/nn_ops_extra_golden.inc and
nn_ops_extra_errors_golden.inc in nn_ops_more.py's format: each case
"<case>/<f32|f64>" stores its inputs (in0, in1...), the outputs ("out",
"out1"...) and the gradient of sum(out * mk(out.shape, seed=7)) for each
input in grads ("grad0"...); the C++ test applies the same views.
"""

import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_util import ErrorWriter, GoldenWriter, mk  # noqa: E402

torch.set_num_threads(1)
w = GoldenWriter("nn_ops_extra", package="nn/functional")
errors = ErrorWriter("nn_ops_extra", package="nn/functional")
err = errors.err
gen = torch.Generator().manual_seed(1913)


def rnd(*shape):
    return torch.randn(*shape, generator=gen, dtype=torch.float64)


case = w.op_case


r = torch.zeros

# --- conv3d / conv_transpose3d ------------------------------------------------------------
case("conv3d_basic", lambda x, k, b: F.conv3d(x, k, b),
     [rnd(2, 2, 4, 5, 4), rnd(3, 2, 2, 3, 2), rnd(3)], grads=(0, 1, 2))
case("conv3d_stride_pad_dil_groups",
     lambda x, k: F.conv3d(x, k, stride=(2, 1, 2), padding=(1, 0, 1), dilation=(1, 2, 1),
                           groups=2),
     [rnd(1, 4, 5, 5, 6), rnd(4, 2, 3, 2, 3)], grads=(0, 1))
case("conv3d_unbatched", lambda x, k, b: F.conv3d(x, k, b, padding=1),
     [rnd(2, 3, 4, 3), rnd(2, 2, 2, 2, 2), rnd(2)], grads=(0, 1, 2))
case("conv3d_same", lambda x, k: F.conv3d(x, k, padding="same", dilation=(1, 1, 2)),
     [rnd(1, 2, 4, 3, 5), rnd(2, 2, 2, 3, 2)], grads=(0, 1))
case("conv3d_noncontig", lambda x, k: F.conv3d(x.transpose(2, 4), k, stride=2),
     [rnd(2, 2, 5, 4, 5), rnd(3, 2, 3, 2, 2)], grads=(0, 1))
case("conv_transpose3d_basic", lambda x, k, b: F.conv_transpose3d(x, k, b),
     [rnd(2, 3, 3, 2, 3), rnd(3, 2, 2, 2, 3), rnd(2)], grads=(0, 1, 2))
case("conv_transpose3d_stride_pad_outpad",
     lambda x, k, b: F.conv_transpose3d(x, k, b, stride=(2, 1, 2), padding=1,
                                        output_padding=(1, 0, 1)),
     [rnd(1, 2, 3, 3, 2), rnd(2, 3, 3, 3, 2), rnd(3)], grads=(0, 1, 2))
case("conv_transpose3d_groups_dilation",
     lambda x, k: F.conv_transpose3d(x, k, stride=(1, 2, 1), groups=2, dilation=(3, 1, 2),
                                     output_padding=(2, 1, 0)),
     [rnd(2, 4, 2, 3, 2), rnd(4, 1, 2, 2, 2)], grads=(0, 1))
case("conv_transpose3d_unbatched", lambda x, k: F.conv_transpose3d(x, k, stride=2, padding=1),
     [rnd(2, 2, 3, 2), rnd(2, 3, 3, 2, 2)], grads=(0, 1))

err("conv3d_dims", lambda: F.conv3d(r(2, 3, 4), r(2, 3, 3, 3, 3)))
err("conv3d_channels", lambda: F.conv3d(r(1, 4, 3, 3, 3), r(2, 3, 3, 3, 3)))
err("conv3d_weight_dims", lambda: F.conv3d(r(1, 3, 3, 3, 3), r(2, 3, 3, 3)))
err("conv3d_small", lambda: F.conv3d(r(1, 3, 2, 3, 3), r(2, 3, 3, 3, 3)))
err("conv3d_bias", lambda: F.conv3d(r(1, 3, 3, 3, 3), r(2, 3, 1, 1, 1), r(3)))
err("conv3d_groups", lambda: F.conv3d(r(1, 4, 3, 3, 3), r(3, 2, 1, 1, 1), groups=2))
err("conv3d_same_strided",
    lambda: F.conv3d(r(1, 3, 3, 3, 3), r(2, 3, 1, 1, 1), padding="same", stride=2))
err("conv_transpose3d_dims", lambda: F.conv_transpose3d(r(2, 3), r(2, 3, 3, 3, 3)))
err("conv_transpose3d_channels",
    lambda: F.conv_transpose3d(r(1, 4, 3, 3, 3), r(2, 3, 3, 3, 3)))
err("conv_transpose3d_output_padding",
    lambda: F.conv_transpose3d(r(1, 2, 3, 3, 3), r(2, 3, 3, 3, 3), stride=2, output_padding=2))

# --- pooling ------------------------------------------------------------------------------
case("max_pool1d", lambda x: F.max_pool1d(x, 3, 2, 1, return_indices=True),
     [rnd(2, 3, 9)], outputs=2)
case("max_pool1d_ceil_dil", lambda x: F.max_pool1d(x.transpose(0, 1), 2, 2, 0, 2, ceil_mode=True,
                                                   return_indices=True),
     [rnd(3, 2, 8)], outputs=2)
case("max_pool1d_unbatched", lambda x: F.max_pool1d(x, 2), [rnd(3, 7)])
case("max_pool3d", lambda x: F.max_pool3d(x, 2, return_indices=True), [rnd(2, 2, 4, 5, 4)],
     outputs=2)
case("max_pool3d_options",
     lambda x: F.max_pool3d(x, (3, 2, 2), (2, 1, 2), (1, 0, 1), (1, 2, 1), ceil_mode=True,
                            return_indices=True),
     [rnd(1, 2, 6, 5, 6)], outputs=2)
case("max_pool3d_unbatched_nc", lambda x: F.max_pool3d(x.transpose(1, 3), 2, return_indices=True),
     [rnd(2, 4, 3, 5)], outputs=2)
case("max_pool3d_ties", lambda x: F.max_pool3d(x, 2, 1, return_indices=True),
     [mk((1, 1, 3, 3, 4), torch.float64)], outputs=2)
case("avg_pool1d", lambda x: F.avg_pool1d(x, 3, 2, 1), [rnd(2, 3, 9)])
case("avg_pool1d_ceil_exclude",
     lambda x: F.avg_pool1d(x, 4, 3, 2, ceil_mode=True, count_include_pad=False), [rnd(2, 2, 10)])
case("avg_pool1d_unbatched", lambda x: F.avg_pool1d(x.t(), 2), [rnd(7, 3)])
case("avg_pool3d", lambda x: F.avg_pool3d(x, 2), [rnd(2, 2, 4, 5, 4)])
case("avg_pool3d_options",
     lambda x: F.avg_pool3d(x, (3, 2, 3), (2, 1, 2), (1, 0, 1), ceil_mode=True,
                            count_include_pad=False),
     [rnd(1, 2, 6, 5, 7)])
case("avg_pool3d_ceil_include",
     lambda x: F.avg_pool3d(x, 3, 2, 1, ceil_mode=True), [rnd(1, 2, 6, 5, 4)])
case("avg_pool3d_divisor", lambda x: F.avg_pool3d(x, 2, 1, divisor_override=3),
     [rnd(2, 3, 3, 4)])
case("adaptive_avg_pool1d", lambda x: F.adaptive_avg_pool1d(x, 3), [rnd(2, 3, 7)])
case("adaptive_avg_pool1d_unbatched", lambda x: F.adaptive_avg_pool1d(x, 4), [rnd(3, 6)])
case("adaptive_avg_pool3d", lambda x: F.adaptive_avg_pool3d(x, (2, 3, 1)), [rnd(2, 2, 5, 4, 3)])
case("adaptive_avg_pool3d_unbatched", lambda x: F.adaptive_avg_pool3d(x, 2), [rnd(2, 3, 5, 4)])
case("adaptive_max_pool1d", lambda x: F.adaptive_max_pool1d(x, 3, return_indices=True),
     [rnd(2, 3, 7)], outputs=2)
case("adaptive_max_pool1d_unbatched",
     lambda x: F.adaptive_max_pool1d(x, 5, return_indices=True), [rnd(2, 8)], outputs=2)
case("adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, (3, 2), return_indices=True),
     [rnd(2, 2, 7, 5)], outputs=2)
case("adaptive_max_pool2d_unbatched_nc",
     lambda x: F.adaptive_max_pool2d(x.transpose(1, 2), 4, return_indices=True),
     [rnd(3, 6, 5)], outputs=2)
case("adaptive_max_pool2d_ties", lambda x: F.adaptive_max_pool2d(x, (2, 3), return_indices=True),
     [mk((1, 2, 5, 7), torch.float64)], outputs=2)
case("adaptive_max_pool2d_upsample",
     lambda x: F.adaptive_max_pool2d(x, (5, 4), return_indices=True), [rnd(1, 2, 3, 3)],
     outputs=2)

err("max_pool1d_dims", lambda: F.max_pool1d(r(2, 3, 4, 5), 2))
err("max_pool1d_pad", lambda: F.max_pool1d(r(2, 3, 8), 2, padding=2))
err("max_pool3d_dims", lambda: F.max_pool3d(r(2, 3, 4), 2))
err("max_pool3d_pad", lambda: F.max_pool3d(r(1, 2, 4, 4, 4), 2, padding=(0, 2, 0)))
err("max_pool3d_small", lambda: F.max_pool3d(r(1, 2, 4, 1, 4), 2))
err("max_pool3d_stride", lambda: F.max_pool3d(r(1, 2, 4, 4, 4), 2, stride=0))
err("avg_pool1d_dims", lambda: F.avg_pool1d(r(2, 3, 4, 5), 2))
err("avg_pool1d_pad", lambda: F.avg_pool1d(r(2, 3, 8), 2, padding=2))
err("avg_pool3d_dims", lambda: F.avg_pool3d(r(2, 3, 4), 2))
err("avg_pool3d_pad", lambda: F.avg_pool3d(r(1, 2, 4, 4, 4), 2, padding=2))
err("avg_pool3d_small", lambda: F.avg_pool3d(r(1, 2, 1, 4, 4), 2))
err("avg_pool3d_divisor", lambda: F.avg_pool3d(r(1, 2, 4, 4, 4), 2, divisor_override=0))
err("adaptive_avg_pool1d_dims", lambda: F.adaptive_avg_pool1d(r(2, 3, 4, 5), 2))
err("adaptive_avg_pool3d_dims", lambda: F.adaptive_avg_pool3d(r(2, 3, 4), 2))
err("adaptive_max_pool1d_dims", lambda: F.adaptive_max_pool1d(r(3), 2))
err("adaptive_max_pool2d_dims", lambda: F.adaptive_max_pool2d(r(2, 3, 4, 5, 6), 2))
err("adaptive_max_pool2d_empty", lambda: F.adaptive_max_pool2d(r(2, 3, 0, 5), 2))

# --- interpolate --------------------------------------------------------------------------
I = F.interpolate
case("interp_nearest1d_size", lambda x: I(x, size=7), [rnd(2, 2, 5)])
case("interp_nearest1d_scale", lambda x: I(x, scale_factor=2.5), [rnd(1, 2, 4)])
case("interp_nearest1d_scale_down", lambda x: I(x, scale_factor=0.3), [rnd(1, 2, 11)])
case("interp_nearest2d_down", lambda x: I(x, size=(3, 4)), [rnd(2, 2, 5, 7)])
case("interp_nearest2d_scale_recompute",
     lambda x: I(x.transpose(2, 3), scale_factor=(1.7, 2.0), recompute_scale_factor=True),
     [rnd(1, 2, 4, 3)])
case("interp_nearest3d", lambda x: I(x, size=(3, 5, 2)), [rnd(1, 2, 2, 3, 4)])
case("interp_nearest_exact2d", lambda x: I(x, size=(5, 3), mode="nearest-exact"),
     [rnd(1, 2, 3, 7)])
case("interp_nearest_exact1d_scale", lambda x: I(x, scale_factor=1.6, mode="nearest-exact"),
     [rnd(1, 2, 5)])
case("interp_linear", lambda x: I(x, size=8, mode="linear"), [rnd(2, 2, 5)])
case("interp_linear_align", lambda x: I(x, size=8, mode="linear", align_corners=True),
     [rnd(2, 2, 5)])
case("interp_linear_down_scale", lambda x: I(x, scale_factor=0.45, mode="linear"),
     [rnd(1, 3, 11)])
case("interp_linear_same", lambda x: I(x, size=5, mode="linear"), [rnd(1, 2, 5)])
case("interp_linear_scale_recompute",
     lambda x: I(x, scale_factor=1.7, mode="linear", recompute_scale_factor=True),
     [rnd(1, 2, 5)])
case("interp_bilinear", lambda x: I(x, size=(5, 7), mode="bilinear"), [rnd(2, 2, 3, 4)])
case("interp_bilinear_align",
     lambda x: I(x.transpose(2, 3), size=(3, 6), mode="bilinear", align_corners=True),
     [rnd(1, 2, 4, 5)])
case("interp_bilinear_scale", lambda x: I(x, scale_factor=(2.5, 0.6), mode="bilinear"),
     [rnd(1, 2, 3, 6)])
case("interp_bicubic", lambda x: I(x, size=(7, 9), mode="bicubic"), [rnd(1, 2, 4, 5)])
case("interp_bicubic_align", lambda x: I(x, size=(3, 8), mode="bicubic", align_corners=True),
     [rnd(2, 1, 5, 4)])
case("interp_bicubic_scale", lambda x: I(x, scale_factor=1.5, mode="bicubic"),
     [rnd(1, 2, 3, 4)])
case("interp_bicubic_down", lambda x: I(x, size=(3, 2), mode="bicubic"), [rnd(1, 1, 6, 7)])
case("interp_trilinear", lambda x: I(x, size=(3, 4, 5), mode="trilinear"),
     [rnd(1, 2, 2, 3, 3)])
case("interp_trilinear_align",
     lambda x: I(x, scale_factor=(1.5, 2, 0.5), mode="trilinear", align_corners=True),
     [rnd(1, 1, 2, 3, 4)])
case("interp_area2d", lambda x: I(x, size=(3, 2), mode="area"), [rnd(1, 2, 7, 5)])
case("interp_area1d_scale", lambda x: I(x, scale_factor=0.5, mode="area"), [rnd(1, 2, 7)])

err("interp_linear_4d", lambda: I(r(1, 2, 3, 3), size=4, mode="linear"))
err("interp_bilinear_3d", lambda: I(r(1, 2, 3), size=4, mode="bilinear"))
err("interp_bicubic_5d", lambda: I(r(1, 2, 3, 3, 3), size=4, mode="bicubic"))
err("interp_trilinear_4d", lambda: I(r(1, 2, 3, 3), size=4, mode="trilinear"))
err("interp_2d_input", lambda: I(r(2, 3), size=4))
err("interp_align_nearest", lambda: I(r(1, 2, 3), size=4, align_corners=True))
err("interp_both", lambda: I(r(1, 2, 3), size=4, scale_factor=2.0))
err("interp_neither", lambda: I(r(1, 2, 3)))
err("interp_size_len", lambda: I(r(1, 2, 3, 3), size=(4, 4, 4)))
err("interp_scale_len", lambda: I(r(1, 2, 3, 3), scale_factor=(2.0, 2.0, 2.0)))
err("interp_recompute_size", lambda: I(r(1, 2, 3), size=4, recompute_scale_factor=True))
err("interp_zero_size", lambda: I(r(1, 2, 3, 3), size=(0, 2)))

# --- fold / unfold ------------------------------------------------------------------------
case("unfold_basic", lambda x: F.unfold(x, (2, 3)), [rnd(2, 2, 4, 5)])
case("unfold_options", lambda x: F.unfold(x.transpose(2, 3), 3, dilation=(1, 2), padding=1,
                                          stride=(2, 1)),
     [rnd(1, 3, 6, 5)])
case("unfold_unbatched", lambda x: F.unfold(x, 2, stride=2), [rnd(2, 4, 5)])
case("fold_basic", lambda x: F.fold(x, (4, 5), (2, 3)), [rnd(2, 12, 9)])
case("fold_options", lambda x: F.fold(x, (5, 6), 3, dilation=(1, 2), padding=1, stride=(2, 1)),
     [rnd(1, 18, 12)])
case("fold_unbatched", lambda x: F.fold(x.t(), (4, 5), 2, stride=2), [rnd(4, 8)])

err("unfold_dims", lambda: F.unfold(r(2, 3, 4, 5, 6), 2))
err("unfold_small", lambda: F.unfold(r(1, 2, 3, 3), 4))
err("unfold_stride", lambda: F.unfold(r(1, 2, 3, 3), 2, stride=0))
err("unfold_padding", lambda: F.unfold(r(1, 2, 3, 3), 2, padding=-1))
err("fold_dims", lambda: F.fold(r(2, 3, 4, 5), (4, 4), 2))
err("fold_divisible", lambda: F.fold(r(1, 5, 4), (3, 3), 2))
err("fold_blocks", lambda: F.fold(r(1, 8, 5), (3, 3), 2))
err("fold_dilation", lambda: F.fold(r(1, 8, 4), (3, 3), 2, dilation=0))
# Blocks are counted with floor division (div_rtn): a dilated kernel longer
# than the input gives none, whatever the stride.
err("fold_blocks_floor", lambda: F.fold(r(1, 4, 2), (6, 2), 2, dilation=2, stride=2))
# area's empty output computes, but has no gradient to give.
err("interp_area_empty_backward",
    lambda: I(r(1, 2, 1, 3).requires_grad_(), size=(1, 0), mode="area").sum().backward())

errors.write()
w.write()
