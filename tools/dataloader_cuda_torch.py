"""PyTorch twin of benchmarks/dataloader_cuda.cc: the same training step,
the same feeding loops (pageable batches + blocking copies; pin_memory
batches + non_blocking copies on a side stream, one batch ahead), the same
output lines. PyTorch's DataLoader workers are processes and its pinning runs
on a thread of the main process; ember's workers are threads that also pin.

    python3 tools/dataloader_cuda_torch.py [--steps=40] [--batch=256]
        [--features=37632] [--hidden=4096] [--workers=8]
"""
import sys
import time

import torch
import torch.nn.functional as F

WARMUP = 3
CLASSES = 10


class PoolDataset(torch.utils.data.Dataset):
    """Rows of a pool of random images, as dataloader_cuda.cc's PoolDataset."""

    def __init__(self, size, features):
        self.size = size
        pool = min(size, 1024)
        self.images = torch.rand(pool, features)
        self.labels = torch.randint(0, CLASSES, (pool,))

    def __getitem__(self, index):
        i = index % self.images.size(0)
        return self.images[i], self.labels[i]

    def __len__(self):
        return self.size


class Trainer:
    def __init__(self, features, hidden, dev):
        self.net = torch.nn.Sequential(torch.nn.Linear(features, hidden), torch.nn.ReLU(),
                                       torch.nn.Linear(hidden, CLASSES)).to(dev)
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.01)

    def step(self, x, y):
        self.opt.zero_grad()
        F.cross_entropy(self.net(x), y).backward()
        self.opt.step()


def per_step_us(steps, step):
    for i in range(WARMUP):
        step(i)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for i in range(steps):
        step(WARMUP + i)
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) * 1e6 / steps


def report(name, us, figure=""):
    print("%-28s %10.1f  %s" % (name, us, figure))


class Prefetcher:
    """Uploads (x, y) host batches on a side stream, one batch ahead."""

    def __init__(self, dev):
        self.dev = dev
        self.side = torch.cuda.Stream()
        self.ready = torch.cuda.Event()
        self.next = None

    def preload(self, host):
        with torch.cuda.stream(self.side):
            self.next = tuple(t.to(self.dev, non_blocking=True) for t in host)
            self.ready.record(self.side)

    def take(self):
        current = torch.cuda.current_stream()
        self.ready.wait(current)
        for t in self.next:
            t.record_stream(current)
        batch, self.next = self.next, None
        return batch


def run(steps, batch, features, hidden, workers):
    dev = torch.device("cuda")
    torch.manual_seed(0)
    total = steps + WARMUP + 1  # the overlapped loop preloads one batch more
    dataset = PoolDataset(total * batch, features)
    trainer = Trainer(features, hidden, dev)
    batch_bytes = 4.0 * batch * features + 8.0 * batch
    print("batch %d x %d float32 (%.1f MB), hidden %d, %d workers" %
          (batch, features, batch_bytes / 1e6, hidden, workers))

    pageable_x = torch.rand(batch, features)
    pageable_y = torch.randint(0, CLASSES, (batch,))
    pinned_x, pinned_y = pageable_x.pin_memory(), pageable_y.pin_memory()
    dev_x, dev_y = pageable_x.to(dev), pageable_y.to(dev)
    report("step_only", per_step_us(steps, lambda i: trainer.step(dev_x, dev_y)))
    us = per_step_us(steps, lambda i: (pageable_x.to(dev), pageable_y.to(dev)))
    report("upload_pageable", us, "%.1f GB/s" % (batch_bytes / us / 1e3))
    us = per_step_us(steps, lambda i: (pinned_x.to(dev, non_blocking=True),
                                       pinned_y.to(dev, non_blocking=True)))
    report("upload_pinned", us, "%.1f GB/s" % (batch_bytes / us / 1e3))

    ring = 4
    pageable_ring, pinned_ring = [], []
    for _ in range(ring):
        x, y = torch.rand(batch, features), torch.randint(0, CLASSES, (batch,))
        pageable_ring.append((x, y))
        pinned_ring.append((x.pin_memory(), y.pin_memory()))

    def ring_blocking_step(i):
        x, y = pageable_ring[i % ring]
        trainer.step(x.to(dev), y.to(dev))

    ring_blocking = per_step_us(steps, ring_blocking_step)
    report("ring_pageable_blocking", ring_blocking)
    prefetch = Prefetcher(dev)
    prefetch.preload(pinned_ring[0])

    def ring_overlap_step(i):
        x, y = prefetch.take()
        prefetch.preload(pinned_ring[(i + 1) % ring])
        trainer.step(x, y)

    ring_overlap = per_step_us(steps, ring_overlap_step)
    report("ring_pinned_overlap", ring_overlap, "gain %.2fx" % (ring_blocking / ring_overlap))

    def loader(pin):
        return torch.utils.data.DataLoader(dataset, batch_size=batch, num_workers=workers,
                                           pin_memory=pin, drop_last=True)

    for pin in (False, True):
        it = iter(loader(pin))
        us = per_step_us(steps, lambda i: next(it))
        report("loader_only_pinned" if pin else "loader_only_pageable", us)
        del it

    it = iter(loader(False))

    def loader_blocking_step(i):
        x, y = next(it)
        trainer.step(x.to(dev), y.to(dev))

    loader_blocking = per_step_us(steps, loader_blocking_step)
    report("loader_pageable_blocking", loader_blocking)
    del it

    it = iter(loader(True))
    prefetch = Prefetcher(dev)
    prefetch.preload(next(it))

    def loader_overlap_step(i):
        x, y = prefetch.take()
        prefetch.preload(next(it))
        trainer.step(x, y)

    loader_overlap = per_step_us(steps, loader_overlap_step)
    report("loader_pinned_overlap", loader_overlap,
           "gain %.2fx" % (loader_blocking / loader_overlap))
    del it


def main():
    args = {"steps": 40, "batch": 256, "features": 3 * 112 * 112, "hidden": 4096, "workers": 8}
    for a in sys.argv[1:]:
        for name in args:
            if a.startswith("--%s=" % name):
                args[name] = max(int(a.split("=", 1)[1]), 0 if name == "workers" else 1)
    if not torch.cuda.is_available():
        print("no usable CUDA device: nothing to measure")
        return
    run(**args)


if __name__ == "__main__":
    main()
