#!/usr/bin/python3
"""Issue 21's launcher figures on one host, ember beside torchrun (Debian's
PyTorch 1.13 through tools/torchrun113.py), in one run:

  start-up: launcher start to every rank's first collective (2 processes,
            gloo over env://, a barrier);
  restart:  a SIGKILLed rank to the restarted group's first collective
            (--max_restarts=1), launchers at their default monitor interval
            (torchrun's is 5 s) and, for torchrun, at 0.1 s too.

  ./bazelw build //distributed:launch //benchmarks:launch_startup_worker
  /usr/bin/python3 tools/launch_startup.py [--runs=5]

Medians over the runs; each line says what ran.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "bazel-bin")
LAUNCH = [os.path.join(BIN, "distributed", "launch")]
TORCHRUN = [sys.executable, os.path.join(ROOT, "tools", "torchrun113.py")]
EMBER_WORKER = [os.path.join(BIN, "benchmarks", "launch_startup_worker")]
TORCH_WORKER = [os.path.join(ROOT, "tools", "launch_startup_torch.py")]
LINE = re.compile(r"(first_collective (\d+) (\d+)|killed) ([0-9.]+)")


def run(cmd):
    env = dict(os.environ, GLOO_SOCKET_IFNAME="lo", OMP_NUM_THREADS="1")
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=180, env=env)
    firsts, killed = {}, None
    for m in LINE.finditer(p.stdout + p.stderr):
        if m.group(1) == "killed":
            killed = float(m.group(4))
        else:
            firsts.setdefault(int(m.group(3)), []).append(float(m.group(4)))
    if p.returncode != 0 or 0 not in firsts:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stdout}\n{p.stderr}")
    return t0, firsts, killed


def startup(cmd, runs):
    out = []
    for _ in range(runs):
        t0, firsts, _ = run(cmd)
        out.append(max(firsts[0]) - t0)
    return statistics.median(out), out


def restart(cmd, runs):
    out = []
    for _ in range(runs):
        _, firsts, killed = run(cmd)
        if killed is None or 1 not in firsts:
            sys.exit(f"{' '.join(cmd)}: no kill or no restart")
        out.append(max(firsts[1]) - killed)
    return statistics.median(out), out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    runs = ap.parse_args().runs
    two = ["--nproc_per_node=2"]
    rows = [
        ("start-up", "ember launch + ember worker", startup, LAUNCH + two + EMBER_WORKER),
        ("start-up", "torchrun 1.13 + ember worker", startup,
         TORCHRUN + two + ["--no_python"] + EMBER_WORKER),
        ("start-up", "torchrun 1.13 + PyTorch 1.13 worker", startup,
         TORCHRUN + two + TORCH_WORKER),
        ("restart", "ember launch + ember worker", restart,
         LAUNCH + two + ["--max_restarts=1"] + EMBER_WORKER + ["kill"]),
        ("restart", "torchrun 1.13 + ember worker", restart,
         TORCHRUN + two + ["--max_restarts=1", "--no_python"] + EMBER_WORKER + ["kill"]),
        ("restart", "torchrun 1.13 + PyTorch 1.13 worker", restart,
         TORCHRUN + two + ["--max_restarts=1"] + TORCH_WORKER + ["kill"]),
        ("restart", "torchrun 1.13 --monitor_interval=0.1 + PyTorch 1.13 worker", restart,
         TORCHRUN + two + ["--max_restarts=1", "--monitor_interval=0.1"] + TORCH_WORKER +
         ["kill"]),
    ]
    for what, name, fn, cmd in rows:
        med, all_ = fn(cmd, runs)
        print(f"{what:9s} {name:58s} median {med * 1000:7.0f} ms  "
              f"(runs: {', '.join(f'{x * 1000:.0f}' for x in all_)})", flush=True)


if __name__ == "__main__":
    main()
