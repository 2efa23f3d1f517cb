#!/usr/bin/python3
"""What PyTorch 1.13 does in the cases of tensor/parity_test.cc (issue 22):
in-place / out-of-place twins, numbers that do not fit a dtype, bool
subtraction, uint8 masks, int64 average pooling, bernoulli(p) under a seed.
Run with Debian's PyTorch: /usr/bin/python3 tools/golden/parity.py
The printed values are pasted into the test, which names each case."""
import torch
import torch.nn.functional as F


def err(f):
    try:
        return repr(f())
    except Exception as e:  # noqa: BLE001
        return "error: " + str(e).split("\n")[0]


x = torch.tensor([[5.0, -7.0, 9.0], [-4.5, 3.0, 8.0]])
y = torch.tensor([2.0, 3.0, -4.0])
i = torch.tensor([[5, -7, 9], [-4, 3, 8]])
print("fmod_", x.clone().fmod_(y).tolist(), x.clone().fmod_(2.5).tolist())
print("remainder_", x.clone().remainder_(y).tolist(), i.clone().remainder_(3).tolist())
print("floor_divide_", x.clone().floor_divide_(y).tolist(), i.clone().floor_divide_(2).tolist())
print("floor_divide_ int by float", err(lambda: i.clone().floor_divide_(2.5)))
print("atan2_", x.clone().atan2_(y).tolist())
print("lerp_", x.clone().lerp_(torch.zeros(2, 3), 0.25).tolist())
print("clamp_min_/max_", x.clone().clamp_min_(0).tolist(), x.clone().clamp_max_(0).tolist())
print("eq_/lt_", x.clone().eq_(3.0).tolist(), x.clone().lt_(y).tolist(), i.clone().ge_(3).tolist())
print("logical_and_", x.clone().logical_and_(torch.tensor([True, False, True])).tolist())
print("bitwise_xor_", i.clone().bitwise_xor_(torch.tensor([1, 2, 3])).tolist())
print("tril_/triu_", x.clone().tril_().tolist(), x.clone().triu_(1).tolist())
print("cumsum_/cumprod_", x.clone().cumsum_(1).tolist(), x.clone().cumprod_(0).tolist())
print("addmm_", torch.ones(2, 2).addmm_(x, x.t(), beta=0.5, alpha=2).tolist())
print("index_add", x.index_add(1, torch.tensor([0, 2]), torch.ones(2, 2), alpha=3).tolist())
print("index_fill", x.index_fill(0, torch.tensor([1]), -1.0).tolist())
print("index_copy", x.index_copy(1, torch.tensor([1]), torch.tensor([[10.0], [20.0]])).tolist())
print("masked_scatter", torch.zeros(3).masked_scatter(torch.tensor([[True, False, True]]),
                                                      torch.tensor([1.0, 2.0])).tolist())
print("index_put", x.index_put((torch.tensor([0, 1]), torch.tensor([2, 0])),
                               torch.tensor(7.0)).tolist())
