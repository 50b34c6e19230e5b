"""Which launches are put on the sweep's level (analysis/launches/launch_alignment.py): only those that
add sizes and share at least three with the plan's launches; repeats keep their own level."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from msgperf.analysis.launches import quiet_launches
from msgperf.analysis.result import analyze
from msgperf.analysis.samples.inputs import SampleSet
from msgperf.analysis.launches.launch_alignment import align, supplements
from msgperf.records.runfile_read import read_run


def layout(levels: dict[int, tuple[float, list[int]]]):
    """{launch: (level, sizes)} -> sets per size, then per launch; time = level * (1 us + size ns)."""
    out: dict[int, dict[int, SampleSet]] = {}
    for launch, (level, sizes) in levels.items():
        for s in sizes:
            t = level * (1e-6 + s * 1e-9) * np.ones(20)
            out.setdefault(s, {})[launch] = SampleSet(bytes=s, per_message_s=t, launch=launch)
    return out


SWEEP = [1024 * 2 ** k for k in range(8)]


def test_a_refinement_launch_is_scaled_to_the_sweep_on_the_sizes_both_measured():
    by_size = layout({0: (1.0, SWEEP), 1: (0.8, [8192, 16384, 32768, 10000, 12000, 14000])})
    aligned, done, extra = align(by_size, frozenset(SWEEP))
    assert extra == {1}
    (a,) = done
    assert a.launch == 1 and a.factor == pytest.approx(1.25) and a.shared_bytes == (8192, 16384, 32768)
    assert a.added_bytes == (10000, 12000, 14000)
    assert np.median(aligned[12000][1].per_message_s) == pytest.approx(1e-6 + 12000e-9)
    assert aligned[8192][0] is by_size[8192][0]  # the sweep is untouched


def test_repeats_and_remainders_keep_their_own_level():
    repeats = layout({0: (1.0, SWEEP), 1: (0.8, SWEEP), 2: (1.2, SWEEP[:5])})
    assert supplements(repeats, frozenset(SWEEP)) == ({0, 1}, set())  # launch 2 adds no size: a repeat
    assert align(repeats, frozenset(SWEEP))[1] == ()
    remainder = layout({0: (1.0, SWEEP[:3]), 1: (0.8, SWEEP[3:])})  # a resumed run: nothing shared
    assert align(remainder, frozenset(SWEEP))[1] == ()


def test_two_shared_sizes_are_too_few_to_align():
    by_size = layout({0: (1.0, SWEEP), 1: (0.8, [8192, 16384, 10000, 12000])})
    assert align(by_size, frozenset(SWEEP))[1] == ()


def test_without_a_plan_the_launch_with_most_sizes_is_the_reference():
    by_size = layout({0: (1.0, SWEEP), 1: (0.5, [2048, 4096, 8192, 3000])})
    (a,) = align(by_size)[1]
    assert a.launch == 1 and a.factor == pytest.approx(2.0)


def test_a_size_measured_again_as_an_anchor_keeps_the_time_of_the_launch_that_measured_it_first():
    from msgperf.analysis.launches.launch_alignment import measuring_launches
    launches_of = {8192: {0, 1, 2}, 16384: {0, 1}, 12000: {1, 2}, 13000: {2}, 4096: {0, 3}}
    chosen = measuring_launches(launches_of, frozenset({4096, 8192, 16384}))
    # launches 1 and 2 refined (they measured sizes outside the plan); launch 3 repeated a plan size
    assert chosen == {8192: {0}, 16384: {0}, 12000: {1}, 13000: {2}, 4096: {0, 3}}
    # without a plan, or with no refinement, every launch counts (a --repeat run stays pooled)
    assert measuring_launches(launches_of, None) == launches_of
    assert measuring_launches({8: {0, 1}}, frozenset({8})) == {8: {0, 1}}


# ---- refinement launches that measured another curve ---------------------------------------------

from msgperf.analysis.launches.launch_alignment import disturbed_launches  # noqa: E402

PLAN = frozenset(1 << k for k in range(12, 21))  # 4 KiB .. 1 MiB


def medians_of(curves: dict[int, dict[int, float]]) -> dict[int, dict[int, float]]:
    out: dict[int, dict[int, float]] = {}
    for launch, times in curves.items():
        for size, t in times.items():
            out.setdefault(size, {})[launch] = t
    return out


def sweep_times(factor=lambda s: 1.0) -> dict[int, float]:
    return {s: (1e-6 + s * 1e-9) * factor(s) for s in PLAN}


def test_a_level_that_drifts_smoothly_with_size_is_one_curve_and_a_spike_is_another():
    """bench/RESULTS.md §14: the sweep ran 2x faster than the refinement at 4 KiB and 0.8x at
    1 MiB, a smooth drift (ratio 0.83-2.2, beyond 1.5 around one level): accepted. One size at 40x
    the sweep is another curve, whatever the rest."""
    drift = lambda s: 2.2 * (0.83 / 2.2) ** ((np.log2(s) - 12) / 8)  # noqa: E731
    refined = {s: t * drift(s) for s, t in sweep_times().items()}
    refined[50000] = 1e-6 + 50000e-9
    assert disturbed_launches(medians_of({0: sweep_times(), 1: refined}), PLAN) == ()
    steep = {s: t * 2 ** (np.log2(s) - 12) for s, t in sweep_times().items()}  # 1x to 256x: no level
    steep[50000] = 1e-6 + 50000e-9
    assert [d.launch for d in disturbed_launches(medians_of({0: sweep_times(), 1: steep}), PLAN)] == [1]
    spiked = dict(refined)
    spiked[16384] *= 40
    (bad,) = disturbed_launches(medians_of({0: sweep_times(), 1: spiked}), PLAN)
    assert bad.launch == 1 and bad.high > 40


def test_two_refinement_launches_that_agree_corroborate_each_other_against_the_sweep():
    """Refinement launches 1 and 2 measured the same sizes on the same curve, which is not the
    sweep's shape (not a line in log size): neither is set aside. Alone, each would be."""
    shape = {4096: 2.2, 8192: 2.2, 16384: 1.9, 32768: 2.06, 65536: 1.64, 131072: 1.58, 262144: 1.33,
             524288: 0.62, 1048576: 0.83}
    refined = {s: t * shape[s] for s, t in sweep_times().items()}
    refined[40000] = 1e-6 + 40000e-9
    alone = disturbed_launches(medians_of({0: sweep_times(), 1: refined}), PLAN)
    assert [d.launch for d in alone] == [1]
    both = disturbed_launches(medians_of({0: sweep_times(), 1: refined, 2: {s: 1.05 * t for s, t in refined.items()}}),
                              PLAN)
    assert both == ()


