"""Measured beside other work, a figure is "cannot tell", not a finding (issue 27 item 2,
analysis/answer.py ``disturbance``): the headline latency and bandwidth of a launch that ran beside
other work or oversubscribed, or with its pair seen on one core while its samples show a scheduler
(two groups of times, or a slice of 1 ms), and the "likely" gap of a switch that is not held to
its rule. The recorded run is a replay of the kernels' output on a loaded 2-core machine (Open MPI
beside other work: 0 B one way read 14 ms)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

from msgperf import units
from msgperf.analysis import caveats as cv
from msgperf.analysis.answer import Figure, Step, Switch, _held_likely, disturbance
from msgperf.analysis.model import EAGER
from msgperf.analysis.tables import EagerLimit
from msgperf.analysis.result import analyze
from msgperf.records.runfile_read import read_run
from tests.factories import replace

RUNS = Path(__file__).parent.parent / "data" / "kernel-runs"
BUSY = RUNS / "openmpi-busy-0-1M.jsonl"  # launch 0 beside other work: 1.75 of 2 cores
QUIET = RUNS / "mpich-cell32k-switch-refined.jsonl"  # main launch quiet (a refinement launch was busy)


def _row(size: int, launches: tuple[int, ...], time_s: float = 2e-6):
    return SimpleNamespace(bytes=size, launch_ids=launches, time_s=time_s)


def _fig(size: int, value: float = 2e-6) -> Figure:
    return Figure(value, value * 0.99, value * 1.01, "within one launch", size)


def test_a_headline_measured_beside_other_work_is_cannot_tell():
    a = analyze(read_run(BUSY).run).answer
    assert a.latency.value is None and a.latency.low is None
    assert a.latency.why_not == "disturbed: launch 0 beside other work (14 ms)"
    assert a.peak_bandwidth.value is None
    assert a.peak_bandwidth.why_not == "disturbed: launch 0 beside other work (13.3 GB/s)"


def test_every_output_of_the_answer_says_cannot_tell_for_a_disturbed_headline(msgperf):
    shown = msgperf("show", BUSY)
    assert shown.returncode == 0, shown.stderr
    assert "latency     cannot tell: disturbed: launch 0 beside other work (14 ms)" in shown.stdout
    answer = json.loads(msgperf("show", "--json", BUSY).stdout)["answer"]
    assert answer["latency"]["value"] is None and "beside other work" in answer["latency"]["why_not"]
    assert answer["peak_bandwidth"]["value"] is None
    summary = msgperf("summary", BUSY)
    assert summary.returncode == 0, summary.stderr
    assert "0 B latency: cannot tell (disturbed: launch 0 beside other work (14 ms))" in summary.stdout
    assert "peak bandwidth: cannot tell (disturbed: launch 0 beside other work (13.3 GB/s))" in summary.stdout
    rows = json.loads(msgperf("summary", "--json", BUSY).stdout)
    row = rows[0] if isinstance(rows, list) else rows["rows"][0]
    assert row["zero_byte_latency_s"] is None and row["zero_byte_latency_why_not"].startswith("disturbed")
    assert row["peak_bandwidth_bytes_per_s"] is None


def test_a_quiet_launch_keeps_its_headline_though_a_later_launch_was_busy():
    result = analyze(read_run(QUIET).run)
    assert any(c.kind == "busy_machine" and c.launch == 2 for c in result.main.model.caveats)
    a = result.answer
    assert a.latency.value is not None and a.latency.low is not None
    assert a.peak_bandwidth.value is not None


def test_a_headline_from_a_launch_cut_off_before_its_conditions_were_recorded_is_cannot_tell(tmp_path):
    """A tester's run beside a busy loop, cut at 100 kB inside its first launch, read "latency
    1.89 µs [1.88 – 1.91 µs]" where the whole file says "cannot tell": the record that would have
    said other work ran beside it was cut off with it. Here a quiet run cut the same way."""
    lines = QUIET.read_text().splitlines(keepends=True)
    end = next(i for i, line in enumerate(lines) if '"launch_end"' in line)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:end]))
    whole = analyze(read_run(QUIET).run).answer
    assert whole.latency.value is not None  # quiet, and recorded so
    a = analyze(read_run(cut).run).answer
    assert a.latency.value is None and a.peak_bandwidth.value is None
    assert a.latency.why_not.startswith("conditions unknown: launch 0 cut off (") and a.latency.why_not.endswith("s)")
    assert [w.text for w in a.warnings if w.kind == "conditions_unknown"] == ["launch 0 cut off: conditions not recorded"]


def test_a_switch_nothing_names_seen_only_beside_other_work_cannot_tell(msgperf):
    """Every launch of a tester's run beside a busy loop gave switches "cause unknown" where the
    time fell across the gap and rose again: a step both of whose sizes were measured beside other
    work is the other work's as likely as the MPI's. A switch the probe or a setting names stays."""
    a = analyze(read_run(BUSY).run).answer
    marked = [s for s in a.switches if s.unconfirmed]
    assert marked and all(s.kinds == ("unexplained",) for s in marked)
    assert all(s.unconfirmed == "sizes measured while disturbed" for s in marked)
    quiet = analyze(read_run(QUIET).run).answer
    assert not any(s.unconfirmed for s in quiet.switches)
    shown = msgperf("show", "--brief", BUSY).stdout
    low, high = units.size(marked[0].low_bytes), units.size(marked[0].high_bytes)
    assert f"{low} – {high}: cannot tell (sizes measured while disturbed)" in shown


def test_a_segment_fitted_to_sizes_measured_while_disturbed_has_no_alpha_or_beta(msgperf):
    """A reviewer found fit printing each segment's α, β and n½ beside a Hockney line, a latency
    and a bandwidth it called "cannot tell" for the same launches."""
    a = analyze(read_run(BUSY).run).answer
    assert a.segments_disturbed and all(w.startswith("disturbed: launch 0 beside other work (")
                                        for w in a.segments_disturbed if w)
    text = msgperf("fit", BUSY).stdout
    segment_lines = [line for line in text.splitlines() if re.match(r"  \S+ \S+ – \S+ \S+: α", line)]
    assert segment_lines and all(line.split(": ", 1)[1].startswith("α cannot tell, β and 1/β: cannot tell")
                                 for line in segment_lines)
    quiet = analyze(read_run(RUNS / "mpich-default-quiet-refined.jsonl").run).answer
    assert quiet.segments_disturbed == ()
    # fit --json the same: each segment's α null with its β, and the switches the answer cannot tell
    model = json.loads(msgperf("fit", "--json", BUSY).stdout)
    assert all(seg["alpha_s"] is None and seg["beta_s_per_byte"] is None for seg in model["segments"])
    marked = {(s.low_bytes, s.high_bytes) for s in a.switches if s.unconfirmed}
    assert marked and {(b["low_bytes"], b["high_bytes"]) for b in model["breakpoints"] if b["cannot_tell"]} == marked
    assert all(f"cannot tell (sizes measured while disturbed): " in line for line in text.splitlines()
               if line.startswith("  between ") and any(f"between {units.size(lo)} and {units.size(hi)}" in line
                                                       for lo, hi in marked))


def test_busy_or_oversubscribed_on_the_figure_s_own_launch_is_disturbed_another_launch_is_not():
    rows = {0: _row(0, (0,)), 64: _row(64, (1,))}
    busy = [cv.busy_machine(0, "other work 1.75 of 2 cores")]
    assert disturbance(_fig(0), rows, busy) == "disturbed: launch 0 beside other work"
    assert disturbance(_fig(64), rows, busy) == ""
    over = [cv.oversubscribed(1, 3, 2, "vm", ())]
    assert disturbance(_fig(64), rows, over) == "disturbed: launch 1 oversubscribed"


def test_two_ranks_seen_on_one_core_count_only_with_the_samples_sign_of_a_scheduler():
    shared = [cv.shared_core(0, [((0, 1), 0, "end")])]
    quiet = {0: _row(0, (0,), 2e-6)}
    assert disturbance(_fig(0), quiet, shared) == ""  # seen at an instant: no proof alone
    sliced = {0: _row(0, (0,), 4e-3)}
    assert disturbance(_fig(0, 4e-3), sliced, shared) == "disturbed: launch 0 ranks on one core"
    groups = shared + [cv.bimodal(0, 0, 2e-6, 4e-3, 0.3)]
    assert disturbance(_fig(0), quiet, groups) == "disturbed: launch 0 ranks on one core, two groups of times"
    assert disturbance(_fig(0), quiet, [cv.bimodal(0, 0, 2e-6, 4e-3, 0.3)]) == ""  # no verdict: kept
    # ... or with that launch's time at the size apart from the other launches' (Open MPI, 1 KiB at
    # 0.31, 0.31, 0.87, 0.35, 0.30 µs, the third launch seen with both ranks on one CPU)
    rows = {1024: _row(1024, (0, 1, 2))}
    apart = shared + [cv.size_apart(0, 1024, 2.8)]
    assert disturbance(_fig(1024), rows, apart) == "disturbed: launch 0 ranks on one core, launch 0 at 2.8x the other launches'"
    assert disturbance(_fig(1024), rows, shared + [cv.size_apart(2, 1024, 2.8)]) == ""  # another launch's
    assert disturbance(_fig(1024), rows, [cv.size_apart(0, 1024, 2.8)]) == ""  # not seen sharing: kept


def _switch(low: int, high: int, best_low: int, best_high: int) -> Switch:
    step = Step(_fig(best_low), _fig(best_high, 3e-6), Figure(1e-6, 0.9e-6, 1.1e-6, "within one launch"), 0.5)
    return Switch(low, high, best_low, best_high, (EAGER,), "eager → rendezvous", ("eager-probe",), step)


def _probe(limit: int) -> EagerLimit:
    return EagerLimit(limit, limit, limit + 1, 1 << 20, (), "")


def test_a_likely_gap_that_misses_the_probe_s_limit_is_dropped():
    s = _switch(4096, 16384, 8192, 16384)  # the switch at 8112/8113 B read "likely 8 KiB – 16 KiB"
    rows = {b: _row(b, (0,)) for b in (4096, 8192, 16384)}
    measured = {b: _fig(b) for b in rows}
    held = _held_likely(s, measured, rows, [], _probe(8112))
    assert (held.best_low_bytes, held.best_high_bytes) == (4096, 16384)
    assert held.step.step.value is None and "does not hold the eager-probe's limit, 8112 B" in held.step.step.why_not
    kept = _held_likely(s, measured, rows, [], _probe(9000))
    assert kept == s


def test_a_likely_gap_is_dropped_under_load():
    s = _switch(4096, 16384, 8192, 16384)
    rows = {b: _row(b, (0,)) for b in (4096, 8192, 16384)}
    measured = {b: _fig(b) for b in rows}
    busy = _held_likely(s, measured, rows, [cv.busy_machine(0, "x")], _probe(9000))
    assert (busy.best_low_bytes, busy.best_high_bytes) == (4096, 16384)
    assert "16 KiB was measured while disturbed" in busy.step.step.why_not or \
        "8 KiB was measured while disturbed" in busy.step.step.why_not
    set_aside = _held_likely(s, measured, rows, [cv.refinement_disturbed(2, 1.0, 2.0, 3)], _probe(9000))
    assert (set_aside.best_low_bytes, set_aside.best_high_bytes) == (4096, 16384)


def test_show_detail_and_the_report_say_cannot_tell_like_the_answer(msgperf, tmp_path):
    detail = msgperf("show", "--detail", BUSY)
    assert detail.returncode == 0, detail.stderr
    assert "zero-byte latency     cannot tell  disturbed: launch 0 beside other work (14 ms)" in detail.stdout
    assert "(most likely between 16 B and 32 B)" not in detail.stdout  # the answer dropped that gap
    report = tmp_path / "r.html"
    made = msgperf("report", BUSY, "-o", report)
    assert made.returncode == 0, made.stderr
    html = report.read_text()
    assert "cannot tell (disturbed: launch 0 beside other work (14 ms))" in html
    assert "most likely 16 B–32 B" not in html


def test_the_answer_names_the_terms_it_cannot_tell_once():
    a = analyze(read_run(BUSY).run).answer
    assert a.disturbed == {"zero_byte_latency": "disturbed: launch 0 beside other work (14 ms)",
                           "peak_bandwidth": "disturbed: launch 0 beside other work (13.3 GB/s)",
                           "asymptotic_latency": "disturbed: launch 0 beside other work (10 of the 10 sizes it is "
                                                 "fitted to; 18.4 ms)",
                           "alpha": "disturbed: launch 0 beside other work (22 of the 22 sizes it is fitted to; 410 ns)",
                           "beta": "disturbed: launch 0 beside other work (22 of the 22 sizes it is fitted to; "
                                   "13.5 GB/s)"}
    assert analyze(read_run(QUIET).run).answer.disturbed == {}


def test_fit_json_says_cannot_tell_like_the_answer(msgperf):
    answer = json.loads(msgperf("show", "--json", BUSY).stdout)["answer"]
    fitted = msgperf("fit", "--json", BUSY)
    assert fitted.returncode == 0, fitted.stderr
    model = json.loads(fitted.stdout)
    why = "disturbed: launch 0 beside other work (14 ms)"
    assert model["zero_byte_latency_s"] is None and model["zero_byte_latency_ci_s"] is None
    assert model["zero_byte_latency_why_not"] == why == answer["latency"]["why_not"]
    assert model["terms"]["zero_byte_latency"]["value"] is None
    assert model["terms"]["zero_byte_latency"]["why_not"] == why
    assert model["peak_bandwidth_bytes_per_s"] is None and model["terms"]["peak_bandwidth"]["value"] is None
    assert model["peak_bandwidth_why_not"] == answer["peak_bandwidth"]["why_not"]
    # a term fitted to sizes measured while disturbed: cannot tell, in the flat keys too
    assert model["terms"]["asymptotic_latency"]["value"] is None and model["asymptotic_latency_s"] is None
    assert model["asymptotic_latency_why_not"] == model["terms"]["asymptotic_latency"]["why_not"] == (
        "disturbed: launch 0 beside other work (10 of the 10 sizes it is fitted to; 18.4 ms)")
    assert model["terms"]["line_bandwidth"]["why_not"] is None  # its own rule already withholds it
    # the Hockney line's α and β, fitted to those sizes too (fit printed them beside an n½ it
    # could not tell)
    assert model["alpha_s"] is None and model["alpha_ci_s"] is None and model["alpha_why_not"].startswith(
        "disturbed: launch 0 beside other work (")
    assert model["beta_s_per_byte"] is None and model["bandwidth_bytes_per_s"] is None
    assert model["beta_why_not"].startswith("disturbed: launch 0 beside other work (")
    text = msgperf("fit", BUSY).stdout
    assert re.search(r"α latency +cannot tell +disturbed: launch 0", text)
    assert re.search(r"bandwidth 1/β +cannot tell +disturbed: launch 0", text)
    # the gap the model found most likely (16-32 B) is dropped, as in the answer block
    switches = {(w["low_bytes"], w["high_bytes"]): (w["best_low_bytes"], w["best_high_bytes"])
                for w in answer["switches"]}
    for bp in model["breakpoints"]:
        assert (bp["best_low_bytes"], bp["best_high_bytes"]) == switches[bp["low_bytes"], bp["high_bytes"]]
    first = model["breakpoints"][0]
    assert (first["best_low_bytes"], first["best_high_bytes"]) == (8, 32)
    assert first["best_why_not"] == "a refinement launch was set aside as disturbed"


def _oversubscribed(tmp_path: Path, every: bool = False) -> Path:
    """The quiet run with its first launch's host facts (``every``: every launch's) saying 2 ranks
    on 1 usable CPU: the sweep (and its largest size) oversubscribed, the refinement launches (the
    peak, 362 KiB) not unless ``every``."""
    lines = []
    for line in QUIET.read_text().splitlines():
        record = json.loads(line)
        if record.get("type") == "launch" and (every or record["launch"] == 0):
            for host in record["host_facts"]:
                host["usable_cpus"] = 1
            line = json.dumps(record)
        lines.append(line)
    path = tmp_path / "oversubscribed.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_large_message_bandwidth_measured_oversubscribed_is_cannot_tell_everywhere(msgperf, tmp_path):
    run = _oversubscribed(tmp_path)
    why = "disturbed: launch 0 oversubscribed (8.55 GB/s)"
    result = analyze(read_run(run).run)
    assert result.answer.large_bandwidth.value is None and result.answer.large_bandwidth.why_not == why
    assert result.answer.peak_bandwidth.value is not None  # measured in a quiet refinement launch
    row = result.saphir[0]
    assert row.bandwidth_bytes_per_s is None and row.bandwidth_why_not == why
    assert row.effective_buffered_bandwidth_bytes_per_s is None
    assert row.peak_bandwidth_bytes_per_s == result.answer.peak_bandwidth.value
    summary = msgperf("summary", run)
    assert summary.returncode == 0, summary.stderr
    assert f"asymptotic bandwidth: cannot tell ({why})" in summary.stdout
    assert "8551" not in summary.stdout  # the value in MB/s
    rows = json.loads(msgperf("summary", "--json", run).stdout)
    row = rows[0] if isinstance(rows, list) else rows["rows"][0]
    assert row["bandwidth_bytes_per_s"] is None and row["bandwidth_why_not"] == why
    fitted = msgperf("fit", run)
    assert fitted.returncode == 0, fitted.stderr
    assert f"asymptotic bandwidth  cannot tell  {why}" in fitted.stdout
    model = json.loads(msgperf("fit", "--json", run).stdout)
    assert model["asymptotic_bandwidth_bytes_per_s"] is None and model["asymptotic_bandwidth_why_not"] == why
    assert model["terms"]["asymptotic_bandwidth"]["value"] is None
    assert model["peak_bandwidth_bytes_per_s"] is not None
    report = tmp_path / "r.html"
    assert msgperf("report", run, "-o", report).returncode == 0
    assert f"<dt>asymptotic bandwidth</dt><dd>cannot tell ({why})</dd>" in report.read_text()  # headline figures


def test_n_half_and_the_fitted_terms_cannot_be_told_where_their_sizes_were_disturbed(msgperf, tmp_path):
    """Both ranks on one core (taskset) for every launch: the latency and bandwidth say "cannot
    tell", and so must n½ and the summary's columns (a tester saw n½ 34.2 KiB printed as a
    finding, against 10-13 KiB on a quiet machine)."""
    path = _oversubscribed(tmp_path, every=True)
    answer = analyze(read_run(path).run).answer
    assert answer.n_half.value is None and answer.n_half.why_not.startswith("disturbed: ")
    assert "of the" in answer.n_half.why_not and "sizes it is fitted to" in answer.n_half.why_not
    assert answer.disturbed["n_half"] == answer.n_half.why_not
    quiet = analyze(read_run(QUIET).run).answer.n_half
    assert quiet.value is not None  # quiet: told
    summary = msgperf("summary", path)
    assert summary.returncode == 0, summary.stderr
    row = next(line for line in summary.stdout.splitlines() if line.strip().startswith(str(path)))
    assert units.size(quiet.value) not in row and row.count("cannot tell") == 4  # 0 B lat., peak, asym. MB/s, n½
    assert f"n½: cannot tell ({answer.n_half.why_not})" in summary.stdout
    shown = json.loads(msgperf("show", "--json", path).stdout)["answer"]
    assert shown["n_half"]["value"] is None and shown["n_half"]["why_not"] == answer.n_half.why_not
    fitted = msgperf("fit", path).stdout
    assert f"n½ = α/β             cannot tell  {answer.n_half.why_not}" in fitted


def test_the_report_the_plot_and_fit_json_withhold_n_half_as_the_answer_does(msgperf, tmp_path):
    """A reviewer found n½ and the last segment's 1/β still drawn and printed as findings in the
    report, the bandwidth plot and fit --json, where show and fit said "cannot tell"."""
    from msgperf.analysis.answer import disturbed_terms
    from msgperf.present import plots
    from msgperf.present.chart import Rule
    from msgperf.present.report import headline_items

    path = _oversubscribed(tmp_path, every=True)
    result = analyze(read_run(path).run)
    withheld = disturbed_terms(result.answer, result.main.name)
    assert "n_half" in withheld
    items = dict(headline_items(result))
    assert items["n½ = α/β"] == f"cannot tell ({withheld['n_half']})"
    chart = plots.bandwidth_plot(result.main.model, withheld=withheld)
    assert not [layer for layer in chart.layers if isinstance(layer, Rule) and layer.label.startswith("n½")]
    quiet = analyze(read_run(QUIET).run)
    drawn = plots.bandwidth_plot(quiet.main.model, withheld=disturbed_terms(quiet.answer, quiet.main.name))
    assert [layer for layer in drawn.layers if isinstance(layer, Rule) and layer.label.startswith("n½")]
    model = json.loads(msgperf("fit", "--json", path).stdout)
    assert model["n_half_bytes"] is None and model["n_half_why_not"] == withheld["n_half"]
    # the last segment's 1/β withheld (a tester's run beside busy loops): the segment says so too
    from msgperf.analysis.answer import segments_cannot_tell
    from msgperf.present.json_view import sweep_to_dict

    sweep = quiet.main.model.sweep
    said = {"line_bandwidth": "disturbed: launch 0 beside other work (4 of the 4 sizes it is fitted to; 3.98 GB/s)"}
    assert segments_cannot_tell(sweep, said)[-1] == said["line_bandwidth"]
    assert segments_cannot_tell(sweep, {})[:-1] == sweep.piecewise.segments_cannot_tell[:-1]
    last = sweep_to_dict(quiet.main.model.sweep, said)["segments"][-1]
    assert last["cannot_tell"] == said["line_bandwidth"] and last["bandwidth_bytes_per_s"] is None


def test_the_last_segments_slope_agrees_with_the_term_the_model_withholds_by_its_own_rule(msgperf):
    """A reviewer: fit printed "1/β, last segment — the large-message regime holds 2 sizes" and,
    lines below, that segment's "β 220 ps/B ... = 4.54 GB/s"."""
    path = RUNS / "mpich-default-quiet-refined.jsonl"
    sweep = analyze(read_run(path).run).main.model.sweep
    term = sweep.characteristics.line_bandwidth
    assert term.value is None and "holds 2 sizes" in term.note
    fitted = " ".join(msgperf("fit", path).stdout.split())  # the line may wrap
    assert f"β and 1/β: cannot tell ({term.note})" in fitted
    last = json.loads(msgperf("fit", "--json", path).stdout)["segments"][-1]
    assert last["cannot_tell"] == term.note and last["bandwidth_bytes_per_s"] is None


