"""Starting the processes: NCCL with one process per GPU when there are at least two GPUs, gloo on
CPU processes otherwise; started from a notebook (start_ranks) or by torchrun."""

import argparse
import datetime
import importlib
import json
import os
import socket
import sys
import tempfile
import time
from dataclasses import dataclass, field

import torch
import torch.distributed as dist

from .measure import threads_per_rank
from .registry import SectionFailed
from .results import Results, environment

WORLD_SIZES_VARIABLE = "TP_COMPANION_WORLD_SIZES"
OPTIONS_VARIABLE = "TP_COMPANION_OPTIONS"
# What the fork server imports once for every launch (see start_ranks).
PRELOAD = ["torch", "torch.distributed", "torch.distributed.tensor.parallel", "torch.distributed.tensor.debug"]


@dataclass
class Plan:
    backend: str
    world_sizes: list
    local_device: object = None  # the one GPU, where the local sections also run
    notes: list = field(default_factory=list)


def gpu_count():
    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def plan(world_sizes=None):
    """Which backend and which N: `world_sizes`, else $TP_COMPANION_WORLD_SIZES, else a default
    for the machine. Raises ValueError for an N that NCCL cannot give one GPU per process."""
    gpus = gpu_count()
    if world_sizes is None and os.environ.get(WORLD_SIZES_VARIABLE):
        world_sizes = [int(n) for n in os.environ[WORLD_SIZES_VARIABLE].split(",")]
    if gpus >= 2:
        sizes = list(world_sizes or [n for n in (2, 4, 8) if n <= gpus])
        too_many = [n for n in sizes if n > gpus]
        if too_many:
            raise ValueError(f"N = {too_many} asks for more processes than the {gpus} GPUs here "
                             f"(NCCL runs one process per GPU): choose N <= {gpus}")
        result = Plan("nccl", sizes, notes=[f"{gpus} GPUs ({torch.cuda.get_device_name(0)}): NCCL, one process per GPU"])
    elif gpus == 1:
        result = Plan("gloo", list(world_sizes or [2, 4]), local_device=torch.device("cuda", 0), notes=[
            f"ONE GPU ({torch.cuda.get_device_name(0)}). Tensor parallelism needs at least two devices, so the "
            "distributed checks run on CPU processes with gloo; the single-device checks also run on the GPU. "
            "On a machine with 2 or more GPUs the same notebook uses NCCL, one process per GPU."])
    else:
        result = Plan("gloo", list(world_sizes or [2, 4]), notes=["No GPU: every check runs on CPU processes with gloo."])
    if any(n < 2 for n in result.world_sizes):
        raise ValueError(f"N = {result.world_sizes}: tensor parallelism needs N >= 2 processes")
    if result.backend == "gloo":
        result.notes.append(f"{os.cpu_count()} CPU cores: {', '.join(f'N = {n} gets {threads_per_rank(n)} thread(s) per process' for n in result.world_sizes)}.")
    return result


def run_all(companion, world_sizes=None, **options):
    """Run every check for each N of the plan (and the local sections on a lone GPU); prints the
    plan and one line per run, and returns the Results. $TP_COMPANION_OPTIONS (a JSON object)
    overrides the companion's options, and `options` override both."""
    chosen = plan(world_sizes)
    options = {**json.loads(os.environ.get(OPTIONS_VARIABLE) or "{}"), **options}
    for note in chosen.notes + ([f"{OPTIONS_VARIABLE}: {options}"] if os.environ.get(OPTIONS_VARIABLE) else []):
        print(note)
    results = Results(companion)
    if chosen.local_device is not None:
        results.add(companion.run(0, 1, chosen.local_device, "none", options, local_only=True))
    for n in chosen.world_sizes:
        results.add(launch(companion, n, chosen.backend, **options))
    return results


class RunAborted(RuntimeError):
    """A rank raised: every rank was stopped, and this says which rank, where and what."""


