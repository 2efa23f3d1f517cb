#!/usr/bin/python3
"""Golden strings for tensor/print_test.cc: what PyTorch 1.13 prints.

Run with Debian's PyTorch:  /usr/bin/python3 tools/golden/print.py
It writes tensor/testdata/print_golden.inc. Each case holds the raw bytes of
a contiguous base tensor, the view geometry (sizes, strides, offset) of the
printed tensor on that base, the print options in force, autograd metadata,
and str(tensor). The test rebuilds the view from the bytes and compares.
"""

import json
import math
import os
import struct
import sys

import torch

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "tensor", "testdata",
                   "print_golden.inc")

DEFAULT_OPTS = dict(precision=4, threshold=1000, edgeitems=3, linewidth=80,
                    sci_mode=None)

cases = []


def cstr(s):
    # ASCII only, so JSON string escapes are valid C++ escapes.
    assert s.isascii(), s
    return json.dumps(s)


def raw_bytes(base):
    flat = base.reshape(-1)
    if flat.dtype.is_floating_point or flat.dtype == torch.bool or flat.element_size() > 1:
        flat = flat.view(torch.uint8)
    return flat.numpy().tobytes()


def add(name, base, view=None, opts=None, requires_grad=False, grad_fn="",
        default_dtype=torch.float32):
    """Records str(view(base)) under `opts` (a dict like set_printoptions')."""
    o = dict(DEFAULT_OPTS)
    o.update(opts or {})
    base = base.contiguous()
    t = view(base) if view is not None else base
    if base.is_quantized:
        assert view is None
        data = raw_bytes(base.int_repr())
        scale, zero_point = base.q_scale(), base.q_zero_point()
    else:
        assert t.storage().data_ptr() == base.storage().data_ptr()
        data = raw_bytes(base)
        scale, zero_point = 1.0, 0
    shown = t
    if grad_fn:
        shown = t.detach().clone().requires_grad_(True) * 1
        assert type(shown.grad_fn).__name__ == grad_fn
    elif requires_grad:
        shown = t.detach().clone().requires_grad_(True)
    torch.set_printoptions(precision=o["precision"], threshold=o["threshold"],
                           edgeitems=o["edgeitems"], linewidth=o["linewidth"],
                           sci_mode=o["sci_mode"])
    torch.set_default_dtype(default_dtype)
    try:
        expected = str(shown)
    finally:
        torch.set_printoptions(profile="default")
        torch.set_default_dtype(torch.float32)
    cases.append(dict(
        name=name, dtype=str(t.dtype).replace("torch.", ""),
        sizes=list(t.shape), strides=list(t.stride()),
        offset=t.storage_offset() - base.storage_offset(), data=data.hex(),
        scale=scale, zero_point=zero_point, requires_grad=requires_grad,
        grad_fn=grad_fn, opts=o,
        default_dtype=str(default_dtype).replace("torch.", ""), expected=expected))


