#!/usr/bin/python3
"""What libtorch 1.13's ATen binary_cross_entropy and
binary_cross_entropy_with_logits return for the cases of
tensor/parity_test.cc's BceAten tests (Note [Binary cross entropy as 1.13
computes it] in tensor/loss.cc), and the gradients in
nn/functional/loss_test.cc's BceAten tests.
Run with Debian's PyTorch: /usr/bin/python3 tools/golden/bce_aten.py
The printed values are pasted into the tests."""
import torch

bce = torch._C._nn.binary_cross_entropy
bcel = torch.binary_cross_entropy_with_logits


def show(name, f):
    try:
        r = f()
        print(name, r.dtype, list(r.shape), r.stride(), repr(r.flatten().tolist()))
    except Exception as e:  # noqa: BLE001
        print(name, "error:", str(e).split("\n")[0])


x = torch.tensor([[0.3, 0.5, 0.9, 0.1]], dtype=torch.float64)
y = torch.tensor([[0.2], [0.7], [0.1], [0.4]], dtype=torch.float64)
show("squeezed pairs", lambda: bce(x, y, None, 0))
show("dtype mismatch", lambda: bce(x, y.float(), None, 0))
show("bfloat16", lambda: bce(x.bfloat16(), y.bfloat16(), None, 0))
show("int", lambda: bce(x.int(), x.int(), None, 0))
show("log(1 - x)", lambda: bce(torch.tensor([1e-9]), torch.zeros(1), None, 0))
show("scalar input", lambda: bce(torch.tensor(0.5, dtype=torch.float64), x, None, 0))
show("resized", lambda: bce(torch.tensor([0.25, 0.5, 0.75], dtype=torch.float64),
                            torch.tensor([[0.0] * 3, [1.0] * 3], dtype=torch.float64), None, 0))
show("transposed", lambda: bce(torch.tensor([[0.2, 0.4], [0.6, 0.8]]).t(),
                               torch.full((2, 2), 0.5), None, 0))
show("weight too big", lambda: bce(x, x, torch.ones(3, 1, dtype=torch.float64), 0))
show("weight f32", lambda: bce(x, x, torch.tensor([0.5], dtype=torch.float32), 0))
show("input out of range", lambda: bce(x + 0.6, x, None, 0))

a = torch.tensor([[1.5, -2.0, 0.3]])
b = torch.tensor([[0.2], [0.7]])
show("logits input bigger", lambda: bcel(a, b, None, None, 0))
show("logits target bigger", lambda: bcel(b, a.sigmoid(), None, None, 0))
show("logits int target", lambda: bcel(a, torch.tensor([[1, 0, 1]], dtype=torch.int32), None, None, 0))
show("logits bool target", lambda: bcel(a, a > 0, None, None, 0))
show("logits int input", lambda: bcel(a.int(), a, None, None, 0))
show("logits bool input", lambda: bcel(a > 0, a, None, None, 0))
show("logits bf16 target", lambda: bcel(a, a.sigmoid().bfloat16(), None, None, 0))
show("logits f64 input", lambda: bcel(a.double(), a.sigmoid(), None, None, 0))
show("logits f32", lambda: bcel(a, a.sigmoid(), None, None, 0))
show("logits pos_weight f64", lambda: bcel(a, a.sigmoid(), None,
                                           torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64), 0))
show("logits pos_weight too big", lambda: bcel(a, a.sigmoid(), None, torch.ones(2, 1), 0))
show("logits weight too big", lambda: bcel(a, a.sigmoid(), torch.ones(2, 1), None, 0))

# gradients (float64)
xi = torch.tensor([0.0, 0.25, 1.0, 0.5], dtype=torch.float64, requires_grad=True)
ti = torch.tensor([0.0, 0.5, 1.0, 0.25], dtype=torch.float64, requires_grad=True)
gx, gt = torch.autograd.grad(bce(xi, ti, None, 1), (xi, ti))
print("grad bce mean", gx.tolist(), gt.tolist())
xi2 = torch.tensor([[0.3, 0.5, 0.9, 0.1]], dtype=torch.float64, requires_grad=True)
(gx2,) = torch.autograd.grad(bce(xi2, y, None, 2), (xi2,))
print("grad bce squeezed pairs", gx2.tolist())