def launch(companion, world, backend, **options):
    """Spawn `world` processes that run every check; return rank 0's report. Raises RunAborted
    with the rank's error when a section raised on one (the other ranks are stopped at once)."""
    if backend == "nccl" and world > gpu_count():
        raise ValueError(f"N = {world} asks for more processes than the {gpu_count()} GPUs here")
    from torch.multiprocessing.spawn import ProcessException

    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "report.json")
        try:
            start_ranks(_spawned, (world, backend, free_port(), companion.module, out, options), world)
        except ProcessException as exc:
            failures = aborted_ranks(tmp)
            if not failures:
                raise
            first, *then = failures  # the first to raise is the cause; the others saw it leave
            raise RunAborted(f"N = {world}: rank {first['rank']} raised in section {first['section']!r}: {first['error']}"
                             + "".join(f"; then rank {f['rank']}: {f['error']}" for f in then)
                             + f" (every rank stopped, {time.perf_counter() - started:.1f} s after the launch)") from None
        with open(out) as fh:
            report = json.load(fh)
    report["wall_s"] = round(time.perf_counter() - started, 3)
    print(Results.run_line(report), flush=True)
    return report


def start_ranks(fn, args, world):
    """Run fn(rank, *args) in `world` new processes and wait for them (torch's ProcessException
    when one fails). Where the platform has it (Linux, macOS), the processes are forked from
    multiprocessing's fork server, which imports torch once for every launch from this process:
    a notebook's runs, or the mutation suite's, pay one torch start instead of one per rank per
    launch. The server imports torch and PyTorch's tensor-parallel API (DTensor, CommDebugMode:
    seconds of imports a rank would otherwise pay at each launch) and nothing else (each rank
    imports companionkit and the library from its own sys.path, the launcher's); none of them
    initialises a GPU, so ranks may still use CUDA."""
    import multiprocessing

    import torch.multiprocessing as mp

    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    if method == "forkserver":
        multiprocessing.set_forkserver_preload(PRELOAD)
    mp.start_processes(fn, args=args, nprocs=world, join=True, start_method=method)


def aborted_ranks(folder):
    """The failure records the ranks that raised left in `folder` (see abort), first raised first."""
    records = []
    for name in sorted(os.listdir(folder)):
        if name.startswith("aborted-rank") and name.endswith(".json"):  # not a .part being written
            with open(os.path.join(folder, name)) as fh:
                records.append(json.load(fh))
    return sorted(records, key=lambda r: r["at"])


def _spawned(rank, world, backend, port, module, out, options):
    companion = importlib.import_module(module).companion
    device = join(backend, rank, world, f"tcp://127.0.0.1:{port}", companion.options | options)
    try:
        report = companion.run(rank, world, device, backend, options)
    except SectionFailed as failure:
        abort(failure, os.path.dirname(out))
    if rank == 0:
        with open(out, "w") as fh:
            json.dump(report, fh)
    leave(rank, 0)


def abort(failure, folder=None):
    """This rank raised: say so on stderr with its traceback, leave its record in `folder` for the
    launcher, and end the process at once, without another collective or a teardown that could
    wait on ranks still inside the section's collectives. Whoever started the ranks (start_ranks,
    torchrun) stops the others when one exits with an error."""
    print(f"companionkit: {failure}\n{failure.trace}", file=sys.stderr, flush=True)
    if folder is not None:
        publish_json(os.path.join(folder, f"aborted-rank{failure.rank}.json"), {**failure.record(), "at": failure.at})
    exit_now(1)


def publish_json(path, record, exclusive=False):
    """Writes `record` to `path` whole or not at all: the launcher ends the other ranks (SIGTERM)
    as soon as one exits with an error, which may be while a rank is still writing its record, so
    it is written beside the path first and then linked into place. `exclusive`: FileExistsError
    when `path` exists already (the first rank to publish keeps it)."""
    partial = f"{path}.{os.getpid()}.part"
    try:
        with open(partial, "w") as fh:
            json.dump(record, fh)
        if exclusive:
            os.link(partial, path)
        else:
            os.replace(partial, path)
    finally:
        if os.path.exists(partial):
            os.unlink(partial)


def leave(rank, status):
    """The end of a rank that ran to its end: tear the process group down, and report an error
    in doing so (as exit status 3) instead of hiding it."""
    try:
        dist.destroy_process_group()
    except Exception as exc:  # reported, and the run fails: the checks may have passed, the teardown did not
        print(f"companionkit: rank {rank}: tearing down the process group failed: {type(exc).__name__}: {exc}",
              file=sys.stderr, flush=True)
        status = status or 3
    exit_now(status)


