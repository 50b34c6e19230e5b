"""One point per message size: the time a model is fitted to, and how well it is known.

With one launch, the time of a size is the median of its per-message samples (robust to the
heavy tail of timing data), its interval the median's distribution-free one ("within one
launch": a re-run may land outside it), and its relative standard uncertainty u is read off that
interval, u = (high - low) / (2 · 1.96 · median), the half-width taken as a normal 95 % one.

With several launches (``--repeat``) the launch is the unit: the time is the random-effects
estimate over the launch medians (``across_launches``: their weighted geometric mean), its
interval the Hartung-Knapp one, which covers the spread between launches ("across N launches"),
and u its standard error on the log scale. A size with a single value (imported from a tool
that prints one number per size) has no interval and no known uncertainty (None, "1 value").

Every model compares a point with a prediction on the scale
    sigma = time · sqrt(u² + tolerance²),
the relative ``tolerance`` (default 1 %) being the smallest misfit worth a model term: the
per-size medians of 100 000 samples are known to 0.01 %, and without a floor every cache
effect of a few tenths of a percent would become a "protocol switch".
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from msgperf.analysis.samples import SampleStats, stats
from msgperf.analysis.launches import (Interval, interval_of_launches, interval_within_launch,
                                       log_se_from_interval)
from msgperf.analysis.model.tolerance import TOLERANCE  # noqa: F401 (the name users of points know)
from msgperf.values import Value


class SizePoint(Value):
    bytes: int
    time_s: float  # the size's time: one launch's median, or the estimate across launches
    ci_low_s: float | None  # its interval (None for a single value); what it covers: interval
    ci_high_s: float | None
    n: int  # samples behind the point (all launches)
    launches: int
    rel_sd: float | None  # relative standard uncertainty of time_s; None when unknown
    interval: Interval | None = None  # the same interval with what it covers and how it was made


def point_from_stats(size: int, pooled: SampleStats,
                     launch_stats: Sequence[SampleStats] = ()) -> SizePoint:
    """The point of one size: from ``pooled`` (all samples) with one launch, or from the
    summary of each launch (``launch_stats``, two or more) across launches."""
    conf = pooled.confidence
    usable = [s for s in launch_stats if s.median > 0]
    if len(usable) >= 2:
        ses = [log_se_from_interval(s.median, s.ci_low, s.ci_high, conf) if s.n > 1 else math.nan
               for s in usable]
        iv = interval_of_launches([s.median for s in usable], ses, conf)
        return SizePoint(bytes=int(size), time_s=iv.value, ci_low_s=iv.low, ci_high_s=iv.high,
                         n=pooled.n, launches=len(usable), rel_sd=iv.rel_se, interval=iv)
    known = pooled.n > 1
    u = None
    if known:
        z = float(stats.norm.ppf(0.5 + conf / 2))
        u = (pooled.ci_high - pooled.ci_low) / (2 * z * pooled.median)
    iv = interval_within_launch(pooled.median, pooled.ci_low if known else None,
                                pooled.ci_high if known else None, pooled.n, conf)
    return SizePoint(bytes=int(size), time_s=pooled.median,
                     ci_low_s=pooled.ci_low if known else None,
                     ci_high_s=pooled.ci_high if known else None,
                     n=pooled.n, launches=1, rel_sd=u, interval=iv)


def point_arrays(points: Sequence[SizePoint], tolerance: float = TOLERANCE):
    """(x bytes, y seconds, sigma seconds) arrays of points sorted by size."""
    x = np.array([p.bytes for p in points], dtype=np.float64)
    y = np.array([p.time_s for p in points], dtype=np.float64)
    u = np.array([p.rel_sd or 0.0 for p in points], dtype=np.float64)
    return x, y, y * np.sqrt(u * u + tolerance * tolerance)
