"""PyTorch twin of benchmarks/cuda_ops.cc: the same cases, timed the same way
(median of synchronized calls after 3 warm-ups), the same output lines, the
same families in the same order (adamw_step_fused is PyTorch's alone).

    python3 tools/cuda_ops_torch.py [--iters=N] [--only=FAMILY[,FAMILY...]]
                                    [--lenet_only | --mm_only | --mlp_only]

Families: mm_tensor_core, optimizer, mlp_stack, basic_ops, lenet, embedding,
gather_scatter, sort, nonzero, random, avg_pool; --only runs those whose name
contains one of the substrings given.
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


BUDGET_S = 2.0  # as cuda_ops_native.cc's kBudgetS


def median_us_within(iters, f, budget_s=BUDGET_S):
    """median_us, the timed calls stopping once they took budget_s seconds
    (after at least 5): cuda_timing.h's median_us_within."""
    for _ in range(3):
        f()
    torch.cuda.synchronize()
    t = []
    spent = 0.0
    i = 0
    while i < iters and (i < 5 or spent < budget_s * 1e6):
        t0 = time.perf_counter()
        f()
        torch.cuda.synchronize()
        t.append((time.perf_counter() - t0) * 1e6)
        spent += t[-1]
        i += 1
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


def mm_tensor_core(iters, dev):
    for name, dtype, tf32 in (("bf16", torch.bfloat16, False), ("fp16", torch.float16, False),
                              ("tf32", torch.float32, True)):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        for m in (4096, 8192):
            x = torch.randn(m, m, device=dev).to(dtype)
            y = torch.randn(m, m, device=dev).to(dtype)
            us = median_us(iters, lambda: x.mm(y))
            print("mm_%s_%-10d %10.1f  %.1f TFLOP/s" % (name, m, us, 2.0 * m * m * m / us / 1e6))
    torch.backends.cuda.matmul.allow_tf32 = False


def optimizer(iters, dev):
    params = []
    for _ in range(12):
        for sizes in ((768,), (768,), (3072, 768), (3072,), (768, 3072), (768,)):
            p = torch.randn(*sizes, device=dev, requires_grad=True)
            p.grad = torch.randn(*sizes, device=dev)
            params.append(p)
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


def mlp_stack(iters, dev):
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
        us = median_us(iters, mlp_step)
        print("mlp_stack_step_%-7s %8.1f" % ("bf16" if amp else "fp32", us))

    def under_amp(name, f):
        def run():
            mlp_opt.zero_grad()
            with torch.autocast("cuda", torch.bfloat16):
                loss = f().float().pow(2).mean()
            loss.backward()
        print("mlp_bf16_%-14s %8.1f" % (name, median_us(iters, run)))

    xg = tokens.clone().requires_grad_()
    hidden = torch.randn(8, 1024, 3072, device=dev).bfloat16().requires_grad_()
    under_amp("fwd_bwd", lambda: stack(tokens))
    under_amp("layer_norm", lambda: stack[0].ln(xg))
    under_amp("fc1", lambda: stack[0].fc1(xg))
    under_amp("gelu", lambda: F.gelu(hidden))
    under_amp("fc2", lambda: stack[0].fc2(hidden))


def basic_ops(iters, dev):
    n = 1 << 24
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


def lenet(iters, dev):
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


# Issue 17's cases: benchmarks/cuda_ops_native.cc, whose header comment says
# what each GB/s figure counts.
def report_gbps(name, us, nbytes):
    print("%-38s %10.1f  %.1f GB/s" % (name, us, nbytes / us / 1e3))


def embedding(iters, dev):
    vocab, dim, n = 50257, 768, 8192
    weight = torch.randn(vocab, dim, device=dev)
    indices = torch.randint(0, vocab, (n,), device=dev)
    rows_bytes = 2.0 * n * dim * 4 + 8.0 * n
    us = median_us_within(iters, lambda: weight.index_select(0, indices))
    report_gbps("index_select_50257x768_8192", us, rows_bytes)
    w = weight.detach().requires_grad_()
    us = median_us_within(iters, lambda: F.embedding(indices, w))
    report_gbps("embedding_fwd_50257x768_8192", us, rows_bytes)
    out = F.embedding(indices, w)
    grad_out = torch.randn(n, dim, device=dev)
    us = median_us_within(iters, lambda: torch.autograd.grad(out, w, grad_out, retain_graph=True))
    report_gbps("embedding_bwd_50257x768_8192", us, 4.0 * vocab * dim + 4.0 * n * dim + 8.0 * n)


def gather_scatter(iters, dev):
    m = 4096
    n = float(m * m)
    src = torch.randn(m, m, device=dev)
    index = torch.randint(0, m, (m, m), device=dev)
    us = median_us_within(iters, lambda: src.gather(1, index))
    report_gbps("gather_4096x4096_dim1", us, n * (8 + 4 + 4))
    dst = torch.zeros(m, m, device=dev)
    us = median_us_within(iters, lambda: dst.scatter_add_(1, index, src))
    report_gbps("scatter_add_4096x4096_dim1", us, n * (8 + 4 + 8))


