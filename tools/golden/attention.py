"""Golden values for attention and the Transformer layers
(nn/functional/attention_test.cc, nn/attention_test.cc,
nn/transformer_test.cc).

scaled_dot_product_attention: PyTorch 1.13 has no public one, so its
values come from PyTorch 2.x's math-path formula written here in 1.13's ops
(softmax(q k^T * scale + mask) v, bool masks true = attend, causal = the
top-left lower triangle, fully masked rows zero), in float64.
MultiheadAttention and the Transformer layers: PyTorch 1.13's modules,
initialized under torch.manual_seed(0), in float32: parameters, outputs,
attention weights and the gradients of sum(out * w) with respect to the
inputs and every parameter; their printed forms, parameter names and
errors.

Run with /usr/bin/python3 (Debian's torch 1.13). Writes
nn/testdata/attention_{golden,errors_golden,strings_golden}.inc and
nn/functional/testdata/sdpa_golden.inc.
"""

import math
import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_util import ErrorWriter, GoldenWriter, StringWriter, params_string  # noqa: E402

torch.set_num_threads(1)
g = GoldenWriter("attention", package="nn")
sdpa = GoldenWriter("sdpa", package="nn/functional")
errors = ErrorWriter("attention", first_line=True, package="nn")
strings = StringWriter("attention", package="nn")



def randn(*shape, seed, dtype=torch.float64):
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=gen, dtype=torch.float64).to(dtype)


# --- scaled_dot_product_attention (PyTorch 2.x semantics) -------------------------------
def sdpa_reference(q, k, v, mask=None, is_causal=False, scale=None, gqa=False):
    if gqa and k.size(-3) != q.size(-3):
        rep = q.size(-3) // k.size(-3)
        k = k.repeat_interleave(rep, dim=-3)
        v = v.repeat_interleave(rep, dim=-3)
    s = 1 / math.sqrt(q.size(-1)) if scale is None else scale
    L, S = q.size(-2), k.size(-2)
    if is_causal:
        mask = torch.ones(L, S, dtype=torch.bool).tril()
    scores = q @ k.transpose(-2, -1) * s
    if mask is not None:
        if mask.dtype == torch.bool:
            mask = torch.zeros(mask.shape, dtype=q.dtype).masked_fill(~mask, float("-inf"))
        scores = scores + mask
    masked_rows = (scores == float("-inf")).all(-1, keepdim=True)
    probs = scores.masked_fill(masked_rows, 0).softmax(-1).masked_fill(masked_rows, 0)
    return probs @ v


SDPA_CASES = {
    # name: (q shape, k shape, v shape, mask maker, kwargs)
    "basic": ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7), None, {}),
    "three_d": ((3, 4, 5), (3, 6, 5), (3, 6, 2), None, {}),
    "two_d": ((4, 3), (5, 3), (5, 2), None, {}),
    "broadcast_batch": ((2, 3, 4, 5), (1, 3, 6, 5), (1, 3, 6, 5), None, {}),
    "bool_mask": ((2, 2, 4, 5), (2, 2, 6, 5), (2, 2, 6, 5),
                  lambda: torch.rand(4, 6, generator=torch.Generator().manual_seed(5)) > 0.3, {}),
    "float_mask": ((2, 2, 4, 5), (2, 2, 6, 5), (2, 2, 6, 5), lambda: randn(2, 1, 4, 6, seed=6), {}),
    "masked_row": ((1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4),
                   lambda: torch.tensor([[True] * 5, [False] * 5, [True, False, True, False, True]]),
                   {}),
    "causal_square": ((2, 2, 5, 4), (2, 2, 5, 4), (2, 2, 5, 3), None, {"is_causal": True}),
    "causal_wide": ((1, 2, 3, 4), (1, 2, 6, 4), (1, 2, 6, 4), None, {"is_causal": True}),
    "scale": ((2, 2, 4, 5), (2, 2, 6, 5), (2, 2, 6, 5), None, {"scale": 0.3}),
    "negative_scale": ((1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4), None, {"scale": -0.7}),
    "gqa": ((2, 4, 3, 5), (2, 2, 6, 5), (2, 2, 6, 5), None, {"gqa": True}),
}
for i, (name, (qs, ks, vs, mask_fn, kw)) in enumerate(SDPA_CASES.items()):
    q = randn(*qs, seed=100 + 3 * i).requires_grad_()
    k = randn(*ks, seed=101 + 3 * i).requires_grad_()
    v = randn(*vs, seed=102 + 3 * i).requires_grad_()
    mask = mask_fn() if mask_fn else None
    out = sdpa_reference(q, k, v, mask, **kw)
    w = randn(*out.shape, seed=7)
    (out * w).sum().backward()
    p = "sdpa.%s." % name
    for n, t in (("q", q), ("k", k), ("v", v), ("w", w), ("out", out), ("gq", q.grad),
                 ("gk", k.grad), ("gv", v.grad)):
        sdpa.add(p + n, t)
    if mask is not None:
        sdpa.add(p + "mask", mask)