torch.manual_seed(3)
print("bernoulli f32", torch.tensor([0.1, 0.5, 0.9, 0.3, 0.7, 0.2]).bernoulli().tolist())
torch.manual_seed(0)
print("bernoulli f32 seed0", torch.full((8,), 0.5).bernoulli().tolist())
torch.manual_seed(0)
print("bernoulli f64 seed0", torch.full((8,), 0.5, dtype=torch.float64).bernoulli().tolist())
print("bernoulli p>1", err(lambda: torch.tensor([1.5]).bernoulli()))
print("bernoulli long", err(lambda: torch.tensor([1]).bernoulli()))
u = torch.tensor([1, 2, 3], dtype=torch.uint8)
m = torch.tensor([True, False, True])
for name, f in [
    ("masked_fill -2.5", lambda: u.masked_fill(m, -2.5)),
    ("masked_fill -1", lambda: u.masked_fill(m, -1).tolist()),
    ("masked_fill 256", lambda: u.masked_fill(m, 256)),
    ("full_like 300", lambda: torch.full_like(u, 300)),
    ("full 300", lambda: torch.full((2,), 300, dtype=torch.uint8)),
    ("fill_ -129", lambda: u.clone().fill_(-129).tolist()),
    ("fill_ nan", lambda: u.clone().fill_(float("nan"))),
    ("int8 fill_ 200", lambda: torch.zeros(2, dtype=torch.int8).fill_(200)),
    ("int32 fill_ 3e9", lambda: torch.zeros(2, dtype=torch.int32).fill_(3e9)),
    ("half fill_ 70000", lambda: torch.zeros(2, dtype=torch.half).fill_(70000)),
    ("half fill_ inf", lambda: torch.zeros(2, dtype=torch.half).fill_(float("inf")).tolist()),
    ("float fill_ 1e300", lambda: torch.zeros(2).fill_(1e300)),
    ("index_fill_ 300", lambda: u.clone().index_fill_(0, torch.tensor([0]), 300)),
    ("scatter_ 300", lambda: u.clone().scatter_(0, torch.tensor([0]), 300)),
    ("clamp max 300", lambda: u.clamp(max=300)),
    ("clamp min -1", lambda: u.clamp(min=-1).tolist()),
    ("add alpha 300", lambda: torch.add(u, u, alpha=300)),
    ("add 300 wraps", lambda: (u + 300).tolist()),
    ("x - True", lambda: torch.tensor([1.0, 2.0]) - True),
    ("True - x", lambda: True - torch.tensor([1.0, 2.0])),
    ("bool - 1", lambda: torch.tensor([True]) - 1),
    ("sub_ True", lambda: torch.tensor([1.0]).sub_(True)),
    ("uint8 mask 2", lambda: torch.tensor([1.0, 2.0, 3.0]).masked_fill(
        torch.tensor([1, 0, 2], dtype=torch.uint8), 0.0)),
    ("avg_pool2d long", lambda: F.avg_pool2d(torch.arange(16).view(1, 1, 4, 4), 2).tolist()),
    ("avg_pool2d long pad", lambda: F.avg_pool2d(torch.arange(-8, 8).view(1, 1, 4, 4), 3, 1, 1)
     .tolist()),
    ("avg_pool2d int", lambda: F.avg_pool2d(torch.arange(16, dtype=torch.int32).view(1, 1, 4, 4),
                                            2)),
]:
    print(name, "->", err(f))

# The pooling backwards with ATen's signature (grad_output, self, ...): the
# gradient's strides follow self's memory format, never grad_output's.
A = torch.ops.aten
x = torch.arange(2 * 3 * 4 * 4, dtype=torch.float).reshape(2, 3, 4, 4)
gy = torch.arange(2 * 3 * 2 * 2, dtype=torch.float).reshape(2, 3, 2, 2)
cl = torch.channels_last
for sname, s in [("self rows", x), ("self cl", x.contiguous(memory_format=cl)),
                 ("self transposed", x.transpose(2, 3))]:
    for gname, g in [("gy rows", gy), ("gy cl", gy.contiguous(memory_format=cl))]:
        _, i = A.max_pool2d_with_indices(s, [2, 2], [2, 2])
        print(sname, gname,
              "avg", A.avg_pool2d_backward(g, s, [2, 2], [2, 2], [0, 0], False, True, None).stride(),
              "adaptive", A._adaptive_avg_pool2d_backward(g, s).stride(),
              "max", A.max_pool2d_with_indices_backward(g, s, [2, 2], [2, 2], [0, 0], [1, 1], False,
                                                        i).stride())
print("avg_pool2d_backward wrong size ->", err(lambda: A.avg_pool2d_backward(
    gy[:, :, :1], x, [2, 2], [2, 2], [0, 0], False, True, None)))
_, i = A.max_pool2d_with_indices(x, [2, 2], [2, 2])
print("max_pool2d_with_indices_backward wrong kernel ->", err(lambda: A.max_pool2d_with_indices_backward(
    gy, x, [3, 3], [2, 2], [0, 0], [1, 1], False, i)))

