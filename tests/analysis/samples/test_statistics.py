"""Per-measurement statistics: outlier flags, drift, modality, median intervals."""

import numpy as np
import pytest

from msgperf.analysis.samples.drift import detect_drift
from msgperf.analysis.samples.modality import detect_bimodality
from msgperf.analysis.samples.outliers import flag_outliers, modified_z
from msgperf.analysis.samples.sample_stats import median_ci, median_ci_ranks, median_of, sample_stats, sample_stats_sorted


@pytest.mark.parametrize("values, flagged, high, low", [
    # median 3, MAD 1: M(100) = 0.6745 * 97 = 65.4; M(1) = -1.35
    ([1, 2, 3, 4, 100], [4], 1, 0),
    # MAD 0.5: M(1) = 0.6745 * -9 / 0.5 = -12.1 (a fast outlier)
    ([10, 10, 11, 10, 11, 1], [5], 0, 1),
    # MAD 0 -> MeanAD fallback: M(2) = 1 / (1.253314 * 0.2) = 3.99 > 3.5
    ([1, 1, 1, 1, 2], [4], 1, 0),
    # M(9) = 0.6745 * 3 / 1 = 2.02: nothing flagged
    ([5, 6, 6, 7, 9], [], 0, 0),
    ([2, 2, 2, 2], [], 0, 0),  # all equal: MAD and MeanAD 0, nothing to flag
    ([], [], 0, 0),
])
def test_outlier_flags(values, flagged, high, low):
    out = flag_outliers(np.array(values, float))
    assert out.indices.tolist() == flagged
    assert (out.high, out.low) == (high, low)
    assert out.n == len(values)
    assert "3.5" in out.rule and "Iglewicz" in out.rule


def test_modified_z_exact():
    assert modified_z(np.array([100.0]), 3.0, 1.0)[0] == pytest.approx(0.6745 * 97)
    assert modified_z(np.array([1.0, 1.0, 1.0, 1.0, 2.0]), 1.0, 0.0)[4] == pytest.approx(1 / (1.253314 * 0.2))


def test_outliers_never_change_the_statistics():
    x = np.r_[np.full(99, 1.0), 1000.0]
    s = sample_stats(x)
    assert s.n == 100 and s.max == 1000.0  # kept
    assert flag_outliers(x).indices.tolist() == [99]


@pytest.mark.parametrize("n", [1, 5, 6, 10, 101, 1000])
def test_median_ci_matches_summary(n):
    x = np.random.default_rng(n).lognormal(size=n)
    m, lo, hi = median_ci(x)
    s = sample_stats(x)
    assert (m, lo, hi) == (pytest.approx(s.median), s.ci_low, s.ci_high)


def test_summarize_sorted_equals_summarize():
    x = np.random.default_rng(3).lognormal(size=501)
    assert sample_stats(x) == sample_stats_sorted(np.sort(x))
    assert median_ci_ranks(10) == (1, 8)  # P(B <= 1) * 2 = 0.0215 <= 0.05 < P(B <= 2) * 2


@pytest.mark.parametrize("v", [1.66e-6, 5e-324, 1e-300, 0.1, 3.0, 1e6])
def test_one_sample_is_every_statistic_exactly_as_numpy_gives_it(v):
    """One time per size (other tools' outputs) skips numpy's percentiles: the same values."""
    x = np.array([v])
    p5, p25, median, p75, p95, p99 = np.percentile(x, [5, 25, 50, 75, 95, 99])
    s = sample_stats_sorted(x)
    assert (s.n, s.mean, s.std, s.min, s.max, s.median) == (1, float(x.mean()), 0.0, v, v, float(median))
    assert (s.p5, s.p25, s.p75, s.p95, s.p99) == (float(p5), float(p25), float(p75), float(p95), float(p99))
    assert s.mad == float(np.median(np.abs(x - median))) and (s.ci_low, s.ci_high) == (v, v)
    assert s == sample_stats(x) and s.confidence == 0.95


def _series(n, seed=0, noise=0.05):
    return np.exp(noise * np.random.default_rng(seed).standard_normal(n))


def test_drift_warmup_and_trend():
    x = _series(2000)
    x[:200] *= 1.3  # the first 10 % are 30 % slow
    d = detect_drift(x)
    assert d.tested and d.warmup and not d.trend
    assert d.warmup_shift == pytest.approx(0.3, abs=0.02)
    y = _series(2000, 1) * np.linspace(1.0, 1.2, 2000)  # a 20 % ramp
    d = detect_drift(y)
    assert d.trend and d.trend_shift == pytest.approx(0.16, abs=0.03)
    assert len(d.block_medians) == 10


@pytest.mark.parametrize("seed", range(5))
def test_drift_stationary_not_flagged(seed):
    assert not detect_drift(_series(5000, seed, noise=0.3)).flagged


def test_drift_small_shift_or_short_series_not_flagged():
    x = _series(100000)
    x[:10000] *= 1.03  # real (100 000 samples see it) but under the 5 % floor
    assert not detect_drift(x).flagged
    short = detect_drift(_series(99))
    assert not short.tested and not short.flagged