def gen():
    torch.manual_seed(1234)

    # --- the seed documents' printed tensors ---------------------------------
    add("seed_rand_4x3", torch.tensor([[0.0479, 0.8201, 0.5482], [0.4645, 0.2504, 0.5394],
                                       [0.8791, 0.0699, 0.1394], [0.0695, 0.9159, 0.1081]]))
    add("seed_zeros_long", torch.zeros(4, 3, dtype=torch.long))
    add("seed_column", torch.tensor([0.2408, 0.9194, 0.8660, 0.6691]))
    add("seed_scalar", torch.tensor(1.3))
    add("seed_pair", torch.tensor([2., 3.2]))
    add("seed_2x2", torch.tensor([[2., 3.2], [1., 22.3]]))
    add("seed_uninit_float", torch.tensor([[2.5804e-05, 6.3199e-43, 8.4078e-45],
                                           [0.0000e+00, 1.4013e-45, 0.0000e+00]]))
    add("seed_uninit_int", torch.tensor([[937482688, 451, 1], [0, 1, 0]], dtype=torch.int32))
    x = torch.tensor([[0.6580, -1.0969, -0.4614], [-0.1034, -0.5790, 0.1497]])
    add("seed_cat_dim1", torch.cat((x, x, x), 1))
    add("seed_requires_grad", torch.tensor([-1.1591, -0.6704, 1.0540]), requires_grad=True)
    add("seed_mean_grad_fn", torch.tensor(3.), grad_fn="MulBackward0")
    add("seed_linspace", torch.linspace(3, 10, 5))
    add("seed_int_floats", torch.tensor([-10., -5., 0., 5., 10.]))
    add("seed_bool_mask", torch.tensor([[False, True], [True, False]]))
    add("seed_broadcast", torch.tensor([[2, 3], [3, 4], [4, 5]]))

    # --- floating values of many magnitudes ----------------------------------
    for scale in [1e-6, 1e-4, 1e-2, 1.0, 10.0, 1e3, 1e5, 1e9]:
        tag = f"{scale:g}".replace("-", "m").replace("+", "").replace(".", "p")
        add("randn_3x4_scale_" + tag, torch.randn(3, 4) * scale)
    add("randn_vec", torch.randn(7))
    add("randn_3d", torch.randn(2, 3, 4))
    add("randn_4d", torch.randn(2, 2, 2, 3))
    add("randn_float64", torch.randn(3, 3, dtype=torch.float64) * 100)
    add("float64_precise", torch.tensor([1 / 3, 2 / 3, 1e-3], dtype=torch.float64))
    add("wide_ratio_sci", torch.tensor([0.5, 1000.0]))
    add("ratio_just_below", torch.tensor([1.5, 1499.0]))
    add("tiny_sci", torch.tensor([5e-5, 0.5]))
    add("big_sci", torch.tensor([1.5e8, 2.5]))
    add("rounding_half_even", torch.tensor([0.00005, 0.00015, 0.12345, 2.5, 0.5],
                                           dtype=torch.float64))
    add("negative_mixed", torch.tensor([-1.5, 2.25, -300.125]))

    # --- integral floats (int mode) ------------------------------------------
    add("int_mode", torch.arange(-5, 5).float())
    add("int_mode_sci_ratio", torch.tensor([1., 2000.]))
    add("int_mode_sci_big", torch.tensor([1e9, 3e9]))
    add("int_mode_big_no_sci", torch.tensor([12345678., 99999999.]))
    add("int_mode_half_even", torch.tensor([2., 4., 6.]).double())

    # --- nan / inf / zeros ---------------------------------------------------
    nan, inf = float("nan"), float("inf")
    add("nan_inf_mix", torch.tensor([nan, 1.5, inf, -inf]))
    add("nan_inf_only", torch.tensor([nan, inf, -inf]))
    add("nan_int_mode", torch.tensor([1., nan, 3.]))
    add("nan_sci", torch.tensor([nan, 1e-7, 1.0]))
    add("negative_nan", -torch.tensor([nan, 2.5]))
    add("all_zeros", torch.zeros(2, 3))
    add("negative_zero", torch.tensor([-0., 0.]))
    add("negative_zero_int_mode", torch.tensor([-0., 1.]))
    add("negative_zero_fixed", torch.tensor([-0., 1.5]))
    add("scalar_nan", torch.tensor(nan))
    add("scalar_neg_inf", torch.tensor(-inf))

    # --- half / bfloat16 -----------------------------------------------------
    add("half_2x3", torch.randn(2, 3).half())
    add("bfloat16_2x3", torch.randn(2, 3).bfloat16())
    add("half_big", torch.tensor([60000., 0.001]).half())
    add("half_int_mode", torch.tensor([1., 2., 3.]).half())
    add("bfloat16_sci", torch.tensor([1e20, 1.0]).bfloat16())
    add("half_scalar", torch.tensor(0.1).half())

    # --- integral and bool dtypes --------------------------------------------
    add("int8", torch.randint(-128, 128, (3, 4), dtype=torch.int8))
    add("uint8", torch.randint(0, 256, (2, 5), dtype=torch.uint8))
    add("int16", torch.randint(-30000, 30000, (6,), dtype=torch.int16))
    add("int32", torch.randint(-2**31, 2**31 - 1, (2, 3), dtype=torch.int32))
    add("int64", torch.tensor([2**62, -2**63, 0, 7]))
    add("int64_widths", torch.tensor([[1, -22], [333, 4]]))
    add("bool_2x3", torch.rand(2, 3) > 0.5)
    add("bool_vec", torch.tensor([True, False, True]))
    add("int_scalar", torch.tensor(-3))
    add("int32_scalar", torch.tensor(5, dtype=torch.int32))
    add("bool_scalar", torch.tensor(True))
    add("uint8_scalar", torch.tensor(200, dtype=torch.uint8))

    # --- dtype suffix and default dtype --------------------------------------
    add("float64_suffix", torch.tensor([1.5, 2.5], dtype=torch.float64))
    add("float64_default", torch.tensor([1.5, 2.5], dtype=torch.float64),
        default_dtype=torch.float64)
    add("float32_non_default", torch.tensor([1.5, 2.5]), default_dtype=torch.float64)
    add("empty_float32_non_default", torch.zeros(0), default_dtype=torch.float64)

    # --- empty ---------------------------------------------------------------
    add("empty_1d", torch.zeros(0))
    add("empty_2d", torch.zeros(0, 3))
    add("empty_3d_long", torch.zeros(2, 0, 3, dtype=torch.long))
    add("empty_bool", torch.zeros(0, dtype=torch.bool))
    add("empty_int32", torch.zeros(0, dtype=torch.int32))
    add("empty_requires_grad", torch.zeros(0, 2), requires_grad=True)

    # --- summarization -------------------------------------------------------
    add("arange_1001", torch.arange(1001))
    add("randn_1200", torch.randn(1200))
    add("randn_40x50", torch.randn(40, 50))
    add("randn_10x10x11", torch.randn(10, 10, 11))
    add("randn_3x350", torch.randn(3, 350))
    add("summarized_sci", torch.randn(1001) * 1e-6)
    add("summarized_hidden_outlier",  # the 1e9 is not shown, so no sci mode
        torch.cat([torch.rand(500), torch.tensor([1e9]), torch.rand(500)]))
    add("summarized_bool", torch.rand(30, 40) > 0.5)
    add("summarized_4d", torch.randn(8, 2, 8, 10))

    # --- non-contiguous views ------------------------------------------------
    add("transposed", torch.randn(3, 4), lambda b: b.t())
    add("sliced_step", torch.randn(4, 6), lambda b: b[1:, 1::2])
    add("expanded", torch.randn(3, 1), lambda b: b.expand(3, 4))
    add("expanded_int", torch.arange(4), lambda b: b.expand(3, 4))
    add("narrow_offset", torch.randn(5, 4), lambda b: b[2:4])
    add("permuted_3d", torch.randn(2, 3, 4), lambda b: b.permute(2, 0, 1))
    add("select_column", torch.randn(4, 3), lambda b: b[:, 1])
    add("transposed_summarized", torch.randn(50, 40), lambda b: b.t())
    add("scalar_view", torch.randn(3), lambda b: b[2])
    add("half_transposed", torch.randn(2, 3).half(), lambda b: b.t())

    # --- line wrapping -------------------------------------------------------
    add("wrap_vec", torch.randn(30))
    add("wrap_rows", torch.randn(3, 20))
    add("wrap_ints", torch.randint(-10**9, 10**9, (25,)))
    add("wrap_3d", torch.randn(2, 2, 15))
    add("wrap_with_grad_suffix", torch.randn(8), requires_grad=True)
    add("wrap_grad_fn_suffix", torch.randn(2, 8), grad_fn="MulBackward0")
    add("wrap_dtype_suffix", torch.randn(9, dtype=torch.float64))

    # --- autograd suffixes ---------------------------------------------------
    add("requires_grad_scalar", torch.tensor(2.5), requires_grad=True)
    add("grad_fn_matrix", torch.randn(2, 2), grad_fn="MulBackward0")
    add("grad_fn_float64", torch.randn(3, dtype=torch.float64), grad_fn="MulBackward0")

    # --- quantized -----------------------------------------------------------
    add("quint8", torch.quantize_per_tensor(torch.tensor([-1.0, 0.0, 1.0, 2.0]), 0.1, 10,
                                            torch.quint8))
    add("qint8_2x3", torch.quantize_per_tensor(torch.randn(2, 3), 0.05, -3, torch.qint8))
    add("qint8_tiny_scale", torch.quantize_per_tensor(torch.randn(4) * 1e-4, 1e-5, 0,
                                                      torch.qint8))
    add("quint8_int_scale", torch.quantize_per_tensor(torch.tensor([1., 2., 3.]), 2.0, 0,
                                                      torch.quint8))
    add("quint8_odd_scale", torch.quantize_per_tensor(torch.rand(3, 3) * 3, 0.0137, 7,
                                                      torch.quint8))
    add("quint8_scalar", torch.quantize_per_tensor(torch.tensor(0.5), 0.25, 1, torch.quint8))
    add("quint8_empty", torch.quantize_per_tensor(torch.zeros(0, 2), 0.5, 0, torch.quint8))

    # --- print options -------------------------------------------------------
    r = torch.randn(3, 4)
    add("precision_2", r, opts=dict(precision=2))
    add("precision_8", r, opts=dict(precision=8))
    add("precision_0", r * 10, opts=dict(precision=0))
    add("precision_2_sci", torch.tensor([1e-7, 1.0]), opts=dict(precision=2))
    add("threshold_5", torch.arange(10), opts=dict(threshold=5))
    add("threshold_5_2d", torch.randn(8, 8), opts=dict(threshold=5))
    add("edgeitems_1", torch.randn(20, 20), opts=dict(edgeitems=1))
    add("edgeitems_0_vec", torch.arange(10), opts=dict(threshold=5, edgeitems=0))
    add("linewidth_40", torch.randn(12), opts=dict(linewidth=40))
    add("linewidth_200", torch.randn(3, 30), opts=dict(linewidth=200))
    add("linewidth_10", torch.randn(5), opts=dict(linewidth=10))
    add("sci_mode_true", r, opts=dict(sci_mode=True))
    add("sci_mode_true_int_mode", torch.tensor([1., 2.]), opts=dict(sci_mode=True))
    add("sci_mode_true_zeros", torch.zeros(3), opts=dict(sci_mode=True))
    add("sci_mode_false_tiny", torch.tensor([1e-7, 1.0]), opts=dict(sci_mode=False))
    add("sci_mode_false_int_big", torch.tensor([1e10, 1.0]), opts=dict(sci_mode=False))
    add("profile_full", torch.arange(1200) * 0.5, opts=dict(threshold=math.inf))
    add("profile_short", torch.randn(10, 10) * 10,
        opts=dict(precision=2, edgeitems=2, threshold=50))


