#!/usr/bin/python3
"""F.grid_sample / F.affine_grid (ATen grid_sampler_2d/3d, affine_grid_generator)
for nn/functional/grid_sample_test.cc: inputs, outputs and the gradients of
sum(out * mk(out.shape, seed=7)) for input and grid (op_case), float32 and
float64, over every mode x padding_mode x align_corners; grids that reach
outside [-1, 1], exact ties of nearest rounding, NaN and infinities, and
non-contiguous inputs; then PyTorch's errors.
Run with Debian's PyTorch: /usr/bin/python3 tools/golden/grid_sample.py"""
import warnings

import torch
import torch.nn.functional as F

from golden_util import ErrorWriter, GoldenWriter, mk

MODES_2D = ("bilinear", "nearest", "bicubic")
MODES_3D = ("bilinear", "nearest")
PADDINGS = ("zeros", "border", "reflection")


def grid(shape, seed, spread=1.3):
    """Points in [-spread, spread]: some fall outside the input."""
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(shape, generator=g, dtype=torch.float64) * 2 - 1) * spread


def gs(mode, pad, ac):
    return lambda x, g: F.grid_sample(x, g, mode=mode, padding_mode=pad, align_corners=ac)


def main():
    warnings.simplefilter("ignore")
    w = GoldenWriter("grid_sample", "nn/functional")
    x4 = mk([2, 3, 4, 5], torch.float64) * 0.5 - 0.25
    g4 = grid([2, 3, 4, 2], 1)
    x5 = mk([2, 2, 3, 4, 5], torch.float64) * 0.5 - 0.25
    g5 = grid([2, 2, 3, 2, 3], 2)
    for mode in MODES_2D:
        for pad in PADDINGS:
            for ac in (False, True):
                name = "2d_%s_%s_%s" % (mode, pad, "ac" if ac else "noac")
                w.op_case(name, gs(mode, pad, ac), [x4, g4], grads=(0, 1))
    for mode in MODES_3D:
        for pad in PADDINGS:
            for ac in (False, True):
                name = "3d_%s_%s_%s" % (mode, pad, "ac" if ac else "noac")
                w.op_case(name, gs(mode, pad, ac), [x5, g5], grads=(0, 1))
    # Far outside: reflection folds several times.
    gfar = grid([1, 2, 5, 2], 3, spread=7.0)
    for pad in PADDINGS:
        for ac in (False, True):
            w.op_case("2d_far_bilinear_%s_%s" % (pad, "ac" if ac else "noac"),
                      gs("bilinear", pad, ac), [x4[:1], gfar], grads=(0, 1))
            w.op_case("2d_far_bicubic_%s_%s" % (pad, "ac" if ac else "noac"),
                      gs("bicubic", pad, ac), [x4[:1], gfar], grads=(0, 1))
    # Ties of nearest rounding (2-D rounds half to even, 3-D half away).
    t = torch.tensor([-1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0, 1.25])
    xt = torch.arange(16, dtype=torch.float64).view(1, 1, 4, 4)
    gt = torch.stack([t, t.flip(0)], -1).view(1, 1, -1, 2).double()
    xt3 = torch.arange(64, dtype=torch.float64).view(1, 1, 4, 4, 4)
    gt3 = torch.stack([t, t.flip(0), t], -1).view(1, 1, 1, -1, 3).double()
    for pad in PADDINGS:
        for ac in (False, True):
            sfx = "%s_%s" % (pad, "ac" if ac else "noac")
            w.op_case("2d_ties_nearest_" + sfx, gs("nearest", pad, ac), [xt, gt], grads=(0,))
            w.op_case("3d_ties_nearest_" + sfx, gs("nearest", pad, ac), [xt3, gt3], grads=(0,))
    # NaN and infinities in the grid: forward for every mode and padding,
    # gradients where 1.13's are defined (zeros padding).
    nan, inf = float("nan"), float("inf")
    gn = torch.tensor([[nan, 0.0], [0.0, nan], [inf, 0.5], [-inf, 0.2], [5.0, 0.1], [0.3, -0.4]],
                      dtype=torch.float64).view(1, 1, 6, 2)
    gn3 = torch.tensor([[nan, 0.0, 0.0], [0.0, nan, 0.2], [inf, 0.5, 0.0], [-inf, 0.2, 0.1],
                        [5.0, 0.1, 0.3], [0.3, -0.4, 0.5]], dtype=torch.float64).view(1, 1, 1, 6, 3)
    for pad in PADDINGS:
        for ac in (False, True):
            sfx = "%s_%s" % (pad, "ac" if ac else "noac")
            grads = (0, 1) if pad == "zeros" else ()
            for mode in MODES_2D:
                gr = grads if mode != "bicubic" else ()
                w.op_case("2d_nonfinite_%s_%s" % (mode, sfx), gs(mode, pad, ac), [x4[:1], gn],
                          grads=gr)
            for mode in MODES_3D:
                w.op_case("3d_nonfinite_%s_%s" % (mode, sfx), gs(mode, pad, ac), [x5[:1], gn3],
                          grads=grads)
    # Non-contiguous input and grid (a permuted input, a grid with a
    # stepped last dim); the gradient flows back through the views.
    xp = mk([2, 5, 4, 3], torch.float64, 3) * 0.5 - 0.25
    gp = grid([2, 3, 4, 4], 4)
    for mode in MODES_2D:
        w.op_case("2d_strided_" + mode,
                  lambda x, g, m=mode: F.grid_sample(x.permute(0, 3, 2, 1), g[..., ::2], mode=m,
                                                     padding_mode="reflection",
                                                     align_corners=False),
                  [xp, gp], grads=(0, 1))
    xp5 = mk([2, 5, 4, 3, 2], torch.float64, 3) * 0.5 - 0.25
    gp5 = grid([2, 2, 3, 2, 6], 5)
    for mode in MODES_3D:
        w.op_case("3d_strided_" + mode,
                  lambda x, g, m=mode: F.grid_sample(x.permute(0, 4, 3, 2, 1), g[..., 1::2],
                                                     mode=m, padding_mode="border",
                                                     align_corners=True),
                  [xp5, gp5], grads=(0, 1))
    # Size-1 spatial dims (reflection's empty span with align_corners).
    x1 = mk([1, 2, 1, 4], torch.float64) * 0.5
    g1 = grid([1, 2, 3, 2], 6)
    for mode in MODES_2D:
        for pad in PADDINGS:
            w.op_case("2d_size1_%s_%s" % (mode, pad), gs(mode, pad, True), [x1, g1], grads=(0, 1))
    # Empty batch, channels and grid.
    w.op_case("2d_empty_grid", gs("bilinear", "zeros", False),
              [x4, torch.zeros(2, 0, 3, 2, dtype=torch.float64)], grads=(0, 1))
    w.op_case("2d_zero_channels", gs("bilinear", "zeros", False),
              [torch.zeros(2, 0, 3, 3, dtype=torch.float64), g4], grads=(0, 1))
    # affine_grid: 2-D and 3-D, align_corners both ways, size-1 dims.
    th2 = torch.tensor([[[0.9, -0.2, 0.1], [0.3, 1.1, -0.25]],
                        [[1.0, 0.5, 0.0], [-0.5, 0.75, 0.5]]], dtype=torch.float64)
    th3 = torch.tensor([[[0.9, -0.2, 0.1, 0.05], [0.3, 1.1, -0.25, 0.2], [0.1, 0.2, 0.8, -0.3]]],
                       dtype=torch.float64)
    for ac in (False, True):
        sfx = "ac" if ac else "noac"
        w.op_case("affine_2d_" + sfx, lambda t, a=ac: F.affine_grid(t, [2, 3, 4, 5], a), [th2])
        w.op_case("affine_2d_size1_" + sfx, lambda t, a=ac: F.affine_grid(t, [2, 1, 1, 3], a),
                  [th2])
        w.op_case("affine_3d_" + sfx, lambda t, a=ac: F.affine_grid(t, [1, 2, 2, 3, 4], a), [th3])
        w.op_case("affine_3d_size1_" + sfx,
                  lambda t, a=ac: F.affine_grid(t, [1, 2, 1, 3, 1], a), [th3])
    # A spatial transformer: affine_grid into grid_sample, gradient to theta.
    w.op_case("stn", lambda x, t: F.grid_sample(x, F.affine_grid(t, [2, 3, 3, 4], False),
                                                align_corners=False), [x4, th2], grads=(0, 1))
    w.write()

    e = ErrorWriter("grid_sample", first_line=True, package="nn/functional")
    x = torch.rand(2, 3, 4, 5)
    g = torch.rand(2, 6, 7, 2)
    x3 = torch.rand(2, 3, 4, 5, 6)
    g3 = torch.rand(2, 1, 6, 7, 3)
    G = torch.grid_sampler
    e.err("batch", lambda: G(x, g[:1], 0, 0, False))
    e.err("last_dim_2d", lambda: G(x, torch.rand(2, 6, 7, 3), 0, 0, False))
    e.err("last_dim_3d", lambda: G(x3, torch.rand(2, 1, 6, 7, 2), 0, 0, False))
    e.err("grid_dims", lambda: G(x, torch.rand(2, 6, 7, 3, 2), 0, 0, False))
    e.err("input_3d", lambda: G(torch.rand(2, 3, 4), torch.rand(2, 6, 2), 0, 0, False))
    e.err("empty_spatial", lambda: G(torch.rand(2, 3, 0, 5), g, 0, 0, False))
    e.err("bicubic_3d", lambda: G(x3, g3, 2, 0, False))
    e.err("sampler_2d_of_5d", lambda: torch.grid_sampler_2d(x3, g3, 0, 0, False))
    e.err("sampler_3d_of_4d", lambda: torch.grid_sampler_3d(x, g, 0, 0, False))
    e.err("dtype_mismatch_2d", lambda: G(x, g.double(), 0, 0, False))
    e.err("dtype_mismatch_3d", lambda: G(x3.double(), g3, 0, 0, False))
    e.err("half_2d", lambda: G(x.half(), g.half(), 0, 0, False))
    e.err("int_2d", lambda: G(x.int(), g.int(), 0, 0, False))
    e.err("half_3d", lambda: G(x3.half(), g3.half(), 0, 0, False))
    e.err("int_3d", lambda: G(x3.int(), g3.int(), 0, 0, False))
    e.err("mode", lambda: F.grid_sample(x, g, mode="trilinear", align_corners=False))
    e.err("padding_mode", lambda: F.grid_sample(x, g, padding_mode="reflect", align_corners=False))
    e.err("theta_int", lambda: F.affine_grid(torch.zeros(2, 2, 3, dtype=torch.int32),
                                             [2, 3, 4, 5], False))
    e.err("theta_2d_shape", lambda: F.affine_grid(torch.rand(2, 3, 3), [2, 3, 4, 5], False))
    e.err("theta_3d_shape", lambda: F.affine_grid(torch.rand(2, 2, 3), [2, 3, 4, 5, 6], False))
    e.err("affine_size_3", lambda: F.affine_grid(torch.rand(2, 2, 3), [2, 3, 4], False))
    e.err("affine_size_0", lambda: F.affine_grid(torch.rand(2, 2, 3), [2, 3, 0, 5], False))
    e.err("generator_size_3",
          lambda: torch.affine_grid_generator(torch.rand(2, 2, 3), [2, 3, 4], False))
    e.write()


if __name__ == "__main__":
    main()