def test_the_per_size_fraction_of_a_withheld_asymptotic_bandwidth_is_cannot_tell(msgperf, tmp_path):
    """fit's "÷ asym." divided by the asymptotic bandwidth the answer withholds (a reviewer saw 1×
    and 2.6× beside "asymptotic bandwidth: cannot tell")."""
    path = _oversubscribed(tmp_path, every=True)
    result = analyze(read_run(path).run)
    assert "asymptotic_bandwidth" in result.answer.disturbed
    model = json.loads(msgperf("fit", "--json", path).stdout)
    assert all(s["fraction_of_asymptotic_bandwidth"] is None for s in model["sizes"])
    quiet = json.loads(msgperf("fit", "--json", QUIET).stdout)
    assert any(s["fraction_of_asymptotic_bandwidth"] is not None for s in quiet["sizes"])
    text = msgperf("fit", path).stdout
    assert "?: cannot tell, " + result.answer.disturbed["asymptotic_bandwidth"] in " ".join(text.split())


def test_a_launch_apart_at_a_size_is_found_against_the_median_of_the_others():
    from msgperf.analysis.answer import _apart

    def size(b, medians):
        return SimpleNamespace(bytes=b, measurements=[SimpleNamespace(launch=l, stats=SimpleNamespace(median=m))
                                                      for l, m in enumerate(medians)])
    model = SimpleNamespace(sizes=[size(1024, [0.31e-6, 0.31e-6, 0.87e-6, 0.35e-6, 0.30e-6]),
                                   size(2048, [0.5e-6, 0.6e-6, 0.55e-6]),  # within 1.5x: none
                                   size(4096, [1e-6, 3e-6])])  # two launches: no "others" to judge by
    (found,) = _apart(model)
    assert (found.kind, found.launch, found.bytes) == ("size_apart", 2, 1024)
    assert "2.8x the median of the other launches" in found.message


