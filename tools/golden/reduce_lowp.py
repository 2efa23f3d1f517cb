#!/usr/bin/python3
"""Golden values for tensor/reduce_lowp_test.cc: PyTorch 1.13's CPU sum,
mean, nansum, sum_to_size, norm and (bfloat16) logsumexp of float16 and bfloat16 tensors in
assorted layouts (issue 22; Notes [Reduced-float sum] and [Reduced-float
norm] in tensor/reduce_sum_lowp.cc).
Run with Debian's PyTorch: /usr/bin/python3 tools/golden/reduce_lowp.py

Each case <op>:<dtype>/<label> writes
  <case>/src    int64: seed, storage size, nan; the storage holds
                source_values(seed, size, nan) below (float32 values cast to
                the dtype; the test makes the same numbers)
  <case>/geom   int64: the view's sizes, then strides, then storage offset
  <case>/args   int64: sum/mean/nansum/norm<p>/logsumexp: keepdim, then dims (none: every
                dim); sum_to_size: the target size
  <case>/out    PyTorch's result
The inputs are shaped to cross 1.13's chunk boundaries (more than 16 rows,
inner sizes around 32/64/128 and over 4096) and to leave reduced dims that
do not coalesce (transposed, permuted, channels-last and stepped views), where
1.13 rounds partial sums to the half type between 2-D slabs. PyTorch runs
with one thread here: 1.13 splits reductions over 32768 elements across
threads, with thread-dependent rounding (ember gives the one-thread result
with any number of threads).

The script also prints how many cases a sum or norm accumulated in double and
rounded once (ember before this fix) gets wrong."""
import torch

from golden_util import GoldenWriter

torch.set_num_threads(1)
W = GoldenWriter("reduce_lowp")
DTYPES = (("f16", torch.float16), ("bf16", torch.bfloat16))


def source_values(seed, n, nan):
    """Element i: a 24-bit hash of (i, seed) as a float32 in [-8, 8), exact
    in float32 (so one rounding to the half type); NaN at every 7th with
    nan."""
    vals = []
    for i in range(n):
        m = (((i + 1) * 2654435761 + seed * 40503) % 2**32) >> 8
        vals.append(float("nan") if nan and i % 7 == 0 else (m - 2**23) / 2**20)
    return torch.tensor(vals, dtype=torch.float32)


def view(base_shape, perm, step, dtype, nan=False):
    """A view of a fresh contiguous storage of base_shape: permuted, and with
    the last dim of the view taking every other element when step."""
    global seed
    shape = list(base_shape)
    if step:
        shape[-1] *= 2
    n = 1
    for s in shape:
        n *= s
    seed += 1
    storage = source_values(seed, n, nan).to(dtype)
    v = storage.view(shape)
    if step:
        v = v[..., ::2]
    v = v.permute(perm)
    return [seed, n, int(nan)], v


seed = 0
n_cases = 0
n_old_wrong = 0


def add(op, label, base_shape, perm, args, step=False, nan=False, only=None):
    global n_cases, n_old_wrong
    for dn, dt in DTYPES:
        if only is not None and dn != only:
            continue
        storage, x = view(base_shape, perm, step, dt, nan)
        if op == "sum_to_size":
            out = x.sum_to_size(args)
            argv = list(args)
        else:
            keepdim, dims = args
            dims_arg = list(dims) if dims else list(range(x.dim()))
            if op == "logsumexp":
                out = x.logsumexp(dims_arg, keepdim=keepdim)
            elif op.startswith("norm"):
                out = x.norm(float(op[4:]), dims_arg, keepdim=keepdim)
            else:
                out = getattr(x, op)(dims_arg, keepdim=keepdim)
            argv = [int(keepdim)] + list(dims)
            # ember before the fix: the float64 sum (or mean) rounded once
            ref = x.double()
            if op == "nansum":
                ref = torch.where(ref.isnan(), torch.zeros_like(ref), ref)
            if op == "logsumexp":
                old = ref.logsumexp(dims_arg, keepdim=keepdim).to(dt)
            elif op.startswith("norm"):
                old = ref.norm(float(op[4:]), dims_arg, keepdim=keepdim).to(dt)
            else:
                old = (ref.sum(dims_arg, keepdim=keepdim) if op != "mean"
                       else ref.mean(dims_arg, keepdim=keepdim)).to(dt)
            n_old_wrong += int(not torch.equal(old, out))
        n_cases += 1
        name = "%s:%s/%s" % (op, dn, label)
        W.add(name + "/src", torch.tensor(storage, dtype=torch.int64))
        W.add(name + "/geom", torch.tensor(list(x.shape) + list(x.stride()) +
                                           [x.storage_offset()], dtype=torch.int64))
        W.add(name + "/args", torch.tensor(argv, dtype=torch.int64))
        W.add(name + "/out", out)


