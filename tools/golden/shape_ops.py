#!/usr/bin/python3
"""What PyTorch 1.13 gives for the cases of tensor/shape_ops_test.cc (tile,
repeat_interleave, rot90, tensor_split, take_along_dim, trace, addmv, addr,
addbmm, matrix_power, diag_embed, the *_scatter ops...) and the grad_fn
names of the recorded ones. Run with Debian's PyTorch:
/usr/bin/python3 tools/golden/shape_ops.py
Each line is `case -> expectation`, in the test's spelling: a result is
{dtype, sizes, strides, flattened values}, a list of results one per
piece, an error is its first line. The values are pasted into the tests.

PyTorch 1.13's Python binding of slice_scatter reads start and end wrongly
when one is left out or negative (`torch.zeros(3, 4).slice_scatter(
torch.ones(2, 4), start=1)` raises about negative strides), so its cases
are checked against slice assignment into a clone, what the op means and
what libtorch's C++ slice_scatter computes."""
import torch

DT = {torch.float32: "kFloat", torch.float64: "kDouble", torch.int64: "kLong",
      torch.int32: "kInt", torch.bool: "kBool", torch.int8: "kChar", torch.float16: "kHalf"}


def fmt(v):
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, float) and v == int(v):
        return str(int(v))
    return repr(v)


def one(t):
    vals = t.flatten().tolist() if t.dim() else [t.item()]
    return "{%s, {%s}, {%s}, {%s}}" % (DT[t.dtype], ", ".join(map(str, t.shape)),
                                        ", ".join(map(str, t.stride())),
                                        ", ".join(fmt(v) for v in vals))


def show(name, f):
    try:
        r = f()
        if isinstance(r, (list, tuple)):
            out = "{" + ", ".join(one(t) for t in r) + "}"
        else:
            out = one(r)
    except Exception as e:  # noqa: BLE001
        out = "error: " + str(e).split("\n")[0]
    print(name, "->", out)


x = torch.arange(6.).view(2, 3)           # float [2, 3]
xt = torch.arange(6.).view(3, 2).t()       # float [2, 3], column-major
m = torch.arange(9.).view(3, 3)
i7 = torch.arange(7)
z = torch.zeros(3, 4)

