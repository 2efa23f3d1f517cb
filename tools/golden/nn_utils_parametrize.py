#!/usr/bin/python3
"""torch.nn.utils' reparametrizations (issue 19): weight_norm, spectral_norm,
parametrize and prune, for nn/utils/parametrize_test.cc: the new parameters
and buffers, forward outputs, gradients, power-iteration vectors, pruning
masks, state_dict keys, printed forms and PyTorch's errors. Weights are set
from mk() so that the C++ test can copy them in; random draws (spectral
norm's u and v, random pruning) happen under manual_seed.
Also parametrizations with several originals (right_inverse returning a
list), assignment, type_before_parametrizations and
transfer_parametrizations_and_params; and spectral_norm's loading of a
version-0 state dict (as PyTorch's test_spectral_norm_load_state_dict
makes one).
Run with Debian's PyTorch: /usr/bin/python3 tools/golden/nn_utils_parametrize.py"""
import collections
import math

import torch
import torch.nn as nn
import torch.nn.utils.parametrize as P
import torch.nn.utils.prune as prune
from torch.nn.utils import remove_spectral_norm, remove_weight_norm, spectral_norm, weight_norm

from golden_util import ErrorWriter, GoldenWriter, StringWriter, mk


def keys(d):
    return "\n".join(d.keys())


def names(pairs):
    return "\n".join("%s %s" % (n, list(t.shape)) for n, t in pairs)


def set_linear(m, seed=0, scale=0.5):
    """Gives a Linear or conv mk() weights (seed) and bias (seed + 5)."""
    with torch.no_grad():
        m.weight.copy_(mk(list(m.weight.shape), m.weight.dtype, seed) * scale + 0.125)
        if m.bias is not None:
            m.bias.copy_(mk(list(m.bias.shape), m.bias.dtype, seed + 5) * 0.5)
    return m


def record_grads(w, prefix, m):
    for n, p in m.named_parameters():
        w.add("%s/grad/%s" % (prefix, n), p.grad)


def weight_norms(w, s):
    x = mk([5, 4], torch.float32, 3)
    for dtn, dt in (("f32", torch.float32), ("f64", torch.float64)):
        for dim_name, dim in (("dim0", 0), ("dim1", 1), ("none", None)):
            m = set_linear(nn.Linear(4, 3).to(dt))
            weight_norm(m, dim=dim)
            pre = "wn/linear_%s/%s" % (dim_name, dtn)
            w.add(pre + "/weight_g", m.weight_g)
            w.add(pre + "/weight_v", m.weight_v)
            y = m(x.to(dt))
            w.add(pre + "/out", y)
            w.add(pre + "/weight", m.weight)
            (y * mk(list(y.shape), dt, 7)).sum().backward()
            record_grads(w, pre, m)
    m = set_linear(nn.Linear(4, 3))
    weight_norm(m)
    s.add("wn.params", names(m.named_parameters()))
    s.add("wn.state_dict", keys(m.state_dict()))
    s.add("wn.repr", repr(m))
    with torch.no_grad():
        m.weight_g.mul_(2)
    remove_weight_norm(m)
    w.add("wn/removed/weight", m.weight)
    s.add("wn.removed_params", names(m.named_parameters()))
    # Conv1d: g has shape [out, 1, 1].
    c = set_linear(nn.Conv1d(2, 3, 3))
    weight_norm(c, dim=0)
    w.add("wn/conv1d/weight_g", c.weight_g)
    xc = mk([2, 2, 5], torch.float32, 1)
    y = c(xc)
    w.add("wn/conv1d/out", y)
    (y * mk(list(y.shape), torch.float32, 7)).sum().backward()
    record_grads(w, "wn/conv1d", c)
    # Another name: Linear's bias (1-d), dim 0.
    b = set_linear(nn.Linear(4, 3))
    weight_norm(b, name="bias")
    w.add("wn/bias/bias_g", b.bias_g)
    w.add("wn/bias/out", b(x))
    s.add("wn.bias_params", names(b.named_parameters()))


