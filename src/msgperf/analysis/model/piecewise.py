"""Piecewise Hockney model: where one line does not fit, segments with their own alpha and beta.

Protocol switches (eager -> rendezvous, a shared-memory cell size, a single-copy threshold,
the "network buffer size" of Blaisdell's latency and bandwidth assignment) and cache or
memory-capacity knees make T(b) a broken line: a jump, a change of slope or both. The model
is a sequence of segments over consecutive measured sizes; a breakpoint lies *between* two
measured sizes, and that is how it is reported.

What a switch is judged against. Each size i has a stated scale sigma_i (its own noise and
the model tolerance, ``points``). Real sweeps scatter more than that (a loaded machine, a
cache effect of a few percent), by a factor sqrt(phi) that is unknown. It is estimated from
the residuals *of each candidate model itself*, within its segments: never from a model
without the switch (where the switch would inflate the noise it is judged against), and
never below the stated scale (phi >= 1: a line within noise and tolerance is not broken).

Method.
1. Least squares on the scale sigma_i: the residual sum of every run of at least
   ``MIN_POINTS`` consecutive sizes (three: one degree of freedom beyond the line), in closed
   form, and the same with the one size of the run left out that lowers it most.
2. The model may leave out sizes it cannot describe: up to ``MAX_EDGE`` sizes at either end
   of the sweep (a knee on the last two sizes leaves too few for a segment of its own) and
   ``MAX_EXCUSED`` size inside (a spike: the Cisco blog's ACK deferred to the next progress
   cycle). Left-out sizes are reported (``excluded_bytes``) and are anomalies, not regimes.
3. For every number of breakpoints k, of edge sizes and of excused sizes, the best
   segmentation is found exactly by dynamic programming (Bellman, CACM 4:284, 1961; Bai &
   Perron, J. Appl. Econometrics 18:1, 2003).
4. The model is chosen by its likelihood with phi profiled (phi = max(1, RSS/n)) plus, for
   each term it adds, the finite-sample threshold of an F test with Bonferroni's correction
   for having searched every place: a breakpoint, 2 parameters at ``ALPHA`` over the n - 5
   places it could be, and never less than the Schwarz penalty 5·ln n of the former
   known-scale criterion (Yao, Stat. Probab. Lett. 6:181, 1988, with 2·ln n for the search,
   after Zhang & Siegmund, Biometrics 63:22, 2007), which is the larger from about 20 sizes;
   a left-out size, 1 parameter at ``ALPHA_EXCLUDED`` over 2 ends or n.
   n·ln(1 + q·F(q, n - p; a/m)/(n - p)) is the drop in n·ln(RSS) that such a test needs.
   With unknown scale and few sizes this is what keeps a straight line straight; the
   simulations in tests/analysis check it (no breakpoint on 600 straight lines).
5. Each breakpoint's interval is a likelihood-ratio confidence set (Siegmund, Int. Stat.
   Rev. 56:31, 1988): holding the neighbouring segments' outer ends, every gap whose residual
   sum is within phi·F(1, n - p; 0.99) of the best is plausible; the interval runs from the
   lower size of the first plausible gap to the upper size of the last. 99 %: a size that
   lies on both lines (common at an eager -> rendezvous switch) makes neighbouring gaps nearly
   equally likely, and a too-narrow "switch between" is the costlier mistake.
6. The segments reported are Huber fits (``robust``) of each segment's kept sizes on the
   scale sigma_i·sqrt(phi), with their intervals.

Least squares rather than Huber for the choice: its residual sums are exact, closed-form and
scale-free, so the scale can be profiled per model; robustness to single wild sizes comes
from leaving them out explicitly (step 2) at a stated price, not from down-weighting, which

would also down-weight the sizes that show a switch.
"""

from __future__ import annotations

import math

from functools import lru_cache
from typing import Sequence

import msgspec
import numpy as np
from msgperf.analysis.samples import stats
from msgperf.values import Value

