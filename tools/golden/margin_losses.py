#!/usr/bin/python3
"""The margin losses PyTorch 1.13 has and ember lacked (issue 19's "rest of
torch.nn"): hinge_embedding_loss, soft_margin_loss,
multilabel_soft_margin_loss, multi_margin_loss, multilabel_margin_loss and
triplet_margin_with_distance_loss, for nn/functional/margin_loss_test.cc:
inputs, outputs and input gradients in float32 and float64 (op_case), for
each reduction. Run with Debian's PyTorch:
/usr/bin/python3 tools/golden/margin_losses.py"""
import torch
import torch.nn.functional as F

from golden_util import GoldenWriter, mk


def main():
    w = GoldenWriter("margin_losses", "nn/functional")
    x = mk([4, 5], torch.float64) * 0.3 - 0.8
    sign = torch.tensor([[1, -1, 1, 1, -1], [-1, -1, 1, -1, 1], [1, 1, 1, -1, -1],
                         [-1, 1, -1, 1, 1]], dtype=torch.float64)
    multi = (mk([4, 5], torch.float64) > 4).to(torch.float64)
    cls = torch.tensor([2, 0, 4, 1])
    labels = torch.tensor([[3, 0, -1, 1, 2], [1, 2, 3, 4, 0], [-1, 1, 2, 0, 0],
                           [4, 4, -1, 0, 0]])
    weight = torch.tensor([0.5, 1.0, 2.0, 1.5, 0.25], dtype=torch.float64)
    a, p, n = (mk([3, 4], torch.float64, s) * 0.25 - 0.5 for s in (0, 3, 6))
    for r in ("none", "mean", "sum"):
        w.op_case("hinge_%s" % r, lambda x, t, r=r: F.hinge_embedding_loss(x, t, 0.7, reduction=r),
                  [x, sign])
        w.op_case("soft_margin_%s" % r, lambda x, t, r=r: F.soft_margin_loss(x, t, reduction=r),
                  [x, sign])
        w.op_case("multilabel_soft_margin_%s" % r,
                  lambda x, t, r=r: F.multilabel_soft_margin_loss(x, t, reduction=r), [x, multi])
        w.op_case("multi_margin_%s" % r,
                  lambda x, t, r=r: F.multi_margin_loss(x, t, reduction=r), [x, cls])
        w.op_case("multilabel_margin_%s" % r,
                  lambda x, t, r=r: F.multilabel_margin_loss(x, t, reduction=r), [x, labels])
        w.op_case("triplet_distance_%s" % r,
                  lambda a, p, n, r=r: F.triplet_margin_with_distance_loss(a, p, n, reduction=r),
                  [a, p, n], grads=(0, 1, 2))
    w.op_case("multilabel_soft_margin_weight",
              lambda x, t, wt: F.multilabel_soft_margin_loss(x, t, weight=wt), [x, multi, weight])
    w.op_case("multi_margin_p2_weight",
              lambda x, t, wt: F.multi_margin_loss(x, t, p=2, margin=0.6, weight=wt),
              [x, cls, weight])
    w.op_case("multi_margin_1d", lambda x, t: F.multi_margin_loss(x, t, reduction="none"),
              [x[1], cls[1]])
    w.op_case("multilabel_margin_1d",
              lambda x, t: F.multilabel_margin_loss(x, t, reduction="none"), [x[0], labels[0]])
    w.op_case("triplet_distance_cosine_swap",
              lambda a, p, n: F.triplet_margin_with_distance_loss(
                  a, p, n, distance_function=lambda u, v: 1 - F.cosine_similarity(u, v),
                  margin=0.5, swap=True),
              [a, p, n], grads=(0, 1, 2))
    w.write()


if __name__ == "__main__":
    main()