def spectral_norms(w, s):
    x = mk([5, 4], torch.float32, 3)
    # u and v drawn under manual_seed; two training steps, then eval.
    for n_iter in (1, 3):
        torch.manual_seed(0)
        m = set_linear(nn.Linear(4, 3))
        spectral_norm(m, n_power_iterations=n_iter)
        pre = "sn/linear_it%d" % n_iter
        w.add(pre + "/u0", m.weight_u)
        w.add(pre + "/v0", m.weight_v)
        w.add(pre + "/weight_orig", m.weight_orig)
        for step in (1, 2):
            y = m(x * step)
            w.add("%s/step%d/out" % (pre, step), y)
            w.add("%s/step%d/u" % (pre, step), m.weight_u)
            w.add("%s/step%d/v" % (pre, step), m.weight_v)
            w.add("%s/step%d/weight" % (pre, step), m.weight)
        m.zero_grad()
        y = m(x)
        (y * mk(list(y.shape), torch.float32, 7)).sum().backward()
        record_grads(w, pre, m)
        w.add(pre + "/u3", m.weight_u)
        m.eval()
        w.add(pre + "/eval_out", m(x))
        w.add(pre + "/eval_u", m.weight_u)
    m = nn.Linear(4, 3)
    spectral_norm(m)
    s.add("sn.params", names(m.named_parameters()))
    s.add("sn.buffers", names(m.named_buffers()))
    s.add("sn.state_dict", keys(m.state_dict()))
    # More than 16 values: normal_'s vectorized path.
    torch.manual_seed(1)
    big = spectral_norm(nn.Linear(20, 17))
    w.add("sn/big/u0", big.weight_u)
    w.add("sn/big/v0", big.weight_v)
    # ConvTranspose2d: dim 1 by default; Conv2d: dim 0.
    torch.manual_seed(2)
    ct = set_linear(nn.ConvTranspose2d(2, 3, 2))
    spectral_norm(ct)
    w.add("sn/convt/u0", ct.weight_u)
    w.add("sn/convt/v0", ct.weight_v)
    xc = mk([1, 2, 3, 3], torch.float32, 2)
    w.add("sn/convt/out", ct(xc))
    w.add("sn/convt/u1", ct.weight_u)
    torch.manual_seed(2)
    cv = set_linear(nn.Conv2d(2, 3, 2))
    spectral_norm(cv, eps=1e-6)
    w.add("sn/conv/u0", cv.weight_u)
    w.add("sn/conv/v0", cv.weight_v)
    w.add("sn/conv/out", cv(xc))
    # remove: the weight as in eval (no power iteration).
    torch.manual_seed(0)
    m = set_linear(nn.Linear(4, 3))
    spectral_norm(m)
    m(x)
    remove_spectral_norm(m)
    w.add("sn/removed/weight", m.weight)
    s.add("sn.removed_params", names(m.named_parameters()))
    s.add("sn.removed_state_dict", keys(m.state_dict()))
    # float64 gradient through weight_orig (eval mode: a fixed u, v).
    torch.manual_seed(0)
    m = set_linear(nn.Linear(4, 3).double())
    spectral_norm(m)
    m.eval()
    y = m(x.double())
    w.add("sn/f64_eval/out", y)
    (y * mk(list(y.shape), torch.float64, 7)).sum().backward()
    record_grads(w, "sn/f64_eval", m)


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(0, 1)


class Positive(nn.Module):
    def forward(self, X):
        return torch.exp(X)

    def right_inverse(self, Y):
        return torch.log(Y)


class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("factor", torch.tensor([1.5, -0.5, 2.0]))

    def forward(self, X):
        return X * self.factor


class Row(nn.Module):
    def forward(self, X):
        return X[0]


class ToDouble(nn.Module):
    def forward(self, X):
        return X.double()


def parametrizations(w, s):
    x = mk([5, 3], torch.float32, 3)
    m = set_linear(nn.Linear(3, 3))
    P.register_parametrization(m, "weight", Symmetric())
    s.add("pz.repr", repr(m))
    s.add("pz.params", names(m.named_parameters()))
    s.add("pz.state_dict", keys(m.state_dict()))
    w.add("pz/sym/weight", m.weight)
    y = m(x)
    w.add("pz/sym/out", y)
    (y * mk(list(y.shape), torch.float32, 7)).sum().backward()
    record_grads(w, "pz/sym", m)
    # A second parametrization with a buffer, chained after the first.
    P.register_parametrization(m, "weight", Scale())
    s.add("pz.chain_repr", repr(m))
    s.add("pz.chain_state_dict", keys(m.state_dict()))
    w.add("pz/chain/out", m(x))
    P.remove_parametrizations(m, "weight")
    w.add("pz/chain/removed_weight", m.weight)
    s.add("pz.removed_params", names(m.named_parameters()))
    s.add("pz.removed_repr", repr(m))
    # right_inverse: original = log(weight); leave_parametrized=False keeps it.
    p = nn.Linear(3, 3)
    with torch.no_grad():
        p.weight.copy_(mk([3, 3], torch.float32, 1).abs() + 0.25)
        p.bias.zero_()
    P.register_parametrization(p, "weight", Positive())
    w.add("pz/pos/original", p.parametrizations.weight.original)
    w.add("pz/pos/weight", p.weight)
    y = p(x)
    (y * mk(list(y.shape), torch.float32, 7)).sum().backward()
    record_grads(w, "pz/pos", p)
    P.remove_parametrizations(p, "weight", leave_parametrized=False)
    w.add("pz/pos/removed_unparametrized", p.weight)
    # A buffer can be parametrized too (BatchNorm's running_var).
    bn = nn.BatchNorm1d(3)
    P.register_parametrization(bn, "running_var", Scale())
    s.add("pz.buffer_state_dict", keys(bn.state_dict()))
    s.add("pz.buffer_params", names(bn.named_parameters()))


