"""Golden values for LBFGS, Rprop and MultiplicativeLR (optim/lbfgs_test.cc,
optim/rprop_test.cc, optim/lr_scheduler_test.cc), all in float64.

Rprop: the cases of optim_cases.run (the float64 start, 10 steps, then the
parameters and the state).

LBFGS: STEPS calls of step(closure) on two small problems,
  rosen    x (2, 2) = [[-1.2, 1.0], [-0.5, 0.8]], the Rosenbrock chain over
           its 4 elements: sum 100 * (v[i+1] - v[i]**2)**2 + (1 - v[i])**2
  linreg   w (3, 2), b (2,) and frozen (2,), all zeros; frozen takes no part
           (its grad stays None); loss mean((X @ w + b - Y)**2) with
           X = mk((8, 3), float64, 1), Y = mk((8, 2), float64, 3)
recording after each step k: <case>.step<k>.loss (what step returned) and
<case>.step<k>.p<i> (each parameter); after the last step the state,
<case>.state.<key>, with the lists numbered (old_dirs.0, ...) and the
numbers as 0-dim tensors (func_evals and n_iter int64, the rest float64).

MultiplicativeLR: optim_cases.schedule (get_last_lr() of two SGD groups, lr
0.1 and 0.05, over 20 steps), as optim.py's schedules; then driven by
step(epoch) at epochs out of order.

Run with /usr/bin/python3 (PyTorch 1.13).
"""

import warnings

import torch

from golden_util import ErrorWriter, GoldenWriter, mk
from optim_cases import run, schedule, two_groups

torch.set_default_dtype(torch.float64)
warnings.simplefilter("ignore")  # step(epoch) is deprecated; its values are what we record
golden = GoldenWriter("optim_extra", package="optim")
errors = ErrorWriter("optim_extra", package="optim")

O = torch.optim
S = torch.optim.lr_scheduler

# --- Rprop -------------------------------------------------------------------

RPROP_CASES = {
    "rprop": lambda p: O.Rprop(p, lr=0.05, foreach=False),
    # step_sizes bind both ways within 10 steps.
    "rprop_options": lambda p: O.Rprop(p, lr=0.1, etas=(0.3, 1.5), step_sizes=(0.02, 0.2),
                                       foreach=False),
    "rprop_maximize": lambda p: O.Rprop(p, lr=0.01, maximize=True, foreach=False),
    "rprop_groups": lambda p: O.Rprop([{"params": [p[0]]},
                                       {"params": [p[1]], "lr": 0.2, "etas": (0.4, 1.1)}],
                                      lr=0.05, foreach=False),
}
for case_name, make_opt in RPROP_CASES.items():
    run(golden, case_name, make_opt)

# --- LBFGS -------------------------------------------------------------------

LBFGS_STEPS = 4


def rosen_problem():
    x = torch.tensor([[-1.2, 1.0], [-0.5, 0.8]], requires_grad=True)

    def loss():
        v = x.reshape(-1)
        a, b = v[:-1], v[1:]
        r = b - a * a
        s = 1 - a
        return (100 * (r * r) + s * s).sum()

    return [x], loss


def linreg_problem():
    w = torch.zeros(3, 2, requires_grad=True)
    b = torch.zeros(2, requires_grad=True)
    frozen = torch.zeros(2, requires_grad=True)
    X = mk((8, 3), torch.float64, 1)
    Y = mk((8, 2), torch.float64, 3)

    def loss():
        r = X.mm(w) + b - Y
        return (r * r).mean()

    return [w, b, frozen], loss


PROBLEMS = {"rosen": rosen_problem, "linreg": linreg_problem}


def state_value(key, value):
    if torch.is_tensor(value):
        return value.detach().clone()
    if key in ("func_evals", "n_iter"):
        return torch.tensor(value, dtype=torch.int64)
    return torch.tensor(float(value))


def lbfgs(name, problem, **options):
    params, loss = PROBLEMS[problem]()
    opt = O.LBFGS(params, **options)

    def closure():
        opt.zero_grad()
        value = loss()
        value.backward()
        return value

    for k in range(LBFGS_STEPS):
        golden.add("%s.step%d.loss" % (name, k), opt.step(closure).detach())
        for i, p in enumerate(params):
            golden.add("%s.step%d.p%d" % (name, k, i), p)
    for key, value in opt.state[params[0]].items():
        if key == "al":
            continue  # scratch, rewritten before it is read
        if isinstance(value, list):
            for i, v in enumerate(value):
                golden.add("%s.state.%s.%d" % (name, key, i), state_value(key, v))
        else:
            golden.add("%s.state.%s" % (name, key), state_value(key, value))


lbfgs("lbfgs_rosen", "rosen", max_iter=3)
# history_size 3: the history is full by the second step and shifts after.
lbfgs("lbfgs_rosen_wolfe", "rosen", line_search_fn="strong_wolfe", max_iter=6, history_size=3)
lbfgs("lbfgs_linreg", "linreg", lr=0.5, max_iter=5)
# Converges in the first step: the later ones stop at the first evaluation.
lbfgs("lbfgs_linreg_wolfe", "linreg", line_search_fn="strong_wolfe")
# Stops on max_eval before max_iter.
lbfgs("lbfgs_max_eval", "rosen", lr=0.1, max_iter=10, max_eval=4)
# Loose tolerances end the iterations early.
lbfgs("lbfgs_tolerances", "linreg", line_search_fn="strong_wolfe", tolerance_grad=1e-3,
      tolerance_change=1e-4)

# --- MultiplicativeLR --------------------------------------------------------

schedule(golden, "multiplicative", lambda o: S.MultiplicativeLR(o, lambda e: 0.9))
schedule(golden, "multiplicative_lists",
         lambda o: S.MultiplicativeLR(o, [lambda e: 0.95 ** e, lambda e: 1.0 - 0.01 * e]))


# step(epoch): MultiplicativeLR has no closed form, so each jump multiplies
# the current lr by lr_lambda(epoch) once.
def multiplicative_epochs():
    opt = two_groups()
    sched = S.MultiplicativeLR(opt, lambda e: 1.0 - 0.05 * e)
    lrs = []
    for e in [5, 2, 9, 0, 14, 7]:
        sched.step(e)
        lrs.append(sched.get_last_lr())
    golden.add("sched.multiplicative_epochs", torch.tensor(lrs))


multiplicative_epochs()

# --- errors ------------------------------------------------------------------


def params():
    return [torch.zeros(2, requires_grad=True)]


def closure_of(opt, p):
    def closure():
        opt.zero_grad()
        value = ((p - 1) * (p - 1)).sum()
        value.backward()
        return value
    return closure


def lbfgs_line_search():
    p = params()[0]
    opt = O.LBFGS([p], line_search_fn="backtracking")
    opt.step(closure_of(opt, p))


errors.err("lbfgs_groups", lambda: O.LBFGS([{"params": params()}, {"params": params()}]))
errors.err("lbfgs_no_closure", lambda: O.LBFGS(params()).step())
errors.err("lbfgs_line_search_fn", lbfgs_line_search)
errors.err("rprop_lr", lambda: O.Rprop(params(), lr=-0.01))
errors.err("rprop_etaminus", lambda: O.Rprop(params(), etas=(1.5, 2.0)))
errors.err("rprop_etaplus", lambda: O.Rprop(params(), etas=(0.5, 0.9)))
errors.err("rprop_etas_zero", lambda: O.Rprop(params(), etas=(0.0, 1.2)))
errors.err("multiplicative_count",
           lambda: S.MultiplicativeLR(two_groups(), [lambda e: 1.0] * 3))

golden.write()
errors.write()