# sort and argsort: libtorch's stable overload sort(stable, dim, descending),
# and results with the input's strides.
t = torch.tensor([[3.0, 1.0, 2.0], [1.0, 3.0, 1.0]])
print("sort(stable=True, dim=0, descending=True)", [r.tolist() for r in t.sort(stable=True, dim=0, descending=True)])
print("argsort(stable=True, dim=1)", t.argsort(stable=True, dim=1).tolist())
tt = torch.tensor([[3.0, 1.0], [1.0, 3.0], [2.0, 1.0]]).t()
v, i = tt.sort(1)
print("sort of a transposed input: strides", v.stride(), i.stride(), v.tolist(), i.tolist())
cl = torch.arange(24.0).flip(0).reshape(1, 2, 3, 4).contiguous(memory_format=torch.channels_last)
print("argsort of channels-last: strides", cl.argsort(1).stride())
print("lerp bf16", torch.lerp(torch.tensor([1.0, 2.0, -3.0]).bfloat16(),
                              torch.tensor([3.0, 5.0, 7.0]).bfloat16(), 0.3).float().tolist())

# Activations refuse integer inputs as PyTorch's kernels do; hardtanh (and
# relu6) clamp integers in their dtype.
xi = torch.tensor([-2, 0, 3])
for name, f in [("silu", F.silu), ("mish", F.mish), ("softplus", F.softplus),
                ("log_sigmoid", F.logsigmoid), ("hardsigmoid", F.hardsigmoid),
                ("hardswish", F.hardswish), ("leaky_relu", F.leaky_relu), ("elu", F.elu),
                ("celu", F.celu), ("softshrink", F.softshrink), ("hardshrink", F.hardshrink)]:
    print(name, "int64 ->", err(lambda: f(xi)))
print("hardtanh int64 -0.5 2.5 ->", err(lambda: F.hardtanh(xi, -0.5, 2.5).tolist()))
print("hardtanh uint8 0.5 2.5 ->", err(lambda: F.hardtanh(xi.to(torch.uint8), 0.5, 2.5).tolist()))
print("hardtanh uint8 -1 1 ->", err(lambda: F.hardtanh(xi.to(torch.uint8))))
print("hardtanh bool ->", err(lambda: F.hardtanh(xi > 0)))
print("relu6 int64 ->", err(lambda: F.relu6(xi).tolist()))
print("threshold bool ->", err(lambda: F.threshold(xi > 0, 0, 1)))
print("hardtanh uint8 -0.5 2.5 ->", err(lambda: F.hardtanh(xi.to(torch.uint8), -0.5, 2.5).tolist()))

# Out-of-place scatter, scatter_add, index_add, index_copy and masked_scatter
# (structured ops), and log_sigmoid, are row-major whatever self's layout;
# index_fill and index_put keep it.
xt = torch.arange(12.0).reshape(4, 3).t()
i = torch.tensor([[0, 1, 0, 1]])
ii = torch.tensor([0, 2])
for name, f in [("scatter", lambda: xt.scatter(0, i, 1.0)),
                ("scatter_add", lambda: xt.scatter_add(0, i, xt[:1])),
                ("index_add", lambda: xt.index_add(1, ii, torch.ones(3, 2))),
                ("index_copy", lambda: xt.index_copy(1, ii, torch.ones(3, 2))),
                ("masked_scatter", lambda: xt.masked_scatter(xt > 4, torch.zeros(12))),
                ("log_sigmoid", lambda: F.logsigmoid(xt)),
                ("index_fill", lambda: xt.index_fill(1, ii, 2.0))]:
    print(name, "of a transposed [3, 4]: strides", f().stride())
# lerp branches on weight < 0.5 in 1.13 (2.x: |weight| < 0.5): a weight
# below -0.5 with an infinite end.
s_, e_ = torch.tensor([-0.099]), torch.tensor([float("-inf")])
print("lerp -3.308 to -inf", torch.lerp(s_, e_, -3.308).tolist(), torch.lerp(s_, e_, torch.tensor([-3.308])).tolist(),
      torch.lerp(s_, e_, 0.7).tolist())

# asinh, acosh, atanh, erfc (the sweep found them missing), float32 and
# float64, with infinities, NaN and out-of-domain inputs; integers promote.
v = torch.tensor([-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, float("inf"), float("-inf"), float("nan")], dtype=torch.float64)
for name in ["asinh", "acosh", "atanh", "erfc"]:
    print(name, getattr(v, name)().tolist(), getattr(v.float(), name)().tolist(),
          getattr(torch.tensor([1, 2]), name)().dtype)

