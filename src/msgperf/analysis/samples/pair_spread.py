"""One pair's samples at one size, for patterns that measure many pairs at once (pairs, matrix):
the kernels keep each pair's own samples (``pair_samples_s``: its slower rank's time, sample by
sample), and their spread — p95 over p50 — shows a pair whose typical time is fine but whose
samples straggle (a core shared with other work, an interrupt-laden core). Pure."""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from msgperf.values import Value


class PairSpread(Value):
    pair: tuple[int, int]  # world ranks, the initiator first
    n: int  # samples
    p50_s: float  # of the pair's own per-message times
    p95_s: float

    @property
    def spread(self) -> float:
        """p95 / p50 of the pair's samples: 1 for a steady pair, 2 when one sample in twenty is at
        least twice the typical time."""
        return self.p95_s / self.p50_s if self.p50_s > 0 else math.nan


def pair_spreads(pairs: Sequence[Any], pair_samples_s: Sequence[Sequence[float]] | None,
                 divisor: int) -> tuple[PairSpread, ...]:
    """Each pair's spread, in the order of ``pairs``, from the record's raw samples (seconds of k
    iterations; ``divisor`` makes them per-message times); () when the record kept none."""
    if not pair_samples_s or len(pair_samples_s) != len(pairs):
        return ()
    out = []
    for (a, b), raw in zip(pairs, pair_samples_s):
        samples = np.asarray(raw, dtype=np.float64) / divisor
        p50, p95 = np.percentile(samples, [50, 95])
        out.append(PairSpread((int(a), int(b)), int(samples.size), float(p50), float(p95)))
    return tuple(out)
