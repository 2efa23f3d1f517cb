#!/usr/bin/python3
"""PyTorch's gloo all_reduce, timed like //benchmarks:allreduce.

Run with Debian's PyTorch 1.13 (/usr/bin/python3, not a venv's python3):

  /usr/bin/python3 tools/allreduce_torch.py --nproc 2 -b 64M -e 256M -f 2 -w 5 -n 20

Prints the same nccl-tests style table (in-place only: torch.distributed's
all_reduce is in place) so the rows can be set side by side with ember's.
busbw = algbw * 2(n-1)/n; time is the slowest rank's mean per op.
"""
import argparse
import os
import socket
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def parse_size(s):
    mul = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    if s[-1].upper() in mul:
        return int(float(s[:-1]) * mul[s[-1].upper()])
    return int(s)


def worker(rank, args, port):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}",
                            world_size=args.nproc, rank=rank)
    world = dist.get_world_size()
    bus = 2.0 * (world - 1) / world
    if rank == 0:
        print(f"# torch {torch.__version__} gloo all_reduce nranks {world} "
              f"warmup iters: {args.w} iters: {args.n}")
        print("# %10s %12s %8s %6s %8s %6s %6s %6s" %
              ("size", "count", "type", "redop", "time", "algbw", "busbw", "#wrong"))
        print("# %10s %12s %8s %6s %8s %6s %6s %6s" %
              ("(B)", "(elements)", "", "", "(us)", "(GB/s)", "(GB/s)", ""))
    size = args.b
    while size <= args.e:
        count = max(size // 4, 1)
        t = (torch.arange(count) % 7 + rank + 1).float()
        for _ in range(args.w):
            dist.all_reduce(t)
        dist.barrier()
        t0 = time.perf_counter()
        works = [dist.all_reduce(t, async_op=True) for _ in range(args.n)]
        for w in works:
            w.wait()
        s = torch.tensor([(time.perf_counter() - t0) / args.n], dtype=torch.double)
        dist.all_reduce(s, op=dist.ReduceOp.MAX)
        # One more on fresh data, checked against the exact sum.
        t = (torch.arange(count) % 7 + rank + 1).float()
        dist.all_reduce(t)
        want = (torch.arange(count) % 7).float() * world + world * (world + 1) / 2
        wrong = torch.tensor([int((t != want).sum())])
        dist.all_reduce(wrong)
        if rank == 0:
            sec = s.item()
            alg = count * 4 / sec / 1e9
            print("  %10d %12d %8s %6s %8.1f %6.2f %6.2f %6d" %
                  (count * 4, count, "float", "sum", sec * 1e6, alg, alg * bus, wrong.item()),
                  flush=True)
        size *= args.f
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--nproc", type=int, default=2)
    p.add_argument("-b", type=parse_size, default=parse_size("64M"))
    p.add_argument("-e", type=parse_size, default=parse_size("256M"))
    p.add_argument("-f", type=int, default=2)
    p.add_argument("-w", type=int, default=5)
    p.add_argument("-n", type=int, default=20)
    args = p.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(worker, args=(args, port), nprocs=args.nproc)


if __name__ == "__main__":
    main()
