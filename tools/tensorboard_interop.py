"""Reads what //tensorboard:write_sample wrote with TensorBoard's own
EventAccumulator and checks every value (needs the tensorboard package; the
device tool's GPU machines have it, Debian does not):

  bazel-bin/tensorboard/write_sample /tmp/tb && python3 tools/tensorboard_interop.py /tmp/tb

Prints one line per check (and the error of a check that raised) and exits
non-zero if any failed.
"""

import math
import os
import sys

from tensorboard.backend.event_processing import event_accumulator as ea
from tensorboard.plugins.hparams import plugin_data_pb2
from tensorboard.plugins.pr_curve import metadata as pr_metadata
from tensorboard.util import tensor_util


FAILED = []


def check(what, ok):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        FAILED.append(what)


def load(path):
    acc = ea.EventAccumulator(path, size_guidance={ea.TENSORS: 0, ea.IMAGES: 0,
                                                   ea.HISTOGRAMS: 0, ea.SCALARS: 0})
    acc.Reload()
    return acc


def main():
    logdir = sys.argv[1]
    for name, f in list(globals().items()):
        if name.startswith("part_"):
            try:
                f(logdir)
            except Exception as e:  # a missing tag or field: report and go on
                check("%s raised %r" % (name, e), False)
    print("failed:", FAILED if FAILED else "none")
    sys.exit(1 if FAILED else 0)


def part_main(logdir):
    import tensorboard
    print("tensorboard", tensorboard.__version__)
    acc = load(logdir)
    tags = acc.Tags()
    loss = acc.Scalars("train/loss")
    check("scalars train/loss steps", [e.step for e in loss] == [0, 1, 2, 3, 4])
    check("scalars train/loss values",
          all(abs(e.value - 1.0 / (e.step + 1)) < 1e-6 for e in loss))
    for sub, want in (("run_a", 1.5), ("run_b", -2.5)):
        s = load(os.path.join(logdir, sub)).Scalars("run")
        check("add_scalars " + sub, len(s) == 1 and s[0].step == 3 and s[0].value == want)
    h = acc.Histograms("weights")[0]
    hv = h.histogram_value
    check("histogram step/num/min/max/sum",
          h.step == 7 and hv.num == 1000 and abs(hv.min) < 1e-9 and abs(hv.max - 0.999) < 1e-6
          and abs(hv.sum - 499.5) < 1e-3)
    check("histogram bucket counts sum to num", abs(sum(hv.bucket) - 1000) < 1e-9)
    img = acc.Images("image")[0]
    check("image 4x4 at step 2", img.step == 2 and img.width == 4 and img.height == 4)
    try:
        from PIL import Image
        import io
        px = Image.open(io.BytesIO(img.encoded_image_string)).convert("RGB")
        row = [px.getpixel((x, 0)) for x in range(4)]
        check("image pixels " + str(row), row == [(0, 0, 0), (85, 0, 0), (170, 0, 0), (255, 0, 0)])
    except ImportError:
        print("skip image pixels (no PIL)")
    batch = acc.Images("batch")[0]
    check("images grid", batch.step == 2 and batch.width > 3 and batch.height >= 3)
    text = acc.Tensors("note/text_summary")[0]
    check("text", tensor_util.make_ndarray(text.tensor_proto).item().decode() ==
          "hello *tensorboard*")
    pr = acc.Tensors("pr")[0]
    arr = tensor_util.make_ndarray(pr.tensor_proto)
    check("pr_curve shape (6 x 127) at step 4", arr.shape == (6, 127) and pr.step == 4)
    # Threshold 0: every example predicted positive: TP=3, FP=1.
    check("pr_curve first column", arr[0][0] == 3 and arr[1][0] == 1)
    hp_dir = os.path.join(logdir, "hp_run")
    hp = load(hp_dir)
    plugin = hp.PluginTagToContent("hparams")
    session = plugin_data_pb2.HParamsPluginData.FromString(plugin["_hparams_/session_start_info"])
    hparams = session.session_start_info.hparams
    check("hparams lr/optimizer", hparams["lr"].number_value == 0.1 and
          hparams["optimizer"].string_value == "sgd")
    acc_metric = hp.Scalars("hparam/accuracy")
    check("hparams metric", len(acc_metric) == 1 and abs(acc_metric[0].value - 0.75) < 1e-7)
    print("all checks passed:", sorted(tags.keys()))


if __name__ == "__main__":
    main()
