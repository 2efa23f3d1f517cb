#!/usr/bin/python3
"""grad_fn names PyTorch 1.13 records: the node a user-level call returns
and the nodes below it (first input only), for nn/functional/grad_fn_names_test.cc.
Run with Debian's PyTorch: /usr/bin/python3 tools/golden/grad_fn_names.py
Writes nn/functional/testdata/grad_fn_names_golden.inc: {case, "A <- B <- C"}."""
import os

import torch
import torch.nn.functional as F

CASES = []


def chain(t, depth=3):
    out, fn = [], t.grad_fn
    while fn is not None and depth > 0:
        out.append(type(fn).__name__)
        nxt = [f for f, _ in fn.next_functions
               if f is not None and type(f).__name__ != "AccumulateGrad"]
        fn = nxt[0] if nxt else None
        depth -= 1
    return " <- ".join(out)


def case(name, fn):
    torch.manual_seed(0)
    CASES.append((name, chain(fn())))


def r(*s):
    return torch.randn(*s, requires_grad=True)


case("matmul_1d_1d", lambda: r(3) @ r(3))
case("matmul_2d_2d", lambda: r(2, 3) @ r(3, 4))
case("matmul_1d_2d", lambda: r(3) @ r(3, 4))
case("matmul_2d_1d", lambda: r(2, 3) @ r(3))
case("matmul_3d_2d", lambda: r(5, 2, 3) @ r(3, 4))
case("matmul_3d_3d", lambda: r(5, 2, 3) @ r(5, 3, 4))
case("matmul_3d_1d", lambda: r(5, 2, 3) @ r(3))
case("mm", lambda: torch.mm(r(2, 3), r(3, 4)))
case("mv", lambda: torch.mv(r(2, 3), r(3)))
case("dot", lambda: torch.dot(r(3), r(3)))
case("bmm", lambda: torch.bmm(r(2, 2, 3), r(2, 3, 4)))
case("addmm", lambda: torch.addmm(r(2, 4), r(2, 3), r(3, 4)))
case("linear_nobias_2d", lambda: F.linear(r(2, 3), r(4, 3)))
case("linear_bias_2d", lambda: F.linear(r(2, 3), r(4, 3), r(4)))
case("linear_nobias_3d", lambda: F.linear(r(5, 2, 3), r(4, 3)))
case("linear_bias_3d", lambda: F.linear(r(5, 2, 3), r(4, 3), r(4)))
case("group_norm", lambda: F.group_norm(r(2, 4, 3), 2))
case("group_norm_affine", lambda: F.group_norm(r(2, 4, 3), 2, r(4), r(4)))
case("weight_norm_dim0", lambda: torch._weight_norm(r(3, 4, 2), r(3, 1, 1), 0))
case("weight_norm_dim1", lambda: torch._weight_norm(r(3, 4, 2), r(1, 4, 1), 1))
case("weight_norm_interface", lambda: torch._weight_norm_interface(r(3, 4), r(1, 4), 1)[0])
case("norm_except_dim_0", lambda: torch.norm_except_dim(r(3, 4, 2), 2, 0))
case("norm_except_dim_1", lambda: torch.norm_except_dim(r(3, 4, 2), 2, 1))
case("norm_except_dim_all", lambda: torch.norm_except_dim(r(3, 4, 2), 2, -1))
case("native_group_norm_rstd", lambda: torch.native_group_norm(r(2, 4, 3), r(4), None, 2, 4, 3, 2, 1e-5)[2])
case("layer_norm", lambda: F.layer_norm(r(2, 3), (3,)))
case("batch_norm", lambda: F.batch_norm(r(2, 3), None, None, training=True))
case("pad_reflect_2d", lambda: F.pad(r(1, 1, 3, 3), (1, 1, 1, 1), mode="reflect"))
case("pad_reflect_1d", lambda: F.pad(r(1, 2, 3), (1, 1), mode="reflect"))
case("pad_replicate_2d", lambda: F.pad(r(1, 1, 3, 3), (1, 1, 1, 1), mode="replicate"))
case("pad_replicate_1d", lambda: F.pad(r(1, 2, 3), (1, 1), mode="replicate"))
case("pad_constant", lambda: F.pad(r(1, 1, 3, 3), (1, 1, 1, 1)))
case("relu", lambda: F.relu(r(3)))
case("relu6", lambda: F.relu6(r(3)))
case("hardtanh", lambda: F.hardtanh(r(3)))
case("gelu", lambda: F.gelu(r(3)))
case("silu", lambda: F.silu(r(3)))
case("softmax", lambda: F.softmax(r(2, 3), 1))
case("log_softmax", lambda: F.log_softmax(r(2, 3), 1))
case("cross_entropy", lambda: F.cross_entropy(r(2, 3), torch.tensor([0, 1])))
case("nll_loss", lambda: F.nll_loss(r(2, 3), torch.tensor([0, 1])))
case("mse_loss", lambda: F.mse_loss(r(3), torch.randn(3)))
case("conv2d", lambda: F.conv2d(r(1, 1, 3, 3), r(1, 1, 2, 2)))
case("max_pool2d", lambda: F.max_pool2d(r(1, 1, 4, 4), 2))
case("avg_pool2d", lambda: F.avg_pool2d(r(1, 1, 4, 4), 2))
case("embedding", lambda: F.embedding(torch.tensor([0, 1]), r(3, 2)))
case("sum", lambda: r(3).sum())
case("sum_dim", lambda: r(2, 3).sum(1))
case("mean", lambda: r(3).mean())
case("view", lambda: r(2, 3).view(6))
case("reshape_contiguous", lambda: r(2, 3).reshape(6))
case("flatten", lambda: r(2, 3, 4).flatten(1))
case("t", lambda: r(2, 3).t())
case("transpose", lambda: r(2, 3).transpose(0, 1))
case("permute", lambda: r(2, 3, 4).permute(2, 0, 1))
case("select", lambda: r(3, 4)[1])
case("index_tensor", lambda: r(3, 4)[torch.tensor([0, 2])])
case("cat", lambda: torch.cat([r(2), r(3)]))
case("stack", lambda: torch.stack([r(2), r(2)]))
case("expand", lambda: r(3, 1).expand(3, 4))
case("unsqueeze", lambda: r(3).unsqueeze(0))
case("squeeze_dim", lambda: r(1, 3).squeeze(0))
case("add", lambda: r(3) + r(3))
case("mul_scalar", lambda: r(3) * 2)
case("pow", lambda: r(3) ** 2)
case("exp", lambda: r(3).exp())
case("tanh", lambda: r(3).tanh())
case("sigmoid", lambda: r(3).sigmoid())
case("clamp", lambda: r(3).clamp(-1, 1))
case("clamp_min", lambda: r(3).clamp_min(0))
case("abs", lambda: r(3).abs())
case("where", lambda: torch.where(torch.tensor([True, False]), r(2), r(2)))
case("masked_fill", lambda: r(3).masked_fill(torch.tensor([True, False, True]), 0.0))
case("max_all", lambda: r(3).max())
case("max_dim", lambda: r(2, 3).max(1)[0])
case("amax", lambda: r(2, 3).amax(1))
case("norm", lambda: r(3).norm())
case("var", lambda: r(3).var())
case("std", lambda: r(3).std())
case("logsumexp", lambda: r(2, 3).logsumexp(1))
case("cumsum", lambda: r(3).cumsum(0))


