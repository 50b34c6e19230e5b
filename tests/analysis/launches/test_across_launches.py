"""Intervals across launches (analysis.across_launches) and what every interval says it covers
(analysis.points, analysis.series): several launches widen a size's interval to the spread
between them, one launch is labelled so with the command that measures the rest, and a single
value has no interval at all."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from msgperf.analysis import analyze_series
from msgperf.analysis.launches.across_launches import (ONE_VALUE, WITHIN_ONE_LAUNCH, interval_of_launches,
                                              interval_within_launch, random_effects)
from tests.factories import launches_run, make_run, measurement


def test_without_own_errors_it_is_the_t_interval_of_the_log_values():
    values = [1.0, 1.1, 0.95, 1.04]
    iv = interval_of_launches(values)
    y = np.log(values)
    lo, hi = stats.t.interval(0.95, len(y) - 1, loc=y.mean(), scale=stats.sem(y))
    assert (math.log(iv.low), math.log(iv.high)) == pytest.approx((lo, hi))
    assert iv.value == pytest.approx(math.exp(y.mean()))
    assert iv.covers == "across 4 launches" and iv.df == 3


def test_never_narrower_than_the_launches_own_errors():
    """Launches that agree perfectly still leave their own (fixed-effect) uncertainty."""
    fit = random_effects([0.0, 0.0, 0.0], [0.01, 0.01, 0.01])
    assert fit.tau2 == 0 and fit.se == pytest.approx(0.01 / math.sqrt(3))


def test_coverage_with_three_launches():
    rng = np.random.default_rng(1)
    covered = 0
    for _ in range(400):
        y = 0.05 * rng.standard_normal(3) + 0.005 * rng.standard_normal(3)
        lo, hi = random_effects(y, [0.005] * 3).interval(0.95)
        covered += lo <= 0 <= hi
    assert covered / 400 >= 0.92


def test_within_one_launch_and_one_value():
    iv = interval_within_launch(1e-6, 0.99e-6, 1.01e-6, 200)
    assert iv.covers == WITHIN_ONE_LAUNCH and "--repeat 3" in iv.caveat
    assert iv.halfwidth_rel == pytest.approx(0.01)
    single = interval_within_launch(1e-6, None, None, 1)
    assert single.covers == ONE_VALUE and single.halfwidth_rel is None and single.low is None


def test_a_repeated_run_widens_its_intervals_to_the_launch_spread():
    run = launches_run(seed=3, launches=3, launch_sd=0.06, noise=0.02, n=400)
    result = analyze_series(run)
    for size in result.sizes:
        p = size.point
        assert p.interval.covers == "across 3 launches" and p.launches == 3
        assert (p.ci_low_s, p.ci_high_s) == (p.interval.low, p.interval.high)
        medians = [m.stats.median for m in size.measurements]
        assert p.time_s == pytest.approx(math.exp(np.mean(np.log(medians))), rel=0.01)
        # wider than any launch's own interval: the launches differ by ~6 %
        assert p.interval.halfwidth_rel > max(m.stats.ci_halfwidth_rel for m in size.measurements)
    assert "one_launch" not in {c.kind for c in result.caveats}
    names = {p.name: p.interval for p in result.parameters_across_launches}
    assert set(names) == {"alpha", "beta", "n_half"}
    assert all(iv.covers == "across 3 launches" and iv.low < iv.value < iv.high
               for iv in names.values())


def test_one_launch_is_labelled_with_the_command_that_measures_the_rest():
    result = analyze_series(launches_run(seed=4, launches=1))
    assert all(s.point.interval.covers == WITHIN_ONE_LAUNCH for s in result.sizes)
    (caveat,) = [c for c in result.caveats if c.kind == "one_launch"]
    assert "run-to-run spread unknown" in caveat.message and "--repeat 3" in caveat.advice
    assert result.parameters_across_launches == ()


def test_imported_single_values_have_no_interval():
    run = make_run([measurement("pingpong", s, np.array([2e-6 + s * 1e-10]), divisor=1)
                    for s in (1, 64, 1024, 16384, 262144)], source="osu")
    result = analyze_series(run)
    for s in result.sizes:
        assert s.point.interval.covers == ONE_VALUE
        assert s.point.interval.halfwidth_rel is None and s.point.ci_low_s is None
    assert "one_launch" not in {c.kind for c in result.caveats}
