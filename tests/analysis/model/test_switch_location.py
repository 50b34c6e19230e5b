"""Locating a switch from one refinement launch's own points (analysis/model/switch_location.py), on
synthetic points and on two real MPICH runs whose switch was set: the shared-memory cell size
at 32 KiB puts the eager -> rendezvous switch in (31744, 32768] (eager-probe: 32688 B)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from msgperf.analysis.model.piecewise import Breakpoint
from msgperf.analysis.model.points import SizePoint
from msgperf.analysis.refinement import TARGET_OCTAVES, sizes_inside
from msgperf.analysis.model.series import analyze_series
from msgperf.analysis.model.switch_location import locate_switch, located
from msgperf.records.runfile_read import read_run
from tests.factories import replace

RUNS = Path(__file__).resolve().parents[2] / "data" / "kernel-runs"
TRUTH = (31744, 32768)  # the switch lies in (low, high]
CONTEXT_BELOW, CONTEXT_ABOVE = (4096, 8192, 16384), (32768, 65536, 131072)


def curve(size: int, step_at: int = 32689, level: float = 1.0) -> float:
    return level * (1e-6 + 1.2e-10 * size + (3e-6 if size >= step_at else 0.0))


def launch_points(sizes, rel_sd=0.004, seed=0, level=1.0, step_at=32689, off=None) -> list[SizePoint]:
    rng = np.random.default_rng(seed)
    out = []
    for s in sorted(sizes):
        t = curve(s, step_at, level) * (1 + rel_sd * rng.standard_normal()) * (off or {}).get(s, 1.0)
        half = 1.96 * rel_sd * t
        out.append(SizePoint(bytes=s, time_s=t, ci_low_s=t - half, ci_high_s=t + half, n=100, launches=1,
                              rel_sd=rel_sd))
    return out


def refinement_sizes(low: int, high: int) -> list[int]:
    return [*CONTEXT_BELOW, *sizes_inside(low, high), *CONTEXT_ABOVE]


@pytest.mark.parametrize("level", [1.0, 0.85, 1.15])
def test_a_step_is_located_to_the_gap_that_holds_it_whatever_the_launchs_level(level):
    b = locate_switch(launch_points(refinement_sizes(16384, 32768), level=level), 16384, 32768)
    assert b is not None and b.low_bytes < 32689 <= b.high_bytes
    assert math.log2(b.high_bytes / b.low_bytes) <= TARGET_OCTAVES + 1e-9


def test_a_straight_line_and_a_lone_spike_are_not_switches():
    sizes = refinement_sizes(16384, 65536)
    assert locate_switch(launch_points(sizes, step_at=1 << 40), 16384, 65536) is None
    spike = launch_points(sizes, step_at=1 << 40, off={32768: 1.3})
    assert locate_switch(spike, 16384, 65536) is None


def test_too_few_points_on_a_side_say_nothing():
    assert locate_switch(launch_points([16384, 20000, 32768]), 16384, 32768) is None


def test_noise_moves_the_location_only_within_its_interval():
    """Over 200 noisy launches (1 % per size) the located interval holds the truth at about its
    99 % level and a 3 µs step is always seen."""
    sizes = refinement_sizes(16384, 32768)
    found = [locate_switch(launch_points(sizes, rel_sd=0.01, seed=seed), 16384, 32768) for seed in range(200)]
    assert all(b is not None for b in found)
    assert sum(b.low_bytes < 32689 <= b.high_bytes for b in found) >= 195


def test_a_launch_narrows_a_switch_only_within_the_window_of_its_neighbours():
    """Two switches: one launch measured inside the first only; the second stays as it was."""
    first = Breakpoint(16384, 32768, 16384, 32768, 0.99)
    second = Breakpoint(262144, 524288, 262144, 524288, 0.99)
    pts = launch_points(refinement_sizes(16384, 32768))
    where = located([first, second], [pts])
    assert where.narrowed == (1, 0) and where.breakpoints[1] == second
    assert where.breakpoints[0].low_bytes < 32689 <= where.breakpoints[0].high_bytes
    assert where.examined == () and where.spikes == ()


def test_a_suspect_with_a_step_becomes_a_switch_and_one_without_is_a_spike():
    pts = launch_points([*CONTEXT_BELOW, *sizes_inside(16384, 65536), 65536, 131072, 262144])
    where = located([], [pts], around=[(16384, 65536)])
    (b,) = where.breakpoints
    assert where.found == (True,) and b.low_bytes < 32689 <= b.high_bytes
    flat = launch_points([*CONTEXT_BELOW, *sizes_inside(16384, 65536), 65536, 131072, 262144], step_at=1 << 40)
    where = located([], [flat], around=[(16384, 65536)])
    assert where.breakpoints == () and where.spikes == ((16384, 65536),)


# ---- real MPICH runs (pip MPICH 5.0.2, 2 ranks on the 2-core VM, load about 5) ---------------


def test_real_run_where_the_sweep_saw_only_a_spike_finds_the_switch_after_one_refinement():
    """The sweep 4K:1M alone gives no breakpoint (32 KiB +37 % off a single line); its one
    refinement launch measured 16-64 KiB and shows the step between 27557 and 32765 B."""
    run = read_run(RUNS / "mpich-cell32k-suspect-refined.jsonl").run
    alone = analyze_series(run, "pingpong", launch=0).sweep
    assert alone.piecewise.breakpoints == () and alone.suspects
    (b,) = analyze_series(run, "pingpong").sweep.piecewise.breakpoints
    assert (b.low_bytes, b.high_bytes) == (27557, 32765)
    assert b.low_bytes < TRUTH[1] and b.high_bytes > TRUTH[0]


def test_real_run_with_two_refinement_launches_locates_the_switch_to_an_eighth_of_an_octave():
    """The sweep put the switch between 16 and 64 KiB; its refinement launches (level x0.98 and
    x1.05 of the sweep) narrowed it to (32067, 32765], around the eager-probe's 32688 B. The
    second launch also looked around 128 KiB-1 MiB, where the sweep saw sizes off the model, and
    found the bandwidth knee there (between 256 and 609 KiB): a knee, far from the switch."""
    run = read_run(RUNS / "mpich-cell32k-switch-refined.jsonl").run
    (alone,) = analyze_series(run, "pingpong", launch=0).sweep.piecewise.breakpoints
    assert (alone.low_bytes, alone.high_bytes) == (16384, 65536)
    sweep = analyze_series(run, "pingpong").sweep
    b, knee = sweep.piecewise.breakpoints
    assert (b.low_bytes, b.high_bytes) == (32067, 32765)
    assert math.log2(b.high_bytes / b.low_bytes) <= TARGET_OCTAVES + 1e-9
    assert b.low_bytes < 32688 < b.high_bytes
    assert sweep.provenance[0].launches == 2 and sweep.provenance[1].found
    assert knee.low_bytes >= 262144 and knee.high_bytes <= 1 << 20


def test_a_sweep_size_inside_the_located_gap_is_put_on_its_side_by_the_sweeps_own_lines():
    """The refinement launch located the switch between 31000 and 34000 B without measuring
    32 KiB; the sweep measured 32 KiB already past the switch. The sweep's own lines either side
    put it on the right: the gap ends at 32 KiB and the right segment starts there."""
    from msgperf.analysis.model.sweep import analyze_sweep
    sweep = launch_points([4096 * 2 ** k for k in range(9)], seed=3)
    refinement = launch_points([4096, 8192, 16384, 20000, 24000, 28000, 31000, 34000, 40000, 48000, 65536], seed=4)
    planned = frozenset(p.bytes for p in sweep)
    result = analyze_sweep(sweep + [p for p in refinement if p.bytes not in planned], model_sizes=planned,
                           refinements=[refinement])
    (b,) = result.piecewise.breakpoints
    assert (b.best_low_bytes, b.best_high_bytes) == (31000, 32768) and b.low_bytes < 32689 <= b.high_bytes <= 32768
    assert result.piecewise.segments[1].from_bytes == 32768
    assert result.provenance[0].launches == 1


def test_a_later_launch_narrows_within_what_the_earlier_said_and_never_widens():
    first = launch_points(refinement_sizes(16384, 32768))
    b = located([Breakpoint(16384, 32768, 16384, 32768, 0.99)], [first]).breakpoints[0]
    # the second launch measured around (30045, 32768) but not 32768 itself: its gap reaches past
    later = launch_points([4096, 8192, 16384, *sizes_inside(b.low_bytes, b.high_bytes), 33000, 40000, 65536], seed=9)
    (c,) = located([Breakpoint(16384, 32768, 16384, 32768, 0.99)], [first, later]).breakpoints
    assert b.low_bytes <= c.low_bytes < 32689 <= c.high_bytes <= b.high_bytes
    assert c.low_bytes <= c.best_low_bytes < c.best_high_bytes <= c.high_bytes


def test_two_sizes_inside_one_located_gap_are_put_on_their_sides_in_order():
    """A gap (31000, 34000] holds two sizes another launch measured, 32000 (eager) and 33000
    (rendezvous): the gap ends between them and never inverts."""
    from msgperf.analysis.model.sweep import analyze_sweep
    sweep = launch_points([4096 * 2 ** k for k in range(9)], seed=3, step_at=32500)
    others = launch_points([32000, 33000], seed=5, step_at=32500)
    refinement = launch_points([4096, 8192, 16384, 20000, 24000, 28000, 31000, 34000, 40000, 48000, 65536],
                               seed=4, step_at=32500)
    planned = frozenset(p.bytes for p in sweep)
    result = analyze_sweep(sweep + others + [p for p in refinement if p.bytes not in planned],
                           model_sizes=planned, refinements=[refinement])
    (b,) = result.piecewise.breakpoints
    assert (b.best_low_bytes, b.best_high_bytes) == (32000, 32768)
    assert b.low_bytes <= b.best_low_bytes < b.best_high_bytes <= b.high_bytes


# ---- the eager-probe's limit ----------------------------------------------------------------------

E = 32688  # the largest size sent eagerly (MPICH, 32 KiB cell): the step lies in (E, E + 1]
AROUND_E = (31256, 31972, E, E + 1, 33405, 34121)  # refinement.anchored_sizes(E, ...)


def test_anchored_sizes_straddle_the_limit_within_a_sixteenth_of_an_octave():
    from msgperf.analysis.refinement import anchored_sizes
    sizes = anchored_sizes(E, 16384, 65536)
    assert E in sizes and E + 1 in sizes and len(sizes) == 6
    assert max(sizes) / min(sizes) < 2 ** (1 / 8) * 1.01  # about a sixteenth of an octave each side
    assert anchored_sizes(E, E, 65536) == [s for s in sizes if s > E]  # only inside (low, high)


def test_a_step_at_the_limit_is_located_there_even_beside_a_bending_regime():
    from msgperf.analysis.model.switch_location import probe_step
    bend = {s: 1 + 0.5 * ((s - 65536) / 65536) ** 2 for s in (65536, 131072, 262144)}  # far sizes bend upwards
    pts = launch_points((16384, 24000, *AROUND_E, 65536, 131072, 262144), step_at=E + 1, off=bend)
    seen = probe_step(pts, E)
    assert seen.breakpoint is not None
    assert (seen.breakpoint.low_bytes, seen.breakpoint.high_bytes) == (E, E + 1)
    assert (seen.below_bytes, seen.above_bytes) == (E, E + 1) and seen.above_s > seen.below_s


def test_no_step_at_the_limit_a_spike_there_or_too_few_sizes_say_so():
    from msgperf.analysis.model.switch_location import probe_step
    flat = launch_points(AROUND_E, step_at=10 ** 9)  # the switch changes the protocol, not the time
    seen = probe_step(flat, E)
    assert seen is not None and seen.breakpoint is None
    spike = launch_points(AROUND_E, step_at=10 ** 9, off={E + 1: 1.3})  # one slow size is not a step
    assert probe_step(spike, E).breakpoint is None
    assert probe_step(launch_points((31972, E, E + 1, 33405)), E) is None  # fewer than 3 a side


def test_a_switch_the_sweep_merged_with_another_is_found_at_the_probes_limit():
    """The sweep saw one breakpoint over 16 KiB-256 KiB holding two switches (the 32 KiB cell and
    a 256 KiB single-copy threshold, as bench/RESULTS.md §14); two lines over the window cannot
    fit two steps, the step at the probe's limit locates one, and the rest of the interval above
    it, judged alone, holds the other."""
    def two(size):  # both switches: +3 µs above E, +30 µs from 256 KiB
        return curve(size, E + 1) + (30e-6 if size >= 262144 else 0.0)
    sizes = (4096, 8192, 16384, *AROUND_E, 65536, 131072, 200000, 240000, 255000, 262144, 524288, 1048576)
    pts = [dataclasses_replace_time(p, two(p.bytes)) for p in launch_points(sizes)]
    sweep_bp = Breakpoint(16384, 262144, 131072, 262144, 0.99)
    where = located([sweep_bp], [pts], anchor=E)
    assert [(b.low_bytes, b.high_bytes) for b in where.breakpoints][0] == (E, E + 1)
    assert where.at_probe == (True, False) and where.found == (False, True)
    assert where.breakpoints[1].high_bytes == 262144 and where.breakpoints[1].low_bytes >= 240000
    # without the probe, one switch
    assert len(located([sweep_bp], [pts]).breakpoints) == 1


def dataclasses_replace_time(p: SizePoint, t: float) -> SizePoint:
    half = 1.96 * p.rel_sd * t
    return replace(p, time_s=t, ci_low_s=t - half, ci_high_s=t + half)


def test_real_runs_the_probes_limit_found_beside_a_single_copy_switch_and_said_flat_where_it_is():
    """Two default `msgperf run`s of bench/curve_zoo.py (pip MPICH 5.0.2): the 32 KiB cell beside a
    256 KiB single-copy threshold, which the sweep saw as one breakpoint; and the 64 KiB cell, whose
    ping-pong times at 65456 B (eager) and 65457 B (rendezvous) are the same."""
    from msgperf.analysis.result import analyze

    both = analyze(read_run(RUNS / "mpich-cell32k-cma256k-refined.jsonl").run).main.model.sweep
    spans = [(b.low_bytes, b.high_bytes) for b in both.piecewise.breakpoints]
    assert (32688, 32689) in spans
    assert any(low < 262144 <= high for low, high in spans)
    at = spans.index((32688, 32689))  # the anchored sizes put E and E + 1 side by side in one launch
    assert both.provenance[at].launches >= 1
    flat = analyze(read_run(RUNS / "mpich-cell64k-no-step-at-probe.jsonl").run).main.model.sweep
    (said,) = [c for c in flat.caveats if c.kind == "no_step_at_eager_limit"]
    assert "65456 B" in said.message and "65457 B" in said.message
    assert not any(b.low_bytes <= 65456 < b.high_bytes for b in flat.piecewise.breakpoints)


def test_sizes_put_on_the_sweeps_level_are_named_so_that_show_and_fit_can_differ_honestly():
    """A refinement's sizes enter the model on the sweep's level; show lists them as measured.
    The series names them (fit's legend and JSON say so)."""
    from msgperf.analysis.result import analyze
    from msgperf.analysis.tables.size_rows import size_rows

    run = read_run(RUNS / "mpich-cell32k-cma256k-refined.jsonl").run
    model = analyze(run).main.model
    assert model.aligned_bytes and 32689 in model.aligned_bytes
    shown = {r.bytes: r.time_s for r in size_rows(run) if r.pattern == "pingpong" and not r.variant}
    fitted = {s.bytes: s.point.time_s for s in model.sizes}
    differ = [b for b in fitted if b in shown and abs(fitted[b] / shown[b] - 1) > 1e-9]
    assert differ and set(differ) <= set(model.aligned_bytes)


def test_the_step_at_the_limit_narrows_a_wider_interval_that_holds_it():
    """Review: two lines over the window may locate the switch to an interval holding E but wider
    than (E, E + 1]; the probe's step says where in it. And a suspect whose step is the probe's is
    reported as absorbed, so that no later round looks at it again."""
    sizes = (4096, 8192, 16384, *sizes_inside(16384, 65536), *AROUND_E, 65536, 131072, 262144)
    narrowed = 0
    for seed in range(40):
        pts = launch_points(sizes, rel_sd=0.1 * 0.04, seed=seed, step_at=E + 1)
        where = located([Breakpoint(16384, 65536, 32768, 65536, 0.99)], [pts], anchor=E)
        if where.probe is not None and where.probe.breakpoint is not None:
            holding = [b for b in where.breakpoints if b.low_bytes <= E < b.high_bytes]
            assert [(b.low_bytes, b.high_bytes) for b in holding] == [(E, E + 1)], seed
            narrowed += 1
        suspect = located([], [pts], around=[(32768, 65536)], anchor=E)
        if suspect.absorbed:
            assert suspect.absorbed == ((32768, 65536),) and (32768, 65536) not in suspect.spikes
    assert narrowed >= 30


T = 131071  # a single-copy threshold set to 131072 B: the switch lies in (T, T + 1]
AROUND_T = (125331, 128201, T, T + 1, 133942, 136812)  # refinement.anchored_sizes(T, ...)


def test_anchored_sizes_at_a_threshold_are_those_the_probes_limit_gets():
    from msgperf.analysis.refinement import anchored_sizes
    assert tuple(anchored_sizes(T, 0, 2 * T + 2)) == AROUND_T


def test_a_step_at_a_recorded_threshold_is_a_switch_and_a_flat_curve_there_is_none():
    """The sweep saw nothing at the threshold (no breakpoint, no suspect): a launch that measured
    both sides of it and shows a step makes it a switch at (T, T + 1], said to be the threshold's;
    the same sizes on one line make none, and nothing is called a spike."""
    sizes = (32768, 65536, *AROUND_T, 262144, 524288)
    stepped = launch_points(sizes, step_at=T + 1)
    where = located([], [stepped], thresholds=[T])
    assert [(b.low_bytes, b.high_bytes) for b in where.breakpoints] == [(T, T + 1)]
    assert where.at_threshold == (True,) and where.found == (True,) and where.narrowed == (1,)
    flat = located([], [launch_points(sizes, step_at=1 << 40)], thresholds=[T])
    assert flat.breakpoints == () and flat.spikes == ()


def test_a_step_at_a_threshold_narrows_the_sweep_interval_that_holds_it():
    sizes = (16384, 32768, 65536, *sizes_inside(65536, 131072), *AROUND_T, 262144, 524288)
    narrowed = 0
    for seed in range(20):
        pts = launch_points(sizes, rel_sd=0.004, seed=seed, step_at=T + 1)
        where = located([Breakpoint(65536, 262144, 131072, 262144, 0.99)], [pts], thresholds=[T])
        (b,) = where.breakpoints
        assert b.low_bytes <= T < b.high_bytes, seed  # never moved off the switch
        if (b.low_bytes, b.high_bytes) == (T, T + 1):
            assert where.found == (False,)  # the sweep's switch, located (by the step, or already by two lines)
            narrowed += 1
    assert narrowed >= 18


def test_the_thresholds_a_launch_environment_sets_to_the_byte():
    from msgperf.analysis.result import threshold_anchors
    from tests.factories import make_run, measurement

    def run_with(env):
        run = make_run([measurement("pingpong", s, np.full(5, 1e-6)) for s in (1024, 2048)])
        launches = tuple(dataclass_replace(l, environment=env) for l in run.launches)
        return dataclass_replace(run, launches=launches)

    from tests.factories import replace as dataclass_replace
    assert threshold_anchors(run_with({"MPIR_CVAR_CH4_IPC_CMA_P2P_THRESHOLD": "128k"})) == (131071,)
    assert threshold_anchors(run_with({"MPIR_CVAR_CH4_OFI_EAGER_THRESHOLD": "16384"})) == (16384,)
    # a cell size's eager payload is the cell less a header: not exact, the probe measures it
    assert threshold_anchors(run_with({"MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE": "32768"})) == ()
    assert threshold_anchors(run_with({"MPIR_CVAR_CH4_IPC_CMA_P2P_THRESHOLD": "65536",
                                       "MPIR_CVAR_CH4_CMA_ENABLE": "0"})) == ()
    assert threshold_anchors(run_with({})) == ()


def test_a_step_at_a_threshold_leaves_the_rest_of_its_interval_to_be_judged_alone():
    """Review: a sweep interval over 32-256 KiB holding two switches, +3 µs at 90000 B and the
    threshold's -2.5 µs at 131072 B; the step at the threshold narrows the interval to (T, T + 1]
    and the rest of it, judged alone, still holds the other (as beside the probe's limit)."""
    from msgperf.analysis.refinement import anchored_sizes

    def two(size):
        return 1e-6 + 1e-10 * size + (3e-6 if size >= 90000 else 0.0) - (2.5e-6 if size > T else 0.0)
    sizes = (8192, 16384, 32768, *sizes_inside(32768, 262144), *anchored_sizes(T, 0, 2 * T + 2), 262144, 524288)
    pts = [dataclasses_replace_time(p, two(p.bytes)) for p in launch_points(sorted(set(sizes)))]
    where = located([Breakpoint(32768, 262144, 65536, 262144, 0.99)], [pts], thresholds=[T])
    spans = [(b.low_bytes, b.high_bytes) for b in where.breakpoints]
    assert (T, T + 1) in spans and any(low < 90000 <= high for low, high in spans), spans
    assert where.at_threshold[spans.index((T, T + 1))]


def test_a_sweep_step_a_launch_measured_only_at_its_ends_and_did_not_show_again_is_examined():
    """A tester's quiet run: the sweep saw 16 B at 1.00 µs and 32 B at 1.34 µs (a switch at
    (16, 32]); its refinement launch measured both again (context of another interval), at 1.14
    and 1.17 µs: less than half the step, so the switch is "examined, not narrowed" (the answer
    says a refinement launch saw no step there). A launch that shows the step again, at its own
    level, leaves it as it was."""
    def point(size, t):
        return SizePoint(bytes=size, time_s=t, ci_low_s=t * 0.99, ci_high_s=t * 1.01, n=100, launches=1, rel_sd=0.005)

    bp = Breakpoint(16, 32, 16, 32, 0.99)
    sweep = [point(8, 1.0e-6), point(16, 1.0e-6), point(32, 1.34e-6), point(64, 1.35e-6)]
    flat = [point(10, 1.15e-6), point(13, 1.14e-6), point(16, 1.14e-6), point(32, 1.17e-6), point(64, 1.17e-6)]
    where = located([bp], [flat], sweep=sweep)
    assert where.breakpoints == (bp,) and where.examined == (bp,) and where.narrowed == (0,)
    assert where.repeated_ends == (bp,)
    stepped = [point(16, 1.14e-6), point(32, 1.53e-6), point(64, 1.54e-6)]
    assert located([bp], [stepped], sweep=sweep).examined == ()
    assert located([bp], [flat]).examined == ()  # without the sweep's points nothing is judged


def test_a_located_switch_a_later_launch_measured_flat_is_contested():
    """A tester's run (MPICH, CMA at 128 KiB): one refinement launch showed a step at 7515 -> 7756 B
    (4.87 -> 6.30 µs), a later one, at a third of its level, measured 6992-7756 B flat (1.63-1.69 µs).
    The switch keeps the first launch's location, and says the later launch did not see it."""
    sweep_bp = Breakpoint(16384, 65536, 16384, 65536, 0.99)
    sizes = refinement_sizes(16384, 65536)
    first = launch_points(sizes)
    later = launch_points(sizes, seed=1, level=0.35, step_at=1 << 40)  # no step at all
    where = located([sweep_bp], [first, later])
    (b,) = where.breakpoints
    assert b.low_bytes < 32689 <= b.high_bytes and where.narrowed == (1,)
    assert where.contested == (b.best_high_bytes,)
    again = launch_points(sizes, seed=2, level=0.35)  # the same step at its own level: not contested
    assert located([sweep_bp], [first, again]).contested == (0,)


def test_a_later_launch_far_from_the_gap_does_not_contest_it():
    """Review: a later launch that measured only 4 KiB and 1 MiB (the curve's slope between them)
    contested a located downward step (a single-copy threshold: faster above it); only its sizes at
    the gap's ends or inside it count."""
    def down(size):  # 1 µs + 0.12 ns/B, 30 % faster from 32689 B
        return (1e-6 + 1.2e-10 * size) * (0.7 if size >= 32689 else 1.0)

    def points(sizes, seed):
        rng = np.random.default_rng(seed)
        out = []
        for s in sorted(sizes):
            t = down(s) * (1 + 0.004 * rng.standard_normal())
            out.append(SizePoint(bytes=s, time_s=t, ci_low_s=t * 0.992, ci_high_s=t * 1.008, n=100, launches=1,
                                 rel_sd=0.004))
        return out
    sweep_bp = Breakpoint(16384, 65536, 16384, 65536, 0.99)
    first = points(refinement_sizes(16384, 65536), 0)
    where = located([sweep_bp], [first])
    assert where.narrowed == (1,) and where.contested == (0,)
    far = points([4096, 1 << 20], 3)
    assert located([sweep_bp], [first, far]).contested == (0,)
    flat = [SizePoint(bytes=b, time_s=2e-6, ci_low_s=1.99e-6, ci_high_s=2.01e-6, n=100, launches=1, rel_sd=0.004)
            for b in refinement_sizes(16384, 65536)]
    assert located([sweep_bp], [first, flat]).contested != (0,)  # at the gap and flat: contested