# --- every other derivative-table entry (autograd/derivatives/*.cc) that a
# public call reaches. The *_backward entries are the backward's own ops,
# reached through a gradient taken with create_graph (grad_of below).
# Left out, with the reason:
#   _scaled_dot_product_flash_attention (ScaledDotProductFlashAttentionForCpuBackward0):
#     F.scaled_dot_product_attention and its fused kernels came with PyTorch
#     2.0; 1.13 has only the math composite (bmm, softmax...), no such node,
#     so there is no 1.13 name to check ember's against.
def p(*s):  # in (0, 1): probabilities for binary_cross_entropy
    return torch.rand(*s).requires_grad_()


def mask23():
    return torch.tensor([[True, False, True], [False, False, True]])


def inplace(f, *s):  # an in-place op on a non-leaf: y = x * 1; f(y)
    y = r(*s) * 1
    f(y)
    return y


def grad_of(f, x, g):  # the gradient, recorded (create_graph): a backward's own node
    return torch.autograd.grad(f(x), x, g, create_graph=True)[0]


# pointwise.cc
case("sub", lambda: r(3) - r(3))
case("mul", lambda: r(3) * r(3))
case("div", lambda: r(3) / r(3))
case("div_rounding", lambda: r(3).div(r(3), rounding_mode="floor"))
case("rsub", lambda: 2.5 - r(3))
case("neg", lambda: -r(3))
for op in ["sqrt", "rsqrt", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos",
           "tan", "asin", "acos", "atan", "sinh", "cosh", "erf", "erfc", "asinh", "acosh", "atanh",
           "reciprocal", "floor", "ceil",
           "round", "trunc", "sign", "frac"]:
    case(op, lambda op=op: getattr(r(3), op)())
case("relu_tensor", lambda: r(3).relu())
case("round_decimals", lambda: r(3).round(decimals=1))
case("pow_tensor", lambda: r(3).pow(r(3)))
case("clamp_max", lambda: r(3).clamp_max(0))
case("clamp_tensor", lambda: r(3).clamp(r(3), r(3)))
case("maximum", lambda: torch.maximum(r(3), r(3)))
case("minimum", lambda: torch.minimum(r(3), r(3)))
case("atan2", lambda: torch.atan2(r(3), r(3)))
case("lerp", lambda: r(3).lerp(r(3), 0.3))
case("addcmul", lambda: torch.addcmul(r(3), r(3), r(3), value=0.5))
case("addcdiv", lambda: torch.addcdiv(r(3), r(3), r(3), value=0.5))
case("masked_fill_tensor", lambda: r(2, 3).masked_fill(mask23(), r(())))
case("to", lambda: r(3).to(torch.float64))
case("clone", lambda: r(3).clone())
case("copy_", lambda: inplace(lambda y: y.copy_(r(3)), 3))
case("fill_", lambda: inplace(lambda y: y.fill_(1.5), 3))
case("fill_tensor_", lambda: inplace(lambda y: y.fill_(r(())), 3))
case("zero_", lambda: inplace(lambda y: y.zero_(), 3))
case("uniform_", lambda: inplace(lambda y: y.uniform_(-1, 2), 3))
case("normal_", lambda: inplace(lambda y: y.normal_(1, 2), 3))
case("bernoulli_", lambda: inplace(lambda y: y.bernoulli_(0.5), 3))
case("random_", lambda: inplace(lambda y: y.random_(0, 5), 3))
case("exponential_", lambda: inplace(lambda y: y.exponential_(2), 3))
case("cauchy_", lambda: inplace(lambda y: y.cauchy_(), 3))
case("log_normal_", lambda: inplace(lambda y: y.log_normal_(), 3))
case("geometric_", lambda: inplace(lambda y: y.geometric_(0.3), 3))
case("remainder", lambda: r(3).remainder(r(3)))
case("remainder_scalar", lambda: r(3).remainder(0.7))
case("fmod", lambda: r(3).fmod(r(3)))
case("fmod_scalar", lambda: r(3).fmod(0.7))
case("fmax", lambda: torch.fmax(r(3), r(3)))
case("fmin", lambda: torch.fmin(r(3), r(3)))
# special.cc
for op in ["erfinv", "lgamma", "digamma", "i0", "sinc"]:
    case(op, lambda op=op: getattr(r(3), op)())
case("polygamma", lambda: torch.polygamma(2, r(3)))
case("special_i1", lambda: torch.special.i1(r(3)))
case("copysign", lambda: r(3).copysign(r(3)))
case("copysign_scalar", lambda: r(3).copysign(-1.5))
case("hypot", lambda: r(3).hypot(r(3)))
case("ldexp", lambda: r(3).ldexp(torch.tensor([1, 2, 3])))
case("float_power", lambda: r(3).float_power(r(3)))
# reduce.cc
case("mean_dim", lambda: r(2, 3).mean(0))
case("prod_all", lambda: r(3).prod())
case("prod_dim", lambda: r(2, 3).prod(1))
case("min_all", lambda: r(3).min())
case("min_dim", lambda: r(2, 3).min(0, keepdim=True)[0])
case("amin", lambda: r(2, 3).amin(0))
case("var_dim", lambda: r(2, 3).var(1))
case("softmax_method", lambda: r(2, 3).softmax(0))
case("cumprod", lambda: r(3).cumprod(0))
case("var_mean", lambda: torch.var_mean(r(2, 3), 1)[0])
case("std_mean", lambda: torch.std_mean(r(2, 3), 1)[0])
# linalg.cc
case("outer", lambda: torch.outer(r(3), r(2)))
# nn.cc
case("conv1d", lambda: F.conv1d(r(1, 2, 5), r(3, 2, 2), r(3)))
case("conv_transpose2d", lambda: F.conv_transpose2d(r(1, 2, 3, 3), r(2, 3, 2, 2)))
case("conv_tbc", lambda: torch.conv_tbc(r(4, 2, 3), r(2, 3, 5), r(5), 1))
case("convolution_backward", lambda: grad_of(lambda x: F.conv2d(x, r(2, 1, 2, 2)),
                                             r(1, 1, 3, 3), r(1, 2, 2, 2)))
case("max_pool2d_with_indices_backward",
     lambda: grad_of(lambda x: F.max_pool2d(x, 2), r(1, 1, 4, 4), r(1, 1, 2, 2)))
case("native_dropout", lambda: torch.native_dropout(r(3), 0.5, True)[0])
case("native_dropout_eval", lambda: torch.native_dropout(r(3), 0.5, False)[0])
case("native_dropout_double_backward",
     lambda: grad_of(lambda x: torch.native_dropout(x, 0.5, True)[0], r(3), r(3)))
case("native_dropout_backward",
     lambda: torch.ops.aten.native_dropout_backward(r(3), torch.tensor([True, False, True]), 2.0))
case("grid_sample_2d",
     lambda: F.grid_sample(r(1, 2, 3, 4), r(1, 2, 2, 2), align_corners=False))
case("grid_sample_3d",
     lambda: F.grid_sample(r(1, 2, 2, 3, 4), r(1, 1, 2, 2, 3), align_corners=True))
case("affine_grid_2d", lambda: F.affine_grid(r(2, 2, 3), [2, 1, 3, 4], align_corners=False))
case("affine_grid_3d", lambda: F.affine_grid(r(1, 3, 4), [1, 1, 2, 3, 4], align_corners=True))
case("avg_pool2d_backward",
     lambda: grad_of(lambda x: F.avg_pool2d(x, 2), r(1, 1, 4, 4), r(1, 1, 2, 2)))
