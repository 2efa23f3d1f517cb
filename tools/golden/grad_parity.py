#!/usr/bin/python3
"""Gradients where ember's derivative formulas differed from PyTorch 1.13's
(found by `sweep --grad`, tools/parity/sweep.cc): NaN operands of
maximum/minimum, max()/min() and amax/amin; clamp with tensor bounds where
min >= max; prod of a 0-dim input and with several zeros; masked_select
with a mask that broadcasts self; cumprod through zeros, infinities and
NaN; hardsigmoid's float 1/6; addcdiv's grouping. Each case: the inputs
("<case>/in<i>"), the gradient of the first output ("<case>/gout") and the
gradients of the floating inputs ("<case>/grad<i>"). Run with Debian's
PyTorch:
    /usr/bin/python3 tools/golden/grad_parity.py
Writes autograd/testdata/grad_parity_golden.inc."""
import torch
import torch.nn.functional as F

from golden_util import GoldenWriter

nan = float("nan")
inf = float("inf")
W = GoldenWriter("grad_parity", package="autograd")


def case(name, fn, *inputs, dtype=torch.float64):
    W.grad_case(name, fn, *inputs, generator=GEN, dtype=dtype)


GEN = torch.Generator().manual_seed(22)
case("maximum_nan", torch.maximum, [1.0, nan, 2.0, 3.0, nan], [nan, 1.0, 2.0, 1.0, nan])
case("minimum_nan", torch.minimum, [1.0, nan, 2.0, 3.0, nan], [nan, 1.0, 2.0, 1.0, nan])
case("clamp_tensor_bounds", torch.clamp, [0.0, 0.0, 5.0, 2.0, 0.0, 9.0],
     [1.0, 3.0, 1.0, 1.0, 4.0, 4.0], [2.0, 3.0, 2.0, 0.0, 1.0, 1.0])
case("amax_nan", lambda x: x.amax(1), [[1.0, nan, 2.0], [3.0, 3.0, 1.0]])
case("amin_nan", lambda x: x.amin(0), [[1.0, nan], [1.0, 0.0]])
case("amax_all_nan", lambda x: x.amax(), [1.0, nan, 2.0])
case("max_all_nan", lambda x: x.max(), [1.0, nan, nan, 2.0])
case("min_all_nan", lambda x: x.min(), [nan, 1.0, -1.0, nan])
case("prod_0dim_nan", lambda x: x.prod(), nan)
case("prod_0dim_inf_dim", lambda x: x.prod(0), inf)
case("prod_two_zeros_nan", lambda x: x.prod(), [0.0, nan, 0.0, 2.0])
case("prod_one_zero_inf", lambda x: x.prod(), [0.0, inf, 3.0])
case("prod_dim_zeros", lambda x: x.prod(1), [[0.0, 2.0, 0.0], [1.0, nan, 3.0], [inf, 0.0, 2.0]])
case("masked_select_broadcast", lambda x, m: x.masked_select(m), [1.0, 2.0, 3.0],
     torch.tensor([[True, False, True], [True, True, False]]))
case("cumprod_zeros", lambda x: x.cumprod(0), [2.0, 0.0, 3.0, inf, 0.0, nan, 4.0])
case("cumprod_first_zero", lambda x: x.cumprod(1), [[0.0, 2.0, inf], [3.0, nan, 0.0]])
case("cumprod_zeros_f32", lambda x: x.cumprod(0), [1.5, 0.0, 2.5, -3.0], dtype=torch.float32)
case("hardsigmoid_f64", F.hardsigmoid, [0.5, -1.0, 2.9, 3.0, -3.0, 4.0])
case("hardsigmoid_f32", F.hardsigmoid, [0.5, -1.0, 2.9], dtype=torch.float32)
# float32: grad * (value / t2) and (value * t1) / (t2 * t2) round differently
# from (grad * value) / t2.
g32 = torch.Generator().manual_seed(5)
t = [torch.randn(64, generator=g32) for _ in range(3)]
case("addcdiv_f32", lambda a, b, c: torch.addcdiv(a, b, c, value=0.7), *t, dtype=torch.float32)
# Ops 1.13 records as one node (autograd/derivatives/composite.cc) where
# the composition's chain rule differed, and norm's 1.13 formula.
case("nanmean_all_nan_slice", lambda x: x.nanmean(1), [[nan, nan], [1.0, nan]])
case("nansum_inf_grad", lambda x: x.nansum(), [nan, 1.0, 2.0])
case("nan_to_num_infinities", lambda x: x.nan_to_num(), [nan, inf, -inf, 2.0])
case("sgn_nan_zero_inf", lambda x: x.sgn(), [nan, 0.0, inf, -2.0])
case("logit_bounds", lambda x: x.logit(), [0.0, 1.0, 0.5, -0.5, 1.5, nan])
case("logit_eps_bounds", lambda x: x.logit(0.25), [0.0, 0.25, 0.5, 0.75, 0.9])
case("xlogy_zero_self", torch.xlogy, [0.0, 0.0, 0.0, 2.0, 0.0], [-1.0, 0.0, 2.0, 0.0, nan])
case("xlogy_scalar_other_zero", lambda x: torch.xlogy(x, 0.0), [0.0, 1.0])
case("xlogy_scalar_self", lambda x: torch.xlogy(0.0, x), [0.0, 1.0, -1.0])
case("logaddexp_infinities", torch.logaddexp, [inf, -inf, 1.0, nan], [inf, -inf, -inf, 1.0])
case("logaddexp2_values", torch.logaddexp2, [0.5, -3.0, 10.0], [1.5, 2.0, -10.0])
case("lerp_tensor", torch.lerp, [1.0, 2.0, nan], [3.0, inf, 1.0], [0.25, 0.75, 0.5])
# dist with p = 0: no gradient for self. (1.13 raises "Expected a proper
# Tensor but got None" when other requires grad too: its formula negates
# the undefined gradient; ember gives neither a gradient.)
case("dist_p0", lambda x: torch.dist(x, torch.tensor([1.0, 3.0], dtype=torch.float64), 0),
     [1.0, 2.0])
