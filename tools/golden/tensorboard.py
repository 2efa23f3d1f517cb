"""Golden values for //tensorboard: PyTorch 1.13's own summary functions
(torch/utils/tensorboard/summary.py) on fixed inputs, written to
tensorboard/testdata/tensorboard_golden.inc.

Debian ships PyTorch without the `tensorboard` package (nor protobuf), so
summary.py is loaded with stand-ins for the protocol-buffer classes it
imports: each records its keyword arguments. The numbers (histogram
counting and trimming, image conversion and make_grid, PIL's PNG, the PR
curve) are PyTorch's and numpy's own code paths.

    /usr/bin/python3 tools/golden/tensorboard.py
"""

import importlib
import io
import os
import sys
import types

import numpy as np
import torch

from golden_util import GoldenWriter


class Message:
    """Stands in for any generated protobuf class: keeps its kwargs."""

    def __init__(self, **kwargs):
        self.fields = kwargs

    def SerializeToString(self):  # noqa: N802 - protobuf's name
        return self


def stub_module(name, **attrs):
    module = types.ModuleType(name)
    module.__dict__.update(attrs)
    sys.modules[name] = module
    return module


def load_pytorch_summary():
    class Summary(Message):
        Image = Message
        Value = Message
        Audio = Message

    class SummaryMetadata(Message):
        PluginData = Message

    class TensorShapeProto(Message):
        Dim = Message

    for name in ["google", "google.protobuf", "tensorboard", "tensorboard.compat",
                 "tensorboard.compat.proto", "tensorboard.plugins",
                 "tensorboard.plugins.custom_scalar", "tensorboard.plugins.pr_curve",
                 "tensorboard.plugins.text", "six"]:
        stub_module(name)
    stub_module("google.protobuf.struct_pb2", ListValue=Message, Value=Message)
    stub_module("six.moves", range=range)
    stub_module("tensorboard.compat.proto.summary_pb2", HistogramProto=Message, Summary=Summary,
                SummaryMetadata=SummaryMetadata)
    stub_module("tensorboard.compat.proto.tensor_pb2", TensorProto=Message)
    stub_module("tensorboard.compat.proto.tensor_shape_pb2", TensorShapeProto=TensorShapeProto)
    stub_module("tensorboard.plugins.custom_scalar.layout_pb2")
    stub_module("tensorboard.plugins.pr_curve.plugin_data_pb2", PrCurvePluginData=Message)
    stub_module("tensorboard.plugins.text.plugin_data_pb2", TextPluginData=Message)
    # The summary module as a member of a package that is only its folder,
    # so that torch/utils/tensorboard/__init__.py (which imports the real
    # tensorboard) does not run.
    package = types.ModuleType("pytorch_tensorboard")
    package.__path__ = [os.path.join(os.path.dirname(torch.__file__), "utils", "tensorboard")]
    sys.modules["pytorch_tensorboard"] = package
    summary = importlib.import_module("pytorch_tensorboard.summary")
    # 1.13's make_histogram calls np.greater(counts, 0, dtype=np.int32),
    # which numpy 1.24 refuses; later PyTorch drops the dtype. Same result.
    shim = types.ModuleType("numpy_shim")
    shim.__dict__.update(np.__dict__)
    shim.greater = lambda a, b, dtype=None: np.greater(a, b).astype(dtype or bool)
    summary.np = shim
    return summary


def default_bins():
    """SummaryWriter.__init__'s default_bins (writer.py)."""
    v = 1e-12
    buckets = []
    while v < 1e20:
        buckets.append(v)
        v *= 1.1
    return [-b for b in reversed(buckets)] + [0] + buckets