case("adaptive_avg_pool2d", lambda: F.adaptive_avg_pool2d(r(1, 2, 5, 4), (3, 2)))
case("adaptive_avg_pool2d_1", lambda: F.adaptive_avg_pool2d(r(1, 2, 5, 4), 1))
case("adaptive_avg_pool2d_1_channels_last",
     lambda: F.adaptive_avg_pool2d(r(2, 5, 4, 3).permute(0, 3, 1, 2), 1))
case("adaptive_avg_pool1d_1", lambda: F.adaptive_avg_pool1d(r(2, 3, 4), 1))
case("adaptive_avg_pool2d_backward",
     lambda: grad_of(lambda x: F.adaptive_avg_pool2d(x, (3, 2)), r(1, 2, 5, 4), r(1, 2, 3, 2)))
case("gelu_tanh", lambda: F.gelu(r(3), approximate="tanh"))
case("leaky_relu", lambda: F.leaky_relu(r(3), 0.2))
case("batch_norm_eval", lambda: F.batch_norm(r(2, 3), torch.zeros(3), torch.ones(3), r(3), r(3)))
case("layer_norm_affine", lambda: F.layer_norm(r(2, 3), (3,), r(3), r(3)))
case("nll_loss_none", lambda: F.nll_loss(r(2, 3), torch.tensor([0, 1]), reduction="none"))
case("nll_loss2d", lambda: F.nll_loss(r(2, 3, 2, 2), torch.tensor([[[0, 2], [1, 1]], [[2, 0], [0, 1]]])))
case("nll_loss_backward",
     lambda: grad_of(lambda x: F.nll_loss(x, torch.tensor([0, 1])), r(2, 3), r(())))
case("nll_loss2d_backward",
     lambda: grad_of(lambda x: F.nll_loss(x, torch.tensor([[[0, 2]], [[1, 0]]]), reduction="none"),
                     r(2, 3, 1, 2), r(2, 1, 2)))
case("ctc_loss", lambda: F.ctc_loss(r(5, 2, 4).log_softmax(2), torch.tensor([[1, 2], [3, 0]]),
                                    torch.tensor([5, 4]), torch.tensor([2, 1])))
case("ctc_loss_sum", lambda: F.ctc_loss(r(5, 2, 4).log_softmax(2), torch.tensor([[1, 2], [3, 0]]),
                                        torch.tensor([5, 4]), torch.tensor([2, 1]),
                                        reduction="sum"))
case("mse_loss_none", lambda: F.mse_loss(r(3), torch.randn(3), reduction="none"))
case("smooth_l1_loss", lambda: F.smooth_l1_loss(r(3), torch.randn(3)))
case("huber_loss", lambda: F.huber_loss(r(3), torch.randn(3), delta=0.5))
case("instance_norm", lambda: F.instance_norm(r(2, 3, 4)))
case("binary_cross_entropy", lambda: F.binary_cross_entropy(p(3), torch.rand(3)))
case("binary_cross_entropy_with_logits",
     lambda: F.binary_cross_entropy_with_logits(r(3), torch.rand(3)))
case("pad_reflect_3d", lambda: F.pad(r(1, 1, 2, 3, 3), (1, 1, 1, 1, 1, 1), mode="reflect"))
case("pad_replicate_3d", lambda: F.pad(r(1, 1, 2, 3, 3), (1, 1, 1, 1, 1, 1), mode="replicate"))
# activation.cc
case("elu", lambda: F.elu(r(3)))
case("celu", lambda: F.celu(r(3), 1.5))
case("selu", lambda: F.selu(r(3)))
case("mish", lambda: F.mish(r(3)))
case("softplus", lambda: F.softplus(r(3), 2, 3))
case("logsigmoid", lambda: F.logsigmoid(r(3)))
case("hardsigmoid", lambda: F.hardsigmoid(r(3)))
case("hardswish", lambda: F.hardswish(r(3)))
case("softshrink", lambda: F.softshrink(r(3), 0.5))
case("hardshrink", lambda: F.hardshrink(r(3), 0.5))
case("threshold", lambda: F.threshold(r(3), 0.5, -2.0))
case("prelu", lambda: F.prelu(r(2, 3), r(3)))
# shape.cc
case("reshape_noncontiguous", lambda: r(3, 2).t().reshape(6))
case("ellipsis", lambda: r(3)[...])
case("split", lambda: r(5).split(2)[0])
case("chunk", lambda: r(6).chunk(3)[0])
case("split_with_sizes", lambda: r(5).split([2, 3])[0])
case("unbind", lambda: r(2, 3).unbind(1)[0])
case("squeeze", lambda: r(1, 3, 1).squeeze())
case("slice", lambda: r(5)[1:4:2])
case("narrow", lambda: r(5).narrow(0, 1, 2))
case("diagonal", lambda: r(3, 3).diagonal(1))
# Indexing: PyTorch 1.13 records every `:` as a slice (its stop is the
# maximum, never the length), a bounded full range not.
case("index_colon_int", lambda: r(2, 3)[:, 1])
case("index_range_int", lambda: r(2, 3)[0:2, 1])
case("index_range", lambda: r(2, 3)[0:2])
case("index_colon_range", lambda: r(2, 3)[:, 0:2])
case("index_int_colon", lambda: r(2, 3)[1, :])
case("index_ellipsis_int", lambda: r(2, 3)[..., 1])
case("index_none", lambda: r(2, 3)[None])
case("index_colon_none", lambda: r(2, 3)[:, None])
case("index_colon_tensor", lambda: r(2, 3)[:, torch.tensor([0, 2])])
case("select_backward", lambda: grad_of(lambda x: x.select(1, 2), r(2, 3), r(2)))
case("slice_backward", lambda: grad_of(lambda x: x[0:3:2], r(3, 2), r(2, 2)))
case("diagonal_backward", lambda: grad_of(lambda x: x.diagonal(-1), r(3, 3), r(2)))
case("index_backward",
     lambda: grad_of(lambda x: x[torch.tensor([1, 1, 0])], r(2, 3), r(3, 3)))
case("index_select_backward",
     lambda: grad_of(lambda x: x.index_select(0, torch.tensor([1, 1])), r(2, 3), r(2, 3)))
case("masked_select_backward",
     lambda: grad_of(lambda x: x.masked_select(mask23()), r(2, 3), r(3)))
