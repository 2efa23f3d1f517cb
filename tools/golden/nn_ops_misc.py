"""Golden values for the nn ops of issue 19's "rest of torch.nn": glu, the
losses beyond nll/cross-entropy/bce/mse/l1/smooth_l1 (kl_div, huber,
cosine_embedding, margin_ranking, triplet_margin, poisson_nll, gaussian_nll,
ctc), cosine_similarity, pairwise_distance, pixel_shuffle / pixel_unshuffle
(nn/functional/{activation_extra,loss_extra,distance,pixelshuffle}_test.cc).

Run with Debian's PyTorch: /usr/bin/python3 tools/golden/nn_ops_misc.py
Writes nn/functional/testdata/nn_ops_misc_golden.inc and
nn_ops_misc_errors_golden.inc in nn_ops_more.py's format: each case
"<case>/<f32|f64>" stores its inputs (in0, in1...), the output ("out") and
the gradient of sum(out * mk(out.shape, seed=7)) for each input in grads
("grad0"...). Integer inputs (targets, lengths) are stored as they are.
"""

import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_util import ErrorWriter, GoldenWriter  # noqa: E402

torch.set_num_threads(1)
w = GoldenWriter("nn_ops_misc", package="nn/functional")
errors = ErrorWriter("nn_ops_misc", package="nn/functional")
err = errors.err
gen = torch.Generator().manual_seed(1913)


def rnd(*shape):
    return torch.randn(*shape, generator=gen, dtype=torch.float64)


def uni(*shape):
    return torch.rand(*shape, generator=gen, dtype=torch.float64)


case = w.op_case  # inputs: float64 or integer tensors; grads: which get gradients


def pm1(n):
    """A target of +1 / -1 (and a 0, which neither loss term counts)."""
    return torch.tensor([1.0, -1.0, -1.0, 1.0, 0.0, 1.0][:n], dtype=torch.float64)


r = torch.zeros

# --- glu ------------------------------------------------------------------------------------
case("glu", lambda x: F.glu(x), [rnd(3, 4)])
case("glu_dim0_noncontig", lambda x: F.glu(x.t(), 0), [rnd(3, 6)])
case("glu_3d", lambda x: F.glu(x, 1), [rnd(2, 4, 3)])
err("glu_odd", lambda: F.glu(r(2, 3), 1))
err("glu_scalar", lambda: F.glu(r(())))

# --- kl_div ----------------------------------------------------------------------------------
logp = F.log_softmax(rnd(3, 5), 1)
tp = F.softmax(rnd(3, 5), 1)
for red in ("mean", "batchmean", "sum", "none"):
    case("kl_div_" + red, lambda x, t, red=red: F.kl_div(x, t, reduction=red), [logp, tp],
         grads=(0, 1))
case("kl_div_log_target", lambda x, t: F.kl_div(x.t(), t.t(), reduction="batchmean",
                                                log_target=True),
     [logp, F.log_softmax(rnd(3, 5), 1)], grads=(0, 1))
# A zero target contributes 0 (xlogy); its own gradient is NaN in PyTorch.
case("kl_div_zero_target", lambda x, t: F.kl_div(x, t, reduction="sum"),
     [logp, torch.tensor([[0.5, 0.0, 0.25, 0.25, 0.0]] * 3, dtype=torch.float64)])
case("kl_div_batchmean_1d", lambda x, t: F.kl_div(x, t, reduction="batchmean"),
     [logp[0], tp[0]], grads=(0, 1))

# --- huber -----------------------------------------------------------------------------------
case("huber", lambda x, t: F.huber_loss(x, t), [rnd(3, 4) * 2, rnd(3, 4)], grads=(0, 1))
case("huber_delta_sum", lambda x, t: F.huber_loss(x.t(), t, reduction="sum", delta=0.5),
     [rnd(4, 3) * 2, rnd(3, 4)], grads=(0, 1))
case("huber_none_broadcast", lambda x, t: F.huber_loss(x, t, reduction="none", delta=1.5),
     [rnd(3, 4) * 2, rnd(4)], grads=(0, 1))
