"""Bimodal samples: two groups of times (two paths, two cores, two protocol states).

Method: a two-component Gaussian mixture fitted by EM (Dempster, Laird & Rubin, JRSS B
39:1, 1977) to the logarithm of the samples between their 2.5th and 97.5th percentiles (the
rare 10-100x spikes are the outlier rule's business, not a mode). For speed the mixture
is fitted to at most ``SUBSAMPLE`` (500) evenly spaced order statistics, which represent the
distribution's quantiles. EM starts from the best two-group split of the sorted values
(Otsu's between-class criterion).

The samples are called bimodal when all of these hold:
- two components are worth their three extra parameters by the Schwarz criterion:
  2·(logL2 - logL1) > 3·ln m, m the number of values fitted (Schwarz, Ann. Stat. 6:461, 1978);
- each component holds at least ``MIN_WEIGHT`` (5 %) of the trimmed samples (a group of
  less than about 7.5 % of all samples is a tail, which the outlier rule reports);
- Ashman's D = sqrt(2)·|mu1 - mu2| / sqrt(s1² + s2²) > ``MIN_D`` (3): Ashman, Bird & Zepf
  (Astron. J. 108:2348, 1994) take D > 2 as needed for a clean separation; 3 keeps flat
  (uniform-like) and skewed unimodal samples unflagged;
- the fitted mixture density really dips between the two means, to at most ``MAX_DIP``
  (one half) of the lower peak.

It is not tested below ``MIN_SAMPLES`` samples or when the samples take fewer than
``MIN_DISTINCT`` distinct values (a clock-tick lattice, which the resolution caveat covers).
"""

from __future__ import annotations

import math

import numpy as np

from msgperf.analysis.samples.sample_stats import percentiles_of_sorted
from msgperf.values import Value

SUBSAMPLE = 500
TRIM = 2.5  # percent cut from each end before fitting
MIN_SAMPLES = 200
MIN_DISTINCT = 20
MIN_WEIGHT = 0.05
MIN_D = 3.0
MAX_DIP = 0.5
RULE = ("two-component Gaussian mixture on log time (p2.5-p97.5): preferred by BIC, both "
        "weights >= 5 %, Ashman's D > 3 and a density dip to <= 1/2 of the lower peak")


class Modality(Value):
    tested: bool
    bimodal: bool
    low_mode: float  # seconds, the faster group's centre (geometric mean); NaN if untested
    high_mode: float
    high_weight: float  # share of samples in the slower group
    ashman_d: float
    rule: str = RULE


def _two_group_split(v: np.ndarray) -> int:
    """Index that splits sorted ``v`` into two groups with the largest between-class variance."""
    n = v.size
    k = np.arange(1, n)
    cs = np.cumsum(v)
    m1 = cs[:-1] / k
    m2 = (cs[-1] - cs[:-1]) / (n - k)
    return int(np.argmax(k * (n - k) * (m1 - m2) ** 2)) + 1


