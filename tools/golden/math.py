#!/usr/bin/python3
"""Golden values for //tensor:math (binary_test, unary_test, compare_test).

Run with Debian's PyTorch (python3-torch, 1.13):
    /usr/bin/python3 tools/golden/math.py > tensor/testdata/math_golden.inc

Each case records its inputs exactly as PyTorch holds them (the whole
storage, sizes, strides and offset, so that transposed, sliced and expanded
views stay views), and either the result or the error message. The C++ test
of the same name runs the same expression (check() in
tensor/testing/golden.h).
"""
import json
import math

import torch

from golden_util import DTYPE_NAMES


CASES = []
NAMES = set()


def num(v):
    v = float(v)
    if math.isnan(v):
        return "NAN"
    if math.isinf(v):
        return "INFINITY" if v > 0 else "-INFINITY"
    return repr(v)


def ints(xs):
    return "{" + ", ".join(str(x) for x in xs) + "}"


def tensor_literal(t):
    """A GoldenTensor initializer: dtype, sizes, strides, offset, storage."""
    if not isinstance(t, torch.Tensor):  # a bool result (allclose, equal)
        t = torch.tensor(bool(t))
    storage = t.storage().tolist()
    return "{%s, %s, %s, %d, {%s}}" % (DTYPE_NAMES[t.dtype], ints(t.shape), ints(t.stride()),
                                     t.storage_offset(), ", ".join(num(v) for v in storage))


def add_case(name, fn, ins, expect_error):
    assert name not in NAMES, name
    NAMES.add(name)
    inputs = [tensor_literal(t) for t in ins]  # before fn: in-place ops change them
    try:
        out = fn(*ins)
    except Exception as e:  # noqa: BLE001 - PyTorch raises RuntimeError, IndexError...
        if not expect_error:
            raise
        CASES.append((name, inputs, None, str(e)))
        return
    if expect_error:
        raise SystemExit("%s: expected an error, got %s" % (name, out))
    if isinstance(out, torch.Tensor):
        out = out.contiguous()
    CASES.append((name, inputs, tensor_literal(out), None))


def case(name, fn, *ins):
    add_case(name, fn, ins, False)


def err(name, fn, *ins):
    add_case(name, fn, ins, True)


def t(values, dtype=None):
    return torch.tensor(values, dtype=dtype)


def via_float(fn):
    """PyTorch 1.13 has no CPU float16 kernel for many ops; ember computes
    half through float, so its reference is the float result rounded."""
    return lambda *xs: fn(*[x.float() for x in xs]).half()


def rnd(*shape, dtype=torch.float32, lo=-3.0, hi=3.0):
    x = torch.rand(*shape, dtype=torch.float64) * (hi - lo) + lo
    return x.round(decimals=3).to(dtype)