def test_a_refinement_is_judged_against_the_sweep_not_the_launches_that_measured_a_few_sizes_again():
    """msgperf run's answer launches measure a few plan sizes again (here 512 KiB and 1 MiB) at a
    level of their own (3x the sweep's, as a launch beside a busy process may run). A refinement
    launch on the sweep's own curve is judged against the sweep's times: the answer launches'
    level at two of its sizes would have made it disagree with itself by 2x."""
    refined = dict(sweep_times())
    refined[300000] = 1e-6 + 300000e-9
    answer = {s: 3 * t for s, t in sweep_times().items() if s >= 1 << 19}
    curves = {0: sweep_times(), 1: answer, 2: answer, 3: refined}
    assert disturbed_launches(medians_of(curves), PLAN) == ()


def test_a_resumed_remainder_is_part_of_the_sweep_a_refinement_is_judged_against():
    """A resumed run: launch 0 measured 4-64 KiB, launch 1 the rest of the plan. A refinement
    launch whose sizes lie in the remainder is judged against launch 1 (40x at 512 KiB there)."""
    times = sweep_times()
    first = {s: t for s, t in times.items() if s <= 1 << 16}
    rest = {s: t for s, t in times.items() if s > 1 << 16}
    refined = {s: t for s, t in rest.items()}
    refined[1 << 19] *= 40
    refined[300000] = 1e-6 + 300000e-9
    (bad,) = disturbed_launches(medians_of({0: first, 1: rest, 2: refined}), PLAN)
    assert bad.launch == 2 and bad.high > 30


def test_a_launch_that_had_its_cores_may_differ_more_before_it_is_set_aside():
    """Since the kernels measure size by size, quiet refinement launches differ from the sweep by
    1.4-2.6x beyond one level on the 2-core VM; crowded ones 1.95-7.1x. One whose records say it
    had its cores is set aside beyond QUIET_AGREEMENT (3x) when the sweep's launches had theirs too,
    any other beyond 1.5x."""
    wavy = {s: t * (2.2 if s in (1 << 13, 1 << 15) else 1.0) for s, t in sweep_times().items()}  # 2.2x at two sizes
    wavy[40000] = 1e-6 + 40000e-9
    curves = medians_of({0: sweep_times(), 1: wavy})
    assert [d.launch for d in disturbed_launches(curves, PLAN)] == [1]  # nothing known of its conditions
    assert disturbed_launches(curves, PLAN, quiet=frozenset({0, 1})) == ()
    # ... against a quiet sweep: beside a sweep made with other work (a tester's allreduce run, its
    # sweep beside a busy loop, its quiet refinement launch at 0.35x its level) the strict 1.5x holds
    assert [d.launch for d in disturbed_launches(curves, PLAN, quiet=frozenset({1}))] == [1]
    spiked = dict(wavy)
    spiked[1 << 16] *= 40
    (bad,) = disturbed_launches(medians_of({0: sweep_times(), 1: spiked}), PLAN, quiet=frozenset({0, 1}))
    assert bad.launch == 1 and bad.high > 30


def test_a_quiet_default_runs_refinement_launches_locate_the_eager_limit_to_the_byte():
    """A real default run on a quiet machine: its refinement launches measured the sweep's sizes
    at 0.83-1.40x and 1.00-2.25x; set aside at 1.5x, the answer said "a refinement launch saw
    another curve → msgperf run on a quiet machine" and could not tell what crossing the eager
    limit costs (a tester saw that in 7 of 8 quiet runs)."""
    run = read_run(Path(__file__).resolve().parents[2] / "data" / "kernel-runs" / "mpich-default-quiet-refined.jsonl").run
    assert quiet_launches(run) == frozenset(l.index for l in run.launches)
    result = analyze(run)
    assert not [c for s in result.series if s.model for c in s.model.caveats if c.kind == "refinement_disturbed"]
    answer = result.answer
    assert answer.eager_limit.value == 8112 and answer.eager_step is not None
    assert (answer.eager_step.below.bytes, answer.eager_step.above.bytes) == (8112, 8113)
    assert answer.eager_step.step.value > 0  # told, with its interval
    assert any((s.best_low_bytes, s.best_high_bytes) == (8112, 8113) for s in answer.switches)
    assert "refinement_disturbed" not in {w.kind for w in answer.warnings}