# |input - target| exactly at delta and at 0, where the branches meet.
case("huber_edges", lambda x, t: F.huber_loss(x, t, reduction="none", delta=0.5),
     [torch.tensor([-0.5, 0.5, 0.0, 1.0, -1.0, 0.25]), torch.zeros(6, dtype=torch.float64)],
     grads=(0, 1))
err("huber_delta", lambda: F.huber_loss(r(3), r(3), delta=0.0))

# --- cosine_embedding, margin_ranking, triplet_margin ------------------------------------------
case("cosine_embedding", lambda a, b, y: F.cosine_embedding_loss(a, b, y),
     [rnd(5, 4), rnd(5, 4), pm1(5)], grads=(0, 1))
case("cosine_embedding_margin_none",
     lambda a, b, y: F.cosine_embedding_loss(a.t(), b, y, margin=-0.2, reduction="none"),
     [rnd(3, 6), rnd(6, 3), pm1(6)], grads=(0, 1))
case("cosine_embedding_1d",
     lambda a, b, y: F.cosine_embedding_loss(a, b, y, margin=0.1, reduction="sum"),
     [rnd(4), rnd(4), torch.tensor(-1.0, dtype=torch.float64)], grads=(0, 1))
err("cosine_embedding_target_dims", lambda: F.cosine_embedding_loss(r(2, 3), r(2, 3), r(2, 1)))
err("cosine_embedding_1d_target", lambda: F.cosine_embedding_loss(r(3), r(3), r(2)))
err("cosine_embedding_0d_target", lambda: F.cosine_embedding_loss(r(2, 3), r(2, 3), r(())))

case("margin_ranking", lambda a, b, y: F.margin_ranking_loss(a, b, y),
     [rnd(6), rnd(6), pm1(6)], grads=(0, 1, 2))
case("margin_ranking_margin_none",
     lambda a, b, y: F.margin_ranking_loss(a, b, y, margin=0.5, reduction="none"),
     [rnd(6), rnd(6), pm1(6)], grads=(0, 1, 2))
err("margin_ranking_dims", lambda: F.margin_ranking_loss(r(3), r(3, 1), r(3)))

case("triplet_margin", lambda a, p, n: F.triplet_margin_loss(a, p, n),
     [rnd(4, 5), rnd(4, 5), rnd(4, 5)], grads=(0, 1, 2))
case("triplet_margin_p1_swap_none",
     lambda a, p, n: F.triplet_margin_loss(a, p.t(), n, margin=2.0, p=1, swap=True,
                                           reduction="none"),
     [rnd(4, 5), rnd(5, 4), rnd(4, 5) * 0.5], grads=(0, 1, 2))
case("triplet_margin_p3_eps_sum",
     lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=0.5, p=3, eps=1e-3, reduction="sum"),
     [rnd(3, 4), rnd(3, 4), rnd(3, 4)], grads=(0, 1, 2))
case("triplet_margin_1d", lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=3.0),
     [rnd(5), rnd(5), rnd(5)], grads=(0, 1, 2))
err("triplet_margin_dims", lambda: F.triplet_margin_loss(r(3), r(2, 3), r(2, 3)))

# --- poisson_nll, gaussian_nll -----------------------------------------------------------------
counts = torch.tensor([[0.0, 1.0, 2.0, 5.0], [3.0, 0.0, 1.0, 7.0], [0.5, 4.0, 1.5, 2.0]],
                      dtype=torch.float64)
case("poisson_nll", lambda x, t: F.poisson_nll_loss(x, t), [rnd(3, 4), counts], grads=(0, 1))
case("poisson_nll_rate_sum",
     lambda x, t: F.poisson_nll_loss(x, t, log_input=False, reduction="sum"),
     [uni(3, 4) * 3, counts], grads=(0, 1))
# Stirling's term for targets above 1 only; its target gradient is NaN at 0.
case("poisson_nll_full_none",
     lambda x, t: F.poisson_nll_loss(x, t, full=True, reduction="none"), [rnd(3, 4), counts])
