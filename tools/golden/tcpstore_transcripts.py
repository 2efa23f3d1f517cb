#!/usr/bin/python3
"""Byte transcripts of PyTorch's TCPStore protocol, for
distributed/tcp_store_transcript_test.cc (Note [TCPStore wire protocol]).

Run with the PyTorch whose protocol is wanted (Debian's 1.13 here:
/usr/bin/python3 tools/golden/tcpstore_transcripts.py). It starts a real
PyTorch TCPStore server and records
  * client_session: a PyTorch client's calls (through a recording proxy in
    another process: the store's calls hold the GIL), with 'M' markers
    naming each call; the test replays the client's bytes against ember's
    server (expecting the recorded replies) and makes ember's client do the
    same calls against a fake server that expects the recorded bytes;
  * raw probes: bytes sent by hand to the server and what it answered, or
    that it closed the connection ('X'): among them ember's VALIDATE+PING
    probe, which a 1.13 server must close.
Writes distributed/testdata/tcpstore_transcripts_<major><minor>.inc. With
PyTorch 2.x (tools/gpu_checks.sh tcpstore, on the GPU machine) it records the
2.x dialect too: every connection validates first, and the session adds
check, append, multi_get, multi_set and a cancelled wait.
"""

import datetime
import multiprocessing as mp
import os
import socket
import struct
import threading
import time

import torch
import torch.distributed as dist

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VERSION = torch.__version__.split("+")[0]
LEGACY = tuple(int(x) for x in VERSION.split(".")[:2]) < (2, 0)
TAG = "".join(VERSION.split(".")[:2])


def pump(src, dst, tag, q):
    while True:
        try:
            b = src.recv(65536)
        except OSError:
            b = b""
        if not b:
            try:
                dst.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            return
        q.put((tag, b.hex()))
        dst.sendall(b)


def proxy(listen_port, server_port, q):
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", listen_port))
    ls.listen(4)
    c, _ = ls.accept()  # the session is one connection
    s = socket.create_connection(("127.0.0.1", server_port))
    threading.Thread(target=pump, args=(c, s, "C", q), daemon=True).start()
    threading.Thread(target=pump, args=(s, c, "S", q), daemon=True).start()
    time.sleep(3600)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def merged(steps):
    """Consecutive chunks in one direction become one step."""
    out = []
    for d, h in steps:
        if out and out[-1][0] == d and d in "CS":
            out[-1] = (d, out[-1][1] + h)
        else:
            out.append((d, h))
    return out


def client_session(server_port):
    q = mp.Queue()
    pport = free_port()
    p = mp.Process(target=proxy, args=(pport, server_port, q), daemon=True)
    p.start()
    time.sleep(0.5)
    steps = []

    def drain():
        time.sleep(0.15)  # calls without a reply return before the proxy forwards
        while not q.empty():
            steps.append(q.get())

    def call(name, fn):
        fn()
        drain()
        steps.append(("M", name))

    timeout = datetime.timedelta(seconds=10)
    holder = {}
    call("construct_num_workers_1",
         lambda: holder.setdefault("c", dist.TCPStore("127.0.0.1", pport, 1, False, timeout)))
    c = holder["c"]
    call("set key value", lambda: c.set("key", "value"))
    call("get key", lambda: c.get("key"))
    call("add cnt 5", lambda: c.add("cnt", 5))
    call("add cnt -2", lambda: c.add("cnt", -2))
    call("compare_set key value v2", lambda: c.compare_set("key", "value", "v2"))
    call("compare_set key nope v3", lambda: c.compare_set("key", "nope", "v3"))
    call("compare_set fresh '' new", lambda: c.compare_set("fresh", "", "new"))
    call("compare_set absent exp des", lambda: c.compare_set("absent", "exp", "des"))
    call("wait key", lambda: c.wait(["key"]))
    call("wait key cnt", lambda: c.wait(["key", "cnt"]))
    call("num_keys", lambda: c.num_keys())
    call("delete_key cnt", lambda: c.delete_key("cnt"))
    call("delete_key cnt again", lambda: c.delete_key("cnt"))
    call("set empty ''", lambda: c.set("empty", ""))
    call("get empty", lambda: c.get("empty"))
    call("set bin 00ff07", lambda: c.set("bin", bytes([0, 255, 7])))
    call("get bin", lambda: c.get("bin"))
    if not LEGACY:  # what 1.13's Python binding lacks
        call("check key absent", lambda: c.check(["key", "absent"]))
        call("append bin 41", lambda: c.append("bin", "A"))
        call("multi_set x 1 y 22", lambda: c.multi_set(["x", "y"], ["1", "22"]))
        call("multi_get y x", lambda: c.multi_get(["y", "x"]))

        def wait_times_out():
            c.set_timeout(datetime.timedelta(milliseconds=300))
            try:
                c.wait(["never"])
            except Exception:  # DistStoreError: the wait was cancelled
                pass
        call("wait never, 300 ms", wait_times_out)
    p.terminate()
    return merged(steps)


