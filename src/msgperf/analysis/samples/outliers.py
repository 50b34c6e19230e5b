"""Outlier flags by the modified z-score on the MAD. Flags only: nothing is ever dropped.

Iglewicz & Hoaglin, *How to Detect and Handle Outliers* (ASQC Basic References in Quality
Control 16, 1993), §3: M_i = 0.6745 (x_i - median) / MAD, and a sample is flagged when
|M_i| > 3.5. The constant 0.6745 is the 75th percentile of the standard normal, so M is a
z-score whose scale is robust (the MAD has a 50 % breakdown point).

When more than half the samples are equal (a coarse clock) the MAD is 0; we then use
M_i = (x_i - median) / (1.253314 · MeanAD), the mean absolute deviation scaled to the
normal's sigma (the fallback IBM SPSS documents for the modified z-score). When that is
0 as well, every sample equals the median and none is flagged.
"""

from __future__ import annotations

import msgspec
import numpy as np

from msgperf.analysis.samples.sample_stats import median_of
from msgperf.values import Value

THRESHOLD = 3.5
MAD_TO_Z = 0.6745
MEANAD_TO_SIGMA = 1.253314
RULE = "modified z-score |0.6745·(x - median)/MAD| > 3.5 (Iglewicz & Hoaglin 1993)"


class Outliers(Value, eq=False):
    """Samples flagged by the rule in ``rule``; indices are positions in the sample series."""

    indices: np.ndarray  # int64, ascending
    n: int  # samples examined
    high: int  # flagged above the median (slow samples)
    low: int  # flagged below the median
    worst: float  # the flagged value farthest from the median (NaN when none)
    rule: str = RULE
    values: np.ndarray = msgspec.field(default_factory=lambda: np.zeros(0))  # the flagged samples, in series order

    @property
    def count(self) -> int:
        return int(self.indices.size)

    @property
    def fraction(self) -> float:
        return self.count / self.n if self.n else 0.0


def modified_z(values: np.ndarray, median: float, mad: float) -> np.ndarray:
    """The modified z-score of each value (with the MeanAD fallback when the MAD is 0)."""
    x = np.asarray(values, dtype=np.float64)
    if mad > 0:
        return MAD_TO_Z * (x - median) / mad
    mean_ad = float(np.mean(np.abs(x - median))) if x.size else 0.0
    if mean_ad > 0:
        return (x - median) / (MEANAD_TO_SIGMA * mean_ad)
    return np.zeros_like(x)


def flag_outliers(values: np.ndarray, median: float | None = None,
                  mad: float | None = None) -> Outliers:
    """Flag samples with |modified z| > 3.5. ``median``/``mad`` may be passed when known."""
    x = np.asarray(values, dtype=np.float64)
    if x.size == 0:
        return Outliers(np.zeros(0, dtype=np.int64), 0, 0, 0, float("nan"))
    if median is None:
        median = median_of(x)
    if mad is None:
        mad = median_of(np.abs(x - median))
    z = modified_z(x, median, mad)
    indices = np.flatnonzero(np.abs(z) > THRESHOLD)
    if indices.size == 0:
        return Outliers(indices.astype(np.int64), int(x.size), 0, 0, float("nan"))
    flagged = z[indices]
    worst = float(x[indices[int(np.argmax(np.abs(flagged)))]])
    return Outliers(indices=indices.astype(np.int64), n=int(x.size),
                    high=int(np.count_nonzero(flagged > 0)), low=int(np.count_nonzero(flagged < 0)),
                    worst=worst, values=x[indices].copy())