from msgperf.analysis.model.hockney import LineFit, line_fit
from msgperf.analysis.model.points import TOLERANCE, SizePoint, point_arrays
from msgperf.analysis.model.robust import fit_line

MIN_POINTS = 3
MAX_BREAKS = 6
MAX_EDGE = 2
MAX_EXCUSED = 1
ALPHA = 0.05  # level of the test that adds a breakpoint
SCHWARZ_PER_BREAK = 5.0  # and at least the former penalty, 5·ln n (3 parameters + 2 for location)
ALPHA_EXCLUDED = 0.05  # level of the test that leaves a size out
LOCATION_CONFIDENCE = 0.99
# The exact search costs n² memory and n³ time in the number of sizes n (every run of
# consecutive sizes, with one left out): 256 sizes take about a second and a few MiB, 10^5 would
# take 9 GiB. Beyond this many sizes the search runs on this many of them, chosen evenly in log
# size (``search_sizes``), and says so (``PiecewiseFit.searched_sizes``); every size still gets
# its residual, its row and its anomaly check.
MAX_SEARCH_SIZES = 256


class Breakpoint(Value):
    """A switch between two regimes, somewhere in (low_bytes, high_bytes]."""

    low_bytes: int  # the largest size that is plausibly still in the left segment's regime
    high_bytes: int  # the smallest size that is plausibly already in the right one's
    best_low_bytes: int  # the most likely gap: between these two adjacent measured sizes
    best_high_bytes: int
    confidence: float


BELOW_ZERO = ("β's interval lies below 0: times fall with size here — noise or a regime the data "
              "cannot resolve")


def slope_cannot_tell(segment: LineFit) -> str:
    """A segment's rule: its slope β is a time per byte, so > 0. Why its β (and 1/β) cannot be told
    when the fitted β is below 0 and its whole interval with it (or it has no interval); "" when it can.
    A negative α alone is fine: an intercept of a segment that starts beyond 0 B, not a latency."""
    beta = segment.beta_s_per_byte
    hi = segment.beta_ci_s_per_byte[1]
    if beta < 0 and (not math.isfinite(hi) or hi < 0):
        return BELOW_ZERO
    return ""


class SizeResidual(Value):
    """One size against the model: how far off, and whether beyond its own interval."""

    bytes: int
    time_s: float
    predicted_s: float
    rel_residual: float  # (measured - predicted) / predicted
    z: float  # (measured - predicted) / (sigma·sqrt(phi)): in units of the sweep's scatter
    outside_interval: bool | None  # the prediction lies outside the size's own interval of
    # the median (None: the size has no interval, e.g. one imported value)
    beyond_tolerance: bool  # |rel_residual| > the model tolerance
    excluded: bool  # the model left this size out (an edge size or an excused spike)

    @property
    def off_model(self) -> bool:
        """Off beyond both its own interval and the tolerance: never 'within its noise'."""
        return bool(self.outside_interval) and self.beyond_tolerance


