#!/usr/bin/python3
"""PyTorch .pt files between ember and PyTorch (Debian's python3-torch 1.13), both directions.

  /usr/bin/python3 tools/pt_interop.py make
      writes serialize/testdata/pt/torch_*.pt with torch.save (a state dict of
      every dtype, views sharing storages, nn.Parameters, a small trained net,
      its Adam state and a checkpoint dict holding both, a bare tensor, the
      sample pickled with protocol 4), the
      files ember must refuse or read specially (the legacy non-zip format, a
      TorchScript archive, a pickle calling os.system, the sample re-zipped
      deflated, the sample big-endian), serialize/testdata/pt_golden.inc: the
      values the C++ tests compare with (losses, weights after one more Adam
      step); and examples/testdata/torch_lenet.pt, the state dict of
      tools/golden/lenet.py's Net (examples/lenet.cc's), with its logits in
      examples/testdata/lenet_pt_golden.inc.

  /usr/bin/python3 tools/pt_interop.py check DIR
      checks the files ember wrote into DIR (bazel-bin/serialize/write_pt_samples
      DIR) with torch.load(weights_only=True): the values, dtypes, shapes,
      strides and shared storages, that nn.Modules and torch.optim.Adam take
      them with load_state_dict. PyTorch 1.13's weights_only unpickler lacks
      the BINFLOAT opcode (PyTorch 2.0 has it), so files holding Python
      floats are checked by listing their pickle's globals (only the ones
      weights_only allows) and then loading with weights_only=False.

The committed serialize/testdata/pt/ember_*.pt are those files: the C++ tests
check that ember still writes them byte for byte, so what this script checked
stays true. sample() is tools/safetensors_interop.py's (serialize/interop_sample.cc
in C++); views() must stay equal to views_sample() in serialize/pt_sample.cc.
"""
import collections
import io
import os
import pickle
import pickletools
import struct
import sys
import zipfile

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden.lenet import Net as LeNet  # noqa: E402  (examples/lenet.cc's network)
from safetensors_interop import sample  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "serialize", "testdata", "pt")
LENET_OUT = os.path.join(ROOT, "examples", "testdata")


def ordered_sample():
    return collections.OrderedDict(sample())


def views():
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    tied = torch.arange(6, dtype=torch.int64).reshape(2, 3)
    return collections.OrderedDict([
        ("base", base),
        ("t", base.t()),
        ("row", base[1]),
        ("strided", base[:, ::2]),
        ("block", base[1:3, 2:5]),
        ("element", base[2, 3]),
        ("empty_tail", base[4:]),
        ("expanded", torch.tensor([1, 2, 3], dtype=torch.int16).expand(2, 3)),
        ("tied", tied),
        ("tied_again", tied),
    ])


# serialize/test_nets.h's SmallNet, with the same names.
class SmallNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.bn = nn.BatchNorm1d(8)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(F.relu(self.bn(self.fc1(x))))


def batch():
    # Not linear in the row index: BatchNorm of features linear in it makes
    # fc1's gradient a difference of nearly equal terms, all rounding noise.
    x = (torch.arange(24) * 7 % 23).to(torch.float32).reshape(6, 4) / 11 - 1
    y = torch.tensor([0, 1, 2, 0, 1, 2])
    return x, y


def lenet_input():
    return torch.arange(1024, dtype=torch.float32).reshape(1, 1, 32, 32) / 1024 - 0.5


class Evil:
    def __reduce__(self):
        return (os.system, ("echo this should never run",))


def cpp_list(values):
    return "{" + ", ".join(repr(float(v)) for v in values) + "}"


def rezip(src, dst, transform=None, compression=zipfile.ZIP_STORED, extra=None):
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", compression) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if transform is not None:
                data = transform(info.filename, data)
            zout.writestr(info.filename, data)
        for name, data in (extra or {}).items():
            zout.writestr(name, data)


def big_endian(name, data):
    if "/data/" not in name:
        return data
    key = name.rsplit("/", 1)[1]
    size = ordered_sample_storage_sizes()[key]
    return b"".join(data[i:i + size][::-1] for i in range(0, len(data), size))


def ordered_sample_storage_sizes():
    # torch.save numbers storages in the order the pickle meets them.
    return {str(i): t.element_size() for i, t in enumerate(ordered_sample().values())}