def fuzz(count):
    """Random tensors, views and options: coverage beyond the named cases."""
    gen = torch.Generator().manual_seed(4321)

    def rint(lo, hi):  # inclusive
        return int(torch.randint(lo, hi + 1, (1,), generator=gen))

    def coin(p=0.5):
        return float(torch.rand(1, generator=gen)) < p

    float_types = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
    int_types = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]
    for k in range(count):
        ndim = rint(0, 4)
        sizes = [rint(0 if coin(0.1) else 1, 6) for _ in range(ndim)]
        if coin(0.15) and ndim > 0:
            sizes[rint(0, ndim - 1)] = rint(20, 300)
        while math.prod(sizes) > 1500:  # keeps the generated file small
            sizes[sizes.index(max(sizes))] //= 2
        kind = rint(0, 9)
        if kind < 5:
            dtype = float_types[rint(0, 3)]
            v = torch.randn(sizes, generator=gen, dtype=torch.float64)
            v = v * 10.0 ** rint(-9, 9)
            if coin(0.3):
                v = v.round()
            if coin(0.3) and v.numel() > 0:
                flat = v.view(-1)
                for _ in range(rint(1, 3)):
                    flat[rint(0, flat.numel() - 1)] = [float("nan"), float("inf"),
                                                       -float("inf"), 0.0, -0.0][rint(0, 4)]
            base = v.to(dtype)
        elif kind < 8:
            dtype = int_types[rint(0, 4)]
            info = torch.iinfo(dtype)
            bound = min(info.max, 10 ** rint(1, 18))
            lo = 0 if dtype == torch.uint8 else -bound
            base = torch.randint(lo, bound, sizes, generator=gen, dtype=dtype)
        elif kind < 9:
            base = torch.rand(sizes, generator=gen) > 0.5
        else:
            x = torch.randn(sizes, generator=gen) * 3
            qt = torch.quint8 if coin() else torch.qint8
            zp = rint(0, 255) if qt == torch.quint8 else rint(-128, 127)
            base = torch.quantize_per_tensor(x, 0.01 + float(torch.rand(1, generator=gen)), zp, qt)
        view = None
        if not base.is_quantized and base.dim() >= 2 and coin(0.4):
            view = lambda b: b.transpose(0, -1)
        elif not base.is_quantized and base.dim() >= 1 and base.size(0) > 2 and coin(0.3):
            view = lambda b: b[1::2]
        opts = {}
        if coin(0.4):
            opts = dict(precision=rint(0, 8), linewidth=rint(20, 150), edgeitems=rint(1, 4),
                        threshold=[1000, 10, 50][rint(0, 2)],
                        sci_mode=[None, True, False][rint(0, 2)])
        floating = base.dtype.is_floating_point
        add("fuzz_%d" % k, base, view, opts=opts,
            requires_grad=floating and coin(0.2),
            grad_fn="MulBackward0" if floating and coin(0.1) else "",
            default_dtype=torch.float64 if coin(0.2) else torch.float32)


