"""Golden values for //nn's modules (nn/*_test.cc): the parameters each
layer starts with after torch.manual_seed, nn.init's fills, forward values,
BatchNorm's running statistics, the printed trees, state_dict keys and
load_state_dict's errors. Run with /usr/bin/python3 (Debian's torch 1.13).
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from golden_util import ErrorWriter, GoldenWriter, StringWriter, mk

torch.set_num_threads(1)
g = GoldenWriter("nn_modules", package="nn")
errors = ErrorWriter("nn_modules", package="nn")
strings = StringWriter("nn_modules", package="nn")



def add_params(prefix, module):
    for name, t in module.named_parameters():
        if t.numel() > 2000:  # the tail only: it is right when every draw before it was
            name, t = name + ".tail", t.reshape(-1)[-100:]
        g.add(prefix + "." + name, t)
    for name, t in module.named_buffers():
        g.add(prefix + "." + name, t)


# --- nn.init ------------------------------------------------------------------
def init_case(name, shape, fill, seed=0):
    torch.manual_seed(seed)
    t = torch.empty(shape)
    fill(t)
    g.add("init." + name, t)


init_case("uniform", (3, 4), lambda t: nn.init.uniform_(t, -1.0, 2.0))
init_case("normal", (3, 5), lambda t: nn.init.normal_(t, 0.5, 2.0))
init_case("normal_big", (40,), lambda t: nn.init.normal_(t))
init_case("constant", (2, 3), lambda t: nn.init.constant_(t, 0.25))
init_case("ones", (2, 2), nn.init.ones_)
init_case("zeros", (2, 2), nn.init.zeros_)
init_case("eye", (3, 5), nn.init.eye_)
init_case("xavier_uniform", (5, 7), nn.init.xavier_uniform_)
init_case("xavier_uniform_gain", (4, 3, 2), lambda t: nn.init.xavier_uniform_(t, gain=2.0))
init_case("xavier_normal", (5, 7, 3), lambda t: nn.init.xavier_normal_(t, gain=0.5))
init_case("kaiming_uniform", (4, 6), nn.init.kaiming_uniform_)
init_case("kaiming_uniform_a", (4, 3, 2, 2),
          lambda t: nn.init.kaiming_uniform_(t, a=math.sqrt(5)))
init_case("kaiming_uniform_fan_out_relu", (4, 3, 2),
          lambda t: nn.init.kaiming_uniform_(t, mode="fan_out", nonlinearity="relu"))
init_case("kaiming_normal", (6, 4), nn.init.kaiming_normal_)
init_case("kaiming_normal_fan_out", (5, 3, 3),
          lambda t: nn.init.kaiming_normal_(t, a=0.2, mode="fan_out"))
gains = [nn.init.calculate_gain(n) for n in
         ("linear", "conv1d", "conv2d", "sigmoid", "tanh", "relu", "leaky_relu", "selu")]
gains.append(nn.init.calculate_gain("leaky_relu", 0.2))
g.add("init.gains", torch.tensor(gains, dtype=torch.float64))
g.add("init.fans", torch.tensor(
    [nn.init._calculate_fan_in_and_fan_out(torch.empty(s)) for s in
     ((3, 4), (6, 2, 5, 5), (4, 3, 7))], dtype=torch.int64))
errors.err("init.fan_1d", lambda: nn.init.xavier_uniform_(torch.empty(5)))
errors.err("init.eye_3d", lambda: nn.init.eye_(torch.empty(2, 2, 2)))


# --- the layers' initial parameters ----------------------------------------------
class Net(nn.Module):
    """Seed 003's LeNet."""

    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