case("index_bool", lambda: r(2, 3)[mask23()])
case("index_select", lambda: r(2, 3).index_select(1, torch.tensor([2, 0])))
case("masked_select", lambda: r(2, 3).masked_select(mask23()))
case("gather", lambda: r(2, 3).gather(1, torch.tensor([[0, 2], [2, 1]])))
case("scatter", lambda: r(2, 3).scatter(1, torch.tensor([[0, 2], [1, 0]]), r(2, 2)))
case("scatter_value", lambda: r(2, 3).scatter(1, torch.tensor([[0, 2], [1, 0]]), 1.5))
case("scatter_add", lambda: r(2, 3).scatter_add(1, torch.tensor([[0, 0], [1, 1]]), r(2, 2)))
case("sort", lambda: r(2, 3).sort(1, descending=True)[0])
case("topk", lambda: r(3, 4).topk(2, 0)[0])
case("kthvalue", lambda: r(3, 4).kthvalue(2, 1)[0])
case("median", lambda: r(3, 4).median())
case("median_dim", lambda: r(3, 4).median(1)[0])
case("nanmedian", lambda: r(3, 4).nanmedian())
case("nanmedian_dim", lambda: r(3, 4).nanmedian(0, True)[0])
case("mode", lambda: r(3, 4).mode(1)[0])
case("cummax", lambda: r(3, 4).cummax(1)[0])
case("cummin", lambda: r(3, 4).cummin(0)[0])
case("logcumsumexp", lambda: r(3, 4).logcumsumexp(1))
case("msort", lambda: r(3, 4).msort())
case("as_strided", lambda: r(2, 3).as_strided((2, 2), (1, 2), 1))
case("unfold", lambda: r(2, 4).unfold(1, 2, 1))
case("flip", lambda: r(2, 3).flip(0, 1))
case("roll", lambda: r(2, 3).roll(1, 0))
case("repeat", lambda: r(2, 3).repeat(2, 1, 2))
case("tril", lambda: r(3, 3).tril())
case("triu", lambda: r(3, 3).triu(1))
case("diag", lambda: r(3, 3).diag(1))
case("diag_1d", lambda: r(3).diag())
case("take", lambda: r(2, 3).take(torch.tensor([5, 0])))
case("squeeze_", lambda: inplace(lambda y: y.squeeze_(), 1, 3, 1))
case("squeeze_dim_", lambda: inplace(lambda y: y.squeeze_(0), 1, 3))
case("unsqueeze_", lambda: inplace(lambda y: y.unsqueeze_(0), 3))
case("transpose_", lambda: inplace(lambda y: y.transpose_(0, 1), 2, 3))
case("t_", lambda: inplace(lambda y: y.t_(), 2, 3))
case("as_strided_", lambda: inplace(lambda y: y.as_strided_((2, 2), (1, 2), 1), 2, 3))
case("index_put_", lambda: inplace(lambda y: y.index_put_((torch.tensor([2, 0]),), r(2)), 3))
case("setitem", lambda: inplace(lambda y: y.__setitem__(torch.tensor([2, 0]), r(2)), 3))
case("index_add_", lambda: inplace(lambda y: y.index_add_(1, torch.tensor([2, 0]), r(2, 2),
                                                        alpha=2.0), 2, 3))
case("index_fill_", lambda: inplace(lambda y: y.index_fill_(1, torch.tensor([2, 0]), 0.5), 2, 3))
case("index_copy_", lambda: inplace(lambda y: y.index_copy_(0, torch.tensor([2, 0]), r(2, 2)),
                                    3, 2))
case("masked_scatter_", lambda: inplace(lambda y: y.masked_scatter_(mask23(), r(2, 2)), 2, 3))

# shape_ops.cc (PyTorch 1.13's Python slice_scatter misreads an absent
# start or end: every bound is given)
case("trace", lambda: r(3, 3).trace())
case("addmv", lambda: r(2).addmv(r(2, 3), r(3)))
case("addmv_", lambda: inplace(lambda y: y.addmv_(r(2, 3), r(3)), 2))
case("addr", lambda: r(2, 3).addr(r(2), r(3)))
case("addr_", lambda: inplace(lambda y: y.addr_(r(2), r(3)), 2, 3))
case("addbmm", lambda: r(2, 4).addbmm(r(5, 2, 3), r(5, 3, 4)))
case("addbmm_", lambda: inplace(lambda y: y.addbmm_(r(5, 2, 3), r(5, 3, 4)), 2, 4))
case("diag_embed", lambda: r(2, 3).diag_embed())
case("select_scatter", lambda: r(2, 3).select_scatter(r(3), 0, 0))
case("slice_scatter", lambda: r(4, 3).slice_scatter(r(2, 3), dim=0, start=0, end=2, step=1))
case("diagonal_scatter", lambda: r(3, 3).diagonal_scatter(r(3)))
case("tile", lambda: r(2, 3).tile((2,)))
case("take_along_dim", lambda: r(2, 3).take_along_dim(torch.tensor([[0], [1]]), 1))
case("swapaxes", lambda: r(2, 3).swapaxes(0, 1))
case("moveaxis", lambda: r(2, 3, 4).moveaxis([0, 1], [2, 0]))
case("fliplr", lambda: r(2, 3).fliplr())
case("matrix_power", lambda: r(3, 3).matrix_power(3))
case("rot90", lambda: r(2, 3).rot90())
case("rot90_2", lambda: r(2, 3).rot90(2))
case("unsafe_split", lambda: r(4, 3).unsafe_split(2)[1])
case("unsafe_chunk", lambda: r(4, 3).unsafe_chunk(2)[1])
case("unsafe_split_with_sizes", lambda: r(4, 3).unsafe_split_with_sizes([1, 3])[1])
case("angle", lambda: r(3).angle())
case("as_strided_scatter", lambda: r(3, 4).as_strided_scatter(r(2), (2,), (5,), 1))
case("ravel", lambda: r(2, 3).ravel())
case("repeat_interleave_dim", lambda: r(2, 3).repeat_interleave(2, dim=1))
case("sum_to_size", lambda: r(2, 3).sum_to_size(1, 3))
case("diagflat", lambda: r(2, 2).diagflat())
case("broadcast_to", lambda: r(3).broadcast_to((2, 3)))

# linalg_more.cc
def spd():  # a symmetric positive-definite leaf
    return (torch.eye(3) * 2 + 0.1).requires_grad_()


case("inverse", lambda: r(3, 3).inverse())
case("linalg_inv", lambda: torch.linalg.inv(r(2, 3, 3)))
case("det", lambda: r(3, 3).det())
case("linalg_det", lambda: torch.linalg.det(r(2, 3, 3)))
case("slogdet", lambda: r(3, 3).slogdet()[1])
case("logdet", lambda: r(3, 3).logdet())
case("linalg_solve", lambda: torch.linalg.solve(r(3, 3), r(3, 2)))
case("triangular_solve", lambda: torch.triangular_solve(r(3, 2), r(3, 3))[0])
case("cholesky", lambda: spd().cholesky())
case("linalg_cholesky", lambda: torch.linalg.cholesky(spd()))
case("cholesky_solve", lambda: torch.cholesky_solve(r(3, 2), spd()))
case("cholesky_inverse", lambda: torch.cholesky_inverse(spd()))

# linalg_spectral.cc (singular vectors are defined up to sign: the cases
# take S, L or results that do not depend on it)
case("linalg_svd", lambda: torch.linalg.svd(r(3, 2))[1])
case("svd", lambda: r(3, 2).svd()[1])
case("svd_no_uv", lambda: r(3, 2).svd(compute_uv=False)[1])
case("linalg_svdvals", lambda: torch.linalg.svdvals(r(2, 3)))
case("linalg_eigh", lambda: torch.linalg.eigh(r(3, 3))[0])
case("linalg_eigvalsh", lambda: torch.linalg.eigvalsh(r(3, 3)))
case("symeig", lambda: r(3, 3).symeig(eigenvectors=True)[0])
case("linalg_pinv", lambda: torch.linalg.pinv(r(3, 2)))
case("linalg_pinv_hermitian", lambda: torch.linalg.pinv(spd(), hermitian=True))
case("pinverse", lambda: r(2, 3).pinverse())
case("linalg_lstsq", lambda: torch.linalg.lstsq(r(3, 2), r(3, 2))[0])
case("matrix_exp", lambda: r(3, 3).matrix_exp())
case("linalg_matrix_exp", lambda: torch.linalg.matrix_exp(r(3, 3)))

