#!/usr/bin/python3
"""What PyTorch 1.13 gives for tensor/special_test.cc's cases (erfinv,
lgamma, digamma, polygamma, i0, special.i1, sinc, signbit, copysign, hypot,
nextafter, ldexp, float_power, gcd, lcm, the bit shifts, isposinf/isneginf/
isreal, the in-place forms of the composite ops) and the gradients of the
differentiable ones. Writes tensor/testdata/special_golden.inc.
Run with Debian's PyTorch: /usr/bin/python3 tools/golden/special.py"""
import math
import os

import torch

inf, nan = float("inf"), float("nan")
OUT = os.path.join(os.path.dirname(__file__), "..", "..", "tensor", "testdata",
                   "special_golden.inc")
DT = {torch.float64: "kDouble", torch.float32: "kFloat", torch.float16: "kHalf",
      torch.bfloat16: "kBFloat16", torch.int64: "kLong", torch.int32: "kInt",
      torch.int16: "kShort", torch.int8: "kChar", torch.uint8: "kByte", torch.bool: "kBool"}
lines = []


def num(v):
    if isinstance(v, bool):
        return "1" if v else "0"
    if math.isnan(v):
        return "kNaN" if math.copysign(1, v) > 0 else "-kNaN"
    if math.isinf(v):
        return "kInf" if v > 0 else "-kInf"
    if float(v) == int(v) and abs(v) < 2**53:
        return repr(float(v)) if not (v == 0 and math.copysign(1, v) < 0) else "-0.0"
    return repr(float(v))


def vec(t):
    return "{" + ", ".join(num(x) for x in t.flatten().tolist()) + "}"


def case(op, a, b=None, f=None, arg=0):
    """One case: op applied by the test to a (and b); f computes PyTorch's."""
    bt = b if b is not None else torch.tensor([])
    try:
        r = f()
        res = '%s, %s, ""' % (DT[r.dtype], vec(r.to(torch.float64) if r.dtype != torch.bool
                                                 else r))
    except Exception as e:  # noqa: BLE001
        msg = str(e).split("\n")[0].replace('"', '\\"')
        res = 'kFloat, {}, "%s"' % msg
    lines.append('{"%s", %d, %s, %s, %s, %s, %s},' % (
        op, arg, DT[a.dtype], vec(a.to(torch.float64) if a.dtype != torch.bool else a),
        DT[bt.dtype], vec(bt.to(torch.float64) if bt.dtype != torch.bool else bt), res))


F64, F32 = torch.float64, torch.float32
erf_in = [0.0, 0.5, -0.5, 1.0, -1.0, 1.5, 0.999999, nan, 0.3, -0.9, 1e-10, 0.9999999999,
          -0.0, 0.75, -0.999]
gamma_in = [0.0, -0.0, -1.0, 1.0, 0.5, -0.5, inf, -inf, -2.5, 100.0, 1e-8, 30.0, 10.0,
            3.7, -7.3, 1e17, nan, 2.0]
bessel_in = [0.0, 1.0, -2.0, 10.0, 29.9, 30.0, 30.1, -50.0, 100.0, 700.0, 713.0, 800.0,
             inf, -inf, nan, 0.001, 8.5, -15.0]
sinc_in = [0.0, 0.5, 1.0, -1.5, inf, 1e-20, nan, 2.25, -3.0, 1e-4]

def erfinv_exact(x):
    """erfinv to double precision (mpmath): 1.13's float64 erfinv loses
    digits in the tails (2e-12 relative at 0.999999, 1e-8 at 1 - 1e-10);
    ember's Newton steps on erfc do not."""
    import mpmath
    mpmath.mp.dps = 40
    return torch.tensor([float(mpmath.erfinv(mpmath.mpf(v))) if 0 < abs(v) < 1 else
                         torch.tensor(v, dtype=F64).erfinv().item() for v in x.tolist()],
                        dtype=F64)


for dt in (F64, F32):
    sfx = "_f64" if dt == F64 else "_f32"
    x = torch.tensor(erf_in, dtype=dt)
    case("erfinv" + sfx, x, f=(lambda: erfinv_exact(x)) if dt == F64 else (lambda: x.erfinv()))
    g = torch.tensor(gamma_in, dtype=dt)
    case("lgamma" + sfx, g, f=lambda: g.lgamma())
    case("digamma" + sfx, g, f=lambda: g.digamma())
    for n in (0, 1, 2, 3, 4):
        case("polygamma" + sfx, g, f=lambda: torch.polygamma(n, g), arg=n)
    bx = torch.tensor(bessel_in, dtype=dt)
    case("i0" + sfx, bx, f=lambda: bx.i0())
    case("i1" + sfx, bx, f=lambda: torch.special.i1(bx))
    s = torch.tensor(sinc_in, dtype=dt)
    case("sinc" + sfx, s, f=lambda: s.sinc())

