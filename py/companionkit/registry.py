"""A companion's checks: sections registered on a Companion, run on every rank, verdicts agreed."""

import inspect
import os
import sys
import time
import traceback
from dataclasses import dataclass, field

import torch
import torch.distributed as dist

DEFAULT_OPTIONS = {"timeout_s": 120}


@dataclass
class Section:
    id: str
    title: str
    fn: object
    local: bool  # runs no collective, so it may also run alone on one device


class Companion:
    """The checks of one lesson. `module` is the defining module's `__name__`: spawned processes
    import it afresh to find this object again (as the attribute `companion`)."""

    def __init__(self, module, lesson, options=None):
        self.module = module
        self.lesson = lesson
        self.options = {**DEFAULT_OPTIONS, **(options or {})}
        self.sections = []

    def section(self, id, title, local=False):
        if "/" in id or any(s.id == id for s in self.sections):
            raise ValueError(f"section id {id!r} must be unique and contain no '/'")

        def register(fn):
            self.sections.append(Section(id, title, fn, local))
            return fn

        return register

    def run(self, rank, world, device, backend, options=None, echo=False, local_only=False):
        """Every section (or only the local ones) on this rank; every rank must call it. Returns
        rank 0's report (a dict, see results.py), None on the other ranks. A section that raises
        raises SectionFailed here at once, with no further collective: the other ranks may be
        inside the section's collectives, so the launcher must stop them (see launch.abort)."""
        options = {**self.options, **(options or {})}
        started = time.perf_counter()
        report = {"lesson": self.lesson, "world": world, "backend": backend, "device": str(device),
                  "device_name": device_name(device), "threads_per_rank": torch.get_num_threads(),
                  "precision": pin_precision(), "local_only": local_only,
                  "code": [os.path.abspath(__file__), inspect.getsourcefile(sys.modules[self.module])],
                  "sections": [], "checks": [], "data": {}}
        groups = {}  # one communicator per group of ranks for the whole run, destroyed at its end
        for section in self.sections:
            if local_only and not section.local:
                continue
            run = Run(self, section, rank, world, device, backend, options, report, echo, groups=groups)
            run.say(f"\n== {section.title} ==")
            t0 = time.perf_counter()
            try:
                section.fn(run)
            except Exception as exc:
                # The groups are left to the process's end: destroying one could wait on the others.
                raise SectionFailed(rank, section.id, f"{type(exc).__name__}: {exc}", traceback.format_exc()) from exc
            report["sections"].append({"id": section.id, "title": section.title,
                                       "seconds": round(time.perf_counter() - t0, 3), "lines": run.lines})
        for group in groups.values():
            if group is not dist.GroupMember.NON_GROUP_MEMBER:
                dist.destroy_process_group(group)
        report["duration_s"] = round(time.perf_counter() - started, 3)
        return report if rank == 0 else None


class SectionFailed(Exception):
    """A section raised on this rank: the run cannot go on (the ranks' collectives no longer match)."""

    def __init__(self, rank, section, error, trace=""):
        super().__init__(f"rank {rank} raised in section {section!r}: {error}")
        self.rank, self.section, self.error, self.trace = rank, section, error, trace
        self.at = time.time()  # when it raised: of several ranks' failures, the first is the cause

    def record(self):
        return {"rank": self.rank, "section": self.section, "error": self.error}


def pin_precision():
    """fp32 matrix products in full fp32: on Ampere and later GPUs cuBLAS and cuDNN may otherwise
    use TF32 (10-bit mantissas), which the fp32 tolerances do not allow. Returns what is set, for
    the report."""
    backends = torch.backends
    if hasattr(backends.cuda.matmul, "fp32_precision"):  # torch >= 2.9
        backends.cuda.matmul.fp32_precision = "ieee"
        backends.cudnn.conv.fp32_precision = "ieee"
        return {"matmul_fp32_precision": backends.cuda.matmul.fp32_precision,
                "cudnn_conv_fp32_precision": backends.cudnn.conv.fp32_precision,
                "float32_matmul_precision": torch.get_float32_matmul_precision()}
    backends.cuda.matmul.allow_tf32 = False
    backends.cudnn.allow_tf32 = False
    return {"matmul_allow_tf32": backends.cuda.matmul.allow_tf32, "cudnn_allow_tf32": backends.cudnn.allow_tf32,
            "float32_matmul_precision": torch.get_float32_matmul_precision()}


