# case: The file raises while it is imported (a division by zero at line 6).
# expect load: error ~ ZeroDivisionError at line 6 of solution.py
# expect *: error ~ did not load
import numpy as np

SCALE = 1 / 0


def gelu(x):
    return x