# --- shape ---
show("tile", lambda: x.tile((2,)))
show("tile 3", lambda: x.tile((2, 1, 2)))
show("tile 0d", lambda: torch.tensor(3.).tile(()))
show("tile 0d 2", lambda: torch.tensor(3.).tile((2,)))
show("tile neg", lambda: x.tile((-1,)))
show("tile t", lambda: xt.tile((1, 2)))
show("ri", lambda: x.repeat_interleave(2))
show("ri dim -1", lambda: x.repeat_interleave(2, dim=-1))
show("ri 0d", lambda: torch.tensor(3.).repeat_interleave(2))
show("ri neg", lambda: x.repeat_interleave(-1))
show("ri T", lambda: x.repeat_interleave(torch.tensor([1, 2]), dim=0))
show("ri T t", lambda: xt.repeat_interleave(torch.tensor([0, 2, 1]), dim=1))
show("ri T bad", lambda: x.repeat_interleave(torch.tensor([1, 2, 3]), dim=0))
show("ri T neg", lambda: x.repeat_interleave(torch.tensor([1, -2]), dim=0))
show("ri T 2d", lambda: x.repeat_interleave(torch.tensor([[1, 2]]), dim=0))
show("ri T float", lambda: x.repeat_interleave(torch.tensor([1., 2.]), dim=0))
show("ri T scalar", lambda: x.repeat_interleave(torch.tensor(2), dim=1))
show("ri T nodim6", lambda: x.repeat_interleave(torch.tensor([1, 0, 1, 0, 1, 2])))
show("ri os", lambda: x.repeat_interleave(torch.tensor([1, 2]), dim=0, output_size=3))
show("ri os wrong", lambda: x.repeat_interleave(2, dim=0, output_size=3))
show("ri dim bad", lambda: x.repeat_interleave(2, dim=2))
show("ri empty", lambda: torch.zeros(0, 2).repeat_interleave(2, dim=0))
show("ri free", lambda: torch.repeat_interleave(torch.tensor([1, 0, 3])))
show("ri free int32", lambda: torch.repeat_interleave(torch.tensor([2, 1], dtype=torch.int32)))
show("ri free 2d", lambda: torch.repeat_interleave(torch.tensor([[1, 0, 3]])))
show("ravel", lambda: x.ravel())
show("ravel t", lambda: xt.ravel())
show("fliplr", lambda: x.fliplr())
show("fliplr 1d", lambda: torch.arange(3).fliplr())
show("flipud", lambda: xt.flipud())
show("flipud 0d", lambda: torch.tensor(1).flipud())
show("rot90", lambda: x.rot90())
show("rot90 -1", lambda: x.rot90(-1))
show("rot90 2", lambda: x.rot90(2))
show("rot90 3", lambda: x.rot90(3))
show("rot90 0 t", lambda: xt.rot90(0))
show("rot90 5 10", lambda: x.rot90(5, [1, 0]))
show("rot90 -2 -1", lambda: x.rot90(1, [-2, -1]))
show("rot90 3d", lambda: torch.arange(8).view(2, 2, 2).rot90(1, [0, 2]))
show("rot90 1d", lambda: torch.arange(3).rot90())
show("rot90 same", lambda: x.rot90(1, [0, 0]))
show("rot90 3dims", lambda: x.rot90(1, [0, 1, 1]))
show("rot90 0 -2", lambda: x.rot90(1, [0, -2]))
show("rot90 range", lambda: torch.zeros(2, 2, 2).rot90(1, [0, 3]))
show("ts 3", lambda: i7.tensor_split(3))
show("ts 0", lambda: i7.tensor_split(0))
show("ts idx", lambda: i7.tensor_split([1, 6, 3, 9]))
show("ts idx neg", lambda: i7.tensor_split([-2, 5]))
show("ts T idx", lambda: i7.tensor_split(torch.tensor([1, 5])))
show("ts T sec", lambda: i7.tensor_split(torch.tensor(3)))
show("ts T float", lambda: i7.tensor_split(torch.tensor([1.])))
show("ts T 2d", lambda: i7.tensor_split(torch.tensor([[1]])))
show("ts 0d", lambda: torch.tensor(1).tensor_split(2))
show("ts dim -1", lambda: xt.tensor_split(2, -1))
show("hsplit", lambda: x.hsplit(3))
show("hsplit bad", lambda: x.hsplit(2))
show("hsplit 1d", lambda: torch.arange(4).hsplit(2))
show("hsplit 0d", lambda: torch.tensor(1).hsplit(2))
show("hsplit idx", lambda: x.hsplit([1]))
show("vsplit", lambda: torch.arange(4).view(2, 2).vsplit([1]))
show("vsplit 1d", lambda: torch.arange(4).vsplit(2))
show("vsplit bad", lambda: torch.arange(6.).view(3, 2).vsplit(2))
show("dsplit", lambda: torch.arange(8).view(1, 2, 4).dsplit([1, 3]))
show("dsplit 2", lambda: torch.arange(8).view(1, 2, 4).dsplit(2))
show("dsplit 2d", lambda: x.dsplit(1))
show("dsplit bad", lambda: torch.arange(8).view(1, 2, 4).dsplit(3))
show("tad", lambda: x.take_along_dim(torch.tensor([[2], [0]]), 1))
show("tad bcast", lambda: x.take_along_dim(torch.tensor([[1], [0]]), 0))
show("tad bcast bad", lambda: x.take_along_dim(torch.tensor([[2, 0]]), 0))
show("tad none", lambda: x.take_along_dim(torch.tensor([5, 0])))
show("tad none t", lambda: xt.take_along_dim(torch.tensor([5, 0])))
show("tad dims", lambda: x.take_along_dim(torch.tensor([0]), 0))
show("tad int32", lambda: x.take_along_dim(torch.tensor([[0]], dtype=torch.int32), 0))
show("tad neg", lambda: xt.take_along_dim(torch.tensor([[1]]), -1))
show("broadcast_to", lambda: torch.tensor([1, 2]).broadcast_to((2, 2)))
show("swapaxes", lambda: x.swapaxes(0, -1))
show("swapdims", lambda: torch.zeros(2, 3, 4).swapdims(0, 2))
show("moveaxis", lambda: torch.zeros(2, 3, 4).moveaxis(0, -1))
show("moveaxis list", lambda: torch.zeros(2, 3, 4).moveaxis([0, 1], [2, 0]))
show("moveaxis neg", lambda: torch.zeros(2, 3, 4).moveaxis([-1], [0]))
show("moveaxis bad", lambda: torch.zeros(2, 3, 4).moveaxis([0, 0], [2, 1]))
show("moveaxis bad dst", lambda: torch.zeros(2, 3, 4).moveaxis([0, 1], [1, -2]))
show("moveaxis len", lambda: torch.zeros(2, 3, 4).moveaxis([0], [2, 1]))
show("unsafe_split", lambda: torch.arange(5).unsafe_split(2))
show("unsafe_chunk", lambda: torch.arange(5).unsafe_chunk(3))
show("narrow_copy t", lambda: xt.narrow_copy(0, 1, 1))
show("narrow_copy neg", lambda: x.narrow_copy(-1, -2, 2))
show("narrow_copy bad", lambda: x.narrow_copy(1, 2, 2))
show("sum_to_size", lambda: x.sum_to_size(1, 3))
show("sum_to_size 3", lambda: x.sum_to_size(3))
show("sum_to_size 2 1", lambda: xt.sum_to_size(2, 1))
show("sum_to_size int", lambda: torch.ones(2, 3, dtype=torch.int32).sum_to_size(1, 3))
show("sum_to_size bad", lambda: x.sum_to_size(2, 2))
show("sum_to_size 0d", lambda: x.sum_to_size([]))
show("argwhere", lambda: torch.tensor([[0., 1.], [2., 0.]]).argwhere())
show("argwhere 0d", lambda: torch.tensor(1.).argwhere())

