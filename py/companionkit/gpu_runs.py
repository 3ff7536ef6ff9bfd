"""Every lesson's companion on this machine, for each N it allows, as one prepared command:

    .venv/bin/python -m companionkit.gpu_runs [--out docs/gpu-runs] [--lesson SLUG ...] [--sizes 2,4,8]
                                              [--timeout 900] [--cpu] [--quick]

Each lesson is run as a practitioner runs its download: the zip's files in a fresh folder,
`torchrun --standalone --nproc_per_node=N <slug_>_check.py`. With GPUs, N sweeps 2, 4, 8 up to the
GPU count (NCCL, one process per GPU); with fewer than two GPUs, or --cpu, gloo on CPU processes
(N = 2 unless --sizes says otherwise). Every run has a timeout and writes, in --out (relative to
the folder the command is run from):
  <slug>-N<n>.json  the device report, with the machine (commit, GPU model, driver, NCCL version,
                    `nvidia-smi topo -m`, the fp32 precision settings), the command, exit status, time
  <slug>-N<n>.log   its output
  summary.md        one row per lesson and N
Repository tooling: not part of the download."""

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from authorkit.course import Course

from . import bundle

ROOT = Path(__file__).resolve().parents[2]
WORLD_SIZES = (2, 4, 8)


def companions(slugs=()):
    """(lesson folder, its [companion] table) of every lesson that has one, or of the named ones,
    in course order."""
    for lesson in Course(ROOT / "lessons").lessons():
        if lesson.companion and (not slugs or lesson.id in slugs):
            yield lesson.path, lesson.companion


def _output(cmd):
    """A command's stdout, or None when it is not there or fails."""
    try:
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return run.stdout.strip() if run.returncode == 0 else None