def sort(iters, dev):
    n = 1 << 24
    x = torch.rand(n, device=dev)

    def keys(name, us):
        print("%-38s %10.1f  %.2f Gkeys/s" % (name, us, n / us / 1e3))

    keys("sort_16M_float", median_us_within(iters, lambda: x.sort()))
    keys("sort_stable_16M_float", median_us_within(iters, lambda: x.sort(stable=True)))
    keys("argsort_16M_float", median_us_within(iters, lambda: x.argsort()))
    logits = torch.randn(4096, 1000, device=dev)
    nbytes = 4.0 * logits.numel()
    report_gbps("topk5_4096x1000", median_us_within(iters, lambda: logits.topk(5)), nbytes)
    report_gbps("kthvalue5_4096x1000", median_us_within(iters, lambda: logits.kthvalue(5)), nbytes)


def nonzero(iters, dev):
    n = 1 << 24
    x = torch.rand(n, device=dev)
    mask = x.gt(0.5)
    half_zero = x * mask
    selected = float(half_zero.nonzero().size(0))
    us = median_us_within(iters, lambda: half_zero.nonzero())
    report_gbps("nonzero_16M_float", us, 4.0 * n + 8.0 * selected)
    us = median_us_within(iters, lambda: x.masked_select(mask))
    report_gbps("masked_select_16M_float", us, 5.0 * n + 4.0 * selected)


def random(iters, dev):
    n = 64 << 20
    x = torch.randn(n, device=dev)
    us = median_us_within(iters, lambda: F.dropout(x, p=0.1, training=True))
    report_gbps("dropout_64M_float_p0.1", us, 9.0 * n)
    us = median_us_within(iters, lambda: torch.randn(n, device=dev))
    report_gbps("randn_64M_float", us, 4.0 * n)
    us = median_us_within(iters, lambda: torch.rand(n, device=dev))
    report_gbps("rand_64M_float", us, 4.0 * n)


def avg_pool(iters, dev):
    def fwd_bwd(fwd_name, bwd_name, x, pool):
        out = pool(x)
        nbytes = 4.0 * (x.numel() + out.numel())
        report_gbps(fwd_name, median_us_within(iters, lambda: pool(x)), nbytes)
        grad_out = torch.randn(out.shape, device=dev)
        us = median_us_within(iters, lambda: torch.autograd.grad(out, x, grad_out,
                                                                 retain_graph=True))
        report_gbps(bwd_name, us, nbytes)

    fwd_bwd("avg_pool2d_64x64x112x112_k3s2p1_fwd", "avg_pool2d_64x64x112x112_k3s2p1_bwd",
            torch.randn(64, 64, 112, 112, device=dev, requires_grad=True),
            lambda t: F.avg_pool2d(t, 3, stride=2, padding=1))
    fwd_bwd("adaptive_avg_pool2d_64x2048x7x7_fwd", "adaptive_avg_pool2d_64x2048x7x7_bwd",
            torch.randn(64, 2048, 7, 7, device=dev, requires_grad=True),
            lambda t: F.adaptive_avg_pool2d(t, 1))


def main():
    iters = 50
    only = ""
    for a in sys.argv[1:]:
        if a.startswith("--iters="):
            iters = int(a.split("=", 1)[1])
        if a.startswith("--only="):
            only = a.split("=", 1)[1]
        # The older spellings of one family.
        if a == "--lenet_only":
            only = "lenet"
        if a == "--mm_only":
            only = "mm_tensor_core"
        if a == "--mlp_only":
            only = "mlp_stack"
    iters = max(iters, 1)
    quarter = max(iters // 4, 1)  # the MLP stack's steps are long
    families = [("mm_tensor_core", iters, mm_tensor_core), ("optimizer", iters, optimizer),
                ("mlp_stack", quarter, mlp_stack), ("basic_ops", iters, basic_ops),
                ("lenet", iters, lenet), ("embedding", iters, embedding),
                ("gather_scatter", iters, gather_scatter), ("sort", iters, sort),
                ("nonzero", iters, nonzero), ("random", iters, random),
                ("avg_pool", iters, avg_pool)]
    parts = [p for p in only.split(",") if p]

    def wanted(name):
        return not only or any(p in name for p in parts)

    if not any(wanted(name) for name, _, _ in families):
        sys.stderr.write("--only=%s names no family; the families: %s\n" %
                         (only, " ".join(name for name, _, _ in families)))
        sys.exit(2)
    if not torch.cuda.is_available():
        print("no usable CUDA device: nothing to measure")
        return
    torch.backends.cuda.matmul.allow_tf32 = False  # as ember's cuBLAS calls
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device("cuda")
    torch.manual_seed(0)
    for name, n, run in families:
        if wanted(name):
            run(n, dev)


if __name__ == "__main__":
    main()