def binary_cases():
    a, b = rnd(2, 3), rnd(2, 3)
    case("add_float", lambda x, y: x + y, a, b)
    case("add_broadcast", lambda x, y: x + y, rnd(2, 1, 3), rnd(4, 1))
    case("add_transposed", lambda x, y: x + y, rnd(3, 2).t(), rnd(2, 3))
    case("add_sliced", lambda x, y: x + y, rnd(2, 6)[:, ::2], rnd(2, 3))
    case("add_expanded", lambda x, y: x + y, rnd(1, 3).expand(4, 3), rnd(4, 3))
    case("add_alpha", lambda x, y: torch.add(x, y, alpha=2.5), a, b)
    case("add_int_alpha", lambda x, y: torch.add(x, y, alpha=3),
         t([1, -2, 3], torch.int32), t([4, 5, -6], torch.int32))
    case("add_bool", lambda x, y: x + y, t([True, False, False]), t([True, True, False]))
    case("add_bool_int", lambda x, y: x + y, t([True, False]), t([3, 4], torch.int64))
    case("add_long_float", lambda x, y: x + y, t([1, 2, 3], torch.int64), t([0.5, 1.5, -2.25]))
    case("add_int8_int16", lambda x, y: x + y, t([100, -100], torch.int8), t([100, 1000], torch.int16))
    case("add_uint8_int8", lambda x, y: x + y, t([200, 3], torch.uint8), t([-1, 4], torch.int8))
    case("add_half", lambda x, y: x + y, rnd(5, dtype=torch.float16), rnd(5, dtype=torch.float16))
    case("add_bfloat16", lambda x, y: x + y, rnd(5, dtype=torch.bfloat16), rnd(5, dtype=torch.bfloat16))
    case("add_half_float", lambda x, y: x + y, rnd(3, dtype=torch.float16), rnd(3))
    case("add_double", lambda x, y: x + y, rnd(4, dtype=torch.float64), rnd(4, dtype=torch.float64))
    case("add_zero_dim_double", lambda x, y: x + y, rnd(3), t(1.25, torch.float64))
    case("add_zero_dim_int_double", lambda x, y: x + y, t([1, 2], torch.int64), t(1.5, torch.float64))
    case("add_scalar_int", lambda x: x + 2, t([1, 2, 3], torch.int32))
    case("add_scalar_float_to_int", lambda x: x + 2.5, t([1, 2, 3], torch.int32))
    case("add_scalar_half", lambda x: x + 0.1, rnd(4, dtype=torch.float16))
    case("add_scalar_bool", lambda x: x + True, t([True, False]))
    case("add_scalar_left", lambda x: 3 + x, t([1, 2], torch.int16))
    case("add_inplace", lambda x, y: x.add_(y, alpha=2), rnd(2, 3), rnd(3))
    case("add_inplace_int8_int16", lambda x, y: x.add_(y), t([100, -100], torch.int8),
         t([100, 1000], torch.int16))
    case("add_inplace_scalar", lambda x: x.add_(1), t([1, 2], torch.int64))
    case("add_inplace_transposed", lambda x, y: x.add_(y), rnd(3, 2).t(), rnd(2, 3))
    case("sub_float", lambda x, y: x - y, a, b)
    case("sub_alpha", lambda x, y: torch.sub(x, y, alpha=2), t([1, 2], torch.int64), t([5, 7], torch.int64))
    case("sub_scalar", lambda x: x - 1.5, rnd(3))
    case("rsub_scalar", lambda x: 2 - x, t([1, 5], torch.int64))
    case("sub_inplace", lambda x, y: x.sub_(y), rnd(2, 2), rnd(2, 1))
    case("mul_float", lambda x, y: x * y, a, b)
    case("mul_int", lambda x, y: x * y, t([3, -4, 5], torch.int64), t([7, 8, -9], torch.int64))
    case("mul_bool", lambda x, y: x * y, t([True, True, False]), t([True, False, False]))
    case("mul_bool_scalar_float", lambda x: x * 2.5, t([True, False]))
    case("mul_scalar_left", lambda x: 2 * x, rnd(3))
    case("mul_broadcast_int_float", lambda x, y: x * y, t([[1], [2]], torch.int32), rnd(3))
    case("mul_inplace", lambda x, y: x.mul_(y), rnd(2, 3), rnd(3))
    case("mul_inplace_scalar", lambda x: x.mul_(3), t([1, -2], torch.int8))
    case("div_float", lambda x, y: x / y, a, b)
    case("div_int_int", lambda x, y: x / y, t([7, -7, 1, 0], torch.int64), t([2, 2, 0, 0], torch.int64))
    case("div_float_zero", lambda x, y: x / y, t([1.0, -1.0, 0.0]), t([0.0, 0.0, 0.0]))
    case("div_scalar", lambda x: x / 3, t([1, 2, 3], torch.int32))
    case("div_scalar_left", lambda x: 1 / x, t([2.0, 4.0, -0.5]))
    case("div_half", lambda x, y: x / y, rnd(4, dtype=torch.float16), t([3, 7, -9, 11], torch.float16))
    case("div_trunc_int", lambda x, y: torch.div(x, y, rounding_mode="trunc"),
         t([7, -7, 7, -7], torch.int64), t([2, 2, -2, -2], torch.int64))
    case("div_trunc_float", lambda x, y: torch.div(x, y, rounding_mode="trunc"),
         t([7.5, -7.5, 7.5, -7.5]), t([2.0, 2.0, -2.0, -2.0]))
    case("div_floor_int", lambda x, y: torch.div(x, y, rounding_mode="floor"),
         t([7, -7, 7, -7, 6], torch.int64), t([2, 2, -2, -2, 3], torch.int64))
    case("div_floor_float", lambda x, y: torch.div(x, y, rounding_mode="floor"),
         t([7.5, -7.5, 7.5, -7.5, 1.0, -1.0]), t([2.0, 2.0, -2.0, -2.0, 0.0, 0.0]))
    case("div_floor_uint8", lambda x, y: torch.div(x, y, rounding_mode="floor"),
         t([7, 200], torch.uint8), t([2, 3], torch.uint8))
    case("div_inplace", lambda x, y: x.div_(y), rnd(2, 2), t([2.0, -4.0]))
    case("div_inplace_floor_scalar", lambda x: x.div_(2, rounding_mode="floor"), t([5, -5], torch.int64))
    case("remainder_int", lambda x, y: x % y, t([7, -7, 7, -7], torch.int64), t([3, 3, -3, -3], torch.int64))
    case("remainder_float", lambda x, y: torch.remainder(x, y),
         t([7.5, -7.5, 7.5, -7.5, 6.0]), t([2.0, 2.0, -2.0, -2.0, 3.0]))
    case("remainder_scalar", lambda x: x % 3, t([-4, -1, 5], torch.int32))
    case("remainder_scalar_left", lambda x: torch.remainder(5, x), t([3, -3], torch.int64))
    case("fmod_int", lambda x, y: torch.fmod(x, y), t([7, -7, 7, -7], torch.int64), t([3, 3, -3, -3], torch.int64))
    case("fmod_float", lambda x, y: torch.fmod(x, y), t([7.5, -7.5, 7.5, -7.5]), t([2.0, 2.0, -2.0, -2.0]))
    case("fmod_scalar", lambda x: torch.fmod(x, 1.5), t([-4.0, 4.0, 0.5]))
    case("floor_divide_int", lambda x, y: x // y, t([7, -7, 7, -7], torch.int64), t([2, 2, -2, -2], torch.int64))
    case("floor_divide_float", lambda x, y: torch.floor_divide(x, y), t([7.5, -7.5, 0.3]), t([2.0, 2.0, 0.1]))
    case("floor_divide_scalar", lambda x: x // 4, t([9, -9], torch.int64))

    i = t([1, 2], torch.int64)
    b2 = t([True, False])
    err("err_sub_bools", lambda x, y: x - y, b2, b2)
    err("err_sub_bool_scalar", lambda x: x - 1, b2)
    err("err_rsub_bool", lambda x: 1 - x, b2)
    err("err_sub_uint8_bool", lambda x, y: x - y, t([1, 2], torch.uint8), t([True]))
    err("err_alpha_float_int", lambda x, y: torch.add(x, y, alpha=0.5), i, i)
    err("err_alpha_bool_int", lambda x, y: torch.add(x, y, alpha=True), i, i)
    err("err_rounding_mode", lambda x, y: torch.div(x, y, rounding_mode="bad"), a, b)
    err("err_floor_divide_zero", lambda x, y: x // y, i, t([1, 0], torch.int64))
    err("err_remainder_zero", lambda x: x % 0, i)
    err("err_fmod_zero", lambda x: torch.fmod(x, 0), i)
    err("err_div_trunc_zero", lambda x: torch.div(x, 0, rounding_mode="trunc"), i)
    err("err_add_inplace_float_to_long", lambda x: x.add_(1.5), i)
    err("err_div_inplace_long", lambda x: x.div_(2), i)
    err("err_mul_inplace_long_float", lambda x, y: x.mul_(y), i, t([1.0, 2.0]))
    err("err_broadcast", lambda x, y: x + y, rnd(2, 3), rnd(4))
    err("err_inplace_shape", lambda x, y: x.add_(y), i, torch.ones(2, 2, dtype=torch.int64))
    err("err_remainder_bool", lambda x: x % x, b2)
    err("err_floor_divide_bool", lambda x: x // x, b2)
    err("err_div_trunc_bool", lambda x: torch.div(x, x, rounding_mode="trunc"), b2)
    err("err_inplace_expanded", lambda x, y: x.add_(y), rnd(1, 3).expand(2, 3), rnd(2, 3))


def pointwise_cases():
    x = rnd(2, 3, lo=0.1, hi=3.0)
    case("pow_tensor_tensor", lambda a, b: torch.pow(a, b), x, rnd(2, 3))
    case("pow_int_tensor", lambda a, b: torch.pow(a, b),
         t([2, -2, 1, -1, -1, 3, 0], torch.int64), t([10, 3, -5, -4, -3, -1, 0], torch.int64))
    case("pow_int8_wraps", lambda a, b: torch.pow(a, b), t([3, 2], torch.int8), t([5, 7], torch.int8))
    case("pow_scalar_2", lambda a: a ** 2, rnd(5))
    case("pow_scalar_3", lambda a: a ** 3, rnd(5))
    case("pow_scalar_half", lambda a: a ** 0.5, x)
    case("pow_scalar_minus_half", lambda a: a ** -0.5, x)
    case("pow_scalar_minus_1", lambda a: a.pow(-1), x)
    case("pow_scalar_minus_2", lambda a: a.pow(-2), x)
    case("pow_scalar_2_5", lambda a: a.pow(2.5), x)
    case("pow_scalar_double", lambda a: a.pow(1.7), rnd(3, dtype=torch.float64, lo=0.1))
    case("pow_int_scalar", lambda a: a ** 3, t([2, -3, 4], torch.int64))
    case("pow_int_float_scalar", lambda a: a ** 2.5, t([3, -4], torch.int64))
    case("pow_bool_scalar", lambda a: a ** 2, t([True, False]))
    # 8- and 16-bit products wrap (65535 * 65535 must not overflow an int).
    case("pow_int16_wraps", lambda a, b: a.pow(b), t([300, -7, 255, 181], torch.int16),
         t([3, 3, 4, 2], torch.int16))
    case("pow_uint8_wraps", lambda a: a ** 2, t([200, 255, 16], torch.uint8))
    case("pow_zero_exponent", lambda a: a ** 0, t([float("nan"), 2.0, -1.0]))
    case("pow_one_exponent", lambda a: a ** 1, t([1, 2], torch.int32))
    case("pow_half", lambda a: a ** 2, rnd(4, dtype=torch.float16))
    case("pow_half_scalar_1_5", lambda a: a ** 1.5, rnd(4, dtype=torch.float16, lo=0.1))
    case("pow_scalar_base_int", lambda a: torch.pow(2, a), t([3, -1, 0], torch.int64))
    case("pow_scalar_base_float", lambda a: torch.pow(2.5, a), t([3, -1, 0], torch.int64))
    case("pow_inplace", lambda a: a.pow_(2), rnd(3))
    case("pow_inplace_tensor", lambda a, b: a.pow_(b), x, t([1.0, 2.0, 0.5]))
    case("pow_broadcast_transposed", lambda a, b: a ** b, rnd(3, 2, lo=0.1).t(), rnd(3, 1).t())
    case("atan2_float", lambda a, b: torch.atan2(a, b), rnd(2, 3), rnd(2, 3))
    case("atan2_int", lambda a, b: torch.atan2(a, b), t([1, -1, 0], torch.int64), t([1, -1, -1], torch.int64))
    nan = float("nan")
    case("minimum_float_nan", lambda a, b: torch.minimum(a, b), t([1.0, nan, 3.0, -1.0]), t([2.0, 0.0, nan, -2.0]))
    case("maximum_float_nan", lambda a, b: torch.maximum(a, b), t([1.0, nan, 3.0, -1.0]), t([2.0, 0.0, nan, -2.0]))
    case("maximum_int_float", lambda a, b: torch.maximum(a, b), t([3, -4], torch.int64), t([1.5, -2.5]))
    case("minimum_int_broadcast", lambda a, b: torch.minimum(a, b), t([[3], [-4]], torch.int32), t([0, 1, 2], torch.int32))
    case("minimum_bool", lambda a, b: torch.minimum(a, b), t([True, True, False]), t([True, False, False]))
    case("maximum_bool", lambda a, b: torch.maximum(a, b), t([True, True, False]), t([True, False, False]))
    case("fmin_nan", lambda a, b: torch.fmin(a, b), t([1.0, nan, 3.0, nan]), t([2.0, 0.0, nan, nan]))
    case("fmax_nan", lambda a, b: torch.fmax(a, b), t([1.0, nan, 3.0, nan]), t([2.0, 0.0, nan, nan]))
    case("fmax_int", lambda a, b: torch.fmax(a, b), t([1, 5], torch.int64), t([3, 2], torch.int64))
    case("lerp_small_weight", lambda a, b: torch.lerp(a, b, 0.25), rnd(2, 3), rnd(2, 3))
    case("lerp_large_weight", lambda a, b: torch.lerp(a, b, 0.75), rnd(2, 3), rnd(3))
    case("lerp_double", lambda a, b: torch.lerp(a, b, 1.5), rnd(3, dtype=torch.float64), rnd(3, dtype=torch.float64))
    case("addcmul_float", lambda s, a, b: torch.addcmul(s, a, b, value=0.5), rnd(2, 3), rnd(2, 3), rnd(3))
    case("addcmul_int", lambda s, a, b: torch.addcmul(s, a, b, value=2),
         t([1, 2], torch.int64), t([3, 4], torch.int64), t([5, -6], torch.int64))
    case("addcmul_inplace", lambda s, a, b: s.addcmul_(a, b), rnd(3), rnd(3), rnd(3))
    case("addcdiv_float", lambda s, a, b: torch.addcdiv(s, a, b, value=-2), rnd(2, 3), rnd(2, 3), t([1.0, -2.0, 4.0]))
    case("addcdiv_mixed", lambda s, a, b: torch.addcdiv(s, a, b), t([1, 2], torch.int64), t([3.0, 4.0]), t([2, 8], torch.int64))
    case("addcdiv_inplace", lambda s, a, b: s.addcdiv_(a, b, value=0.5), rnd(3), rnd(3), t([2.0, 4.0, 8.0]))
    case("clamp_float", lambda a: torch.clamp(a, -1.0, 1.0), t([-2.0, -0.5, 0.5, 2.0, nan]))
    case("clamp_min_only", lambda a: torch.clamp(a, min=0.0), t([-2.0, 0.5, nan]))
    case("clamp_max_only", lambda a: torch.clamp(a, max=0), t([-2, 1, 3], torch.int64))
    case("clamp_int_float_bound", lambda a: torch.clamp(a, 0.5), t([3, -4], torch.int64))
    case("clamp_int", lambda a: torch.clamp(a, -1, 2), t([-3, 0, 5], torch.int32))
    case("clamp_bool_int_bounds", lambda a: torch.clamp(a, 0, 1), t([True, False]))
    case("clamp_min_greater_than_max", lambda a: torch.clamp(a, 2.0, 1.0), t([0.0, 1.5, 3.0]))
    case("clamp_half", via_float(lambda a: torch.clamp(a, -1.0, 1.0)), rnd(5, dtype=torch.float16))
    case("clamp_inplace", lambda a: a.clamp_(-1.0, 1.0), rnd(2, 3))
    case("clamp_transposed", lambda a: a.clamp(-1, 1), rnd(3, 2).t())
    case("clamp_min_fn", lambda a: torch.clamp_min(a, 1), t([0, 1, 2], torch.int64))
    case("clamp_max_fn", lambda a: torch.clamp_max(a, 1.5), rnd(4))
    case("clamp_tensor", lambda a, lo, hi: torch.clamp(a, lo, hi), rnd(2, 3), t([-1.0, 0.0, nan]), t([[1.0], [0.5]]))
    case("clamp_tensor_min_only", lambda a, lo: torch.clamp(a, min=lo), rnd(2, 3), t([-1.0, 0.0, 1.0]))
    case("clamp_tensor_max_only", lambda a, hi: torch.clamp(a, max=hi), rnd(2, 3), t([-1.0, 0.0, 1.0]))
    case("clamp_tensor_int_float", lambda a, lo, hi: torch.clamp(a, lo, hi), t([3, -4], torch.int64), t([0.5, -1.5]), t([1.0, 2.0]))
    case("relu_float", lambda a: torch.relu(a), rnd(2, 3))
    case("relu_int", lambda a: torch.relu(a), t([3, -4, 0], torch.int64))
    case("relu_inplace", lambda a: a.relu_(), rnd(4))
    case("square_float", lambda a: torch.square(a), rnd(4))
    case("square_int", lambda a: torch.square(a), t([3, -4], torch.int64))
    case("square_bool", lambda a: torch.square(a), t([True, False]))

    i = t([1, 2], torch.int64)
    b2 = t([True, False])
    f2 = t([1.5, -2.5])
    err("err_pow_negative_int", lambda a: a ** -1, i)
    err("err_pow_bools", lambda a: torch.pow(a, a), b2)
    err("err_lerp_dtype", lambda a, b: torch.lerp(a, b, 0.5), f2, f2.double())
    err("err_lerp_long", lambda a: torch.lerp(a, a, 0.5), i)
    # 1.13 refuses float16 lerp on the CPU; ember computes it in float as
    # PyTorch 2.x does (tensor/parity_test.cc checks it).
    err("err_addcdiv_int", lambda s, a, b: torch.addcdiv(s, a, b), f2, i, i)
    err("err_addcmul_bool", lambda a: torch.addcmul(a, a, a), b2)
    err("err_clamp_none", lambda a: torch.clamp(a), i)
    err("err_clamp_inplace_long", lambda a: a.clamp_(0.5), i)
    err("err_clamp_inplace_bool", lambda a: a.clamp_(0, 1), b2)
    err("err_clamp_bool_tensors", lambda a: torch.clamp(a, a, a), b2)
    err("err_clamp_scalar_bool", lambda a: torch.clamp(a, True, True), b2)
    err("err_relu_bool", lambda a: torch.relu(a), b2)
    err("err_pow_inplace_long_float", lambda a: a.pow_(0.5), i)


FLOAT_UNARY = ["sqrt", "rsqrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin",
               "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "sigmoid", "erf",
               "reciprocal"]


def unary_cases():
    # Values inside every op's domain in magnitude, with negatives for the
    # NaNs PyTorch gives outside it.
    xf = t([[0.25, -0.5, 0.75], [1.5, -0.125, 0.9]])
    for op in FLOAT_UNARY:
        fn = getattr(torch, op)
        case(op + "_float_transposed", fn, xf.t())
        case(op + "_long", fn, t([0, 1, 2, -3], torch.int64))
        case(op + "_half", via_float(fn), xf.half()[:, ::2])
        case(op + "_double", fn, xf.double())
    case("exp_bool", torch.exp, t([True, False]))
    case("sqrt_inplace", lambda a: a.sqrt_(), t([4.0, 2.0, -1.0]))
    case("sigmoid_extremes", torch.sigmoid, t([-100.0, -20.0, 0.0, 20.0, 100.0]))
    case("sigmoid_extremes_double", torch.sigmoid, t([-800.0, -40.0, 0.0, 40.0, 800.0], torch.float64))
    case("sigmoid_bfloat16", torch.sigmoid, rnd(4, dtype=torch.bfloat16))
    case("reciprocal_int_zero", torch.reciprocal, t([0, 2, -4], torch.int32))
    case("neg_int", torch.neg, t([3, -4, 0], torch.int64))
    case("neg_float", lambda a: -a, rnd(2, 3).t())
    case("neg_half", torch.neg, rnd(3, dtype=torch.float16))
    case("neg_uint8", torch.neg, t([1, 0, 255], torch.uint8))
    case("neg_inplace", lambda a: a.neg_(), t([1, -2], torch.int16))
    case("abs_int8", torch.abs, t([-128, -5, 0, 7], torch.int8))
    case("abs_float", torch.abs, t([-1.5, -0.0, 2.0, float("-inf"), float("nan")]))
    case("abs_uint8", torch.abs, t([200, 3], torch.uint8))
    case("abs_bfloat16", torch.abs, rnd(4, dtype=torch.bfloat16))
    case("sign_float", torch.sign, t([-2.5, -0.0, 0.0, 3.0, float("nan"), float("-inf")]))
    case("sign_int", torch.sign, t([-7, 0, 9], torch.int64))
    case("sign_uint8", torch.sign, t([0, 9], torch.uint8))
    case("sign_bool", torch.sign, t([True, False]))
    halves = t([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.7, -2.7, 0.2])
    for op in ["floor", "ceil", "round", "trunc", "frac"]:
        fn = getattr(torch, op)
        case(op + "_float", fn, halves)
        case(op + "_double", fn, halves.double())
        case(op + "_half", via_float(fn), halves.half())
    for op in ["floor", "ceil", "round", "trunc"]:
        case(op + "_int", getattr(torch, op), t([-3, 0, 5], torch.int64))
    case("floor_inplace_int", lambda a: a.floor_(), t([-3, 4], torch.int32))
    case("floor_inplace_float", lambda a: a.floor_(), rnd(2, 3).t())
    case("round_decimals_2", lambda a: torch.round(a, decimals=2), t([1.2345, -2.555, 0.125, 1e-3]))
    case("round_decimals_neg", lambda a: torch.round(a, decimals=-1), t([15.0, 25.0, -35.0, 1234.5]))
    case("round_decimals_double", lambda a: torch.round(a, decimals=3), t([1.23456, -2.5555], torch.float64))
    case("logical_not_float", torch.logical_not, t([0.0, 1.5, float("nan"), -0.0]))
    case("logical_not_int", torch.logical_not, t([0, 3, -1], torch.int64))
    case("logical_not_inplace_float", lambda a: a.logical_not_(), t([0.0, 2.0]))
    case("logical_not_operator", torch.logical_not, t([True, False]))
    case("bitwise_not_int", torch.bitwise_not, t([0, 5, -6], torch.int64))
    case("bitwise_not_uint8", torch.bitwise_not, t([0, 5, 255], torch.uint8))
    case("bitwise_not_bool", lambda a: ~a, t([True, False]))

    b2 = t([True, False])
    i = t([1, 2], torch.int64)
    err("err_neg_bool", lambda a: -a, b2)
    err("err_abs_bool", torch.abs, b2)
    err("err_sqrt_inplace_long", lambda a: a.sqrt_(), i)
    err("err_sigmoid_inplace_long", lambda a: a.sigmoid_(), i)
    err("err_floor_bool", torch.floor, b2)
    err("err_round_bool", torch.round, b2)
    err("err_ceil_bool", torch.ceil, b2)
    err("err_trunc_bool", torch.trunc, b2)
    err("err_round_decimals_int", lambda a: torch.round(a, decimals=1), i)
    err("err_frac_int", torch.frac, i)
    err("err_bitwise_not_float", torch.bitwise_not, t([1.0]))


def compare_cases():
    nan = float("nan")
    a = t([[1.0, nan, 3.0], [-1.0, 2.0, 0.5]])
    b = t([1.0, 2.0, nan])
    for op in ["eq", "ne", "lt", "le", "gt", "ge"]:
        fn = getattr(torch, op)
        case(op + "_broadcast_nan", fn, a, b)
        case(op + "_int_float", fn, t([1, 2, 3], torch.int64), t([1.5, 2.0, 2.5]))
        case(op + "_scalar", lambda x, fn=fn: fn(x, 2.5), t([1, 2, 3], torch.int32))
        case(op + "_half_transposed", fn, rnd(3, 2, dtype=torch.float16).t(), rnd(2, 3, dtype=torch.float16))
        case(op + "_bool", fn, t([True, True, False, False]), t([True, False, True, False]))
    case("eq_operator_int_scalar", lambda x: x == 2, t([1, 2, 3], torch.int64))
    case("lt_operator_uint8_int8", lambda x, y: x < y, t([200, 1], torch.uint8), t([-1, 2], torch.int8))
    case("ge_operator_expanded", lambda x, y: x >= y, rnd(1, 3).expand(2, 3), rnd(2, 3))
    for op in ["logical_and", "logical_or", "logical_xor"]:
        fn = getattr(torch, op)
        case(op + "_mixed", fn, t([0, 3, 0, -1], torch.int64), t([0.0, 0.0, 2.5, nan]))
        case(op + "_bool_broadcast", fn, t([[True], [False]]), t([True, False]))
    for op, sym in [("bitwise_and", "&"), ("bitwise_or", "|"), ("bitwise_xor", "^")]:
        fn = getattr(torch, op)
        case(op + "_int", fn, t([12, -7, 0], torch.int64), t([10, 3, 5], torch.int64))
        case(op + "_bool", fn, t([True, True, False, False]), t([True, False, True, False]))
        case(op + "_int_bool", fn, t([2, 3], torch.int32), t([True, False]))
        case(op + "_uint8_scalar", lambda x, fn=fn: fn(x, 6), t([5, 255], torch.uint8))
        err("err_" + op + "_float", fn, t([1.0]), t([1], torch.int64))
    for op in ["isnan", "isinf", "isfinite"]:
        fn = getattr(torch, op)
        case(op + "_float", fn, t([1.0, nan, float("inf"), float("-inf"), -0.0]))
        case(op + "_half", fn, t([1.0, nan, float("inf")], torch.float16))
        case(op + "_int", fn, t([1, 0], torch.int64))
    x = t([1.0, 1.0001, 1e-9, nan, float("inf"), 100.0])
    y = t([1.0, 1.0, 0.0, nan, float("inf"), 100.001])
    case("isclose_default", torch.isclose, x, y)
    case("isclose_equal_nan", lambda p, q: torch.isclose(p, q, equal_nan=True), x, y)
    case("isclose_tolerances", lambda p, q: torch.isclose(p, q, rtol=1e-3, atol=1e-2), x, y)
    case("isclose_exact", lambda p, q: torch.isclose(p, q, rtol=0, atol=0), x, y)
    case("isclose_int", lambda p, q: torch.isclose(p, q, rtol=0.1, atol=1), t([10, 20, 30], torch.int64), t([11, 23, 30], torch.int64))
    case("isclose_half", torch.isclose, t([1.0, 1.001, 2.0], torch.float16), t([1.0, 1.0, 2.002], torch.float16))
    case("isclose_double_broadcast", torch.isclose, t([[1.0], [2.0]], torch.float64), t([1.0, 1.0 + 1e-9, 2.0], torch.float64))
    case("allclose_true", torch.allclose, t([1.0, 2.0]), t([1.000001, 2.0]))
    case("allclose_false", torch.allclose, t([1.0, 2.0]), t([1.1, 2.0]))
    case("allclose_nan", lambda p, q: torch.allclose(p, q, equal_nan=True), t([nan, 2.0]), t([nan, 2.0]))
    case("equal_true", lambda p: torch.equal(p, p.clone()), rnd(3, 2))
    case("equal_same_values_transposed", lambda p: torch.equal(p, p.contiguous()), rnd(3, 2).t())
    case("equal_false", torch.equal, t([1, 2], torch.int64), t([1, 3], torch.int64))
    case("equal_sizes_differ", torch.equal, t([1, 2], torch.int64), t([1, 2, 3], torch.int64))
    case("equal_dtypes_differ", torch.equal, t([1.0, 2.0]), t([1, 2], torch.int64))
    case("equal_nan", torch.equal, t([nan]), t([nan]))
    err("err_isclose_dtype", torch.isclose, t([1.0]), t([1.0], torch.float64))
    err("err_isclose_rtol", lambda p: torch.isclose(p, p, rtol=-1.0), t([1.0]))
    err("err_isclose_atol", lambda p: torch.isclose(p, p, atol=-0.5), t([1.0]))
    err("err_compare_broadcast", torch.eq, rnd(2, 3), rnd(2))


def main():
    torch.manual_seed(0)
    binary_cases()
    pointwise_cases()
    unary_cases()
    compare_cases()
    print("// Generated by tools/golden/math.py from PyTorch %s. Do not edit." % torch.__version__)
    print("// {name, inputs {dtype, sizes, strides, offset, storage}, result, error}")
    print("inline const GoldenCase kMathGolden[] = {")
    for name, inputs, out, error in CASES:
        print("    {%s,\n     {%s},\n     %s,\n     %s}," % (
            json.dumps(name), ",\n      ".join(inputs), out if out else "{}",
            json.dumps(error) if error is not None else '""'))
    print("};")


if __name__ == "__main__":
    main()
