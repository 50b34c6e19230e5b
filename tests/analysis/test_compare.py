"""Run comparison statistics (analysis.compare): a known slowdown is found, equal runs are not
flagged more often than the stated error rate, imported single values are untested."""

from __future__ import annotations

import numpy as np
import pytest

from msgperf.analysis import AnalysisError
from msgperf.analysis.compare import (compare_runs, compare_samples, compare_size_samples,
                                      comparison_to_dict, holm)
from tests.analysis.synth_data import factors, line, make_run, measurement, sweep_run

SIZES = (0, 64, 1024, 16384, 262144, 1 << 20)


def _samples(rng, n=200, scale=None, noise=0.05):
    scale = scale or {}
    return {s: (2e-6 + 1e-10 * s) * scale.get(s, 1.0) * factors(n, noise, rng) for s in SIZES}


def test_holm_matches_hand_computation():
    assert holm([0.01, 0.04, 0.03, None]) == pytest.approx([0.03, 0.06, 0.06, None])
    assert holm([0.5, 0.9]) == [1.0, 1.0]


def test_known_factor_on_one_size_is_detected():
    rng = np.random.default_rng(1)
    a = _samples(rng)
    b = _samples(rng, scale={16384: 1.2})
    sizes, _ = compare_size_samples(a, b)
    by = {s.bytes: s for s in sizes}
    assert by[16384].verdict == "slower"
    assert by[16384].ratio == pytest.approx(1.2, rel=0.03)
    lo, hi = by[16384].ratio_ci
    assert lo < 1.2 < hi and lo > 1.0
    assert all(s.verdict == "within noise" for s in sizes if s.bytes != 16384)


def test_faster_is_reported_as_faster():
    rng = np.random.default_rng(2)
    sizes, _ = compare_size_samples(_samples(rng), _samples(rng, scale={0: 0.8}))
    assert {s.bytes: s.verdict for s in sizes}[0] == "faster"


def test_same_distribution_false_positive_rate_within_alpha():
    """Family-wise: a flagged size anywhere in a comparison counts as one false positive."""
    rng = np.random.default_rng(3)
    reps, alpha = 200, 0.05
    flagged = 0
    for _ in range(reps):
        sizes, _ = compare_size_samples(_samples(rng, n=40), _samples(rng, n=40), alpha=alpha)
        flagged += any(s.significant for s in sizes)
    # Binomial(200, 0.05): sd 3.1; alpha + 3 sd as slack.
    assert flagged / reps <= alpha + 0.047


def test_ci_of_ratio_covers_the_truth():
    rng = np.random.default_rng(4)
    covered = 0
    for _ in range(200):
        c = compare_samples(1e-6 * factors(60, 0.1, rng), 1.1e-6 * factors(60, 0.1, rng))
        covered += c.ratio_ci[0] <= 1.1 <= c.ratio_ci[1]
    assert covered / 200 >= 0.90


def test_single_values_are_untested_with_a_note():
    sizes, notes = compare_size_samples({8: np.array([1e-6])}, {8: np.array([2e-6])})
    assert sizes[0].verdict == "untested" and sizes[0].ratio == pytest.approx(2.0)
    assert any("no test" in n for n in notes)


def test_no_common_size_is_an_error():
    with pytest.raises(AnalysisError):
        compare_size_samples({1: np.ones(5)}, {2: np.ones(5)})


def test_compare_runs_and_parameters():
    sizes = tuple(1 << i for i in range(0, 21, 2))
    a = sweep_run([line(2e-6, 1e-10)], n=100, noise=0.03, seed=5, sizes=sizes)
    b = sweep_run([line(3e-6, 1e-10)], n=100, noise=0.03, seed=6, sizes=sizes)
    c = compare_runs(a, b, label_a="old", label_b="new")
    assert c.series == "pingpong"
    small = {s.bytes: s for s in c.sizes}[1]
    assert small.verdict == "slower" and small.ratio == pytest.approx(1.5, rel=0.05)
    params = {p.name: p for p in c.parameters}
    assert params["alpha"].verdict == "slower"
    assert params["alpha"].ratio == pytest.approx(1.5, rel=0.15)
    assert c.worst_slowdown() >= 0.4
    assert c.slowdowns_above(0.3)
    d = comparison_to_dict(c)
    assert d["sizes"][0]["verdict"] in ("slower", "within noise")
    same = compare_runs(a, a)
    assert not any(s.significant for s in same.sizes)


def test_compare_runs_without_a_common_pattern():
    a = make_run([measurement("pingpong", s, np.full(5, 1e-6)) for s in (0, 8)])
    b = make_run([measurement("memcpy", s, np.full(5, 1e-6)) for s in (0, 8)])
    with pytest.raises(AnalysisError, match="no pattern in common"):
        compare_runs(a, b)
