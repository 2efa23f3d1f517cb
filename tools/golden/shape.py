"""Golden values for tensor/shape_test.cc (views, joining, splitting, copies).

Run with Debian's PyTorch: /usr/bin/python3 tools/golden/shape.py
Writes tensor/testdata/shape_golden.inc. Inputs come from mk(), which the
test mirrors exactly (MakeInput in shape_test.cc). Each result is stored as
values ("name") and, for views, geometry ("name:geom" = strides..., storage
offset, is_contiguous). Error messages are stored verbatim, as PyTorch raises
them, under SHAPE_GOLDEN_ERRORS.
"""

import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_util import GoldenWriter, ROOT  # noqa: E402

FLOATS = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


def mk(shape, dtype=torch.float32):
    """Deterministic, dtype-exact values; MakeInput in the test mirrors it."""
    n = 1
    for s in shape:
        n *= s
    i = torch.arange(n, dtype=torch.int64)
    v = (i * 7) % 11
    if dtype == torch.bool:
        v = v % 2
    elif dtype != torch.uint8:
        v = v - 3
    v = v.to(torch.float64)
    if dtype in FLOATS:
        v = v * 0.25
    return v.to(dtype).reshape(shape)


w = GoldenWriter("shape")
errors = []


def val(name, t):
    w.add(name, t)


def geom(name, t):
    """Values plus strides, storage offset and is_contiguous."""
    w.add(name, t)
    g = list(t.stride()) + [t.storage_offset(), int(t.is_contiguous())]
    w.add(name + ":geom", torch.tensor(g, dtype=torch.int64))


def err(name, f):
    try:
        f()
    except Exception as e:  # noqa: BLE001
        kind = type(e).__name__
        errors.append((name, "IndexError" if kind == "IndexError" else "Error", str(e)))
        return
    raise AssertionError("no error for " + name)


x34 = mk([3, 4])
x46 = mk([4, 6])
x234 = mk([2, 3, 4])

# --- view / reshape / flatten ----------------------------------------------
geom("view_infer", x34.view(-1, 6))
geom("view_16", mk([4, 4]).view(16))
geom("view_m1_8", mk([4, 4]).view(-1, 8))
geom("view_transposed", x46.t().view(6, 2, 2))
geom("view_sliced_cols", x46[:, :4].view(4, 2, 2))
geom("view_size1_dims", x46.t()[:1].view(4))
geom("view_scalar", torch.tensor(2.5).view(1, 1))
geom("view_empty", torch.zeros(0, 3).view(3, 0, 1))
err("view_not_viewable", lambda: x46.t().view(24))
err("view_bad_size", lambda: mk([2, 3]).view(2, 5))
err("view_two_infer", lambda: x34.view(-1, -1))
err("view_negative", lambda: x34.view(-2, 6))
err("view_ambiguous", lambda: torch.zeros(0, 3).view(-1, 0))
geom("view_dtype_same_size", mk([2, 4]).view(torch.int32))
geom("view_dtype_down", mk([2, 4]).view(torch.int16))
geom("view_dtype_up", mk([2, 4]).view(torch.float64))
geom("view_dtype_sliced", mk([3, 4])[1:, :].view(torch.float64))
err("view_dtype_scalar", lambda: torch.tensor(1.0).view(torch.float64))
err("view_dtype_stride", lambda: x34.t().view(torch.int16))
err("view_dtype_size", lambda: mk([3, 3]).view(torch.float64))
err("view_dtype_offset", lambda: mk([3, 4]).view(-1)[1:5].view(torch.float64))
err("view_dtype_stride0", lambda: mk([3, 5])[:, :4].view(torch.float64))
geom("reshape_view", x34.reshape(2, 6))
geom("reshape_copy", x46.t().reshape(24))
geom("reshape_copy_int", mk([4, 6], torch.int64).t().reshape(3, -1))
geom("flatten_all", x234.flatten())
geom("flatten_1", x234.flatten(1))
geom("flatten_0_1", x234.flatten(0, 1))
geom("flatten_transposed", x234.transpose(0, 2).flatten(1))
geom("flatten_scalar", torch.tensor(3.0).flatten())
err("flatten_bad_order", lambda: x234.flatten(2, 1))
geom("unflatten", x34.unflatten(1, (2, -1)))
err("unflatten_bad", lambda: x34.unflatten(1, (3, 2)))
err("unflatten_empty", lambda: x34.unflatten(1, ()))
err("unflatten_two_infer", lambda: x34.unflatten(1, (-1, -1)))

