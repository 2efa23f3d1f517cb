"""Golden values for the optimizers and LR schedulers beyond the first four
(optim/optimizers_test.cc, optim/schedulers_test.cc): Adagrad, Adadelta,
Adamax, NAdam, RAdam, ASGD; LinearLR, ConstantLR, PolynomialLR,
CosineAnnealingWarmRestarts, OneCycleLR, CyclicLR, ReduceLROnPlateau,
SequentialLR, ChainedScheduler and the closed forms behind step(epoch);
clip_grad_norm_ and clip_grad_value_ (optim/clip_grad_test.cc).

The optimizer cases are run by optim_cases.run, as optim.py's: the same
float64 start, 10 steps on one loss, then the parameters and the optimizer
state. The scheduler cases record get_last_lr() (and the momentum or beta1 a
cyclic schedule sets) of two groups, lr 0.1 and 0.05, after construction and
after each step. Run with /usr/bin/python3 (PyTorch 1.13).
"""

import math
import warnings

import torch

from golden_util import ErrorWriter, GoldenWriter, mk
from optim_cases import run

torch.set_default_dtype(torch.float64)
warnings.simplefilter("ignore")  # step(epoch) is deprecated; the closed forms are what we record
golden = GoldenWriter("optim_more", package="optim")
errors = ErrorWriter("optim_more", package="optim")

O = torch.optim
S = torch.optim.lr_scheduler


# --- optimizers --------------------------------------------------------------

CASES = {
    "adagrad": lambda p: O.Adagrad(p, lr=0.1, foreach=False),
    "adagrad_options": lambda p: O.Adagrad(p, lr=0.1, lr_decay=0.05, weight_decay=0.1,
                                           initial_accumulator_value=0.5, eps=1e-3,
                                           foreach=False),
    "adagrad_maximize": lambda p: O.Adagrad(p, lr=0.05, maximize=True, foreach=False),
    "adadelta": lambda p: O.Adadelta(p, foreach=False),
    "adadelta_options": lambda p: O.Adadelta(p, lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.1,
                                             foreach=False),
    "adadelta_maximize": lambda p: O.Adadelta(p, lr=1.0, maximize=True, foreach=False),
    "adamax": lambda p: O.Adamax(p, lr=0.05, foreach=False),
    "adamax_options": lambda p: O.Adamax(p, lr=0.05, betas=(0.8, 0.9), eps=1e-3,
                                         weight_decay=0.1, foreach=False),
    "adamax_maximize": lambda p: O.Adamax(p, lr=0.01, maximize=True, foreach=False),
    "nadam": lambda p: O.NAdam(p, lr=0.05, foreach=False),
    "nadam_options": lambda p: O.NAdam(p, lr=0.05, betas=(0.8, 0.9), eps=1e-3, weight_decay=0.1,
                                       momentum_decay=0.01, foreach=False),
    # beta2 0.999: rho_t passes 5 at step 6, so both branches run.
    "radam": lambda p: O.RAdam(p, lr=0.05, foreach=False),
    "radam_options": lambda p: O.RAdam(p, lr=0.05, betas=(0.8, 0.9), eps=1e-3, weight_decay=0.1,
                                       foreach=False),
    # t0 3: averaging starts at step 4.
    "asgd": lambda p: O.ASGD(p, lr=0.05, lambd=0.01, alpha=0.5, t0=3, foreach=False),
    "asgd_options": lambda p: O.ASGD(p, lr=0.05, lambd=0.1, t0=5, weight_decay=0.1,
                                     foreach=False),
    "asgd_maximize": lambda p: O.ASGD(p, lr=0.01, maximize=True, foreach=False),
    "adamw_maximize": lambda p: O.AdamW(p, lr=0.05, maximize=True, foreach=False),
    "adagrad_groups": lambda p: O.Adagrad([{"params": [p[0]]},
                                           {"params": [p[1]], "lr": 0.3,
                                            "initial_accumulator_value": 1.0}],
                                          lr=0.1, foreach=False),
}
for case_name, make_opt in CASES.items():
    run(golden, case_name, make_opt)


# --- schedulers ----------------------------------------------------------------

def two_groups(kind="sgd"):
    p = torch.zeros(1, requires_grad=True)
    q = torch.zeros(1, requires_grad=True)
    groups = [{"params": [p]}, {"params": [q], "lr": 0.05}]
    if kind == "sgd":
        return O.SGD(groups, lr=0.1, momentum=0.9)
    if kind == "adam":
        return O.Adam(groups, lr=0.1)
    return O.Adagrad(groups, lr=0.1)


def record(name, opt, lrs, momentum):
    golden.add("sched." + name, torch.tensor(lrs, dtype=torch.float64))
    if momentum is not None:
        golden.add("sched." + name + ".momentum", torch.tensor(momentum, dtype=torch.float64))