def test_a_crossing_whose_gap_was_withheld_as_disturbed_is_not_read_off_the_sizes_beside_it():
    """Review: an exact probe at 8112 B, the model's switch (8000, 8192] with its likely gap at
    (8112, 8113], both sizes measured beside other work: the gap is withheld, and the crossing
    must not be read off 8112 B and 8113 B instead (it was, once the answer read the probe's own
    gap for a switch across a narrow regime)."""
    from msgperf.analysis.answer import _eager_step

    s = _switch(8000, 8192, 8112, 8113)
    rows = {8000: _row(8000, (0,)), 8112: _row(8112, (1,)), 8113: _row(8113, (1,)), 8192: _row(8192, (0,))}
    measured = {b: _fig(b) for b in rows}
    busy = [cv.busy_machine(1, "other work 1.8 of 2 cores")]
    held = _held_likely(s, measured, rows, busy, _probe(8112))
    assert held.step.step.value is None
    step, why = _eager_step(_probe(8112), [held], measured, rows, busy)
    assert step is not None and step.step.value is None and "disturbed" in step.step.why_not
    # without a switch holding the limit, the sizes beside it are read, and held to the same rule
    step, why = _eager_step(_probe(8112), [], measured, rows, busy)
    assert step is None and why == "8112 B was measured while disturbed"
    step, why = _eager_step(_probe(8112), [], measured, rows, [])
    assert step is not None and step.step.value is not None


