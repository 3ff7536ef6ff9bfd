"""What the companion does with the GPUs a machine has, decided before any process starts: NCCL with
one process per GPU for two or more, a loud notice and CPU processes for one, refusals for N beyond
the GPUs; and the torchrun script's refusal when processes outnumber GPUs. GPUs are faked: this
machine has none."""

import json
from pathlib import Path

import pytest
import torch

from companion_runs import COMPANION_RUNS
from companionkit import launch

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def gpus(monkeypatch):
    def fake(n):
        monkeypatch.setattr(torch.cuda, "is_available", lambda: n > 0)
        monkeypatch.setattr(torch.cuda, "device_count", lambda: n)
        monkeypatch.setattr(torch.cuda, "get_device_name", lambda i=0: "Fake T4")
    monkeypatch.delenv(launch.WORLD_SIZES_VARIABLE, raising=False)
    return fake


def test_two_or_more_gpus_use_nccl_one_process_per_gpu(gpus):
    gpus(4)
    chosen = launch.plan()
    assert (chosen.backend, chosen.world_sizes, chosen.local_device) == ("nccl", [2, 4], None)


def test_world_sizes_beyond_the_gpus_are_refused_with_the_count(gpus, monkeypatch):
    gpus(2)
    monkeypatch.setenv(launch.WORLD_SIZES_VARIABLE, "2,4")
    with pytest.raises(ValueError, match=r"N = \[4\] asks for more processes than the 2 GPUs here"):
        launch.plan()


def test_one_gpu_is_said_loudly_and_runs_the_single_device_checks_on_it(gpus):
    gpus(1)
    chosen = launch.plan()
    assert chosen.backend == "gloo" and chosen.local_device == torch.device("cuda", 0)
    assert chosen.notes[0].startswith("ONE GPU (Fake T4)")
    assert "distributed checks run on CPU processes with gloo" in chosen.notes[0]


def test_no_gpu_runs_gloo_and_says_so(gpus):
    gpus(0)
    chosen = launch.plan()
    assert (chosen.backend, chosen.world_sizes) == ("gloo", [2, 4])
    assert "No GPU" in chosen.notes[0] and "thread(s) per process" in chosen.notes[-1]


def test_n_below_two_is_refused(gpus):
    gpus(0)
    with pytest.raises(ValueError, match="needs N >= 2"):
        launch.plan([1])


def test_torchrun_with_more_processes_than_gpus_refuses_and_says_what_to_run(gpus, monkeypatch, capsys):
    # Rank 0 of a 2-process torchrun job on a machine that reports 1 GPU, in this process (a
    # subprocess would pay a torch start for a refusal): exit_now would end the process.
    gpus(1)
    for name, value in {"RANK": "0", "WORLD_SIZE": "2", "LOCAL_RANK": "0", "LOCAL_WORLD_SIZE": "2"}.items():
        monkeypatch.setenv(name, value)

    def exit_now(status):
        raise SystemExit(status)

    monkeypatch.setattr(launch, "exit_now", exit_now)
    monkeypatch.syspath_prepend(str(ROOT / "lessons" / "tp-mlp" / "companion"))
    import tp_mlp_lib

    with pytest.raises(SystemExit) as exited:
        launch.torchrun_main(tp_mlp_lib.companion, [])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "2 processes on this machine but 1 GPU" in err and "--cpu" in err


def test_a_lone_gpu_runs_the_local_sections_alone_in_this_process(monkeypatch, capsys):
    # The one-GPU plan, with the CPU standing in for the GPU and no distributed runs.
    lone = launch.Plan("gloo", [], local_device=torch.device("cpu"), notes=["ONE GPU (stand-in)"])
    monkeypatch.setattr(launch, "plan", lambda world_sizes=None: lone)
    monkeypatch.syspath_prepend(str(ROOT / "lessons" / "tp-mlp" / "companion"))
    import tp_mlp_lib

    results = launch.run_all(tp_mlp_lib.companion)
    [report] = results.reports
    assert report["local_only"] and report["world"] == 1
    local = {s.id for s in tp_mlp_lib.companion.sections if s.local}
    assert local and {c["section"] for c in report["checks"]} == local
    assert all(c["status"] == "PASS" for c in report["checks"]), report["checks"]
    assert "ONE GPU (stand-in)" in capsys.readouterr().out
    assert "1 CPU" in results.summary()


