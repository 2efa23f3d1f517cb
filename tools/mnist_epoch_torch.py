#!/usr/bin/python3
"""One epoch of //trainers:mnist in PyTorch, for issue 25's wall-time target.

The same program as `bazel-bin/trainers/mnist --epochs=1` (seed 003's net:
conv 1->20 5x5, max-pool, conv 20->50 5x5, max-pool, fc 800->500->10,
cross-entropy, SGD lr 0.01 momentum 0.9, batch 64 for training and testing,
ToTensor + Normalize((0.1307,), (0.3081,)), torchvision's FashionMNIST and
DataLoader with one worker), timed as the trainer's wall time: the training
epoch, then the whole test set. Runs it at each thread count given and
prints each time and the best. Run with Debian's PyTorch:

    /usr/bin/python3 tools/mnist_epoch_torch.py [--threads 1,2] [--data_root DIR]
"""
import argparse
import gzip
import os
import shutil
import sys
import tempfile
import time

import torch
import torch.nn.functional as F
from torchvision import datasets, transforms

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from seed_net import Net  # noqa: E402


def dataset_root(data_root):
    # torchvision 0.14 reads the decompressed IDX files under
    # <root>/FashionMNIST/raw and never downloads when they are there.
    root = tempfile.mkdtemp(prefix="fashion-mnist-")
    raw = os.path.join(root, "FashionMNIST", "raw")
    os.makedirs(raw)
    for name in os.listdir(data_root):
        src = os.path.join(data_root, name)
        if name.endswith(".gz"):
            with gzip.open(src, "rb") as f, open(os.path.join(raw, name[:-3]), "wb") as out:
                shutil.copyfileobj(f, out)
        else:
            shutil.copy(src, os.path.join(raw, name))
    return root


def run(threads, root, workers):
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    train = datasets.FashionMNIST(root, train=True, download=False, transform=tf)
    test = datasets.FashionMNIST(root, train=False, download=False, transform=tf)
    train_loader = torch.utils.data.DataLoader(train, batch_size=64, shuffle=True,
                                               num_workers=workers)
    test_loader = torch.utils.data.DataLoader(test, batch_size=64, num_workers=workers)
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    start = time.perf_counter()
    model.train()
    for data, target in train_loader:
        loss = F.cross_entropy(model(data), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
    trained = time.perf_counter()
    model.eval()
    correct, test_loss = 0, 0.0
    with torch.no_grad():
        for data, target in test_loader:
            out = model(data)
            test_loss += F.cross_entropy(out, target).item()
            correct += out.argmax(1).eq(target).sum().item()
    done = time.perf_counter()
    acc = 100.0 * correct / len(test)
    print("threads %d: train %.2f s, test %.2f s, epoch %.2f s; loss %.6f, test loss %.4f, "
          "accuracy %.2f%%" % (threads, trained - start, done - trained, done - start,
                               loss.item(), test_loss / len(test), acc), flush=True)
    return done - start


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", default="1,2")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--data_root", default="/usr/share/datasets/fashion-mnist")
    a = p.parse_args()
    root = dataset_root(a.data_root)
    try:
        times = {int(t): run(int(t), root, a.workers) for t in a.threads.split(",")}
    finally:
        shutil.rmtree(root)
    best = min(times, key=times.get)
    print("best: %d thread(s), %.2f s" % (best, times[best]))


if __name__ == "__main__":
    main()
