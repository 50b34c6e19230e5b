"""msgperf fit / advise end to end, and the renderer that msgperf show calls."""

import json

import numpy as np
import pytest
from rich.console import Console

from msgperf.analysis.result import analyze
from msgperf.cli import main
from msgperf.present.model_text import render_models
from tests.factories import SIZES, broken, factors, make_run, measurement, sweep_run, write_run
from tests.factories import replace

CURVE = broken(1.1e-6, 5e-11, 3e-6, 1.3e-10, 6000)
REQUIRED = {"alpha_s": float, "alpha_ci_s": list, "beta_s_per_byte": float,
            "beta_ci_s_per_byte": list, "bandwidth_bytes_per_s": float, "n_half_bytes": float,
            "breakpoints_bytes": list, "segments": list, "anomalies_bytes": list}


def run_cli(capsys, *argv):
    code = 0
    try:
        main(list(argv))
    except SystemExit as exit_:
        code = exit_.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def samples_file(tmp_path):
    rng = np.random.default_rng(0)
    lines = ["# bytes seconds (one-way)"]
    for s in SIZES:
        lines += [f"{s} {CURVE(s) * f:.6e}" for f in factors(40, 0.03, rng)]
    path = tmp_path / "samples.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def run_file(tmp_path):
    return write_run(sweep_run([CURVE, CURVE, lambda b: 1.5 * CURVE(b)], n=60, noise=0.03),
                     tmp_path / "run.jsonl")


def test_fit_text(capsys, samples_file):
    code, out, err = run_cli(capsys, "fit", str(samples_file))
    assert code == 0 and err == ""
    assert "Hockney model" in out and "α latency" in out and "n½ = α/β" in out
    # the switch is found where it is; nothing in a text file of samples says what it is
    assert "between 4 KiB and 8 KiB: unexplained (nothing the run measured or recorded matches it)" in out
    assert "zero-byte latency" in out and "asymptotic bandwidth" in out
    # a text file does not say whether its times are one-way: the heading says what it knows
    assert "Model of samples (launch 0): time per message as the file gives it" in out


def test_fit_json_text(capsys, samples_file):
    code, out, _ = run_cli(capsys, "fit", str(samples_file), "--json")
    data = json.loads(out)
    for key, kind in REQUIRED.items():
        assert isinstance(data[key], kind), key
    assert data["breakpoints_bytes"] == [[4096, 8192]]
    assert [(s["from_bytes"], s["to_bytes"]) for s in data["segments"]] == [(0, 4096), (8192, 2**26)]
    assert {"alpha_s", "beta_s_per_byte"} <= set(data["segments"][0])
    assert data["alpha_ci_s"][0] < data["alpha_s"] < data["alpha_ci_s"][1]
    assert len(data["sizes"]) == len(SIZES) and data["sizes"][3]["n"] == 40
    assert data["anomalies_bytes"] == [] and data["launch_comparison"] is None


def test_fit_run_file_pooled_and_per_launch(capsys, run_file):
    code, out, _ = run_cli(capsys, "fit", str(run_file), "--json")
    data = json.loads(out)
    assert data["pattern"] == "pingpong" and data["launches"] == [0, 1, 2]
    assert data["launch_comparison"]["apart"] == [2]
    assert [m["launch"] for m in data["per_launch"]] == [0, 1, 2]
    code, out, _ = run_cli(capsys, "fit", str(run_file), "--launch", "1", "--json")
    assert json.loads(out)["launches"] == [1]
    code, out, _ = run_cli(capsys, "fit", str(run_file))
    assert code == 0 and "Launches: 3 launches" in out and "pooled" in out


