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
from typing import Mapping, Sequence

import numpy as np

from msgperf.analysis.model.piecewise import (ALPHA, ALPHA_EXCLUDED, LOCATION_CONFIDENCE, MAX_EDGE, MIN_POINTS,
                                              SUM_FIELDS, Breakpoint, PiecewiseFit, f_threshold, line_rss, sum_terms)
from msgperf.analysis.model.points import TOLERANCE, SizePoint, point_arrays
from msgperf.analysis.samples import stats
from msgperf.values import Value

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
    terms = sum_terms(x, y, sigma)
    cum = np.concatenate([np.zeros((SUM_FIELDS, 1)), np.cumsum(terms, axis=1)], axis=1)
    # gap j, (size j, size j + 1], is tried where it meets the interval (the launch need not have
    # measured its ends), with MIN_POINTS sizes on each side
    gaps = np.array([j for j in range(MIN_POINTS - 1, n - MIN_POINTS)
                     if x[j] < high_bytes and x[j + 1] > low_bytes], dtype=np.int64)
    if gaps.size == 0:
        return None
    totals = line_rss(cum[:, gaps + 1] - cum[:, :1]) + line_rss(cum[:, n:n + 1] - cum[:, gaps + 1])
    g = int(np.argmin(totals))
    two = float(totals[g])
    one = float(line_rss(cum[:, n]))
    if not (math.isfinite(two) and math.isfinite(one)):
        return None
    dof = n - 4
    if _score(two, n, dof, f_threshold(n, dof, 2, ALPHA / gaps.size)) >= min(
            _score(one, n, n - 2, 0.0), _score(_one_spared(cum, terms), n, n - 3, f_threshold(n, n - 3, 1, ALPHA_EXCLUDED / n))):
        return None
    phi_two = max(1.0, two / dof)
    threshold = phi_two * float(stats.f.isf(1 - LOCATION_CONFIDENCE, 1, dof))
    plausible = gaps[totals <= two + threshold]
    best = int(gaps[g])
    return Breakpoint(low_bytes=int(x[plausible.min()]), high_bytes=int(x[plausible.max() + 1]),
                      best_low_bytes=int(x[best]), best_high_bytes=int(x[best + 1]),
                      confidence=LOCATION_CONFIDENCE)


class ProbeStep(Value):
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
    shows = _score(two, n, dof, f_threshold(n, dof, 1, ALPHA)) < min(
        _score(one, n, n - 2, 0.0), _score(spared, n, n - 3, f_threshold(n, n - 3, 1, ALPHA_EXCLUDED / n)))
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
    return min((float(line_rss(cum[:, n] - terms[:, m])) for m in range(1, n - 1)), default=math.inf)


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


class Location(Value):
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
    # per breakpoint: the most likely gap's upper size where a later launch measured inside it and
    # shows less than half the step of the launch that located it (0: not contested)
    contested: tuple[int, ...] = ()
    repeated_ends: tuple[Breakpoint, ...] = ()  # of ``examined``: those a launch measured at their two ends alone


# the kinds of bracket: where a switch may lie, and who said so
SWEEP = "sweep"  # a breakpoint of the sweep
SUSPECT = "suspect"  # a size the sweep saw off the model alone (``suspects``)
PROBE = "probe"  # the eager-probe's limit: a step is tested there
THRESHOLD = "threshold"  # a threshold the run's MPI settings name: likewise
BESIDE = "beside"  # another switch found beside a step at the limit, in a sweep interval that held both


