"""What this lesson reuses from the lesson "Tensor-parallel MLP (Megatron-LM)": GPT-2's GeLU."""
import numpy as np


def gelu(x):
    """GPT-2's tanh approximation of GeLU, elementwise: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x³)))."""
    x = np.asarray(x, dtype=float)
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))
