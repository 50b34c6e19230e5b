"""msgperf advise holds its figures to the rules show's answer holds its own to (analysis/answer.py):
where show says "cannot tell", advise gives no number and no recommendation, says why, and names every
disturbed launch as show does. Real run files of a tester (tests/data/kernel-runs/README.md)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_in_process import cli as run_cli

RUNS = Path(__file__).resolve().parents[1] / "data" / "kernel-runs"
PROFILES = Path(__file__).resolve().parents[1] / "data" / "profiles"


def _advise(capsys, monkeypatch, tmp_path, *args: str) -> tuple[str, dict]:
    monkeypatch.setenv("MSGPERF_HOME", str(tmp_path / "home"))
    code, out, err = run_cli(capsys, "advise", *args)
    assert code == 0, err
    code, js, err = run_cli(capsys, "advise", *args, "--json")
    assert code == 0, err
    return out, json.loads(js)


def test_a_run_oversubscribed_in_every_launch_gets_no_speedup_and_no_advice_to_combine(tmp_path, capsys, monkeypatch):
    # show: latency, bandwidth and n½ cannot tell; "6 launches: oversubscribed" (was: 5.03x, combine them,
    # and only "launch 0 oversubscribed")
    out, data = _advise(capsys, monkeypatch, tmp_path, str(RUNS / "mpich-taskset-one-cpu.jsonl"), "-k", "8", "-s", "1K")
    assert "combine them" not in out and "5.03" not in out
    assert "speedup    cannot tell: " in out and "oversubscribed" in out
    for line in ("6 launches: oversubscribed", "6 launches: the ranks shared a core", "6 launches on a busy machine"):
        assert line in out
    assert data["answer_speedup"] is None and data["speedup"] is None and data["verdict"] is None
    assert data["measured_speedup"] is None and data["line_speedup"] is None
    assert "disturbed" in data["cannot_tell"]["speedup"]
    assert [c["text"] for c in data["conditions"]][:1] == ["6 launches: oversubscribed"]


def test_the_network_bandwidth_of_buffering_is_the_answers_cannot_tell(tmp_path, capsys, monkeypatch):
    # show: "largest messages: cannot tell: disturbed ... (3.96 GB/s)"; advise said b_n = that number
    out, data = _advise(capsys, monkeypatch, tmp_path, str(RUNS / "mpich-taskset-one-cpu.jsonl"), "-k", "4", "-s", "4K",
                        "--copy-bandwidth", "10GB/s")
    assert "network b_n cannot tell: disturbed" in out and "b_e =" not in out
    assert data["buffering"]["network_bandwidth_bytes_per_s"] is None and data["buffering"]["buffered_s"] is None
    assert data["buffering"]["copy_bandwidth_bytes_per_s"] == 10e9  # the copy speed given still stands


def test_no_prediction_from_a_segment_the_model_cannot_tell(tmp_path, capsys, monkeypatch):
    # a run cut off at 16 B: its one segment falls at -23 ns/B; it predicted 433 ns for 32 B (16 B: 875 ns)
    out, data = _advise(capsys, monkeypatch, tmp_path, str(RUNS / "mpich-cut-off-at-16B.jsonl"), "-k", "2", "-s", "16")
    assert "433 ns" not in out and "combine them" not in out and "3.69" not in out
    assert "predicted  cannot tell: the model's segment 0 B – 16 B: its β cannot be told" in out
    assert "a single line α + β·b cannot tell: α or β of the line is not positive" in out
    assert data["combined_s"] is None and data["answer_speedup"] is None
    assert "launch 0 cut off: conditions not recorded" in out


def test_the_collectives_measured_speedup_from_disturbed_launches_cannot_tell(tmp_path, capsys, monkeypatch):
    # pooled over two launches 2x apart, 0.752x; each launch alone 1.09x and 1.03x
    out, data = _advise(capsys, monkeypatch, tmp_path, str(RUNS / "mpich-allreduce-ring-busy.jsonl"),
                        "--collective", "allreduce", "-k", "2", "-s", "64K")
    assert "0.752" not in out
    assert "speedup cannot tell: disturbed" in out
    assert "on a busy machine →" in out  # the disturbance, as show says it
    assert data["measured_speedup"] is None and "disturbed" in data["measured_speedup_cannot_tell"]
    assert any("busy machine" in c["text"] for c in data["conditions"])


def test_an_algorithm_the_runs_environment_selects_is_not_suggested_to_be_measured(tmp_path, capsys, monkeypatch):
    out, data = _advise(capsys, monkeypatch, tmp_path, str(RUNS / "mpich-allreduce-recursive-doubling.jsonl"),
                        "--collective", "allreduce", "-k", "2", "-s", "64K")
    rd = next(f for f in data["favoured"] if f["algorithm"] == "recursive_doubling")
    assert rd["selected_by_run"] == "MPIR_CVAR_DEVICE_COLLECTIVES=none MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=recursive_doubling"
    assert "measure it with MPIR_CVAR_DEVICE_COLLECTIVES=none MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=recursive_doubling" \
        not in " ".join(out.split())
    assert "this run already selects it" in " ".join(out.split())


def test_the_profiles_eager_saving_cannot_tell_where_the_model_run_cannot_tell_the_crossing(
        tmp_path, capsys, monkeypatch):
    # show of the model run: "crossing it cannot tell: sizes beside it, 4 KiB and 8 KiB, too far apart";
    # advise said "saves 0 ns [0 ns – 0 ns]"
    monkeypatch.setenv("MSGPERF_HOME", str(tmp_path / "home"))
    args = ("advise", "--profile", str(PROFILES / "eager-8150.jsonl"), "--model", str(RUNS / "mpich-taskset-one-cpu.jsonl"))
    code, out, err = run_cli(capsys, *args)
    assert code == 0, err
    text = " ".join(out.split())
    assert "each by rendezvous" not in text and "saves 0 ns" not in text
    assert "cannot tell (crossing it: sizes beside it, 4 KiB and 8 KiB, too far apart)" in text
    code, out, err = run_cli(capsys, *args, "--json")
    data = json.loads(out)
    assert data["eager"] == [] and "too far apart" in data["eager_why_not"]


def test_the_copy_speed_of_buffering_is_summary_s_cannot_tell(tmp_path, capsys, monkeypatch):
    """A reviewer: summary said "copy: cannot tell" for a run beside other work while advise printed
    "copy b_c 41.1 GB/s" and --json kept it, with the Hockney line's α and β that fit --json withholds."""
    path = str(RUNS / "mpich-allreduce-ring-busy.jsonl")
    out, data = _advise(capsys, monkeypatch, tmp_path, path, "-k", "4", "-s", "64K")
    code, summary, err = run_cli(capsys, "summary", path)
    assert code == 0, err
    why = data["cannot_tell"]["copy"]
    assert why.startswith("disturbed: ") and f"copy: cannot tell ({why})" in summary
    assert f"copy b_c cannot tell: {why}" in " ".join(out.split())
    assert data["buffering"]["copy_bandwidth_bytes_per_s"] is None
    code, fitted, err = run_cli(capsys, "fit", "--json", path)
    assert code == 0, err
    assert data["model"]["alpha_s"] is None is json.loads(fitted)["alpha_s"]