class PiecewiseFit(Value):
    segments: tuple[LineFit, ...]
    breakpoints: tuple[Breakpoint, ...]
    criterion: tuple[float, ...]  # best penalised -2 log L for 0, 1, ... breakpoints (inf: none)
    phi: float  # the chosen model's scatter beyond the stated scale (>= 1)
    tolerance: float
    residuals: tuple[SizeResidual, ...] = ()  # every size, in order
    excluded_bytes: tuple[int, ...] = ()  # sizes the model leaves out (see module docstring)
    searched_sizes: int | None = None  # the sizes the segments were searched and fitted on, when
    # fewer than all (more than MAX_SEARCH_SIZES sizes); None: all of them

    def segment_for(self, size: float) -> LineFit:
        """The segment that predicts ``size``: a size inside a breakpoint's best gap is given
        to the left segment, beyond the measured range to the first or last segment. The gap is
        the breakpoint's, which a refinement may have narrowed inside the segments' own."""
        return self.segments[self.segment_index(size)]

    @property
    def segment_starts(self) -> tuple[float, ...]:
        """Where each segment after the first begins: the upper size of its breakpoint's best gap
        (which a refinement may have narrowed inside the segments' sizes). Every caller that asks
        which segment a size is in goes through this (segment_for, segment_index)."""
        if len(self.breakpoints) == len(self.segments) - 1:
            return tuple(float(b.best_high_bytes) for b in self.breakpoints)
        return tuple(float(s.from_bytes) for s in self.segments[1:])  # segments given without breakpoints

    def segment_index(self, size: float) -> int:
        for i, start in enumerate(self.segment_starts):
            if size < start:
                return i
        return len(self.segments) - 1

    def predict(self, size: float) -> float:
        return float(self.segment_for(size).predict(size))

    @property
    def segments_cannot_tell(self) -> tuple[str, ...]:
        """Per segment, why its β cannot be told (slope_cannot_tell), "" where it can."""
        return tuple(slope_cannot_tell(seg) for seg in self.segments)

    @property
    def off_model(self) -> tuple[SizeResidual, ...]:
        """The sizes the model misses beyond their own interval and the tolerance."""
        return tuple(r for r in self.residuals if r.off_model)

    @property
    def worst_off_model(self) -> SizeResidual | None:
        off = self.off_model
        return max(off, key=lambda r: abs(r.rel_residual)) if off else None

    @property
    def fits_every_size(self) -> bool:
        """True when no size is off the model beyond its own interval and the tolerance."""
        return not self.off_model


# ---- residual sums in closed form ---------------------------------------------------------

SUM_FIELDS = 7  # sums of w, w·x, w·y, w·x², w·x·y, w·y², count