# Stop 41: the sweep's edge cases.
# Products with nothing to multiply return before the dtype check, in the
# dtype of the operand ATen allocates like (mm: self, bmm: batch2, mv: vec).
E = torch.empty
for name, f in [("mm bf16 [0,3] f32 [3,0]", lambda: torch.mm(E(0, 3, dtype=torch.bfloat16), E(3, 0))),
                ("mm bool [2,0] [0,2]", lambda: torch.mm(E(2, 0, dtype=torch.bool), E(0, 2, dtype=torch.bool))),
                ("mm f32 [2,0] f64 [0,2]", lambda: torch.mm(E(2, 0), E(0, 2, dtype=torch.double))),
                ("bmm bf16 [2,0,3] f32 [2,3,4]", lambda: torch.bmm(E(2, 0, 3, dtype=torch.bfloat16), E(2, 3, 4))),
                ("bmm f32 [2,2,0] i64 [2,0,3]", lambda: torch.bmm(E(2, 2, 0), E(2, 0, 3, dtype=torch.long))),
                ("mv bf16 [0,3] i32 [3]", lambda: torch.mv(E(0, 3, dtype=torch.bfloat16), torch.ones(3, dtype=torch.int))),
                ("mv f32 [2,0] f64 [0]", lambda: torch.mv(E(2, 0), E(0, dtype=torch.double))),
                ("matmul f32 [3,2,0] f64 [0,2]", lambda: torch.matmul(E(3, 2, 0), E(0, 2, dtype=torch.double))),
                ("mm bool [2,3] [3,2]", lambda: torch.mm(torch.ones(2, 3, dtype=torch.bool), torch.ones(3, 2, dtype=torch.bool))),
                # An empty index is neither dtype- nor shape-checked.
                ("scatter_add empty int32 index", lambda: E(2, 3).scatter_add(0, E(3, 0, dtype=torch.int), E(0, 3))),
                ("scatter empty index of other rank", lambda: torch.zeros(2, 3).scatter(0, E(3, 0, 0, dtype=torch.long), 1.0)),
                ("gather empty int32 index", lambda: E(2, 3).gather(0, E(3, 0, dtype=torch.int))),
                ("scatter_add empty index, other src dtype", lambda: E(2, 3).scatter_add(0, E(3, 0, dtype=torch.long), E(0, 3).double())),
                # Empty softmax of integers; argmax over a size-1 dim of bools.
                ("softmax empty int64", lambda: torch.softmax(E(0, 3, dtype=torch.long), 0)),
                ("log_softmax empty int32", lambda: torch.log_softmax(E(2, 0, dtype=torch.int), -1)),
                ("softmax int64 [3]", lambda: torch.softmax(torch.ones(3, dtype=torch.long), 0)),
                ("argmax bool [1,3] dim 0", lambda: torch.ones(1, 3, dtype=torch.bool).argmax(0)),
                ("argmin bool [1] dim 0 keepdim", lambda: torch.ones(1, dtype=torch.bool).argmin(0, keepdim=True)),
                ("argmax bool [0,3] dim 1", lambda: E(0, 3, dtype=torch.bool).argmax(1)),
                ("argmax bool [3]", lambda: torch.ones(3, dtype=torch.bool).argmax(0)),
                ("norm -inf over an empty dim", lambda: torch.norm(E(0, 3), float("-inf"), 0)),
                ("norm inf over an empty dim", lambda: torch.norm(E(0, 3), float("inf"), 0))]:
    try:
        r = f()
        print(name, "->", r.dtype, tuple(r.shape), r.stride(), r.tolist())
    except Exception as e:
        print(name, "-> raises", str(e).split("\n")[0])

