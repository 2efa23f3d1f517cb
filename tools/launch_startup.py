#!/usr/bin/python3
"""Issue 21's launcher figures on one host, ember beside torchrun (Debian's
PyTorch 1.13 through tools/torchrun113.py), in one run:

  start-up: launcher start to every rank's first collective (2 processes,
            gloo over env://, a barrier);
  restart:  a SIGKILLed rank to the restarted group's first collective
            (--max_restarts=1), launchers at their default monitor interval
            (torchrun's is 5 s) and, for torchrun, at 0.1 s too.

  ./bazelw build //distributed:launch //benchmarks:launch_startup_worker
  /usr/bin/python3 tools/launch_startup.py [--runs=5] [--two_hosts]

--two_hosts (root): 2 nodes x 2 processes instead, one launcher in each of
two network namespaces joined by a veth pair (as trainers:mnist_netns_test),
gloo over the pair; start-up only.

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


def parse(text, firsts):
    killed = None
    for m in LINE.finditer(text):
        if m.group(1) == "killed":
            killed = float(m.group(4))
        else:
            firsts.setdefault(int(m.group(3)), []).append(float(m.group(4)))
    return killed


def run(cmd):
    env = dict(os.environ, GLOO_SOCKET_IFNAME="lo", OMP_NUM_THREADS="1")
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=180, env=env)
    firsts = {}
    killed = parse(p.stdout + p.stderr, firsts)
    if p.returncode != 0 or 0 not in firsts:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stdout}\n{p.stderr}")
    return t0, firsts, killed


class TwoHosts:
    """Two network namespaces and a veth pair (distributed/testing/netns.h)."""

    def __init__(self):
        tag = str(os.getpid() % 100000)
        self.ns = [f"ember_ls_a{tag}", f"ember_ls_b{tag}"]
        self.dev = [f"elA{tag}", f"elB{tag}"]
        net = os.getpid() % 250 + 1
        self.addr = [f"10.232.{net}.1", f"10.232.{net}.2"]
        ip = ["ip"]
        for n in self.ns:
            subprocess.run(ip + ["netns", "add", n], check=True)
        subprocess.run(ip + ["link", "add", self.dev[0], "type", "veth", "peer", "name",
                             self.dev[1]], check=True)
        for i in range(2):
            subprocess.run(ip + ["link", "set", self.dev[i], "netns", self.ns[i]], check=True)
            ex = ip + ["netns", "exec", self.ns[i], "ip"]
            subprocess.run(ex + ["addr", "add", self.addr[i] + "/24", "dev", self.dev[i]],
                           check=True)
            subprocess.run(ex + ["link", "set", self.dev[i], "up"], check=True)
            subprocess.run(ex + ["link", "set", "lo", "up"], check=True)

    def close(self):
        for n in self.ns:
            subprocess.run(["ip", "netns", "del", n])

    def run(self, launcher, node_args, worker):
        """Both nodes at once; returns start-up: start to the last first collective."""
        procs = []
        t0 = time.time()
        for h in range(2):
            cmd = (["ip", "netns", "exec", self.ns[h], "env", f"GLOO_SOCKET_IFNAME={self.dev[h]}",
                    "EMBER_GLOO_SHM=0", "OMP_NUM_THREADS=1"] + launcher +
                   node_args(h, self.addr[0]) + worker)
            procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                          text=True))
        firsts = {}
        for p in procs:
            out = p.communicate(timeout=180)[0]
            parse(out, firsts)
            if p.returncode != 0:
                sys.exit(f"{' '.join(p.args)} failed ({p.returncode}):\n{out}")
        if len(firsts.get(0, [])) != 4:
            sys.exit(f"expected 4 ranks, saw {firsts}")
        return max(firsts[0]) - t0


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


def two_hosts(runs):
    hosts = TwoHosts()
    try:
        def node(h, master):
            return ["--nnodes=2", f"--node_rank={h}", "--nproc_per_node=2",
                    f"--master_addr={master}", "--master_port=29511"]
        rows = [("ember launch + ember worker", LAUNCH, EMBER_WORKER),
                ("torchrun 1.13 + ember worker", TORCHRUN + ["--no_python"], EMBER_WORKER),
                ("torchrun 1.13 + PyTorch 1.13 worker", TORCHRUN, TORCH_WORKER)]
        for name, launcher, worker in rows:
            all_ = [hosts.run(launcher, node, worker) for _ in range(runs)]
            print(f"start-up 2x2 {name:52s} median {statistics.median(all_) * 1000:7.0f} ms  "
                  f"(runs: {', '.join(f'{x * 1000:.0f}' for x in all_)})", flush=True)
    finally:
        hosts.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--two_hosts", action="store_true")
    args = ap.parse_args()
    runs = args.runs
    if args.two_hosts:
        return two_hosts(runs)
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
