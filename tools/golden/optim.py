"""Golden values for //optim (optim/optimizer_test.cc, optim/lr_scheduler_test.cc).

Each optimizer case is run by optim_cases.run: the same float64 start, 10
steps on one loss, then the parameters and the optimizer state.
The schedulers record get_last_lr() of two groups (lr 0.1 and 0.05) over
20 epochs. Run with /usr/bin/python3 (PyTorch 1.13).
"""

import torch

from golden_util import ErrorWriter, GoldenWriter
from optim_cases import run, schedule

torch.set_default_dtype(torch.float64)
golden = GoldenWriter("optim", package="optim")
errors = ErrorWriter("optim", package="optim")

O = torch.optim
CASES = {
    "sgd": lambda p: O.SGD(p, lr=0.1, foreach=False),
    "sgd_momentum": lambda p: O.SGD(p, lr=0.05, momentum=0.9, foreach=False),
    "sgd_dampening": lambda p: O.SGD(p, lr=0.05, momentum=0.9, dampening=0.3, weight_decay=0.1,
                                     foreach=False),
    "sgd_nesterov": lambda p: O.SGD(p, lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01,
                                    foreach=False),
    "sgd_maximize": lambda p: O.SGD(p, lr=0.01, momentum=0.5, maximize=True, foreach=False),
    "adam": lambda p: O.Adam(p, lr=0.05, foreach=False),
    "adam_wd_amsgrad": lambda p: O.Adam(p, lr=0.05, betas=(0.8, 0.9), weight_decay=0.1,
                                        amsgrad=True, foreach=False),
    "adam_maximize": lambda p: O.Adam(p, lr=0.01, eps=1e-3, maximize=True, foreach=False),
    "adamw": lambda p: O.AdamW(p, lr=0.05, foreach=False),
    "adamw_amsgrad": lambda p: O.AdamW(p, lr=0.05, weight_decay=0.1, amsgrad=True,
                                       foreach=False),
    "rmsprop": lambda p: O.RMSprop(p, lr=0.01, foreach=False),
    "rmsprop_momentum": lambda p: O.RMSprop(p, lr=0.01, momentum=0.9, foreach=False),
    "rmsprop_centered": lambda p: O.RMSprop(p, lr=0.01, alpha=0.9, momentum=0.5, centered=True,
                                            weight_decay=0.1, foreach=False),
    # Two groups: w with the defaults, b with its own lr and momentum.
    "sgd_groups": lambda p: O.SGD([{"params": [p[0]]},
                                   {"params": [p[1]], "lr": 0.01, "momentum": 0.5}],
                                  lr=0.1, momentum=0.9, foreach=False),
    "adam_groups": lambda p: O.Adam([{"params": [p[0]]}, {"params": [p[1]], "lr": 0.2}],
                                    lr=0.05, foreach=False),
}
for case_name, make_opt in CASES.items():
    run(golden, case_name, make_opt)


# --- schedulers --------------------------------------------------------------

S = torch.optim.lr_scheduler
schedule(golden, "step", lambda o: S.StepLR(o, step_size=3, gamma=0.5))
schedule(golden, "multistep", lambda o: S.MultiStepLR(o, milestones=[9, 2, 5, 5], gamma=0.3))
schedule(golden, "exponential", lambda o: S.ExponentialLR(o, gamma=0.9))
schedule(golden, "cosine", lambda o: S.CosineAnnealingLR(o, T_max=6, eta_min=0.001))
schedule(golden, "lambda",
         lambda o: S.LambdaLR(o, [lambda e: 0.95 ** e, lambda e: 1.0 / (e + 1)]))
# Resuming at epoch 3 from initial_lr = 2 * lr: the first step's closed form.
schedule(golden, "cosine_resume",
         lambda o: S.CosineAnnealingLR(o, T_max=6, eta_min=0.001, last_epoch=3), initial_lr=2.0)


# --- errors ------------------------------------------------------------------

def params():
    return [torch.zeros(2, requires_grad=True)]


errors.err("sgd_lr", lambda: O.SGD(params(), lr=-0.1))
errors.err("sgd_momentum", lambda: O.SGD(params(), lr=0.1, momentum=-0.5))
errors.err("sgd_weight_decay", lambda: O.SGD(params(), lr=0.1, weight_decay=-1e-05))
errors.err("sgd_nesterov", lambda: O.SGD(params(), lr=0.1, nesterov=True))
errors.err("sgd_nesterov_dampening",
           lambda: O.SGD(params(), lr=0.1, momentum=0.9, dampening=0.1, nesterov=True))
errors.err("adam_lr", lambda: O.Adam(params(), lr=-0.001))
errors.err("adam_eps", lambda: O.Adam(params(), eps=-1e-08))
errors.err("adam_beta0", lambda: O.Adam(params(), betas=(1.0, 0.999)))
errors.err("adam_beta1", lambda: O.Adam(params(), betas=(0.9, -0.5)))
errors.err("adam_weight_decay", lambda: O.Adam(params(), weight_decay=-0.1))
errors.err("adamw_weight_decay", lambda: O.AdamW(params(), weight_decay=-0.01))
errors.err("rmsprop_alpha", lambda: O.RMSprop(params(), alpha=-0.99))
errors.err("rmsprop_momentum", lambda: O.RMSprop(params(), momentum=-0.9))
errors.err("rmsprop_eps", lambda: O.RMSprop(params(), eps=-1e-08))
errors.err("empty", lambda: O.SGD([], lr=0.1))
errors.err("non_leaf", lambda: O.SGD([params()[0] * 2], lr=0.1))


def duplicate():
    p = params()
    O.SGD([{"params": p}, {"params": p}], lr=0.1)


errors.err("duplicate", duplicate)


def load_groups():
    a, b = params(), params()
    O.SGD(a + b, lr=0.1).load_state_dict(O.SGD([{"params": a}, {"params": b}], lr=0.1).state_dict())


def load_sizes():
    a, b = params(), params()
    O.SGD(a, lr=0.1).load_state_dict(O.SGD(a + b, lr=0.1).state_dict())


errors.err("load_groups", load_groups)
errors.err("load_sizes", load_sizes)
errors.err("lambda_count", lambda: S.LambdaLR(O.SGD(params(), lr=0.1), [lambda e: 1.0] * 2))

golden.write()
errors.write()
