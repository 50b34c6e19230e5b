"""The one analysis result of a run (analysis/result.py): which series it models and how it
chooses the main one, per-placement models, advice from what the run measured."""

from __future__ import annotations

import numpy as np
import pytest

from msgperf import units
from msgperf.analysis import AnalysisError
from msgperf.analysis.model.breakpoint_labels import CAPACITY
from msgperf.analysis.result import analyze
from tests.factories import CURVE, EVERY_SIZES, every_family_run, factors, make_run, measurement
from tests.factories import replace


def _placed(seed: int = 0):
    """A --placement both run: every size on an intra-node pair and an inter-node pair that is
    three times slower to start and half as fast."""
    rng = np.random.default_rng(seed)
    ms = []
    for s in EVERY_SIZES:
        ms.append(replace(measurement("pingpong", s, 2 * CURVE(s) * factors(60, 0.02, rng)),
                                      placement="intra", extra={"placement": "intra"}))
        ms.append(replace(measurement("pingpong", s, 2 * (3e-6 + s * 2e-10) * factors(60, 0.02, rng)),
                                      ranks=(0, 2), placement="inter", extra={"placement": "inter"}))
    return make_run(ms)


def test_placement_both_gives_one_model_per_placement_side_by_side():
    result = analyze(_placed())
    names = [s.name for s in result.series]
    assert names == ["pingpong (intra-node)", "pingpong (inter-node)"]
    assert result.main.name == "pingpong (intra-node)"
    (m,) = result.placement_models
    inter = m.inter.sweep.hockney.line
    assert inter.alpha_s == pytest.approx(3e-6, rel=0.05) and inter.beta_s_per_byte == pytest.approx(2e-10, rel=0.05)
    assert m.bandwidth_ratio == pytest.approx(
        inter.bandwidth_bytes_per_s / m.intra.sweep.hockney.line.bandwidth_bytes_per_s)
    assert not m.inter.sweep.piecewise.breakpoints and m.intra.sweep.piecewise.breakpoints  # CURVE switches
    assert [r.placement for r in result.saphir] == ["intra", "inter"]
    assert result.saphir[1].zero_byte_latency_s == m.inter.sweep.characteristics.zero_byte_latency_s
    assert result.find("pingpong", placement="inter").model is m.inter


def test_the_main_series_is_the_ping_pong_even_when_a_probe_comes_first():
    run = every_family_run()
    probe_first = replace(run, measurements=tuple(
        sorted(run.measurements, key=lambda m: m.pattern != "eager-probe")))
    result = analyze(probe_first)
    assert result.series[0].key.pattern == "eager-probe" and result.series[0].model is None
    assert result.main.key.pattern == "pingpong"


def test_find_names_what_the_run_has():
    result = analyze(every_family_run())
    with pytest.raises(AnalysisError, match="no measurements of ring; the run has pingpong, pingpong-nb"):
        result.find("ring")


def test_advice_uses_the_combine_pattern_the_gap_and_the_eager_limit():
    result = analyze(every_family_run())
    measured = result.advise(8, 1024)
    assert measured.measured_by_combine and measured.pipelined and measured.eager_limit_bytes == 16000
    row = next(c for c in result.combine if (c.messages, c.bytes) == (8, 1024))
    assert (measured.measured_apart_s, measured.measured_combined_s) == (row.separate_s, row.combined_s)
    assert measured.answer_speedup == pytest.approx(row.gain)
    # a case the combine pattern did not measure: the prediction, and the combined message
    # crossing the measured eager limit is said
    crossing = result.advise(8, 4096)
    assert [c.kind for c in crossing.caveats] == ["crosses_eager_limit"]
    predicted = result.advise(4, 64)
    assert not predicted.measured_by_combine and predicted.answer_speedup == predicted.speedup
    # pipelined separate messages: T(s) + (k - 1)·gap(s), below k·T(s)
    gap = result.gap.at(64)
    t64 = result.main.model.sweep.piecewise.predict(64)
    assert predicted.apart_s == pytest.approx(t64 + 3 * gap) and predicted.apart_s < 4 * t64