FLOAT_REPRS = [0.1, 1.0, 2.0, -0.0, 0.0, 1e-05, 0.0001, 0.00012345, 1e16, 1.5e16,
               9999999999999998.0, 123456789.125, 1 / 3, -2.5e-7, 1e300, 5e-324,
               float("inf"), -float("inf"), float("nan"), 0.0137, 100.0, 1e15, 3.0517578125e-05]


def main():
    gen()
    fuzz(int(sys.argv[1]) if len(sys.argv) > 1 else 60)
    lines = ["// Generated by tools/golden/print.py from PyTorch %s. Do not edit." %
             torch.__version__, "", "const PrintCase kPrintCases[] = {"]
    for c in cases:
        o = c["opts"]
        thr = "kInf" if math.isinf(o["threshold"]) else repr(float(o["threshold"]))
        sci = {None: -1, False: 0, True: 1}[o["sci_mode"]]
        hexs = c["data"]
        chunks = [hexs[i:i + 96] for i in range(0, len(hexs), 96)] or [""]
        data = "\n        ".join(cstr(ch) for ch in chunks)
        lines.append("{%s, %s, {%s}, {%s}, %d," % (
            cstr(c["name"]), cstr(c["dtype"]), ", ".join(map(str, c["sizes"])),
            ", ".join(map(str, c["strides"])), c["offset"]))
        lines.append("    %s, %s, %d, %s, %s," % (
            data, repr(float(c["scale"])), c["zero_point"],
            "true" if c["requires_grad"] else "false", cstr(c["grad_fn"])))
        lines.append("    {%d, %s, %d, %d, %d}, %s," % (
            o["precision"], thr, o["edgeitems"], o["linewidth"], sci, cstr(c["default_dtype"])))
        lines.append("    %s}," % cstr(c["expected"]))
    lines.append("};")
    # Python's repr() of floats, as PyTorch prints quantization scales.
    lines += ["", "const FloatRepr kFloatReprs[] = {"]
    for v in FLOAT_REPRS:
        bits = struct.unpack("<Q", struct.pack("<d", v))[0]
        lines.append("    {0x%016xULL, %s}," % (bits, cstr(repr(v))))
    lines.append("};")
    with open(OUT, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print("wrote %d cases to %s" % (len(cases), os.path.normpath(OUT)))


if __name__ == "__main__":
    main()
