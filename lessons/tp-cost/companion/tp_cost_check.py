"""The tp-cost companion under torchrun (the same checks as companion.ipynb):

    torchrun --standalone --nproc_per_node=2 tp_cost_check.py [--device-report report.json] [--option solution="path/solution.py"]

NCCL with one process per GPU when every local process has a GPU, gloo on CPU otherwise (--cpu
forces it). Rank 0 prints every check, the measured all-reduce and layer timings and a summary;
the exit status is 1 if any check failed (timings are never verdicts)."""

import companionkit
import tp_cost_lib

if __name__ == "__main__":
    companionkit.torchrun_main(tp_cost_lib.companion)