# The parity sweep's case: sum_to_size of a transposed [2,3,4,5].
add("sum_to_size", "t2345_to_1x5", (2, 3, 5, 4), (0, 1, 3, 2), (1, 5))
add("sum_to_size", "t2345_to_5", (2, 3, 5, 4), (0, 1, 3, 2), (5,))
add("sum_to_size", "cl2345_to_1x5", (2, 4, 5, 3), (0, 3, 1, 2), (1, 5))
add("sum_to_size", "cl2345_to_3x1x1", (2, 4, 5, 3), (0, 3, 1, 2), (3, 1, 1))
add("sum_to_size", "t_40x70_to_1x70", (70, 40), (1, 0), (1, 70))

# Contiguous: inner (vectorized and scalar tail), outer (groups of 32/8/1
# columns), all.
for keep in (False, True):
    k = "k" if keep else ""
    add("sum", "c70x130_d1" + k, (70, 130), (0, 1), (keep, [1]))
    add("sum", "c70x130_d0" + k, (70, 130), (0, 1), (keep, [0]))
add("sum", "c70x130_all", (70, 130), (0, 1), (False, []))
add("sum", "c17x64_d0", (17, 64), (0, 1), (False, [0]))
add("sum", "c300x45_d0", (300, 45), (0, 1), (False, [0]))
add("sum", "c40x128_d1", (40, 128), (0, 1), (False, [1]))
add("sum", "c5x33_d1", (5, 33), (0, 1), (False, [1]))
add("sum", "c3x5000_d1", (3, 5000), (0, 1), (False, [1]))
add("sum", "c3x5000_d0", (3, 5000), (0, 1), (False, [0]))
add("sum", "c6000_all", (6000,), (0,), (False, []))
add("sum", "c300x100_all", (300, 100), (0, 1), (False, []))

# Transposed.
for keep in (False, True):
    k = "k" if keep else ""
    add("sum", "t70x130_d0" + k, (130, 70), (1, 0), (keep, [0]))
    add("sum", "t70x130_d1" + k, (130, 70), (1, 0), (keep, [1]))
add("sum", "t5000x3_d0", (3, 5000), (1, 0), (False, [0]))
add("sum", "t300x100_all", (100, 300), (1, 0), (False, []))
add("sum", "t4x20x30_d01", (4, 30, 20), (0, 2, 1), (False, [0, 1]))
add("sum", "t4x20x30_d02", (4, 30, 20), (0, 2, 1), (False, [0, 2]))
add("sum", "t2x3x4x5_d012", (2, 3, 5, 4), (0, 1, 3, 2), (True, [0, 1, 2]))

# Permuted (reduced dims that do not coalesce; reduced dims beyond the
# 2-D slab).
add("sum", "p20x17x19_d02", (17, 19, 20), (2, 0, 1), (False, [0, 2]))
add("sum", "p20x17x19_d1", (17, 19, 20), (2, 0, 1), (False, [1]))
add("sum", "p20x17x19_d01", (17, 19, 20), (2, 0, 1), (True, [0, 1]))
add("sum", "p6x7x40_d01", (7, 40, 6), (2, 0, 1), (False, [0, 1]))
add("sum", "p24x33x40_d02", (40, 24, 33), (1, 2, 0), (False, [0, 2]))
add("sum", "p5x6x7x8_d13", (8, 5, 7, 6), (1, 3, 2, 0), (False, [1, 3]))
add("sum", "p5x6x7x8_d023", (8, 5, 7, 6), (1, 3, 2, 0), (False, [0, 2, 3]))

# Channels-last (N, C, H, W) over an NHWC storage.
CL = (0, 3, 1, 2)
for keep in (False, True):
    k = "k" if keep else ""
    add("sum", "cl2x30x4x50_d023" + k, (2, 4, 50, 30), CL, (keep, [0, 2, 3]))
    add("sum", "cl2x30x4x50_d1" + k, (2, 4, 50, 30), CL, (keep, [1]))
add("sum", "cl2x30x4x50_d23", (2, 4, 50, 30), CL, (False, [2, 3]))
add("sum", "cl2x30x4x50_d0", (2, 4, 50, 30), CL, (False, [0]))
add("sum", "cl3x40x6x9_d02", (3, 6, 9, 40), CL, (False, [0, 2]))
add("sum", "cl3x40x6x9_all", (3, 6, 9, 40), CL, (False, []))

