"""What optim.py, optim_more.py and optim_extra.py share (the C++ side is
optim/testing/optim_golden.h and optim/lr_scheduler_test.cc).

run(): every optimizer case starts from the same float64 parameters
    w = mk((3, 4), float64, 0) / 2,  b = mk((4,), float64, 5) / 2,
takes STEPS steps of  zero_grad(); loss(params).backward(); step()  with
    loss(p) = sum over params of 0.1 * sum(p**4) + sum((p - 0.5)**2)
and records the parameters and the optimizer state after the last step.

schedule(): a scheduler over plain SGD with two groups (lr 0.1 and 0.05),
get_last_lr() after construction and after each of 20 steps.
"""

import torch

from golden_util import mk

STEPS = 10


def start():
    w = (mk((3, 4), torch.float64, 0) / 2).requires_grad_()
    b = (mk((4,), torch.float64, 5) / 2).requires_grad_()
    return w, b


def loss_of(params):
    total = 0
    for p in params:
        total = total + 0.1 * (p * p * p * p).sum() + ((p - 0.5) * (p - 0.5)).sum()
    return total


def run(golden, name, make):
    """Trains case `name` (make: params -> optimizer) and records
    <name>.w, <name>.b and <name>.state.<i>.<key> (step as int64)."""
    w, b = start()
    opt = make([w, b])
    for _ in range(STEPS):
        opt.zero_grad()
        loss_of([w, b]).backward()
        opt.step()
    golden.add(name + ".w", w)
    golden.add(name + ".b", b)
    for i, p in enumerate([w, b]):
        for key, value in opt.state[p].items():
            if value is None:
                continue
            if not torch.is_tensor(value):
                value = torch.tensor(value)
            if key == "step":
                value = value.to(torch.int64)
            golden.add("%s.state.%d.%s" % (name, i, key), value)


def two_groups():
    """Plain SGD over two one-element parameters, lr 0.1 and 0.05."""
    p = torch.zeros(1, requires_grad=True)
    q = torch.zeros(1, requires_grad=True)
    return torch.optim.SGD([{"params": [p]}, {"params": [q], "lr": 0.05}], lr=0.1)


def schedule(golden, name, make, initial_lr=None):
    """Records sched.<name>: (21, 2) lrs. initial_lr: each group's
    initial_lr set to lr * initial_lr first (a resumed run)."""
    opt = two_groups()
    if initial_lr is not None:
        for g in opt.param_groups:
            g["initial_lr"] = g["lr"] * initial_lr
    sched = make(opt)
    lrs = [sched.get_last_lr()]
    for _ in range(20):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr())
    golden.add("sched." + name, torch.tensor(lrs, dtype=torch.float64))
