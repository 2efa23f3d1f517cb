"""Golden values for nn.EmbeddingBag and F.embedding_bag (issue 19):
the op's outputs and gradients (weight, per_sample_weights) in every mode,
with offsets or 2-D bags, include_last_offset, padding_idx,
scale_grad_by_freq and max_norm, its errors, and the module's
initialization under torch.manual_seed(0), names and printed forms.

Run with Debian's PyTorch: /usr/bin/python3 tools/golden/embedding_bag.py
Writes nn/functional/testdata/embedding_bag_{golden,errors_golden}.inc
(GoldenWriter.op_case cases: in0 weight, in1 input, in2 offsets, in3
per_sample_weights where given) for nn/functional/embedding_bag_test.cc
and nn/testdata/embedding_bag_{golden,errors_golden,strings_golden}.inc
for nn/embedding_bag_test.cc.
"""

import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_util import ErrorWriter, GoldenWriter, StringWriter, mk  # noqa: E402

torch.set_num_threads(1)
w = GoldenWriter("embedding_bag", package="nn/functional")
errors = ErrorWriter("embedding_bag", first_line=True, package="nn/functional")
err = errors.err
gen = torch.Generator().manual_seed(1919)


def rnd(*shape):
    # Distinct values: max mode's gradient picks one row per feature.
    return torch.randn(*shape, generator=gen, dtype=torch.float64)


def ids(*v):
    return torch.tensor(v, dtype=torch.int64)


IDX = ids(1, 2, 4, 5, 4, 3, 2, 9)
OFF = ids(0, 2, 2, 5)  # bags [1 2] [] [5 4 3] [2 9]
IDX2 = ids(1, 2, 3, 4, 4, 0).reshape(2, 3)

# --- outputs and gradients ---------------------------------------------------------------
for mode in ("sum", "mean", "max"):
    w.op_case("%s_1d" % mode, lambda t, i, o, m=mode: F.embedding_bag(i, t, o, mode=m),
              [rnd(10, 3), IDX, OFF])
    w.op_case("%s_2d" % mode, lambda t, i, m=mode: F.embedding_bag(i, t, mode=m),
              [rnd(6, 4), IDX2])
    w.op_case("%s_last_offset" % mode,
              lambda t, i, o, m=mode: F.embedding_bag(i, t, o, mode=m, include_last_offset=True),
              [rnd(10, 3), IDX, ids(0, 3, 3, 8)])
    w.op_case("%s_padding_idx" % mode,
              lambda t, i, o, m=mode: F.embedding_bag(i, t, o, mode=m, padding_idx=4),
              [rnd(10, 3), IDX, OFF])
w.op_case("max_padding_idx_negative",
          lambda t, i, o: F.embedding_bag(i, t, o, mode="max", padding_idx=-1),
          [rnd(10, 2), IDX, OFF])
w.op_case("sum_per_sample_weights",
          lambda t, i, o, p: F.embedding_bag(i, t, o, mode="sum", per_sample_weights=p),
          [rnd(10, 3), IDX, OFF, rnd(8)], grads=(0, 3))
w.op_case("sum_per_sample_weights_2d",
          lambda t, i, p: F.embedding_bag(i, t, mode="sum", per_sample_weights=p),
          [rnd(6, 4), IDX2, rnd(2, 3)], grads=(0, 2))
w.op_case("sum_per_sample_weights_padding",
          lambda t, i, o, p: F.embedding_bag(i, t, o, mode="sum", per_sample_weights=p,
                                             padding_idx=2, include_last_offset=True),
          [rnd(10, 3), IDX, ids(0, 2, 2, 5, 8), rnd(8)], grads=(0, 3))
w.op_case("mean_int32",
          lambda t, i, o: F.embedding_bag(i, t, o), [rnd(10, 3), IDX.int(), OFF.int()])
# Every index twice: PyTorch 1.13's CPU backward takes the count of the k-th
# sorted input for the k-th distinct index (nn/functional/embedding.cc), which
# is only right when all counts are equal.
for mode in ("sum", "mean"):
    w.op_case("%s_scale_grad_by_freq" % mode,
              lambda t, i, o, m=mode: F.embedding_bag(i, t, o, mode=m, scale_grad_by_freq=True),
              [rnd(10, 3), ids(1, 2, 4, 1, 4, 2, 9, 9), OFF])
# max_norm renormalizes the rows it looks up in place, before the bags.
w.op_case("mean_max_norm", lambda t, i, o: F.embedding_bag(i, t, o, max_norm=1.0),
          [rnd(10, 3) * 2, IDX, OFF])
w.op_case("max_max_norm_p1",
          lambda t, i, o: F.embedding_bag(i, t, o, mode="max", max_norm=1.5, norm_type=1.0),
          [rnd(10, 3) * 2, IDX, OFF])
