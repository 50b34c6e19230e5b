"""Where inside its interval a switch lies, from the sizes one refinement launch measured.

The sweep decides *whether* the curve breaks and between which two sweep sizes (piecewise.py).
A refinement launch (``msgperf run``, analysis/refinement.py) then measures sizes inside that
interval together with a few sweep sizes either side. This module narrows the interval from
that launch's own points, and from nothing else:

- Launches differ in level (on a 2-core machine a refinement launch ran 5-15 % off the sweep),
  so points of different launches are never set beside each other to decide which side of a
  step a size is on. Pooling them, even after putting the launch on the sweep's level
  (launch_alignment.py), made a refined curve jagged enough to hide the switch (lost in 1 run of
  6 on real MPICH) or to show switches that are not there (2 of 6): bench/RESULTS.md §7.
- The number of switches stays the sweep's, but for a size the sweep saw off the model alone (a
  suspect) whose launch shows a step. The refinement answers "where in (low, high]", not "how
  many": dense sizes around one spot would otherwise let noise buy a breakpoint the sweep never
  saw. (Once the switches are located, the segment lines between them are fitted to the sweep's
  and the refined sizes, the latter put on the sweep's level: that is about the lines, not about
  which side of a step a size is on.)

Method: the launch's points in the window (bounded by the neighbouring breakpoints) get one
line on each side of every gap that lies inside the interval (least squares on each size's
stated scale, as in piecewise.py, each side at least ``MIN_POINTS`` sizes). The launch shows the
switch when two lines beat one by the same penalised likelihood that adds a breakpoint to a
sweep (an F test at ``ALPHA``, Bonferroni over the gaps tried); then the located interval is the
likelihood-ratio confidence set of the gap at ``LOCATION_CONFIDENCE`` (Siegmund 1988), as for a
sweep's breakpoint. Otherwise the interval stays as the sweep left it, and that is said.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from msgperf.analysis.distributions import stats
from msgperf.analysis.piecewise import (ALPHA, ALPHA_EXCLUDED, LOCATION_CONFIDENCE, MAX_EDGE, MIN_POINTS, Breakpoint,
                                        PiecewiseFit, _FIELDS, _rss, _terms, _threshold)
from msgperf.analysis.points import TOLERANCE, SizePoint, point_arrays

MAX_SUSPECTS = 2  # sizes off the model that a refinement looks around, per series
SIDE = 3  # sizes either side of an interval that locate a switch in it (refinement.CONTEXT)


def locate_switch(points: Sequence[SizePoint], low_bytes: int, high_bytes: int,
                  tolerance: float = TOLERANCE) -> Breakpoint | None:
    """The switch within (low_bytes, high_bytes] located from ``points`` (one launch, one point
    per size, the window around the interval), or None when these points do not show a switch
    there (too few on a side, or one line describes them within their noise)."""
    pts = sorted(points, key=lambda p: p.bytes)
    n = len(pts)
    if n < 2 * MIN_POINTS:
        return None
    x, y, sigma = point_arrays(pts, tolerance)
    terms = _terms(x, y, sigma)
    cum = np.concatenate([np.zeros((_FIELDS, 1)), np.cumsum(terms, axis=1)], axis=1)
    # gap j, (size j, size j + 1], is tried where it meets the interval (the launch need not have
    # measured its ends), with MIN_POINTS sizes on each side
    gaps = np.array([j for j in range(MIN_POINTS - 1, n - MIN_POINTS)
                     if x[j] < high_bytes and x[j + 1] > low_bytes], dtype=np.int64)
    if gaps.size == 0:
        return None
    totals = _rss(cum[:, gaps + 1] - cum[:, :1]) + _rss(cum[:, n:n + 1] - cum[:, gaps + 1])
    g = int(np.argmin(totals))
    two = float(totals[g])
    one = float(_rss(cum[:, n]))
    if not (math.isfinite(two) and math.isfinite(one)):
        return None
    dof = n - 4
    if _score(two, n, dof, _threshold(n, dof, 2, ALPHA / gaps.size)) >= min(
            _score(one, n, n - 2, 0.0), _score(_one_spared(cum, terms), n, n - 3, _threshold(n, n - 3, 1, ALPHA_EXCLUDED / n))):
        return None
    phi_two = max(1.0, two / dof)
    threshold = phi_two * float(stats.f.isf(1 - LOCATION_CONFIDENCE, 1, dof))
    plausible = gaps[totals <= two + threshold]
    best = int(gaps[g])
    return Breakpoint(low_bytes=int(x[plausible.min()]), high_bytes=int(x[plausible.max() + 1]),
                      best_low_bytes=int(x[best]), best_high_bytes=int(x[best + 1]),
                      confidence=LOCATION_CONFIDENCE)


def _within(found: Breakpoint | None, before: Breakpoint) -> Breakpoint | None:
    """``found`` clipped to the interval ``before`` (a gap that meets it may reach past its end),
    or None when they do not meet."""
    if found is None:
        return None
    low, high = max(found.low_bytes, before.low_bytes), min(found.high_bytes, before.high_bytes)
    if low >= high:
        return None
    best_low = min(max(found.best_low_bytes, low), high - 1)
    best_high = max(min(found.best_high_bytes, high), best_low + 1)
    return Breakpoint(low, high, best_low, best_high, found.confidence)


def _score(rss: float, n: int, dof: int, penalty: float) -> float:
    """Penalised -2 log L with the scale profiled and never below the stated one (piecewise.py)."""
    if not math.isfinite(rss) or dof < 1:
        return math.inf
    phi = max(1.0, rss / dof)
    return rss / phi + n * math.log(phi) + penalty


def _one_spared(cum: np.ndarray, terms: np.ndarray) -> float:
    """The residual sum of one line with the one inner size left out that lowers it most: a
    size that stands off alone (a spike) is not a switch."""
    n = terms.shape[1]
    return min((float(_rss(cum[:, n] - terms[:, m])) for m in range(1, n - 1)), default=math.inf)


def suspects(fit: PiecewiseFit, sizes: Sequence[int]) -> tuple[tuple[int, int], ...]:
    """Where a switch may hide that the sweep could not tell from a spike: each inner size that
    stands off the model beyond its own interval and the tolerance (or that the model left out
    as a spike), outside every breakpoint interval, as the interval (previous size, next size) of ``sizes`` (the sweep's)
    around it; at most ``MAX_SUSPECTS``, the farthest off first. A short sweep whose one size
    past a switch sits on a noisy bandwidth regime is read as a spike (bench/RESULTS.md §7); a
    refinement launch measures around it and tells which (``located``)."""
    sizes = sorted(sizes)
    inner = {r.bytes: r for r in fit.residuals if r.bytes in set(sizes[1:-1])}
    edges = set(sizes[:MAX_EDGE]) | set(sizes[-MAX_EDGE:])
    off = [r for r in inner.values()
           if (r.off_model or (r.excluded and r.bytes not in edges))
           and not any(b.low_bytes <= r.bytes <= b.high_bytes for b in fit.breakpoints)]
    off.sort(key=lambda r: -abs(r.rel_residual))
    out: list[list[int]] = []
    for low, high in sorted((sizes[sizes.index(r.bytes) - 1], sizes[sizes.index(r.bytes) + 1])
                            for r in off[:MAX_SUSPECTS]):
        if out and low < out[-1][1]:  # neighbours both off: one interval around the two
            out[-1][1] = max(out[-1][1], high)
        else:
            out.append([low, high])
    return tuple((low, high) for low, high in out)


@dataclass(frozen=True)
class Location:
    """What the refinement launches said about a sweep's switches."""

    breakpoints: tuple[Breakpoint, ...]  # the sweep's, narrowed, and those found at a suspect; in order
    narrowed: tuple[int, ...]  # per breakpoint: how many launches narrowed it (0: as the sweep left it)
    found: tuple[bool, ...]  # per breakpoint: found by a refinement where the sweep saw a size off alone
    examined: tuple[Breakpoint, ...]  # sweep breakpoints a launch measured inside without seeing the switch
    spikes: tuple[tuple[int, int], ...]  # suspects a launch measured around without seeing a switch


def located(breakpoints: Sequence[Breakpoint], launches: Sequence[Sequence[SizePoint]],
            tolerance: float = TOLERANCE, around: Sequence[tuple[int, int]] = ()) -> Location:
    """Every breakpoint narrowed by each refinement launch in turn (in the order they were
    made: a later round measured inside what the earlier one left), and every suspect interval
    (``around``, from ``suspects``) turned into a breakpoint where a launch shows a switch in it.
    A launch judges a breakpoint only with its points between the neighbouring ones' best gaps,
    so one switch's step never moves another."""
    items = sorted([(b, False) for b in breakpoints]
                   + [(Breakpoint(low, high, low, high, LOCATION_CONFIDENCE), True) for low, high in around],
                   key=lambda item: (item[0].low_bytes, item[0].high_bytes))
    current = [b for b, _ in items]
    narrowed = [0] * len(items)
    measured = [False] * len(items)
    for pts in launches:
        for i, b in enumerate(current):
            # bounded by the neighbouring switches, not by suspects no launch has confirmed
            real = [j for j in range(len(items)) if not items[j][1] or narrowed[j]]
            floor = max((current[j].best_high_bytes for j in real if j < i), default=-1)
            ceiling = min((current[j].best_low_bytes for j in real if j > i), default=math.inf)
            near = sorted((p for p in pts if floor <= p.bytes <= ceiling), key=lambda p: p.bytes)
            inside = [p for p in near if b.low_bytes < p.bytes < b.high_bytes]
            if not inside:
                continue
            # the interval and SIDE sizes either side (the sizes the launch measured again beside
            # it): a knee farther off must not pass for a step inside
            window = ([p for p in near if p.bytes <= b.low_bytes][-SIDE:] + inside
                      + [p for p in near if p.bytes >= b.high_bytes][:SIDE])
            measured[i] = True
            # clipped: a later launch narrows what the earlier ones (or the sweep) said
            found = _within(locate_switch(window, b.low_bytes, b.high_bytes, tolerance), b)
            if found is not None:
                current[i] = found
                narrowed[i] += 1
    keep = [i for i, (_, suspect) in enumerate(items) if not suspect or narrowed[i]]
    return Location(breakpoints=tuple(current[i] for i in keep), narrowed=tuple(narrowed[i] for i in keep),
                    found=tuple(items[i][1] for i in keep),
                    examined=tuple(current[i] for i in keep if measured[i] and not narrowed[i]),
                    spikes=tuple((items[i][0].low_bytes, items[i][0].high_bytes) for i in range(len(items))
                                 if items[i][1] and measured[i] and not narrowed[i]))
