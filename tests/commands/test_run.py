"""msgperf run's own checks, as a user meets them: one line, exit 1, nothing launched and nothing
on disk changed. (The workflow behind the command: tests/launch/test_session.py; real runs:
tests/kernels.)"""

from __future__ import annotations

import os
import subprocess

import pytest

from msgperf.store.db import open_store
from tests.factories import pingpong_run, write_run


def one_line_error(result) -> str:
    assert result.returncode == 1, (result.returncode, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


@pytest.mark.parametrize("args, message", [
    (["--deadline", "0"], "error: --deadline 0: a deadline must be a positive finite number of seconds, e.g. --deadline 120"),
    (["--deadline", "nan"], "error: --deadline nan: a deadline must be a positive finite number of seconds"),
    (["--time-budget", "nan"], "error: cannot read duration 'nan'; write seconds like 1.5, 500ms or 2s"),
    (["--precision", "nan"], "error: precision nan is out of range; use 0.001% to 50%"),
    (["--sizes", "nan"], "error: cannot read size 'nan'; write bytes like 64, 4K, 1M or 2G"),
    (["--launcher", "mpiexec 'unbalanced"], "error: --launcher \"mpiexec 'unbalanced\": no closing quotation"),
])
def test_values_that_would_switch_a_safety_net_off(msgperf, tmp_path, args, message):
    """(-5, inf, an empty --launcher...: tests/launch/test_session.py, in-process.)"""
    line = one_line_error(msgperf("run", *args, cwd=tmp_path))
    assert line.startswith(message), line
    assert list(tmp_path.iterdir()) == []  # nothing created, nothing launched


@pytest.mark.parametrize("option", ["--min-samples", "--repeat"])
def test_nan_for_a_count_is_a_usage_error(msgperf, tmp_path, option):
    result = msgperf("run", option, "nan", cwd=tmp_path)
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "'nan' is not a valid integer" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_resume_refuses_options_it_would_ignore(msgperf, tmp_path):
    run_file = write_run(pingpong_run(), tmp_path / "a.jsonl")
    before = run_file.read_bytes()
    line = one_line_error(msgperf("run", "--resume", run_file, "--sizes", "8", "--np", "4", "-o", tmp_path / "b.jsonl",
                                  "--repeat", "2", cwd=tmp_path))
    assert line == (f"error: --resume {run_file} takes the plan from the run file; drop --np, --sizes, --repeat, -o "
                    "(or measure anew without --resume)")
    # the same value as the default is still an option the user gave
    assert "drop --pattern" in one_line_error(msgperf("run", "--resume", run_file, "--pattern", "pingpong"))
    assert "drop --[no-]model-patterns " in one_line_error(msgperf("run", "--resume", run_file, "--no-model-patterns"))
    assert run_file.read_bytes() == before and not (tmp_path / "b.jsonl").exists()


def test_answer_launches_that_would_be_ignored_or_out_of_range_are_refused(msgperf, tmp_path):
    """--repeat measures every size in each launch: answer launches beside it would be ignored
    (the default count is not an option the user gave); a resumed run makes none."""
    line = one_line_error(msgperf("run", "--repeat", "3", "--answer-launches", "2", cwd=tmp_path))
    assert line == ("error: --answer-launches 2 with --repeat 3: every size is measured in each of the 3 launches "
                    "already; drop one of them")
    run_file = write_run(pingpong_run(), tmp_path / "a.jsonl")
    assert "drop --answer-launches" in one_line_error(msgperf("run", "--resume", run_file, "--answer-launches", "1",
                                                              cwd=tmp_path))
    result = msgperf("run", "--answer-launches", "21", cwd=tmp_path)
    assert result.returncode == 2 and "21 is not in the range 0<=x<=20" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl"]


def test_an_existing_run_file_needs_force(msgperf, tmp_path):
    run_file = write_run(pingpong_run(), tmp_path / "a.jsonl")
    before = run_file.read_bytes()
    line = one_line_error(msgperf("run", "--sizes", "8", "-o", run_file, cwd=tmp_path))
    assert line == (f"error: -o {run_file}: the run file exists; continue it with --resume {run_file}, choose "
                    "another -o, or pass --force to replace it")
    assert run_file.read_bytes() == before


def test_the_result_database_is_never_overwritten_even_with_force(msgperf, tmp_path):
    db = tmp_path / "msgperf.db"
    with open_store(str(db)) as store:
        store.add_run(pingpong_run())
    before = db.read_bytes()
    line = one_line_error(msgperf("run", "--sizes", "8", "-o", db, "--force", cwd=tmp_path))
    assert line == (f"error: -o {db}: the file exists and is not a msgperf run file; msgperf never replaces it "
                    "(not even with --force); choose another -o")
    assert db.read_bytes() == before


def test_a_read_only_working_directory(msgperf, tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    if os.geteuid() == 0:
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(ro)], capture_output=True)
        if mounted.returncode != 0:
            pytest.skip(f"cannot mount a read-only tmpfs: {mounted.stderr.decode().strip()}")
    else:
        ro.chmod(0o555)
    try:
        line = one_line_error(msgperf("run", "--sizes", "8", cwd=ro))
        assert line == ("error: cannot write the run file: the working directory is not writable; run from a "
                        "writable directory or pass -o FILE")
    finally:
        if os.geteuid() == 0:
            subprocess.run(["umount", str(ro)], check=False)
        else:
            ro.chmod(0o755)


