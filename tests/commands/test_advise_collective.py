"""msgperf advise --collective end to end: k allreduces of s bytes against one of k·s, and the
favoured algorithm with the MPI's variable, as a suggestion to measure."""

from __future__ import annotations

import json

from tests.analysis.collectives.test_naming import run_of
from tests.cli_in_process import cli as run_cli
from tests.factories import write_run


def test_three_allreduces_against_one(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MSGPERF_HOME", str(tmp_path / "home"))
    path = write_run(run_of("recursive_doubling"), tmp_path / "run.jsonl")
    code, out, err = run_cli(capsys, "advise", str(path), "--collective", "allreduce", "-k", "2", "-s", "8")
    assert code == 0, err
    assert "2 allreduces of 8 B" in out and "measured" in out and "speedup" in out
    assert "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=recursive_doubling" in out
    assert "suggestion to measure" in out
    code, out, err = run_cli(capsys, "advise", str(path), "--collective", "allreduce", "-k", "3", "-s", "8",
                             "--json")
    data = json.loads(out)
    assert data["used"] == "recursive_doubling" and data["measured_combined_s"] is None
    speedup = next(c for c in data["choices"] if c["algorithm"] == "recursive_doubling")
    assert 2.7 < speedup["apart_s"] / speedup["combined_s"] < 3.05


def test_bad_collective_and_no_collective_say_so_in_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MSGPERF_HOME", str(tmp_path / "home"))
    path = write_run(run_of("recursive_doubling"), tmp_path / "run.jsonl")
    code, out, err = run_cli(capsys, "advise", str(path), "--collective", "allsum", "-k", "2", "-s", "8")
    assert code != 0 and "not one of" in err and "Traceback" not in err
