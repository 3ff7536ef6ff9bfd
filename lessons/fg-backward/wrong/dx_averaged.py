# catches: test_tp_mlp_backward::test_example_dX, test_tp_mlp_backward::test_dX[T=3 D=4 F=8 n=2], test_tp_mlp_backward::test_dX[T=1 D=8 F=16 n=4], test_tp_mlp_backward::test_dX[T=8 D=32 F=128 n=8], test_tp_mlp_backward::test_dX[T=5 D=4 F=8 n=8], test_tp_mlp_backward::test_dX[T=8 D=32 F=128 n=2], test_tp_mlp_backward::test_single_token[D=4 F=8 n=2], test_tp_mlp_backward::test_single_token[D=3 F=12 n=2], test_tp_mlp_backward::test_batch_of_one, test_tp_mlp_backward::test_quiet_gpu
# dX is the mean of the GPUs' dX_i instead of their sum.
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
            grads.append((np.outer(X, dZ_i), np.outer(H_i, dY)))
        else:
            grads.append((X.T @ dZ_i, H_i.T @ dY))
        dXs.append(dZ_i @ A_i.T)
    return sum(dXs) / len(dXs), grads
