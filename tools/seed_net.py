"""Seed 003's MNIST network in PyTorch, the twin of trainers/mnist_net.cc and
benchmarks/train_step_cases.h, for the tools that time PyTorch beside ember
(ddp_torch.py, mnist_epoch_torch.py)."""
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 20, 5, 1)
        self.conv2 = nn.Conv2d(20, 50, 5, 1)
        self.fc1 = nn.Linear(4 * 4 * 50, 500)
        self.fc2 = nn.Linear(500, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2, 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2, 2)
        x = x.view(-1, 4 * 4 * 50)
        return self.fc2(F.relu(self.fc1(x)))
