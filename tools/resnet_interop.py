#!/usr/bin/python3
"""A real torchvision state_dict loaded into ember's models::ResNet, by hand
(the files are 45-230 MB: too big to commit; models/resnet_test.cc checks the
same with deterministic weights and the committed key lists).

  /usr/bin/python3 tools/resnet_interop.py make DIR [ARCH ...]
      for each ARCH (default resnet18 resnet50): torch.manual_seed(0),
      torchvision.models.ARCH() with 1000 classes, its BatchNorms' weights,
      biases and running statistics randomized (fresh ones would make eval
      mode's normalization nearly the identity), saved as torchvision's
      checkpoints are, torch.save(model.state_dict(), "DIR/ARCH.pth"); and
      DIR/ARCH_io.safetensors holding "input" (2 random 3x224x224 images)
      and "logits" (the model's in eval mode).

  bazel-bin/models/resnet_load_check --arch=ARCH --weights=DIR/ARCH.pth \\
      --io=DIR/ARCH_io.safetensors
      loads the .pth with strict=true, runs the input in eval mode and
      prints the largest difference from torchvision's logits; it exits 1
      when it is above 1e-4 times max(1, the largest logit) (random deep
      ResNets reach logits in the hundreds). Seen on this machine:
      resnet18 4e-6 (logits up to ~6), resnet50 2.7e-4 of logits up to
      ~300 (9e-7 relative). Without --io it prints the top-5 classes of a
      constant 0.5 image, which a pretrained checkpoint
      (torchvision's resnet50-11ad3fa6.pth...) gives in Python as
      model.eval()(torch.full((1, 3, 224, 224), 0.5)).topk(5).

Run with /usr/bin/python3 (Debian's torch 1.13, python3-torchvision 0.14).
"""
import os
import sys

import torch
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from safetensors_interop import write as write_safetensors  # noqa: E402


def make(folder, archs):
    os.makedirs(folder, exist_ok=True)
    for arch in archs:
        torch.manual_seed(0)
        model = getattr(torchvision.models, arch)()
        with torch.no_grad():
            for m in model.modules():
                if isinstance(m, torch.nn.BatchNorm2d):
                    m.weight.copy_(1 + 0.2 * torch.randn_like(m.weight))
                    m.bias.copy_(0.1 * torch.randn_like(m.bias))
                    m.running_mean.copy_(0.1 * torch.randn_like(m.running_mean))
                    m.running_var.copy_(0.5 + torch.rand_like(m.running_var))
        path = os.path.join(folder, arch + ".pth")
        torch.save(model.state_dict(), path)
        x = torch.randn(2, 3, 224, 224)
        model.eval()
        with torch.no_grad():
            logits = model(x)
        write_safetensors(os.path.join(folder, arch + "_io.safetensors"),
                          {"input": x, "logits": logits}, {})
        print("wrote %s (%d bytes); logits[0, :4] = %s" % (
            path, os.path.getsize(path), logits[0, :4].tolist()))


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] != "make":
        sys.exit(__doc__)
    make(sys.argv[2], sys.argv[3:] or ["resnet18", "resnet50"])
