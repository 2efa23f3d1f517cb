#!/usr/bin/python3
"""Manual check that ember's TCPStore and PyTorch's work together, both ways
(Note [TCPStore wire protocol]). Needs PyTorch (Debian's 1.13, or 2.x) and
//distributed:tcp_store_tool built:

  ./bazelw build //distributed:tcp_store_tool
  /usr/bin/python3 tools/tcpstore_interop.py [bazel-bin/distributed/tcp_store_tool]

1. A PyTorch server (a Python TCPStore, as torchrun's agent store is): ember's
   client finds its dialect, sets, gets, adds and waits beside a PyTorch
   client.
2. ember's server: a PyTorch client (num_workers counted in "init/") sets,
   gets, adds, compare_sets and waits beside ember's client.
Every line it prints is a check that passed; it exits non-zero on the first
that does not.
"""
import datetime
import os
import socket
import subprocess
import sys
import time

import torch
import torch.distributed as dist

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOL = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "bazel-bin", "distributed",
                                                          "tcp_store_tool")
TIMEOUT = datetime.timedelta(seconds=20)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def ember(port, *args):
    out = subprocess.run([TOOL, f"--port={port}", "--timeout_ms=20000", *args],
                         capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        sys.exit(f"FAILED: tcp_store_tool {' '.join(args)}: {out.stderr.strip()}")
    return out.stdout.strip()


def check(what, got, want):
    if got != want:
        sys.exit(f"FAILED: {what}: got {got!r}, want {want!r}")
    print(f"ok  {what}: {got!r}")


def pytorch_server():
    print(f"-- a PyTorch {torch.__version__} server, ember's client")
    port = free_port()
    server = dist.TCPStore("127.0.0.1", port, 1, True, TIMEOUT, wait_for_workers=False)
    py = dist.TCPStore("127.0.0.1", port, 1, False, TIMEOUT)
    want = "pytorch-1.13" if torch.__version__.startswith("1.") else "pytorch-2"
    check("ember's client finds the dialect", ember(port, "dialect"), want)
    ember(port, "set", "from_ember", "hello")
    check("PyTorch reads ember's key", py.get("from_ember"), b"hello")
    py.set("from_torch", "world")
    check("ember reads PyTorch's key", ember(port, "get", "from_torch"), "world")
    check("ember adds", ember(port, "add", "count", "2"), "2")
    check("PyTorch adds to it", py.add("count", 3), 5)
    check("ember compare_sets PyTorch's key",
          ember(port, "compare_set", "from_torch", "world", "swapped"), "swapped")
    waiter = subprocess.Popen([TOOL, f"--port={port}", "wait", "late"], stdout=subprocess.PIPE,
                              text=True)
    time.sleep(0.5)
    py.set("late", "now")
    check("ember's wait is released by PyTorch's set", waiter.communicate(timeout=30)[0].strip(),
          "ready")
    del py, server


def ember_server():
    print(f"-- ember's server, a PyTorch {torch.__version__} client")
    serve = subprocess.Popen([TOOL, "serve", "--port=0"], stdout=subprocess.PIPE, text=True)
    try:
        line = serve.stdout.readline().strip()
        port = int(line.rsplit(" ", 1)[1])
        py = dist.TCPStore("127.0.0.1", port, 1, False, TIMEOUT)  # counts itself in init/
        check("PyTorch's client joined (init/ counted)", ember(port, "num_keys"), "1")
        py.set("from_torch", "hello")
        check("ember reads PyTorch's key", ember(port, "get", "from_torch"), "hello")
        ember(port, "set", "from_ember", "world")
        check("PyTorch reads ember's key", py.get("from_ember"), b"world")
        check("PyTorch adds", py.add("count", 4), 4)
        check("ember adds to it", ember(port, "add", "count", "1"), "5")
        check("PyTorch compare_sets", py.compare_set("from_ember", "world", "swapped"), b"swapped")
        check("ember sees it", ember(port, "get", "from_ember"), "swapped")
        subprocess.Popen([TOOL, f"--port={port}", "set", "later", "x"],
                         stdout=subprocess.DEVNULL)
        py.wait(["later"])
        check("PyTorch's wait is released by ember's set", py.get("later"), b"x")
        check("PyTorch deletes", py.delete_key("count"), True)
        check("ember counts the keys (init/, from_torch, from_ember, later)",
              ember(port, "num_keys"), "4")
    finally:
        serve.terminate()
        serve.wait(timeout=10)


if __name__ == "__main__":
    pytorch_server()
    ember_server()
    print("both directions work")
