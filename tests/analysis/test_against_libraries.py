"""What msgperf computes by hand, checked against the well-kept libraries that do the same job
(docs/libraries.md says why each is written by hand): the Huber line and its covariance against
statsmodels' RLM, Holm's adjustment against statsmodels' multipletests, the median's interval
against scipy's quantile_test."""

from __future__ import annotations

import numpy as np
import pytest

statsmodels = pytest.importorskip("statsmodels.api")
from scipy import stats  # noqa: E402
from statsmodels.stats.multitest import multipletests  # noqa: E402

from msgperf.analysis.compare import holm  # noqa: E402
from msgperf.analysis.model.robust import fit_line  # noqa: E402
from msgperf.analysis.samples.sample_stats import median_ci, percentiles_of_sorted  # noqa: E402


@pytest.mark.parametrize("seed", range(5))
def test_huber_line_equals_statsmodels_rlm(seed):
    rng = np.random.default_rng(seed)
    x = np.geomspace(1, 2 ** 20, 21)
    y = 1e-6 + 1e-10 * x
    s = 0.02 * y  # each point's own scale (relative), as the sweeps use
    y = y + s * rng.standard_normal(x.size)
    y[7] *= 1.4  # one wild point, which Huber's rho down-weights
    ours = fit_line(x, y, s)
    # RLM with a known scale: the same problem in standardised units, y/s on [1/s, x/s]
    X = np.column_stack([1 / s, x / s])
    model = statsmodels.RLM(y / s, X, M=statsmodels.robust.norms.HuberT(t=1.345))
    res = model.fit(scale_est=_FixedScale(), cov="H1", conv="coefs", tol=1e-12, maxiter=1000)
    a, b = res.params
    assert ours.a == pytest.approx(a, rel=1e-7) and ours.b == pytest.approx(b, rel=1e-7)
    # H1 covariance (Huber 1981 §7.6), scaled by the residual spread as both compute it
    assert np.allclose(ours.covariance, res.bcov_unscaled * _h1_factor(ours), rtol=1e-6)


class _FixedScale:
    """statsmodels scale estimator that keeps the scale at 1 (the points' scales are known)."""

    def __call__(self, *args, **kwargs):
        return 1.0


def _h1_factor(line) -> float:
    psi = np.clip(line.z, -1.345, 1.345)
    dpsi = (np.abs(line.z) <= 1.345).astype(float)
    n, p = line.z.size, 2
    m = dpsi.mean()
    k = 1 + p / n * dpsi.var() / (m * m)
    return k * k * float(np.sum(psi * psi)) / (n - p) / (m * m)


@pytest.mark.parametrize("seed", range(5))
def test_holm_equals_statsmodels(seed):
    p = np.random.default_rng(seed).uniform(0, 0.2, 12)
    _, adjusted, _, _ = multipletests(p, method="holm")
    assert holm(list(p)) == pytest.approx(list(adjusted), rel=1e-12)


@pytest.mark.parametrize("n", (6, 7, 20, 101, 1000))
def test_median_interval_equals_scipy_quantile_test(n):
    x = np.random.default_rng(n).lognormal(0, 0.3, n)
    _, low, high = median_ci(x, 0.95)
    ci = stats.quantile_test(x, q=np.median(x), p=0.5).confidence_interval(0.95)
    assert (low, high) == (pytest.approx(ci.low), pytest.approx(ci.high))


@pytest.mark.parametrize("n", [2, 3, 4, 5, 7, 10, 19, 20, 21, 99, 100, 101, 333, 1000, 4097])
def test_percentiles_of_sorted_samples_are_numpys_to_the_bit(n):
    """sample_stats reads its percentiles off the sorted samples itself (numpy's call cost more
    than the arithmetic): the same numbers as np.percentile, bit for bit."""
    rng = np.random.default_rng(n)
    for x in (np.sort(rng.lognormal(-12, 1.5, n)), np.sort(rng.integers(1, 5, n).astype(float) * 1e-6)):
        qs = (0, 1, 5, 25, 50, 75, 95, 99, 100, 2.5, 97.5)
        assert percentiles_of_sorted(x, qs) == [float(v) for v in np.percentile(x, qs)]
