"""Drift in a sample series: a warm-up at its start, or a level that moves along it.

The series (in the order the samples were taken, within one launch) is cut into ten
consecutive blocks. Two comparisons, each against the *settled* level, the last half:

- warm-up: block 1 (the first 10 %) versus the last half;
- trend: block 2 (10-20 %, past any warm-up) versus the last block (90-100 %).

A comparison flags drift when the two distribution-free 99 % intervals of the medians
(order statistics, Conover 1999 §3.2; ``sample_stats.median_ci``) do not overlap, *and* the
medians differ by more than ``MIN_SHIFT`` (5 %). Non-overlapping intervals are a
conservative test of a difference (Schenker & Gentleman, Am. Stat. 55:182, 2001); 99 %
because two comparisons are made for every size of every launch, and the 5 % floor keeps
a statistically real but practically irrelevant shift of 100 000 samples from being
reported. Series shorter than ``MIN_SAMPLES`` (blocks of fewer than 10) are not tested.
"""

from __future__ import annotations

import numpy as np

from msgperf.analysis.samples.sample_stats import median_ci, median_of
from msgperf.values import Value

BLOCKS = 10
MIN_SAMPLES = 100
CONFIDENCE = 0.99
MIN_SHIFT = 0.05
RULE = ("medians of the first 10 % (warm-up) or of 10-20 % (trend) against the settled level "
        "differ by > 5 % with non-overlapping 99 % intervals")


class Drift(Value):
    tested: bool  # False: too few samples to test (fewer than MIN_SAMPLES)
    warmup: bool  # the first 10 % differs from the last half
    trend: bool  # the level moves between 10-20 % and 90-100 % of the series
    warmup_shift: float  # (median first block - median last half) / median last half
    trend_shift: float  # (median last block - median block 2) / median block 2
    block_medians: tuple[float, ...]  # the ten block medians, in series order
    rule: str = RULE

    @property
    def flagged(self) -> bool:
        return self.warmup or self.trend


def _differs(a: np.ndarray, b: np.ndarray) -> tuple[bool, float]:
    """Whether median(a) and median(b) differ by the rule; and the shift (a - b) / b."""
    ma, la, ha = median_ci(a, CONFIDENCE)
    mb, lb, hb = median_ci(b, CONFIDENCE)
    shift = (ma - mb) / mb if mb > 0 else 0.0
    apart = ha < lb or hb < la
    return bool(apart and abs(shift) > MIN_SHIFT), shift


def detect_drift(series: np.ndarray) -> Drift:
    """Test a sample series (in measurement order) for warm-up and trend."""
    x = np.asarray(series, dtype=np.float64)
    n = x.size
    if n < MIN_SAMPLES:
        return Drift(False, False, False, 0.0, 0.0, ())
    edges = np.linspace(0, n, BLOCKS + 1).astype(np.int64)
    blocks = [x[edges[i]:edges[i + 1]] for i in range(BLOCKS)]
    medians = tuple(median_of(b) for b in blocks)
    warmup, warmup_shift = _differs(blocks[0], x[n // 2:])
    trend, _ = _differs(blocks[1], blocks[-1])
    trend_shift = (medians[-1] - medians[1]) / medians[1] if medians[1] > 0 else 0.0
    return Drift(True, warmup, trend, warmup_shift, trend_shift, medians)
