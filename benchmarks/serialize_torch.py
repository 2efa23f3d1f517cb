#!/usr/bin/python3
"""PyTorch twin of //benchmarks:serialize: torch.save / torch.load of the same
state dict (64 float32 tensors, 256 MiB in all), and the same save followed by
os.fsync (what ember's atomic save pays for). Median of 5 runs.

  /usr/bin/python3 benchmarks/serialize_torch.py
"""
import os
import statistics
import tempfile
import time

import torch

torch.set_num_threads(1)
MIB = 256
sd = {f"layer{i}.weight": torch.rand((MIB << 20) // 64 // 4) for i in range(64)}
path = os.path.join(tempfile.gettempdir(), "torch_serialize_bench.pt")


def timed(fn, reps=5):
    fn()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def save_fsync():
    with open(path, "wb") as f:
        torch.save(sd, f)
        f.flush()
        os.fsync(f.fileno())


for name, fn in [("torch.save", lambda: torch.save(sd, path)),
                 ("torch.save + fsync", save_fsync),
                 ("torch.load", lambda: torch.load(path))]:
    s = timed(fn)
    print(f"{name:20s} {s * 1e3:8.1f} ms  {MIB / 1024 / s:6.2f} GiB/s")
os.unlink(path)