def test_the_placement_table_shows_each_placements_model_and_labelled_switches():
    """Audit of issue 14: the side-by-side table of --placement both was never rendered in a test."""
    from rich.console import Console

    from msgperf.present.pattern_tables import placement_models, render

    result = analyze(_placed())
    (m,) = result.placement_models
    console = Console(record=True, width=200)
    (table,) = placement_models(result)
    render(console, table)
    text = console.export_text()
    intra, inter = m.intra.sweep.hockney.line, m.inter.sweep.hockney.line
    assert "pingpong: the model within a node and across nodes" in text
    alpha_row = next(l for l in text.splitlines() if "α latency" in l)
    assert units.seconds(intra.alpha_s) in alpha_row and units.seconds(inter.alpha_s) in alpha_row
    switch_row = next(l for l in text.splitlines() if "switches" in l and "│" in l)
    (label,) = result.find("pingpong", placement="intra").labels
    assert label.text in switch_row and "none" in switch_row  # the inter-node pair has no switch


def test_memcpys_own_knee_is_not_evidence_of_itself():
    """Audit of issue 14: memcpy's model labelled its own knee "memcpy shows the same knee"."""
    from tests.factories import broken

    knee = broken(2e-7, 1e-11, 2e-7, 1e-10, 262144)  # a copy that leaves the cache at 256 KiB
    ms = [measurement("memcpy", s, knee(s) * factors(60, 0.01, np.random.default_rng(s)), divisor=1)
          for s in EVERY_SIZES if s > 0]
    ms += [measurement("pingpong", s, 2 * CURVE(s) * factors(60, 0.01, np.random.default_rng(s + 1)))
           for s in EVERY_SIZES]
    result = analyze(make_run(ms))
    memcpy = result.find("memcpy")
    assert memcpy.model is not None and memcpy.model.sweep.piecewise.breakpoints
    assert all("memcpy shows the same knee" not in label.text for label in memcpy.labels)
    assert all(label.kinds == (CAPACITY,) and not label.is_protocol_switch for label in memcpy.labels)


def test_a_copy_has_no_protocol_switch_whatever_the_run_recorded():
    """Review: memcpy's knee in a run whose probe measured the eager limit, with the cell size set,
    was labelled 'eager -> rendezvous' twice; a copy calls no MPI."""
    from pathlib import Path

    from msgperf.records.runfile_read import read_run

    run = read_run(Path(__file__).resolve().parents[1] / "data" / "kernel-runs" / "mpich-cell32k-cma256k-refined.jsonl").run
    memcpy = analyze(run).find("memcpy")
    assert memcpy.labels and all(not label.is_protocol_switch and "eager" not in label.text for label in memcpy.labels)


def test_every_measured_ratio_of_the_side_by_side_tables_has_its_interval():
    """A variant pair's ratio (late / preposted, packed / direct), the combine pattern's gain
    (separate / combined) and MPI / floor carry the interval of the two medians' intervals (low over
    high, high over low), and the ratio lies inside it."""
    from msgperf.analysis.tables import index, size_rows

    run = every_family_run()
    result = analyze(run)
    rows = index(size_rows(run))

    def ci_of(num, den):
        a, b = num.interval, den.interval
        return a.low / b.high, a.high / b.low

    pairs = [p for p in result.variant_pairs if p.rows]
    assert {p.pattern for p in pairs} >= {"unexpected", "pack"}
    for pair in pairs:
        for r in pair.rows:
            a, b = rows[(pair.pattern, pair.a, r.bytes)], rows[(pair.pattern, pair.b, r.bytes)]
            assert r.ratio_ci == pytest.approx(ci_of(b, a))
            assert r.ratio_ci[0] <= r.ratio <= r.ratio_ci[1]
    assert result.combine
    for c in result.combine:
        sep, com = (rows[("combine", f"k{c.messages}-{v}", c.bytes)] for v in ("separate", "combined"))
        assert c.gain_ci == pytest.approx(ci_of(sep, com)) and c.gain_ci[0] <= c.gain <= c.gain_ci[1]
    assert any(f.ratio is not None for f in result.floor)
    for f in result.floor:
        if f.ratio is not None:
            assert f.ratio_ci == pytest.approx(ci_of(rows[("pingpong", "", f.bytes)], rows[("floor", "", f.bytes)]))
            assert f.ratio_ci[0] <= f.ratio <= f.ratio_ci[1]