# linalg_factor.cc
case("linalg_qr", lambda: torch.linalg.qr(r(3, 3))[0])
case("qr", lambda: torch.qr(r(3, 2))[1])
case("geqrf", lambda: torch.geqrf(r(3, 3))[0])
case("orgqr", lambda: torch.orgqr(r(3, 2), r(2)))
case("linalg_householder_product", lambda: torch.linalg.householder_product(r(3, 2), r(1)))
case("ormqr", lambda: torch.ormqr(r(3, 2), r(2), r(3, 2)))
case("linalg_lu_factor", lambda: torch.linalg.lu_factor(r(3, 3))[0])
case("linalg_lu_factor_ex", lambda: torch.linalg.lu_factor_ex(r(2, 3))[0])
case("lu", lambda: r(3, 3).lu()[0])
case("lu_unpack", lambda: torch.lu_unpack(*torch.linalg.lu_factor(r(3, 3)))[1])
case("linalg_lu", lambda: torch.linalg.lu(r(3, 3))[2])
case("lu_solve", lambda: torch.lu_solve(r(3, 2), *torch.linalg.lu_factor(r(3, 3))))
case("linalg_lu_solve", lambda: torch.linalg.lu_solve(*torch.linalg.lu_factor(r(3, 3)), r(3, 2)))

# reduce_ops.cc (histogram records no node)
case("scatter_reduce", lambda: r(3, 4).scatter_reduce(0, torch.tensor([[0, 2, 0, 1]]), r(1, 4),
                                                      "amax"))
case("scatter_reduce_", lambda: (r(3, 4) * 1).scatter_reduce_(1, torch.tensor([[0], [3], [1]]),
                                                               r(3, 1), "mean", include_self=False))
case("index_reduce", lambda: r(4, 3).index_reduce(0, torch.tensor([0, 2]), r(2, 3), "prod"))
case("igamma", lambda: torch.igamma(torch.tensor([1.5, 2.]), r(2).exp()))
case("igammac", lambda: torch.special.gammaincc(torch.tensor([1.5, 2.]), r(2)))

# composite.cc: composite_ops.h's ops that 1.13 records as one node
case("nansum", lambda: r(2, 3).nansum(1))
case("nanmean", lambda: r(2, 3).nanmean())
case("nan_to_num", lambda: r(3).nan_to_num())
case("logaddexp", lambda: torch.logaddexp(r(3), r(3)))
case("logaddexp2", lambda: torch.logaddexp2(r(3), r(3)))
case("xlogy", lambda: torch.xlogy(r(3), r(3)))
case("xlogy_scalar_other", lambda: torch.xlogy(r(3), 2.0))
case("xlogy_scalar_self", lambda: torch.xlogy(2.0, r(3)))
case("deg2rad", lambda: r(3).deg2rad())
case("rad2deg", lambda: r(3).rad2deg())
case("sgn", lambda: r(3).sgn())
case("logit", lambda: r(3).logit(0.1))
case("lerp_tensor", lambda: torch.lerp(r(3), r(3), r(3)))
case("cross", lambda: torch.cross(r(2, 3), r(2, 3)))
case("dist", lambda: torch.dist(r(3), r(3), 3))
case("baddbmm", lambda: torch.baddbmm(r(2, 2, 2), r(2, 2, 3), r(2, 3, 2)))
case("heaviside", lambda: torch.heaviside(r(3), r(3)))
case("pow_scalar_self", lambda: torch.pow(2.5, r(3)))
case("float_power_scalar_self", lambda: torch.float_power(0.5, r(3)))
case("nextafter", lambda: torch.nextafter(r(3), r(3)))
case("kron", lambda: torch.kron(r(2, 3), r(3, 2)))
case("diff_n0", lambda: torch.diff(r(3), 0))
case("quantile", lambda: r(4, 3).quantile(0.3))
case("quantile_q1d_dim", lambda: r(4, 3).quantile(torch.tensor([0.1, 0.5]), 0))
case("matrix_power_0", lambda: torch.linalg.matrix_power(r(3, 3), 0))
case("aminmax", lambda: torch.aminmax(r(3, 4))[0])
case("pixel_shuffle", lambda: F.pixel_shuffle(r(1, 8, 2, 3), 2))
case("pixel_unshuffle", lambda: F.pixel_unshuffle(r(1, 2, 4, 6), 2))
case("channel_shuffle", lambda: F.channel_shuffle(r(1, 4, 2, 3), 2))
case("aminmax_dim", lambda: torch.aminmax(r(3, 4), dim=1)[1])
case("narrow_copy", lambda: r(3, 4).narrow_copy(1, 1, 2))
case("unique", lambda: torch.unique(r(5)))
case("_unique", lambda: torch._unique(r(5))[0])
case("unique_dim", lambda: torch.unique(r(3, 2), dim=0))
case("unique_consecutive", lambda: torch.unique_consecutive(r(5)))
case("unique_consecutive_dim", lambda: torch.unique_consecutive(r(2, 3), dim=1))
case("unique_dim_consecutive", lambda: torch.ops.aten.unique_dim_consecutive(r(3, 2), 0)[0])
# shape_more.cc
case("linalg_multi_dot", lambda: torch.linalg.multi_dot([r(3), r(3, 4), r(4, 2), r(2)]))
case("linalg_multi_dot_mat", lambda: torch.linalg.multi_dot([r(2, 3), r(3, 4)]))

# distributions.cc (binomial's node is NotImplemented)
case("poisson", lambda: torch.poisson(r(3).exp()))

# view_copy.cc: each *_copy records "<view's node>_copy" (slice_copy through
# the dispatcher op: 1.13's Python binding mis-reads its absent bounds).
# detach_copy's node, torch::autograd::NotImplemented, is checked in
# autograd/view_copy_grad_test.cc.
case("as_strided_copy", lambda: torch.as_strided_copy(r(3, 4), (2, 2), (1, 2), 1))
case("diagonal_copy", lambda: torch.diagonal_copy(r(3, 4)))
case("expand_copy", lambda: torch.expand_copy(r(3, 1), (3, 4)))
case("permute_copy", lambda: torch.permute_copy(r(3, 4), (1, 0)))
case("select_copy", lambda: torch.select_copy(r(3, 4), 0, 1))
case("slice_copy", lambda: torch.ops.aten.slice_copy.Tensor(r(3, 4), 1, 0, 3, 2))
case("split_copy", lambda: torch.split_copy(r(3, 4), 2, 1)[1])
case("split_with_sizes_copy", lambda: torch.split_with_sizes_copy(r(3, 4), [1, 3], 1)[0])
case("squeeze_copy", lambda: torch.squeeze_copy(r(1, 4)))
case("squeeze_copy_dim", lambda: torch.squeeze_copy(r(1, 4), 0))
case("t_copy", lambda: torch.t_copy(r(3, 4)))
case("transpose_copy", lambda: torch.transpose_copy(r(3, 4), 0, 1))
case("unbind_copy", lambda: torch.unbind_copy(r(3, 4), 1)[2])
case("unfold_copy", lambda: torch.unfold_copy(r(3, 4), 1, 2, 1))
case("unsqueeze_copy", lambda: torch.unsqueeze_copy(r(3, 4), 0))
case("view_copy", lambda: torch.view_copy(r(3, 4), (12,)))
case("alias_copy", lambda: torch.alias_copy(r(3, 4)))

