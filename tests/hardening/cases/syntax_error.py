# case: A syntax error (a missing colon) on line 7.
# expect load: error ~ line 7 is not valid Python
# expect *: error ~ did not load
import numpy as np


def gelu(x)
    x = np.asarray(x, dtype=float)
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))