def make():
    os.makedirs(OUT, exist_ok=True)

    def save(obj, name, **kw):
        path = os.path.join(OUT if name != "torch_lenet.pt" else LENET_OUT, name)
        torch.save(obj, path, **kw)
        print(f"wrote {path} ({os.path.getsize(path)} bytes)")
        return path

    sample_path = save(ordered_sample(), "torch_sample.pt")
    save(views(), "torch_views.pt")
    save(ordered_sample(), "torch_protocol4.pt", pickle_protocol=4)
    save(torch.arange(6, dtype=torch.float64).reshape(2, 3).t(), "torch_tensor.pt")

    torch.manual_seed(0)
    net = SmallNet()
    opt = torch.optim.Adam(net.parameters(), lr=0.01)
    x, y = batch()

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        return loss.item()

    losses = [step(), step()]
    save(net.state_dict(), "torch_smallnet.pt")
    save(opt.state_dict(), "torch_adam.pt")
    params = collections.OrderedDict(net.named_parameters())
    params["leaf"] = torch.ones(2, requires_grad=True)
    save(params, "torch_parameters.pt")
    save({"model": net.state_dict(), "optimizer": opt.state_dict(), "epoch": 2,
          "loss": losses[-1], "losses": losses, "note": "resumed", "scheduler": None,
          "big": 2 ** 40, "negative": -70000}, "torch_checkpoint.pt")
    third_loss = step()

    torch.manual_seed(0)
    lenet = LeNet()
    save(lenet.state_dict(), "torch_lenet.pt")
    with torch.no_grad():
        logits = lenet(lenet_input())[0]

    save(torch.arange(3.0), "torch_legacy.pt", _use_new_zipfile_serialization=False)
    script = torch.jit.script(nn.Linear(2, 2))
    path = os.path.join(OUT, "torch_torchscript.pt")
    torch.jit.save(script, path)
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")
    save({"weights": torch.ones(2), "payload": Evil()}, "torch_os_system.pt")

    deflated = os.path.join(OUT, "torch_deflated.pt")
    rezip(sample_path, deflated, compression=zipfile.ZIP_DEFLATED)
    assert all(torch.equal(a, b) for a, b in
               zip(torch.load(deflated).values(), ordered_sample().values()))
    print(f"wrote {deflated} (torch.load reads it)")
    big = os.path.join(OUT, "torch_big_endian.pt")
    prefix = zipfile.ZipFile(sample_path).namelist()[0].split("/")[0]
    rezip(sample_path, big, transform=big_endian, extra={f"{prefix}/byteorder": b"big"})
    print(f"wrote {big}")

    golden = os.path.join(ROOT, "serialize", "testdata", "pt_golden.inc")
    with open(golden, "w") as f:
        f.write("// Written by tools/pt_interop.py make (PyTorch %s); do not edit.\n" %
                torch.__version__)
        f.write("// SmallNet and Adam(lr=0.01), seed 0, two steps on batch() saved in\n")
        f.write("// torch_smallnet.pt, torch_adam.pt and torch_checkpoint.pt; then a third.\n")
        f.write(f"constexpr double kSecondLoss = {losses[-1]!r};\n")
        f.write(f"constexpr double kThirdLoss = {third_loss!r};\n")
        for name in ["fc1.weight", "fc2.weight", "fc2.bias", "bn.weight"]:
            t = net.state_dict()[name].reshape(-1)
            var = "kAfterThird_" + name.replace(".", "_")
            f.write(f"const std::vector<double> {var} = {cpp_list(t)};\n")
        f.write("const std::vector<double> kAfterThird_bn_running_mean = %s;\n" %
                cpp_list(net.bn.running_mean))
    print(f"wrote {golden}")
    golden = os.path.join(LENET_OUT, "lenet_pt_golden.inc")
    with open(golden, "w") as f:
        f.write("// Written by tools/pt_interop.py make (PyTorch %s); do not edit.\n" %
                torch.__version__)
        f.write("// tools/golden/lenet.py's Net, seed 0 (torch_lenet.pt), on lenet_input().\n")
        f.write(f"const std::vector<double> kLenetLogits = {cpp_list(logits)};\n")
    print(f"wrote {golden}")


# --- ember -> PyTorch -----------------------------------------------------------------

ALLOWED_GLOBALS = {"collections OrderedDict", "torch._utils _rebuild_tensor_v2"} | {
    f"torch {n}Storage" for n in
    ["Double", "Float", "Half", "BFloat16", "Long", "Int", "Short", "Char", "Byte", "Bool"]}


def load(path):
    """torch.load(weights_only=True), or, where PyTorch 1.13 lacks BINFLOAT,
    the same check by hand: only allowed globals, then a plain load."""
    try:
        return torch.load(path, weights_only=True)
    except pickle.UnpicklingError as e:
        if "Unsupported operand 71" not in str(e):
            raise
    with zipfile.ZipFile(path) as z:
        pkl = next(n for n in z.namelist() if n.endswith("/data.pkl"))
        for op, arg, _ in pickletools.genops(io.BytesIO(z.read(pkl))):
            if op.name == "GLOBAL":
                assert arg in ALLOWED_GLOBALS, f"{path}: global {arg} is not allowed"
            assert op.name not in ("INST", "OBJ", "NEWOBJ", "STACK_GLOBAL"), op.name
    print(f"  ({os.path.basename(path)} holds Python floats: globals checked by hand, as "
          "PyTorch 1.13's weights_only lacks BINFLOAT)")
    return torch.load(path)