case("poisson_nll_rate_eps_full",
     lambda x, t: F.poisson_nll_loss(x, t, log_input=False, full=True, eps=0.1),
     [torch.cat([uni(3, 3) * 3, torch.zeros(3, 1, dtype=torch.float64)], 1), counts])

case("gaussian_nll", lambda x, t, v: F.gaussian_nll_loss(x, t, v),
     [rnd(3, 4), rnd(3, 4), uni(3, 4) + 0.1], grads=(0, 1, 2))
case("gaussian_nll_var_short_full_sum",
     lambda x, t, v: F.gaussian_nll_loss(x, t, v, full=True, reduction="sum"),
     [rnd(3, 4), rnd(3, 4), uni(3) + 0.1], grads=(0, 1, 2))
# var below eps is clamped without blocking its gradient (PyTorch clamps
# under no_grad); var [N, 1] broadcasts.
case("gaussian_nll_var_one_eps_none",
     lambda x, t, v: F.gaussian_nll_loss(x, t, v, eps=1e-2, reduction="none"),
     [rnd(3, 4), rnd(3, 4), torch.tensor([[0.5], [1e-3], [0.0]], dtype=torch.float64)],
     grads=(0, 1, 2))
err("gaussian_nll_var_size", lambda: F.gaussian_nll_loss(r(2, 3), r(2, 3), torch.ones(3)))
err("gaussian_nll_var_negative",
    lambda: F.gaussian_nll_loss(r(2, 3), r(2, 3), -torch.ones(2, 3)))

# --- ctc --------------------------------------------------------------------------------------
# log_probs [T=6, N=3, C=4]; padded targets with a repeated label (needs a
# blank between), an empty target, and a sample shorter than T.
lp = F.log_softmax(rnd(6, 3, 4), 2)
padded = torch.tensor([[1, 1, 2], [3, 0, 0], [2, 3, 1]])
in_len = torch.tensor([6, 5, 4])
tg_len = torch.tensor([3, 0, 3])
for red in ("mean", "sum", "none"):
    case("ctc_" + red,
         lambda x, t, il, tl, red=red: F.ctc_loss(x, t, il, tl, reduction=red),
         [lp, padded, in_len, tg_len])
case("ctc_concatenated_blank",
     lambda x, t, il, tl: F.ctc_loss(x, t, il, tl, blank=3, reduction="sum"),
     [lp, torch.tensor([1, 1, 2, 0, 2]), torch.tensor([6, 3, 6]), torch.tensor([3, 1, 1])])
# Sample 0 cannot be aligned (3 labels with a repeat need 4 frames, it has
# 3): inf, or 0 with zero_infinity, whose gradient is then zero.
impossible = [lp, padded, torch.tensor([3, 6, 6]), tg_len]
case("ctc_impossible_none",
     lambda x, t, il, tl: F.ctc_loss(x, t, il, tl, reduction="none"), impossible, grads=())
case("ctc_zero_infinity",
     lambda x, t, il, tl: F.ctc_loss(x, t, il, tl, reduction="mean", zero_infinity=True),
     impossible)
case("ctc_unbatched",
     lambda x, t, il, tl: F.ctc_loss(x, t, il, tl, reduction="none"),
     [lp[:, 0], torch.tensor([1, 2]), torch.tensor(5), torch.tensor(2)])
# (A zero-length input reads out of bounds in PyTorch 1.13's CPU kernel;
# ember gives what PyTorch 2.x does: 0 for an empty target, else inf,
# tested in nn/functional/loss_misc_test.cc.)
L = torch.tensor
err("ctc_blank", lambda: F.ctc_loss(lp, padded, in_len, tg_len, blank=4))
err("ctc_input_length", lambda: F.ctc_loss(lp, padded, L([7, 5, 4]), tg_len))
err("ctc_targets_short", lambda: F.ctc_loss(lp, padded, in_len, L([4, 0, 3])))
err("ctc_concatenated_size", lambda: F.ctc_loss(lp, L([1, 2, 3]), in_len, L([1, 1, 2])))
err("ctc_lengths_size", lambda: F.ctc_loss(lp, padded, L([6, 5]), tg_len))

