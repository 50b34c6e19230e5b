"""The job's first message is one quantity: one way, like first_s and every time of show."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from msgperf.analysis.result import analyze
from msgperf.records.runfile_read import read_run

RUN = Path(__file__).parents[2] / "data" / "kernel-runs" / "mpich-cell32k-switch-refined.jsonl"


def test_show_json_gives_the_jobs_first_message_one_way_as_the_terminal_does(msgperf):
    run = read_run(RUN).run
    marked = [m for m in run.measurements if "first_message_of_job_s" in m.extra and m.pattern == "pingpong"]
    assert marked and marked[0].divisor == 2 * marked[0].k  # a ping-pong record: first_s is a round trip
    record = marked[0]
    one_way = record.extra["first_message_of_job_s"] * record.k / record.divisor
    job = next(t.first.job for t in analyze(run).tables if t.pattern == "pingpong" and t.first and t.first.job)
    assert job.first_s == pytest.approx(one_way, rel=1e-12)  # what the terminal prints

    result = msgperf("show", RUN, "--json")
    assert result.returncode == 0, result.stderr
    rows = [r for r in json.loads(result.stdout)["rows"] if "first_message_of_job_s" in r and r["pattern"] == "pingpong"]
    assert len(rows) == 1 and rows[0]["bytes"] == record.bytes
    assert rows[0]["first_message_of_job_s"] == rows[0]["first_s"] == pytest.approx(one_way, rel=1e-12)