def same(a, b, what):
    assert a.dtype == b.dtype and a.shape == b.shape, f"{what}: {a.dtype}{list(a.shape)}"
    assert torch.equal(a, b), f"{what}: {a} != {b}"
    if a.is_floating_point():
        assert torch.equal(torch.signbit(a), torch.signbit(b)), what


def same_dict(got, want, what):
    assert list(got) == list(want), f"{what}: keys {list(got)} vs {list(want)}"
    for k in want:
        same(got[k], want[k], f"{what}[{k!r}]")


def check(d):
    f = lambda name: os.path.join(d, name)  # noqa: E731
    got = load(f("ember_sample.pt"))
    assert type(got) is collections.OrderedDict, type(got)
    same_dict(got, ordered_sample(), "ember_sample.pt")
    same_dict(load(f("ember_zip64.pt")), ordered_sample(), "ember_zip64.pt")

    got, want = load(f("ember_views.pt")), views()
    same_dict(got, want, "ember_views.pt")
    for k in want:
        assert got[k].stride() == want[k].stride(), f"{k}: stride {got[k].stride()}"
        assert got[k].storage_offset() == want[k].storage_offset(), k
    ptr = lambda t: t.storage().data_ptr()  # noqa: E731
    for k in ["t", "row", "strided", "block", "element", "empty_tail"]:
        assert ptr(got[k]) == ptr(got["base"]), f"{k} does not share base's storage"
    assert ptr(got["tied"]) == ptr(got["tied_again"])
    got["base"][1, 2] = -7
    assert got["t"][2, 1] == -7 and got["row"][2] == -7, "views do not alias"

    tensor = load(f("ember_tensor.pt"))
    same(tensor, torch.arange(6, dtype=torch.float64).reshape(2, 3).t(), "ember_tensor.pt")
    assert tensor.stride() == (1, 3), tensor.stride()

    net = SmallNet()
    net.load_state_dict(load(f("ember_smallnet.pt")))
    same_dict(net.state_dict(), torch.load(os.path.join(OUT, "torch_smallnet.pt")),
              "ember_smallnet.pt")
    opt = torch.optim.Adam(net.parameters(), lr=0.5)
    opt.load_state_dict(load(f("ember_adam.pt")))
    want = torch.load(os.path.join(OUT, "torch_adam.pt"))
    mine = opt.state_dict()
    for i, s in want["state"].items():
        for k, v in s.items():
            same(mine["state"][i][k], v, f"ember_adam.pt state {i} {k}")
    for k in ["lr", "betas", "eps", "weight_decay", "amsgrad", "maximize", "capturable", "params"]:
        assert mine["param_groups"][0][k] == want["param_groups"][0][k], k

    # A capturable Adam's state (one step from w with grad g): PyTorch 1.13's
    # capturable structure, a float32 step of shape (1,), and loadable.
    w = torch.tensor([0.5, -0.25, 1.0], requires_grad=True)
    g = torch.tensor([0.1, 0.2, -0.3])
    opt = torch.optim.Adam([w], lr=0.5, capturable=True)
    opt.load_state_dict(load(f("ember_adam_capturable.pt")))
    mine = opt.state_dict()
    group = mine["param_groups"][0]
    assert group["capturable"] is True and group["lr"] == 0.01, group
    state = mine["state"][0]
    assert list(state) == ["step", "exp_avg", "exp_avg_sq"], list(state)
    same(state["step"], torch.tensor([1.0]), "ember_adam_capturable.pt step")
    same(state["exp_avg"], g * (1 - 0.9), "ember_adam_capturable.pt exp_avg")
    assert torch.allclose(state["exp_avg_sq"], g * g * (1 - 0.999)), state["exp_avg_sq"]

    ckpt = load(f("ember_checkpoint.pt"))
    assert type(ckpt) is dict, type(ckpt)
    same_dict(ckpt["model"], ordered_sample(), "ember_checkpoint.pt model")
    same(ckpt["optimizer"]["state.0.momentum_buffer"], torch.tensor([0.1, 0.2]), "momentum")
    assert ckpt["epoch"] == 3 and type(ckpt["epoch"]) is int
    assert ckpt["loss"] == 0.125 and ckpt["best"] is True and ckpt["note"] == "resumed"
    assert list(ckpt) == ["model", "optimizer", "epoch", "loss", "best", "note"], list(ckpt)
    print(f"OK: PyTorch {torch.__version__} reads every ember_*.pt in {d} as expected")


if __name__ == "__main__":
    if sys.argv[1:] == ["make"]:
        make()
    elif len(sys.argv) == 3 and sys.argv[1] == "check":
        check(sys.argv[2])
    else:
        sys.exit(__doc__)