# --- new_* ---
show("new_zeros", lambda: torch.ones(2, dtype=torch.int32).new_zeros([2, 3]))
show("new_ones double", lambda: x.new_ones([2], dtype=torch.float64))
show("new_full", lambda: torch.ones(2, dtype=torch.int32).new_full([2], 7))
show("new_empty t", lambda: xt.new_empty((2, 3)).fill_(0))
show("new_empty_strided", lambda: x.new_empty_strided((2, 3), (1, 2)).fill_(0))

# --- linear algebra ---
show("trace", lambda: m.trace())
show("trace rect", lambda: xt.trace())
show("trace int32", lambda: torch.arange(9, dtype=torch.int32).view(3, 3).trace())
show("trace bool", lambda: torch.ones(2, 2, dtype=torch.bool).trace())
show("trace half", lambda: torch.eye(2).half().trace())
show("trace 1d", lambda: torch.arange(3.).trace())
show("trace empty", lambda: torch.zeros(0, 3).trace())
show("inner", lambda: x.inner(torch.arange(12.).view(4, 3)))
show("inner 0d", lambda: torch.tensor(2.).inner(x))
show("inner 1d", lambda: torch.arange(3.).inner(torch.arange(3.)))
show("inner int", lambda: torch.arange(3).inner(torch.arange(3)))
show("inner 3d", lambda: torch.arange(12.).view(2, 2, 3).inner(xt))
show("inner bad", lambda: x.inner(torch.ones(2)))
show("inner k 0", lambda: torch.ones(2, 0).inner(torch.ones(3, 0)))
v3 = torch.tensor([1., -1., 2.])
show("addmv", lambda: torch.ones(2).addmv(x, v3, beta=2, alpha=0.5))
show("addmv t", lambda: torch.ones(2).addmv(xt, v3))
show("addmv bcast", lambda: torch.tensor(1.).addmv(x, v3))
show("addmv beta0 nan", lambda: torch.tensor([float("nan"), 1.]).addmv(x, v3, beta=0))
show("addmv int", lambda: torch.ones(2, dtype=torch.long).addmv(
    torch.ones(2, 3, dtype=torch.long), torch.ones(3, dtype=torch.long), beta=2, alpha=3))