LAYERS = {
    "linear": lambda: nn.Linear(3, 2),
    "linear_nobias": lambda: nn.Linear(4, 5, bias=False),
    "conv1d": lambda: nn.Conv1d(2, 4, 3, padding=1),
    "conv2d": lambda: nn.Conv2d(1, 6, 5),
    "conv2d_groups": lambda: nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 0), groups=2,
                                       bias=False),
    "conv2d_same": lambda: nn.Conv2d(2, 3, 3, padding="same", dilation=2),
    "conv2d_reflect": lambda: nn.Conv2d(2, 3, 3, padding=(1, 2), padding_mode="reflect"),
    "conv2d_circular_same": lambda: nn.Conv2d(2, 3, (2, 3), padding="same",
                                              padding_mode="circular"),
    "conv1d_replicate": lambda: nn.Conv1d(2, 3, 3, stride=2, padding=2, padding_mode="replicate"),
    "embedding": lambda: nn.Embedding(10, 3),
    "embedding_pad": lambda: nn.Embedding(6, 4, padding_idx=-2),
    "batchnorm1d": lambda: nn.BatchNorm1d(4),
    "batchnorm2d": lambda: nn.BatchNorm2d(3, momentum=None),
    "layernorm": lambda: nn.LayerNorm([2, 3]),
    "net": Net,
}
modules = {}
for name, make in LAYERS.items():
    torch.manual_seed(0)
    modules[name] = make()
    add_params("init." + name, modules[name])
    strings.add("params." + name, "\n".join(n for n, _ in modules[name].named_parameters()))
    strings.add("state_dict." + name, "\n".join(modules[name].state_dict().keys()))

# --- forward values -----------------------------------------------------------------
FORWARD = {  # layer -> input
    "linear": mk((2, 3)),
    "linear_nobias": mk((3, 2, 4), seed=1),
    "conv1d": mk((2, 2, 5)),
    "conv2d": mk((1, 1, 7, 6)),
    "conv2d_groups": mk((2, 4, 5, 4), seed=3),
    "conv2d_same": mk((1, 2, 6, 5), seed=2),
    "conv2d_reflect": mk((2, 2, 5, 6)),
    "conv2d_circular_same": mk((1, 2, 4, 5), seed=1),
    "conv1d_replicate": mk((2, 2, 7), seed=2),
    "embedding": torch.tensor([[1, 9, 0], [4, 4, 2]]),
    "embedding_pad": torch.tensor([4, 0, 5]),
    "layernorm": mk((4, 2, 3)),
    "net": mk((2, 1, 32, 32)) / 4,
}
for name, x in FORWARD.items():
    g.add("forward.%s.input" % name, x)
    g.add("forward.%s.output" % name, modules[name](x))

# Seed 003's step: MSE of LeNet's output, backward, conv1.bias.grad.
net = modules["net"]
net.zero_grad()
nn.MSELoss()(net(FORWARD["net"]), mk((2, 10), seed=4)).backward()
g.add("backward.net.conv1.bias.grad", net.conv1.bias.grad)
g.add("backward.net.fc3.weight.grad", net.fc3.weight.grad)
g.add("backward.net.target", mk((2, 10), seed=4))

STATELESS = {
    "maxpool2d": (nn.MaxPool2d(2), mk((1, 2, 5, 4))),
    "maxpool2d_pad": (nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True), mk((2, 1, 6, 5))),
    "avgpool2d": (nn.AvgPool2d(3, stride=2, padding=1), mk((1, 2, 5, 6))),
    "avgpool2d_nopad": (nn.AvgPool2d((2, 3), count_include_pad=False, padding=1),
                        mk((1, 1, 4, 6))),
    "adaptiveavgpool2d": (nn.AdaptiveAvgPool2d((2, 3)), mk((1, 2, 5, 7))),
    "relu": (nn.ReLU(), mk((3, 4))),
    "leakyrelu": (nn.LeakyReLU(0.2), mk((3, 4))),
    "gelu": (nn.GELU(), mk((3, 4))),
    "gelu_tanh": (nn.GELU(approximate="tanh"), mk((3, 4))),
    "sigmoid": (nn.Sigmoid(), mk((3, 4))),
    "tanh": (nn.Tanh(), mk((3, 4))),
    "softmax": (nn.Softmax(dim=1), mk((3, 4))),
    "logsoftmax": (nn.LogSoftmax(dim=0), mk((3, 4))),
    "flatten": (nn.Flatten(), mk((2, 3, 2))),
    "flatten_0": (nn.Flatten(0, 1), mk((2, 3, 2))),
}
for name, (m, x) in STATELESS.items():
    g.add("forward.%s.input" % name, x)
    g.add("forward.%s.output" % name, m(x))