class SymmetricInv(Symmetric):
    def right_inverse(self, A):
        return A.triu()


class Twice(nn.Module):
    def forward(self, X):
        return X * 2

    def right_inverse(self, Y):
        return Y / 2


class RankOne(nn.Module):
    """Several originals: x y^T from x and y."""

    def forward(self, x, y):
        return x.unsqueeze(-1) @ y.unsqueeze(-2)

    def right_inverse(self, Z):
        # On rank-one matrices (Z[0, 0] != 0): Z's first column and row.
        return [Z.select(1, 0), Z.select(0, 0) / Z.select(0, 0).select(0, 0)]


class ListInverse(nn.Module):
    """right_inverse returns a sequence of one tensor: original0."""

    def forward(self, X):
        return X + 1

    def right_inverse(self, Y):
        return [Y - 1]


class Empty(nn.Module):
    pass


def rank_one_value():
    return mk([3], torch.float32, 2).unsqueeze(-1) @ (mk([3], torch.float32, 5) + 2).unsqueeze(-2)


def parametrizations_more(w, s, e):
    x = mk([5, 3], torch.float32, 3)
    # right_inverse returning two tensors: original0, original1.
    m = set_linear(nn.Linear(3, 3))
    P.register_parametrization(m, "weight", RankOne())
    s.add("pz.multi_params", names(m.named_parameters()))
    s.add("pz.multi_state_dict", keys(m.state_dict()))
    s.add("pz.multi_repr", repr(m))
    w.add("pz/multi/original0", m.parametrizations.weight.original0)
    w.add("pz/multi/original1", m.parametrizations.weight.original1)
    w.add("pz/multi/weight", m.weight)
    y = m(x)
    w.add("pz/multi/out", y)
    (y * mk(list(y.shape), torch.float32, 7)).sum().backward()
    record_grads(w, "pz/multi", m)
    # Chained after it, then assigned: right_inverse last to first.
    P.register_parametrization(m, "weight", Twice())
    s.add("pz.multi_chain_state_dict", keys(m.state_dict()))
    w.add("pz/multi_chain/out", m(x))
    m.weight = rank_one_value()
    w.add("pz/multi_chain/assigned_original0", m.parametrizations.weight.original0)
    w.add("pz/multi_chain/assigned_original1", m.parametrizations.weight.original1)
    w.add("pz/multi_chain/assigned_weight", m.weight)
    e.err("pz.multi_assign_dtype", lambda: setattr(m, "weight", rank_one_value().double()))
    e.err("pz.multi_keep_original",
          lambda: P.remove_parametrizations(m, "weight", leave_parametrized=False))
    P.remove_parametrizations(m, "weight")
    s.add("pz.multi_removed_params", names(m.named_parameters()))
    w.add("pz/multi_chain/removed_weight", m.weight)
    # A sequence of one tensor is original0 too.
    b = nn.BatchNorm1d(3)
    P.register_parametrization(b, "running_mean", ListInverse())
    s.add("pz.list_state_dict", keys(b.state_dict()))
    w.add("pz/list/original0", b.parametrizations.running_mean.original0)
    w.add("pz/list/running_mean", b.running_mean)
    P.remove_parametrizations(b, "running_mean")
    s.add("pz.list_removed_buffers", names(b.named_buffers()))
    # Only the first parametrization may return several tensors.
    c = nn.Linear(3, 3)
    P.register_parametrization(c, "weight", Symmetric())
    e.err("pz.list_second", lambda: P.register_parametrization(c, "weight", ListInverse()))
    # Assignment: right_inverse of each parametrization, last first.
    a = set_linear(nn.Linear(3, 3))
    P.register_parametrization(a, "weight", SymmetricInv())
    P.register_parametrization(a, "weight", Twice())
    sym = mk([3, 3], torch.float32, 4)
    sym = sym + sym.T
    a.weight = sym
    w.add("pz/assign/original", a.parametrizations.weight.original)
    w.add("pz/assign/weight", a.weight)
    w.add("pz/assign/out", a(x))
    e.err("pz.assign_no_inverse", lambda: setattr(c, "weight", sym))
    p = nn.Linear(3, 3)
    P.register_parametrization(p, "weight", Positive())
    e.err("pz.assign_dtype", lambda: setattr(p, "weight", sym.abs().double() + 1))
    # type_before_parametrizations.
    s.add("pz.type_before", P.type_before_parametrizations(a).__name__)
    s.add("pz.type_before_plain", P.type_before_parametrizations(nn.Linear(2, 2)).__name__)
    s.add("pz.type_now", type(a).__name__)
    # transfer_parametrizations_and_params: to a module with the tensor...
    to = set_linear(nn.Linear(3, 3), 2)
    P.transfer_parametrizations_and_params(a, to)
    s.add("pz.transfer_repr", repr(to))
    s.add("pz.transfer_state_dict", keys(to.state_dict()))
    w.add("pz/transfer/weight", to.weight)
    w.add("pz/transfer/out", to(x))
    # ...to one without it, several tensors, one name of two.
    f = set_linear(nn.Linear(3, 3))
    P.register_parametrization(f, "weight", RankOne())
    P.register_parametrization(f, "bias", Twice())
    t = Empty()
    P.transfer_parametrizations_and_params(f, t, "weight")
    s.add("pz.transfer_empty_repr", repr(t))
    s.add("pz.transfer_empty_params", names(t.named_parameters()))
    w.add("pz/transfer_empty/weight", t.weight)
    t2 = Empty()
    P.transfer_parametrizations_and_params(f, t2)
    s.add("pz.transfer_all_params", names(t2.named_parameters()))
    w.add("pz/transfer_all/bias", t2.bias)