def probe(server_port, sends):
    """Sends each chunk, then reads what comes within 0.5 s."""
    s = socket.create_connection(("127.0.0.1", server_port))
    s.settimeout(0.5)
    steps = []
    for chunk in sends:
        s.sendall(chunk)
        steps.append(("C", chunk.hex()))
        got = b""
        closed = False
        while True:
            try:
                b = s.recv(65536)
            except socket.timeout:
                break
            except ConnectionResetError:
                closed = True
                break
            if not b:
                closed = True
                break
            got += b
        if got:
            steps.append(("S", got.hex()))
        if closed:
            steps.append(("X", ""))
            break
    s.close()
    return steps


def u64(n):
    return struct.pack("<Q", n)


def string(s):
    b = s.encode() if isinstance(s, str) else s
    return u64(len(b)) + b


def main():
    port = free_port()
    server = dist.TCPStore("127.0.0.1", port, 1, True, datetime.timedelta(seconds=10),
                           wait_for_workers=False)
    server.set("present", "1")
    server.set("text", "abc")
    transcripts = [("client_session", client_session(port))]
    validate = bytes([0]) + struct.pack("<I", 0x3C85F7CE)
    if LEGACY:
        SET, COMPARE_SET, GET, ADD, CHECK, WAIT = range(6)
        first = b""  # 1.13 validates nothing
        # ember's first bytes: VALIDATE + magic, PING + a nonce with bit 23 set.
        transcripts.append(("ember_probe_is_closed", probe(port, [
            validate + bytes([13]) + struct.pack("<I", 0x00812345)])))
    else:
        SET, COMPARE_SET, GET, ADD, CHECK, WAIT = range(1, 7)
        first = validate
        transcripts.append(("ember_probe_is_answered", probe(port, [
            validate + bytes([13]) + struct.pack("<I", 0x00812345)])))
    transcripts.append(("check_present_and_absent", probe(port, [
        first + bytes([CHECK]) + u64(1) + string("/present"),
        bytes([CHECK]) + u64(2) + string("/present") + string("/absent"),
        bytes([CHECK]) + u64(0)])))
    transcripts.append(("get_of_an_absent_key_is_closed", probe(port, [
        first + bytes([GET]) + string("/absent")])))
    transcripts.append(("add_on_text_is_closed", probe(port, [
        first + bytes([ADD]) + string("/text") + struct.pack("<q", 1)])))
    transcripts.append(("wait_released_by_a_set", probe(port, [
        first + bytes([WAIT]) + u64(1) + string("/later"),
        bytes([SET]) + string("/later") + string("x")])))

    out = os.path.join(ROOT, "distributed", "testdata", f"tcpstore_transcripts_{TAG}.inc")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        f.write(f"// Generated by tools/golden/tcpstore_transcripts.py with PyTorch {VERSION}; "
                "do not edit.\n")
        f.write("// {name, {{dir, hex}...}}: 'C' client to server, 'S' server to client,\n")
        f.write("// 'X' the server closed the connection, 'M' a marker naming the call.\n")
        for name, steps in transcripts:
            f.write(f'{{"{name}",\n {{')
            f.write(",\n  ".join(f"{{'{d}', \"{h}\"}}" for d, h in steps))
            f.write("}},\n")
    print("wrote", out, sum(len(s) for _, s in transcripts), "steps")


if __name__ == "__main__":
    main()