# --- nn.MultiheadAttention ----------------------------------------------------------------

def record_module(name, m):
    """Init values, names and printed form of a module made under manual_seed(0)."""
    for pname, p in m.named_parameters():
        g.add("%s.init.%s" % (name, pname), p)
    strings.add(name + ".params", params_string(m))
    strings.add(name + ".state_dict", "\n".join(m.state_dict().keys()))
    strings.add(name + ".repr", repr(m))


def record_grads(name, m, inputs):
    for pname, p in m.named_parameters():
        if p.grad is not None:
            g.add("%s.grad.%s" % (name, pname), p.grad)
    for iname, x in inputs.items():
        if x.grad is not None:
            g.add("%s.grad_input.%s" % (name, iname), x.grad)


def f32(*shape, seed):
    return randn(*shape, seed=seed, dtype=torch.float32)


# name: (constructor kwargs, (query, key, value) shapes or "self", forward kwargs maker)
L, S, N, E = 4, 5, 3, 8
MHA_CASES = {
    "self": (dict(embed_dim=E, num_heads=2), "self", (L, N, E), lambda: {}),
    "cross_masks": (dict(embed_dim=E, num_heads=2), ((L, 2, E), (S, 2, E), (S, 2, E)), None,
                    lambda: dict(key_padding_mask=torch.tensor([[False, False, True, False, True],
                                                                [False] * 5]),
                                 attn_mask=randn(L, S, seed=31, dtype=torch.float32),
                                 average_attn_weights=False)),
    "batch_first_nw": (dict(embed_dim=E, num_heads=4, batch_first=True), "self", (2, L, E),
                       lambda: dict(attn_mask=torch.rand(
                           8, L, L, generator=torch.Generator().manual_seed(32)) > 0.7,
                           need_weights=False)),
    "kv_same": (dict(embed_dim=E, num_heads=2), "kv", ((L, 2, E), (S, 2, E)), lambda: {}),
    "kdim_vdim": (dict(embed_dim=E, num_heads=2, kdim=5, vdim=7, bias=False),
                  ((L, 2, E), (S, 2, 5), (S, 2, 7)), None, lambda: {}),
    "bias_kv_zero_attn": (dict(embed_dim=E, num_heads=2, add_bias_kv=True, add_zero_attn=True),
                          ((L, 2, E), (S, 2, E), (S, 2, E)), None,
                          lambda: dict(key_padding_mask=torch.tensor(
                              [[False, True, False, False, False], [False] * 5]),
                              attn_mask=torch.triu(torch.ones(L, S, dtype=torch.bool), 2))),
    "unbatched": (dict(embed_dim=E, num_heads=2), ((L, E), (S, E), (S, E)), None,
                  lambda: dict(key_padding_mask=torch.tensor([False, False, False, True, True]))),
    "dropout": (dict(embed_dim=E, num_heads=2, dropout=0.25), "self", (L, N, E), lambda: {}),
    "dropout_nw": (dict(embed_dim=E, num_heads=2, dropout=0.25), "self", (L, N, E),
                   lambda: dict(need_weights=False)),
}
for ci, (name, (ctor, kind, shapes, fwd)) in enumerate(MHA_CASES.items()):
    torch.manual_seed(0)
    m = nn.MultiheadAttention(**ctor)
    prefix = "mha." + name
    record_module(prefix, m)
    if kind == "self":
        x = f32(*shapes, seed=40 + ci).requires_grad_()
        q = k = v = x
        inputs = {"query": x}
    elif kind == "kv":
        q = f32(*shapes[0], seed=40 + ci).requires_grad_()
        k = v = f32(*shapes[1], seed=60 + ci).requires_grad_()
        inputs = {"query": q, "key": k}
    else:
        q = f32(*kind[0], seed=40 + ci).requires_grad_()
        k = f32(*kind[1], seed=60 + ci).requires_grad_()
        v = f32(*kind[2], seed=80 + ci).requires_grad_()
        inputs = {"query": q, "key": k, "value": v}
    for iname, t in inputs.items():
        g.add("%s.input.%s" % (prefix, iname), t)
    kwargs = fwd()
    for kname in ("key_padding_mask", "attn_mask"):
        if kname in kwargs:
            g.add("%s.%s" % (prefix, kname), kwargs[kname])
    torch.manual_seed(1)  # the dropout draws
    out, weights = m(q, k, v, **kwargs)
    g.add(prefix + ".out", out)
    loss = (out * randn(*out.shape, seed=8, dtype=torch.float32)).sum()
    g.add(prefix + ".w", randn(*out.shape, seed=8, dtype=torch.float32))
    if weights is not None:
        g.add(prefix + ".weights", weights)
        w2 = randn(*weights.shape, seed=9, dtype=torch.float32)
        g.add(prefix + ".w2", w2)
        loss = loss + (weights * w2).sum()
    loss.backward()
    record_grads(prefix, m, inputs)

