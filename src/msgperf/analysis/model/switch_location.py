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

from msgperf.analysis.samples import stats
from msgperf.analysis.model.piecewise import (ALPHA, ALPHA_EXCLUDED, LOCATION_CONFIDENCE, MAX_EDGE, MIN_POINTS, Breakpoint,
                                        PiecewiseFit, _FIELDS, _rss, _terms, _threshold)
from msgperf.analysis.model.points import TOLERANCE, SizePoint, point_arrays

MAX_SUSPECTS = 2  # sizes off the model that a refinement looks around, per series
SIDE = 3  # sizes either side of an interval that locate a switch in it (refinement.CONTEXT)
NEAR_OCTAVES = 1 / 8  # the sizes on each side of the eager-probe's limit that test a step there


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


@dataclass(frozen=True)
class ProbeStep:
    """What one refinement launch shows at the eager-probe's limit."""

    anchor_bytes: int  # the largest size the probe saw sent eagerly
    below_bytes: int  # the launch's nearest size at or below it, and its time
    below_s: float
    above_bytes: int  # ... and above it
    above_s: float
    breakpoint: Breakpoint | None  # (below, above] when a step shows there; None: no step beyond the noise


def probe_step(points: Sequence[SizePoint], anchor: int, tolerance: float = TOLERANCE) -> ProbeStep | None:
    """Whether one launch's sizes within ``NEAR_OCTAVES`` of the eager-probe's limit, at least
    ``MIN_POINTS`` on each side, are better described by one line with a step at the limit than
    by one line, or one line with one size left out as a spike (the tests of ``locate_switch``,
    with one parameter added, not tried at many places: the probe says where). So narrow a
    window, the bandwidth regime's bend past the switch does not hide it. None when the launch
    has too few sizes there."""
    lo, hi = anchor * 2 ** -NEAR_OCTAVES, (anchor + 1) * 2 ** NEAR_OCTAVES
    pts = sorted((p for p in points if lo <= p.bytes <= hi), key=lambda p: p.bytes)
    below = [p for p in pts if p.bytes <= anchor]
    above = [p for p in pts if p.bytes > anchor]
    if len(below) < MIN_POINTS or len(above) < MIN_POINTS:
        return None
    x, y, sigma = point_arrays(pts, tolerance)
    scale = float(np.median(y)) or 1.0
    w = scale / sigma  # residuals in units of each size's stated scale, as piecewise.py
    xs = (x - anchor) / anchor
    ys = y / scale
    step = (x > anchor).astype(float)
    n = len(pts)

    def rss(columns: list[np.ndarray], keep: np.ndarray) -> float:
        a = np.stack(columns, axis=1)[keep] * w[keep, None]
        b = ys[keep] * w[keep]
        coef, *_ = np.linalg.lstsq(a, b, rcond=None)
        return float(np.sum((a @ coef - b) ** 2))

    every = np.ones(n, dtype=bool)
    line = [np.ones(n), xs]
    two = rss([*line, step], every)
    one = rss(line, every)
    spared = min((rss(line, np.arange(n) != m) for m in range(1, n - 1)), default=math.inf)
    dof = n - 3
    shows = _score(two, n, dof, _threshold(n, dof, 1, ALPHA)) < min(
        _score(one, n, n - 2, 0.0), _score(spared, n, n - 3, _threshold(n, n - 3, 1, ALPHA_EXCLUDED / n)))
    low, high = int(below[-1].bytes), int(above[0].bytes)
    found = Breakpoint(low_bytes=low, high_bytes=high, best_low_bytes=low, best_high_bytes=high,
                       confidence=LOCATION_CONFIDENCE) if shows else None
    return ProbeStep(anchor, low, float(below[-1].time_s), high, float(above[0].time_s), found)


def step_at(points: Sequence[SizePoint], anchor: int, tolerance: float = TOLERANCE) -> Breakpoint | None:
    """The switch at the eager-probe's limit that one launch shows as a step (``probe_step``), or None."""
    seen = probe_step(points, anchor, tolerance)
    return None if seen is None else seen.breakpoint


