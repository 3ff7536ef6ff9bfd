"""Worked examples that more than one lesson's companion runs, written once: the numbers the
pages print, and the verdict that each GPU of an example got the page's numbers. tp-mlp's MLP
example is the one fg-backward runs backwards."""

import torch

from .comparing import fmt, printed
from .tp import all_gather_list

# One token X = (1, 2), D = 2, F = 4, split over 2 GPUs: GPU i holds A's columns 2i, 2i+1 and B's
# rows 2i, 2i+1.
MLP_X = [[1.0, 2.0]]
MLP_A = [[1.0, 0.0, -1.0, 2.0], [0.0, 1.0, 1.0, -1.0]]
MLP_B = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 0.0]]
MLP_PARTIALS = ((0.841, 1.955), (0.841, 0.841))  # GPU0's and GPU1's GeLU(X A_i) B_i
MLP_Y = (1.682, 2.796)                            # their sum: g's all-reduce


def mlp(device):
    """The example's X (on `device`), A and B (on the CPU, for the lesson's shard), in float64."""
    f64 = torch.float64
    return torch.tensor(MLP_X, dtype=f64, device=device), torch.tensor(MLP_A, dtype=f64), torch.tensor(MLP_B, dtype=f64)


def expect_per_gpu(run, key, title, value, lesson, group, show=fmt):
    """One verdict of a worked example on ranks 0 and 1 (run.example_group's `group`): every GPU's
    `value`, gathered in rank order, is the page's number for that GPU (lesson[i]) as printed,
    three decimals. The detail shows each GPU's value with `show`."""
    values = all_gather_list(value, group)
    run.expect(key, title, all(printed(v, e) for v, e in zip(values, lesson)),
               "all_gather gave " + ", ".join(f"GPU{i} {show(v)}" for i, v in enumerate(values)))
