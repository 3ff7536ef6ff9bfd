# catches: test_gelu_grad::test_python_floats, test_gelu_grad::test_values[negative], test_gelu_grad::test_values[positive], test_gelu_grad::test_tanh_not_erf, test_gelu_grad::test_shape[*], test_tp_mlp_backward::test_example_weight_grads, test_tp_mlp_backward::test_example_dX, test_tp_mlp_backward::test_weight_grads[*], test_tp_mlp_backward::test_dX[*], test_tp_mlp_backward::test_single_token[*], test_tp_mlp_backward::test_batch_of_one, test_tp_mlp_backward::test_quiet_gpu
# The derivative of the exact erf GeLU instead of the tanh approximation's.
import math

import numpy as np

C = np.sqrt(2.0 / np.pi)


def gelu(x):
    return 0.5 * x * (1.0 + np.tanh(C * (x + 0.044715 * x**3)))


def gelu_grad(x):
    x = np.asarray(x, dtype=float)
    erf = np.vectorize(math.erf)(x / math.sqrt(2.0))
    return 0.5 * (1.0 + erf) + x * np.exp(-0.5 * x**2) / math.sqrt(2.0 * math.pi)


def tp_mlp_backward(X, shards, dY):
    X, dY = np.asarray(X, dtype=float), np.asarray(dY, dtype=float)
    grads, dXs = [], []
    for A_i, B_i in shards:
        Z_i = X @ A_i
        H_i = gelu(Z_i)
        dZ_i = (dY @ B_i.T) * gelu_grad(Z_i)
        if X.ndim == 1:
            grads.append((np.outer(X, dZ_i), np.outer(H_i, dY)))
        else:
            grads.append((X.T @ dZ_i, H_i.T @ dY))
        dXs.append(dZ_i @ A_i.T)
    return sum(dXs), grads