def _kernel_run(name: str):
    from pathlib import Path

    from msgperf.records.runfile_read import read_run

    return read_run(Path(__file__).resolve().parents[1] / "data" / "kernel-runs" / name).run


def test_the_default_mpich_narrow_regime_is_one_switch_across_it_not_spikes():
    """A quiet default MPICH run: eager limit 8112 B (eager-probe), single copy (CMA) from 8192 B
    (MPI_T); its refinement launch measured 8113 B (2.94 µs) and 8189 B (4.06 µs) between them, on
    either side of a step it located at (8113, 8189], which was labelled eager -> rendezvous
    although it leaves out the probe's limit, with 8113 B a "spike" and 8189 B a "dip". Now one
    switch spans the regime, holding both thresholds, and its two sizes are that regime."""
    from msgperf.analysis.model.breakpoint_labels import EAGER, SINGLE_COPY

    result = analyze(_kernel_run("mpich-default-narrow-regime.jsonl"))
    ping = result.find("pingpong")
    sweep = ping.model.sweep
    near = [l for l in ping.labels if l.breakpoint.low_bytes < 8300 and l.breakpoint.high_bytes > 8000]
    assert [(l.breakpoint.low_bytes, l.breakpoint.high_bytes) for l in near] == [(8112, 8192)]
    assert {EAGER, SINGLE_COPY} <= set(near[0].kinds)
    assert [(n.lower, n.upper, n.sizes) for n in sweep.narrow] == [(8112, 8191, (8113, 8189))]
    assert not {8113, 8189} & {a.bytes for a in sweep.anomalies}
    assert any(c.kind == "narrow_regime" for c in sweep.caveats)
    # the answer's crossing is still the probe's own gap, measured within one launch
    step = result.answer.eager_step
    assert (step.below.bytes, step.above.bytes) == (8112, 8113) and step.step.value > 0


def test_a_step_located_past_an_exact_eager_limit_is_not_called_eager_to_rendezvous():
    """MPICH, cell size 32768 B (eager limit 32688 B, to the byte): within one refinement launch
    32688 B took 10.1 µs, 32689 B 10.9, 33405 B 13.3 and 34121 B 18.7; the model located its step at
    (32689, 34121], which leaves out the limit, and the answer called it eager -> rendezvous beside
    a crossing measured at 32688 -> 32689 B. The cell size names it, as a step past the limit."""
    result = analyze(_kernel_run("mpich-cell32k-step-past-limit.jsonl"))
    (past,) = [s for s in result.answer.switches if s.low_bytes == 32689]
    assert past.cause == "a step just past the eager limit (32688 B)"
    assert all(s.low_bytes <= 32688 < s.high_bytes for s in result.answer.switches if s.cause == "eager → rendezvous")
    (label,) = [l for l in result.find("pingpong").labels if l.breakpoint.low_bytes == 32689]
    assert label.text.startswith("a step just past the eager limit (32688 B; ")  # fit says what the answer says


def test_an_unexplained_switch_a_refinement_launch_did_not_see_again_says_so():
    """A quiet default MPICH run: the sweep saw 16 B at 1.00 µs and 32 B at 1.34 µs, its refinement
    launch 1.14 and 1.17 µs. The answer keeps the sweep's switch, marked; the eager switch, named
    by the probe, is not marked."""
    result = analyze(_kernel_run("mpich-default-step-not-seen-again.jsonl"))
    marks = {(s.low_bytes, s.high_bytes): s.not_seen_again for s in result.answer.switches}
    assert marks[(16, 32)] is True and marks[(8112, 8113)] is False
    said = [c for c in result.find("pingpong").model.caveats if c.kind == "step_not_repeated"]
    assert [c.bytes for c in said] == [32] and said[0].message.startswith("a refinement launch measured 16 B and 32 B")