case("dist_inf_nan", lambda x, y: torch.dist(x, y, inf), [1.0, nan, 3.0], [0.0, 0.0, -3.0])
case("dist_p_half_zero", lambda x, y: torch.dist(x, y, 0.5), [1.0, 2.0, 4.0], [1.0, 0.0, 3.0])
case("dist_p3_equal", lambda x, y: torch.dist(x, y, 3), [1.0, 2.0], [1.0, 2.0])
case("norm_p0", lambda x: x.norm(0), [1.0, 0.0, 2.0])
case("norm_inf_ties_nan", lambda x: x.norm(float("inf"), 1), [[1.0, -3.0, 3.0], [nan, 1.0, 2.0]])
case("norm_p1_5", lambda x: x.norm(1.5), [0.0, -1.0, 2.0])
case("norm_p2_zero", lambda x: x.norm(2, 0), [[0.0, 1.0], [0.0, -2.0]])
case("baddbmm_beta", lambda a, b, c: torch.baddbmm(a, b, c, beta=0.5, alpha=2.0),
     [[[1.0]], [[2.0]]], [[[1.0, 2.0]], [[3.0, nan]]], [[[0.5], [1.5]], [[2.5], [-1.0]]])
# var/std over everything with no degrees of freedom: 1.13's inf * grad.
case("var_one_element", lambda x: x.var(), 2.0)
case("var_one_element_nan", lambda x: x.var(), nan)
case("var_dof_negative", lambda x: torch.var(x, None, correction=3), [1.5, 2.0])
case("var_dim_dof_zero", lambda x: torch.var(x, 0, correction=3), [1.0, 2.0, 3.0])
case("std_one_element", lambda x: x.std(), 1.5)
# pow's exponent gradient: 0 only where the base is 0 and the exponent >= 0.
case("pow_exponent_nan_at_zero_base", torch.pow, [0.0, -0.0, 0.0, 2.0], [nan, 1.0, -1.0, nan])
# slogdet of singular matrices outside create_graph: the solve with the
# forward's LU (inf/NaN), not a solver error; contiguous and transposed.
case("slogdet_singular", lambda x: torch.linalg.slogdet(x)[1], [[1.0, 2.0], [2.0, 4.0]])
case("slogdet_singular_t", lambda x: torch.linalg.slogdet(x.t())[1], [[1.0, 2.0], [2.0, 4.0]])
case("slogdet_zero", lambda x: torch.linalg.slogdet(x)[1], [[0.0, 0.0], [0.0, 0.0]])
case("slogdet_regular_t", lambda x: torch.linalg.slogdet(x.t())[1],
     [[2.0, 1.0, 0.5], [0.0, -3.0, 1.0], [1.0, 1.0, 4.0]])
case("logdet_singular", lambda x: torch.logdet(x), [[1.0, 2.0], [2.0, 4.0]])
# matrix_power(0) stays in the graph (a zero gradient); pinv of an empty
# matrix still has its node.
case("matrix_power_zero", lambda x: torch.linalg.matrix_power(x, 0), [[1.0, 2.0], [3.0, 4.0]])
case("pinv_empty", lambda x: torch.linalg.pinv(x), torch.zeros(0, 3, dtype=torch.float64))
# sort's default orders the ties of long rows as 1.13's std::sort, so the
# gradients of sort values and of quantile reach 1.13's elements.
TIES40 = [float((i * 7919) % 5) for i in range(40)]
case("sort_long_ties", lambda x: x.sort()[0], TIES40)
case("sort_long_ties_desc", lambda x: x.sort(descending=True)[0], TIES40)
case("quantile_long_ties", lambda x: x.quantile(0.3), TIES40)
case("quantile_long_ties_nan", lambda x: x.quantile(0.3), TIES40[:20] + [nan] + TIES40[20:] + [nan])
W.write()