def test_a_switch_on_the_probe_s_own_gap_holds_its_step_to_the_same_rules():
    """Second review: a switch at (8112, 8113], its gap the whole interval, read its step and the
    crossing off two sizes measured beside other work; and a later launch that did not see it
    left its step standing. Both are "cannot tell" now."""
    from msgperf.analysis.answer import _eager_step

    s = _switch(8112, 8113, 8112, 8113)
    rows = {8112: _row(8112, (1,)), 8113: _row(8113, (1,))}
    measured = {b: _fig(b) for b in rows}
    busy = [cv.busy_machine(1, "other work 1.8 of 2 cores")]
    held = _held_likely(s, measured, rows, busy, _probe(8112))
    assert held.step.step.value is None and held.withheld == "disturbed"
    step, _ = _eager_step(_probe(8112), [held], measured, rows, busy)
    assert step.step.value is None
    unseen = _held_likely(replace(s, not_seen_again=True), measured, rows, [], _probe(8112))
    assert unseen.step.step.value is None and unseen.withheld == "not_seen"
    assert _held_likely(s, measured, rows, [], _probe(8112)) == s  # quiet, seen: as it was
    # a set-aside refinement launch made no likely gap of a whole interval: its sizes still count
    aside = [cv.refinement_disturbed(2, 0.3, 0.6, 5)]
    assert _held_likely(s, measured, rows, aside, _probe(8112)) == s
    both = _held_likely(s, measured, rows, aside + busy, _probe(8112))
    assert both.withheld == "disturbed" and both.step.step.value is None


def test_a_likely_gap_withheld_for_missing_the_limit_leaves_the_crossing_to_the_sizes_beside_it():
    """Second review: a switch (8000, 8192] whose likely gap (8150, 8192] misses the probe's limit
    said the crossing "cannot tell"; the sizes beside the limit, measured quietly, tell it."""
    from msgperf.analysis.answer import _eager_step

    s = _switch(8000, 8192, 8150, 8192)
    rows = {b: _row(b, (0,)) for b in (8000, 8112, 8113, 8150, 8192)}
    measured = {b: _fig(b, 2e-6 if b <= 8112 else 3e-6) for b in rows}
    held = _held_likely(s, measured, rows, [], _probe(8112))
    assert held.withheld == "probe" and held.step.step.value is None
    step, _ = _eager_step(_probe(8112), [held], measured, rows, [])
    assert (step.below.bytes, step.above.bytes) == (8112, 8113) and step.step.value is not None