def momentum_of(opt):
    return [g["betas"][0] if "betas" in g else g["momentum"] for g in opt.param_groups]


def schedule(name, make, steps=20, kind="sgd", track_momentum=False):
    """get_last_lr() after construction and after each of `steps` steps."""
    opt = two_groups(kind)
    sched = make(opt)
    lrs = [sched.get_last_lr()]
    momentum = [momentum_of(opt)] if track_momentum else None
    for _ in range(steps):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr())
        if track_momentum:
            momentum.append(momentum_of(opt))
    record(name, opt, lrs, momentum)


schedule("linear", lambda o: S.LinearLR(o, start_factor=0.25, total_iters=6))
schedule("linear_down", lambda o: S.LinearLR(o, start_factor=1.0, end_factor=0.1,
                                             total_iters=8))
schedule("constant", lambda o: S.ConstantLR(o, factor=0.5, total_iters=4))
schedule("polynomial", lambda o: S.PolynomialLR(o, total_iters=8, power=2.0))
schedule("warm_restarts", lambda o: S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2,
                                                                  eta_min=0.001), steps=25)
schedule("warm_restarts_t1", lambda o: S.CosineAnnealingWarmRestarts(o, T_0=4))
schedule("onecycle_cos", lambda o: S.OneCycleLR(o, max_lr=[1.0, 0.5], total_steps=20),
         track_momentum=True)
schedule("onecycle_linear_three_phase",
         lambda o: S.OneCycleLR(o, max_lr=0.4, epochs=4, steps_per_epoch=5, pct_start=0.25,
                                anneal_strategy="linear", three_phase=True, div_factor=10.0,
                                final_div_factor=100.0, base_momentum=0.8, max_momentum=0.9),
         kind="adam", track_momentum=True)
schedule("onecycle_no_momentum",
         lambda o: S.OneCycleLR(o, max_lr=0.3, total_steps=12, pct_start=0.5,
                                cycle_momentum=False), steps=12)
schedule("cyclic_triangular",
         lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3, step_size_down=2),
         track_momentum=True)
schedule("cyclic_triangular2",
         lambda o: S.CyclicLR(o, base_lr=[0.01, 0.02], max_lr=[0.1, 0.2], step_size_up=2,
                              mode="triangular2", cycle_momentum=False))
schedule("cyclic_exp_range",
         lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=4, mode="exp_range",
                              gamma=0.9, base_momentum=[0.7, 0.75], max_momentum=0.95),
         track_momentum=True)
schedule("cyclic_scale_fn",
         lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3,
                              scale_fn=lambda x: 0.5 ** x, scale_mode="iterations",
                              cycle_momentum=False))


def sequential(o):
    warm = S.LinearLR(o, start_factor=0.1, total_iters=4)
    cos = S.CosineAnnealingLR(o, T_max=8, eta_min=0.001)
    return S.SequentialLR(o, [warm, cos], milestones=[4])


def sequential3(o):
    const = S.ConstantLR(o, factor=0.5, total_iters=2)
    exp = S.ExponentialLR(o, gamma=0.8)
    step = S.StepLR(o, step_size=3, gamma=0.5)
    return S.SequentialLR(o, [const, exp, step], milestones=[3, 8])


schedule("sequential", sequential)
schedule("sequential3", sequential3)
schedule("chained", lambda o: S.ChainedScheduler([S.ConstantLR(o, factor=0.1, total_iters=3),
                                                  S.ExponentialLR(o, gamma=0.9)]))
schedule("chained_cyclic_step",
         lambda o: S.ChainedScheduler([S.StepLR(o, step_size=4, gamma=0.5),
                                       S.MultiStepLR(o, milestones=[3, 9], gamma=0.2)]))

# step(epoch): the closed forms, at epochs out of order.
EPOCHS = [5, 2, 9, 0, 14, 7]


def closed(name, make):
    opt = two_groups()
    sched = make(opt)
    lrs = []
    for e in EPOCHS:
        sched.step(e)
        lrs.append(sched.get_last_lr())
    record("closed_" + name, opt, lrs, None)


closed("step", lambda o: S.StepLR(o, step_size=3, gamma=0.5))
closed("multistep", lambda o: S.MultiStepLR(o, milestones=[9, 2, 5, 5], gamma=0.3))
closed("exponential", lambda o: S.ExponentialLR(o, gamma=0.9))
closed("cosine", lambda o: S.CosineAnnealingLR(o, T_max=6, eta_min=0.001))
closed("linear", lambda o: S.LinearLR(o, start_factor=0.25, total_iters=6))
closed("constant", lambda o: S.ConstantLR(o, factor=0.5, total_iters=4))
closed("polynomial", lambda o: S.PolynomialLR(o, total_iters=8, power=2.0))
closed("lambda", lambda o: S.LambdaLR(o, lambda e: 0.95 ** e))