def _beside_the_limit(near: Sequence[SizePoint], b: Breakpoint, anchor: int, tolerance: float) -> list[Breakpoint]:
    """Another switch in ``b`` below or above the eager-probe's limit, each side judged from the
    launch's points on that side alone (the interval part and ``SIDE`` sizes beyond it)."""
    out = []
    below = [p for p in near if p.bytes <= anchor]
    above = [p for p in near if p.bytes > anchor]
    sides = ((below, b.low_bytes, anchor), (above, anchor + 1, b.high_bytes))
    for pts, low, high in sides:
        if high - low < 2:
            continue
        window = ([p for p in pts if p.bytes <= low][-SIDE:] + [p for p in pts if low < p.bytes < high]
                  + [p for p in pts if p.bytes >= high][:SIDE])
        found = _within(locate_switch(window, low, high, tolerance), Breakpoint(low, high, low, high, LOCATION_CONFIDENCE))
        if found is not None:
            out.append(found)
    return out


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
    middle = set(sizes[1:-1])  # once: built per residual it made this quadratic in the sizes
    inner = {r.bytes: r for r in fit.residuals if r.bytes in middle}
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
    at_probe: tuple[bool, ...] = ()  # per breakpoint: located by a step at the eager-probe's limit
    absorbed: tuple[tuple[int, int], ...] = ()  # suspects whose step is the one at the probe's limit
    probe: "ProbeStep | None" = None  # what the last launch that measured around the probe's limit showed
    at_threshold: tuple[bool, ...] = ()  # per breakpoint: located by a step at a threshold the run recorded


