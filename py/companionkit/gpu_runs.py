"""Every lesson's companion on this machine, as one prepared command, each writing its device report:

    .venv/bin/python -m companionkit.gpu_runs [--out docs/gpu-runs] [--lesson SLUG ...]

With two or more GPUs each lesson's script runs under torchrun with one process per GPU (NCCL);
with one GPU (or none) the notebook's plan runs instead (the single-device checks on the GPU, the
distributed ones on gloo CPU processes), so that a lone GPU still yields a report. Reports are
named <slug>-<device>.json. Repository tooling: not part of the download."""

import argparse
import re
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]


def device_label():
    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    name = torch.cuda.get_device_name(0) if gpus else "cpu"
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") + f"-x{gpus}", gpus


def companions(slugs):
    for toml in sorted(ROOT.glob("lessons/*/lesson.toml")):
        companion = tomllib.loads(toml.read_text(encoding="utf-8")).get("companion")
        if companion and (not slugs or toml.parent.name in slugs):
            yield toml.parent, companion


def command(lesson, companion, gpus, report):
    script, library = lesson / companion["script"], lesson / companion["library"]
    if gpus >= 2:
        return [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={gpus}",
                str(script), "--device-report", str(report)]
    code = (f"import sys; sys.path.insert(0, {str(library.parent)!r}); import companionkit as ck; "
            f"import {library.stem} as lib; r = ck.run_all(lib.companion); r.write_device_report({str(report)!r}); "
            "print(r.summary()); sys.exit(1 if r.failures() else 0)")
    return [sys.executable, "-c", code]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "gpu-runs"), help="folder for the reports")
    parser.add_argument("--lesson", action="append", default=[], help="only these lessons (slugs)")
    args = parser.parse_args(argv)
    label, gpus = device_label()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    print(f"device {label}: {'torchrun, NCCL, one process per GPU' if gpus >= 2 else 'the notebook plan'}", flush=True)
    failed = []
    for lesson, companion in companions(args.lesson):
        report = out / f"{lesson.name}-{label}.json"
        started = time.perf_counter()
        run = subprocess.run(command(lesson, companion, gpus, report), cwd=ROOT, capture_output=True, text=True)
        (out / f"{lesson.name}-{label}.log").write_text(run.stdout + run.stderr, encoding="utf-8")
        verdict = "passed" if run.returncode == 0 else f"FAILED (exit {run.returncode})"
        print(f"{lesson.name}: {verdict} in {time.perf_counter() - started:.0f} s -> {report.name}", flush=True)
        if run.returncode:
            failed.append(lesson.name)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