# --- cosine_similarity, pairwise_distance --------------------------------------------------------
case("cosine_similarity", lambda a, b: F.cosine_similarity(a, b), [rnd(3, 5), rnd(3, 5)],
     grads=(0, 1))
case("cosine_similarity_broadcast_dim",
     lambda a, b: F.cosine_similarity(a, b.t(), dim=-1, eps=1e-3),
     [rnd(2, 1, 4), rnd(4, 3)], grads=(0, 1))
case("cosine_similarity_dim0", lambda a, b: F.cosine_similarity(a, b, 0),
     [rnd(4, 3), rnd(4, 3)], grads=(0, 1))
# A zero vector: its norm is clamped to eps, without blocking the gradient.
case("cosine_similarity_zero",
     lambda a, b: F.cosine_similarity(a, b),
     [torch.tensor([[0.0, 0.0, 0.0], [1e-9, 0.0, -1e-9]], dtype=torch.float64), rnd(2, 3)],
     grads=(0, 1))
err("cosine_similarity_sizes", lambda: F.cosine_similarity(r(2, 3), r(2, 4)))

case("pairwise_distance", lambda a, b: F.pairwise_distance(a, b), [rnd(4, 5), rnd(4, 5)],
     grads=(0, 1))
case("pairwise_distance_p1_keepdim",
     lambda a, b: F.pairwise_distance(a.t(), b, p=1.0, keepdim=True),
     [rnd(5, 4), rnd(4, 5)], grads=(0, 1))
case("pairwise_distance_p3_eps_broadcast",
     lambda a, b: F.pairwise_distance(a, b, p=3.0, eps=1e-2), [rnd(3, 4), rnd(4)], grads=(0, 1))
case("pairwise_distance_inf", lambda a, b: F.pairwise_distance(a, b, p=float("inf")),
     [rnd(3, 4), rnd(3, 4)], grads=(0, 1))
case("pairwise_distance_1d", lambda a, b: F.pairwise_distance(a, b), [rnd(5), rnd(5)],
     grads=(0, 1))
err("pairwise_distance_sizes", lambda: F.pairwise_distance(r(2, 3), r(2, 4)))

# --- pixel_shuffle, pixel_unshuffle --------------------------------------------------------------
case("pixel_shuffle", lambda x: F.pixel_shuffle(x, 2), [rnd(2, 8, 2, 3)])
case("pixel_shuffle_batch_dims", lambda x: F.pixel_shuffle(x.transpose(3, 4), 3),
     [rnd(2, 1, 9, 2, 3)])
case("pixel_shuffle_unbatched", lambda x: F.pixel_shuffle(x, 2), [rnd(4, 2, 2)])
case("pixel_unshuffle", lambda x: F.pixel_unshuffle(x, 2), [rnd(2, 2, 4, 6)])
case("pixel_unshuffle_batch_dims", lambda x: F.pixel_unshuffle(x.transpose(3, 4), 3),
     [rnd(1, 2, 1, 6, 3)])
err("pixel_shuffle_channels", lambda: F.pixel_shuffle(r(1, 3, 2, 2), 2))
err("pixel_shuffle_dims", lambda: F.pixel_shuffle(r(4, 2), 2))
err("pixel_shuffle_factor", lambda: F.pixel_shuffle(r(1, 4, 2, 2), 0))
err("pixel_unshuffle_height", lambda: F.pixel_unshuffle(r(1, 3, 3, 2), 2))
err("pixel_unshuffle_width", lambda: F.pixel_unshuffle(r(1, 3, 2, 3), 2))
err("pixel_unshuffle_dims", lambda: F.pixel_unshuffle(r(4, 2), 2))
err("pixel_unshuffle_factor", lambda: F.pixel_unshuffle(r(1, 4, 2, 2), -1))

errors.write()
w.write()