# --- squeeze / unsqueeze / expand / repeat ---------------------------------
x1312 = mk([1, 3, 1, 2])
geom("squeeze_all", x1312.squeeze())
geom("squeeze_2", x1312.squeeze(2))
geom("squeeze_noop", x1312.squeeze(1))
geom("squeeze_neg", x1312.squeeze(-4))
geom("squeeze_scalar", torch.tensor(1.5).squeeze(0))
geom("unsqueeze_0", x34.unsqueeze(0))
geom("unsqueeze_last", x34.t().unsqueeze(-1))
geom("unsqueeze_mid", x34.t().unsqueeze(1))
geom("unsqueeze_scalar", torch.tensor(1.5).unsqueeze(0))
err("unsqueeze_bad", lambda: x34.unsqueeze(3))
err("squeeze_bad", lambda: x34.squeeze(2))
geom("expand_row", mk([3, 1]).expand(3, 4))
geom("expand_new_dims", mk([3, 1]).expand(2, -1, 4))
geom("expand_scalar", torch.tensor(2.0).expand(2, 3))
geom("expand_transposed", mk([1, 3]).t().expand(3, 2))
err("expand_mismatch", lambda: mk([3]).expand(2, 4))
err("expand_leading_m1", lambda: x34.expand(-1, -1, 4))
err("expand_too_few", lambda: x34.expand(4))
err("expand_negative", lambda: x34.expand(-2, 3, 4))
err("expand_negative_singleton", lambda: mk([3, 1]).expand(3, -2))
err("expand_double", lambda: x34.to(torch.float64).expand(4))
val("repeat_2d", mk([2, 3]).repeat(2, 2))
val("repeat_new_dim", mk([2, 3]).repeat(2, 1, 2))
val("repeat_transposed", mk([2, 3]).t().repeat(1, 3))
val("repeat_bool", mk([3], torch.bool).repeat(2, 2))
val("repeat_half", mk([2], torch.float16).repeat(3))
val("repeat_zero", mk([2, 3]).repeat(0, 2))
val("repeat_expanded", mk([3, 1]).expand(3, 2).repeat(2, 1))
val("repeat_scalar", torch.tensor(2.0).repeat(2, 3))
err("repeat_too_few", lambda: x34.repeat(2))
err("repeat_negative", lambda: x34.repeat(2, -1))

# --- transpose / t / permute / movedim / mT --------------------------------
geom("transpose_02", x234.transpose(0, 2))
geom("transpose_neg", x234.transpose(-1, -2))
geom("t_2d", x34.t())
geom("t_1d", mk([3]).t())
geom("mT", x234.mT)
geom("permute", x234.permute(2, 0, 1))
geom("permute_neg", x234.permute(-1, -3, -2))
geom("movedim", x234.movedim(0, 2))
geom("movedim_neg", x234.movedim(-1, 0))
err("t_3d", lambda: x234.t())
err("transpose_bad", lambda: x34.transpose(0, 2))
err("permute_len", lambda: x34.permute(0,))
err("permute_dup", lambda: x34.permute(0, 0))
err("mT_1d", lambda: mk([3]).mT)

