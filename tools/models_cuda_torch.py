"""PyTorch twin of benchmarks/models_cuda.cc: GPT-2 small (transformers'
GPT2LMHeadModel, SDPA attention, dropout 0) and torchvision's ResNet-50
training steps, eager, float32 and autocast bfloat16, timed the same way
(median of synchronized steps after 3 warm-ups), the same output lines.

    python3 tools/models_cuda_torch.py [--iters=N] [--only=gpt|resnet] [--gpt_batch=B] [--profile]

--profile runs each bf16 step once more inside torch.cuda.profiler's range,
for `ncu --profile-from-start off`, as the C++ side does.
"""
import sys

import torch
import torch.nn.functional as F

from cuda_ops_torch import median_us  # tools/, beside this file


def median_ms(iters, f):
    return median_us(iters, f) / 1e3


PROFILE = False


def time_steps(iters, name, items, unit, step):
    for amp in (False, True):
        ms = median_ms(iters, lambda: step(amp))
        print(f"{name}_{'bf16' if amp else 'fp32'} {ms:9.2f} ms {items / (ms / 1e3):10.1f} {unit}",
              flush=True)
    if PROFILE:
        torch.cuda.synchronize()
        torch.cuda.profiler.start()
        step(True)
        torch.cuda.synchronize()
        torch.cuda.profiler.stop()


def run_gpt(iters, batch):
    from transformers import GPT2Config, GPT2LMHeadModel
    torch.manual_seed(0)
    cfg = GPT2Config(resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
    cfg._attn_implementation = "sdpa"  # transformers' default where SDPA exists
    model = GPT2LMHeadModel(cfg).cuda().train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)  # PyTorch's default: foreach on CUDA
    ids = torch.randint(0, 50257, (batch, 1024), device="cuda")

    def step(amp):
        opt.zero_grad()
        with torch.autocast("cuda", torch.bfloat16, enabled=amp):
            loss = model(ids, labels=ids).loss
        loss.backward()
        opt.step()
    time_steps(iters, f"gpt2_small_b{batch}_ctx1024", batch * 1024, "tokens/s", step)


def run_resnet(iters):
    import torchvision
    torch.manual_seed(0)
    net = torchvision.models.resnet50().cuda().train()
    opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    x = torch.randn(128, 3, 224, 224, device="cuda")
    y = torch.randint(0, 1000, (128,), device="cuda")

    def step(amp):
        opt.zero_grad()
        with torch.autocast("cuda", torch.bfloat16, enabled=amp):
            loss = F.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
    time_steps(iters, "resnet50_b128_224", 128, "images/s", step)


def main():
    global PROFILE
    iters, only, batch = 10, "", 8
    PROFILE = "--profile" in sys.argv[1:]
    for a in sys.argv[1:]:
        if a.startswith("--iters="):
            iters = int(a.split("=", 1)[1])
        if a.startswith("--only="):
            only = a.split("=", 1)[1]
        if a.startswith("--gpt_batch="):
            batch = int(a.split("=", 1)[1])
    if not torch.cuda.is_available():
        print("no usable CUDA device: nothing to measure")
        return
    # PyTorch's defaults, as ember's: TF32 off for matmuls, on for cuDNN.
    if only in ("", "gpt"):
        run_gpt(iters, batch)
    if only in ("", "resnet"):
        run_resnet(iters)


if __name__ == "__main__":
    main()