@pytest.mark.parametrize("content, message", [
    ("0 1e-6\n8 -998128e-6\n", "line 2: the time -998128e-6 s is negative"),
    ("0 1e-6\n8 nan\n", "line 2: the time 'nan' is not a finite number"),
    ("0 1e-6\n8 0\n", "line 2: the time 0 s is zero"),
    ("0 1e-6\n", "1 message size: fitting T(b) = alpha + beta·b needs at least two sizes"),
])
def test_fit_bad_text_is_one_line_error(capsys, tmp_path, content, message):
    path = tmp_path / "bad.txt"
    path.write_text(content)
    code, out, err = run_cli(capsys, "fit", str(path))
    assert code == 1 and out == ""
    assert err.startswith("error: ") and message in err and err.count("\n") == 1


def test_fit_bad_run_file_names_the_record(capsys, tmp_path):
    run = make_run([measurement("pp", s, np.array([2e-6, 2.1e-6])) for s in (0, 8, 64)])
    path = write_run(run, tmp_path / "r.jsonl")
    lines = path.read_text().splitlines()
    lines[3] = lines[3].replace("2.1e-06", "-0.998128")
    path.write_text("\n".join(lines) + "\n")
    code, _, err = run_cli(capsys, "fit", str(path))
    assert code == 1 and "line 4" in err and "-0.998128" in err


def test_fit_options_errors(capsys, samples_file, run_file):
    code, _, err = run_cli(capsys, "fit", str(samples_file), "--pattern", "x")
    assert code == 1 and "no measurements of x" in err and "the run has samples" in err
    code, _, err = run_cli(capsys, "fit", str(run_file), "--pattern", "ring")
    assert code == 1 and "error: " in err and "the run has pingpong" in err
    code, _, err = run_cli(capsys, "fit", str(samples_file.parent / "nope.txt"))
    assert code == 1 and "no such file" in err


def test_advise(capsys, samples_file):
    code, out, _ = run_cli(capsys, "advise", str(samples_file), "--messages", "8", "--bytes", "1K")
    assert code == 0 and "8 messages of 1 KiB" in out and "speedup" in out and "combine them" in out
    code, out, _ = run_cli(capsys, "advise", str(samples_file), "-k", "8", "-s", "1024", "--json",
                           "--copy-bandwidth", "5e9")
    data = json.loads(out)
    assert data["messages"] == 8 and data["bytes"] == 1024
    assert data["speedup"] == pytest.approx(data["apart_s"] / data["combined_s"])
    assert data["combined_s"] == pytest.approx(CURVE(8192), rel=0.03)
    assert data["break_even_bytes"] > 0 and data["buffering"]["slowdown"] > 1
    code, _, err = run_cli(capsys, "advise", str(samples_file), "-k", "8", "-s", "4X")
    assert code == 1 and err.startswith("error: ") and "4X" in err


def test_render_models_for_show():
    rng = np.random.default_rng(2)
    ms = [measurement("pingpong", s, 2 * CURVE(s) * factors(100, 0.03, rng)) for s in SIZES]
    ms.append(measurement("ring", 64, 2e-6 * factors(100, 0.03, rng)))
    console = Console(record=True, width=100)
    render_models(console, analyze(make_run(ms)))
    text = console.export_text()
    assert "Model of pingpong" in text and "between 4 KiB and 8 KiB: unexplained" in text
    assert "Model of ring: not fitted — " in text and "needs at least two sizes" in text
    assert "Caveats" in text and "Anomalies: none" in text


def test_fit_and_advise_say_which_series_they_used(capsys, tmp_path):
    """A run that starts with eager-probe: fit and advise still model the ping-pong, and say so."""
    rng = np.random.default_rng(3)
    ms = [measurement("eager-probe", s, np.full(20, 2e-6), divisor=1) for s in SIZES[:4]]
    ms = [replace(m, metric="probe") for m in ms]
    ms += [measurement("pingpong", s, 2 * CURVE(s) * factors(60, 0.03, rng)) for s in SIZES]
    path = write_run(make_run(ms), tmp_path / "probe-first.jsonl")
    code, out, _ = run_cli(capsys, "fit", str(path))
    assert code == 0 and out.startswith("Model of pingpong (launch 0): one-way time = half a round trip")
    code, out, _ = run_cli(capsys, "advise", str(path), "-k", "8", "-s", "64")
    assert code == 0 and "from the model of pingpong (one-way time = half a round trip)" in out
    code, out, _ = run_cli(capsys, "fit", str(path), "--json")
    assert json.loads(out)["series"] == "pingpong"