@dataclass
class Bracket:
    """One interval a switch may lie in, narrowed launch by launch."""

    kind: str
    given: Breakpoint  # as the sweep, the suspect, the probe or the threshold gave it
    limit: int | None = None  # PROBE, THRESHOLD: the last size before the switch, where a step is tested
    now: Breakpoint | None = None  # as the launches so far left it
    narrowed: int = 0  # how many launches narrowed it
    measured: bool = False  # a launch measured inside it
    at_probe: bool = False  # narrowed by a step at the eager-probe's limit
    at_threshold: bool = False  # narrowed by a step at a recorded threshold
    step_launch: list[SizePoint] | None = None  # THRESHOLD: the launch that showed the step
    absorbed: bool = False  # SUSPECT: its step is the one at the probe's limit
    held: bool = False  # THRESHOLD: its step narrowed a switch that holds it
    step: float = 0.0  # log of the time ratio across the gap in the launch that last narrowed it
    contested: bool = False  # a later launch measured inside it and shows less than half that step
    ends_only: bool = False  # examined by a launch that measured its two ends alone (``_step_not_seen``)

    def __post_init__(self) -> None:
        if self.now is None:
            self.now = self.given

    @classmethod
    def at(cls, kind: str, low: int, high: int, limit: int | None = None) -> "Bracket":
        return cls(kind, Breakpoint(low, high, low, high, LOCATION_CONFIDENCE), limit)

    @property
    def suspected(self) -> bool:
        """Not one of the sweep's breakpoints: it stands only once a launch shows its switch."""
        return self.kind != SWEEP

    @property
    def stands(self) -> bool:
        """A switch either side of which others are judged: the sweep's, or one a launch confirmed."""
        return not self.suspected or bool(self.narrowed)

    @property
    def holds_a_step_test(self) -> bool:
        return self.kind in (PROBE, THRESHOLD)

    def holds(self, size: int) -> bool:
        return self.now.low_bytes <= size < self.now.high_bytes

    def narrow(self, found: Breakpoint) -> None:
        self.now = found
        self.narrowed += 1

    def narrow_to_step(self, step: "Bracket") -> bool:
        """This switch narrowed to the step ``step`` showed inside it; False when no narrower."""
        narrower = _within(step.now, self.now)
        if narrower is None or narrower == self.now:
            return False
        self.now = narrower
        self.narrowed = max(self.narrowed, 1)
        return True


def located(breakpoints: Sequence[Breakpoint], launches: Sequence[Sequence[SizePoint]],
            tolerance: float = TOLERANCE, around: Sequence[tuple[int, int]] = (),
            anchor: int | None = None, thresholds: Sequence[int] = (),
            sweep: Sequence[SizePoint] = ()) -> Location:
    """Every breakpoint narrowed by each refinement launch in turn (in the order they were
    made: a later round measured inside what the earlier one left), and every suspect interval
    (``around``, from ``suspects``) turned into a breakpoint where a launch shows a switch in it.
    A launch judges a breakpoint only with its points between the neighbouring ones' best gaps,
    so one switch's step never moves another. ``anchor``: the eager-probe's limit; an interval
    that holds it and whose window shows no switch is tested for a step there (``step_at``).
    ``thresholds``: the last size before each switch the run's MPI settings name (a single-copy
    threshold set by a CVAR): a launch that measured both sides of one is tested for a step
    there, as at the probe's limit; a step becomes a switch, or narrows the one that holds it.
    ``sweep``: the sweep's points, whose step across a breakpoint's ends a launch that measured
    only the ends must show again (``_step_not_seen``)."""
    ends_of_sweep = {p.bytes: p for p in sweep}
    brackets = sorted([Bracket(SWEEP, b) for b in breakpoints] + [Bracket.at(SUSPECT, low, high) for low, high in around],
                      key=lambda k: (k.given.low_bytes, k.given.high_bytes))
    probe = None  # the eager-probe's limit: a switch the sweep may have merged with another, or missed
    if anchor is not None:
        probe = Bracket.at(PROBE, anchor, anchor + 1, anchor)
        brackets.append(probe)
    brackets += [Bracket.at(THRESHOLD, t, t + 1, t) for t in sorted(set(thresholds) - {anchor})]
    seen: ProbeStep | None = None
    beside: list[Breakpoint] = []  # switches found beside a step at a limit
    for pts in launches:
        for i, bracket in enumerate(brackets):
            near = _near(brackets, i, pts)
            if bracket.holds_a_step_test:
                seen = _test_the_step(bracket, near, pts, tolerance) or seen
            else:
                beside += _narrow(bracket, near, anchor, tolerance)
                if not bracket.measured and not bracket.suspected and _step_not_seen(bracket.now, near, ends_of_sweep):
                    bracket.measured = bracket.ends_only = True  # examined: its step is not there again
    if probe is not None and probe.narrowed:
        _absorb_into_the_probe(brackets, anchor)
    for step in (k for k in brackets if k.kind == THRESHOLD and k.narrowed):
        beside += _narrow_at_threshold(brackets, step, tolerance)
    for bp in beside:
        if not any(k.now.low_bytes < bp.high_bytes and bp.low_bytes < k.now.high_bytes for k in brackets if k.stands):
            brackets.append(Bracket(BESIDE, bp, narrowed=1, measured=True))
    kept = [k for k in brackets if k.stands and not k.held]
    if probe is not None and probe in kept:
        holding = [k for k in kept if k is not probe and k.holds(anchor)]
        if holding:  # the same switch, kept already: the step at the limit is where in it
            for k in holding:
                if k.narrow_to_step(probe):
                    k.at_probe = True
            kept.remove(probe)
    kept.sort(key=lambda k: (k.now.best_high_bytes, k.now.low_bytes))
    return Location(breakpoints=tuple(k.now for k in kept), narrowed=tuple(k.narrowed for k in kept),
                    found=tuple(k.suspected for k in kept), at_probe=tuple(k.at_probe for k in kept),
                    examined=tuple(k.now for k in kept if k.measured and not k.narrowed),
                    spikes=tuple((k.given.low_bytes, k.given.high_bytes) for k in brackets
                                 if k.kind in (SUSPECT, BESIDE) and k.measured and not k.narrowed and not k.absorbed),
                    probe=seen,
                    absorbed=tuple((k.given.low_bytes, k.given.high_bytes) for k in brackets if k.absorbed),
                    at_threshold=tuple(k.at_threshold for k in kept),
                    contested=tuple(k.now.best_high_bytes if k.contested else 0 for k in kept),
                    repeated_ends=tuple(k.now for k in kept if k.measured and not k.narrowed and k.ends_only))


