#!/usr/bin/python3
"""The Python original of examples/lenet.cc (seed 003's LeNet walk-through).

Run with Debian's PyTorch (python3-torch, 1.13):
    /usr/bin/python3 tools/golden/lenet.py > examples/lenet.expected
examples:lenet_test compares ember's output with this file. Every value
is deterministic: ember's generator reproduces PyTorch's under manual_seed.
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class Net(nn.Module):
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
        x = x.view(-1, self.num_flat_features(x))
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)

    def num_flat_features(self, x):
        n = 1
        for s in x.size()[1:]:
            n *= s
        return n


def shape(t):
    return "torch.Size([" + ", ".join(str(s) for s in t.shape) + "])"


def main():
    torch.manual_seed(0)
    net = Net()
    print(net)

    params = list(net.parameters())
    print(len(params))
    print(shape(params[0]))  # conv1's weight

    input = torch.randn(1, 1, 32, 32)
    output = net(input)
    print(output)

    target = torch.randn(10).reshape(1, -1)
    criterion = nn.MSELoss()
    loss = criterion(output, target)
    print(loss)
    # The graph behind the loss, as the seed follows it back.
    print(loss.grad_fn.name())                            # MSELoss
    print(loss.grad_fn.next_functions[0][0].name())       # Linear (fc3)
    print(loss.grad_fn.next_functions[0][0].next_functions[0][0].name())

    net.zero_grad()
    print("conv1.bias.grad before backward")
    print(net.conv1.bias.grad)
    loss.backward()
    print("conv1.bias.grad after backward")
    print(net.conv1.bias.grad)

    optimizer = optim.SGD(net.parameters(), lr=0.01)
    optimizer.zero_grad()
    output = net(input)
    loss = criterion(output, target)
    loss.backward()
    optimizer.step()
    print("loss after one SGD step")
    print(criterion(net(input), target))

    print("Model's state_dict:")
    for name, t in net.state_dict().items():
        print(name, "\t", shape(t))

    path = os.path.join(tempfile.mkdtemp(), "lenet.pt")
    torch.save(net.state_dict(), path)
    net2 = Net()
    net2.load_state_dict(torch.load(path))
    print("loaded model gives the same output:", bool(torch.equal(net2(input), net(input))))


if __name__ == "__main__":
    main()