def test_a_contested_switch_s_caveat_names_the_interval_the_answer_shows():
    """A tester's MPICH run with the CMA threshold at 128 KiB: refinement launch 5 located a switch
    between 6886 B and 7756 B, launch 6 measured flat inside it. The answer shows the model's
    interval, 7421 B – 7756 B; the caveat said only 6886 B – 7756 B, two intervals for one switch."""
    result = analyze(_kernel_run("mpich-cma128k-switch-contested.jsonl"))
    (switch,) = [s for s in result.answer.switches if s.not_seen_again and s.low_bytes < 7756 <= s.high_bytes]
    (said,) = [c for c in result.find("pingpong").model.caveats if c.kind == "not_seen_again"]
    shown = f"{units.size(switch.low_bytes)} – {units.size(switch.high_bytes)}"
    assert f"(the model places it at {shown})" in said.message
    assert said.message.startswith("a refinement launch located a switch between 6886 B and 7756 B")


def test_sizes_only_a_set_aside_refinement_launch_measured_are_said_to_be_left_out():
    """A tester's quiet default run: refinement launch 6 measured 17 sizes again at 1.10x-3.70x and
    was set aside; 21 sizes it alone measured had no row in show --all, --json or the report, and
    nothing said so."""
    run = _kernel_run("mpich-default-refinement-set-aside.jsonl")
    result = analyze(run)
    (aside,) = [c for c in result.find("pingpong").model.caveats if c.kind == "refinement_disturbed"]
    alone = sorted({m.bytes for m in run.measurements if m.pattern == "pingpong" and m.launch == aside.launch}
                   - {m.bytes for m in run.measurements if m.pattern == "pingpong" and m.launch != aside.launch})
    assert len(alone) == 21
    assert f"the 21 sizes only it measured ({units.size(alone[0])} – {units.size(alone[-1])}) are left out" \
        in aside.message
    assert not {r.bytes for r in result.rows if r.pattern == "pingpong"} & set(alone)


def test_a_probe_that_saw_no_size_wait_names_no_switch_above_its_largest_size():
    """The whole run: the eager-probe bisected up to 64 KiB and saw no size wait, and the ping-pong
    steps between 64 and 128 KiB. Passed to the labels as an exact limit (64 KiB, 64 KiB + 1), the
    probe named that step "eager → rendezvous (eager-probe: 65536 B)"; the limit lies somewhere
    above 64 KiB, and nothing names the step."""
    from tests.factories import broken, measurement, sweep_run

    run = sweep_run([broken(1e-6, 1e-10, 8e-6, 1e-10, 100_000)], n=200, noise=0.01, seed=3)
    probe = measurement("eager-probe", 65536, np.full(20, 2e-5), divisor=1)
    probe = replace(probe, extra={"eager": True, "eager_limit_low_bytes": 65536, "probe_max_bytes": 65536})
    result = analyze(replace(run, measurements=(*run.measurements, probe)))
    assert result.eager is not None and result.eager.high_bytes is None
    step = [s for s in result.answer.switches if s.low_bytes < 100_000 <= s.high_bytes]
    assert step and all("eager" not in s.cause for s in step), [s.cause for s in step]
    assert result.answer.eager_step is None and "no size up to the probe's 64 KiB waited" in result.answer.eager_step_why


@pytest.mark.parametrize("after, words", [
    (None, "not measured (msgperf run measures it unless given --no-probe)"),
    (("refine",), "not measured (the run was made with --no-probe)"),
    (("probe", "refine"), "not measured: the run stopped before its eager-probe launch (msgperf run --resume does "
                          "not probe)"),
])
def test_a_run_without_a_probe_says_why_by_its_plan(after, words):
    """A tester's run cut off, or interrupted and resumed, before its probe read "not measured (run
    without --no-probe)", as if the user had passed --no-probe."""
    run = make_run([measurement("pingpong", s, 2 * CURVE(s) * np.ones(20)) for s in (0, 1024, 65536)])
    run = replace(run, info=replace(run.info, plan=replace(run.info.plan, after=after)))
    assert analyze(run).answer.eager_limit.why_not == words
