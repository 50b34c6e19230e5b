"""Piecewise Hockney model: where one line does not fit, segments with their own alpha and beta.

Protocol switches (eager -> rendezvous, a shared-memory cell size, a network buffer, the
"network buffer size" of seeds/004) make T(b) a broken line: a jump, a change of slope or
both. The model is a sequence of segments over consecutive measured sizes, each its own
``LineFit``; a breakpoint lies *between* two measured sizes, and that is how it is reported.

Method.
1. Every run of at least ``MIN_POINTS`` (3) consecutive sizes is fitted by Huber
   M-estimation on the points' scales sigma_i·sqrt(phi) (``robust``, ``scatter``); its cost
   is the Huber deviance sum 2·rho(z_i). Three points per segment leave one degree of
   freedom, so one wild size cannot be given a segment of its own.
2. For each number of breakpoints k = 0..K the optimal segmentation is found exactly by
   dynamic programming (Bellman, CACM 4:284, 1961; the segmented-regression form of Bai &
   Perron, J. Appl. Econometrics 18:1, 2003).
3. k is chosen by the Schwarz criterion with breakpoint locations counted as parameters
   (Yao, Stat. Probab. Lett. 6:181, 1988): BIC_k = deviance_k + (3k + 2)·ln n, plus an
   extra ``LOCATION_PENALTY``·ln n per breakpoint for having searched every location
   (in the spirit of Zhang & Siegmund's modified BIC, Biometrics 63:22, 2007); the
   simulations in tests/analysis keep false breakpoints on straight lines rare with it.
4. Each breakpoint's interval is a likelihood-ratio confidence set (Siegmund, Int. Stat.
   Rev. 56:31, 1988): holding the neighbouring segments' outer ends, every gap whose
   deviance is within
   the 99 % chi²(1) quantile (6.63) of the best is plausible; the interval runs from the
   lower size of the first plausible gap to the upper size of the last. 99 % rather than
   95 %: a size that lies on both lines (common at an eager -> rendezvous switch) makes
   neighbouring gaps nearly equally likely, and a too-narrow "switch between" is the costlier
   mistake.

Sweeps with more than ``MAX_ATOMS`` sizes are searched on blocks of consecutive sizes (at
least two blocks per segment); each breakpoint found is then moved to its best place and
given its interval size by size, as in step 4. The scale of the points already contains the
model tolerance (``points``): a line within that tolerance of every size is never broken.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy import stats

from msgperf.analysis.hockney import LineFit, line_fit
from msgperf.analysis.points import TOLERANCE, SizePoint, point_arrays
from msgperf.analysis.robust import fit_line, fit_lines
from msgperf.analysis.scatter import overdispersion

MIN_POINTS = 3
MAX_BREAKS = 6
LOCATION_PENALTY = 2.0
MAX_ATOMS = 64
LOCATION_CONFIDENCE = 0.99
_CHUNK = 2048


@dataclass(frozen=True)
class Breakpoint:
    """A switch between two regimes, somewhere in (low_bytes, high_bytes]."""

    low_bytes: int  # the largest size that is plausibly still in the left segment's regime
    high_bytes: int  # the smallest size that is plausibly already in the right one's
    best_low_bytes: int  # the most likely gap: between these two adjacent measured sizes
    best_high_bytes: int
    confidence: float


@dataclass(frozen=True)
class PiecewiseFit:
    segments: tuple[LineFit, ...]
    breakpoints: tuple[Breakpoint, ...]
    criterion: tuple[float, ...]  # BIC for 0, 1, ... breakpoints (inf where impossible)
    phi: float
    tolerance: float

    def segment_for(self, size: float) -> LineFit:
        """The segment that predicts ``size``: a size inside a breakpoint's best gap is given
        to the left segment, beyond the measured range to the first or last segment."""
        for segment, nxt in zip(self.segments, self.segments[1:]):
            if size < nxt.from_bytes:
                return segment
        return self.segments[-1]

    def predict(self, size: float) -> float:
        return float(self.segment_for(size).predict(size))


def _atoms(n: int) -> np.ndarray:
    """Start index of each atom: single sizes, or blocks when there are more than MAX_ATOMS."""
    if n <= MAX_ATOMS:
        return np.arange(n)
    return np.unique(np.linspace(0, n, MAX_ATOMS, endpoint=False).astype(np.int64))


def _segment_costs(x, y, s, starts, min_atoms: int) -> np.ndarray:
    """cost[i, j]: deviance of one line over atoms i..j (inf when fewer than the minimum)."""
    n_atoms = starts.size
    ends = np.append(starts[1:], x.size)  # exclusive end index of each atom
    pairs = [(i, j) for i in range(n_atoms) for j in range(i + min_atoms - 1, n_atoms)]
    cost = np.full((n_atoms, n_atoms), np.inf)
    idx = np.arange(x.size)
    for k in range(0, len(pairs), _CHUNK):
        chunk = np.array(pairs[k:k + _CHUNK])
        lo, hi = starts[chunk[:, 0]], ends[chunk[:, 1]]
        masks = (idx[None, :] >= lo[:, None]) & (idx[None, :] < hi[:, None])
        _, _, dev = fit_lines(x, y, s, masks)
        cost[chunk[:, 0], chunk[:, 1]] = dev
    return cost


def _optimal_partitions(cost: np.ndarray, max_breaks: int):
    """best[k]: minimal total cost with k breakpoints; back[k][j]: start of the last segment."""
    n = cost.shape[0]
    best = np.full((max_breaks + 1, n), np.inf)
    back = np.zeros((max_breaks + 1, n), dtype=np.int64)
    best[0] = cost[0]
    for k in range(1, max_breaks + 1):
        for j in range(n):
            # last segment i..j, previous segments end at i - 1
            totals = best[k - 1, :j] + cost[1:j + 1, j]
            if totals.size and np.isfinite(totals.min()):
                i = int(np.argmin(totals))
                best[k, j] = totals[i]
                back[k, j] = i + 1
    return best, back


def _segments_of(back: np.ndarray, k: int, n: int) -> list[tuple[int, int]]:
    bounds, j = [], n - 1
    for level in range(k, 0, -1):
        i = int(back[level, j])
        bounds.append((i, j))
        j = i - 1
    bounds.append((0, j))
    return bounds[::-1]


def _refine(x, y, s, left: tuple[int, int], right: tuple[int, int],
            threshold: float) -> tuple[int, int, int]:
    """Move the boundary between two adjacent segments (point index ranges, inclusive) to
    its best place, size by size. Returns (best, first, last): the index of the last point of
    the left segment at the optimum, and the first and last such index that is plausible."""
    lo, hi = left[0], right[1]
    gaps = np.arange(lo + MIN_POINTS - 1, hi - MIN_POINTS + 1)
    idx = np.arange(lo, hi + 1)
    masks = np.concatenate([(idx[None, :] <= gaps[:, None]), (idx[None, :] > gaps[:, None])])
    _, _, dev = fit_lines(x[lo:hi + 1], y[lo:hi + 1], s[lo:hi + 1], masks)
    totals = dev[:gaps.size] + dev[gaps.size:]
    plausible = gaps[totals <= totals.min() + threshold]
    return int(gaps[int(np.argmin(totals))]), int(plausible.min()), int(plausible.max())


def fit_piecewise(points: Sequence[SizePoint], tolerance: float = TOLERANCE,
                  confidence: float = 0.95, phi: float | None = None,
                  max_breaks: int = MAX_BREAKS) -> PiecewiseFit:
    """Segments and breakpoints for points sorted by distinct size (at least two)."""
    x, y, sigma = point_arrays(points, tolerance)
    if phi is None:
        phi = overdispersion(x, y, sigma)
    s = sigma * math.sqrt(phi)
    n = x.size
    starts = _atoms(n)
    ends = np.append(starts[1:], n) - 1  # inclusive last point of each atom
    blocked = starts.size < n
    min_atoms = max(math.ceil(MIN_POINTS / int(np.min(ends - starts + 1))), 2 if blocked else 1)
    k_max = max(0, min(max_breaks, starts.size // min_atoms - 1))
    criterion: tuple[float, ...] = ()
    bounds = [(0, n - 1)]
    if k_max > 0 and n >= 2 * MIN_POINTS:
        cost = _segment_costs(x, y, s, starts, min_atoms)
        best, back = _optimal_partitions(cost, k_max)
        penalty = math.log(n)
        criterion = tuple(float(best[k, -1] + (3 * k + 2 + LOCATION_PENALTY * k) * penalty)
                          for k in range(k_max + 1))
        chosen = int(np.argmin(criterion))
        bounds = [(int(starts[a0]), int(ends[a1]))
                  for a0, a1 in _segments_of(back, chosen, starts.size)]
    breakpoints = []
    threshold = float(stats.chi2.ppf(LOCATION_CONFIDENCE, 1))
    for t in range(len(bounds) - 1):
        (lo, _), (_, hi) = bounds[t], bounds[t + 1]
        g, first, last = _refine(x, y, s, bounds[t], bounds[t + 1], threshold)
        bounds[t], bounds[t + 1] = (lo, g), (g + 1, hi)
        breakpoints.append(Breakpoint(
            low_bytes=int(x[first]), high_bytes=int(x[last + 1]), best_low_bytes=int(x[g]),
            best_high_bytes=int(x[g + 1]), confidence=LOCATION_CONFIDENCE))
    segments = []
    for lo, hi in bounds:
        robust = fit_line(x[lo:hi + 1], y[lo:hi + 1], s[lo:hi + 1], confidence)
        segments.append(line_fit(robust, x[lo:hi + 1], confidence))
    return PiecewiseFit(segments=tuple(segments), breakpoints=tuple(breakpoints),
                        criterion=criterion, phi=float(phi), tolerance=tolerance)