ints = torch.tensor([1, 2, 0, -3])
case("erfinv_int", ints, f=lambda: ints.erfinv())
case("lgamma_int", ints, f=lambda: ints.lgamma())
case("digamma_int", ints, f=lambda: ints.digamma())
case("polygamma_int", ints, f=lambda: torch.polygamma(1, ints), arg=1)
case("polygamma_neg", ints.double(), f=lambda: torch.polygamma(-1, ints.double()), arg=-1)
case("i0_int", ints, f=lambda: ints.i0())
case("sinc_int", ints, f=lambda: ints.sinc())
h = torch.tensor([0.5, -0.25, 2.0, 0.0]).bfloat16()
case("erfinv_bf16", h, f=lambda: h.erfinv())
case("lgamma_bf16", h, f=lambda: h.lgamma())
h16 = torch.tensor([0.5, -0.25, 2.0, 0.0]).half()
# 1.13 refuses float16 on the CPU ("digamma" not implemented for 'Half');
# ember computes it in float and rounds once, as PyTorch 2.x.
case("digamma_f16", h16, f=lambda: h16.float().digamma().half())

sb = torch.tensor([-0.0, 0.0, -1.0, nan, -nan, inf, -inf, 2.5])
case("signbit_f32", sb, f=lambda: sb.signbit())
case("signbit_f64", sb.double(), f=lambda: sb.double().signbit())
si = torch.tensor([-1, 2, 0, -128], dtype=torch.int16)
case("signbit_i16", si, f=lambda: si.signbit())
su = torch.tensor([1, 0, 255], dtype=torch.uint8)
case("signbit_u8", su, f=lambda: su.signbit())
sbool = torch.tensor([True, False])
case("signbit_bool", sbool, f=lambda: sbool.signbit())
# Without NaN: 1.13 converts float NaN to the bfloat16 0xffff (sign set),
# ember to 0x7fc0.
sbf = sb[[0, 1, 2, 5, 6, 7]].bfloat16()
case("signbit_bf16", sbf, f=lambda: sbf.signbit())

ca = torch.tensor([1.0, -2.0, 3.0, 0.0, inf, nan])
cb = torch.tensor([-1.0, 0.0, -0.0, -5.0, -1.0, -2.0])
case("copysign", ca, cb, f=lambda: ca.copysign(cb))
ia, ib = torch.tensor([1, 2, -3]), torch.tensor([-1, 0, 4])
case("copysign", ia, ib, f=lambda: ia.copysign(ib))
case("copysign_scalar_neg0", ca, f=lambda: ca.copysign(-0.0))
case("copysign", ca.half(), cb, f=lambda: ca.half().copysign(cb))
case("copysign", ca.double(), cb.bfloat16(), f=lambda: ca.double().copysign(cb.bfloat16()))
ha = torch.tensor([3.0, 1e300, -5.0, inf, nan, 0.0], dtype=F64)
hb = torch.tensor([4.0, 1e300, 12.0, nan, inf, -0.0], dtype=F64)
case("hypot", ha, hb, f=lambda: ha.hypot(hb))
case("hypot", ha.float(), hb.float(), f=lambda: ha.float().hypot(hb.float()))
case("hypot", ia, ib, f=lambda: ia.hypot(ib))
na = torch.tensor([1.0, 2.0, 0.0, 0.0, inf, nan, 1.0, -1.0])
nb = torch.tensor([2.0, 1.0, 1.0, -1.0, 0.0, 1.0, 1.0, -inf])
for dt in (F32, F64, torch.bfloat16, torch.float16):
    case("nextafter", na.to(dt), nb.to(dt), f=lambda: na.to(dt).nextafter(nb.to(dt)))