# --- narrow / select / slice / as_strided / unfold / diagonal ----------------
geom("narrow", x46.narrow(1, 2, 3))
geom("narrow_neg_start", x46.narrow(0, -2, 2))
geom("narrow_end", x46.narrow(0, 4, 0))
geom("narrow_transposed", x46.t().narrow(1, 1, 2))
err("narrow_exceeds", lambda: x34.narrow(0, 2, 2))
err("narrow_start_range", lambda: x34.narrow(0, 5, 1))
err("narrow_negative_len", lambda: x34.narrow(0, 0, -1))
err("narrow_scalar", lambda: torch.tensor(1.0).narrow(0, 0, 1))
geom("select_0", x34.select(0, 1))
geom("select_neg", x34.select(1, -1))
geom("select_transposed", x34.t().select(0, 2))
geom("select_3d", x234.select(1, 2))
geom("select_to_scalar", mk([3]).select(0, 2))
err("select_range", lambda: x34.select(0, 5))
err("select_range_neg", lambda: x34.select(-1, -5))
err("select_scalar", lambda: torch.tensor(1.0).select(0, 0))
geom("slice_step", x46[:, 1:6:2])
geom("slice_clamped", x46[-10:10:3])
geom("slice_empty", x46[3:1])
geom("as_strided", x34.as_strided((2, 2), (1, 2), 1))
geom("as_strided_overlap", x34.as_strided((3, 3), (1, 1)))
err("as_strided_oob", lambda: x34.as_strided((13,), (1,)))
err("as_strided_neg_stride", lambda: x34.as_strided((2,), (-1,)))
err("as_strided_neg_size", lambda: x34.as_strided((-1,), (1,)))
err("as_strided_len", lambda: x34.as_strided((2,), (1, 1)))
err("as_strided_neg_offset", lambda: x34.as_strided((2,), (1,), -1))
geom("unfold", mk([7]).unfold(0, 3, 2))
geom("unfold_2d", x34.unfold(1, 2, 1))
err("unfold_size", lambda: x34.unfold(1, 5, 1))
err("unfold_step", lambda: x34.unfold(1, 2, 0))
geom("diagonal", x34.diagonal())
geom("diagonal_pos", x34.diagonal(1))
geom("diagonal_neg", x34.diagonal(-1))
geom("diagonal_off_end", x34.diagonal(9))
geom("diagonal_3d", x234.diagonal(0, 0, 2))
geom("diagonal_3d_neg", x234.diagonal(-1, 2, 1))
err("diagonal_same", lambda: x34.diagonal(0, 1, -1))
err("diagonal_1d", lambda: mk([3]).diagonal())

# --- chunk / split / unbind ------------------------------------------------
def pieces(name, ts):
    for i, t in enumerate(ts):
        geom("%s/%d" % (name, i), t)
    w.add(name + ":count", torch.tensor([len(ts)], dtype=torch.int64))


pieces("chunk_3", mk([7, 2]).chunk(3))
pieces("chunk_uneven", mk([2, 5]).chunk(2, 1))
pieces("chunk_more_than_size", mk([2]).chunk(4))
pieces("chunk_empty", torch.zeros(2, 0).chunk(3, 1))
pieces("split_2", mk([5, 2]).split(2))
pieces("split_sizes", x46.split([1, 2, 3], 1))
pieces("split_transposed", x46.t().split(4, 0))
pieces("unbind_0", x34.unbind(0))
pieces("unbind_1", x34.unbind(1))
err("chunk_zero", lambda: x34.chunk(0))
err("chunk_scalar", lambda: torch.tensor(1.0).chunk(1))
err("split_zero", lambda: x34.split(0))
err("split_negative", lambda: x34.split(-1))
err("split_sizes_sum", lambda: x34.split([1, 1], -1))
err("split_sizes_negative", lambda: x34.split([-1, 5], 1))
err("unbind_scalar", lambda: torch.tensor(1.0).unbind(0))

# --- cat / stack / hstack / vstack -------------------------------------------
geom("cat_0", torch.cat((x34, x34), 0))
geom("cat_1", torch.cat((x34, mk([3, 2])), 1))
geom("cat_neg", torch.cat((x234, x234), -1))
val("cat_promote_int_float", torch.cat((mk([2], torch.int32), mk([3], torch.float32))))
val("cat_promote_ints", torch.cat((mk([2], torch.uint8), mk([2], torch.int8))))
val("cat_promote_bool_long", torch.cat((mk([3], torch.bool), mk([2], torch.int64))))
val("cat_promote_half_bf16", torch.cat((mk([2], torch.float16), mk([2], torch.bfloat16))))
val("cat_noncontig", torch.cat((x34.t(), mk([4, 6])[:, ::2], mk([1, 3]).expand(4, 3)), 1))
val("cat_legacy_empty", torch.cat((torch.zeros(0, dtype=torch.float64), x34, torch.zeros(0)), 1))
val("cat_all_empty", torch.cat((torch.zeros(0), torch.zeros(0)), 3))
val("cat_zero_size_dim", torch.cat((torch.zeros(2, 0), mk([2, 3])), 1))
for dt in (torch.bool, torch.int8, torch.int64, torch.float16, torch.bfloat16, torch.float64):
    val("cat_dtype_" + str(dt).split(".")[1], torch.cat((mk([2, 3], dt), mk([2, 3], dt).t().t()), 0))
