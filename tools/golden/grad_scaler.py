"""Golden sequences for ember::amp::GradScaler (amp/grad_scaler_test.cc).

PyTorch 1.13's CPU has no _amp_update_scale_ kernel, so this runs where a
PyTorch with CUDA is (the device tool's GPU machines have PyTorch 2.x):

  python3 tools/golden/grad_scaler.py     # writes amp/testdata/grad_scaler_golden.inc

Each scenario trains w (two float32 numbers) with SGD(lr=0.1) on
loss = (w * x).sum(), x = [0.5, 0.25] except that some steps put inf, -inf
or NaN into x[0] (so into w's gradient), and records after each
scaler.update(): the scale, the growth tracker and w.
"""

import math
import sys

import torch

from golden_util import write_inc, cpp_double

INJECT = {0: None, 1: math.inf, 2: -math.inf, 3: math.nan}

# name: (GradScaler kwargs, clip max_norm or None, per-step injection codes)
SCENARIOS = {
    # Growth every 3 clean steps, backoff on each bad one.
    "grow_and_back_off": (dict(init_scale=1024.0, growth_factor=2.0, backoff_factor=0.5,
                               growth_interval=3),
                          None, [0, 0, 1, 0, 0, 0, 1, 2, 0, 3, 0, 0, 0, 0]),
    # PyTorch's defaults, unscale_ then clip_grad_norm_ before step.
    "defaults_with_clipping": (dict(), 0.1, [0, 1, 0, 0]),
    # A growth that would overflow float32 keeps the scale.
    "growth_overflow": (dict(init_scale=2.0 ** 127, growth_factor=2.0, growth_interval=1),
                        None, [0, 0, 1, 0]),
    # Odd factors.
    "odd_factors": (dict(init_scale=3.0, growth_factor=3.0, backoff_factor=0.25,
                         growth_interval=2), None, [0, 0, 0, 3, 0, 0, 1, 1, 0, 0]),
}


def main():
    if torch.cuda.is_available():
        dev = "cuda"
    else:
        dev = "cpu"
        try:
            torch.amp.GradScaler("cpu")
        except Exception:  # PyTorch < 2.3
            sys.exit("needs CUDA or a PyTorch whose GradScaler runs on the CPU")
    lines = []
    for name, (kwargs, clip, injections) in SCENARIOS.items():
        w = torch.tensor([1.0, -2.0], device=dev, requires_grad=True)
        opt = torch.optim.SGD([w], lr=0.1)
        scaler = torch.amp.GradScaler(dev, **kwargs)
        for step, code in enumerate(injections):
            x = torch.tensor([0.5, 0.25], device=dev)
            if INJECT[code] is not None:
                x[0] = INJECT[code]
            opt.zero_grad()
            scaler.scale((w * x).sum()).backward()
            if clip is not None:
                scaler.unscale_(opt)
                torch.nn.utils.clip_grad_norm_([w], clip)
            scaler.step(opt)
            scaler.update()
            vals = ", ".join(cpp_double(v) for v in w.detach().cpu().tolist())
            lines.append('  {"%s", %d, %d, %s, %d, {%s}},' % (
                name, step, code, cpp_double(scaler.get_scale()),
                scaler._get_growth_tracker(), vals))
        sd = scaler.state_dict()
        assert sorted(sd) == sorted(["scale", "growth_factor", "backoff_factor",
                                     "growth_interval", "_growth_tracker"]), sd
    write_inc("grad_scaler_golden.inc", "grad_scaler",
              "{scenario, step, injected (0 none, 1 inf, 2 -inf, 3 nan), scale after update(), "
              "growth tracker after update(), w after the step}", lines, "steps", "amp")


if __name__ == "__main__":
    main()