case("nextafter", ia, ib, f=lambda: ia.nextafter(ib))
le = torch.tensor([3, -1, 0, 10])
lm = torch.tensor([1.0, 2.0, -1.5, 0.75])
case("ldexp", lm, le, f=lambda: lm.ldexp(le))
case("ldexp", ia, torch.tensor([3, -1, 2]), f=lambda: ia.ldexp(torch.tensor([3, -1, 2])))
case("ldexp", lm.double(), le.float(), f=lambda: lm.double().ldexp(le.float()))
fb = torch.tensor([2, 3, -2, 0])
fe = torch.tensor([0.5, 2.0, 3.0, -1.0])
case("float_power", fb, fe, f=lambda: fb.float_power(fe))
case("float_power", fb.float(), fe.float(), f=lambda: fb.float().float_power(fe.float()))
case("float_power_scalar", fb, f=lambda: fb.float_power(2))
case("float_power_scalar_base", fe, f=lambda: torch.float_power(2, fe))
case("float_power_", fb.float(), fe, f=lambda: fb.float().float_power_(fe))
case("float_power_", fb.double(), fe, f=lambda: fb.double().float_power_(fe))

ga = torch.tensor([12, -18, 0, 0, 7, -4, 2**40])
gb = torch.tensor([8, 12, 5, 0, -21, -6, 2**20 * 3])
case("gcd", ga, gb, f=lambda: ga.gcd(gb))
case("lcm", ga[:6], gb[:6], f=lambda: ga[:6].lcm(gb[:6]))
u8, i8 = torch.tensor([12, 200], dtype=torch.uint8), torch.tensor([8, -50], dtype=torch.int8)
case("gcd", u8, i8, f=lambda: u8.gcd(i8))
case("lcm", u8, i8, f=lambda: u8.lcm(i8))
case("gcd", ca, cb, f=lambda: ca.gcd(cb))
case("gcd", sbool, sbool, f=lambda: sbool.gcd(sbool))
i16a = torch.tensor([300, -7], dtype=torch.int16)
i16b = torch.tensor([-200, 3], dtype=torch.int16)
case("lcm", i16a, i16b, f=lambda: i16a.lcm(i16b))

sa = torch.tensor([5, -7, 3, 1, -1, 100], dtype=torch.int32)
sc = torch.tensor([1, 2, 30, 31, 5, 0], dtype=torch.int32)
for dt in (torch.int32, torch.int64, torch.int16, torch.int8):
    a_, c_ = sa.to(dt), torch.tensor([1, 2, 3, 4, 5, 0], dtype=dt)
    case("lshift", a_, c_, f=lambda: a_ << c_)
    case("rshift", a_, c_, f=lambda: a_ >> c_)
case("lshift", sa, sc, f=lambda: sa << sc)
case("rshift", sa, sc, f=lambda: sa >> sc)
ua = torch.tensor([5, 200, 255, 1], dtype=torch.uint8)
uc = torch.tensor([1, 1, 4, 7], dtype=torch.uint8)
case("lshift", ua, uc, f=lambda: ua << uc)
case("rshift", ua, uc, f=lambda: ua >> uc)
case("lshift_scalar2", sa, f=lambda: sa << 2)
case("rshift_scalar2", sa, f=lambda: sa >> 2)
case("lshift_scalar_base2", sc[:4], f=lambda: torch.bitwise_left_shift(2, sc[:4]))
case("lshift_scalar2", torch.tensor([True, False]), f=lambda: torch.tensor([True, False]) << 2)
case("lshift", sbool, sbool, f=lambda: sbool << sbool)
case("lshift", ca, cb, f=lambda: ca << cb)
case("lshift_scalar1.5", sa, f=lambda: sa.bitwise_left_shift(1.5))
case("lshift_", sa, sc.to(torch.int64), f=lambda: sa.clone().bitwise_left_shift_(
    sc.to(torch.int64)))
case("rshift_", sa.to(torch.int8), torch.tensor([1, 2, 3, 0, 1, 2], dtype=torch.int8),
     f=lambda: sa.to(torch.int8).clone().bitwise_right_shift_(
         torch.tensor([1, 2, 3, 0, 1, 2], dtype=torch.int8)))

pi = torch.tensor([inf, -inf, nan, 1.0, -0.0])
for dt in (F32, torch.float16, torch.bfloat16, F64):
    case("isposinf", pi.to(dt), f=lambda: pi.to(dt).isposinf())
    case("isneginf", pi.to(dt), f=lambda: pi.to(dt).isneginf())