# ---- what msgperf run prints on stderr (a fake launcher: tests/launch/fake_launcher.py) -----------

def _run_in_process(capsys, monkeypatch, tmp_path, *behaviours, args=()):
    from msgperf.launch.launcher import MpiLauncher
    from tests.cli_in_process import cli
    from tests.launch.fake_launcher import Behaviour, FakeLauncher
    from tests.launch.test_refinement import CURVE

    launcher = FakeLauncher(*behaviours, every=Behaviour(curve=CURVE))
    monkeypatch.setattr(MpiLauncher, "prepare", classmethod(lambda cls, **kw: launcher))
    monkeypatch.chdir(tmp_path)
    return cli(capsys, "run", "--sizes", "1K:1M", "--min-samples", "8", "--max-samples", "12", "--total-time", "30s",
               "-o", tmp_path / "run.jsonl", "--db", tmp_path / "db.sqlite", "--no-report", *args)


def test_off_a_terminal_a_run_prints_nothing_on_stderr(capsys, monkeypatch, tmp_path):
    """The sweep, the eager probe and the refinement of a switch (8 to 16 KiB), stderr captured
    (not a terminal): no progress, no paragraph about the refinement; the answer is on stdout."""
    code, out, err = _run_in_process(capsys, monkeypatch, tmp_path)
    assert code == 0 and err == ""
    assert f"run file: {tmp_path / 'run.jsonl'}" in out
    from msgperf.records.runfile_read import read_run
    assert len(read_run(tmp_path / "run.jsonl").run.launches) >= 3  # the refinement did run


def test_a_warning_is_printed_once_and_a_repeated_refinement_round_not_at_all(capsys, monkeypatch, tmp_path):
    """A failed eager probe is a warning: one line, once. A refinement round found disturbed is
    measured again: before, its paragraph was printed a second time; now neither round prints one."""
    from tests.launch.fake_launcher import Behaviour
    from tests.launch.test_refinement import CURVE

    disturbed = (*CURVE, ((16384, 40.0), (4096, 3.0)))
    code, out, err = _run_in_process(capsys, monkeypatch, tmp_path, Behaviour(curve=CURVE),
                                     Behaviour(after=-1, code=1, log=("probe went wrong",)),
                                     Behaviour(curve=disturbed))
    assert code == 0
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("the eager-probe launch failed; the sweep is complete and kept")
    from msgperf.records.runfile_read import read_run
    launches = read_run(tmp_path / "run.jsonl").run.launches
    assert len(launches) >= 3  # the sweep, the disturbed round and its repetition
