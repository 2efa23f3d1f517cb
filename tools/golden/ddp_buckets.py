"""Golden bucket assignments for //distributed:reducer_test: what PyTorch's
dist._compute_bucket_assignment_by_size (the function DDP builds its
gradient buckets with) returns for a few parameter lists. Run with
/usr/bin/python3 (Debian's torch 1.13).
"""

import sys

import torch
import torch.distributed as dist

from golden_util import DTYPE_NAMES, write_inc

MAX = sys.maxsize
CASES = [
    # name, [(dtype, numel)], limits, tensor_indices
    ("first_bucket_small", [(torch.float32, n) for n in [100, 300000, 10, 200000, 5, 70000]],
     [1 << 20, 2 << 20], []),
    ("relabelled", [(torch.float32, n) for n in [100, 300000, 10, 200000, 5, 70000]],
     [1 << 20, 2 << 20], [5, 4, 3, 2, 1, 0]),
    ("one_unbounded_bucket", [(torch.float32, n) for n in [7, 300000, 0, 9]], [MAX], []),
    ("per_dtype", [(torch.float32, 1000), (torch.float64, 1000), (torch.float32, 300),
                   (torch.float16, 5000), (torch.float64, 10), (torch.float32, 2000),
                   (torch.float16, 1)],
     [4096, 8192], []),
    ("ready_order", [(torch.float32, n) for n in [50, 600, 1200, 10, 3000, 400]],
     [1024, 4096], [3, 5, 0, 1, 4, 2]),
    ("exact_limit", [(torch.float32, 256), (torch.float32, 256), (torch.float32, 1)],
     [1024], []),
]


def cpp_list(xs):
    return "{" + ", ".join(str(x) for x in xs) + "}"


lines = []
for name, specs, limits, indices in CASES:
    tensors = [torch.empty(n, dtype=dt) for dt, n in specs]
    buckets, per_limits = dist._compute_bucket_assignment_by_size(
        tensors, limits, [False] * len(tensors), indices)
    lines.append('  {"%s", %s, %s, %s, %s, {%s}, %s},' % (
        name,
        "{" + ", ".join(DTYPE_NAMES[dt] for dt, _ in specs) + "}",
        cpp_list([n for _, n in specs]),
        cpp_list(["INT64_MAX" if l == MAX else l for l in limits]),
        cpp_list(indices),
        ", ".join(cpp_list(b) for b in buckets),
        cpp_list(["INT64_MAX" if l == MAX else l for l in per_limits])))

write_inc("ddp_buckets_golden.inc", "ddp_buckets",
          "{name, dtypes, numels, size limits, tensor indices, buckets, per-bucket limits}",
          lines, "bucket assignments", package="distributed")