case("isposinf", ints, f=lambda: ints.isposinf())
case("isneginf", sbool, f=lambda: sbool.isneginf())
case("isreal", pi, f=lambda: pi.isreal())
case("isreal", ints, f=lambda: ints.isreal())

xa = torch.tensor([0.0, 1.5, -2.0, 0.25])
case("sgn_", xa, f=lambda: xa.clone().sgn_())
case("sgn_", ints, f=lambda: ints.clone().sgn_())
case("deg2rad_", xa, f=lambda: xa.clone().deg2rad_())
case("deg2rad_", ints, f=lambda: ints.clone().deg2rad_())
case("rad2deg_", xa.double(), f=lambda: xa.double().clone().rad2deg_())
lx = torch.tensor([0.25, 0.5, 0.9, 0.0])
case("logit_", lx, f=lambda: lx.clone().logit_())
case("logit_eps", lx, f=lambda: lx.clone().logit_(0.1))
ya = torch.tensor([0.0, 2.0, 3.0, 0.5])
yb = torch.tensor([nan, 3.0, 0.5, 2.0])
case("xlogy_", ya, yb, f=lambda: ya.clone().xlogy_(yb))
case("xlogy_scalar3", ya, f=lambda: ya.clone().xlogy_(3))
case("xlogy_", ints, torch.tensor([1.0, 2.0, 3.0, 4.0]),
     f=lambda: ints.clone().xlogy_(torch.tensor([1.0, 2.0, 3.0, 4.0])))
hv = torch.tensor([-1.0, 0.0, 2.0, 0.0])
case("heaviside_", hv, torch.tensor([0.5, 0.5, 0.5, 7.0]),
     f=lambda: hv.clone().heaviside_(torch.tensor([0.5, 0.5, 0.5, 7.0])))

# Gradients (sum of the output's backward with ones), float64.
grad_lines = []


def grad_case(op, a, b=None, f=None, arg=0):
    a = a.clone().requires_grad_()
    ins = [a]
    if b is not None:
        b = b.clone().requires_grad_()
        ins.append(b)
    r = f(*ins)
    r.sum().backward()
    gb_ = vec(b.grad) if b is not None else "{}"
    grad_lines.append('{"%s", %d, %s, %s, %s, %s, "%s"},' % (
        op, arg, vec(a.detach()), vec(b.detach()) if b is not None else "{}", vec(a.grad),
        gb_, type(r.grad_fn).__name__))


gx = torch.tensor([0.3, -0.7, 0.95, 0.0], dtype=F64)
grad_case("erfinv", gx, f=lambda a: a.erfinv())
gp = torch.tensor([0.3, 2.5, -1.5, 7.0], dtype=F64)
grad_case("lgamma", gp, f=lambda a: a.lgamma())
grad_case("digamma", gp, f=lambda a: a.digamma())
grad_case("polygamma", gp, f=lambda a: torch.polygamma(2, a), arg=2)
gi = torch.tensor([0.0, 1.5, -3.0, 40.0], dtype=F64)
grad_case("i0", gi, f=lambda a: a.i0())
grad_case("i1", gi, f=lambda a: torch.special.i1(a))
grad_case("sinc", gi, f=lambda a: a.sinc())
gc = torch.tensor([1.5, -2.0, 0.0, 3.0], dtype=F64)
gd = torch.tensor([-1.0, 2.0, -3.0, 0.5], dtype=F64)
grad_case("copysign", gc, gd, f=lambda a, b: a.copysign(b))
grad_case("hypot", gc, gd, f=lambda a, b: a.hypot(b))
grad_case("ldexp", gc, gd, f=lambda a, b: a.ldexp(b))
grad_case("float_power", gd.abs(), gc, f=lambda a, b: a.float_power(b))

with open(OUT, "w") as out:
    out.write("// Generated by tools/golden/special.py from PyTorch %s; do not edit.\n"
              % torch.__version__)
    out.write("// {op, arg, a dtype, a, b dtype, b, result dtype, result, error}\n")
    out.write("#ifdef EMBER_SPECIAL_VALUE_CASES\n")
    out.write("\n".join(lines) + "\n#endif\n")
    out.write("// {op, arg, a, b, grad a, grad b, grad_fn}\n")
    out.write("#ifdef EMBER_SPECIAL_GRAD_CASES\n")
    out.write("\n".join(grad_lines) + "\n#endif\n")
print(len(lines), "value cases,", len(grad_lines), "gradient cases ->", OUT)
