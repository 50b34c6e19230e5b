"""Across launches (Blaisdell's latency and bandwidth assignment ran one program 30 times): within- versus between-launch
variation, and launches that stand apart — by a stated rule, never by hand, never dropped.

Per size, robustly (relative to the size's consensus, the median of the launch medians):
- within-launch spread: the median over launches of each launch's 1.4826·MAD / median
  (the robust relative standard deviation of single samples);
- between-launch spread: IQR / 1.349 of the launch medians / consensus (a normal sd), which a
  single odd launch does not move but two groups of launches (Blaisdell's latency and bandwidth assignment) do.

Launches that stand apart: for each launch, its typical log-ratio to the consensus,
r = median over sizes of ln(launch median / consensus). Across launches, the modified
z-score of r (Iglewicz & Hoaglin 1993, as for samples) flags a launch when |z| > 3.5 *and*
it differs from the typical launch by more than ``MIN_SHIFT`` (5 %), so that launches agreeing
to 0.1 % are not split hairs apart. At least three launches are needed (with two, neither
is the odd one out). The same rule per size names the sizes where a launch stands apart.
Flagged launches stay in the pooled model; the per-launch models are reported beside it.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from msgperf.analysis.samples import THRESHOLD, SampleStats, modified_z
from msgperf.values import Value

MAD_TO_SIGMA = 1.4826
IQR_TO_SIGMA = 1.349
MIN_SHIFT = 0.05
MIN_LAUNCHES = 3
RULE = ("typical ratio to the other launches: modified z-score > 3.5 (Iglewicz & Hoaglin "
        "1993) and more than 5 % off")


class LaunchSpread(Value):
    bytes: int
    medians: tuple[tuple[int, float], ...]  # (launch, median time) for each launch
    consensus_s: float  # median of the launch medians
    within_rel: float | None  # robust relative sd of samples within a launch; None: single values
    between_rel: float  # relative spread of the launch medians (IQR / 1.349 / consensus)


class LaunchVerdict(Value):
    launch: int
    typical_ratio: float  # exp(r): this launch's times relative to the consensus
    z: float  # modified z-score of r across launches (0 with fewer than three launches)
    apart: bool
    sizes_apart: tuple[int, ...]  # sizes where this launch stands apart by the same rule


class LaunchComparison(Value):
    launches: tuple[int, ...]
    sizes: tuple[LaunchSpread, ...]
    verdicts: tuple[LaunchVerdict, ...]
    within_rel: float | None  # median over sizes
    between_rel: float  # median over sizes
    rule: str = RULE

    @property
    def apart(self) -> tuple[int, ...]:
        return tuple(v.launch for v in self.verdicts if v.apart)


def _flags(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Modified z-scores and flags (|z| > 3.5 and > 5 % from the median) of log values."""
    centre = float(np.median(values))
    z = modified_z(values, centre, float(np.median(np.abs(values - centre))))
    return z, (np.abs(z) > THRESHOLD) & (np.abs(np.expm1(values - centre)) > MIN_SHIFT)


def _within(stats: SampleStats) -> float | None:
    """Robust relative sd of one launch's samples at one size (None for a single value)."""
    return MAD_TO_SIGMA * stats.mad / stats.median if stats.n > 1 else None


def compare_launches(summaries: Mapping[int, Mapping[int, SampleStats]]) -> LaunchComparison:
    """Compare launches from ``summaries[launch][bytes]``, each launch's stats per size."""
    launches = tuple(sorted(summaries))
    medians = {l: {b: s.median for b, s in per.items()} for l, per in summaries.items()}
    sizes = sorted({b for per in medians.values() for b in per})
    spreads = []
    log_ratios: dict[int, list[float]] = {l: [] for l in launches}
    sizes_apart: dict[int, list[int]] = {l: [] for l in launches}
    for b in sizes:
        have = [l for l in launches if b in medians[l]]
        m = np.array([medians[l][b] for l in have])
        consensus = float(np.median(m))
        q25, q75 = np.percentile(m, [25, 75])
        between = float(q75 - q25) / IQR_TO_SIGMA / consensus
        inside = [w for w in (_within(summaries[l][b]) for l in have) if w is not None]
        spreads.append(LaunchSpread(b, tuple(zip(have, (float(v) for v in m))), consensus,
                                    float(np.median(inside)) if inside else None, between))
        logs = np.log(m / consensus)
        for l, r in zip(have, logs):
            log_ratios[l].append(float(r))
        if len(have) >= MIN_LAUNCHES:
            _, flagged = _flags(logs)
            for l, f in zip(have, flagged):
                if f:
                    sizes_apart[l].append(b)
    typical = np.array([np.median(log_ratios[l]) for l in launches])
    if len(launches) >= MIN_LAUNCHES:
        z, flagged = _flags(typical)
    else:
        z, flagged = np.zeros(len(launches)), np.zeros(len(launches), dtype=bool)
    verdicts = tuple(LaunchVerdict(l, float(np.exp(t)), float(zl), bool(f), tuple(sizes_apart[l]))
                     for l, t, zl, f in zip(launches, typical, z, flagged))
    inside_all = [s.within_rel for s in spreads if s.within_rel is not None]
    return LaunchComparison(
        launches=launches, sizes=tuple(spreads), verdicts=verdicts,
        within_rel=float(np.median(inside_all)) if inside_all else None,
        between_rel=float(np.median([s.between_rel for s in spreads])))