err("cat_sizes", lambda: torch.cat((mk([3, 2]), mk([3, 3])), 0))
err("cat_empty_list", lambda: torch.cat(()))
err("cat_ndim", lambda: torch.cat((x34, mk([3])), 0))
err("cat_zero_dim", lambda: torch.cat((x34, torch.tensor(1.0)), 0))
err("cat_bad_dim", lambda: torch.cat((x34, x34), 2))
geom("stack_0", torch.stack((mk([3]), mk([3]).flip(0))))
geom("stack_1", torch.stack((x34, x34.flip(1)), 1))
geom("stack_last", torch.stack((x34, x34), -1))
val("stack_promote", torch.stack((mk([2], torch.int64), mk([2], torch.float64))))
err("stack_sizes", lambda: torch.stack((mk([2]), mk([3]))))
err("stack_empty", lambda: torch.stack(()))
err("stack_bad_dim", lambda: torch.stack((x34, x34), 3))
val("hstack_1d", torch.hstack((mk([2]), mk([3]))))
val("hstack_2d", torch.hstack((mk([2, 1]), mk([2, 3]))))
val("hstack_scalars", torch.hstack((torch.tensor(1.0), torch.tensor(2.0))))
val("vstack_1d", torch.vstack((mk([3]), mk([3]))))
val("vstack_2d", torch.vstack((mk([1, 3]), mk([2, 3]))))
err("hstack_empty", lambda: torch.hstack(()))
err("vstack_empty", lambda: torch.vstack(()))

# --- broadcast ---------------------------------------------------------------
bt = torch.broadcast_tensors(mk([3, 1]), mk([2, 1, 4]), torch.tensor(1.0))
for i, t in enumerate(bt):
    geom("broadcast_tensors/%d" % i, t)
geom("broadcast_to", torch.broadcast_to(mk([3]), (2, 3)))
err("broadcast_mismatch", lambda: torch.broadcast_tensors(x34, mk([3])))

# --- flip / roll / tril / triu / diag ------------------------------------------
geom("flip_0", x34.flip(0))
geom("flip_both", x34.flip(0, 1))
geom("flip_transposed", x34.t().flip(1))
geom("flip_3d", x234.flip(-1, 0))
geom("flip_sliced", x46[:, 1::2].flip(1))
geom("flip_none", x34.flip([]))
for dt in (torch.bool, torch.uint8, torch.int16, torch.float16, torch.bfloat16, torch.float64):
    val("flip_dtype_" + str(dt).split(".")[1], mk([3, 4], dt).flip(1))