show("addmv int frac", lambda: torch.ones(2, dtype=torch.long).addmv(
    torch.ones(2, 3, dtype=torch.long), torch.ones(3, dtype=torch.long), beta=0.5, alpha=3))
show("addmv empty", lambda: torch.ones(2).addmv(torch.ones(2, 0), torch.ones(0)))
show("addmv bad", lambda: torch.ones(2).addmv(x, torch.arange(2.)))
show("addmv bad self", lambda: torch.ones(3).addmv(x, v3))
show("addmv dims", lambda: torch.ones(2, 2).addmv(torch.ones(2, 3), torch.ones(3)))
show("addmv_", lambda: torch.ones(2).addmv_(x, v3, beta=2))
show("addmv_ dtype", lambda: torch.ones(2).addmv_(x.double(), v3.double()))
show("addmv_ int", lambda: torch.ones(2, dtype=torch.int32).addmv_(
    torch.ones(2, 3, dtype=torch.long), torch.ones(3, dtype=torch.long)))
show("addr_ cast", lambda: torch.ones(2, 2).addr_(torch.ones(2).double(), torch.ones(2).double()))
show("addr_ int", lambda: torch.ones(2, 2, dtype=torch.long).addr_(torch.ones(2), torch.ones(2)))
show("baddbmm_ dtype", lambda: torch.ones(2, 2, 2).half().baddbmm_(torch.ones(2, 2, 4), torch.ones(2, 4, 2)))
show("addmv_ bcast", lambda: torch.tensor(1.).addmv_(x, v3))
a2, b3 = torch.tensor([1., 2.]), torch.tensor([1., 0., -1.])
show("addr", lambda: torch.ones(2, 3).addr(a2, b3, beta=2, alpha=3))
show("addr bcast", lambda: torch.tensor([1., 2., 3.]).addr(a2, b3))
show("addr bcast bad", lambda: torch.ones(2).addr(a2, b3))
show("addr beta0", lambda: torch.tensor([[float("nan")]]).addr(torch.ones(1), torch.ones(1), beta=0))
show("addr bool", lambda: torch.tensor([[False, True], [False, False]]).addr(
    torch.tensor([True, False]), torch.tensor([True, False])))
show("addr bool beta0", lambda: torch.tensor([[False, True], [False, False]]).addr(
    torch.tensor([True, False]), torch.tensor([True, False]), beta=0))
show("addr int", lambda: torch.ones(2, 2, dtype=torch.long).addr(
    torch.tensor([1, 2]), torch.tensor([1, 2]), beta=2, alpha=3))
show("addr int frac", lambda: torch.ones(2, 2, dtype=torch.long).addr(
    torch.tensor([1, 2]), torch.tensor([1, 2]), beta=0.5))
show("addr int frac alpha", lambda: torch.ones(2, 2, dtype=torch.long).addr(
    torch.tensor([1, 2]), torch.tensor([1, 2]), alpha=0.5))
