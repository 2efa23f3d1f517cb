"""PyTorch twin of benchmarks/cuda_ops.cc: the same cases, timed the same way
(median of synchronized calls after 3 warm-ups), the same output lines.

    python3 tools/cuda_ops_torch.py [--iters=N] [--lenet_only | --mm_only | --mlp_only]
"""
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


def median_us(iters, f):
    for _ in range(3):
        f()
    torch.cuda.synchronize()
    t = []
    for _ in range(iters):
        t0 = time.perf_counter()
        f()
        torch.cuda.synchronize()
        t.append((time.perf_counter() - t0) * 1e6)
    t.sort()
    return t[len(t) // 2]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 20, 5)
        self.conv2 = nn.Conv2d(20, 50, 5)
        self.fc1 = nn.Linear(800, 500)
        self.fc2 = nn.Linear(500, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = F.relu(self.fc1(x.view(-1, 800)))
        return self.fc2(x)


def main():
    iters = 50
    for a in sys.argv[1:]:
        if a.startswith("--iters="):
            iters = int(a.split("=", 1)[1])
    if not torch.cuda.is_available():
        print("no usable CUDA device: nothing to measure")
        return
    torch.backends.cuda.matmul.allow_tf32 = False  # as ember's cuBLAS calls
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device("cuda")
    torch.manual_seed(0)
    lenet_only = "--lenet_only" in sys.argv[1:]
    mlp_only = "--mlp_only" in sys.argv[1:]
    if not lenet_only and not mlp_only:
        # Tensor cores, as ember's run_tensor_core_mm.
        for name, dtype, tf32 in (("bf16", torch.bfloat16, False), ("fp16", torch.float16, False),
                                  ("tf32", torch.float32, True)):
            torch.backends.cuda.matmul.allow_tf32 = tf32
            for m in (4096, 8192):
                x = torch.randn(m, m, device=dev).to(dtype)
                y = torch.randn(m, m, device=dev).to(dtype)
                us = median_us(iters, lambda: x.mm(y))
                print("mm_%s_%-10d %10.1f  %.1f TFLOP/s" % (name, m, us, 2.0 * m * m * m / us / 1e6))
        torch.backends.cuda.matmul.allow_tf32 = False
    if "--mm_only" in sys.argv[1:]:
        return
    if not lenet_only:
        # As ember's run_optimizer_steps.
        params = []
        for _ in range(12):
            for sizes in ((768,), (768,), (3072, 768), (3072,), (768, 3072), (768,)):
                p = torch.randn(*sizes, device=dev, requires_grad=True)
                p.grad = torch.randn(*sizes, device=dev)
                params.append(p)
        # As ember's run_mlp_stack.
        class Block(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.ln = torch.nn.LayerNorm(768)
                self.fc1 = torch.nn.Linear(768, 3072)
                self.fc2 = torch.nn.Linear(3072, 768)

            def forward(self, x):
                return x + self.fc2(F.gelu(self.fc1(self.ln(x))))

        stack = torch.nn.Sequential(*[Block() for _ in range(12)]).to(dev)
        mlp_opt = torch.optim.AdamW(stack.parameters(), lr=1e-4, foreach=True)
        tokens = torch.randn(8, 1024, 768, device=dev)
        for amp in (False, True):
            def mlp_step():
                mlp_opt.zero_grad()
                with torch.autocast("cuda", torch.bfloat16, enabled=amp):
                    loss = stack(tokens).float().pow(2).mean()
                loss.backward()
                mlp_opt.step()
            us = median_us(max(iters // 4, 1), mlp_step)
            print("mlp_stack_step_%-7s %8.1f" % ("bf16" if amp else "fp32", us))

        def under_amp(name, f):
            def run():
                mlp_opt.zero_grad()
                with torch.autocast("cuda", torch.bfloat16):
                    loss = f().float().pow(2).mean()
                loss.backward()
            print("mlp_bf16_%-14s %8.1f" % (name, median_us(max(iters // 4, 1), run)))

        xg = tokens.clone().requires_grad_()
        hidden = torch.randn(8, 1024, 3072, device=dev).bfloat16().requires_grad_()
        under_amp("fwd_bwd", lambda: stack(tokens))
        under_amp("layer_norm", lambda: stack[0].ln(xg))
        under_amp("fc1", lambda: stack[0].fc1(xg))
        under_amp("gelu", lambda: F.gelu(hidden))
        under_amp("fc2", lambda: stack[0].fc2(hidden))
        if mlp_only:
            return
        for name, opt in (
                ("adamw_step_per_param", torch.optim.AdamW(params, lr=1e-4, foreach=False)),
                ("adamw_step_foreach", torch.optim.AdamW(params, lr=1e-4, foreach=True)),
                ("adamw_step_fused", torch.optim.AdamW(params, lr=1e-4, fused=True)),
                ("sgd_step_per_param", torch.optim.SGD(params, lr=1e-4, momentum=0.9,
                                                       foreach=False)),
                ("sgd_step_foreach", torch.optim.SGD(params, lr=1e-4, momentum=0.9,
                                                     foreach=True))):
            us = median_us(iters, opt.step)
            print("%-22s %8.1f" % (name, us))
    n = 1 << 24
    if not lenet_only:
        a, b = torch.rand(n, device=dev), torch.rand(n, device=dev)
        us = median_us(iters, lambda: a + b)
        print("add_16M_float      %10.1f  %.1f GB/s" % (us, 3.0 * n * 4 / us / 1e3))
        us = median_us(iters, lambda: a.sum())
        print("sum_16M_float      %10.1f  %.1f GB/s" % (us, 1.0 * n * 4 / us / 1e3))
        for m in (1024, 4096):
            x, y = torch.randn(m, m, device=dev), torch.randn(m, m, device=dev)
            us = median_us(iters, lambda: x.mm(y))
            print("mm_%-15d %10.1f  %.1f TFLOP/s" % (m, us, 2.0 * m * m * m / us / 1e6))
        logits = torch.randn(4096, 1000, device=dev)
        us = median_us(iters, lambda: F.log_softmax(logits, 1))
        print("log_softmax_4096x1000 %7.1f" % us)
    net = Net().to(dev)
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    for batch in (64, 512):
        images = torch.randn(batch, 1, 28, 28, device=dev)
        labels = torch.randint(0, 10, (batch,), device=dev)

        def forward():
            F.cross_entropy(net(images), labels)

        def fwd_bwd():
            opt.zero_grad()
            F.cross_entropy(net(images), labels).backward()

        def step():
            opt.zero_grad()
            loss = F.cross_entropy(net(images), labels)
            loss.backward()
            opt.step()

        if batch == 64:
            print("lenet_forward_b64    %8.1f" % median_us(iters, forward))
            print("lenet_fwd_bwd_b64    %8.1f" % median_us(iters, fwd_bwd))
        print("lenet_train_step_b%-3d %7.1f" % (batch, median_us(iters, step)))

    def layer(name, x, f):
        def run():
            net.zero_grad()
            f(x).sum().backward()
        print("b512_%-15s %8.1f" % (name, median_us(iters, run)))

    def grad_input(*sizes):
        return torch.randn(*sizes, device=dev).requires_grad_()

    layer("conv1", torch.randn(512, 1, 28, 28, device=dev), net.conv1)
    layer("relu_pool1", grad_input(512, 20, 24, 24), lambda x: F.max_pool2d(F.relu(x), 2))
    layer("conv2", grad_input(512, 20, 12, 12), net.conv2)
    layer("relu_pool2", grad_input(512, 50, 8, 8), lambda x: F.max_pool2d(F.relu(x), 2))
    layer("fc1_relu", grad_input(512, 800), lambda x: F.relu(net.fc1(x)))
    labels512 = torch.randint(0, 10, (512,), device=dev)
    layer("fc2_loss", grad_input(512, 500), lambda x: F.cross_entropy(net.fc2(x), labels512))
    print("b512_%-15s %8.1f" % ("sgd_step", median_us(iters, opt.step)))


if __name__ == "__main__":
    main()