# nn/rnn_functional.h: the functional recurrences (outputs and final states).
def rnn_params(gates, input_size, hidden, dirs=1, bias=True, proj=0):
    out = proj if proj else hidden
    ps = []
    for _ in range(dirs):
        ps += [r(gates * hidden, input_size), r(gates * hidden, out)]
        if bias:
            ps += [r(gates * hidden), r(gates * hidden)]
        if proj:
            ps.append(r(proj, hidden))
    return ps


case("rnn_tanh_cell", lambda: torch.rnn_tanh_cell(r(3, 4), r(3, 5), r(5, 4), r(5, 5), r(5), r(5)))
case("rnn_relu_cell_nobias", lambda: torch.rnn_relu_cell(r(3, 4), r(3, 5), r(5, 4), r(5, 5)))
case("gru_cell", lambda: torch.gru_cell(r(3, 4), r(3, 5), r(15, 4), r(15, 5), r(15), r(15)))
case("lstm_cell_h", lambda: torch.lstm_cell(r(3, 4), [r(3, 5), r(3, 5)], r(20, 4), r(20, 5))[0])
case("lstm_cell_c", lambda: torch.lstm_cell(r(3, 4), [r(3, 5), r(3, 5)], r(20, 4), r(20, 5))[1])
case("rnn_tanh_output",
     lambda: torch.rnn_tanh(r(3, 2, 4), r(1, 2, 5), rnn_params(1, 4, 5), True, 1, 0.0, False,
                            False, False)[0])
case("rnn_relu_h_n",
     lambda: torch.rnn_relu(r(3, 2, 4), r(1, 2, 5), rnn_params(1, 4, 5, bias=False), False, 1,
                            0.0, False, False, False)[1])
case("rnn_tanh_bidirectional_output",
     lambda: torch.rnn_tanh(r(3, 2, 4), r(2, 2, 5), rnn_params(1, 4, 5, dirs=2), True, 1, 0.0,
                            False, True, False)[0])
case("gru_batch_first_output",
     lambda: torch.gru(r(2, 3, 4), r(1, 2, 5), rnn_params(3, 4, 5), True, 1, 0.0, False, False,
                       True)[0])
case("gru_h_n",
     lambda: torch.gru(r(3, 2, 4), r(1, 2, 5), rnn_params(3, 4, 5), True, 1, 0.0, False, False,
                       False)[1])
case("lstm_output",
     lambda: torch.lstm(r(3, 2, 4), [r(1, 2, 5), r(1, 2, 5)], rnn_params(4, 4, 5), True, 1, 0.0,
                        False, False, False)[0])
case("lstm_c_n",
     lambda: torch.lstm(r(3, 2, 4), [r(1, 2, 5), r(1, 2, 5)], rnn_params(4, 4, 5), True, 1, 0.0,
                        False, False, False)[2])
case("lstm_batch_first_output",
     lambda: torch.lstm(r(2, 3, 4), [r(1, 2, 5), r(1, 2, 5)], rnn_params(4, 4, 5), True, 1, 0.0,
                        False, False, True)[0])
case("lstm_proj_h_n",
     lambda: torch.lstm(r(3, 2, 4), [r(1, 2, 3), r(1, 2, 5)], rnn_params(4, 4, 5, proj=3), True,
                        1, 0.0, False, False, False)[1])
case("gru_packed_output",
     lambda: torch.gru(r(4, 4), torch.tensor([2, 1, 1]), r(1, 2, 5), rnn_params(3, 4, 5), True, 1,
                       0.0, False, False)[0])
case("lstm_packed_h_n",
     lambda: torch.lstm(r(4, 4), torch.tensor([2, 1, 1]), [r(1, 2, 5), r(1, 2, 5)],
                        rnn_params(4, 4, 5), True, 1, 0.0, False, False)[1])
case("rnn_relu_packed_bidirectional_output",
     lambda: torch.rnn_relu(r(4, 4), torch.tensor([2, 1, 1]), r(2, 2, 5),
                            rnn_params(1, 4, 5, dirs=2), True, 1, 0.0, False, True)[0])
# Losses and activations 1.13 records as one node or as ATen's own
# composition (issue 22): glu, the margin losses, rrelu (rrelu_with_noise),
# circular pad (slice copies), cross_entropy with probabilities (ATen's
# C++ division by a number: DivBackward1), nll_loss_nd's views. kl_div and
# multilabel_soft_margin_loss divide in Python (DivBackward0).
case("glu", lambda: F.glu(r(2, 4)))
case("glu_dim0", lambda: F.glu(r(4, 3), 0))
case("multi_margin_loss", lambda: F.multi_margin_loss(r(2, 3), torch.tensor([0, 2])))
case("multi_margin_loss_p2_none_1d",
     lambda: F.multi_margin_loss(r(3), torch.tensor(1), p=2, reduction="none"))
case("multilabel_margin_loss",
     lambda: F.multilabel_margin_loss(r(2, 3), torch.tensor([[0, -1, 1], [2, 1, -1]])))
case("rrelu_eval", lambda: F.rrelu(r(3)))
case("rrelu_training", lambda: F.rrelu(r(3), training=True))
case("rrelu_inplace", lambda: F.rrelu(r(3) * 1, inplace=True))
case("rrelu_inplace_training", lambda: F.rrelu(r(3) * 1, training=True, inplace=True))
case("pad_circular_1d", lambda: F.pad(r(1, 2, 5), (1, 2), mode="circular"))
case("pad_circular_2d_negative", lambda: F.pad(r(1, 1, 3, 4), (-1, 2, 1, 0), mode="circular"))
case("pad_circular_3d", lambda: F.pad(r(1, 1, 2, 3, 3), (1, 1, 0, 1, 1, 0), mode="circular"))
case("pad_circular_zero", lambda: F.pad(r(1, 2, 3), (0, 0), mode="circular"))
case("cross_entropy_probs", lambda: F.cross_entropy(r(2, 3), torch.rand(2, 3)))
case("cross_entropy_probs_none",
     lambda: F.cross_entropy(r(2, 3), torch.rand(2, 3), reduction="none"))
case("cross_entropy_probs_sum_weight",
     lambda: F.cross_entropy(r(2, 3), torch.rand(2, 3), torch.rand(3), reduction="sum"))
case("cross_entropy_probs_smoothing_1d",
     lambda: F.cross_entropy(r(3), torch.rand(3), label_smoothing=0.2))
case("cross_entropy_probs_empty", lambda: F.cross_entropy(r(0, 3), torch.rand(0, 3)))
case("cross_entropy_3d", lambda: F.cross_entropy(r(2, 3, 4), torch.tensor([[0, 1, 2, 1], [2, 0, 0, 1]])))
case("cross_entropy_3d_smoothing_none",
     lambda: F.cross_entropy(r(2, 3, 4), torch.tensor([[0, 1, 2, 1], [2, 0, 0, 1]]),
                             reduction="none", label_smoothing=0.1))
case("nll_loss_3d", lambda: F.nll_loss(r(2, 3, 4), torch.tensor([[0, 1, 2, 1], [2, 0, 0, 1]])))
case("nll_loss_3d_none",
     lambda: F.nll_loss(r(2, 3, 4), torch.tensor([[0, 1, 2, 1], [2, 0, 0, 1]]), reduction="none"))
case("nll_loss_3d_transposed",
     lambda: F.nll_loss(r(2, 4, 3).transpose(1, 2), torch.tensor([[0, 1, 2, 1], [2, 0, 0, 1]])))
