"""Sums an Nsight Compute CSV by kernel: the GPU time of each kernel name,
its launch count, and the total, largest first. The CSV comes from

    ncu --profile-from-start off --clock-control none --metrics gpu__time_duration.sum \\
        --csv --page raw --print-units base PROGRAM ... > kernels.csv

(the programs open the range with cudaProfilerStart: benchmarks/models_cuda
--profile, tools/models_cuda_torch.py --profile).

    python3 tools/ncu_kernels.py kernels.csv [--top=N] [--width=W]
"""
import collections
import csv
import sys


def main():
    top, width, path = 40, 90, None
    for a in sys.argv[1:]:
        if a.startswith("--top="):
            top = int(a[6:])
        elif a.startswith("--width="):
            width = int(a[8:])
        else:
            path = a
    rows = list(csv.reader(l for l in open(path) if not l.startswith("==")))
    header = next(r for r in rows if "Kernel Name" in r)
    name_col = header.index("Kernel Name")
    time_col = header.index("gpu__time_duration.sum")
    total = collections.Counter()
    count = collections.Counter()
    for r in rows:
        if len(r) <= max(name_col, time_col):
            continue
        try:
            t = float(r[time_col].replace(",", ""))
        except ValueError:
            continue  # the header and units rows
        total[r[name_col]] += t
        count[r[name_col]] += 1
    all_ns = sum(total.values())
    print(f"{sum(count.values())} kernels, {all_ns / 1e6:.3f} ms of GPU time")
    for name, ns in total.most_common(top):
        short = name if len(name) <= width else name[:width - 3] + "..."
        print(f"{ns / 1e3:10.1f} us {100 * ns / all_ns:5.1f}% {count[name]:5d}x  {short}")


if __name__ == "__main__":
    main()