# CosineAnnealingWarmRestarts with fractional epochs (epoch + i / iters), then
# an explicit epoch and plain steps after it.
def warm_fractional():
    opt = two_groups()
    sched = S.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2, eta_min=0.01)
    lrs = [sched.get_last_lr()]
    for epoch in range(7):
        for i in range(3):
            sched.step(epoch + i / 3)
            lrs.append(sched.get_last_lr())
    sched.step(26)
    lrs.append(sched.get_last_lr())
    for _ in range(3):
        sched.step()
        lrs.append(sched.get_last_lr())
    record("warm_restarts_fractional", opt, lrs, None)


warm_fractional()

METRICS = [1.0, 0.9, 0.95, 0.95, 0.95, 0.8, 0.85, 0.85, 0.85, 0.85,
           0.85, 0.7, 0.79995, 0.79995, 0.79995, 0.79995, 0.6, 0.6, 0.6, 0.6]


def plateau(name, make, metrics=METRICS):
    opt = two_groups()
    sched = make(opt)
    lrs = []
    for m in metrics:
        sched.step(m)
        lrs.append([g["lr"] for g in opt.param_groups])
    record("plateau_" + name, opt, lrs, None)


plateau("min_rel", lambda o: S.ReduceLROnPlateau(o, factor=0.5, patience=2, cooldown=1,
                                                 min_lr=[0.01, 0.02]))
plateau("min_abs", lambda o: S.ReduceLROnPlateau(o, patience=1, threshold=0.02,
                                                 threshold_mode="abs", min_lr=0.004))
plateau("max_rel", lambda o: S.ReduceLROnPlateau(o, mode="max", factor=0.3, patience=1,
                                                 threshold=0.1),
        metrics=[-m for m in METRICS])
plateau("max_abs_eps", lambda o: S.ReduceLROnPlateau(o, mode="max", factor=0.9, patience=0,
                                                     threshold_mode="abs", min_lr=0.04,
                                                     eps=0.006),
        metrics=[-m for m in METRICS])


# --- clip_grad_norm_ / clip_grad_value_ ----------------------------------------
# float32 grads w: mk((3, 4), float32, 1), b: mk((4,), float32, 7) * 3, and a
# parameter without a grad.

def clip_params():
    w = torch.zeros(3, 4, dtype=torch.float32, requires_grad=True)
    b = torch.zeros(4, dtype=torch.float32, requires_grad=True)
    frozen = torch.zeros(2, dtype=torch.float32, requires_grad=True)
    w.grad = mk((3, 4), torch.float32, 1)
    b.grad = mk((4,), torch.float32, 7) * 3
    return w, b, frozen


for clip_name, max_norm, norm_type in [("l2", 1.0, 2.0), ("l1", 2.5, 1.0), ("inf", 0.5, math.inf),
                                       ("p3", 1.5, 3.0), ("no_clip", 100.0, 2.0)]:
    w, b, frozen = clip_params()
    total = torch.nn.utils.clip_grad_norm_([w, b, frozen], max_norm, norm_type)
    golden.add("clip_norm_%s.total" % clip_name, total)
    golden.add("clip_norm_%s.w" % clip_name, w.grad)
    golden.add("clip_norm_%s.b" % clip_name, b.grad)

w, b, frozen = clip_params()
torch.nn.utils.clip_grad_value_([w, b, frozen], 0.6)
golden.add("clip_value.w", w.grad)
golden.add("clip_value.b", b.grad)


# --- errors ------------------------------------------------------------------

def params():
    return [torch.zeros(2, requires_grad=True)]


errors.err("adagrad_lr", lambda: O.Adagrad(params(), lr=-0.5))
errors.err("adagrad_lr_decay", lambda: O.Adagrad(params(), lr_decay=-0.1))
errors.err("adagrad_weight_decay", lambda: O.Adagrad(params(), weight_decay=-0.25))
errors.err("adagrad_initial_accumulator_value",
           lambda: O.Adagrad(params(), initial_accumulator_value=-1.0))
errors.err("adagrad_eps", lambda: O.Adagrad(params(), eps=-1e-10))
errors.err("adadelta_lr", lambda: O.Adadelta(params(), lr=-1.0))
errors.err("adadelta_rho", lambda: O.Adadelta(params(), rho=1.5))
errors.err("adadelta_eps", lambda: O.Adadelta(params(), eps=-1e-06))
errors.err("adadelta_weight_decay", lambda: O.Adadelta(params(), weight_decay=-0.1))
errors.err("adamax_beta0", lambda: O.Adamax(params(), betas=(-0.1, 0.999)))
errors.err("adamax_beta1", lambda: O.Adamax(params(), betas=(0.9, 1.0)))
errors.err("nadam_momentum_decay", lambda: O.NAdam(params(), momentum_decay=-0.004))
errors.err("nadam_lr", lambda: O.NAdam(params(), lr=-0.002))
errors.err("radam_eps", lambda: O.RAdam(params(), eps=-1e-08))
errors.err("radam_weight_decay", lambda: O.RAdam(params(), weight_decay=-0.5))
errors.err("asgd_lr", lambda: O.ASGD(params(), lr=-0.01))
errors.err("asgd_weight_decay", lambda: O.ASGD(params(), weight_decay=-0.001))


