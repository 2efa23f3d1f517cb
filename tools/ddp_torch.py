#!/usr/bin/python3
"""PyTorch's DistributedDataParallel over gloo, timed like //benchmarks:ddp_step.

Run with Debian's PyTorch 1.13 (/usr/bin/python3):

  /usr/bin/python3 tools/ddp_torch.py --nproc 2 --threads 1 --batch 64

Seed 003's MNIST network, SGD (lr 0.01, momentum 0.9), one fixed random
batch per rank; warm-up steps, a barrier, then timed steps (zero_grad,
forward, cross-entropy, backward with DDP's all-reduces, step). Prints rank
0's median and fastest step and the images per second of all ranks, after
the same step in one process without DDP.
"""
import argparse
import os
import socket
import statistics
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from seed_net import Net  # noqa: E402


def run(model, forward, args, sync):
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(args.batch, 1, 28, 28)
    y = torch.randint(0, 10, (args.batch,))

    def step():
        opt.zero_grad()
        F.cross_entropy(forward(x), y).backward()
        opt.step()

    for _ in range(args.warmup):
        step()
    sync()
    ms = []
    for _ in range(args.iters):
        t0 = time.perf_counter()
        step()
        ms.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(ms), min(ms)


def report(what, t, ranks, args):
    med, mn = t
    print("%-34s median %8.2f ms  min %8.2f ms  %9.0f images/s"
          % (what, med, mn, ranks * args.batch / (med / 1e3)), flush=True)


def worker(rank, args, port):
    torch.set_num_threads(args.threads)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}",
                            world_size=args.nproc, rank=rank)
    torch.manual_seed(0)
    model = Net()
    ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=args.bucket_cap_mb)
    if args.comm_hook != "none":
        from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
        ddp.register_comm_hook(None, {"fp16": default_hooks.fp16_compress_hook,
                                      "bf16": default_hooks.bf16_compress_hook}[args.comm_hook])
    torch.manual_seed(1 + rank)
    t = run(model, ddp, args, dist.barrier)
    if rank == 0:
        hook = "" if args.comm_hook == "none" else f", {args.comm_hook} hook"
        report(f"torch DDP over gloo, {args.nproc} ranks{hook}", t, args.nproc, args)
    dist.barrier()
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--nproc", type=int, default=2)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--iters", type=int, default=40)
    p.add_argument("--bucket_cap_mb", type=float, default=25)
    p.add_argument("--comm_hook", choices=["none", "fp16", "bf16"], default="none")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    print(f"# torch {torch.__version__} ddp step: batch {args.batch} per rank, "
          f"{args.threads} thread(s) per rank, {args.warmup} warm-up + {args.iters} timed steps")
    torch.manual_seed(0)
    model = Net()
    report("torch one process, no DDP", run(model, model, args, lambda: None), 1, args)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(worker, args=(args, port), nprocs=args.nproc, join=True)


if __name__ == "__main__":
    main()
