"""Golden values for the modules of issue 19's "rest of torch.nn" written
beside nn_ops_misc.py's functional ops: GLU, the loss modules (KLDivLoss,
HuberLoss, CosineEmbeddingLoss, MarginRankingLoss, TripletMarginLoss,
PoissonNLLLoss, GaussianNLLLoss, CTCLoss), CosineSimilarity,
PairwiseDistance, the padding layers, Unflatten, PixelShuffle /
PixelUnshuffle, and nn.utils' parameters_to_vector / vector_to_parameters
(nn/misc_layers_test.cc): forward values, printed forms and errors.

Run with /usr/bin/python3 (Debian's torch 1.13). Writes
nn/testdata/nn_modules_misc_{golden,errors_golden,strings_golden}.inc.
"""

import os
import sys

import torch
import torch.nn as nn
from torch.nn.utils import parameters_to_vector, vector_to_parameters

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_util import ErrorWriter, GoldenWriter, StringWriter, mk  # noqa: E402

torch.set_num_threads(1)
g = GoldenWriter("nn_modules_misc", package="nn")
errors = ErrorWriter("nn_modules_misc", package="nn")
strings = StringWriter("nn_modules_misc", package="nn")



# --- layers on mk() inputs: "<name>.input" -> "<name>.output" ----------------------------------
LAYERS = {
    "glu": (nn.GLU(), mk((2, 4))),
    "glu_dim1": (nn.GLU(1), mk((2, 6, 3), seed=1)),
    "cosine_similarity": (nn.CosineSimilarity(), (mk((3, 4)), mk((3, 4), seed=2))),
    "cosine_similarity_dim0": (nn.CosineSimilarity(0, 1e-3), (mk((3, 4)), mk((3, 4), seed=3))),
    "pairwise_distance": (nn.PairwiseDistance(), (mk((3, 4)), mk((3, 4), seed=2))),
    "pairwise_distance_p1_keepdim": (nn.PairwiseDistance(1.0, 1e-3, True),
                                     (mk((3, 4)), mk((3, 4), seed=4))),
    "zeropad2d": (nn.ZeroPad2d((1, 0, 2, 1)), mk((1, 2, 2, 3))),
    "zeropad2d_crop": (nn.ZeroPad2d((-1, 1, 0, -1)), mk((2, 3, 3))),
    "constantpad1d": (nn.ConstantPad1d(2, 3.5), mk((2, 3))),
    "constantpad2d": (nn.ConstantPad2d((1, 2, 0, 1), -1.0), mk((1, 1, 2, 2))),
    "constantpad3d": (nn.ConstantPad3d(1, 0.5), mk((1, 1, 2, 1, 2))),
    "reflectionpad1d": (nn.ReflectionPad1d((2, 1)), mk((1, 2, 4))),
    "reflectionpad2d": (nn.ReflectionPad2d(1), mk((2, 3, 3))),
    "reflectionpad3d": (nn.ReflectionPad3d((1, 0, 0, 1, 1, 1)), mk((1, 1, 2, 2, 3))),
    "replicationpad1d": (nn.ReplicationPad1d(2), mk((1, 2, 3))),
    "replicationpad2d": (nn.ReplicationPad2d((0, 1, 2, 0)), mk((1, 1, 2, 3))),
    "replicationpad3d": (nn.ReplicationPad3d(1), mk((1, 2, 1, 2))),
    "unflatten": (nn.Unflatten(1, (2, 3)), mk((2, 6))),
    "unflatten_infer": (nn.Unflatten(-1, (2, -1, 2)), mk((3, 8))),
    "pixelshuffle": (nn.PixelShuffle(2), mk((1, 8, 2, 2))),
    "pixelunshuffle": (nn.PixelUnshuffle(2), mk((1, 2, 4, 2))),
}
for name, (m, x) in LAYERS.items():
    xs = x if isinstance(x, tuple) else (x,)
    for i, xi in enumerate(xs):
        g.add("%s.input%d" % (name, i), xi)
    g.add(name + ".output", m(*xs))

