"""The reports of a companion's runs: per-section output, the summary table, the device report.

A run's report (rank 0's, JSON-able): {"lesson", "world", "backend", "device", "device_name",
"threads_per_rank", "local_only", "code" (the files of companionkit and the library that ran), "duration_s" (the checks), "wall_s" (with starting the processes; spawned runs), "sections": [{"id", "title", "seconds", "lines"}],
"checks": [{"id", "section", "title", "status": "PASS|FAIL|SKIP", "detail"}], "data": {name: [...]}}.
"""

import json
import os
import platform
import sys

import torch

SCHEMA = "companionkit.device-report/1"


def environment():
    """What the numbers were measured on."""
    cuda = torch.cuda.is_available()
    nccl = None
    if cuda and hasattr(torch.cuda, "nccl"):
        version = torch.cuda.nccl.version()
        nccl = ".".join(map(str, version)) if isinstance(version, tuple) else str(version)
    return {"torch": torch.__version__, "cuda": torch.version.cuda, "nccl": nccl, "python": sys.version.split()[0],
            "platform": platform.platform(), "cpu_count": os.cpu_count(),
            "gpus": [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())] if cuda else []}


class Results:
    def __init__(self, companion):
        self.companion = companion
        self.reports = []

    def add(self, report):
        self.reports.append(report)

    @staticmethod
    def label(report):
        if report["local_only"]:
            return f"1 {report['device'].split(':')[0].upper()}"
        return f"N={report['world']}"

    @staticmethod
    def run_line(report):
        counts = {s: sum(c["status"] == s for c in report["checks"]) for s in ("PASS", "FAIL", "SKIP")}
        where = "alone on " + report["device_name"] if report["local_only"] else f"{report['backend']}, {report['device_name']}"
        started = f"{report['wall_s']:.1f} s with starting the processes, " if "wall_s" in report else ""
        return (f"{Results.label(report)} ({where}): {counts['PASS']} passed, {counts['FAIL']} failed, "
                f"{counts['SKIP']} skipped; {started}{report['duration_s']:.1f} s of checks")

    def show(self, section):
        """Print one section's lines (its verdicts with the numbers compared) for every run."""
        if section not in {s.id for s in self.companion.sections}:
            raise KeyError(f"no section {section!r}; sections: {', '.join(s.id for s in self.companion.sections)}")
        for report in self.reports:
            for s in report["sections"]:
                if s["id"] == section:
                    print(f"--- {self.label(report)} ({report['backend']}, {report['device_name']}), {s['seconds']:.1f} s")
                    print("\n".join(line for line in s["lines"] if line.strip() and not line.startswith("\n==")))

    def data(self, name):
        """Every run's values recorded under `name`, each with the run's world size and device."""
        return [{"world": r["world"], "device": r["device"], "backend": r["backend"], "value": value}
                for r in self.reports for value in r["data"].get(name, [])]

    def failures(self):
        return [f"{self.label(r)}: {c['id']} ({c['title']}): {c['detail']}"
                for r in self.reports for c in r["checks"] if c["status"] == "FAIL"]

    def summary(self):
        """One row per check, one column per run: PASS, FAIL, SKIP or - (not run there)."""
        titles = {}  # a check's id and title are the same for every N; its detail holds the numbers
        for r in self.reports:
            for c in r["checks"]:
                titles.setdefault(c["id"], c["title"])
        rows = list(titles.items())
        order = {s.id: i for i, s in enumerate(self.companion.sections)}
        rows.sort(key=lambda row: order.get(row[0].split("/")[0], len(order)))  # stable within a section
        labels = [self.label(r) for r in self.reports]
        width = max([len(i) for i, _ in rows] + [5])
        header = f"{'check':<{width}}  " + "  ".join(f"{l:<6}" for l in labels) + "  title"
        lines = [header, "-" * len(header)]
        for check_id, title in rows:
            cells = []
            for r in self.reports:
                status = [c["status"] for c in r["checks"] if c["id"] == check_id]
                cells.append(f"{status[0] if status else '-':<6}")
            lines.append(f"{check_id:<{width}}  " + "  ".join(cells) + f"  {title}")
        total = [c for r in self.reports for c in r["checks"]]
        failed = sum(c["status"] == "FAIL" for c in total)
        skipped = sum(c["status"] == "SKIP" for c in total)
        lines.append(f"{len(total) - failed - skipped} of {len(total)} checks passed"
                     + (f", {skipped} skipped" if skipped else "") + (f", {failed} FAILED" if failed else ""))
        return "\n".join(lines)

    def device_report(self):
        return {"schema": SCHEMA, "lesson": self.companion.lesson, "environment": environment(), "runs": self.reports}

    def write_device_report(self, path):
        with open(path, "w") as fh:
            json.dump(self.device_report(), fh, indent=1)

    def finish(self, path="companion-report.json"):
        """Write the device report, print the summary, and raise if any check failed."""
        self.write_device_report(path)
        print(self.summary())
        print(f"\nEvery check, with the device, versions and timings: {os.path.abspath(path)}")
        failed = self.failures()
        if failed:
            raise RuntimeError(f"{len(failed)} check(s) failed:\n" + "\n".join(failed))
