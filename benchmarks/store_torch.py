"""PyTorch twin of //benchmarks:store: the same store operations, timed.

    /usr/bin/python3 benchmarks/store_torch.py
"""
import os
import time
from datetime import timedelta

import torch.distributed as dist


def bench(name, fn, min_time=1.0):
    fn()  # warm up
    n, t0 = 0, time.perf_counter()
    while True:
        for _ in range(100):
            fn()
        n += 100
        elapsed = time.perf_counter() - t0
        if elapsed >= min_time:
            break
    print(f"{name:<28} {elapsed / n * 1e6:10.2f} us")


def main():
    store = dist.TCPStore("127.0.0.1", 0, 1, True, timedelta(seconds=30))
    for size in (64, 1 << 20):
        v = b"x" * size
        bench(f"TCPStore set/{size}", lambda: store.set("key", v))
        bench(f"TCPStore get/{size}", lambda: store.get("key"))
    bench("TCPStore add", lambda: store.add("counter", 1))
    path = f"/tmp/torch_store_bench_{os.getpid()}"
    fstore = dist.FileStore(path, 1)
    bench("FileStore add", lambda: fstore.add("counter", 1))
    del fstore
    if os.path.exists(path):
        os.unlink(path)


if __name__ == "__main__":
    main()