def located(breakpoints: Sequence[Breakpoint], launches: Sequence[Sequence[SizePoint]],
            tolerance: float = TOLERANCE, around: Sequence[tuple[int, int]] = (),
            anchor: int | None = None, thresholds: Sequence[int] = ()) -> Location:
    """Every breakpoint narrowed by each refinement launch in turn (in the order they were
    made: a later round measured inside what the earlier one left), and every suspect interval
    (``around``, from ``suspects``) turned into a breakpoint where a launch shows a switch in it.
    A launch judges a breakpoint only with its points between the neighbouring ones' best gaps,
    so one switch's step never moves another. ``anchor``: the eager-probe's limit; an interval
    that holds it and whose window shows no switch is tested for a step there (``step_at``).
    ``thresholds``: the last size before each switch the run's MPI settings name (a single-copy
    threshold set by a CVAR): a launch that measured both sides of one is tested for a step
    there, as at the probe's limit; a step becomes a switch, or narrows the one that holds it."""
    items = sorted([(b, False) for b in breakpoints]
                   + [(Breakpoint(low, high, low, high, LOCATION_CONFIDENCE), True) for low, high in around],
                   key=lambda item: (item[0].low_bytes, item[0].high_bytes))
    probe_item = None  # the eager-probe's limit: a switch the sweep may have merged with another, or missed
    if anchor is not None:
        probe_item = len(items)
        items.append((Breakpoint(anchor, anchor + 1, anchor, anchor + 1, LOCATION_CONFIDENCE), True))
    threshold_items: dict[int, int] = {}  # item index -> the threshold's last size before the switch
    for t in sorted(set(thresholds) - {anchor}):
        threshold_items[len(items)] = t
        items.append((Breakpoint(t, t + 1, t, t + 1, LOCATION_CONFIDENCE), True))
    at_threshold = [False] * len(items)
    threshold_launch: dict[int, list[SizePoint]] = {}  # the launch that showed the step at a threshold
    seen: ProbeStep | None = None
    absorbed: set[int] = set()  # suspects whose step is the probe's
    extra: list[Breakpoint] = []  # switches found beside the probe's step in a sweep interval that held both
    current = [b for b, _ in items]
    narrowed = [0] * len(items)
    measured = [False] * len(items)
    at_probe = [False] * len(items)
    for pts in launches:
        for i, b in enumerate(current):
            # bounded by the neighbouring switches, not by suspects no launch has confirmed
            real = [j for j in range(len(items)) if (not items[j][1] or narrowed[j]) and j != probe_item
                    and j not in threshold_items]
            if i == probe_item or i in threshold_items:  # the sweep's switches on either side of the limit
                limit = anchor if i == probe_item else threshold_items[i]
                sweeps = [j for j in real if not items[j][1]]
                floor = max((current[j].best_high_bytes for j in sweeps if current[j].best_high_bytes <= limit),
                            default=-1)
                ceiling = min((current[j].best_low_bytes for j in sweeps if current[j].best_low_bytes > limit),
                              default=math.inf)
            else:
                floor = max((current[j].best_high_bytes for j in real if j < i), default=-1)
                ceiling = min((current[j].best_low_bytes for j in real if j > i), default=math.inf)
            near = sorted((p for p in pts if floor <= p.bytes <= ceiling), key=lambda p: p.bytes)
            if i == probe_item:  # judged by a step at the limit alone, once it has one
                if not narrowed[i] and (check := probe_step(near, anchor, tolerance)) is not None:
                    seen, measured[i] = check, True
                    if check.breakpoint is not None:
                        current[i], narrowed[i], at_probe[i] = check.breakpoint, 1, True
                continue
            if i in threshold_items:  # likewise at a threshold the run recorded
                if not narrowed[i] and (check := probe_step(near, threshold_items[i], tolerance)) is not None:
                    measured[i] = True
                    if check.breakpoint is not None:
                        current[i], narrowed[i], at_threshold[i] = check.breakpoint, 1, True
                        threshold_launch[i] = sorted(pts, key=lambda p: p.bytes)
                continue
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
            if found is None and anchor is not None and b.low_bytes <= anchor < b.high_bytes:
                found = _within(step_at(near, anchor, tolerance), b)
                at_probe[i] = at_probe[i] or found is not None
                if found is not None:  # the probe's step is one switch: the rest of the interval may hold another
                    extra += _beside_the_limit(near, b, anchor, tolerance)
            if found is not None:
                current[i] = found
                narrowed[i] += 1
    if probe_item is not None and narrowed[probe_item]:
        # a suspect whose step was clipped at its interval's end next to the probe's step is that step
        near_lo, near_hi = anchor * 2 ** -NEAR_OCTAVES, (anchor + 1) * 2 ** NEAR_OCTAVES
        for j, (first, suspect) in enumerate(items):
            if not suspect or j == probe_item or not narrowed[j]:
                continue
            if ((current[j].low_bytes == first.low_bytes and anchor < first.low_bytes <= near_hi)
                    or (current[j].high_bytes == first.high_bytes and near_lo <= first.high_bytes <= anchor)):
                narrowed[j] = 0
                absorbed.add(j)
    held: set[int] = set()  # threshold items whose step narrowed a switch that held it
    for t_item, t in threshold_items.items():  # a switch that holds the threshold: its step is where in it
        if not narrowed[t_item]:
            continue
        for j in range(len(items)):
            if (j == t_item or j in threshold_items or j == probe_item or (items[j][1] and not narrowed[j])
                    or not current[j].low_bytes <= t < current[j].high_bytes):
                continue
            held.add(t_item)
            narrower = _within(current[t_item], current[j])
            if narrower is not None and narrower != current[j]:
                # the step at the threshold is one switch: the rest of the interval, each side alone, may hold another
                extra += _beside_the_limit(threshold_launch[t_item], current[j], t, tolerance)
                current[j], at_threshold[j] = narrower, True
                narrowed[j] = max(narrowed[j], 1)
    for bp in extra:
        if not any(current[j].low_bytes < bp.high_bytes and bp.low_bytes < current[j].high_bytes
                   for j in range(len(items)) if narrowed[j] or not items[j][1]):
            items.append((bp, True))
            current.append(bp)
            narrowed.append(1)
            measured.append(True)
            at_probe.append(False)
            at_threshold.append(False)
    keep = [i for i, (_, suspect) in enumerate(items) if (not suspect or narrowed[i]) and i not in held]
    if probe_item is not None and probe_item in keep:
        holding = [j for j in keep if j != probe_item and current[j].low_bytes <= anchor < current[j].high_bytes]
        if holding:  # the same switch, kept already: the step at the limit is where in it
            for j in holding:
                narrower = _within(current[probe_item], current[j])
                if narrower is not None and narrower != current[j]:
                    current[j], at_probe[j] = narrower, True
                    narrowed[j] = max(narrowed[j], 1)
            keep.remove(probe_item)
    keep = sorted(keep, key=lambda j: (current[j].best_high_bytes, current[j].low_bytes))
    return Location(breakpoints=tuple(current[i] for i in keep), narrowed=tuple(narrowed[i] for i in keep),
                    found=tuple(items[i][1] for i in keep), at_probe=tuple(at_probe[i] for i in keep),
                    examined=tuple(current[i] for i in keep if measured[i] and not narrowed[i]),
                    spikes=tuple((items[i][0].low_bytes, items[i][0].high_bytes) for i in range(len(items))
                                 if items[i][1] and measured[i] and not narrowed[i] and i != probe_item
                                 and i not in absorbed and i not in threshold_items),
                    probe=seen,
                    absorbed=tuple((items[i][0].low_bytes, items[i][0].high_bytes) for i in sorted(absorbed)),
                    at_threshold=tuple(at_threshold[i] for i in keep))
