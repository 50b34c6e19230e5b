"""One point per message size: the time a model is fitted to, and how well it is known.

The time of a size is the median of its per-message samples (robust to the heavy tail of
timing data). Its relative standard uncertainty u is taken from the distribution-free 95 %
interval of the median, u = (high - low) / (2 · 1.96 · median), the interval's half-width
read as a normal 95 % interval. With several launches the launch-to-launch spread is added:
u² = u_within² + u_between², where u_between is the standard error of the mean of the launch
medians, 1.4826 · MAD(launch medians) / sqrt(L) / median. A size with a single value
(imported from a tool that prints one number per size) has no known uncertainty (None).

Every model compares a point with a prediction on the scale
    sigma = time · sqrt(u² + tolerance²),
the relative ``tolerance`` (default 1 %) being the smallest misfit worth a model term: the
per-size medians of 100 000 samples are known to 0.01 %, and without a floor every cache
effect of a few tenths of a percent would become a "protocol switch".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy import stats

from msgperf.analysis.summary import Summary

TOLERANCE = 0.01
MAD_TO_SIGMA = 1.4826


@dataclass(frozen=True)
class SizePoint:
    bytes: int
    time_s: float  # median time per message
    ci_low_s: float | None  # interval of the median (None for a single value)
    ci_high_s: float | None
    n: int  # samples behind the point (all launches)
    launches: int
    rel_sd: float | None  # relative standard uncertainty of time_s; None when unknown


def point_from_summary(size: int, pooled: Summary,
                       launch_medians: Sequence[float] = ()) -> SizePoint:
    """The point of one size from the pooled summary and the median of each launch."""
    known = pooled.n > 1
    u = None
    if known:
        z = float(stats.norm.ppf(0.5 + pooled.confidence / 2))
        u_within = (pooled.ci_high - pooled.ci_low) / (2 * z * pooled.median)
        u_between = 0.0
        medians = np.asarray(launch_medians, float)
        if medians.size >= 2:
            mad = float(np.median(np.abs(medians - np.median(medians))))
            u_between = MAD_TO_SIGMA * mad / np.sqrt(medians.size) / pooled.median
        u = float(np.hypot(u_within, u_between))
    return SizePoint(bytes=int(size), time_s=pooled.median,
                     ci_low_s=pooled.ci_low if known else None,
                     ci_high_s=pooled.ci_high if known else None,
                     n=pooled.n, launches=max(1, len(launch_medians)), rel_sd=u)


def point_arrays(points: Sequence[SizePoint], tolerance: float = TOLERANCE):
    """(x bytes, y seconds, sigma seconds) arrays of points sorted by size."""
    x = np.array([p.bytes for p in points], dtype=np.float64)
    y = np.array([p.time_s for p in points], dtype=np.float64)
    u = np.array([p.rel_sd or 0.0 for p in points], dtype=np.float64)
    return x, y, y * np.sqrt(u * u + tolerance * tolerance)
