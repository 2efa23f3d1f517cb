"""PyTorch twin of //benchmarks:tensorboard: the cost of one
SummaryWriter.add_scalar on the calling thread (max_queue 10, the default).

    python3 benchmarks/tensorboard_torch.py   # needs torch and tensorboard
"""

import shutil
import tempfile
import time

from torch.utils.tensorboard import SummaryWriter


def main():
    log_dir = tempfile.mkdtemp(prefix="torch_tensorboard_bench-")
    writer = SummaryWriter(log_dir)
    n = 200000
    for step in range(1000):  # warm up
        writer.add_scalar("train/loss", 0.25, step)
    start = time.perf_counter()
    for step in range(n):
        writer.add_scalar("train/loss", 0.25, step)
    elapsed = time.perf_counter() - start
    writer.close()
    shutil.rmtree(log_dir)
    print("add_scalar: %.2f us per call (%d calls)" % (elapsed / n * 1e6, n))


if __name__ == "__main__":
    main()