w.op_case("sum_all_empty", lambda t, i, o: F.embedding_bag(i, t, o, mode="max"),
          [rnd(4, 2), ids(), ids(0, 0)])

# --- errors -------------------------------------------------------------------------------
t = torch.zeros(6, 2)
i = ids(1, 2, 3, 4, 5)
err("psw_shape", lambda: F.embedding_bag(i, t, ids(0), mode="sum",
                                         per_sample_weights=torch.ones(4)))
err("psw_mode", lambda: F.embedding_bag(i, t, ids(0), mode="max",
                                        per_sample_weights=torch.ones(5)))
err("offsets_2d_input", lambda: F.embedding_bag(i.reshape(1, 5), t, ids(0)))
err("offsets_none", lambda: F.embedding_bag(i, t))
err("offsets_dim", lambda: F.embedding_bag(i, t, ids(0).reshape(1, 1)))
err("input_dim", lambda: F.embedding_bag(i.reshape(1, 1, 5), t))
err("max_scale_grad", lambda: F.embedding_bag(i, t, ids(0), mode="max", scale_grad_by_freq=True))
err("max_sparse", lambda: F.embedding_bag(i, t, ids(0), mode="max", sparse=True))
err("mode", lambda: F.embedding_bag(i, t, ids(0), mode="none"))
err("indices_dtype", lambda: F.embedding_bag(i.float(), t, ids(0)))
err("offsets_dtype", lambda: F.embedding_bag(i, t, torch.zeros(1)))
err("padding_idx_high", lambda: F.embedding_bag(i, t, ids(0), padding_idx=6))
err("padding_idx_low", lambda: F.embedding_bag(i, t, ids(0), padding_idx=-7))
err("offsets_first", lambda: F.embedding_bag(i, t, ids(1, 2)))
err("offsets_last", lambda: F.embedding_bag(i, t, ids(0, 7)))
err("last_offset_empty", lambda: F.embedding_bag(i, t, ids(), include_last_offset=True))
err("index_range", lambda: F.embedding_bag(ids(1, 9), t.double(), ids(0)))
w.write()
errors.write()

# --- the module ---------------------------------------------------------------------------
m = GoldenWriter("embedding_bag", package="nn")
merrors = ErrorWriter("embedding_bag", package="nn")
strings = StringWriter("embedding_bag", package="nn")



LAYERS = {
    "default": (lambda: nn.EmbeddingBag(10, 3), IDX2),
    "sum_padding": (lambda: nn.EmbeddingBag(6, 4, mode="sum", padding_idx=-2), IDX2),
    "max": (lambda: nn.EmbeddingBag(7, 2, mode="max", max_norm=1.0), IDX2),
}
for name, (make, x) in LAYERS.items():
    torch.manual_seed(0)
    layer = make()
    for pname, p in layer.named_parameters():
        m.add("init.%s.%s" % (name, pname), p)
    strings.add("params." + name,
               "\n".join("%s %s" % (n, list(p.shape)) for n, p in layer.named_parameters()))
    strings.add("state_dict." + name, "\n".join(layer.state_dict().keys()))
    m.add("forward.%s.input" % name, x)
    m.add("forward.%s.output" % name, layer(x))

# forward(input, offsets, per_sample_weights) and from_pretrained.
torch.manual_seed(0)
layer = nn.EmbeddingBag(10, 3, mode="sum", include_last_offset=True)
psw = mk((8,), seed=3)
m.add("offsets.output", layer(IDX, ids(0, 2, 2, 5, 8), psw))
m.add("offsets.psw", psw)
pre = mk((5, 3), seed=1)
m.add("pretrained.weight", pre)
m.add("pretrained.output", nn.EmbeddingBag.from_pretrained(pre, mode="max", padding_idx=1)(
    ids(0, 1, 2, 3, 4, 1), ids(0, 2, 4)))

strings.add("repr", repr(nn.ModuleList([
    nn.EmbeddingBag(5, 3), nn.EmbeddingBag(5, 3, mode="sum", padding_idx=-2),
    nn.EmbeddingBag(5, 3, max_norm=1.0, norm_type=3.0, scale_grad_by_freq=True, mode="max",
                    include_last_offset=True, padding_idx=0),
    nn.EmbeddingBag(5, 3, max_norm=2.5, norm_type=2.0, sparse=True)])))

# The module's own checks are AssertionErrors (spelled in the C++ test);
# these come from forward.
merrors.err("forward_offsets_none", lambda: nn.EmbeddingBag(5, 3)(ids(1, 2)))
merrors.err("forward_mode", lambda: nn.EmbeddingBag(5, 3, mode="none")(IDX2))
m.write()
merrors.write()
strings.write()
