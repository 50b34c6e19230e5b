"""Real MPI runs at 2-3 ranks on this machine, small sizes and short budgets."""

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from msgperf.launch.build import build_kernel
from msgperf.analysis.samples import sample_stats
from msgperf.records.runfile_read import read_run
from tests.kernels.waiting import wait_for_measurements

pytestmark = pytest.mark.mpi
# --no-probe, --no-refine, --answer-launches 0: these tests count the sweep's records; the default
# eager-probe, refinement and answer launches have their own tests
FAST = ["--time-budget", "0.2", "--min-samples", "10", "--no-probe", "--no-refine", "--answer-launches", "0"]


def test_the_answer_s_sizes_are_measured_again_and_the_answer_covers_the_launches(msgperf, tmp_path):
    """msgperf run's default: after the sweep, three short launches of the smallest size and the peak
    bandwidth's (with the sizes beside it); the answer's latency and peak are estimated across the
    four launches (an interval that holds the launches' middle and is at least as wide as the
    sweep launch's own), the other sizes keep one launch."""
    out = tmp_path / "run.jsonl"
    result = msgperf("run", "--sizes", "0,64,1K,16K,64K", "--time-budget", "0.1", "--min-samples", "10",
                     "--no-probe", "--no-refine", "-o", out, "-q", "--no-report", "--no-store")
    assert result.returncode == 0, result.stderr
    run = read_run(out).run
    by_launch: dict[int, list[int]] = {}
    for m in run.measurements:
        by_launch.setdefault(m.launch, []).append(m.bytes)
    assert by_launch[0] == [0, 64, 1024, 16384, 65536]
    assert [by_launch[l] for l in (1, 2, 3)] == [[0, 16384, 65536]] * 3 and all(l.finished for l in run.launches)
    answer = json.loads(msgperf("show", out, "--json").stdout)["answer"]
    latency = answer["latency"]
    if latency["value"] is None:  # a launch seen disturbed: said, never printed as a finding
        assert latency["why_not"].startswith("disturbed"), latency
        return
    assert latency["covers"] == "across 4 launches" and answer["peak_bandwidth"]["covers"] == "across 4 launches"
    zero = {m.launch: m for m in run.measurements if m.bytes == 0}
    middle = float(np.median([np.median(m.per_message_s) for m in zero.values()]))
    assert len(zero) == 4 and latency["low"] <= middle <= latency["high"], (middle, latency)
    own = sample_stats(zero[0].per_message_s, 0.95)  # the sweep launch's own interval of its median
    assert latency["high"] / latency["low"] >= own.ci_high / own.ci_low
    rows = {r["bytes"]: r for r in json.loads(msgperf("show", out, "--json").stdout)["rows"]}
    assert rows[64]["interval_covers"] == "within one launch" and rows[0]["interval_covers"] == "across 4 launches"


def test_small_sweep_one_validated_record_per_size(msgperf, tmp_path):
    out = tmp_path / "run.jsonl"
    result = msgperf("run", "--sizes", "0,1,1K,64K", *FAST, "-o", out, "-q")
    assert result.returncode == 0, result.stderr
    assert "one-way" in result.stdout and f"run file: {out}" in result.stdout
    run = read_run(out).run
    assert [m.bytes for m in run.measurements] == [0, 1, 1024, 65536]
    assert run.complete and run.launches[0].pair_shares_node
    for m in run.measurements:
        assert m.validated and m.samples_s.size >= 10 and np.all(m.samples_s > 0)
        assert m.stop_reason in ("precision", "time_budget") and m.k >= 1 and m.divisor == 2 * m.k
        assert m.first_s > 0
    medians = [np.median(m.per_message_s) for m in run.measurements]
    assert medians[3] > medians[0]  # 64 KiB takes longer than 0 B
    rss = run.launches[0].max_rss_kib  # peak memory per rank: buffers + samples + MPI, far below 1 GiB here
    assert rss is not None and len(rss) == 2 and all(0 < r < 1 << 20 for r in rss)
    clock = run.launches[0].clock
    assert clock.monotonic and 0 < clock.resolution_s < 1e-3 and 0 < clock.overhead_s < 1e-5
    rows = json.loads(msgperf("show", out, "--json").stdout)["rows"]
    assert [r["bytes"] for r in rows] == [0, 1, 1024, 65536]
    for r in rows:
        assert r["ci_low_s"] <= r["median_s"] <= r["ci_high_s"] and r["buffer"] == "separate"
        assert r["pattern"] == "pingpong" and r["samples"] >= 10