@pytest.mark.parametrize("weights, ratio", [(0.5, 1.5), (0.8, 1.3), (0.9, 1.2)])
def test_bimodal_groups_found(weights, ratio):
    rng = np.random.default_rng(7)
    n = 5000
    x = np.where(rng.random(n) < weights, 1e-6, ratio * 1e-6) * np.exp(0.02 * rng.standard_normal(n))
    x[rng.random(n) < 0.01] *= 50  # rare spikes do not hide the two groups
    m = detect_bimodality(np.sort(x))
    assert m.tested and m.bimodal
    assert m.low_mode == pytest.approx(1e-6, rel=0.02)
    assert m.high_mode == pytest.approx(ratio * 1e-6, rel=0.02)
    assert m.high_weight == pytest.approx(1 - weights, abs=0.05)


@pytest.mark.parametrize("make", [
    lambda r, n: np.exp(0.3 * r.standard_normal(n)),  # lognormal
    lambda r, n: 1 + r.exponential(0.05, n),  # skewed
    lambda r, n: 1 + 0.02 * r.pareto(1.5, n),  # heavy tail
    lambda r, n: r.uniform(1, 1.2, n),  # flat
    lambda r, n: (1 + 0.02 * r.standard_normal(n)) * np.where(r.random(n) < 0.01, 50, 1),  # spikes
])
def test_unimodal_not_bimodal(make):
    for seed in range(3):
        x = make(np.random.default_rng(seed), 3000)
        assert not detect_bimodality(np.sort(x)).bimodal


def test_bimodality_not_tested_on_few_or_lattice_values():
    assert not detect_bimodality(np.sort(_series(150))).tested
    ticks = np.sort(np.round(_series(5000) * 10) / 10)  # 3-4 distinct clock ticks
    assert not detect_bimodality(ticks).tested


def _textbook_em(v, iterations=100, tol=1e-7):
    """EM for two normal components as the textbooks write it (responsibilities from both
    densities, weighted means and variances over every value): the reference modality._em's
    sufficient-statistics form must reproduce."""
    from msgperf.analysis.samples.modality import _two_group_split

    split = _two_group_split(v)
    floor = max(1e-4, 1e-3 * float(np.std(v)))
    w1 = 1 - split / v.size
    mu0, mu1 = float(v[:split].mean()), float(v[split:].mean())
    sd0, sd1 = max(float(v[:split].std()), floor), max(float(v[split:].std()), floor)
    previous = loglik = -np.inf
    for _ in range(iterations):
        l0 = np.log(1 - w1) - np.log(sd0) - 0.5 * ((v - mu0) / sd0) ** 2
        l1 = np.log(w1) - np.log(sd1) - 0.5 * ((v - mu1) / sd1) ** 2
        top = np.maximum(l0, l1)
        e0, e1 = np.exp(l0 - top), np.exp(l1 - top)
        loglik = float(np.sum(np.log(e0 + e1) + top))
        r1 = e1 / (e0 + e1)
        n1 = min(max(float(r1.sum()), 1e-9), v.size - 1e-9)
        n0 = v.size - n1
        w1 = n1 / v.size
        mu0, mu1 = float(((1 - r1) * v).sum() / n0), float(r1 @ v / n1)
        sd0 = max(float(np.sqrt((((v - mu0) ** 2) * (1 - r1)).sum() / n0)), floor)
        sd1 = max(float(np.sqrt((r1 * (v - mu1) ** 2).sum() / n1)), floor)
        if loglik - previous < tol * abs(loglik):
            break
        previous = loglik
    return np.array([1 - w1, w1]), np.array([mu0, mu1]), np.array([sd0, sd1]), loglik


@pytest.mark.parametrize("seed", range(6))
def test_the_mixture_fit_is_the_textbook_em(seed):
    from msgperf.analysis.samples.modality import _em

    rng = np.random.default_rng(seed)
    n = 500
    groups = [np.log(1e-6) + 0.02 * rng.standard_normal(n),  # one group
              np.log(np.where(rng.random(n) < 0.3, 1.5e-6, 1e-6)) + 0.02 * rng.standard_normal(n),  # two
              np.log(1e-5 * (1 + rng.exponential(0.05, n))),  # a skewed tail
              np.log(rng.uniform(1e-4, 2e-4, n))]  # flat
    for v in groups:
        v = np.sort(v)
        got, want = _em(v), _textbook_em(v)
        for a, b in zip(got[:3], want[:3]):
            assert a == pytest.approx(b, rel=1e-8, abs=1e-12)
        assert got[3] == pytest.approx(want[3], rel=1e-9)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 10, 501, 1000, 4097])
def test_median_of_and_median_ci_give_numpys_median_to_the_bit(n):
    rng = np.random.default_rng(n)
    for x in (rng.lognormal(-13, 0.3, n), np.round(rng.lognormal(-13, 0.3, n), 9), np.full(n, 1.5e-6)):
        assert median_of(x) == np.median(x) and median_ci(x)[0] == np.median(x)
        assert median_of(x[::-1].copy()) == np.median(x)
