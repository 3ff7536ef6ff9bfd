"""The lessons' formulas written out with plain torch: what a check compares a model with, never
the code under test."""

import math

import torch


def gelu_tanh(x):
    """GPT-2's GeLU as the lessons write it: x/2 · (1 + tanh(√(2/π) · (x + 0.044715 x³)))."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))