# Dropout: the mask comes from the default generator.
torch.manual_seed(0)
g.add("forward.dropout.output", nn.Dropout(0.3)(mk((4, 5)) + 1))

# BatchNorm: two training steps (running statistics), then eval.
for name, x in (("batchnorm1d", mk((5, 4))), ("batchnorm2d", mk((2, 3, 2, 2)))):
    m = modules[name]
    g.add("bn.%s.train1" % name, m(x))
    g.add("bn.%s.train2" % name, m(x * 2 + 1))
    for b, t in m.named_buffers():
        g.add("bn.%s.%s" % (name, b), t)
    m.eval()
    g.add("bn.%s.eval" % name, m(x))
torch.manual_seed(0)
bn3d = nn.BatchNorm1d(2, affine=False, track_running_stats=False)
g.add("bn.untracked.train", bn3d(mk((3, 2, 4))))

# --- losses ---------------------------------------------------------------------------
logits = mk((4, 5), seed=1)
classes = torch.tensor([1, 0, 4, 2])
probs = torch.sigmoid(mk((3, 4), seed=2))
labels = (mk((3, 4), seed=5) > 0).float()
LOSSES = {
    "mse": (nn.MSELoss(), mk((3, 4)), mk((3, 4), seed=3)),
    "mse_sum": (nn.MSELoss(reduction="sum"), mk((3, 4)), mk((3, 4), seed=3)),
    "l1": (nn.L1Loss(), mk((3, 4)), mk((3, 4), seed=3)),
    "smoothl1": (nn.SmoothL1Loss(beta=0.5), mk((3, 4)), mk((3, 4), seed=3)),
    "crossentropy": (nn.CrossEntropyLoss(), logits, classes),
    "crossentropy_smooth": (nn.CrossEntropyLoss(label_smoothing=0.1, reduction="none"),
                            logits, classes),
    "nll": (nn.NLLLoss(reduction="sum"), F.log_softmax(logits, 1), classes),
    "nll_weight": (nn.NLLLoss(weight=torch.tensor([1.0, 2.0, 0.5, 1.0, 3.0])),
                   F.log_softmax(logits, 1), classes),
    "bce": (nn.BCELoss(), probs, labels),
    "bcelogits": (nn.BCEWithLogitsLoss(pos_weight=torch.tensor([1.0, 2.0, 0.5, 3.0])),
                  mk((3, 4), seed=2), labels),
}
for name, (m, x, t) in LOSSES.items():
    g.add("loss.%s.input" % name, x)
    g.add("loss.%s.target" % name, t)
    g.add("loss.%s.output" % name, m(x, t))