# --- Transformer layers ---------------------------------------------------------------
D, H, FF = 8, 2, 16
src_mask = nn.Transformer.generate_square_subsequent_mask(5)
strings.add("square_subsequent_mask.repr", repr(src_mask))
g.add("square_subsequent_mask", src_mask)
kpm_src = torch.tensor([[False, False, False, True, True], [False] * 5])
kpm_tgt = torch.tensor([[False, False, True, True], [False] * 4])


def layer_case(name, make, forward_inputs, batch_first):
    torch.manual_seed(0)
    m = make()
    prefix = "tf." + name
    record_module(prefix, m)
    inputs = {}
    for iname, shape, seed in forward_inputs:
        if batch_first:
            shape = (shape[1], shape[0], shape[2])
        inputs[iname] = f32(*shape, seed=seed).requires_grad_()
        g.add("%s.input.%s" % (prefix, iname), inputs[iname])
    return m, prefix, inputs


def finish(m, prefix, inputs, out):
    g.add(prefix + ".out", out)
    w = randn(*out.shape, seed=10, dtype=torch.float32)
    g.add(prefix + ".w", w)
    (out * w).sum().backward()
    record_grads(prefix, m, inputs)


for act in ("relu", "gelu"):
    for norm_first in (False, True):
        for batch_first in (False, True):
            name = "enc_layer.%s%s%s" % (act, ".norm_first" if norm_first else "",
                                         ".batch_first" if batch_first else "")
            m, prefix, inputs = layer_case(
                name, lambda: nn.TransformerEncoderLayer(
                    D, H, FF, dropout=0.0, activation=act, norm_first=norm_first,
                    batch_first=batch_first), [("src", (5, 2, D), 11)], batch_first)
            finish(m, prefix, inputs, m(inputs["src"], src_mask=src_mask,
                                        src_key_padding_mask=kpm_src))

for norm_first in (False, True):
    name = "dec_layer%s" % (".norm_first" if norm_first else "")
    m, prefix, inputs = layer_case(
        name, lambda: nn.TransformerDecoderLayer(D, H, FF, dropout=0.0, activation="gelu",
                                                 norm_first=norm_first),
        [("tgt", (4, 2, D), 12), ("memory", (5, 2, D), 13)], False)
    finish(m, prefix, inputs,
           m(inputs["tgt"], inputs["memory"],
             tgt_mask=nn.Transformer.generate_square_subsequent_mask(4),
             tgt_key_padding_mask=kpm_tgt, memory_key_padding_mask=kpm_src))