def test_advise_says_when_its_run_was_not_measured_on_a_quiet_machine(capsys, tmp_path):
    """advise RUN: a run whose launch was oversubscribed still answers, with a warning that says so."""
    from msgperf.records.format import LaunchHost
    from tests.factories import pingpong_run
    run = pingpong_run(1)
    host = LaunchHost(host="node0", usable_cores=1, online_cores=1, progress={}, before=None, after=None,
                      interval_s=1.0, steal_fraction=None, other_cores=None)
    quiet = write_run(run, tmp_path / "quiet.jsonl")
    crowded = write_run(replace(run, launches=tuple(replace(l, host=host)
                                                                for l in run.launches)), tmp_path / "crowded.jsonl")
    code, out, _ = run_cli(capsys, "advise", str(crowded), "-k", "8", "-s", "1K", "--json")
    assert code == 0 and json.loads(out)["model_conditions"] == (
        f"{crowded}: launch 0 oversubscribed (2 ranks on 1 usable cores): its times may not be this machine's; "
        "measure on a quiet machine (msgperf run)")
    code, out, _ = run_cli(capsys, "advise", str(crowded), "-k", "8", "-s", "1K")
    assert code == 0 and "launch 0 oversubscribed (2 ranks on 1 usable cores)" in " ".join(out.split())
    code, out, _ = run_cli(capsys, "advise", str(quiet), "-k", "8", "-s", "1K", "--json")
    assert code == 0 and json.loads(out)["model_conditions"] is None


def _falling(b):
    """Times that fall with size between 4 KiB and 32 KiB: a segment whose β lies wholly below 0."""
    if b < 4096:
        return 2e-6 + 1e-9 * b
    return 40e-6 - 1.2e-9 * b if b < 32768 else 1e-6 + 1e-9 * b


def test_a_segment_whose_slope_lies_below_zero_is_cannot_tell(capsys, tmp_path):
    sizes = sorted({int(round(2 ** (i / 4))) for i in range(81)})  # 1 B to 1 MiB, 4 sizes an octave
    path = write_run(sweep_run([_falling], n=100, noise=0.02, sizes=sizes), tmp_path / "fall.jsonl")
    _, out, _ = run_cli(capsys, "fit", str(path))
    lines = [l for l in out.splitlines() if l.startswith("  4 KiB – ")]
    assert len(lines) == 1 and "β and 1/β: cannot tell (β's interval lies below 0" in lines[0]
    assert "-1.2 ns/B" not in out and "−1.2 ns/B" not in out
    # the segments either side keep their β: a good value still passes
    assert "1 B – 3444 B: α 2 µs" in out and "β 1 ns/B" in out
    _, out, _ = run_cli(capsys, "fit", str(path), "--json")
    segs = json.loads(out)["segments"]
    assert [s["cannot_tell"] is not None for s in segs] == [False, True, False]
    assert segs[1]["beta_s_per_byte"] is None and segs[1]["bandwidth_bytes_per_s"] is None
    assert segs[0]["beta_s_per_byte"] == pytest.approx(1e-9, rel=0.02)


def test_a_segment_s_intercept_below_zero_is_not_printed_as_a_latency(capsys):
    """A tester's quiet run: fit printed "α -470 µs [-665 – -276 µs]" for a large-message segment
    whose times grow faster than a line (caches): an intercept, no latency."""
    from pathlib import Path

    path = Path(__file__).parents[1] / "data" / "kernel-runs" / "mpich-default-refinement-set-aside.jsonl"
    code, out, err = run_cli(capsys, "fit", str(path))
    assert code == 0, err
    negative = [line for line in out.splitlines() if ": α -" in line]
    assert negative and all("(an intercept below 0, no latency)" in line for line in negative)
    assert not any("intercept below 0" in line for line in out.splitlines() if ": α -" not in line and ": α " in line)