err("flip_dup", lambda: x34.flip(0, -2))
err("flip_bad_dim", lambda: x34.flip(2))
val("roll_1d", mk([5]).roll(2))
val("roll_neg", x34.roll(-1, 1))
val("roll_big_shift", x34.roll(7, 0))
val("roll_flat", x34.roll(5))
val("roll_multi", x34.roll((1, -2), (0, 1)))
val("roll_transposed", x34.t().roll(1, 0))
val("roll_int", mk([2, 3], torch.int64).roll(1, 1))
val("roll_scalar", torch.tensor(2.0).roll(1))
val("roll_empty", torch.zeros(2, 0).roll(1, 1))
err("roll_scalar_dim", lambda: torch.tensor(2.0).roll(1, 0))
err("roll_align", lambda: x34.roll((1,), (0, 1)))
err("roll_flat_multi", lambda: x34.roll((1, 2)))
err("roll_no_shifts", lambda: x34.roll((), ()))
val("tril", mk([4, 4]).tril())
val("tril_neg", mk([4, 5]).tril(-1))
val("tril_pos", mk([3, 5]).tril(2))
val("tril_batched", mk([2, 3, 4]).tril())
val("tril_transposed", mk([4, 3]).t().tril())
val("tril_far", mk([3, 3]).tril(-5))
val("triu", mk([4, 4]).triu())
val("triu_pos", mk([4, 5]).triu(1))
val("triu_neg", mk([5, 3]).triu(-2))
val("triu_batched_transposed", mk([3, 4, 2]).transpose(0, 2).triu(1))
for dt in (torch.bool, torch.int32, torch.float16, torch.bfloat16, torch.float64):
    val("triu_dtype_" + str(dt).split(".")[1], mk([3, 3], dt).triu())
    val("tril_dtype_" + str(dt).split(".")[1], mk([3, 3], dt).tril())
geom("tril_empty", torch.zeros(3, 0).tril())
err("tril_1d", lambda: mk([3]).tril())
err("triu_scalar", lambda: torch.tensor(1.0).triu())
geom("diag_from_vec", mk([3]).diag())
geom("diag_from_vec_pos", mk([3]).diag(1))
geom("diag_from_vec_neg", mk([2], torch.int64).diag(-2))
geom("diag_of_mat", x34.diag())
geom("diag_of_mat_neg", x34.diag(-1))
geom("diag_of_transposed", x34.t().diag(1))
geom("diag_from_empty", torch.zeros(0).diag(1))
err("diag_scalar", lambda: torch.tensor(2.0).diag())
err("diag_3d", lambda: x234.diag())

# --- large inputs (parallel paths): weighted checksums of the results -------
def checksum(name, t):
    flat = t.contiguous().reshape(-1).to(torch.float64)
    weights = (torch.arange(flat.numel(), dtype=torch.int64) % 13 + 1).to(torch.float64)
    w.add(name, torch.tensor([float((flat * weights).sum()), flat.numel()], dtype=torch.float64))


big = mk([300, 400])
checksum("big_tril", big.tril(3))
checksum("big_triu_transposed", big.t().triu(-2))
checksum("big_flip", big.flip(1))
checksum("big_flip_both", big.t().flip(0, 1))
checksum("big_roll", big.roll((7, -11), (0, 1)))
checksum("big_cat", torch.cat((big, big.t().reshape(300, 400)), 1))
checksum("big_repeat", mk([150, 100]).repeat(2, 3))
checksum("big_reshape_copy", big.t().reshape(-1))

# --- aliasing: writes through a view reach the base ---------------------------
a = mk([3, 4])
a.t()[1].fill_(100)
val("alias_t_select", a)
a = mk([3, 4])
a.view(2, 6).narrow(1, 1, 2).fill_(-1)
val("alias_view_narrow", a)
a = mk([2, 3])
a.unsqueeze(0).squeeze().permute(1, 0)[2].fill_(9)
val("alias_chain", a)
a = mk([4])
a.chunk(2)[1].fill_(7)
val("alias_chunk", a)
a = mk([3, 3])
a.diagonal().fill_(0)
val("alias_diagonal", a)
a = mk([2, 2])
a.view(torch.int32)[0, 0] = 0
val("alias_view_dtype", a)

w.write()
# One file, two tables: the test includes it once per table.
path = os.path.join(ROOT, "tensor", "testdata", "shape_golden.inc")
with open(path) as f:
    header = [next(f) for _ in range(2)]
    body = f.read()
with open(path, "w") as f:
    f.writelines(header)
    f.write("#ifndef SHAPE_GOLDEN_ERRORS\n")
    f.write(body)
    f.write("#else\n")
    f.write("// {name, kind (IndexError or Error), message}\n")
    for name, kind, msg in errors:
        f.write('  {"%s", "%s", %s},\n' % (name, kind, '"' + msg.replace("\\", "\\\\")
                                                      .replace('"', '\\"')
                                                      .replace("\n", "\\n") + '"'))
    f.write("#endif\n")
print(len(errors), "errors")
