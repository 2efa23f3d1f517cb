#!/usr/bin/python3
"""safetensors interop between ember and PyTorch, both directions.

  /usr/bin/python3 tools/safetensors_interop.py make serialize/testdata/python_made.safetensors
      writes sample() the way Python's `safetensors.torch.save_file` lays a
      file out (compact JSON header, "__metadata__" first, padded with spaces
      to 8 bytes, data ordered by dtype then name); serialize/safetensors_test
      checks that ember loads it with exactly these values.

  /usr/bin/python3 tools/safetensors_interop.py check FILE
      checks that FILE, written by ember (bazel-bin/serialize/write_interop_sample
      FILE), is a valid safetensors file holding exactly sample(), read with
      plain struct/json and torch.frombuffer (the `safetensors` package is not
      installed here; if it is, it is used as well).

  /usr/bin/python3 tools/safetensors_interop.py check-checkpoint FILE
      checks an ember Checkpoint (bazel-bin/serialize/write_interop_sample
      SAMPLE FILE) the same way: state dicts as "<name>/<key>" tensors,
      numbers as 0-dim tensors, strings in the metadata.

sample() must stay equal to serialize/interop_sample.cc.
"""
import json
import struct
import sys

import torch

DTYPES = {
    "F64": torch.float64, "F32": torch.float32, "F16": torch.float16,
    "BF16": torch.bfloat16, "I64": torch.int64, "I32": torch.int32,
    "I16": torch.int16, "I8": torch.int8, "U8": torch.uint8, "BOOL": torch.bool,
}
NAMES = {v: k for k, v in DTYPES.items()}
# The order of safetensors' Rust Dtype enum; save_file sorts data by it,
# largest first, then by name.
RUST_ORDER = ["BOOL", "U8", "I8", "F8_E5M2", "F8_E4M3", "I16", "U16", "F16",
              "BF16", "I32", "U32", "F32", "F64", "I64", "U64"]


def sample():
    return {
        "f64": torch.tensor([[0.5, -1.25, 3.0], [1e300, -0.0, 2.5e-310]], dtype=torch.float64),
        "f32": torch.arange(12, dtype=torch.float32).reshape(3, 4) / 8 - 0.75,
        "f16": torch.tensor([1.5, -2.25, 65504.0, 6.103515625e-05, 0.0], dtype=torch.float16),
        "bf16": torch.tensor([1.0, -3.5, 3.3895313892515355e38, 0.0078125], dtype=torch.bfloat16),
        "i64": torch.tensor([-9223372036854775808, 9223372036854775807, 0, -1], dtype=torch.int64),
        "i32": torch.tensor([[-2147483648, 7], [2147483647, -5]], dtype=torch.int32),
        "i16": torch.tensor([-32768, 32767, 12], dtype=torch.int16),
        "i8": torch.tensor([-128, 127, -1], dtype=torch.int8),
        "u8": torch.tensor([0, 255, 17], dtype=torch.uint8),
        "bool": torch.tensor([True, False, True]),
        "scalar": torch.tensor(2.5, dtype=torch.float32),
        "empty": torch.zeros(0, 3, dtype=torch.float32),
        'layer.0/"quoted" \u00e9': torch.tensor([[1], [2]], dtype=torch.int64),
    }


SAMPLE_METADATA = {"format": "pt", "note": "tab\there, newline\n", "unicode": "\u00e9 \u2713"}


def write(path, tensors, metadata):
    """Writes `tensors` (a dict) as safetensors.torch.save_file lays a file
    out; other scripts import this (tools/golden/gpt2.py)."""
    names = sorted(tensors, key=lambda n: (-RUST_ORDER.index(NAMES[tensors[n].dtype]), n))
    header = {"__metadata__": metadata}
    data = b""
    for n in names:
        t = tensors[n].contiguous()
        raw = t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b""
        header[n] = {"dtype": NAMES[t.dtype], "shape": list(t.shape),
                     "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)
    print(f"wrote {path}: {len(tensors)} tensors, {8 + len(text) + len(data)} bytes")


def make(path):
    write(path, sample(), SAMPLE_METADATA)


def read(path):
    blob = open(path, "rb").read()
    (n,) = struct.unpack("<Q", blob[:8])
    assert n % 8 == 0, f"header length {n} is not a multiple of 8"
    header = json.loads(blob[8:8 + n].decode())
    data = blob[8 + n:]
    metadata = header.pop("__metadata__", {})
    spans = sorted(tuple(v["data_offsets"]) for v in header.values())
    at = 0
    for b, e in spans:
        assert b == at, f"data does not tile: {spans}"
        at = e
    assert at == len(data), "data has bytes no tensor covers"
    out = {}
    for name, info in header.items():
        dtype = DTYPES[info["dtype"]]
        b, e = info["data_offsets"]
        itemsize = torch.tensor([], dtype=dtype).element_size()
        assert (8 + n + b) % itemsize == 0, f"{name} is not aligned"
        shape = info["shape"]
        if e == b:
            t = torch.zeros(shape, dtype=dtype)
        else:
            t = torch.frombuffer(bytearray(data[b:e]), dtype=dtype).reshape(shape)
        out[name] = t
    return out, metadata


def check(path):
    got, metadata = read(path)
    want = sample()
    assert list(got) == list(want), f"names/order differ: {list(got)} vs {list(want)}"
    for name, t in want.items():
        g = got[name]
        assert g.dtype == t.dtype and g.shape == t.shape, f"{name}: {g.dtype}{list(g.shape)}"
        assert torch.equal(g, t), f"{name}: {g} != {t}"
        if t.is_floating_point():  # -0.0 keeps its sign
            assert torch.equal(torch.signbit(g), torch.signbit(t)), name
    for k, v in SAMPLE_METADATA.items():
        assert metadata.get(k) == v, f"metadata {k}: {metadata.get(k)!r}"
    try:
        from safetensors.torch import load_file
    except ImportError:
        print("(the safetensors package is not installed; checked with struct/json/torch)")
    else:
        loaded = load_file(path)
        for name, t in want.items():
            assert torch.equal(loaded[name], t), name
        print("safetensors.torch.load_file agrees")
    print(f"OK: {path} holds the {len(want)} sample tensors and the metadata")


def check_checkpoint(path):
    got, metadata = read(path)
    want = {f"model/{k}": v for k, v in sample().items()}
    want["optimizer/state.0.momentum_buffer"] = torch.tensor([0.1, 0.2], dtype=torch.float32)
    want["epoch"] = torch.tensor(3)
    want["loss"] = torch.tensor(0.125, dtype=torch.float64)
    want["best"] = torch.tensor(True)
    assert list(got) == list(want), f"names/order differ: {list(got)}"
    for name, t in want.items():
        g = got[name]
        assert g.dtype == t.dtype and g.shape == t.shape and torch.equal(g, t), name
    assert metadata["note"] == "resumed", metadata
    assert metadata["ember.format"] == "checkpoint", metadata
    assert json.loads(metadata["ember.state_dicts"]) == ["model", "optimizer"], metadata
    print(f"OK: {path} is the expected checkpoint ({len(want)} tensors, metadata {metadata})")


if __name__ == "__main__":
    modes = {"make": make, "check": check, "check-checkpoint": check_checkpoint}
    if len(sys.argv) != 3 or sys.argv[1] not in modes:
        sys.exit(__doc__)
    modes[sys.argv[1]](sys.argv[2])
