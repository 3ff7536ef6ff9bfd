"""The tp-transformer companion checks under torchrun (the same checks as companion.ipynb):

    torchrun --standalone --nproc_per_node=2 tp_transformer_check.py [--device-report report.json]

NCCL with one process per GPU when every local process has a GPU, gloo on CPU otherwise (--cpu
forces it). Rank 0 prints every check and a summary; the exit status is 1 if any check failed."""

import companionkit
import tp_transformer_lib

if __name__ == "__main__":
    companionkit.torchrun_main(tp_transformer_lib.companion)
