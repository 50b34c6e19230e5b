"""The disturbed case for real (issue 27 item 6): ``msgperf run`` beside a busy process pinned
with taskset to a core the ranks use. What it prints must be right or "cannot tell": the headline
latency and bandwidth measured while the launch ran beside other work are "cannot tell"
(analysis/answer.py ``disturbance``), the eager limit is one the probe's records agree on or
"cannot tell", and a switch labelled eager → rendezvous holds the first size past that limit.
Marked ``underload`` (and slow): a failure here points at the disturbed tier, not the quiet one."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest


pytestmark = [pytest.mark.mpi, pytest.mark.slow, pytest.mark.underload]


@pytest.fixture
def busy_core():
    """A Python process spinning on the last CPU msgperf may use, pinned there with taskset."""
    if shutil.which("taskset") is None:
        pytest.skip("taskset not found")
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        pytest.skip("one usable CPU: the ranks would be oversubscribed without the busy process")
    proc = subprocess.Popen(["taskset", "-c", str(cpus[-1]), sys.executable, "-c", "while True: pass"])
    try:
        yield cpus[-1]
    finally:
        proc.kill()
        proc.wait()


def test_a_run_beside_a_busy_process_is_right_or_says_it_cannot_tell(msgperf, tmp_path, busy_core):
    out = tmp_path / "busy.jsonl"
    run = msgperf("run", "--sizes", "1K:64K", "-o", out, "-q", "--no-report", "--no-store", timeout=600)
    assert run.returncode == 0, run.stderr
    shown = msgperf("show", out, "--json")
    assert shown.returncode == 0, shown.stderr
    answer = json.loads(shown.stdout)["answer"]
    assert "busy_machine" in {w["kind"] for w in answer["warnings"]}, answer["warnings"]
    for figure in ("latency", "peak_bandwidth"):
        f = answer[figure]
        assert f["value"] is None and f["why_not"].startswith("disturbed: ") and "beside other work" in f["why_not"], f
    eager = answer["eager_limit"]
    if eager["value"] is not None:
        first = int(eager["value"]) + 1
        for s in answer["switches"]:
            if "eager_rendezvous" in s["kinds"] and "eager → rendezvous" in s["cause"]:
                # the labelling rule (analysis/model/breakpoint_labels.py ``past_the_limit``): a
                # switch called eager -> rendezvous holds the probe's gap; one an eager variable
                # names beside it (beside a busy process a step was often located at (8113, 8192]
                # for a limit of 8112 B) is "a step just past the eager limit"
                assert s["low_bytes"] < first <= s["high_bytes"], (s, eager)
    else:
        assert eager["why_not"], eager
    text = msgperf("show", out)
    assert "latency     cannot tell: disturbed: " in text.stdout