# --- loss modules with options: inputs "<name>.input<i>", "<name>.output" ------------------------
logp = torch.log_softmax(mk((3, 4)), 1)
LOSSES = {
    "kldiv_batchmean": (nn.KLDivLoss(reduction="batchmean"), (logp, torch.softmax(mk((3, 4), seed=1), 1))),
    "kldiv_log_target_none": (nn.KLDivLoss(reduction="none", log_target=True),
                              (logp, torch.log_softmax(mk((3, 4), seed=1), 1))),
    "huber_delta_sum": (nn.HuberLoss(reduction="sum", delta=0.3), (mk((3, 4)), mk((3, 4), seed=1))),
    "cosine_embedding_margin": (nn.CosineEmbeddingLoss(margin=0.25),
                                (mk((3, 4)), mk((3, 4), seed=1), torch.tensor([1.0, -1.0, -1.0]))),
    "margin_ranking_none": (nn.MarginRankingLoss(margin=0.5, reduction="none"),
                            (mk((4,)), mk((4,), seed=1), torch.tensor([1.0, -1.0, 1.0, -1.0]))),
    "triplet_margin_swap": (nn.TripletMarginLoss(margin=0.75, p=1.0, eps=1e-3, swap=True),
                            (mk((3, 4)), mk((3, 4), seed=1), mk((3, 4), seed=2))),
    "poisson_nll_full": (nn.PoissonNLLLoss(log_input=False, full=True, eps=1e-3),
                         (mk((3, 4)).abs(), mk((3, 4), seed=1).abs() * 4)),
    "gaussian_nll_full_sum": (nn.GaussianNLLLoss(full=True, eps=1e-3, reduction="sum"),
                              (mk((3, 4)), mk((3, 4), seed=1), mk((3, 1), seed=2).abs())),
    "ctc_blank_zero_inf_sum": (nn.CTCLoss(blank=2, reduction="sum", zero_infinity=True),
                               (torch.log_softmax(mk((5, 2, 3)), 2), torch.tensor([[0, 0], [1, 0]]),
                                torch.tensor([2, 5]), torch.tensor([2, 1]))),
}
for name, (m, xs) in LOSSES.items():
    for i, xi in enumerate(xs):
        g.add("%s.input%d" % (name, i), xi)
    g.add(name + ".output", m(*xs))

# --- nn.utils: parameters_to_vector / vector_to_parameters -------------------------------------
torch.manual_seed(0)
lin = nn.Linear(3, 2)
g.add("p2v.weight", lin.weight)
g.add("p2v.bias", lin.bias)
g.add("p2v.vector", parameters_to_vector(lin.parameters()))
errors.err("v2p.not_tensor", lambda: vector_to_parameters([1.0], lin.parameters()))
errors.err("v2p.short", lambda: vector_to_parameters(torch.zeros(7), lin.parameters()))

# --- printed forms --------------------------------------------------------------------------
REPRS = {
    "layers": nn.ModuleList([
        nn.GLU(), nn.GLU(1), nn.CosineSimilarity(), nn.CosineSimilarity(0, 1e-3),
        nn.PairwiseDistance(), nn.PairwiseDistance(1.0, 1e-3, True), nn.Unflatten(1, (2, 3)),
        nn.Unflatten(-1, (2, -1, 2)), nn.PixelShuffle(2), nn.PixelUnshuffle(3)]),
    "padding": nn.ModuleList([
        nn.ZeroPad2d(1), nn.ZeroPad2d((1, 0, 2, 1)), nn.ConstantPad1d(2, 3.5),
        nn.ConstantPad2d((1, 2, 0, 1), -1), nn.ConstantPad3d(1, 0.5),
        # ember prints an integral value as an int (nn/padding.h).
        nn.ConstantPad1d((1, 2), 0), nn.ReflectionPad1d((2, 1)), nn.ReflectionPad2d(1),
        nn.ReflectionPad3d((1, 0, 0, 1, 1, 1)), nn.ReplicationPad1d(2),
        nn.ReplicationPad2d((0, 1, 2, 0)), nn.ReplicationPad3d(1)]),
    "losses": nn.ModuleList([
        nn.KLDivLoss(), nn.HuberLoss(delta=0.5), nn.CosineEmbeddingLoss(0.2),
        nn.MarginRankingLoss(0.5), nn.TripletMarginLoss(), nn.PoissonNLLLoss(),
        nn.GaussianNLLLoss(), nn.CTCLoss(blank=1)]),
}
for name, m in REPRS.items():
    strings.add("repr." + name, repr(m))

# --- constructor and input errors --------------------------------------------------------------
errors.err("unflatten.sizes", lambda: nn.Unflatten(1, (2, 2))(torch.zeros(2, 3)))
errors.err("unflatten.two_inferred", lambda: nn.Unflatten(1, (2, -1, -1))(torch.zeros(2, 4)))
errors.err("reflectionpad1d.too_large", lambda: nn.ReflectionPad1d(3)(torch.zeros(1, 2, 2)))
errors.err("glu.odd", lambda: nn.GLU()(torch.zeros(2, 3)))
errors.err("pixelshuffle.channels", lambda: nn.PixelShuffle(2)(torch.zeros(1, 3, 2, 2)))

g.write()
errors.write()
strings.write()