# --- printing -------------------------------------------------------------------------
torch.manual_seed(0)
seq = nn.Sequential(
    nn.Conv2d(1, 20, 5, stride=2, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.BatchNorm2d(20), nn.AvgPool2d(3, stride=2, padding=1), nn.AdaptiveAvgPool2d((2, 3)),
    nn.Flatten(), nn.Dropout(0.5), nn.Linear(120, 8, bias=False), nn.LeakyReLU(0.2),
    nn.GELU(), nn.GELU(approximate="tanh"), nn.Tanh(), nn.Sigmoid(), nn.Identity(),
    nn.Softmax(dim=1), nn.LogSoftmax(dim=1), nn.ReLU(inplace=True))
REPRS = {
    "net": modules["net"],
    "pools_given_as_tuples": nn.ModuleList([nn.MaxPool2d((2, 2)),
                                            nn.MaxPool2d((3, 2), stride=1, padding=(1, 0)),
                                            nn.AvgPool2d((2, 2), padding=1)]),
    "conv_padding_modes": nn.ModuleList([modules["conv2d_reflect"], modules["conv2d_circular_same"],
                                         modules["conv1d_replicate"]]),
    "sequential": seq,
    "convs": nn.ModuleList([nn.Conv1d(2, 4, 3, padding=1), nn.Conv2d(4, 6, (3, 2), stride=(2, 1),
                                                                     padding=(1, 0), groups=2,
                                                                     bias=False),
                            nn.Conv2d(2, 3, 3, padding="same", dilation=2),
                            nn.Conv2d(2, 3, 3, padding="valid")]),
    "norms": nn.ModuleList([nn.BatchNorm1d(4), nn.BatchNorm2d(3, momentum=None),
                            nn.BatchNorm1d(2, eps=1e-3, affine=False, track_running_stats=False),
                            nn.LayerNorm([2, 3]), nn.LayerNorm(5, elementwise_affine=False),
                            nn.Embedding(10, 3), nn.Embedding(6, 4, padding_idx=-2),
                            nn.Dropout(0.25), nn.MaxPool2d(3, stride=2, padding=1,
                                                           ceil_mode=True)]),
    "losses": nn.ModuleList([nn.MSELoss(), nn.L1Loss(), nn.SmoothL1Loss(), nn.CrossEntropyLoss(),
                             nn.NLLLoss(), nn.BCELoss(), nn.BCEWithLogitsLoss()]),
    "empty": nn.Sequential(),
    "linear": nn.Linear(3, 2),
    "nested": nn.Sequential(nn.Linear(3, 4), nn.Sequential(nn.ReLU(), nn.Linear(4, 2))),
}
for name, m in REPRS.items():
    strings.add("repr." + name, repr(m))


# --- state_dict and load_state_dict ----------------------------------------------------
class Small(nn.Module):
    def __init__(self, out=3, extra=False):
        super().__init__()
        self.fc = nn.Linear(3, out)
        self.bn = nn.BatchNorm1d(out)
        if extra:
            self.head = nn.Linear(out, 1)


small = Small()
sd = small.state_dict()
strings.add("state_dict.small", "\n".join(sd.keys()))
no_bias = dict(sd)
del no_bias["fc.bias"]
errors.err("load.missing", lambda: small.load_state_dict(no_bias))
extra = dict(sd)
extra["fc.scale"] = torch.zeros(1)
extra["x"] = torch.zeros(1)
errors.err("load.unexpected", lambda: small.load_state_dict(extra))
errors.err("load.size", lambda: Small(out=2).load_state_dict(sd))
errors.err("load.size_nonstrict", lambda: Small(out=2).load_state_dict(sd, strict=False))
both = dict(extra)
del both["bn.running_var"]
errors.err("load.all", lambda: Small(out=2, extra=True).load_state_dict(both))
# Not strict: what did not match comes back (printed as PyTorch's repr).
strings.add("load.nonstrict.missing", repr(Small().load_state_dict(no_bias, strict=False)))
strings.add("load.nonstrict.unexpected", repr(Small().load_state_dict(extra, strict=False)))
strings.add("load.nonstrict.both",
           repr(Small(extra=True).load_state_dict(both, strict=False)))
strings.add("load.nonstrict.none", repr(Small().load_state_dict(sd, strict=False)))

# --- ModuleDict: insertion order, replacing in place, pop ------------------------
torch.manual_seed(0)
md = nn.ModuleDict({"conv": nn.Conv2d(1, 2, 3), "act": nn.ReLU()})
md["fc"] = nn.Linear(2, 2)
md["conv"] = nn.Conv2d(1, 3, 3)
md.pop("act")
strings.add("repr.module_dict", repr(md))
strings.add("state_dict.module_dict", "\n".join(md.state_dict().keys()))
strings.add("repr.module_dict_empty", repr(nn.ModuleDict()))

g.write()
errors.write()
strings.write()
