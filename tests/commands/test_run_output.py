"""What msgperf run prints once the launches are done (commands/run.py): the answer block first,
the compact table, and one last line that says where the rest is; --detail prints the fine print
instead. The launches are replaced by a recorded run (the workflow itself: tests/launch)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from msgperf.commands import run as run_command
from msgperf.launch.session import MeasureOutcome
from msgperf.records.runfile_read import read_run
from tests.cli_in_process import cli

RECORDED = Path(__file__).resolve().parents[1] / "data" / "kernel-runs" / "mpich-cell32k-switch-refined.jsonl"


@pytest.fixture
def measured(tmp_path, monkeypatch):
    path = tmp_path / "r.jsonl"
    shutil.copy(RECORDED, path)
    outcome = MeasureOutcome(run=read_run(path).run, run_file=path, launches=(), stored=None)
    monkeypatch.setattr(run_command, "measure", lambda request, **_: outcome)
    monkeypatch.setenv("COLUMNS", "80")
    return path


def test_run_opens_with_the_answer_and_ends_pointing_to_the_rest(measured, capsys):
    code, out, err = cli(capsys, "run", "--no-report", "--no-store", "-q", "-o", measured, "--force")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("msgperf run ") and "eager limit 32688 B" in out
    assert next(i for i, line in enumerate(lines) if line.startswith("│")) < 24
    assert "Machine" not in out and "Caveats" not in out
    assert lines[-1] == f"more: msgperf show {measured} --detail (models, caveats, machine), --all (every size), " \
                        "msgperf summary"


def test_run_detail_prints_the_fine_print(measured, capsys):
    code, out, err = cli(capsys, "run", "--no-report", "--no-store", "-q", "-o", measured, "--force", "--detail")
    assert code == 0, err
    assert "Machine" in out and "Caveats" in out and "19487 B" in out and "more:" not in out


def test_show_of_a_run_whose_refinement_launch_was_killed_says_what_is_missing(tmp_path, capsys, monkeypatch):
    """Every planned measurement is there, the last (refinement) launch has no end record: show said
    "incomplete run (0 planned measurement(s) missing); continue with: msgperf run --resume", which
    contradicts itself (a tester cut a run file inside a refinement launch)."""
    monkeypatch.setenv("MSGPERF_NO_CACHE", "1")
    lines = RECORDED.read_text().splitlines()
    last_end = max(i for i, line in enumerate(lines) if '"type":"launch_end"' in line.replace(" ", ""))
    path = tmp_path / "killed.jsonl"
    path.write_text("\n".join(lines[:last_end] + lines[last_end + 1:]) + "\n")
    run = read_run(path).run
    assert not run.missing() and not run.launches[-1].finished
    code, _, err = cli(capsys, "show", path)
    assert code == 0 and "incomplete run" not in err
    assert (f"note: launch {run.launches[-1].index} did not finish (a killed job?); every planned measurement is "
            "here, but what that launch and any after it") in err.replace("\n", " ")
