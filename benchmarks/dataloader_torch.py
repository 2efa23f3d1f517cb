#!/usr/bin/python3
"""PyTorch twin of //benchmarks:dataloader: torch.utils.data.DataLoader over
Fashion-MNIST's training set, batch 64, shuffled, ToTensor + Normalize
(torchvision's arithmetic, written out: torchvision is not packaged here),
for 0, 1 and 2 worker processes. Prints images/s and peak RSS.

  /usr/bin/python3 benchmarks/dataloader_torch.py
"""
import gzip
import resource
import time

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

ROOT = "/usr/share/datasets/fashion-mnist"


class FashionMNIST(Dataset):
    def __init__(self):
        with gzip.open(ROOT + "/train-images-idx3-ubyte.gz") as f:
            self.images = torch.from_numpy(
                np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 28, 28).copy())
        with gzip.open(ROOT + "/train-labels-idx1-ubyte.gz") as f:
            self.targets = torch.from_numpy(np.frombuffer(f.read(), np.uint8, offset=8).astype(np.int64))

    def __len__(self):
        return len(self.targets)

    def __getitem__(self, i):
        # ToTensor (uint8 HxW -> float 1xHxW / 255), then Normalize.
        x = self.images[i].unsqueeze(0).to(torch.float32).div(255)
        x = x.sub_(0.2860).div_(0.3530)
        return x, self.targets[i]


def main():
    torch.set_num_threads(1)
    ds = FashionMNIST()
    for workers in (0, 1, 2):
        g = torch.Generator()
        g.manual_seed(0)
        loader = DataLoader(ds, batch_size=64, shuffle=True, num_workers=workers, generator=g)
        best = None
        for _ in range(2):
            start = time.perf_counter()
            n = 0
            for x, _y in loader:
                n += x.shape[0]
            dt = time.perf_counter() - start
            best = dt if best is None else min(best, dt)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print("workers=%d  %8.0f images/s  %6.1f batches/s  epoch %.2f s  peak RSS (main) %.0f MiB"
              % (workers, n / best, len(loader) / best, best, rss))


if __name__ == "__main__":
    main()