case("nll_loss_5d_none",
     lambda: F.nll_loss(r(1, 3, 2, 1, 2), torch.tensor([[[[0, 1]], [[2, 1]]]]), reduction="none"))
case("glu_backward", lambda: grad_of(F.glu, r(2, 4), r(2, 2)))
case("multi_margin_loss_backward",
     lambda: grad_of(lambda x: F.multi_margin_loss(x, torch.tensor([0, 2])), r(2, 3), r(())))
case("rrelu_backward", lambda: grad_of(F.rrelu, r(3), r(3)))
case("kl_div_batchmean", lambda: F.kl_div(r(2, 3), torch.rand(2, 3), reduction="batchmean"))
case("multilabel_soft_margin_loss",
     lambda: F.multilabel_soft_margin_loss(r(2, 3), torch.tensor([[0., 1., 1.], [1., 0., 0.]])))

# tensor/upsample.h: the sized overloads (libtorch's F::interpolate calls them) record
# ...Backward0, the .vec ones (Python's F.interpolate) ...Backward1; and their backwards.
case("upsample_nearest1d", lambda: torch._C._nn.upsample_nearest1d(r(2, 1, 3), [5]))
case("upsample_nearest1d_vec", lambda: torch._C._nn.upsample_nearest1d(r(2, 1, 3), None, [1.5]))
case("upsample_nearest1d_backward", lambda: grad_of(lambda x: torch._C._nn.upsample_nearest1d(x, [5]), r(2, 1, 3), r(2, 1, 5)))
case("upsample_nearest1d_backward_vec", lambda: grad_of(lambda x: torch._C._nn.upsample_nearest1d(x, [5], None), r(2, 1, 3), r(2, 1, 5)))
case("upsample_nearest2d", lambda: torch._C._nn.upsample_nearest2d(r(2, 1, 3, 3), [5, 2]))
case("upsample_nearest2d_vec", lambda: torch._C._nn.upsample_nearest2d(r(2, 1, 3, 3), None, [1.5, 1.5]))
case("upsample_nearest2d_backward", lambda: grad_of(lambda x: torch._C._nn.upsample_nearest2d(x, [5, 2]), r(2, 1, 3, 3), r(2, 1, 5, 2)))
case("upsample_nearest2d_backward_vec", lambda: grad_of(lambda x: torch._C._nn.upsample_nearest2d(x, [5, 2], None), r(2, 1, 3, 3), r(2, 1, 5, 2)))
case("upsample_nearest3d", lambda: torch._C._nn.upsample_nearest3d(r(2, 1, 3, 3, 3), [5, 2, 4]))
case("upsample_nearest3d_vec", lambda: torch._C._nn.upsample_nearest3d(r(2, 1, 3, 3, 3), None, [1.5, 1.5, 1.5]))
case("upsample_nearest3d_backward", lambda: grad_of(lambda x: torch._C._nn.upsample_nearest3d(x, [5, 2, 4]), r(2, 1, 3, 3, 3), r(2, 1, 5, 2, 4)))
case("upsample_nearest3d_backward_vec", lambda: grad_of(lambda x: torch._C._nn.upsample_nearest3d(x, [5, 2, 4], None), r(2, 1, 3, 3, 3), r(2, 1, 5, 2, 4)))
case("_upsample_nearest_exact1d", lambda: torch._C._nn._upsample_nearest_exact1d(r(2, 1, 3), [5]))
case("_upsample_nearest_exact1d_vec", lambda: torch._C._nn._upsample_nearest_exact1d(r(2, 1, 3), None, [1.5]))
case("_upsample_nearest_exact1d_backward", lambda: grad_of(lambda x: torch._C._nn._upsample_nearest_exact1d(x, [5]), r(2, 1, 3), r(2, 1, 5)))
case("_upsample_nearest_exact1d_backward_vec", lambda: grad_of(lambda x: torch._C._nn._upsample_nearest_exact1d(x, [5], None), r(2, 1, 3), r(2, 1, 5)))
case("_upsample_nearest_exact2d", lambda: torch._C._nn._upsample_nearest_exact2d(r(2, 1, 3, 3), [5, 2]))
case("_upsample_nearest_exact2d_vec", lambda: torch._C._nn._upsample_nearest_exact2d(r(2, 1, 3, 3), None, [1.5, 1.5]))
case("_upsample_nearest_exact2d_backward", lambda: grad_of(lambda x: torch._C._nn._upsample_nearest_exact2d(x, [5, 2]), r(2, 1, 3, 3), r(2, 1, 5, 2)))
case("_upsample_nearest_exact2d_backward_vec", lambda: grad_of(lambda x: torch._C._nn._upsample_nearest_exact2d(x, [5, 2], None), r(2, 1, 3, 3), r(2, 1, 5, 2)))
case("_upsample_nearest_exact3d", lambda: torch._C._nn._upsample_nearest_exact3d(r(2, 1, 3, 3, 3), [5, 2, 4]))
case("_upsample_nearest_exact3d_vec", lambda: torch._C._nn._upsample_nearest_exact3d(r(2, 1, 3, 3, 3), None, [1.5, 1.5, 1.5]))
case("_upsample_nearest_exact3d_backward", lambda: grad_of(lambda x: torch._C._nn._upsample_nearest_exact3d(x, [5, 2, 4]), r(2, 1, 3, 3, 3), r(2, 1, 5, 2, 4)))
case("_upsample_nearest_exact3d_backward_vec", lambda: grad_of(lambda x: torch._C._nn._upsample_nearest_exact3d(x, [5, 2, 4], None), r(2, 1, 3, 3, 3), r(2, 1, 5, 2, 4)))
case("upsample_linear1d", lambda: torch._C._nn.upsample_linear1d(r(2, 1, 3), [5], True))
case("upsample_linear1d_vec", lambda: torch._C._nn.upsample_linear1d(r(2, 1, 3), None, True, [1.5]))
case("upsample_linear1d_backward", lambda: grad_of(lambda x: torch._C._nn.upsample_linear1d(x, [5], True), r(2, 1, 3), r(2, 1, 5)))
case("upsample_linear1d_backward_vec", lambda: grad_of(lambda x: torch._C._nn.upsample_linear1d(x, [5], True, None), r(2, 1, 3), r(2, 1, 5)))
case("upsample_bilinear2d", lambda: torch._C._nn.upsample_bilinear2d(r(2, 1, 3, 3), [5, 2], False))
case("upsample_bilinear2d_vec", lambda: torch._C._nn.upsample_bilinear2d(r(2, 1, 3, 3), None, False, [1.5, 1.5]))
case("upsample_bilinear2d_backward", lambda: grad_of(lambda x: torch._C._nn.upsample_bilinear2d(x, [5, 2], False), r(2, 1, 3, 3), r(2, 1, 5, 2)))
case("upsample_bilinear2d_backward_vec", lambda: grad_of(lambda x: torch._C._nn.upsample_bilinear2d(x, [5, 2], False, None), r(2, 1, 3, 3), r(2, 1, 5, 2)))
case("upsample_bicubic2d", lambda: torch._C._nn.upsample_bicubic2d(r(2, 1, 3, 3), [5, 2], True))
case("upsample_bicubic2d_vec", lambda: torch._C._nn.upsample_bicubic2d(r(2, 1, 3, 3), None, True, [1.5, 1.5]))
case("upsample_bicubic2d_backward", lambda: grad_of(lambda x: torch._C._nn.upsample_bicubic2d(x, [5, 2], True), r(2, 1, 3, 3), r(2, 1, 5, 2)))
case("upsample_bicubic2d_backward_vec", lambda: grad_of(lambda x: torch._C._nn.upsample_bicubic2d(x, [5, 2], True, None), r(2, 1, 3, 3), r(2, 1, 5, 2)))
case("upsample_trilinear3d", lambda: torch._C._nn.upsample_trilinear3d(r(2, 1, 3, 3, 3), [5, 2, 4], False))
case("upsample_trilinear3d_vec", lambda: torch._C._nn.upsample_trilinear3d(r(2, 1, 3, 3, 3), None, False, [1.5, 1.5, 1.5]))
case("upsample_trilinear3d_backward", lambda: grad_of(lambda x: torch._C._nn.upsample_trilinear3d(x, [5, 2, 4], False), r(2, 1, 3, 3, 3), r(2, 1, 5, 2, 4)))
case("upsample_trilinear3d_backward_vec", lambda: grad_of(lambda x: torch._C._nn.upsample_trilinear3d(x, [5, 2, 4], False, None), r(2, 1, 3, 3, 3), r(2, 1, 5, 2, 4)))

