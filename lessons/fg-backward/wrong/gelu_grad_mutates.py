# catches: test_gelu_grad::test_input_unchanged
# gelu_grad computes in place, overwriting the array it was given.
import numpy as np

C = np.sqrt(2.0 / np.pi)


def gelu(x):
    return 0.5 * x * (1.0 + np.tanh(C * (x + 0.044715 * x**3)))


def gelu_grad(x):
    x = np.asarray(x, dtype=float)
    t = np.tanh(C * (x + 0.044715 * x**3))
    du = C * (1.0 + 3 * 0.044715 * x**2)
    x *= 0.5 * (1.0 - t**2) * du  # reuses x's memory for the product rule's second term
    return 0.5 * (1.0 + t) + x


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