def _near(brackets: list[Bracket], i: int, pts: Sequence[SizePoint]) -> list[SizePoint]:
    """The launch's points a bracket is judged with: between the neighbouring switches' best
    gaps (not suspects no launch has confirmed; for a step test, the sweep's switches on either
    side of its limit), so that one switch's step never moves another."""
    bracket = brackets[i]
    standing = [(j, k) for j, k in enumerate(brackets) if k.stands and not k.holds_a_step_test]
    if bracket.holds_a_step_test:
        sweeps = [k.now for _, k in standing if not k.suspected]
        floor = max((b.best_high_bytes for b in sweeps if b.best_high_bytes <= bracket.limit), default=-1)
        ceiling = min((b.best_low_bytes for b in sweeps if b.best_low_bytes > bracket.limit), default=math.inf)
    else:
        floor = max((k.now.best_high_bytes for j, k in standing if j < i), default=-1)
        ceiling = min((k.now.best_low_bytes for j, k in standing if j > i), default=math.inf)
    return sorted((p for p in pts if floor <= p.bytes <= ceiling), key=lambda p: p.bytes)


def _test_the_step(bracket: Bracket, near: list[SizePoint], pts: Sequence[SizePoint],
                   tolerance: float) -> ProbeStep | None:
    """A step at a probe's or threshold's limit, judged from one launch once (until it has one);
    what the launch showed at the probe's limit (None otherwise)."""
    if bracket.narrowed or (check := probe_step(near, bracket.limit, tolerance)) is None:
        return None
    bracket.measured = True
    if check.breakpoint is not None:
        bracket.narrow(check.breakpoint)
        if bracket.kind == PROBE:
            bracket.at_probe = True
        else:
            bracket.at_threshold = True
            bracket.step_launch = sorted(pts, key=lambda p: p.bytes)
    return check if bracket.kind == PROBE else None


def _step_not_seen(b: Breakpoint, near: Sequence[SizePoint], sweep: Mapping[int, SizePoint]) -> bool:
    """A launch that measured both ends of a sweep's switch interval (and nothing inside) shows
    less than half the sweep's step between them (as a ratio, so the launches' levels cancel): the
    step is not there again (a tester's quiet run: 16 B 1.00 and 32 B 1.34 µs in the sweep, 1.14
    and 1.17 µs in the refinement launch)."""
    ends = Breakpoint(b.low_bytes, b.high_bytes, b.low_bytes, b.high_bytes, b.confidence)
    mine = [p for p in near if p.bytes in (b.low_bytes, b.high_bytes)]
    swept = _log_step([sweep[x] for x in (b.low_bytes, b.high_bytes) if x in sweep], ends)
    return len(mine) == 2 and _less_than_half(_log_step(mine, ends), swept)


