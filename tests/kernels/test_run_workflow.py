"""The measurement workflow with real MPI (2 ranks, small sizes): what the fake launcher tests in
tests/launch/test_session.py, once for real: the repeat count in the plan and its resume, SIGTERM,
duplicate sizes, --force, and the kernels' refusal to replace a file they were not told to."""

from __future__ import annotations

import signal
import subprocess
import sys
import os

import pytest

from msgperf.launch.build import build_kernel
from msgperf.records.runfile_read import read_run
from tests.factories import pingpong_run, write_run
from tests.kernels.waiting import wait_for_measurements

pytestmark = pytest.mark.mpi
# --no-probe, --no-refine: these tests count the sweep's records; the default eager-probe and refinement
# launches have their own tests
FAST = ["--time-budget", "0.1", "--min-samples", "10", "--no-probe", "--no-refine"]


def test_an_interrupted_repeat_is_resumed_to_its_full_count(msgperf, tmp_path):
    out = tmp_path / "run.jsonl"
    hung = msgperf("run", "--repeat", "2", "--sizes", "0,64", *FAST, "--test-stall", "1:64", "--deadline", "3",
                   "-o", out, "-q", "--no-report", timeout=120)
    assert hung.returncode == 1 and f"msgperf run --resume {out}" in hung.stderr
    partial = read_run(out).run
    assert partial.info.plan.repeat == 2 and not partial.complete and len(partial.missing()) == 3
    assert partial.info.plan.after == ()  # --no-probe --no-refine, recorded by the kernels
    assert "incomplete run (3 planned measurement(s) missing)" in msgperf("show", out).stderr
    # no --no-refine here: the resume does what the plan recorded (it refined regardless before)
    resumed = msgperf("run", "--resume", out, "-q", "--no-report", timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    run = read_run(out).run
    assert run.complete and [l.index for l in run.launches] == [0, 1, 2]
    assert [(m.launch, m.bytes) for m in run.measurements] == [(0, 0), (1, 0), (1, 64), (2, 64)]
    assert "incomplete" not in msgperf("show", out).stderr


def test_sigterm_stops_cleanly_and_marks_the_launch(tmp_path):
    out = tmp_path / "run.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "msgperf", "run", "--sizes", "0,1,2,64", *FAST, "--test-stall",
                             "1:64", "--deadline", "60", "-o", str(out), "-q"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ))
    wait_for_measurements(out, 3)
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 143
    assert "terminated (SIGTERM) while measuring pingpong 64 B" in stderr and f"msgperf run --resume {out}" in stderr
    assert subprocess.run(["pgrep", "-f", f"msgperf-kernels.*{out}"], capture_output=True).returncode == 1
    run = read_run(out).run
    assert [m.bytes for m in run.measurements] == [0, 1, 2]
    assert run.launches[0].aborted.startswith("terminated (SIGTERM)")


def test_duplicate_sizes_are_measured_once(msgperf, tmp_path):
    out = tmp_path / "run.jsonl"
    result = msgperf("run", "--sizes", "8,8,1,8", *FAST, "-o", out, "-q", "--no-report", "--no-store")
    assert result.returncode == 0, result.stderr
    assert "note: --sizes lists 8 B more than once; each size is measured once" in result.stderr
    run = read_run(out).run
    assert [m.bytes for m in run.measurements] == [1, 8] and run.info.plan.sizes == (1, 8)


def test_force_replaces_a_run_file(msgperf, tmp_path):
    out = write_run(pingpong_run(), tmp_path / "run.jsonl")
    result = msgperf("run", "--sizes", "8", *FAST, "-o", out, "--force", "-q", "--no-report", "--no-store")
    assert result.returncode == 0, result.stderr
    run = read_run(out).run
    assert [m.bytes for m in run.measurements] == [8] and run.complete


def test_the_kernels_never_replace_a_file_unless_told(tmp_path):
    kernel = build_kernel()
    out = tmp_path / "run.jsonl"
    out.write_text("not theirs\n")
    base = [str(kernel.mpiexec), "-n", "2", str(kernel.path), "--sizes", "8", "--time-budget", "0.1", "-o", str(out), "-q"]
    refused = subprocess.run(base, capture_output=True, text=True, timeout=120)
    assert refused.returncode != 0
    assert (f"msgperf-kernels: run file '{out}' exists; msgperf never overwrites a file without --force "
            "(msgperf-kernels: --overwrite)") in refused.stderr
    assert out.read_text() == "not theirs\n"
    replaced = subprocess.run([*base, "--overwrite", "--repeat", "3"], capture_output=True, text=True, timeout=120)
    assert replaced.returncode == 0, replaced.stderr
    run = read_run(out).run
    assert [m.bytes for m in run.measurements] == [8] and run.info.plan.repeat == 3