show("addr mixed", lambda: torch.ones(2, 2, dtype=torch.long).addr(torch.ones(2), torch.ones(2)))
show("addr bad", lambda: torch.ones(2, 2).addr(torch.ones(2, 2), torch.ones(2)))
show("addr bad2", lambda: torch.ones(2, 2).addr(torch.ones(2), torch.ones(2, 1)))
show("addr_", lambda: torch.ones(2, 2).addr_(torch.ones(2), torch.arange(2.)))
b1 = torch.arange(24.).view(3, 2, 4)
b2 = torch.arange(24.).view(3, 4, 2) / 4
show("addbmm", lambda: torch.ones(2, 2).addbmm(b1, b2, beta=2, alpha=0.5))
show("addbmm bcast", lambda: torch.tensor([1., 2.]).addbmm(b1, b2))
show("addbmm t", lambda: torch.ones(2, 2).addbmm(b1.transpose(1, 2).contiguous().transpose(1, 2), b2))
show("addbmm empty", lambda: torch.ones(2, 2).addbmm(torch.ones(0, 2, 4), torch.ones(0, 4, 2)))
show("addbmm int", lambda: torch.ones(2, 2, dtype=torch.long).addbmm(
    torch.ones(3, 2, 4, dtype=torch.long), torch.ones(3, 4, 2, dtype=torch.long), beta=2, alpha=3))
show("addbmm int frac", lambda: torch.ones(2, 2, dtype=torch.long).addbmm(
    torch.ones(3, 2, 4, dtype=torch.long), torch.ones(3, 4, 2, dtype=torch.long), beta=0.5,
    alpha=1.5))
show("addbmm bad", lambda: torch.ones(2, 2).addbmm(torch.ones(3, 2, 4), torch.ones(2, 4, 2)))
show("addbmm bad 2d", lambda: torch.ones(4, 2).addbmm(torch.ones(2, 4), torch.ones(2, 4, 2)))
show("addbmm bad sizes", lambda: torch.ones(2, 2).addbmm(torch.ones(3, 2, 4), torch.ones(3, 3, 2)))
show("addbmm mixed", lambda: torch.ones(2, 2, dtype=torch.long).addbmm(
    torch.ones(3, 2, 4), torch.ones(3, 4, 2)))
show("addbmm_", lambda: torch.ones(2, 2).addbmm_(b1, b2, alpha=2))
show("baddbmm_", lambda: torch.ones(1, 2, 2).baddbmm_(torch.ones(1, 2, 4), torch.ones(1, 4, 2), beta=2))
show("baddbmm_ self bcast", lambda: torch.ones(2, 1, 3).baddbmm_(torch.ones(2, 1, 3), torch.ones(2, 3, 1)))
# Half rounds each product: (alpha * vec1[i]) * vec2[j], then beta * self.
show("addr half", lambda: torch.tensor([[3.08203125, -0.5869140625, -4.359375],
                                        [1.13671875, -2.169921875, -2.796875]]).half().addr(
    torch.tensor([0.806640625, 1.67578125]).half(),
    torch.tensor([-1.4384765625, -0.806640625, -1.193359375]).half(), beta=2, alpha=3))
show("baddbmm_ bcast", lambda: torch.ones(2, 2).baddbmm_(torch.ones(3, 2, 4), torch.ones(3, 4, 2)))
show("mp 0", lambda: m.matrix_power(0))
show("mp 1 t", lambda: m.t().matrix_power(1))
show("mp 2 t", lambda: torch.arange(4.).view(2, 2).t().matrix_power(2))
show("mp 3", lambda: m.matrix_power(3))
show("mp int 5", lambda: torch.arange(4).view(2, 2).matrix_power(5))
show("mp int 6", lambda: torch.tensor([[1, 1], [1, 0]]).matrix_power(6))
show("mp batch", lambda: torch.arange(8.).view(2, 2, 2).matrix_power(2))
show("mp batch 0", lambda: torch.arange(8.).view(2, 2, 2).matrix_power(0))
show("mp rect", lambda: x.matrix_power(2))
show("mp 1d", lambda: torch.arange(3.).matrix_power(2))
show("de", lambda: x.diag_embed())
show("de off", lambda: torch.arange(2.).diag_embed(1))
show("de neg off", lambda: torch.tensor([1., 2.]).diag_embed(-1, 1, 0))
show("de dims", lambda: x.diag_embed(-1, 0, 2))
show("de t", lambda: xt.diag_embed())
show("de int", lambda: torch.tensor([1, 2]).diag_embed())
show("de same", lambda: x.diag_embed(0, 1, 1))
show("de 0d", lambda: torch.tensor(1.).diag_embed())
show("de range", lambda: x.diag_embed(0, 0, 3))
show("df", lambda: x.diagflat())
show("df t", lambda: xt.diagflat())
show("df off", lambda: torch.tensor([1, 2]).diagflat(-1))
show("df 2d off", lambda: torch.tensor([[1, 2]]).diagflat(1))
show("df 0d", lambda: torch.tensor(3.).diagflat())

