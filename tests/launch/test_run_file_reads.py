"""How often ``measure`` reads its run file back whole: once per look it needs (each refinement
round looks at the file the previous round grew), never to learn what it already knows (whether
a launch wrote its launch record, the run of a file nothing was added to). Counted at the one
place every whole-file read goes through (records/runfile_read.py ``_lines``), with the fake
launcher (tests/launch/fake_launcher.py), so that a read added later shows here."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from msgperf.launch.job import LaunchError
from msgperf.launch.refine_rounds import MAX_REFINE_ROUNDS
from msgperf.launch.session import MeasureRequest, measure
from msgperf.plan import Plan, parse_sizes
from msgperf.records import runfile_read
from tests.launch.fake_launcher import Behaviour, FakeLauncher
from tests.launch.test_refinement import CURVE


@pytest.fixture
def reads(monkeypatch, tmp_path) -> list[Path]:
    """The paths read whole, one entry per read, while the test runs."""
    seen: list[Path] = []
    lines = runfile_read._lines

    def counted(path):
        seen.append(Path(path))
        return lines(path)

    monkeypatch.setattr(runfile_read, "_lines", counted)
    return seen


def default_run(tmp_path: Path, **changes) -> MeasureRequest:
    """What a plain ``msgperf run`` asks of measure: one budget for the command, the eager probe,
    refinement, the store."""
    plan = Plan(sizes=parse_sizes("1K:1M"), time_budget_s=0.05, min_samples=8, max_samples=12, total_time_s=20.0)
    return MeasureRequest(**{"plan": plan, "output": tmp_path / "run.jsonl", "log_dir": tmp_path,
                             "db": str(tmp_path / "db.sqlite"), "refine": True, "probe": True, "whole_budget": True,
                             "after_s": 1.0, "started_s": time.monotonic(), **changes})


def test_a_default_run_reads_its_file_once_per_refinement_look(tmp_path, reads):
    outcome = measure(default_run(tmp_path), launcher=FakeLauncher(every=Behaviour(curve=CURVE)))
    rounds = sum(l.refining for l in outcome.launches)
    assert [l.refining for l in outcome.launches][:2] == [False, False] and rounds >= 1  # sweep, probe, rounds
    assert set(reads) == {outcome.run_file}
    # each round looks at the file the previous launch grew; the look that finds nothing left
    # to refine is the run returned (no read-back of its own), unless the rounds ran out
    assert len(reads) == rounds + 1, (len(reads), rounds)
    assert outcome.result is not None


def test_a_run_without_refinement_reads_its_file_once(tmp_path, reads):
    outcome = measure(default_run(tmp_path, refine=False), launcher=FakeLauncher())
    assert len(outcome.launches) == 2 and reads == [outcome.run_file]  # the read-back


def test_a_launch_seen_to_start_is_marked_without_reading_the_file(tmp_path, reads):
    """The follower saw the launch record: the abort and the launch_host record are added
    without reading the run file to find it."""
    with pytest.raises(LaunchError):
        measure(default_run(tmp_path), launcher=FakeLauncher(Behaviour(after=2, code=3)))
    assert reads == []
    launch = runfile_read.read_run(tmp_path / "run.jsonl").run.launches[0]
    assert launch.aborted is not None and launch.host is not None


def test_a_launch_that_never_started_is_looked_for_once(tmp_path, reads):
    """Nothing seen: one read decides both the abort mark and the launch_host record (the empty
    file claimed for it is removed)."""
    with pytest.raises(LaunchError):
        measure(default_run(tmp_path), launcher=FakeLauncher(Behaviour(after=-1, code=3)))
    assert reads == [tmp_path / "run.jsonl"]
    assert not (tmp_path / "run.jsonl").exists()


def test_a_resume_with_nothing_left_reads_its_file_once(tmp_path, reads):
    first = measure(default_run(tmp_path, refine=False, probe=False, store=False), launcher=FakeLauncher())
    reads.clear()
    notes = []
    outcome = measure(MeasureRequest(resume=first.run_file, log_dir=tmp_path, store=False), launcher=FakeLauncher(),
                      on_note=notes.append)
    assert outcome.launches == () and notes and reads == [first.run_file]
    assert [(m.pattern, m.bytes, m.launch, list(m.samples_s)) for m in outcome.run.measurements] == \
        [(m.pattern, m.bytes, m.launch, list(m.samples_s)) for m in first.run.measurements]
