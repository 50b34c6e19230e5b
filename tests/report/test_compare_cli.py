"""msgperf compare: the table, --json, and --fail-above's exit status."""

from __future__ import annotations

import json

from tests.analysis.synth_data import write_run
from tests.report.conftest import pingpong_run


def test_fail_above_exits_non_zero_on_a_real_slowdown(msgperf, tmp_path):
    a = write_run(pingpong_run(seed=1), tmp_path / "a.jsonl")
    b = write_run(pingpong_run(seed=2, scale=1.3), tmp_path / "b.jsonl")
    done = msgperf("compare", a, b, "--fail-above", "10")
    assert done.returncode == 3, done.stderr
    assert "FAIL" in done.stderr and "slower" in done.stdout
    done = msgperf("compare", a, b, "--fail-above", "50")
    assert done.returncode == 0, done.stderr
    assert "OK" in done.stderr


def test_same_distribution_passes_the_gate(msgperf, tmp_path):
    a = write_run(pingpong_run(seed=1), tmp_path / "a.jsonl")
    b = write_run(pingpong_run(seed=3), tmp_path / "b.jsonl")
    done = msgperf("compare", a, b, "--fail-above", "5")
    assert done.returncode == 0, done.stdout + done.stderr


def test_json_and_several_runs(msgperf, tmp_path):
    a = write_run(pingpong_run(seed=1), tmp_path / "a.jsonl")
    b = write_run(pingpong_run(seed=2, scale=1.3), tmp_path / "b.jsonl")
    c = write_run(pingpong_run(seed=3), tmp_path / "c.jsonl")
    done = msgperf("compare", a, b, c, "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert len(data) == 2
    assert all(s["verdict"] == "slower" for s in data[0]["sizes"])
    assert data[0]["worst_significant_slowdown"] > 0.2
    assert not any(s["verdict"] in ("slower", "faster") for s in data[1]["sizes"])


def test_needs_two_runs(msgperf, tmp_path):
    a = write_run(pingpong_run(seed=1), tmp_path / "a.jsonl")
    done = msgperf("compare", a)
    assert done.returncode == 1 and "two runs" in done.stderr
