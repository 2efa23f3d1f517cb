#!/usr/bin/python3
"""PyTorch twin of benchmarks/launch_startup_worker.cc (run by
tools/launch_startup.py under torchrun): gloo over env://, a barrier as the
first collective, "first_collective <rank> <restart> <time>"; with `kill`,
rank 1 of the first attempt prints "killed <time>" and SIGKILLs itself."""
import os
import signal
import sys
import time

import torch.distributed as dist

restart = int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0"))
dist.init_process_group("gloo")
dist.barrier()
rank = dist.get_rank()
print(f"first_collective {rank} {restart} {time.time():.6f}", flush=True)
if len(sys.argv) > 1 and sys.argv[1] == "kill" and restart == 0:
    if rank == 1:
        print(f"killed {time.time():.6f}", flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(60)
dist.destroy_process_group()