# Result layouts: cat and roll keep a common channels-last format (whatever
# the dtypes); advanced indexing lays its result out as TensorIterator
# would; pow(number, x) is row-major; matrix_exp keeps its input's layout.
cl = torch.arange(120.).reshape(2, 3, 4, 5).contiguous(memory_format=torch.channels_last)
perm = torch.arange(24.).reshape(2, 3, 4).permute(2, 0, 1)
xt = torch.arange(12.).reshape(4, 3).t()
for name, f in [("cat cl f32 + cl f64", lambda: torch.cat([cl, cl.double()])),
                ("cat cl + contiguous", lambda: torch.cat([cl, cl.contiguous()])),
                ("cat cl[:, :1] twice on dim 1", lambda: torch.cat([cl[:, :1], cl[:, :1]], 1)),
                ("roll cl 1 0", lambda: cl.roll(1, 0)),
                ("roll transposed 1 0", lambda: xt.roll(1, 0)),
                ("stack cl", lambda: torch.stack([cl, cl])),
                ("cl[[0,1]]", lambda: cl[[0, 1]]),
                ("cl[:, :, [1,2]]", lambda: cl[:, :, [1, 2]]),
                ("cl[..., [1,2]]", lambda: cl[..., [1, 2]]),
                ("perm[:, :, [0,1]]", lambda: perm[:, :, [0, 1]]),
                ("perm[:, [0,1]]", lambda: perm[:, [0, 1]]),
                ("xt[True]", lambda: xt[torch.tensor(True)]),
                ("xt[[0,1]]", lambda: xt[[0, 1]]),
                ("pow(2, xt)", lambda: torch.pow(2, xt)),
                ("ldexp(xt, xt)", lambda: torch.ldexp(xt, xt)),
                ("matrix_exp(transposed)", lambda: torch.matrix_exp(xt[:, :3] / 10)),
                ("matrix_exp(batch transposed)", lambda: torch.matrix_exp(torch.arange(18.).reshape(2, 3, 3).transpose(1, 2) / 20))]:
    r = f()
    print(name, "-> strides", r.stride(), r.flatten().tolist()[:6])
# round(decimals) in bfloat16 rounds the scaled value to bfloat16 first.
b = torch.tensor([-1.1484, 2.71828, 123.456, -0.05], dtype=torch.bfloat16)
print("bf16 round 1", b.round(decimals=1).float().tolist(), "-1", b.round(decimals=-1).float().tolist(),
      "4", b.round(decimals=4).float().tolist())
# Empty matrices factor before the dtype check.
for name, f in [("lu_factor empty bool", lambda: torch.linalg.lu_factor(E(0, 3, dtype=torch.bool))),
                ("linalg_lu empty int32 batch", lambda: torch.linalg.lu(E(2, 0, 3, dtype=torch.int))),
                ("svdvals empty half", lambda: (torch.linalg.svdvals(E(0, 3, dtype=torch.half)),)),
                ("lu_factor int32", lambda: torch.linalg.lu_factor(torch.ones(2, 2, dtype=torch.int))),
                ("svdvals empty int32", lambda: torch.linalg.svdvals(E(3, 0, dtype=torch.int)))]:
    try:
        print(name, "->", [(t.dtype, tuple(t.shape)) for t in f()])
    except Exception as e:
        print(name, "-> raises", str(e).split("\n")[0])
# Composite elementwise ops take TensorIterator's layout over their inputs.
x = torch.arange(12.).reshape(4, 3).t() + 1
c = torch.arange(12.).reshape(3, 4) + 1
e = (torch.arange(4.) + 1).expand(3, 4)
for name, f in [("xlogy(e, x)", lambda: torch.xlogy(e, x)), ("xlogy(c, x)", lambda: torch.xlogy(c, x)),
                ("xlogy(x, c)", lambda: torch.xlogy(x, c)),
                ("heaviside(expanded, x)", lambda: torch.heaviside(torch.tensor([-1., 0, 2, 3]).expand(3, 4), x)),
                ("logaddexp(e, x)", lambda: torch.logaddexp(e, x)), ("logaddexp2(x, c)", lambda: torch.logaddexp2(x, c)),
                ("lerp(c, e, x)", lambda: torch.lerp(c, e, x)), ("lerp(x, c, c / 20)", lambda: torch.lerp(x, c, c / 20))]:
    r = f()
    print(name, "-> strides", r.stride(), r.tolist())
# stack: cat along dim, then a view (channels-last kept), or cat of unsqueezes at the end.
for d in [0, 2, 4]:
    print("stack cl dim", d, "-> strides", torch.stack([cl, cl], d).stride())
print("stack transposed -> strides", torch.stack([xt, xt]).stride())
