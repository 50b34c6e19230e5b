"""A regime between two of the MPI's thresholds: consecutive sizes off the model between them are
one protocol (MPICH's default: rendezvous through shared-memory cells between its eager limit and
its single-copy threshold), which gets a segment of its own rather than a row of spikes.

The thresholds are those the run knows (the eager-probe's limit, the MPI's thresholds set in the
launch environment or reported through MPI_T for the transport in use): each is the last size of
the old regime. Where at least ``MIN_RUN`` consecutive measured sizes in (lower, upper] stand off
the piecewise model (anomalies.find_anomalies), the model is fitted again with a breakpoint at
each of the two thresholds it does not already have (between the measured sizes around it), any
breakpoint it placed between them dropped (a step inside one protocol's regime is how a model
that had no breakpoint at the thresholds bent around it), and kept when every segment still has
its line (piecewise.relocated), the run's sizes fit their own segment (no longer off it) and no
other size stands off it that did not before. A regime that keeps too few sizes for a line (the
default MPICH's is 79 bytes wide: a sweep and its refinement measure two or three sizes in it)
becomes one breakpoint across it, from the last size before it to the first after it (the two
switches and the regime between them, its sizes left out of the lines), and is said as such
(``Narrow``): its sizes are that regime, not spikes. Pure.
"""

from __future__ import annotations

from typing import Sequence

import msgspec

from msgperf.analysis.model.anomalies import find_anomalies
from msgperf.analysis.model.piecewise import LOCATION_CONFIDENCE, MIN_POINTS, Breakpoint, PiecewiseFit, relocated
from msgperf.analysis.model.points import SizePoint
from msgperf.values import Value

MIN_RUN = 2  # one size off alone is a spike (the Cisco blog's deferred ACK), two in a row a regime


class Narrow(Value):
    """A regime between two thresholds with sizes off the model and too few of them for a line."""

    lower: int  # the thresholds: the last size of the regime below it, and of this one
    upper: int
    sizes: tuple[int, ...]  # its measured sizes (left out of the lines)


def _longest_run(sizes: Sequence[int], off: set[int]) -> list[int]:
    best: list[int] = []
    current: list[int] = []
    for s in sizes:
        current = current + [s] if s in off else []
        if len(current) > len(best):
            best = current
    return best


def _at(threshold: int, sizes: Sequence[int]) -> Breakpoint | None:
    """A breakpoint between the measured sizes around a threshold (its last old size)."""
    below = [s for s in sizes if s <= threshold]
    above = [s for s in sizes if s > threshold]
    if not below or not above:
        return None
    return Breakpoint(below[-1], above[0], below[-1], above[0], LOCATION_CONFIDENCE)


def _spanned(fit: PiecewiseFit, pts: Sequence[SizePoint], sizes: Sequence[int], lower: int, upper: int,
             inside: Sequence[int], off: set[int], confidence: float) -> PiecewiseFit:
    """``fit`` with one breakpoint across a regime too narrow for a line, from the last measured
    size at or below ``lower`` to the first above ``upper`` (the two switches and the regime
    between them), its sizes left out of the lines, in place of the breakpoints that met it; ``fit``
    itself where the sides would lose their lines or another size would stand off the model."""
    below = [s for s in sizes if s <= lower]
    above = [s for s in sizes if s > upper]
    if not below or not above:
        return fit
    span = Breakpoint(below[-1], above[0], below[-1], above[0], LOCATION_CONFIDENCE)
    kept = [b for b in fit.breakpoints if not (b.low_bytes < span.high_bytes and span.low_bytes < b.high_bytes)]
    left_out = msgspec.structs.replace(fit, excluded_bytes=tuple(sorted({*fit.excluded_bytes, *inside})))
    tried = relocated(left_out, pts, pts, [*kept, span], confidence)
    if tried is None or {a.bytes for a in find_anomalies(pts, tried)} - off - set(inside):
        return fit
    return tried


def regime_between(fit: PiecewiseFit, points: Sequence[SizePoint], thresholds: Sequence[int],
                   confidence: float = 0.95) -> tuple[PiecewiseFit, tuple[tuple[int, int], ...], tuple[Narrow, ...]]:
    """``fit`` with a segment for each run of sizes off it between two thresholds, the (lower,
    upper] thresholds of each regime it gave a segment, and the regimes whose sizes are off the
    model but could not have one (``Narrow``); ``fit`` itself, () and () when there are none."""
    pts = sorted(points, key=lambda p: p.bytes)
    sizes = [p.bytes for p in pts]
    bounds = sorted(set(thresholds))
    made: list[tuple[int, int]] = []
    narrow: list[Narrow] = []
    for lower, upper in zip(bounds, bounds[1:]):
        off = {a.bytes for a in find_anomalies(pts, fit)}
        inside = [s for s in sizes if lower < s <= upper]
        run = _longest_run(inside, off)
        if len(run) < MIN_RUN:
            continue
        if len(inside) < MIN_POINTS:  # a segment between the thresholds would have no line
            spanned = _spanned(fit, pts, sizes, lower, upper, inside, off, confidence)
            if spanned is not fit:  # else its sizes stay what the model makes of them
                fit = spanned
                narrow.append(Narrow(lower, upper, tuple(inside)))
            continue
        kept = [b for b in fit.breakpoints if not (lower < b.low_bytes and b.high_bytes <= upper)]
        added = []
        for t in (lower, upper):
            if any(b.low_bytes <= t < b.high_bytes for b in kept):
                continue
            bp = _at(t, sizes)
            if bp is not None:
                added.append(bp)
        if not added and len(kept) == len(fit.breakpoints):
            continue
        tried = relocated(fit, pts, pts, [*kept, *added], confidence,
                          included=[s for s in run if s in fit.excluded_bytes])
        still = set() if tried is None else {a.bytes for a in find_anomalies(pts, tried)}
        if tried is None or any(s in still for s in run) or still - off:
            continue
        fit = tried
        made.append((lower, upper))
    return fit, tuple(made), tuple(narrow)