m, prefix, inputs = layer_case(
    "encoder", lambda: nn.TransformerEncoder(
        nn.TransformerEncoderLayer(D, H, FF, dropout=0.0), 2, norm=nn.LayerNorm(D)),
    [("src", (5, 2, D), 14)], False)
finish(m, prefix, inputs, m(inputs["src"], mask=src_mask, src_key_padding_mask=kpm_src))

m, prefix, inputs = layer_case(
    "decoder", lambda: nn.TransformerDecoder(
        nn.TransformerDecoderLayer(D, H, FF, dropout=0.0, batch_first=True), 2),
    [("tgt", (4, 2, D), 15), ("memory", (5, 2, D), 16)], True)
finish(m, prefix, inputs, m(inputs["tgt"], inputs["memory"],
                            memory_key_padding_mask=kpm_src))

m, prefix, inputs = layer_case(
    "transformer", lambda: nn.Transformer(D, H, 2, 2, FF, dropout=0.0),
    [("src", (5, 2, D), 17), ("tgt", (4, 2, D), 18)], False)
finish(m, prefix, inputs, m(inputs["src"], inputs["tgt"],
                            tgt_mask=nn.Transformer.generate_square_subsequent_mask(4),
                            src_key_padding_mask=kpm_src, memory_key_padding_mask=kpm_src))

# --- errors -----------------------------------------------------------------------------
errors.err("mha_divisible", lambda: nn.MultiheadAttention(10, 3))
mha = nn.MultiheadAttention(8, 2)
errors.err("mha_query_dim", lambda: mha(torch.zeros(2, 3, 4, 8), torch.zeros(2, 3, 4, 8),
                                        torch.zeros(2, 3, 4, 8)))
errors.err("mha_key_dim", lambda: mha(torch.zeros(4, 2, 8), torch.zeros(5, 8), torch.zeros(5, 8)))
errors.err("mha_embed_dim", lambda: mha(torch.zeros(4, 2, 6), torch.zeros(5, 2, 6),
                                        torch.zeros(5, 2, 6)))
errors.err("mha_attn_mask_2d", lambda: mha(torch.zeros(4, 2, 8), torch.zeros(5, 2, 8),
                                           torch.zeros(5, 2, 8), attn_mask=torch.zeros(4, 4)))
errors.err("mha_attn_mask_3d", lambda: mha(torch.zeros(4, 2, 8), torch.zeros(5, 2, 8),
                                           torch.zeros(5, 2, 8), attn_mask=torch.zeros(2, 4, 5)))
errors.err("mha_kpm_dim", lambda: mha(torch.zeros(4, 2, 8), torch.zeros(5, 2, 8),
                                      torch.zeros(5, 2, 8),
                                      key_padding_mask=torch.zeros(2, 5, 1, dtype=torch.bool)))
errors.err("mha_kpm_shape", lambda: mha(torch.zeros(4, 2, 8), torch.zeros(5, 2, 8),
                                        torch.zeros(5, 2, 8),
                                        key_padding_mask=torch.zeros(2, 4, dtype=torch.bool)))
errors.err("mha_kv_shape", lambda: mha(torch.zeros(4, 2, 8), torch.zeros(5, 2, 8),
                                       torch.zeros(6, 2, 8)))
errors.err("mha_mask_dtype", lambda: mha(torch.zeros(4, 2, 8), torch.zeros(5, 2, 8),
                                         torch.zeros(5, 2, 8),
                                         attn_mask=torch.zeros(4, 5, dtype=torch.long)))
tr = nn.Transformer(8, 2, 1, 1, 16)
errors.err("transformer_batch", lambda: tr(torch.zeros(5, 2, 8), torch.zeros(4, 3, 8)))
errors.err("transformer_features", lambda: tr(torch.zeros(5, 2, 6), torch.zeros(4, 2, 6)))
errors.err("encoder_layer_activation", lambda: nn.TransformerEncoderLayer(8, 2, activation="tanh"))

g.write()
sdpa.write()
errors.write()
strings.write()