def _em(v: np.ndarray, iterations: int = 100, tol: float = 1e-7):
    """EM for two normal components on 1-D data; returns weights, means, sds, log-likelihood
    (up to the constant -m·ln sqrt(2 pi), the same for the one-component fit).

    Each iteration works on sufficient statistics (the responsibilities' sums of 1, v and v²),
    and the log-odds of the two components is a quadratic in v: a handful of array operations
    an iteration instead of some thirty (a cold analysis fits ~300 of these mixtures)."""
    split = _two_group_split(v)
    floor = max(1e-4, 1e-3 * float(np.std(v)))
    m = v.size
    w1 = 1 - split / m
    mu0, mu1 = float(v[:split].mean()), float(v[split:].mean())
    sd0, sd1 = max(float(v[:split].std()), floor), max(float(v[split:].std()), floor)
    # centred: the sums of v² below then lose no digits to the mean (log seconds, about -14)
    centre = float(v.mean())
    x = v - centre
    x2 = x * x
    sx, sx2 = float(x.sum()), float(x2.sum())
    mu0, mu1 = mu0 - centre, mu1 - centre
    previous = -np.inf
    loglik = previous
    for _ in range(iterations):
        # log p0(x) - log p1(x) = a + b·x + c·x², each log p_k = log w_k - log sd_k - ((x - mu_k)/sd_k)²/2
        h0, h1 = 0.5 / sd0 ** 2, 0.5 / sd1 ** 2
        c1 = math.log(w1) - math.log(sd1)
        a = math.log(1 - w1) - math.log(sd0) - c1 - h0 * mu0 ** 2 + h1 * mu1 ** 2
        b = 2 * (h0 * mu0 - h1 * mu1)
        d = a + b * x + (h1 - h0) * x2
        soft = np.logaddexp(0.0, d)  # log(1 + e^d): log(p0 + p1) - log p1
        # Σ log(p0 + p1) = Σ log p1 + Σ soft, with Σ log p1 in closed form from the sums of x, x²
        loglik = m * c1 - h1 * (sx2 - 2 * mu1 * sx + m * mu1 ** 2) + float(soft.sum())
        r1 = np.exp(-soft)  # p1 / (p0 + p1)
        n1 = min(max(float(r1.sum()), 1e-9), m - 1e-9)
        n0 = m - n1
        s1, q1 = float(r1 @ x), float(r1 @ x2)
        w1 = n1 / m
        mu0, mu1 = (sx - s1) / n0, s1 / n1
        sd0 = max(float(np.sqrt(max((sx2 - q1) / n0 - mu0 ** 2, 0.0))), floor)
        sd1 = max(float(np.sqrt(max(q1 / n1 - mu1 ** 2, 0.0))), floor)
        if loglik - previous < tol * abs(loglik):
            break
        previous = loglik
    return np.array([1 - w1, w1]), np.array([mu0 + centre, mu1 + centre]), np.array([sd0, sd1]), loglik


def _dip(w: np.ndarray, mu: np.ndarray, sd: np.ndarray) -> float:
    grid = np.linspace(mu.min(), mu.max(), 256)
    dens = (w / sd * np.exp(-0.5 * ((grid[:, None] - mu) / sd) ** 2)).sum(axis=1)
    return float(dens.min() / min(dens[0], dens[-1]))


def detect_bimodality(sorted_values: np.ndarray) -> Modality:
    """Test samples (sorted ascending, positive) for two groups."""
    x = np.asarray(sorted_values, dtype=np.float64)
    nan = float("nan")
    if x.size < MIN_SAMPLES:
        return Modality(False, False, nan, nan, nan, nan)
    lo, hi = percentiles_of_sorted(x, (TRIM, 100 - TRIM))
    core = x[np.searchsorted(x, lo, "left"):np.searchsorted(x, hi, "right")]
    pick = core[np.linspace(0, core.size - 1, min(SUBSAMPLE, core.size)).astype(np.int64)]
    if 1 + np.count_nonzero(pick[1:] != pick[:-1]) < MIN_DISTINCT:  # distinct values of sorted ``pick``
        return Modality(False, False, nan, nan, nan, nan)
    v = np.log(pick)
    w, mu, sd, loglik2 = _em(v)
    sd1 = max(float(np.std(v)), 1e-300)
    loglik1 = float(np.sum(-0.5 * ((v - v.mean()) / sd1) ** 2 - np.log(sd1)))
    preferred = 2 * (loglik2 - loglik1) > 3 * np.log(v.size)
    order = np.argsort(mu)
    w, mu, sd = w[order], mu[order], sd[order]
    d = float(np.sqrt(2) * abs(mu[1] - mu[0]) / np.sqrt(sd[0] ** 2 + sd[1] ** 2))
    bimodal = bool(preferred and w.min() >= MIN_WEIGHT and d > MIN_D
                   and _dip(w, mu, sd) <= MAX_DIP)
    return Modality(True, bimodal, float(np.exp(mu[0])), float(np.exp(mu[1])), float(w[1]), d)