@pytest.mark.slow
def test_the_gpu_sweep_runs_each_download_under_torchrun_and_records_it(tmp_path, monkeypatch, capsys):
    # The sweep on CPU with gloo (N = 2, the mutation suite's small sizes): the same command a GPU
    # node runs, and the one torchrun launch of a downloaded script in the suite.
    from companionkit import gpu_runs

    monkeypatch.chdir(tmp_path)
    status = gpu_runs.main(["--lesson", "fg-backward", "--cpu", "--quick", "--out", "records", "--timeout", "300"])
    printed = capsys.readouterr().out
    assert status == 0, printed
    record = json.loads((tmp_path / "records" / "fg-backward-N2.json").read_text())
    run = record["gpu_run"]
    assert run["exit_status"] == 0 and not run["timed_out"] and run["backend"] == "gloo" and run["world"] == 2
    assert run["command"][:4] == ["torchrun", "--standalone", "--nproc_per_node=2", "fg_backward_check.py"]
    assert {"commit", "gpu_models", "driver", "nccl", "topology"} <= set(run["machine"])
    assert run["precision"] and "float32_matmul_precision" in run["precision"]
    checks = record["runs"][0]["checks"]
    assert checks and all(c["status"] != "FAIL" for c in checks)
    # The torchrun run used the unzipped download's companionkit, not the repository's.
    assert all("fg-backward-companion" in path for path in record["runs"][0]["code"]), record["runs"][0]["code"]
    log = (tmp_path / "records" / "fg-backward-N2.log").read_text()
    assert "backend gloo, world size 2" in log
    summary = (tmp_path / "records" / "summary.md").read_text()
    assert f"| fg-backward | 2 | gloo | {record['runs'][0]['device_name']} | {len(checks)} | 0 | 0 |" in summary
    assert "| ok | fg-backward-N2.json |" in summary and summary in printed


RAISES_ON_RANK_1 = '''"""A companion whose second section raises on rank 1 alone, while rank 0 waits in an all-reduce."""
import torch
import torch.distributed as dist

from companionkit import Companion

companion = Companion(__name__, lesson="toy")


@companion.section("first", "runs")
def first(run):
    run.expect("ok", "it runs", True, "yes")


@companion.section("second", "rank 1 raises in it")
def second(run):
    if run.rank == 1:
        raise torch.OutOfMemoryError("rank 1 alone ran out of memory")
    dist.all_reduce(torch.ones(2))
'''


@pytest.mark.slow
@COMPANION_RUNS  # the launches of one pytest process share its fork server (torch imported once)
def test_one_rank_raising_stops_the_notebook_run_with_that_ranks_error(tmp_path, monkeypatch):
    # The notebook's path (launch, start_ranks); the torchrun path is torchrun's own stopping of the
    # other ranks once one exits non-zero, and the mutation suite proves the harness's.
    (tmp_path / "raising_lib.py").write_text(RAISES_ON_RANK_1)
    monkeypatch.syspath_prepend(str(tmp_path))
    import raising_lib

    with pytest.raises(launch.RunAborted, match=r"N = 2: rank 1 raised in section 'second': "
                                                r"OutOfMemoryError: rank 1 alone ran out of memory") as caught:
        launch.launch(raising_lib.companion, 2, "gloo", timeout_s=60)
    print(caught.value)


def test_the_repository_entry_runs_any_library_and_says_how_to_start_it(monkeypatch, capsys):
    # `torchrun ... -m companionkit lessons/<slug>/companion/<slug_>_lib.py` replaces the per-lesson
    # scripts in the repository; outside torchrun it loads the library and says how to start it.
    from companionkit.__main__ import main

    with pytest.raises(SystemExit, match="usage: torchrun"):
        main(["lessons/tp-mlp/companion.ipynb"])
    for name in ("RANK", "WORLD_SIZE"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(SystemExit) as exited:
        main([str(ROOT / "lessons" / "fg-backward" / "companion" / "fg_backward_lib.py"), "--option", "tokens=4"])
    assert exited.value.code == 2
    assert "start it with torchrun and at least 2 processes" in capsys.readouterr().err
