"""What starting a companion's ranks costs, with each way of starting them.

    .venv/bin/python bench/companion_launch_bench.py [--launches 3] [--world 2]

For `spawn` (every rank a fresh Python that imports torch), `forkserver-torch` (ranks forked from a
server that imported torch once per launching process) and `forkserver` (companionkit's
launch.start_ranks: the server also imported PyTorch's tensor-parallel API, which every rank of a
companion imports), starts `--world` ranks `--launches` times in one fresh process, each rank
importing DTensor and CommDebugMode and joining a gloo group, and prints the wall seconds of each
launch and of the whole process (CPU seconds are not comparable: the fork server's ranks are not
the launcher's children, so nothing waits for them and their time is not reported). A benchmark,
not a test.
"""
import argparse
import multiprocessing
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Each way of starting ranks: (start method, what the fork server imports; "PRELOAD": launch.PRELOAD).
WAYS = {"spawn": ("spawn", None), "forkserver-torch": ("forkserver", ["torch", "torch.distributed"]),
        "forkserver": ("forkserver", "PRELOAD")}


def rank(r, world, port):
    import torch.distributed.tensor.debug  # noqa: F401  what a companion's rank imports (DTensor, CommDebugMode)
    import torch.distributed.tensor.parallel  # noqa: F401

    from companionkit import launch

    launch.join("gloo", r, world, f"tcp://127.0.0.1:{port}", {"timeout_s": 120})
    launch.leave(r, 0)


def launches(method, count, world, preload):
    """In a fresh process: `count` launches of `world` ranks started with `method` (a fork server
    that imports `preload`)."""
    import torch.multiprocessing as mp

    from companionkit import launch

    if method == "forkserver":
        multiprocessing.set_forkserver_preload(launch.PRELOAD if preload == "PRELOAD" else preload)
    for i in range(count):
        t = time.perf_counter()
        mp.start_processes(rank, args=(world, launch.free_port()), nprocs=world, join=True, start_method=method)
        print(f"  launch {i + 1}: {time.perf_counter() - t:.2f} s", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--launches", type=int, default=3)
    parser.add_argument("--world", type=int, default=2)
    parser.add_argument("--child", choices=WAYS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        method, preload = WAYS[args.child]
        return launches(method, args.launches, args.world, preload)
    for way in WAYS:
        started = time.perf_counter()
        print(f"{way}, {args.world} ranks:", flush=True)
        subprocess.run([sys.executable, __file__, "--child", way, "--launches", str(args.launches),
                        "--world", str(args.world)], check=True, env={"PYTHONPATH": str(ROOT / "py"), "PATH": "/usr/bin:/bin"})
        print(f"  {time.perf_counter() - started:.1f} s in all, with the process's own start", flush=True)


if __name__ == "__main__":
    main()
