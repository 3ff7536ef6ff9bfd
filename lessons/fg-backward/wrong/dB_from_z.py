# catches: test_tp_mlp_backward::test_example_weight_grads, test_tp_mlp_backward::test_weight_grads[*], test_tp_mlp_backward::test_single_token[*], test_tp_mlp_backward::test_batch_of_one, test_tp_mlp_backward::test_quiet_gpu
# dB_i is built from Z_i = X A_i instead of H_i = GeLU(Z_i).
import numpy as np

C = np.sqrt(2.0 / np.pi)


def gelu(x):
    return 0.5 * x * (1.0 + np.tanh(C * (x + 0.044715 * x**3)))


def gelu_grad(x):
    x = np.asarray(x, dtype=float)
    t = np.tanh(C * (x + 0.044715 * x**3))
    return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t**2) * C * (1.0 + 3 * 0.044715 * x**2)


def tp_mlp_backward(X, shards, dY):
    X, dY = np.asarray(X, dtype=float), np.asarray(dY, dtype=float)
    grads, dXs = [], []
    for A_i, B_i in shards:
        Z_i = X @ A_i
        H_i = gelu(Z_i)
        dZ_i = (dY @ B_i.T) * gelu_grad(Z_i)
        if X.ndim == 1:
            grads.append((np.outer(X, dZ_i), np.outer(Z_i, dY)))
        else:
            grads.append((X.T @ dZ_i, Z_i.T @ dY))
        dXs.append(dZ_i @ A_i.T)
    return sum(dXs), grads