def test_pair_of_three_ranks_measures_the_named_pair(msgperf, tmp_path):
    out = tmp_path / "run.jsonl"
    result = msgperf("run", "--np", "3", "--pair", "2:1", "--sizes", "0,1K", *FAST, "-o", out, "-q")
    assert result.returncode == 0, result.stderr
    run = read_run(out).run
    launch = run.launches[0]
    assert launch.nranks == 3 and [r.rank for r in launch.ranks] == [0, 1, 2]
    assert launch.pair == (2, 1) and launch.pair_shares_node
    assert all(m.ranks == (2, 1) and m.validated for m in run.measurements)


def test_in_place_buffer_moves_the_data_both_ways(msgperf, tmp_path):
    out = tmp_path / "run.jsonl"
    assert msgperf("run", "--buffer", "inplace", "--sizes", "1,4K,1M", *FAST, "-o", out, "-q").returncode == 0
    run = read_run(out).run
    assert all(m.validated and m.buffer == "inplace" for m in run.measurements)
    assert run.info.plan.buffer == "inplace"


def test_a_corrupted_payload_is_caught(tmp_path):
    kernel = build_kernel()
    out = tmp_path / "run.jsonl"
    result = subprocess.run([str(kernel.mpiexec), "-n", "2", str(kernel.path), "--sizes", "8,1K", "--time-budget",
                             "0.1", "--test-corrupt", "1024", "-o", str(out), "-q"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 4 and "differ from those sent" in result.stderr
    ms = read_run(out).run.measurements
    assert [m.validated for m in ms] == [True, False]
    assert ms[1].extra["mismatch_byte"] == 512


def test_watchdog_stops_a_hang_and_resume_finishes_without_repeating(msgperf, tmp_path):
    out = tmp_path / "run.jsonl"
    hung = msgperf("run", "--sizes", "0,1,2,64", *FAST, "--test-stall", "1:64", "--deadline", "4", "-o", out, "-q",
                   timeout=120)
    assert hung.returncode == 1
    message = hung.stderr.strip()
    assert message.startswith("error: hung: no progress for 4 s while measuring pingpong 64 B (ranks 0 and 1)")
    assert f"3 finished measurement(s) of this launch are kept in {out}" in message
    assert f"msgperf run --resume {out}" in message and len(message.splitlines()) == 1
    partial = read_run(out).run
    assert [m.bytes for m in partial.measurements] == [0, 1, 2] and not partial.complete
    assert partial.launches[0].aborted.startswith("hung: no progress")
    assert "launch 0 was stopped: hung" in msgperf("show", out).stderr
    resumed = msgperf("run", "--resume", out, "-q", "--no-refine")
    assert resumed.returncode == 0, resumed.stderr
    run = read_run(out).run
    assert [m.bytes for m in run.measurements] == [0, 1, 2, 64]
    assert [l.index for l in run.launches] == [0, 1] and run.complete
    assert {m.launch for m in run.measurements if m.bytes == 64} == {1}


def test_repeat_makes_separate_launches(msgperf, tmp_path):
    out = tmp_path / "run.jsonl"
    assert msgperf("run", "--repeat", "2", "--sizes", "8", *FAST, "-o", out, "-q").returncode == 0
    run = read_run(out).run
    assert [l.index for l in run.launches] == [0, 1] and all(l.finished for l in run.launches)
    assert [m.launch for m in run.measurements] == [0, 1]
    assert run.info.plan.repeat == 2 and run.complete


def test_standalone_kernel_build_and_show(msgperf, tmp_path):
    kernel = build_kernel()
    root = Path(__file__).resolve().parents[2] / "kernels"
    binary = tmp_path / "msgperf-kernels"
    made = subprocess.run(["make", "-s", "-C", str(root), f"MPICC={kernel.mpicc}", f"BIN={binary}"],
                          capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stderr
    out = tmp_path / "standalone.jsonl"
    ran = subprocess.run([str(kernel.mpiexec), "-n", "2", str(binary), "--sizes", "0,8", "--time-budget", "0.1",
                          "-o", str(out)], capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    assert "pingpong" in ran.stdout  # per-size lines for batch-job logs
    shown = msgperf("show", out)
    assert shown.returncode == 0 and "one-way" in shown.stdout and "8 B" in shown.stdout


def _start(args, out):
    import os
    import signal
    import sys
    # SIGINT at its default in the child: a suite started in the background by a non-interactive
    # shell (`make test &`) inherits it ignored, and then no Ctrl-C could reach msgperf
    return subprocess.Popen([sys.executable, "-m", "msgperf", "run", *args, "-o", str(out), "-q"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ),
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def test_a_rank_killed_mid_run_is_reported_and_resume_continues(msgperf, tmp_path):
    import os
    import signal
    out = tmp_path / "run.jsonl"
    proc = _start(["--sizes", "0,1,2,64", *FAST, "--test-stall", "1:64", "--deadline", "60"], out)
    wait_for_measurements(out, 3)
    ranks = subprocess.run(["pgrep", "-f", f"msgperf-kernels.*{out}"], capture_output=True, text=True).stdout.split()
    kernel_pids = [int(p) for p in ranks if int(p) != proc.pid]
    assert len(kernel_pids) >= 2  # the launcher's children: the two ranks
    os.kill(kernel_pids[-1], signal.SIGKILL)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert "the MPI job failed while measuring pingpong 64 B (ranks 0 and 1)" in stderr
    assert "died" in stderr and "signal 9" in stderr and f"msgperf run --resume {out}" in stderr
    partial = read_run(out).run
    assert [m.bytes for m in partial.measurements] == [0, 1, 2] and "died" in partial.launches[0].aborted
    assert msgperf("run", "--resume", out, "-q", "--no-refine").returncode == 0
    assert [m.bytes for m in read_run(out).run.measurements] == [0, 1, 2, 64]


def test_ctrl_c_stops_cleanly_and_says_how_to_resume(tmp_path):
    import signal
    out = tmp_path / "run.jsonl"
    proc = _start(["--sizes", "0,1,2,64", *FAST, "--test-stall", "1:64", "--deadline", "60"], out)
    wait_for_measurements(out, 3)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert "interrupted while measuring pingpong 64 B" in stderr and f"msgperf run --resume {out}" in stderr
    assert subprocess.run(["pgrep", "-f", f"msgperf-kernels.*{out}"], capture_output=True).returncode == 1  # no rank left
    run = read_run(out).run
    assert [m.bytes for m in run.measurements] == [0, 1, 2] and run.launches[0].aborted.startswith("interrupted")


def test_two_runs_at_once_write_two_intact_files(tmp_path):
    import os
    import sys
    procs = [subprocess.Popen([sys.executable, "-m", "msgperf", "run", "--sizes", "0,8", *FAST, "-q"], cwd=tmp_path,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ))
             for _ in range(2)]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    files = sorted((tmp_path / "runs").glob("*.jsonl"))
    assert len(files) == 2
    for f in files:
        run = read_run(f).run
        assert run.complete and [m.bytes for m in run.measurements] == [0, 8]


@pytest.mark.skipif(__import__("os").geteuid() != 0, reason="mounting a small tmpfs needs root")
def test_a_full_disk_keeps_what_was_written(tmp_path):
    import errno
    disk = tmp_path / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(disk)], check=True)
    proc = None
    try:
        out = disk / "run.jsonl"
        # 200 samples of 16 MiB take about a second: the disk is filled while they are measured,
        # and their record (~5 KB) is larger than what is left in the run file's last page.
        proc = _start(["--sizes", "0,16M", "--time-budget", "0.5", "--min-samples", "200", "--no-store"], out)
        wait_for_measurements(out, 1)
        with (disk / "filler").open("wb", buffering=0) as filler:
            for chunk in (65536, 512, 1):
                try:
                    while True:
                        filler.write(b"\0" * chunk)
                except OSError as exc:
                    assert exc.errno == errno.ENOSPC
        _, stderr = proc.communicate(timeout=120)
        assert proc.returncode == 1
        line = stderr.strip()
        assert "cannot write run file" in line and "No space left on device" in line and len(line.splitlines()) == 1
        assert f"msgperf run --resume {out}" in line
        partial = read_run(out)
        assert [m.bytes for m in partial.run.measurements] == [0]
        assert not partial.run.complete
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        subprocess.run(["umount", "--lazy", str(disk)], check=False)


def test_a_short_eager_probe_launch_follows_the_sweep_by_default(msgperf, tmp_path):
    """msgperf run's default: after the sweep, one launch of eager-probe at 0 B and 1 B (two
    searches for the limit, each under a second, which agree on a quiet machine) whose eager limit
    names the switch the model finds; the plan is untouched."""
    out = tmp_path / "run.jsonl"
    result = msgperf("run", "--sizes", "1K:64K", "--time-budget", "0.2", "--min-samples", "10", "-o", out, "-q",
                     "--no-report", "--no-store")
    assert result.returncode == 0, result.stderr
    run = read_run(out).run
    assert run.info.plan.patterns == ("pingpong",) and run.missing() == []
    probes = [m for m in run.measurements if m.pattern == "eager-probe"]
    assert [(p.launch, p.bytes) for p in probes] == [(1, 0), (1, 1)]
    limits = {p.extra["eager_limit_bytes"] for p in probes}
    assert len(limits) == 1 and isinstance(min(limits), int) and min(limits) > 0  # the two searches agree
    assert all(p.elapsed_s < 1.0 for p in probes)
    assert "eager limit" in result.stdout


def test_one_budget_for_the_sweep_is_shared_among_its_sizes(msgperf, tmp_path):
    """--total-time is the whole command's; the sweep's launch gets what is left after start-up
    and the analysis (launch/budget.py), recorded as the plan's total_time_s. With a precision no
    size can reach, every size takes its share, so the sweep's measurement time is that budget
    (plus each size's warm-up and last batch), where --time-budget of the same length would give
    each of the 12 sizes all of it."""
    out = tmp_path / "run.jsonl"
    result = msgperf("run", "--sizes", "0:1K", "--total-time", "3s", "--precision", "0.001%",
                     "--min-samples", "10", "--no-probe", "--no-refine", "--answer-launches", "0", "-o", out, "-q",
                     "--no-report", "--no-store")
    assert result.returncode == 0, result.stderr
    run = read_run(out).run
    budget = run.info.plan.total_time_s
    assert 0.9 <= budget < 3.0 and len(run.measurements) == 12  # a share of the 3 s (at least the 1 s floor)
    # 0.001 % is the smallest precision the kernels take, and on a quiet machine a size of very steady
    # times can reach it (~7,500 samples of 20 µs at a spread of 0.03 %): such a size stops early
    reasons = "; ".join(f"{m.bytes} B {m.stop_reason} n={len(m.samples_s)} {m.elapsed_s:.3f} s" for m in run.measurements)
    assert all(m.stop_reason in ("time_budget", "precision") for m in run.measurements), reasons
    assert any(m.stop_reason == "time_budget" for m in run.measurements), reasons
    spent = sum(m.elapsed_s for m in run.measurements)
    assert spent < 1.5 * budget + 0.3, (budget, reasons)  # one budget shared, not one per size
    if all(m.stop_reason == "time_budget" for m in run.measurements):
        assert 0.8 * budget < spent, (budget, reasons)
    # shared equally when no size finishes early: no size took much more than its share
    assert max(m.elapsed_s for m in run.measurements) < 6 * budget / 12