def machine():
    """What a record must say about where it ran (None where this machine cannot tell)."""
    import torch

    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    nccl = None
    if gpus:
        version = torch.cuda.nccl.version()
        nccl = ".".join(map(str, version)) if isinstance(version, tuple) else str(version)
    return {"commit": _output(["git", "-C", str(ROOT), "rev-parse", "HEAD"]),
            "dirty": bool(_output(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"])),
            "gpus": gpus, "gpu_models": [torch.cuda.get_device_name(i) for i in range(gpus)],
            "driver": _output(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"]) if gpus else None,
            "nccl": nccl, "cuda": torch.version.cuda, "torch": torch.__version__,
            "topology": _output(["nvidia-smi", "topo", "-m"]) if gpus else None,
            "cpu_count": os.cpu_count()}


def unpack(lesson, companion, folder):
    """The lesson's download (the zip's files) in `folder`; returns its torchrun script's name."""
    names = bundle.write_downloads(lesson, lesson.name, lesson.name, companion, folder / "site")
    with zipfile.ZipFile(folder / "site" / names["zip"]) as z:
        z.extractall(folder)
    return folder / f"{lesson.name}-companion", names["script"]


def quick_options(lesson):
    """The small sizes of the lesson's mutation suite (companion/mutations.toml): a smoke run."""
    from .mutate import load

    return load(lesson / "companion" / "mutations.toml").options


def run_one(lesson, companion, n, cpu, options, timeout, out, about):
    """One lesson at N processes; returns its summary row (and writes its JSON and log)."""
    stem = f"{lesson.name}-N{n}"
    report, log = out / f"{stem}.json", out / f"{stem}.log"
    with tempfile.TemporaryDirectory(prefix="gpu-runs-") as tmp:
        folder, script = unpack(lesson, companion, Path(tmp))
        command = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={n}", script,
                   "--device-report", str(report.resolve()), *(["--cpu"] if cpu else []),
                   *[arg for name, value in options.items() for arg in ("--option", f"{name}={json.dumps(value)}")]]
        env = {**os.environ, "PYTHONPATH": ""}  # the download's own companionkit, not the repository's
        started = time.perf_counter()
        process = subprocess.Popen(command, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   text=True, start_new_session=True)
        try:
            text, _ = process.communicate(timeout=timeout)
            status, timed_out = process.returncode, False
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)  # torchrun and every rank it started
            text, _ = process.communicate()
            status, timed_out = None, True
        seconds = round(time.perf_counter() - started, 1)
    log.write_text(text, encoding="utf-8")
    record = json.loads(report.read_text()) if report.exists() else {"runs": []}
    checks = [c for r in record["runs"] for c in r["checks"]]
    run = record["runs"][0] if record["runs"] else {}
    record["gpu_run"] = {"lesson": lesson.name, "world": n, "command": ["torchrun", *command[3:]],
                         "exit_status": status, "timed_out": timed_out, "timeout_s": timeout, "seconds": seconds,
                         "options": options, "backend": run.get("backend"), "precision": run.get("precision"),
                         "machine": about}
    report.write_text(json.dumps(record, indent=1), encoding="utf-8")
    counts = {s: sum(c["status"] == s for c in checks) for s in ("PASS", "FAIL", "SKIP")}
    return {"lesson": lesson.name, "N": n, "backend": run.get("backend", "?"), "device": run.get("device_name", "?"),
            "passed": counts["PASS"], "failed": counts["FAIL"], "skipped": counts["SKIP"], "seconds": seconds,
            "result": "timed out" if timed_out else ("ok" if status == 0 else f"exit {status}"),
            "report": report.name}


def table(rows, about):
    """The markdown summary of every run."""
    columns = ["lesson", "N", "backend", "device", "passed", "failed", "skipped", "seconds", "result", "report"]
    lines = [f"# Companion runs\n\n{about}\n", "| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(str(row[c]) for c in columns) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="docs/gpu-runs", help="folder for the records, relative to this folder")
    parser.add_argument("--lesson", action="append", default=[], help="only these lessons (slugs)")
    parser.add_argument("--sizes", help="N values, e.g. 2,4 (default: 2, 4, 8 up to the GPU count; 2 on CPU)")
    parser.add_argument("--timeout", type=float, default=900, help="seconds before one run is stopped")
    parser.add_argument("--cpu", action="store_true", help="gloo on CPU processes even when there are GPUs")
    parser.add_argument("--quick", action="store_true", help="the mutation suite's small sizes (a smoke run)")
    args = parser.parse_args(argv)
    about = machine()
    cpu = args.cpu or about["gpus"] < 2
    sizes = ([int(n) for n in args.sizes.split(",")] if args.sizes
             else [2] if cpu else [n for n in WORLD_SIZES if n <= about["gpus"]])
    if not cpu and max(sizes) > about["gpus"]:
        parser.error(f"N = {max(sizes)} needs {max(sizes)} GPUs; this machine has {about['gpus']}")
    out = Path(args.out)  # relative paths are the caller's, like every other path it prints
    out.mkdir(parents=True, exist_ok=True)
    where = ("gloo on CPU processes" if cpu else f"NCCL on {about['gpus']} × {about['gpu_models'][0]}")
    print(f"{where}; N = {', '.join(map(str, sizes))}; records in {out}", flush=True)
    rows = []
    for lesson, companion in companions(args.lesson):
        options = quick_options(lesson) if args.quick else {}
        for n in sizes:
            row = run_one(lesson, companion, n, cpu, options, args.timeout, out, about)
            rows.append(row)
            print(f"{lesson.name} N={n}: {row['result']}, {row['passed']} passed, {row['failed']} failed, "
                  f"{row['skipped']} skipped in {row['seconds']} s -> {out / row['report']}", flush=True)
    about_text = (f"{where}, commit {about['commit'] or 'unknown'}{' (with uncommitted changes)' if about['dirty'] else ''}, "
                  f"torch {about['torch']}" + (f", driver {about['driver']}, NCCL {about['nccl']}" if not cpu else "")
                  + (", the mutation suite's small sizes (--quick)" if args.quick else ""))
    (out / "summary.md").write_text(table(rows, about_text), encoding="utf-8")
    print(table(rows, about_text), flush=True)
    return 1 if any(row["result"] != "ok" for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
