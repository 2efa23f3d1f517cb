#!/usr/bin/python3
"""What PyTorch 1.13 gives for the cases `sweep --nn` (tools/parity) found,
for nn/functional/nn_sweep_cases_test.cc: F.normalize and F.one_hot (ember
had neither), F.prelu of a 0-dim input, smooth_l1_loss with beta, and
nll_loss / cross_entropy in bfloat16: outputs and the gradients of
sum(out * mk(out.shape, seed=7)) (op_case), then the errors.
Run with Debian's PyTorch: /usr/bin/python3 tools/golden/nn_sweep_cases.py"""
import torch
import torch.nn.functional as F

from golden_util import ErrorWriter, GoldenWriter, mk


def main():
    w = GoldenWriter("nn_sweep_cases", "nn/functional")
    x = mk([2, 3, 4], torch.float64) * 0.5 - 1.25
    w.op_case("normalize", lambda a: F.normalize(a), [x])
    w.op_case("normalize_p1_last", lambda a: F.normalize(a, p=1, dim=-1), [x])
    w.op_case("normalize_p3_dim0_eps", lambda a: F.normalize(a, p=3, dim=0, eps=0.5), [x])
    w.op_case("normalize_p1.5", lambda a: F.normalize(a, p=1.5, dim=1), [x])
    # 1.13's norm kernel holds p as a float (float64 norm(x, 0.9) is
    # sum(|x|^0.9f)^(1/0.9f)), while norm's derivative uses the double p.
    w.op_case("normalize_p0.9", lambda a: F.normalize(a, p=0.9, dim=1), [x])
    w.op_case("normalize_p2.7_dim0", lambda a: F.normalize(a, p=2.7, dim=0, eps=0.1), [x])
    w.op_case("normalize_p0.3_last", lambda a: F.normalize(a, p=0.3, dim=-1), [x])
    w.op_case("normalize_inf", lambda a: F.normalize(a, p=float("inf"), dim=2), [x])
    w.op_case("normalize_zeros", lambda a: F.normalize(a * 0), [x])
    w.op_case("normalize_1d", lambda a: F.normalize(a, dim=0), [x[0, 0]])
    w.op_case("normalize_transposed", lambda a: F.normalize(a.transpose(0, 2), dim=1), [x])

    w.add("one_hot/default", F.one_hot(torch.tensor([0, 2, 1, 2])))
    w.add("one_hot/4", F.one_hot(torch.tensor([[0, 2], [1, 1]]), 4))
    w.add("one_hot/0dim", F.one_hot(torch.tensor(2), 4))
    w.add("one_hot/stepped", F.one_hot(torch.tensor([3, 0, 2, 1, 1, 0])[::2]))
    w.add("one_hot/empty", F.one_hot(torch.tensor([], dtype=torch.long), 3))

    w.op_case("prelu_0dim", lambda a, k: F.prelu(a, k), [x[0, 0, 1], torch.tensor([0.25])],
              grads=(0, 1))
    w.op_case("prelu_0dim_0dim_weight", lambda a, k: F.prelu(a, k),
              [x[0, 0, 2], torch.tensor(0.25)], grads=(0, 1))
    t = mk([2, 3, 4], torch.float64, 3) * 0.25
    for beta in (0.5, 0.0, 2.0):
        w.op_case("smooth_l1_beta%s" % beta,
                  lambda a, b, beta=beta: F.smooth_l1_loss(a, b, beta=beta, reduction="sum"),
                  [x, t], grads=(0, 1))

    # huber_loss is one node (HuberLossBackward0): finite gradients for an
    # infinite difference.
    for red in ("mean", "sum", "none"):
        w.op_case("huber_%s" % red, lambda a, b, red=red: F.huber_loss(a, b, reduction=red, delta=0.75),
                  [x, t], grads=(0, 1))
    hx = torch.tensor([float("inf"), 1.0, -float("inf"), 0.25], requires_grad=True)
    F.huber_loss(hx, torch.tensor([0.0, 0.5, 1.0, 0.0]), delta=1.25).backward()
    w.add("huber_inf_grad", hx.grad)

    # bfloat16 nll_loss and cross_entropy (1.13 computes them on the CPU).
    # nll_loss reads its inputs as given (exact); cross_entropy's
    # log_softmax rounds each bfloat16 step in 1.13 (the test allows 1e-2).
    logp = (mk([3, 5], torch.float64) * 0.5 - 2).to(torch.bfloat16)
    logits = (mk([3, 5], torch.float64) * 0.5 - 1).to(torch.bfloat16)
    target = torch.tensor([1, 4, 0])
    wt = torch.tensor([0.5, 1.0, 2.0, 1.5, 0.25], dtype=torch.bfloat16)
    for red in ("mean", "sum", "none"):
        w.add("bf16/nll/%s" % red, F.nll_loss(logp, target, reduction=red))
        w.add("bf16/nll_weight/%s" % red, F.nll_loss(logp, target, weight=wt, reduction=red))
        w.add("bf16/ce/%s" % red, F.cross_entropy(logits, target, reduction=red))
        w.add("bf16/ce_smooth/%s" % red,
              F.cross_entropy(logits, target, weight=wt, reduction=red, label_smoothing=0.1))
    w.add("bf16/nll_ignore", F.nll_loss(logp, target, ignore_index=4))
    img = (mk([2, 3, 2, 2], torch.float64) * 0.5 - 2).to(torch.bfloat16)
    w.add("bf16/nll2d", F.nll_loss(img, torch.tensor([[[0, 2], [1, 1]]] * 2)))
    lp = logp.clone().requires_grad_()
    F.nll_loss(lp, target, weight=wt).backward()
    w.add("bf16/nll_grad", lp.grad)
    lg = logits.clone().requires_grad_()
    F.cross_entropy(lg, target).backward()
    w.add("bf16/ce_grad", lg.grad)
    w.write()

    e = ErrorWriter("nn_sweep_cases", first_line=True, package="nn/functional")
    e.err("one_hot_float", lambda: F.one_hot(torch.tensor([0.0, 1.0])))
    e.err("one_hot_int", lambda: F.one_hot(torch.tensor([0, 1], dtype=torch.int32)))
    e.err("one_hot_negative", lambda: F.one_hot(torch.tensor([0, -1])))
    e.err("one_hot_too_large", lambda: F.one_hot(torch.tensor([0, 3]), 3))
    e.err("one_hot_zero_classes", lambda: F.one_hot(torch.tensor([0, 1]), 0))
    e.err("one_hot_empty_infer", lambda: F.one_hot(torch.tensor([], dtype=torch.long)))
    e.err("one_hot_empty_zero", lambda: F.one_hot(torch.tensor([], dtype=torch.long), 0))
    e.err("normalize_long", lambda: F.normalize(torch.tensor([1, 2])))
    e.err("normalize_dim", lambda: F.normalize(torch.tensor([3.0, 4.0])))
    e.err("prelu_0dim_weights", lambda: F.prelu(torch.tensor(1.5), torch.tensor([0.25, 0.5])))
    e.err("prelu_channels", lambda: F.prelu(torch.ones(2, 4), torch.tensor([0.25, 0.5, 1.0])))
    # MultiMarginLossBackward0 has no derivative for the weight.
    e.err("multi_margin_weight_requires_grad",
          lambda: F.multi_margin_loss(torch.ones(2, 3), torch.tensor([0, 1]),
                                      weight=torch.ones(3, requires_grad=True)))
    # _pad_circular copying between overlapping parts of its result.
    e.err("pad_circular_overlap",
          lambda: F.pad(torch.arange(3.0).view(1, 1, 3), (3, -2), mode="circular"))
    e.write()


if __name__ == "__main__":
    main()