def join(backend, rank, world, init_method, options, local_rank=None):
    """Set this process's threads and device and join the process group; returns the device."""
    local_rank = rank if local_rank is None else local_rank
    if backend == "nccl":
        torch.cuda.set_device(local_rank)
        device = torch.device("cuda", local_rank)
    else:
        # N processes share the machine's cores: each gets its share, and a one-device baseline
        # must get the same (measure.threads_per_rank).
        torch.set_num_threads(threads_per_rank(world))
        device = torch.device("cpu")
    dist.init_process_group(backend, init_method=init_method, rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=options["timeout_s"]),
                            device_id=device if backend == "nccl" else None)
    return device


def exit_now(status):
    """Leave without running C++ static destructors, once the Python teardown is done (its errors
    are reported by leave): about one run in six, torch 2.13's gloo aborts in those destructors
    after a clean destroy_process_group ("terminate called without an active exception") while a
    background thread is still alive. Every report is written by then."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def torchrun_main(companion, argv=None):
    """The torchrun script's body: run every check on this rank, print (rank 0), exit 0 when all passed."""
    parser = argparse.ArgumentParser(description=f"The {companion.lesson} companion checks, under torchrun.")
    parser.add_argument("--device-report", metavar="PATH",
                        help="write a JSON of every check with the device, versions and timings")
    parser.add_argument("--cpu", action="store_true", help="gloo on CPU processes even when there are GPUs")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=JSON",
                        help=f"override an option; defaults: {json.dumps(companion.options)}")
    args = parser.parse_args(argv)
    options = {}
    for item in args.option:
        name, _, value = item.partition("=")
        if name not in companion.options:
            parser.error(f"unknown option {name!r}; known: {', '.join(companion.options)}")
        options[name] = json.loads(value)

    rank, world = int(os.environ.get("RANK", 0)), int(os.environ.get("WORLD_SIZE", 1))
    local_rank, local_world = int(os.environ.get("LOCAL_RANK", 0)), int(os.environ.get("LOCAL_WORLD_SIZE", 1))
    if "RANK" not in os.environ or world < 2:
        parser.error("start it with torchrun and at least 2 processes: "
                     "torchrun --standalone --nproc_per_node=2 " + os.path.basename(sys.argv[0]))
    gpus = gpu_count()
    if args.cpu or gpus == 0:
        backend = "gloo"
    elif gpus >= local_world:
        backend = "nccl"
    else:
        if local_rank == 0:
            instead = (f"run --nproc_per_node={gpus} for NCCL, or add --cpu" if gpus >= 2 else "add --cpu")
            print(f"{local_world} processes on this machine but {gpus} GPU{'s' * (gpus != 1)}: NCCL needs one GPU per "
                  f"process; {instead} to run every check on CPU processes with gloo.", file=sys.stderr)
        exit_now(2)
    device = join(backend, rank, world, "env://", companion.options | options, local_rank=local_rank)
    if rank == 0:
        env = environment()
        print(f"torch {env['torch']}, backend {backend}, world size {world}, device {torch.cuda.get_device_name(device) if backend == 'nccl' else 'CPU'}"
              + ("" if backend == "nccl" else f", {torch.get_num_threads()} thread(s) per process")
              + (f" (NCCL {env['nccl']})" if backend == "nccl" else ""), flush=True)
        if backend == "gloo" and gpus:
            print(f"--cpu: the {gpus} GPU(s) here are not used.", flush=True)
    try:
        report = companion.run(rank, world, device, backend, options, echo=True)
    except SectionFailed as failure:
        abort(failure)  # torchrun stops the other ranks when this one exits with an error
    passed = True
    if rank == 0:
        results = Results(companion)
        results.add(report)
        print("\n" + results.summary(), flush=True)
        passed = not results.failures()
        if args.device_report:
            results.write_device_report(args.device_report)
            print(f"device report: {args.device_report}", flush=True)
    verdict = torch.tensor([int(passed)], device=device)
    dist.broadcast(verdict, 0)
    leave(rank, 0 if verdict.item() else 1)