# Stepped (every other element of the last dim).
add("sum", "s40x37_d1", (40, 37), (0, 1), (False, [1]), step=True)
add("sum", "s40x37_d0", (40, 37), (0, 1), (False, [0]), step=True)
add("sum", "s9x7x20_d02", (9, 7, 20), (0, 1, 2), (False, [0, 2]), step=True)

# mean: 1.13's sum, then div_(n) with n rounded to the half type.
add("mean", "c2051x9_d0", (2051, 9), (0, 1), (False, [0]))
add("mean", "c9x3001_d1", (9, 3001), (0, 1), (False, [1]))
add("mean", "t70x130_d0", (130, 70), (1, 0), (False, [0]))
add("mean", "cl2x30x4x50_d023", (2, 4, 50, 30), CL, (False, [0, 2, 3]))
add("mean", "p20x17x19_d02", (17, 19, 20), (2, 0, 1), (True, [0, 2]))
add("mean", "t2x3x4x5_all", (2, 3, 5, 4), (0, 1, 3, 2), (False, []))

# nansum: NaNs read as zeros, then the same sum.
add("nansum", "t70x130_d0", (130, 70), (1, 0), (False, [0]), nan=True)
add("nansum", "cl2x30x4x50_d023", (2, 4, 50, 30), CL, (False, [0, 2, 3]), nan=True)
add("nansum", "c3x5000_d1", (3, 5000), (0, 1), (False, [1]), nan=True)

# norm<p>: 1.13 accumulates in the half type, in the iterator's order
# (Note [Reduced-float norm]); bfloat16 p=2 over one contiguous innermost
# reduced dim sums squares in float lanes.
for p in ("2", "1", "0", "inf", "-inf", "3", "1.5"):
    nan = p in ("inf", "-inf")
    add("norm" + p, "c40x70_d0", (40, 70), (0, 1), (False, [0]), nan=nan)
    add("norm" + p, "c40x70_d1", (40, 70), (0, 1), (False, [1]), nan=nan)
    add("norm" + p, "t40x70_d0", (70, 40), (1, 0), (False, [0]))
    add("norm" + p, "p20x17x19_d02", (17, 19, 20), (2, 0, 1), (False, [0, 2]))
    add("norm" + p, "cl2x30x4x50_d023", (2, 4, 50, 30), CL, (True, [0, 2, 3]))
add("norm2", "c9x70_all", (9, 70), (0, 1), (False, []))
add("norm2", "s30x33_d1", (30, 33), (0, 1), (False, [1]), step=True)
add("norm2", "c4x300_d1", (4, 300), (0, 1), (False, [1]))
add("norm2", "cl5x6x7x8_d13", (5, 7, 8, 6), CL, (False, [1, 3]))
# logsumexp (bfloat16 only: 1.13's CPU exp has no float16 kernel): amax,
# then log(sum(exp(x - max))) + max, each step rounded to bfloat16.
for keep in (False, True):
    add("logsumexp", "c40x70_d0", (40, 70), (0, 1), (keep, [0]), only="bf16")
    add("logsumexp", "t40x70_d0", (70, 40), (1, 0), (keep, [0]), only="bf16")
    add("logsumexp", "p20x17x19_d02", (17, 19, 20), (2, 0, 1), (keep, [0, 2]), only="bf16")
    add("logsumexp", "cl2x30x4x50_d023", (2, 4, 50, 30), CL, (keep, [0, 2, 3]), only="bf16")
add("logsumexp", "c9x70_all", (9, 70), (0, 1), (False, []), only="bf16")
add("norm1", "c3x5000_d1", (3, 5000), (0, 1), (False, [1]))
add("norm0", "c3x5000_d1", (3, 5000), (0, 1), (False, [1]))

# Over 32768 elements: ember splits these across threads (by columns, by
# outer outputs); the results must stay 1.13's one-thread ones.
add("sum", "c600x100_d0", (600, 100), (0, 1), (False, [0]))
add("sum", "cl4x64x16x16_d023", (4, 16, 16, 64), CL, (False, [0, 2, 3]))
add("sum", "p8x40x120_d1", (40, 120, 8), (2, 0, 1), (False, [1]))
add("mean", "c100x600_d1", (100, 600), (0, 1), (True, [1]))
add("norm2", "c300x120_d1", (300, 120), (0, 1), (False, [1]))
add("norm1", "c300x120_d0", (300, 120), (0, 1), (False, [0]))

W.write()
print("%d cases; a float64 sum rounded once gets %d of the sum/mean/nansum/norm ones wrong"
      % (n_cases, n_old_wrong))
