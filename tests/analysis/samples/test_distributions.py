"""analysis/samples/distributions.py against scipy.stats: the same numbers, for every method the
analysis calls."""

import numpy as np
import pytest
from scipy import stats as reference

from msgperf.analysis.samples.distributions import stats

QS = (0.001, 0.025, 0.05, 0.5, 0.9, 0.975, 0.995)


@pytest.mark.parametrize("q", QS)
def test_normal(q):
    assert stats.norm.ppf(q) == pytest.approx(reference.norm.ppf(q), rel=1e-12)
    x = reference.norm.ppf(q)
    assert stats.norm.sf(x) == pytest.approx(reference.norm.sf(x), rel=1e-10)
    assert stats.norm.cdf(x) == pytest.approx(reference.norm.cdf(x), rel=1e-10)


@pytest.mark.parametrize("df", (1, 2, 3.5, 10, 57, 1000))
@pytest.mark.parametrize("q", QS)
def test_student_t(df, q):
    assert stats.t.ppf(q, df) == pytest.approx(reference.t.ppf(q, df), rel=1e-9)
    assert stats.t(df).ppf(q) == pytest.approx(reference.t(df).ppf(q), rel=1e-9)
    x = abs(reference.t.ppf(q, df))
    assert stats.t(df).sf(x) == pytest.approx(reference.t(df).sf(x), rel=1e-9)
    assert stats.t.sf(x, df) == pytest.approx(reference.t.sf(x, df), rel=1e-9)


@pytest.mark.parametrize("n", (1, 6, 7, 20, 101, 1000, 99999))
@pytest.mark.parametrize("q", (0.0005, 0.005, 0.025, 0.05))  # the tail levels an interval uses
def test_binomial(n, q):
    assert stats.binom.ppf(q, n, 0.5) == reference.binom.ppf(q, n, 0.5)
    for k in {0, n // 3, n // 2, n - 1}:
        assert stats.binom.cdf(k, n, 0.5) == pytest.approx(reference.binom.cdf(k, n, 0.5), rel=1e-9, abs=1e-300)
    assert stats.binom.cdf(-1, n, 0.5) == 0.0


@pytest.mark.parametrize("df", (1, 2, 5, 30))
@pytest.mark.parametrize("q", (0.5, 0.95, 0.99))
def test_chi2_and_f(df, q):
    assert stats.chi2.ppf(q, df) == pytest.approx(reference.chi2.ppf(q, df), rel=1e-9)
    for dfd in (1, 3, 12, 200):
        assert stats.f.isf(1 - q, df, dfd) == pytest.approx(reference.f.isf(1 - q, df, dfd), rel=1e-8)


def test_the_median_interval_ranks_are_unchanged():
    """sample_stats.median_ci_ranks, through these distributions, gives the binomial interval
    scipy.stats gives."""
    from msgperf.analysis.samples.sample_stats import median_ci_ranks

    for n in (6, 7, 20, 100, 5000):
        j = int(reference.binom.ppf(0.025, n, 0.5))
        while j >= 0 and 2 * reference.binom.cdf(j, n, 0.5) > 0.05:
            j -= 1
        while 2 * reference.binom.cdf(j + 1, n, 0.5) <= 0.05:
            j += 1
        assert median_ci_ranks.__wrapped__(n, 0.95) == ((j, n - 1 - j) if j >= 0 else (0, n - 1))
    assert np.isfinite(stats.t.ppf(0.975, 3))