# tensor/im2col.h through F.unfold / F.fold
case("F_unfold", lambda: F.unfold(r(2, 3, 5, 5), 2, padding=1, stride=2))
case("F_unfold_unbatched", lambda: F.unfold(r(3, 5, 5), (2, 3), dilation=(2, 1)))
case("F_fold", lambda: F.fold(r(2, 12, 9), (5, 5), 2, padding=1, stride=2))
case("F_fold_unbatched", lambda: F.fold(r(12, 9), (5, 5), 2, padding=1, stride=2))

# tensor/trilinear.h, and F.bilinear made of it
case("bilinear_bias", lambda: F.bilinear(r(2, 3), r(2, 4), r(5, 3, 4), r(5)))
case("bilinear_nobias_3d", lambda: F.bilinear(r(2, 2, 3), r(2, 2, 4), r(5, 3, 4)))
case("_trilinear", lambda: torch._trilinear(r(2, 3), r(5, 3, 4), r(2, 4), [1, 3], [0], [1, 2], [2, 3]))
# The 3-d and adaptive max poolings: one node each (Note [Pooling nodes]).
case("max_pool3d", lambda: F.max_pool3d(r(1, 2, 3, 4, 4), 2, 1))
case("max_pool3d_unbatched", lambda: F.max_pool3d(r(2, 3, 4, 4), (2, 1, 2)))
case("avg_pool3d", lambda: F.avg_pool3d(r(1, 2, 3, 4, 4), 2, 1, 1))
case("avg_pool3d_unbatched", lambda: F.avg_pool3d(r(2, 3, 4, 4), 2, divisor_override=3))
case("adaptive_avg_pool3d", lambda: F.adaptive_avg_pool3d(r(1, 2, 3, 4, 5), (2, 3, 2)))
case("adaptive_avg_pool3d_unbatched", lambda: F.adaptive_avg_pool3d(r(2, 3, 4, 5), 2))
case("adaptive_avg_pool3d_1", lambda: F.adaptive_avg_pool3d(r(1, 2, 3, 4, 5), 1))
case("adaptive_max_pool1d", lambda: F.adaptive_max_pool1d(r(2, 3, 7), 3))
case("adaptive_max_pool2d", lambda: F.adaptive_max_pool2d(r(1, 2, 5, 4), (3, 2)))
case("adaptive_max_pool2d_channels_last",
     lambda: F.adaptive_max_pool2d(r(2, 5, 4, 3).permute(0, 3, 1, 2), (2, 3)))
case("adaptive_max_pool3d", lambda: F.adaptive_max_pool3d(r(1, 2, 3, 4, 5), (2, 3, 2)))
case("adaptive_max_pool3d_unbatched", lambda: F.adaptive_max_pool3d(r(2, 3, 4, 5), 2))
# Distances (autograd/derivatives/nn_composite.cc): the direct form is one
# CdistBackward0, the matmul form (p = 2, more than 25 rows or
# compute_mode) _euclidean_dist and a view.
case("cdist_batch", lambda: torch.cdist(r(2, 3, 4), r(5, 4)))
case("cdist_p0", lambda: torch.cdist(r(3, 4), r(5, 4), 0))
case("cdist_empty", lambda: torch.cdist(r(0, 4), r(5, 4)))
case("cdist_mm", lambda: torch.cdist(r(30, 4), r(5, 4)))
case("cdist_mm_batch", lambda: torch.cdist(r(2, 30, 4), r(5, 4)))
case("cdist_mm_mode", lambda: torch.cdist(r(3, 4), r(5, 4), compute_mode="use_mm_for_euclid_dist"))
case("cdist_no_mm", lambda: torch.cdist(r(30, 4), r(5, 4), compute_mode="donot_use_mm_for_euclid_dist"))
case("pdist", lambda: torch.pdist(r(4, 3)))
case("pdist_one_row", lambda: torch.pdist(r(1, 3)))
case("pdist_transposed", lambda: torch.pdist(r(3, 4).t(), 1))
# The 3-d convolutions: one ConvolutionBackward0, as the 1-d and 2-d ones.
case("conv3d", lambda: F.conv3d(r(1, 2, 4, 3, 3), r(3, 2, 2, 2, 2), r(3), stride=(2, 1, 1)))
case("conv3d_groups_nobias", lambda: F.conv3d(r(1, 4, 3, 3, 3), r(2, 2, 2, 1, 2), groups=2))
case("conv_transpose3d",
     lambda: F.conv_transpose3d(r(1, 2, 3, 2, 3), r(2, 3, 2, 2, 2), r(3), stride=2,
                                output_padding=1))
case("conv_transpose3d_groups_nobias",
     lambda: F.conv_transpose3d(r(1, 4, 2, 2, 2), r(4, 1, 2, 2, 2), groups=2, padding=1))
# embedding_bag: one EmbeddingBagBackward0 in every mode.
EB_IDX = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9])
EB_OFF = torch.tensor([0, 2, 2, 5])
case("embedding_bag_sum", lambda: F.embedding_bag(EB_IDX, r(10, 3), EB_OFF, mode="sum"))
case("embedding_bag_mean", lambda: F.embedding_bag(EB_IDX, r(10, 3), EB_OFF, padding_idx=4))
case("embedding_bag_max", lambda: F.embedding_bag(EB_IDX, r(10, 3), EB_OFF, mode="max"))
case("embedding_bag_2d", lambda: F.embedding_bag(EB_IDX.view(2, 4), r(10, 3), mode="max"))
case("embedding_bag_per_sample_weights",
     lambda: F.embedding_bag(EB_IDX, r(10, 3), EB_OFF, mode="sum", per_sample_weights=r(8)))

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "nn",
                    "functional", "testdata", "grad_fn_names_golden.inc")
with open(path, "w") as f:
    f.write("// Generated by tools/golden/grad_fn_names.py with PyTorch %s. Do not edit.\n"
            % torch.__version__)
    f.write("// {case, grad_fn chain: the result's node <- its first input's <- ...}\n")
    for name, c in CASES:
        f.write('  {"%s", "%s"},\n' % (name, c))
print("wrote", os.path.normpath(path), len(CASES), "cases")