def _less_than_half(again: float | None, first: float | None) -> bool:
    """A launch's step (``again``, a log ratio) less than half ``first``'s, the same way or the other."""
    return again is not None and bool(first) and again / first < 0.5


def _narrow(bracket: Bracket, near: list[SizePoint], anchor: int | None, tolerance: float) -> list[Breakpoint]:
    """One launch's points inside a sweep's or suspect's interval: the switch located there (or,
    failing that, a step at the eager-probe's limit inside it), clipped to what earlier launches
    left. Returns other switches found beside such a step."""
    b = bracket.now
    inside = [p for p in near if b.low_bytes < p.bytes < b.high_bytes]
    if not inside:
        _contest(bracket, near)
        return []
    # the interval and SIDE sizes either side (the sizes the launch measured again beside
    # it): a knee farther off must not pass for a step inside
    window = ([p for p in near if p.bytes <= b.low_bytes][-SIDE:] + inside
              + [p for p in near if p.bytes >= b.high_bytes][:SIDE])
    bracket.measured = True
    beside: list[Breakpoint] = []
    # clipped: a later launch narrows what the earlier ones (or the sweep) said
    found = _within(locate_switch(window, b.low_bytes, b.high_bytes, tolerance), b)
    if found is None and anchor is not None and b.low_bytes <= anchor < b.high_bytes:
        found = _within(step_at(near, anchor, tolerance), b)
        bracket.at_probe = bracket.at_probe or found is not None
        if found is not None:  # the probe's step is one switch: the rest of the interval may hold another
            beside = _beside_the_limit(near, b, anchor, tolerance)
    if found is not None:
        bracket.narrow(found)
        bracket.step = _log_step(window, found) or 0.0
    else:
        _contest(bracket, near)
    return beside


def _contest(bracket: Bracket, near: Sequence[SizePoint]) -> None:
    """A launch after the one that located the switch, with sizes on both sides of its gap (inside
    it or at its ends) and less than half its step across it (as a ratio: the levels cancel)."""
    if bracket.narrowed and bracket.step:
        b = bracket.now
        again = _log_step([p for p in near if b.low_bytes <= p.bytes <= b.high_bytes], b)
        bracket.contested = bracket.contested or _less_than_half(again, bracket.step)


def _log_step(points: Sequence[SizePoint], b: Breakpoint) -> float | None:
    """log(time above / time below) across ``b``'s most likely gap, from the launch's nearest sizes
    at or below it and at or above it; None without both."""
    below = [p for p in points if p.bytes <= b.best_low_bytes and p.time_s > 0]
    above = [p for p in points if p.bytes >= b.best_high_bytes and p.time_s > 0]
    if not below or not above:
        return None
    return math.log(min(above, key=lambda p: p.bytes).time_s / max(below, key=lambda p: p.bytes).time_s)


def _absorb_into_the_probe(brackets: list[Bracket], anchor: int) -> None:
    """A suspect whose step was clipped at its interval's end next to the probe's step is that step."""
    near_lo, near_hi = anchor * 2 ** -NEAR_OCTAVES, (anchor + 1) * 2 ** NEAR_OCTAVES
    for k in brackets:
        if not k.suspected or k.kind == PROBE or not k.narrowed:
            continue
        if ((k.now.low_bytes == k.given.low_bytes and anchor < k.given.low_bytes <= near_hi)
                or (k.now.high_bytes == k.given.high_bytes and near_lo <= k.given.high_bytes <= anchor)):
            k.narrowed = 0
            k.absorbed = True


def _narrow_at_threshold(brackets: list[Bracket], step: Bracket, tolerance: float) -> list[Breakpoint]:
    """Each standing switch that holds a threshold whose step a launch showed: the step is where
    in it (and the threshold is no switch of its own). Returns other switches found beside the
    step, each side of it judged alone."""
    beside: list[Breakpoint] = []
    for k in brackets:
        if k.holds_a_step_test or not k.stands or not k.holds(step.limit):
            continue
        step.held = True
        before = k.now
        if k.narrow_to_step(step):
            beside += _beside_the_limit(step.step_launch, before, step.limit, tolerance)
            k.at_threshold = True
    return beside