def spectral_norm_old_dicts(w, s, e):
    """PyTorch's test_spectral_norm_load_state_dict: a version-0 state dict
    (no metadata, no weight_v, the normalized weight as `weight`) from a
    module trained three steps, loaded into a fresh spectral_norm module."""
    for tag, make, dt, x in (
            ("linear", lambda: nn.Linear(3, 5), torch.float32, mk([2, 3], torch.float32, 4)),
            ("linear_f64", lambda: nn.Linear(3, 5), torch.float64, mk([2, 3], torch.float64, 4)),
            ("wide_f64", lambda: nn.Linear(5, 3), torch.float64, mk([2, 5], torch.float64, 4)),
            ("wide", lambda: nn.Linear(5, 3), torch.float32, mk([2, 5], torch.float32, 4)),
            ("convt", lambda: nn.ConvTranspose2d(2, 5, 1), torch.float32,
             mk([1, 2, 2, 2], torch.float32, 4))):
        torch.manual_seed(10)
        # Scale 0.75: no zero in the weight, which PyTorch's sigma
        # (mean(weight_orig / weight)) would make NaN.
        m = spectral_norm(set_linear(make().to(dt), 0, 0.75))
        for _ in range(3):
            m(x)
        old = collections.OrderedDict(m.state_dict())  # drops the version metadata
        del old["weight_v"]
        old["weight"] = m.weight.detach().clone()
        pre = "snold/" + tag
        s.add("snold.%s.keys" % tag, keys(old))
        for k, t in old.items():
            w.add("%s/dict/%s" % (pre, k), t)
        torch.manual_seed(11)
        m2 = spectral_norm(set_linear(make().to(dt), 3))
        m2.load_state_dict(old)
        w.add(pre + "/v", m2.weight_v)
        w.add(pre + "/u", m2.weight_u)
        with torch.no_grad():
            m2.eval()
            w.add(pre + "/out0_eval", m2(x))
            m2.train()
            w.add(pre + "/out1_train", m2(x))
            w.add(pre + "/out2_train", m2(x))
            m2.eval()
            w.add(pre + "/out3_eval", m2(x))
        if tag == "linear":
            # The current format without metadata loads as it is.
            m3 = spectral_norm(nn.Linear(3, 5))
            m3.load_state_dict(collections.OrderedDict(m.state_dict()))
            w.add(pre + "/current_v", m3.weight_v)
            # Keys missing: reported by the hook and again by the module.
            partial = collections.OrderedDict(old)
            del partial["weight_u"]
            e.err("snold.missing_u", lambda: m3.load_state_dict(partial))
            s.add("snold.missing_u_nonstrict", str(m3.load_state_dict(partial, strict=False)))
            del partial["weight_orig"]
            s.add("snold.missing_orig_nonstrict", str(m3.load_state_dict(partial,
                                                                         strict=False)))