# --- scatter into a copy ---
show("ss", lambda: z.select_scatter(torch.ones(4), 0, 1))
show("ss neg", lambda: z.select_scatter(torch.arange(3.), -1, -1))
show("ss t", lambda: z.t().select_scatter(torch.ones(4), 1, 0))
show("ss dtype", lambda: z.long().select_scatter(torch.full((4,), 2.5), 0, 0))
show("ss 0d src", lambda: torch.zeros(3).select_scatter(torch.tensor(5.), 0, 1))
show("ss bad", lambda: z.select_scatter(torch.ones(3), 0, 1))
show("ss idx", lambda: z.select_scatter(torch.ones(4), 0, 3))
show("ss dim", lambda: z.select_scatter(torch.ones(4), 2, 0))
show("as", lambda: z.as_strided_scatter(torch.arange(1., 5.).view(2, 2), (2, 2), (4, 1)))
show("as off", lambda: z.as_strided_scatter(torch.arange(1., 4.), (3,), (5,), 1))
show("as t", lambda: z.t().as_strided_scatter(torch.arange(1., 4.), (3,), (1,), 2))
show("as dtype", lambda: z.long().as_strided_scatter(torch.full((2,), 2.5), (2,), (1,)))
show("as bad", lambda: z.as_strided_scatter(torch.ones(3), (2, 2), (4, 1)))


def sl(self, src, dim=0, start=None, end=None, step=1):
    r = self.clone()
    idx = [slice(None)] * self.dim()
    idx[dim] = slice(start, end, step)
    if list(r[tuple(idx)].shape) != list(src.shape):
        raise RuntimeError("expected src to have a size equal to the slice of self. src size = %s,"
                           " slice size = %s" % (list(src.shape), list(r[tuple(idx)].shape)))
    r[tuple(idx)] = src
    return r


show("sl", lambda: sl(z, torch.ones(2, 4), start=1))
show("sl step", lambda: z.slice_scatter(torch.ones(3, 2), dim=1, start=0, step=2))
show("sl step end", lambda: z.slice_scatter(torch.ones(3, 1), dim=1, start=1, end=3, step=2))
show("sl neg", lambda: sl(z, torch.ones(3, 2), dim=-1, start=-2))
show("sl big", lambda: sl(z, torch.ones(3, 4), dim=1, start=-10, end=10))
show("sl t", lambda: sl(z.t(), torch.arange(6.).view(2, 3), start=2))
show("sl bad", lambda: sl(z, torch.ones(3, 3), dim=1, start=0, end=4))
show("sl step0", lambda: z.slice_scatter(torch.ones(3, 4), dim=1, start=0, end=4, step=0))
show("ds", lambda: z.diagonal_scatter(torch.ones(3)))
show("ds off", lambda: z.diagonal_scatter(torch.arange(3.), 1))
show("ds off neg", lambda: z.diagonal_scatter(torch.arange(2.), -1, 1, 0))
show("ds t", lambda: z.t().diagonal_scatter(torch.ones(3)))
show("ds 3d", lambda: torch.zeros(2, 2, 2).diagonal_scatter(torch.arange(4.).view(2, 2), 0, 0, 2))
show("ds bad", lambda: z.diagonal_scatter(torch.ones(4)))