def sum_terms(x: np.ndarray, y: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """Per-size terms of the sums, in units where the residual sum is sum(((y - fit)/sigma)²):
    x and y divided by their largest and median value (conditioning only), weights to match."""
    ym = float(np.median(y)) or 1.0
    w = (ym / sigma) ** 2
    xs = x / (float(np.max(x)) or 1.0)
    ys = y / ym
    return np.stack([w, w * xs, w * ys, w * xs * xs, w * xs * ys, w * ys * ys, np.ones_like(w)])


def line_rss(sums: np.ndarray) -> np.ndarray:
    """Weighted least-squares residual sum of one line from its sums (inf below MIN_POINTS)."""
    sw, sx, sy, sxx, sxy, syy, count = sums
    with np.errstate(divide="ignore", invalid="ignore"):
        vxx = sxx - sx * sx / sw
        vxy = sxy - sx * sy / sw
        vyy = syy - sy * sy / sw
        rss = np.maximum(vyy - np.where(vxx > 0, vxy * vxy / vxx, 0.0), 0.0)
    return np.where(count >= MIN_POINTS - 1e-9, rss, np.inf)


def _segment_costs(x, y, sigma):
    """cost[i, j]: residual sum of one line over sizes i..j; cost1[i, j]: the least such sum
    with one size strictly inside i..j left out (a spike has kept neighbours on both sides;
    a left-out size at a segment's end would hide where its regime ends), which1[i, j] that
    size (-1 where there is none)."""
    n = x.size
    terms = sum_terms(x, y, sigma)
    cum = np.concatenate([np.zeros((SUM_FIELDS, 1)), np.cumsum(terms, axis=1)], axis=1)
    i, j = np.triu_indices(n)
    sums = cum[:, j + 1] - cum[:, i]
    cost = np.full((n, n), np.inf)
    cost[i, j] = line_rss(sums)
    cost1 = np.full((n, n), np.inf)
    which1 = np.full((n, n), -1, dtype=np.int64)
    for m in range(1, n - 1):  # the block i < m < j of the pairs, as a rectangle (no mask over all pairs)
        r = line_rss((cum[:, None, m + 2:] - cum[:, :m, None]) - terms[:, m, None, None])
        block, chosen = cost1[:m, m + 1:], which1[:m, m + 1:]
        better = r < block
        block[better] = r[better]
        chosen[better] = m
    return cost, cost1, which1


def _partitions(cost, cost1, lo: int, hi: int, k_max: int, a_max: int):
    """best[k, a, j]: least residual sum of sizes lo..lo+j in k + 1 segments with a of them
    leaving one size out; back[k, a, j] = (start of the last segment, whether it left one out)."""
    m = hi - lo + 1
    c0 = cost[lo:hi + 1, lo:hi + 1]
    c1 = cost1[lo:hi + 1, lo:hi + 1]
    best = np.full((k_max + 1, a_max + 1, m), np.inf)
    start = np.zeros((k_max + 1, a_max + 1, m), dtype=np.int64)
    used = np.zeros((k_max + 1, a_max + 1, m), dtype=np.int64)
    best[0, 0] = c0[0]
    if a_max:
        best[0, 1] = c1[0]
    for k in range(1, k_max + 1):
        for a in range(a_max + 1):
            # the last segment starts at i + 1 after a partition of 0..i
            total = best[k - 1, a][:, None] + np.vstack([c0[1:], np.full((1, m), np.inf)])
            options = [(total, 0)]
            if a:
                options.append((best[k - 1, a - 1][:, None]
                                + np.vstack([c1[1:], np.full((1, m), np.inf)]), 1))
            for tot, e in options:
                i = np.argmin(tot, axis=0)
                value = tot[i, np.arange(m)]
                better = value < best[k, a]
                best[k, a][better] = value[better]
                start[k, a][better] = i[better] + 1
                used[k, a][better] = e
    return best, start, used


def _bounds_of(start, used, k: int, a: int, m: int, lo: int) -> list[tuple[int, int, int]]:
    """(first, last, left one out) of each segment of the chosen partition, in sweep indices."""
    out, j = [], m - 1
    for level in range(k, 0, -1):
        i, e = int(start[level, a, j]), int(used[level, a, j])
        out.append((i + lo, j + lo, e))
        a -= e
        j = i - 1
    out.append((lo, j + lo, a))
    return out[::-1]


@lru_cache(maxsize=4096)
def f_threshold(n: int, dof: int, q: int, level: float) -> float:
    """The drop in n·ln(RSS) that an F test of q more parameters needs at ``level``."""
    if dof < 1:
        return math.inf
    f = float(stats.f.isf(level, q, dof))
    return n * math.log1p(q * f / dof)


def _penalty(n: int, breaks: int, edges: int, excused: int) -> float:
    """Thresholds of the terms a model adds to one line, breakpoints first; each test's level
    is divided by the number of places it could have been put (Bonferroni)."""
    total, p = 0.0, 2
    for _ in range(breaks):
        p += 2
        total += max(f_threshold(n, n - p, 2, ALPHA / (n - 2 * MIN_POINTS + 1)),
                     SCHWARZ_PER_BREAK * math.log(n) if n - p >= 1 else math.inf)
    for _ in range(edges):
        p += 1
        total += f_threshold(n, n - p, 1, ALPHA_EXCLUDED / 2)
    for _ in range(excused):
        p += 1
        total += f_threshold(n, n - p, 1, ALPHA_EXCLUDED / n)
    return total


class _Choice(Value):
    score: float
    breaks: int
    bounds: tuple[tuple[int, int, int], ...]
    keep: np.ndarray
    rss: float
    dof: int


def _choose(x, y, sigma, max_breaks: int) -> tuple[_Choice, list[float]]:
    n = x.size
    cost, cost1, which1 = _segment_costs(x, y, sigma)
    best_choice: _Choice | None = None
    per_k = [math.inf] * (max_breaks + 1)
    edge = MAX_EDGE if n >= 2 * MIN_POINTS else 0
    for t0 in range(edge + 1):
        for t1 in range(edge + 1):
            lo, hi = t0, n - 1 - t1
            m = hi - lo + 1
            if m < MIN_POINTS or (t0 + t1 and m < 2 * MIN_POINTS):
                continue
            k_max = max(0, min(max_breaks, m // MIN_POINTS - 1))
            a_max = MAX_EXCUSED if m > MIN_POINTS else 0
            best, start, used = _partitions(cost, cost1, lo, hi, k_max, a_max)
            for k in range(k_max + 1):
                for a in range(a_max + 1):
                    rss = float(best[k, a, -1])
                    out = t0 + t1 + a
                    p = 2 + 2 * k + out
                    if not math.isfinite(rss) or n - p < 1:
                        continue
                    kept = n - out
                    phi = max(1.0, rss / kept)
                    score = rss / phi + n * math.log(phi) + _penalty(n, k, t0 + t1, a)
                    per_k[k] = min(per_k[k], score)
                    if best_choice is None or score < best_choice.score:
                        bounds = _bounds_of(start, used, k, a, m, lo)
                        keep = np.ones(n, dtype=bool)
                        keep[:t0] = False
                        keep[n - t1:] = False
                        for first, last, e in bounds:
                            if e:
                                keep[which1[first, last]] = False
                        best_choice = _Choice(score, k, tuple(bounds), keep, rss, n - p)
    assert best_choice is not None
    return best_choice, per_k


def _locate(x, y, sigma, keep, first: int, last: int, threshold: float) -> tuple[int, int, int]:
    """The best and the plausible gaps between two adjacent segments spanning sizes
    first..last (kept sizes only): (best, low, high) as indices of the kept sizes just below
    the gap; each gap leaves at least MIN_POINTS kept sizes on either side."""
    idx = np.flatnonzero(keep[first:last + 1]) + first
    terms = sum_terms(x[idx], y[idx], sigma[idx])
    cum = np.concatenate([np.zeros((SUM_FIELDS, 1)), np.cumsum(terms, axis=1)], axis=1)
    q = idx.size
    gaps = np.arange(MIN_POINTS - 1, q - MIN_POINTS)
    left = line_rss(cum[:, gaps + 1] - cum[:, :1])
    right = line_rss(cum[:, q:q + 1] - cum[:, gaps + 1])
    totals = left + right
    g = int(np.argmin(totals))
    plausible = gaps[totals <= totals[g] + threshold]
    return int(idx[gaps[g]]), int(idx[plausible.min()]), int(idx[plausible.max()])


def _size_residuals(points, x, y, sigma, keep, phi, tolerance, model_predict):
    out = []
    for i, p in enumerate(points):
        pred = model_predict(x[i])
        rel = (y[i] - pred) / pred if pred > 0 else math.inf
        inside = None if p.ci_low_s is None or p.ci_high_s is None else \
            bool(p.ci_low_s <= pred <= p.ci_high_s)
        out.append(SizeResidual(
            bytes=p.bytes, time_s=p.time_s, predicted_s=pred, rel_residual=float(rel),
            z=float((y[i] - pred) / (sigma[i] * math.sqrt(phi))),
            outside_interval=None if inside is None else not inside,
            beyond_tolerance=bool(abs(rel) > tolerance), excluded=not bool(keep[i])))
    return tuple(out)


def search_sizes(sizes: np.ndarray, most: int = MAX_SEARCH_SIZES) -> np.ndarray:
    """Indices of at most ``most`` of the ascending ``sizes``, evenly spread in log(1 + size),
    the first and the last always among them (all of them when there are no more than ``most``).
    As many as ``most`` where that many distinct ones exist: a sweep of consecutive sizes has
    fewer candidates near its small end than log spacing asks for, so the grid is made finer
    (bisection on its number of points) until it yields ``most`` distinct sizes."""
    n = sizes.size
    if n <= most:
        return np.arange(n)
    logs = np.log1p(np.asarray(sizes, dtype=float))

    def pick(count: int) -> np.ndarray:
        grid = np.linspace(logs[0], logs[-1], count)
        right = np.clip(np.searchsorted(logs, grid), 1, n - 1)
        nearer = np.where(grid - logs[right - 1] <= logs[right] - grid, right - 1, right)
        return np.unique(np.concatenate([[0, n - 1], nearer]))

    low, high = most, n
    best = pick(most)
    while low < high:
        mid = (low + high + 1) // 2
        chosen = pick(mid)
        if chosen.size <= most:
            best, low = chosen, mid
        else:
            high = mid - 1
    return best


def fit_piecewise(points: Sequence[SizePoint], tolerance: float = TOLERANCE,
                  confidence: float = 0.95, max_breaks: int = MAX_BREAKS) -> PiecewiseFit:
    """Segments and breakpoints for points sorted by distinct size (at least two). Beyond
    ``MAX_SEARCH_SIZES`` sizes they are searched and fitted on that many (``search_sizes``),
    and the residuals are those of every size."""
    if len(points) > MAX_SEARCH_SIZES:
        every = list(points)
        chosen = search_sizes(np.array([p.bytes for p in every], dtype=float))
        fit = fit_piecewise([every[i] for i in chosen], tolerance, confidence, max_breaks)
        x, y, sigma = point_arrays(every, tolerance)
        keep = ~np.isin(x, np.asarray(fit.excluded_bytes, dtype=float))
        residuals = _size_residuals(every, x, y, sigma, keep, fit.phi, tolerance, fit.predict)
        return msgspec.structs.replace(fit, residuals=residuals, searched_sizes=int(chosen.size))
    x, y, sigma = point_arrays(points, tolerance)
    n = x.size
    if n < 2 * MIN_POINTS:
        keep = np.ones(n, dtype=bool)
        bounds: list[tuple[int, int]] = [(0, n - 1)]
        rss = float(line_rss(sum_terms(x, y, sigma).sum(axis=1))) if n >= MIN_POINTS else 0.0
        dof, criterion = n - 2, ()
    else:
        choice, per_k = _choose(x, y, sigma, max_breaks)
        keep, rss, dof = choice.keep, choice.rss, choice.dof
        bounds = [(first, last) for first, last, _ in choice.bounds]
        criterion = tuple(per_k[:max(k for k in range(len(per_k)) if math.isfinite(per_k[k]))
                               + 1])
    lines = 2 * len(bounds)
    kept = int(keep.sum())
    phi = max(1.0, rss / (kept - lines)) if kept > lines and math.isfinite(rss) else 1.0
    threshold = phi * float(stats.f.isf(1 - LOCATION_CONFIDENCE, 1, max(dof, 1)))
    breakpoints = []
    for t in range(len(bounds) - 1):
        (first, _), (_, last) = bounds[t], bounds[t + 1]
        g, low, high = _locate(x, y, sigma, keep, first, last, threshold)
        above = lambda i: int(np.flatnonzero(keep[i + 1:])[0]) + i + 1  # noqa: E731
        bounds[t], bounds[t + 1] = (first, g), (above(g), last)
        breakpoints.append(Breakpoint(
            low_bytes=int(x[low]), high_bytes=int(x[above(high)]), best_low_bytes=int(x[g]),
            best_high_bytes=int(x[above(g)]), confidence=LOCATION_CONFIDENCE))
    s = sigma * math.sqrt(phi)
    segments = []
    for first, last in bounds:
        idx = np.flatnonzero(keep[first:last + 1]) + first
        robust = fit_line(x[idx], y[idx], s[idx], confidence)
        segments.append(line_fit(robust, x[idx], confidence))
    provisional = PiecewiseFit(segments=tuple(segments), breakpoints=tuple(breakpoints),
                               criterion=criterion, phi=float(phi), tolerance=tolerance)
    residuals = _size_residuals(points, x, y, sigma, keep, phi, tolerance, provisional.predict)
    return PiecewiseFit(segments=tuple(segments), breakpoints=tuple(breakpoints),
                        criterion=criterion, phi=float(phi), tolerance=tolerance,
                        residuals=residuals,
                        excluded_bytes=tuple(int(v) for v in x[~keep]))


def relocated(fit: PiecewiseFit, sweep: Sequence[SizePoint], points: Sequence[SizePoint],
              breakpoints: Sequence[Breakpoint], confidence: float = 0.95,
              included: Sequence[int] = ()) -> PiecewiseFit | None:
    """``fit`` (of the sweep's points) with its breakpoints replaced by ``breakpoints`` (those a
    refinement located more narrowly, and any it found), its segments fitted again to the kept
    ``sweep`` points between them (the caller passes the sweep's and the refined sizes, the latter
    on the sweep's level; a located switch can move a size to the other side), and its
    residuals taken at every one of ``points``; the scatter and the sizes left out stay the fit's,
    but for ``included`` (a size left out as a spike that a found switch explains). None when a
    segment would keep fewer than ``MIN_POINTS`` sizes. analysis/model/switch_location.py says why."""
    pts = sorted(sweep, key=lambda p: p.bytes)
    x, y, sigma = point_arrays(pts, fit.tolerance)
    excluded = tuple(b for b in fit.excluded_bytes if b not in set(included))
    keep = ~np.isin(x, np.asarray(excluded, dtype=float))
    s = sigma * math.sqrt(fit.phi)
    bps = _sides_of_sweep_sizes_in_gaps(sorted(breakpoints, key=lambda b: b.best_high_bytes), x, y, s, keep)
    starts = [-math.inf, *(b.best_high_bytes for b in bps), math.inf]
    segments = []
    for lo, hi in zip(starts, starts[1:]):
        idx = np.flatnonzero(keep & (x >= lo) & (x < hi))
        if idx.size < MIN_POINTS:
            return None
        segments.append(line_fit(fit_line(x[idx], y[idx], s[idx], confidence), x[idx], confidence))
    moved = PiecewiseFit(segments=tuple(segments), breakpoints=bps, criterion=fit.criterion,
                         phi=fit.phi, tolerance=fit.tolerance, excluded_bytes=excluded,
                         searched_sizes=fit.searched_sizes)
    every = sorted(points, key=lambda p: p.bytes)
    ax, ay, asig = point_arrays(every, fit.tolerance)
    residuals = _size_residuals(every, ax, ay, asig, ~np.isin(ax, np.asarray(excluded, dtype=float)),
                                fit.phi, fit.tolerance, moved.predict)
    return msgspec.structs.replace(moved, residuals=residuals)


def _sides_of_sweep_sizes_in_gaps(bps: list[Breakpoint], x, y, s, keep) -> tuple[Breakpoint, ...]:
    """A refinement's best gap can hold sizes it did not measure (the sweep's, or another
    launch's): which side each is on is judged by the lines of the sizes on either side of the
    gap, the one that predicts it closer; the gap, and the interval with it, ends at the size."""
    out = []
    for i, b in enumerate(bps):
        floor = out[-1].best_high_bytes if out else -math.inf
        ceiling = bps[i + 1].best_low_bytes if i + 1 < len(bps) else math.inf
        for j in np.flatnonzero(keep & (x > b.best_low_bytes) & (x < b.best_high_bytes)):  # ascending
            if not b.best_low_bytes < x[j] < b.best_high_bytes:
                continue
            left = np.flatnonzero(keep & (x >= floor) & (x <= b.best_low_bytes))
            right = np.flatnonzero(keep & (x >= b.best_high_bytes) & (x <= ceiling))
            if left.size < 2 or right.size < 2:
                continue
            lines = [fit_line(x[k], y[k], s[k]) for k in (left, right)]
            miss = [abs(y[j] - (line.a + line.b * x[j])) for line in lines]
            size = int(x[j])
            if miss[1] < miss[0]:  # on the right: the switch is at or below it, and so are the larger ones
                b = Breakpoint(b.low_bytes, size, b.best_low_bytes, size, b.confidence)
                break
            b = Breakpoint(size, b.high_bytes, size, b.best_high_bytes, b.confidence)
        out.append(b)
    return tuple(out)