def pz_errors(e):
    m = nn.Linear(3, 3)
    e.err("pz.unknown", lambda: P.register_parametrization(m, "foo", Symmetric()))
    e.err("pz.shape", lambda: P.register_parametrization(m, "weight", Row()))
    e.err("pz.dtype", lambda: P.register_parametrization(m, "weight", ToDouble()))
    e.err("pz.remove_none", lambda: P.remove_parametrizations(m, "weight"))
    P.register_parametrization(m, "weight", Symmetric())
    e.err("pz.shape_second", lambda: P.register_parametrization(m, "weight", Row()))
    e.err("pz.remove_other", lambda: P.remove_parametrizations(m, "bias"))


def prunes(w, s):
    x = mk([5, 4], torch.float32, 3)
    for name, fn in (
            ("l1_frac", lambda m: prune.l1_unstructured(m, "weight", amount=0.3)),
            ("l1_int", lambda m: prune.l1_unstructured(m, "weight", amount=5)),
            ("l1_all", lambda m: prune.l1_unstructured(m, "weight", amount=1.0)),
            ("l1_zero", lambda m: prune.l1_unstructured(m, "weight", amount=0)),
            ("identity", lambda m: prune.identity(m, "weight")),
            ("ln2_dim0", lambda m: prune.ln_structured(m, "weight", amount=0.34, n=2, dim=0)),
            ("ln1_dim1", lambda m: prune.ln_structured(m, "weight", amount=2, n=1, dim=1)),
            ("lninf_dim_1", lambda m: prune.ln_structured(m, "weight", amount=1, n=math.inf,
                                                           dim=-1)),
            ("random_u", lambda m: prune.random_unstructured(m, "weight", amount=0.5)),
            ("random_s", lambda m: prune.random_structured(m, "weight", amount=1, dim=0)),
            ("random_s1", lambda m: prune.random_structured(m, "weight", amount=0.5, dim=1)),
            ("bias_l1", lambda m: prune.l1_unstructured(m, "bias", amount=1)),
            # Iterative pruning: the second mask is computed on what is left.
            ("l1_twice", lambda m: prune.l1_unstructured(
                prune.l1_unstructured(m, "weight", amount=3), "weight", amount=0.5)),
            ("l1_then_ln", lambda m: prune.ln_structured(
                prune.l1_unstructured(m, "weight", amount=4), "weight", amount=1, n=2, dim=1)),
            ("ln_then_random", lambda m: prune.random_unstructured(
                prune.ln_structured(m, "weight", amount=1, n=1, dim=0), "weight", amount=3)),
    ):
        torch.manual_seed(0)
        m = set_linear(nn.Linear(4, 3))
        fn(m)
        tensor_name = "bias" if name.startswith("bias") else "weight"
        pre = "prune/" + name
        w.add(pre + "/mask", getattr(m, tensor_name + "_mask"))
        w.add(pre + "/pruned", getattr(m, tensor_name))
        y = m(x)
        w.add(pre + "/out", y)
        (y * mk(list(y.shape), torch.float32, 7)).sum().backward()
        record_grads(w, pre, m)
    m = set_linear(nn.Linear(4, 3))
    s.add("prune.is_pruned_before", str(prune.is_pruned(m)))
    prune.l1_unstructured(m, "weight", amount=0.3)
    s.add("prune.is_pruned_after", str(prune.is_pruned(m)))
    s.add("prune.params", names(m.named_parameters()))
    s.add("prune.buffers", names(m.named_buffers()))
    s.add("prune.state_dict", keys(m.state_dict()))
    prune.remove(m, "weight")
    w.add("prune/removed/weight", m.weight)
    s.add("prune.removed_params", names(m.named_parameters()))
    s.add("prune.removed_state_dict", keys(m.state_dict()))
    s.add("prune.is_pruned_removed", str(prune.is_pruned(m)))
    # A conv weight, structured over output channels.
    c = set_linear(nn.Conv2d(2, 4, 2))
    prune.ln_structured(c, "weight", amount=0.5, n=2, dim=0)
    w.add("prune/conv_ln/mask", c.weight_mask)
    # global_unstructured over two layers (and a pruned one: its mask is kept).
    a = set_linear(nn.Linear(4, 3), 0)
    b = set_linear(nn.Linear(3, 2), 2, 0.75)
    prune.l1_unstructured(b, "weight", amount=2)
    prune.global_unstructured([(a, "weight"), (b, "weight"), (a, "bias")],
                              pruning_method=prune.L1Unstructured, amount=0.4)
    w.add("prune/global/a_mask", a.weight_mask)
    w.add("prune/global/b_mask", b.weight_mask)
    w.add("prune/global/a_bias_mask", a.bias_mask)
    torch.manual_seed(4)
    a = set_linear(nn.Linear(4, 3), 0)
    b = set_linear(nn.Linear(3, 2), 2, 0.75)
    prune.global_unstructured([(a, "weight"), (b, "weight")],
                              pruning_method=prune.RandomUnstructured, amount=7)
    w.add("prune/global_random/a_mask", a.weight_mask)
    w.add("prune/global_random/b_mask", b.weight_mask)
    # importance_scores instead of the weight's magnitudes.
    m = set_linear(nn.Linear(4, 3))
    prune.l1_unstructured(m, "weight", amount=4, importance_scores=mk([3, 4], torch.float32, 9))
    w.add("prune/scores/mask", m.weight_mask)
    # global_unstructured with importance_scores for one of its tensors.
    a = set_linear(nn.Linear(4, 3), 0)
    b = set_linear(nn.Linear(3, 2), 2, 0.75)
    prune.global_unstructured([(a, "weight"), (b, "weight")], pruning_method=prune.L1Unstructured,
                              importance_scores={(a, "weight"): mk([3, 4], torch.float32, 9)},
                              amount=7)
    w.add("prune/global_scores/a_mask", a.weight_mask)
    w.add("prune/global_scores/b_mask", b.weight_mask)
    # custom_from_mask.
    m = set_linear(nn.Linear(4, 3))
    prune.custom_from_mask(m, "weight", mask=mk([3, 4], torch.bool, 1))
    w.add("prune/custom/mask", m.weight_mask)