def main():
    summary = load_pytorch_summary()
    g = GoldenWriter("tensorboard", package="tensorboard")
    bins = default_bins()
    g.add("default_bins", torch.tensor(bins, dtype=torch.float64))

    def histogram(name, values, bins, max_bins=None):
        values = values.detach()
        g.add(name + "/input", values)
        h = summary.make_histogram(values.numpy().astype(float), bins, max_bins).fields
        g.add(name + "/stats", torch.tensor(
            [h["min"], h["max"], h["num"], h["sum"], h["sum_squares"]], dtype=torch.float64))
        g.add(name + "/bucket_limit", torch.tensor(h["bucket_limit"], dtype=torch.float64))
        g.add(name + "/bucket", torch.tensor(h["bucket"], dtype=torch.float64))

    torch.manual_seed(0)
    randn = torch.randn(1000) * 3
    histogram("randn", randn, bins)
    histogram("randn_max_bins", randn, bins, max_bins=50)
    # Exact edges (0, +-1e-12, a bucket limit), repeats, a value past 1e20.
    histogram("edges", torch.tensor([0.0, 1e-12, -1e-12, bins[900], bins[900], -3.0, 2.5, 1e21],
                                    dtype=torch.float64), bins)
    histogram("zero", torch.zeros(1, dtype=torch.float64), bins)
    histogram("count10", torch.randn(100, dtype=torch.float64), 10)
    histogram("count_single_value", torch.full((4,), 2.0, dtype=torch.float64), 3)
    histogram("explicit_edges", torch.tensor([0.0, 0.5, 0.5, 1.9, 2.0, 2.5, -1.0],
                                             dtype=torch.float64), [0.0, 0.5, 1.0, 2.0])
    histogram("int_values", torch.arange(-5, 20), bins)

    def image(name, tensor, dataformats):
        g.add(name + "/input", tensor)
        img = summary.image("tag", tensor, dataformats=dataformats).fields["value"][0].fields
        img = img["image"].fields
        from PIL import Image
        decoded = np.array(Image.open(io.BytesIO(img["encoded_image_string"])))
        assert decoded.shape == (img["height"], img["width"], img["colorspace"]), name
        g.add(name + "/pixels", torch.from_numpy(decoded.copy()))

    # Values in [0, 1] only: 1.13 wraps values outside around (astype(uint8)
    # of 306.0 is 50), later PyTorch clips them to [0, 255] first, as ember
    # does (summary_test's ImageTest.ClipsOutOfRangeValues).
    image("chw_float", torch.tensor([[[0.0, 0.5, 1.0], [0.8, 0.05, 0.999]],
                                     [[0.25, 0.75, 0.004], [0.996, 0.5019608, 0.3]],
                                     [[0.1, 0.2, 0.3], [0.4, 0.6, 0.7]]]), "CHW")
    image("chw_double_ramp", torch.linspace(0, 1, 60, dtype=torch.float64).reshape(3, 4, 5), "CHW")
    image("hwc_uint8_gray", torch.tensor([[[0], [17]], [[128], [255]]], dtype=torch.uint8), "HWC")
    image("hw_float", torch.tensor([[0.0, 0.3, 0.6], [0.9, 1.0, 0.01]]), "HW")
    image("whc_rgba", torch.arange(2 * 3 * 4, dtype=torch.uint8).reshape(2, 3, 4) * 10, "WHC")
    image("nchw_grid", torch.arange(10 * 1 * 2 * 3, dtype=torch.float32).reshape(10, 1, 2, 3) / 60,
          "NCHW")
    image("nhwc_uint8", (torch.arange(3 * 2 * 2 * 3) * 7 % 256).to(torch.uint8).reshape(3, 2, 2, 3),
          "NHWC")

    def pr_curve(name, labels, predictions, num_thresholds, weights=None):
        g.add(name + "/labels", labels)
        g.add(name + "/predictions", predictions)
        if weights is not None:
            g.add(name + "/weights", weights)
        data = summary.compute_curve(labels.numpy(), predictions.numpy(),
                                     num_thresholds=num_thresholds,
                                     weights=None if weights is None else weights.numpy())
        g.add(name + "/table", torch.from_numpy(data).to(torch.float32))

    torch.manual_seed(1)
    labels = torch.randint(0, 2, (200,))
    predictions = torch.rand(200)
    pr_curve("pr_random", labels, predictions, 127)
    pr_curve("pr_weighted", labels.to(torch.float64), predictions.to(torch.float64), 10,
             torch.rand(200, dtype=torch.float64))
    pr_curve("pr_edges", torch.tensor([1, 0, 1, 0, 1, 1]),
             torch.tensor([0.0, 1.0, 0.5, 1.5, -0.2, 0.99]), 5)
    g.write()


if __name__ == "__main__":
    main()