def sgd():
    return O.SGD([{"params": params()}, {"params": params(), "lr": 0.05}], lr=0.1, momentum=0.9)


errors.err("linear_start", lambda: S.LinearLR(sgd(), start_factor=1.5))
errors.err("linear_end", lambda: S.LinearLR(sgd(), end_factor=-0.5))
errors.err("constant_factor", lambda: S.ConstantLR(sgd(), factor=2.0))
errors.err("warm_t0", lambda: S.CosineAnnealingWarmRestarts(sgd(), T_0=0))
errors.err("warm_tmult", lambda: S.CosineAnnealingWarmRestarts(sgd(), T_0=2, T_mult=0))


def warm_negative():
    S.CosineAnnealingWarmRestarts(sgd(), T_0=2).step(-1)


errors.err("warm_negative_epoch", warm_negative)
errors.err("onecycle_no_steps", lambda: S.OneCycleLR(sgd(), max_lr=0.1))
errors.err("onecycle_total_steps", lambda: S.OneCycleLR(sgd(), max_lr=0.1, total_steps=0))
errors.err("onecycle_epochs", lambda: S.OneCycleLR(sgd(), max_lr=0.1, epochs=-2,
                                                   steps_per_epoch=3))
errors.err("onecycle_steps_per_epoch", lambda: S.OneCycleLR(sgd(), max_lr=0.1, epochs=2,
                                                            steps_per_epoch=0))
errors.err("onecycle_pct_start", lambda: S.OneCycleLR(sgd(), max_lr=0.1, total_steps=10,
                                                      pct_start=1.5))
errors.err("onecycle_anneal", lambda: S.OneCycleLR(sgd(), max_lr=0.1, total_steps=10,
                                                   anneal_strategy="exp"))
errors.err("onecycle_max_lr_count", lambda: S.OneCycleLR(sgd(), max_lr=[0.1, 0.2, 0.3],
                                                         total_steps=10))
errors.err("onecycle_momentum", lambda: S.OneCycleLR(O.Adagrad(params()), max_lr=0.1,
                                                     total_steps=10))


def onecycle_past_end():
    s = S.OneCycleLR(sgd(), max_lr=0.1, total_steps=4)
    for _ in range(5):
        s.step()


errors.err("onecycle_past_end", onecycle_past_end)
errors.err("cyclic_mode", lambda: S.CyclicLR(sgd(), base_lr=0.01, max_lr=0.1, mode="cosine"))
errors.err("cyclic_momentum", lambda: S.CyclicLR(O.Adam(params()), base_lr=0.01, max_lr=0.1))
errors.err("cyclic_base_lr_count", lambda: S.CyclicLR(sgd(), base_lr=[0.01], max_lr=0.1))
errors.err("plateau_factor", lambda: S.ReduceLROnPlateau(sgd(), factor=1.0))
errors.err("plateau_mode", lambda: S.ReduceLROnPlateau(sgd(), mode="average"))
errors.err("plateau_threshold_mode", lambda: S.ReduceLROnPlateau(sgd(), threshold_mode="pct"))
errors.err("plateau_min_lr_count", lambda: S.ReduceLROnPlateau(sgd(), min_lr=[0.1, 0.2, 0.3]))


def sequential_milestones():
    o = sgd()
    S.SequentialLR(o, [S.ConstantLR(o), S.ExponentialLR(o, gamma=0.9)], milestones=[2, 4])


def sequential_optimizer():
    o, other = sgd(), sgd()
    S.SequentialLR(o, [S.ConstantLR(o), S.ExponentialLR(other, gamma=0.9)], milestones=[2])


def chained_optimizer():
    o, other = sgd(), sgd()
    S.ChainedScheduler([S.ConstantLR(o), S.ExponentialLR(other, gamma=0.9)])


errors.err("sequential_milestones", sequential_milestones)
errors.err("sequential_optimizer", sequential_optimizer)
errors.err("chained_optimizer", chained_optimizer)


def clip_nonfinite():
    w, b, frozen = clip_params()
    b.grad[1] = math.inf
    torch.nn.utils.clip_grad_norm_([w, b], 1.0, error_if_nonfinite=True)


errors.err("clip_nonfinite", clip_nonfinite)

golden.write()
errors.write()
