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


def test_where_the_times_point_to_no_algorithm_the_advice_says_its_predictions_are_not_this_mpis(
        tmp_path, capsys, monkeypatch):
    """A tester's MPICH allreduce took 691 ns at 1 KiB where every algorithm predicted 1.5-2.5 µs
    (ch4's own collective), and the advice printed "not both sizes ... predicted only" then a
    prediction of 15.1 µs for 10 calls, without saying the run measured 10 x 691 ns."""
    monkeypatch.setenv("MSGPERF_HOME", str(tmp_path / "home"))
    far = write_run(run_of("far_off"), tmp_path / "far.jsonl")
    code, out, err = run_cli(capsys, "advise", str(far), "--collective", "allreduce", "-k", "3", "-s", "8")
    assert code == 0, err
    assert "measured   3 × " in out and "24 B not measured (msgperf run --pattern allreduce --sizes 24" in out
    assert "! at 8 B the run measured" in out and "the times point to none of them" in out
    data = json.loads(run_cli(capsys, "advise", str(far), "--collective", "allreduce", "-k", "3", "-s", "8",
                              "--json")[1])
    [miss] = data["misses"]
    assert miss["bytes"] == 8 and miss["lowest_s"] <= miss["highest_s"] < miss["measured_s"]
    fitting = write_run(run_of("recursive_doubling"), tmp_path / "rd.jsonl")
    code, out, err = run_cli(capsys, "advise", str(fitting), "--collective", "allreduce", "-k", "3", "-s", "8")
    assert code == 0 and "point to none" not in out
