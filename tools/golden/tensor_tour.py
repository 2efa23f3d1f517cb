#!/usr/bin/python3
"""The Python original of examples/tensor_tour.cc.

Run with Debian's PyTorch (python3-torch, 1.13):
    /usr/bin/python3 tools/golden/tensor_tour.py > examples/tensor_tour.expected
examples:tensor_tour_test compares ember's output with this file.
"""
import torch


def shape(t):
    return "torch.Size([" + ", ".join(str(s) for s in t.shape) + "])"


def main():
    torch.manual_seed(0)
    print("== creation ==")
    x = torch.rand(4, 3)
    print(x)
    print(torch.zeros(4, 3, dtype=torch.long))
    print(torch.tensor(1.3))
    print(torch.tensor([2., 3.2]))
    print(torch.tensor([[2., 3.2], [1., 22.3]]))
    print(torch.ones(2, 2))
    print(torch.eye(3))
    print(torch.full([2, 2], 2))
    print(torch.arange(5))
    print(torch.arange(1, 4))
    print(torch.arange(1, 2.5, 0.5))
    print(torch.linspace(3, 10, steps=5))
    print(torch.linspace(-10, 10, steps=5))
    print(torch.linspace(-10, 10, steps=1))
    print(torch.logspace(0, 2, 3))
    print(torch.randperm(4).dim())
    q = torch.quantize_per_tensor(torch.tensor([-1.0, 0.0, 1.0, 2.0]), 0.1, 10, torch.quint8)
    print(q.int_repr())
    print(q.dequantize())

    print("== add ==")
    y = torch.rand(4, 3)
    print((x + y).equal(torch.add(x, y)))
    s = x + y
    y.add_(x)
    print(y.equal(s))

    print("== index and view ==")
    print(x[:, 1])
    r = torch.randn(5, 4)
    print(shape(r), shape(r.view(20)), shape(r.view(-1, 5)))
    print(torch.tensor([3.5]).item())

    print("== broadcasting ==")
    bx = torch.arange(1, 3).view(1, 2)
    by = torch.arange(1, 4).view(3, 1)
    print("x =", bx)
    print("y =", by)
    print("x + y =", bx + by)

    print("== shapes ==")
    print(shape(torch.rand(4, 1, 28, 28).unsqueeze(0)))
    a = torch.rand(4, 1, 1, 28)
    print(shape(a.squeeze()))
    print(shape(a.squeeze(1)))
    col = torch.tensor([[1], [2], [3]])
    print(col.expand(3, 4))
    print(col.expand(-1, 4))
    row = torch.tensor([1, 2, 3])
    print(shape(row.repeat(4, 2)))
    print(shape(row.repeat(4, 2, 1)))
    b = torch.rand(4, 3, 28, 32)
    print(shape(b.transpose(1, 3)))
    print(shape(b.permute(0, 2, 3, 1)))
    m = torch.randn(2, 3)
    n = torch.randn(2, 3)
    print(shape(torch.cat((m, n), 0)))
    print(shape(torch.stack((m, n), 0)))
    print(torch.cat((m, m, m), 1).dim())
    print(torch.chunk(torch.arange(7), 3, 0)[-1])

    print("== slicing ==")
    img = torch.rand(4, 3, 28, 28)
    print(shape(img[0, 0]))
    print(shape(img[:2]))
    print(shape(img[:2, :2, :, :]))
    print(shape(img[:2, -1:, :, :]))
    print(shape(img[...]))
    print(shape(img[0, ...]))
    print(shape(img[:, 1, ...]))
    print(shape(img[..., :2]))

    print("== masks ==")
    mx = torch.tensor([[0.4573, 0.8571], [0.7237, 0.0265]])
    mask = mx.gt(0.5)
    print(mask)
    print(mx[mx > 0.5])
    print(torch.masked_select(mx, mask))
    w = torch.where(mx > 0.5)
    print("(" + str(w[0]) + ", " + str(w[1]) + ")")
    print(torch.nonzero(mx > 0.5))

    print("== take and gather ==")
    src = torch.tensor([[4, 3, 5], [6, 7, 8]])
    print(torch.take(src, torch.tensor([0, 2, 5])))
    t = torch.tensor([[1, 2], [3, 4]])
    print(torch.gather(t, 1, torch.tensor([[0, 0], [1, 0]])))

    print("== math ==")
    print(torch.full([2, 2], 2).pow(2))
    print(torch.full([2, 2], 4).sqrt())
    v = torch.tensor([-1.5, -0.5, 0.5, 1.5, 2.7])
    print(v.floor(), v.ceil(), v.round())
    print(v.trunc(), v.frac())
    print(v.clamp(-1, 1))
    print(v.mean(), v.sum(), v.max(), v.argmax())
    mat = torch.arange(6.).view(2, 3)
    print(torch.mm(mat, mat.t()))
    print(torch.matmul(torch.arange(3.), mat.t()))
    print(shape(torch.matmul(torch.randn(10, 3, 4), torch.randn(4, 5))))


if __name__ == "__main__":
    main()
