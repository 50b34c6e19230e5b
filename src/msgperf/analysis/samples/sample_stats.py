"""Per-measurement statistics from raw samples (seconds)."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from msgperf.analysis.samples.distributions import stats
from msgperf.values import Value


class SampleStats(Value):
    n: int
    mean: float
    std: float
    min: float
    max: float
    median: float
    p5: float
    p25: float
    p75: float
    p95: float
    p99: float
    mad: float
    ci_low: float  # confidence interval of the median (distribution-free, order statistics)
    ci_high: float
    confidence: float

    @property
    def ci_halfwidth_rel(self) -> float:
        """Half the interval's width relative to the median (the precision target's unit)."""
        return (self.ci_high - self.ci_low) / (2 * self.median) if self.median > 0 else float("inf")


@lru_cache(maxsize=4096)
def median_ci_ranks(n: int, confidence: float = 0.95) -> tuple[int, int]:
    """0-based order-statistic indices (lo, hi) of a distribution-free CI of the median.

    The number of samples below the true median is Binomial(n, 1/2), so the interval
    [x_(j), x_(n-1-j)] (0-based) covers it with probability 1 - 2·P(B <= j). We take the
    largest j with 2·P(B <= j) <= 1 - confidence (Conover, Practical Nonparametric
    Statistics, 3rd ed., §3.2). Below 6 samples no j reaches 95 %: the full range is returned.
    """
    alpha = 1.0 - confidence
    j = int(stats.binom.ppf(alpha / 2, n, 0.5))
    while j >= 0 and 2 * stats.binom.cdf(j, n, 0.5) > alpha:
        j -= 1
    while 2 * stats.binom.cdf(j + 1, n, 0.5) <= alpha:
        j += 1
    return (j, n - 1 - j) if j >= 0 else (0, n - 1)


_SUMMARY_PERCENTILES = (5, 25, 50, 75, 95, 99)


def percentiles_of_sorted(x: np.ndarray, percentiles: tuple[float, ...]) -> list[float]:
    """``np.percentile(x, percentiles)`` of ``x`` sorted ascending, to the bit (numpy's default,
    linear interpolation, in numpy's own arithmetic), read off the sorted samples: numpy's call
    costs ~60 µs of overhead, paid for every size of every launch."""
    n = x.size
    out = []
    for p in percentiles:
        q = p / 100
        virtual = (n - 1) * q  # numpy's virtual index for "linear"
        if virtual >= n - 1:
            out.append(float(x[-1]))
            continue
        below = math.floor(virtual)
        a, b = float(x[below]), float(x[below + 1])
        t = virtual - below
        out.append(b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t)  # numpy's _lerp
    return out


def median_of(x: np.ndarray) -> float:
    """``np.median(x)`` of a non-empty 1-D float array without NaN (the samples, checked when they
    are read), to the bit: the middle order statistic, or the mean of the two middle ones, found by
    partial sorting as numpy does, without numpy's ~25 µs of overhead a call (the analysis takes
    ~8,000 medians of a run of every pattern)."""
    n = x.size
    half = n // 2
    if n % 2:
        return float(np.partition(x, half)[half])
    part = np.partition(x, (half - 1, half))
    return float((part[half - 1] + part[half]) / 2)


def sample_stats(values: np.ndarray, confidence: float = 0.95) -> SampleStats:
    """SampleStats statistics of positive, finite samples."""
    return sample_stats_sorted(np.sort(np.asarray(values, dtype=np.float64)), confidence)


def sample_stats_sorted(x: np.ndarray, confidence: float = 0.95) -> SampleStats:
    """``sample_stats`` of samples already sorted ascending (callers that keep the sorted copy).

    Percentiles are numpy's default (linear interpolation, Hyndman & Fan 1996 type 7); the
    MAD is the raw median absolute deviation (not scaled by 1.4826)."""
    if x.size == 0:
        raise ValueError("no samples to summarise")
    if x.size == 1:  # one time per size (other tools' outputs): every statistic is that time, exactly
        v = float(x[0])
        return SampleStats(n=1, mean=v, std=0.0, min=v, max=v, median=v, p5=v, p25=v, p75=v, p95=v, p99=v,
                           mad=abs(v - v), ci_low=v, ci_high=v, confidence=confidence)
    p5, p25, median, p75, p95, p99 = percentiles_of_sorted(x, _SUMMARY_PERCENTILES)
    lo, hi = median_ci_ranks(x.size, confidence)
    return SampleStats(
        n=int(x.size), mean=float(x.mean()), std=float(x.std(ddof=1)) if x.size > 1 else 0.0,
        min=float(x[0]), max=float(x[-1]), median=float(median), p5=float(p5), p25=float(p25),
        p75=float(p75), p95=float(p95), p99=float(p99),
        mad=median_of(np.abs(x - median)), ci_low=float(x[lo]), ci_high=float(x[hi]),
        confidence=confidence)


def median_ci(values: np.ndarray, confidence: float = 0.95) -> tuple[float, float, float]:
    """(median, low, high): the median and its distribution-free interval (see
    ``median_ci_ranks``), by partial sorting, O(n) — for sub-series that need no full summary."""
    x = np.asarray(values, dtype=np.float64)
    n = x.size
    if n == 0:
        raise ValueError("no samples")
    lo, hi = median_ci_ranks(n, confidence)
    mid = sorted({(n - 1) // 2, n // 2})
    part = np.partition(x, sorted({lo, hi, *mid}))
    middle = float(part[mid[0]]) if len(mid) == 1 else float((part[mid[0]] + part[mid[1]]) / 2)  # np.mean's value
    return middle, float(part[lo]), float(part[hi])