def prune_errors(e, s):
    m = set_linear(nn.Linear(4, 3))
    e.err("prune.negative", lambda: prune.l1_unstructured(m, "weight", amount=-1))
    e.err("prune.fraction", lambda: prune.l1_unstructured(m, "weight", amount=1.5))
    e.err("prune.negative_fraction", lambda: prune.random_unstructured(m, "weight", amount=-0.1))
    e.err("prune.too_many", lambda: prune.l1_unstructured(m, "weight", amount=13))
    e.err("prune.too_many_channels", lambda: prune.ln_structured(m, "weight", amount=4, n=2,
                                                                 dim=0))
    s.add("prune.after_error_params", names(m.named_parameters()))
    e.err("prune.unknown", lambda: prune.l1_unstructured(m, "foo", amount=1))
    e.err("prune.structured_1d", lambda: prune.ln_structured(m, "bias", amount=1, n=2, dim=0))
    e.err("prune.dim", lambda: prune.random_structured(m, "weight", amount=1, dim=2))
    e.err("prune.remove_unpruned", lambda: prune.remove(m, "weight"))


def wn_sn_errors(e):
    m = nn.Linear(4, 3)
    e.err("wn.unknown", lambda: weight_norm(m, "foo"))
    e.err("wn.remove_none", lambda: remove_weight_norm(m))
    weight_norm(m)
    e.err("wn.twice", lambda: weight_norm(m))
    m = nn.Linear(4, 3)
    e.err("sn.iterations", lambda: spectral_norm(m, n_power_iterations=0))
    e.err("sn.remove_none", lambda: remove_spectral_norm(m))
    spectral_norm(m)
    e.err("sn.twice", lambda: spectral_norm(m))


def main():
    w = GoldenWriter("nn_utils_parametrize", "nn")
    e = ErrorWriter("nn_utils_parametrize", package="nn")
    s = StringWriter("nn_utils_parametrize", "nn")
    weight_norms(w, s)
    spectral_norms(w, s)
    parametrizations(w, s)
    prunes(w, s)
    pz_errors(e)
    parametrizations_more(w, s, e)
    spectral_norm_old_dicts(w, s, e)
    prune_errors(e, s)
    wn_sn_errors(e)
    w.write()
    e.write()
    s.write()


if __name__ == "__main__":
    main()
