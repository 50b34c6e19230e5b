"""The measurement workflow with real MPI (2 ranks, small sizes): what the fake launcher tests in
tests/launch/test_session.py, once for real: the repeat count in the plan and its resume, SIGTERM,
SIGHUP and kill -9 of msgperf, duplicate sizes, --force, and the kernels' refusal to replace a file they were not told to."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys

import pytest

from msgperf.launch.build import build_kernel
from msgperf.launch.shm_leftovers import SHM_DIR, segments
from msgperf.records.runfile_read import read_run
from tests.factories import pingpong_run, write_run
from tests.kernels.waiting import wait_for_measurements
from tests.leftovers import job_of, left_running, unused_new_segments

pytestmark = pytest.mark.mpi
# --no-probe, --no-refine: these tests count the sweep's records; the default eager-probe and refinement
# launches have their own tests
FAST = ["--time-budget", "0.1", "--min-samples", "10", "--no-probe", "--no-refine", "--answer-launches", "0"]


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


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
def test_sigterm_stops_cleanly_and_marks_the_launch(msgperf, tmp_path, sig):
    """SIGTERM (timeout, schedulers) and SIGHUP (a closed terminal) mid-sweep: no process of the
    job and no shared-memory segment left, the finished measurements kept and resumed."""
    out = tmp_path / "run.jsonl"
    before = segments()
    proc = subprocess.Popen([sys.executable, "-m", "msgperf", "run", "--sizes", "0,1,2,64", *FAST, "--test-stall",
                             "1:64", "--deadline", "60", "-o", str(out), "-q"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ))
    wait_for_measurements(out, 3)
    job = job_of(proc.pid)
    assert len(job) >= 3  # mpiexec, its proxy, the ranks
    proc.send_signal(sig)
    _, stderr = proc.communicate(timeout=30)
    name = signal.Signals(sig).name
    assert proc.returncode == 128 + sig, stderr
    assert f"terminated ({name}) while measuring pingpong 64 B" in stderr and f"msgperf run --resume {out}" in stderr
    assert left_running(job) == []
    assert unused_new_segments(before) == set()
    run = read_run(out).run
    assert [m.bytes for m in run.measurements] == [0, 1, 2]
    assert run.launches[0].aborted.startswith(f"terminated ({name})")
    resumed = msgperf("run", "--resume", out, "-q", "--no-report", "--no-refine", "--no-store", timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert [(m.launch, m.bytes) for m in read_run(out).run.measurements] == [(0, 0), (0, 1), (0, 2), (1, 64)]


def test_kill_9_takes_the_job_along_and_the_next_launch_cleans_what_it_left(msgperf, tmp_path):
    """kill -9 of msgperf: mpiexec gets SIGTERM from Linux (PR_SET_PDEATHSIG) and stops its
    ranks; the segments nothing could clean after them are removed by the next launch, which
    keeps a segment a live process holds."""
    out = tmp_path / "run.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "msgperf", "run", "--sizes", "0,1,2,64", *FAST, "--test-stall",
                             "1:64", "--deadline", "60", "-o", str(out), "-q"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=dict(os.environ))
    wait_for_measurements(out, 3)
    job = job_of(proc.pid)
    proc.kill()
    proc.wait()
    assert left_running(job) == []
    # a dead job's segment (as MPICH names them; nothing maps it) and one a live process holds
    dead = SHM_DIR / f"mpich_shm_{secrets.token_hex(4)}_0"
    held = SHM_DIR / f"mpich_shm_{secrets.token_hex(4)}_0"
    holder = None
    try:
        dead.write_bytes(b"x" * 4096)
        held.write_bytes(b"x" * 4096)
        holder = subprocess.Popen([sys.executable, "-c", "import sys, time; f = open(sys.argv[1], 'rb'); "
                                   "print('ready', flush=True); time.sleep(60)", str(held)],
                                  stdout=subprocess.PIPE, text=True)
        assert holder.stdout.readline() == "ready\n"
        resumed = msgperf("run", "--resume", out, "-q", "--no-report", "--no-refine", "--no-store", timeout=120)
        assert resumed.returncode == 0, resumed.stderr
        assert not dead.exists() and held.exists()
    finally:
        if holder is not None:
            holder.kill()
            holder.wait()
        dead.unlink(missing_ok=True)
        held.unlink(missing_ok=True)
    assert [(m.launch, m.bytes) for m in read_run(out).run.measurements] == [(0, 0), (0, 1), (0, 2), (1, 64)]


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