def device_name(device):
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    import platform

    return f"CPU ({platform.processor() or platform.machine()})"


@dataclass
class Run:
    """What a section sees: where it runs, its options, and how it reports."""

    companion: Companion
    section: Section
    rank: int
    world: int
    device: torch.device
    backend: str
    options: dict
    report: dict
    echo: bool
    lines: list = field(default_factory=list)
    groups: dict = field(default_factory=dict)  # shared by the run's sections: {ranks: group}

    @property
    def distributed(self):
        return dist.is_available() and dist.is_initialized()

    def say(self, text):
        if self.rank == 0:
            self.lines.append(text)
            if self.echo:
                print(text, flush=True)

    def info(self, text):
        """A line of rank 0's output, shown with this section."""
        self.say(text)

    def data(self, name, value):
        """JSON-able numbers for the report; rank 0's value is kept (appended under `name`)."""
        if self.rank == 0:
            self.report["data"].setdefault(name, []).append(value)

    def expect(self, key, title, ok, detail):
        """One verdict, `<section>/<key>`: PASS only if `ok` holds on every rank."""
        failed_ranks = [self.rank] if not ok else []
        if self.distributed:
            flags = torch.zeros(self.world, dtype=torch.int32, device=self.device)
            flags[self.rank] = 0 if ok else 1
            dist.all_reduce(flags)
            failed_ranks = [r for r, f in enumerate(flags.tolist()) if f]
            if failed_ranks and failed_ranks[0] != 0:
                # Rank 0's detail would describe a success: show the first failing rank's.
                details = [None] * self.world
                dist.all_gather_object(details, detail)
                detail = f"on rank {failed_ranks[0]}: {details[failed_ranks[0]]}"
        status = "FAIL" if failed_ranks else "PASS"
        if status == "FAIL" and self.world > 1:
            detail += f" (failed on rank{'s' * (len(failed_ranks) > 1)} {', '.join(map(str, failed_ranks))})"
        self._record(key, title, status, detail)
        return status == "PASS"

    def skip(self, key, title, reason):
        """A verdict that cannot be taken here, said out loud; counted as SKIP, never as PASS."""
        self._record(key, title, "SKIP", reason)

    def has_bf16(self, key, title):
        """True where the device has bf16 in hardware; elsewhere the check `key` is a SKIP that
        says so (measure.bf16_supported: emulated bf16 would round and time unlike a real run)."""
        from .measure import bf16_supported

        if bf16_supported(self.device):
            return True
        self.skip(key, title, f"{self.report['device_name']} has no bf16 (torch.cuda.is_bf16_supported() is False)")
        return False

    def skip_all(self, checks, reason):
        """run.skip for each (key, title) of `checks`, with one reason."""
        for key, title in checks:
            self.skip(key, title, reason)

    def divides(self, count, what, checks):
        """True when `count` `what` (heads, rows) split evenly over the ranks; otherwise each
        (key, title) of `checks` is a SKIP that says so, and False."""
        if count % self.world:
            self.skip_all(checks, f"{count} {what} do not split over N = {self.world}")
            return False
        return True

    def mesh(self):
        """A 1-D device mesh of every rank (dimension "tp"), for PyTorch's tensor-parallel API."""
        from torch.distributed.device_mesh import init_device_mesh

        return init_device_mesh(self.device.type, (self.world,), mesh_dim_names=("tp",))

    def example_group(self, checks):
        """The group of ranks 0 and 1 for a lesson's worked example on 2 GPUs (see group2); on the
        ranks outside it, None, after agreeing to each (key, title) of `checks` that the example
        is not theirs (the verdicts are all-reduced: every rank must take part)."""
        group = self.group2()
        if group is None:
            for key, title in checks:
                self.expect(key, title, True, "not in the example")
        return group

    def group2(self):
        """A process group of ranks 0 and 1 (a lesson's example on "2 GPUs" whatever N is). Every
        rank must call it; ranks 2 and above get None. One communicator for the whole run."""
        if (0, 1) not in self.groups:
            self.groups[(0, 1)] = dist.new_group([0, 1])
        return self.groups[(0, 1)] if self.rank < 2 else None

    def _record(self, key, title, status, detail):
        if self.rank != 0:
            return
        check = {"id": f"{self.section.id}/{key}", "section": self.section.id, "title": title,
                 "status": status, "detail": detail}
        self.report["checks"].append(check)
        self.say(f"{status}  {title}: {detail}")
