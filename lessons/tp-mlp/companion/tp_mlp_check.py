"""The companion checks of the tensor-parallel MLP lesson, under torchrun.

    torchrun --standalone --nproc_per_node=N tp_mlp_check.py            # one machine
    torchrun --nnodes=M --nproc_per_node=N --rdzv_endpoint=HOST:PORT tp_mlp_check.py   # several

With a GPU for every local process it uses NCCL, one process per GPU; otherwise gloo on CPU.
Rank 0 prints every check (PASS or FAIL with the numbers compared) and a summary table; the exit
status is 1 if any check failed. The checks live in tp_mlp_lib.py, shared with companion.ipynb.
"""

import argparse
import os

import torch
import torch.distributed as dist

import tp_mlp_lib as lib


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", help="model widths D timed in check 8 (F = 4D); "
                        "default 256 512 on CPU, 1024 4096 on GPU")
    parser.add_argument("--tokens", type=int, help="tokens T per step in check 8; default 64 on CPU, 2048 on GPU")
    parser.add_argument("--warmup", type=int, default=3, help="untimed steps before timing")
    parser.add_argument("--repeats", type=int, default=10, help="timed steps; the median is reported")
    args = parser.parse_args()

    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    local_world = int(os.environ.get("LOCAL_WORLD_SIZE", 1))
    on_gpus = torch.cuda.is_available() and torch.cuda.device_count() >= local_world and int(os.environ.get("WORLD_SIZE", 1)) >= 2
    backend = "nccl" if on_gpus else "gloo"
    device = lib.device_for(backend, local_rank)
    dist.init_process_group(backend, device_id=device if on_gpus else None)
    rank, world = dist.get_rank(), dist.get_world_size()
    if rank == 0:
        name = torch.cuda.get_device_name(device) if on_gpus else "CPU"
        print(f"torch {torch.__version__}, backend {backend}, world size {world}, device {name}", flush=True)
    try:
        report = lib.run_checks(lib.Ctx(rank, world, device, echo=True), sizes=args.sizes,
                                tokens=args.tokens, warmup=args.warmup, repeats=args.repeats)
        all_passed = lib.agree(rank != 0 or not lib.failures([report]), lib.Ctx(rank, world, device, echo=False))
    finally:
        dist.destroy_process_group()
    return 0 if all_passed else 1


if __name__ == "__main__":
    lib.exit_now(main())
