"""A regime between two of the MPI's thresholds: consecutive sizes off the model between them are
one protocol (MPICH's default: rendezvous through shared-memory cells between its eager limit and
its single-copy threshold), which gets a segment of its own rather than a row of spikes.

The thresholds are those the run knows (the eager-probe's limit, the MPI's thresholds set in the
launch environment or reported through MPI_T for the transport in use): each is the last size of
the old regime. Where at least ``MIN_RUN`` consecutive measured sizes in (lower, upper] stand off
the piecewise model (anomalies.find_anomalies), the model is fitted again with a breakpoint at
each of the two thresholds it does not already have (between the measured sizes around it), and
kept when every segment still has its line (piecewise.relocated) and the run's sizes fit their own
segment: no longer off it. Otherwise the fit is left as it was and the sizes stay anomalies. Pure.
"""

from __future__ import annotations

from typing import Sequence

from msgperf.analysis.model.anomalies import find_anomalies
from msgperf.analysis.model.piecewise import LOCATION_CONFIDENCE, Breakpoint, PiecewiseFit, relocated
from msgperf.analysis.model.points import SizePoint

MIN_RUN = 2  # one size off alone is a spike (the Cisco blog's deferred ACK), two in a row a regime


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


def regime_between(fit: PiecewiseFit, points: Sequence[SizePoint], thresholds: Sequence[int],
                   confidence: float = 0.95) -> tuple[PiecewiseFit, tuple[tuple[int, int], ...]]:
    """``fit`` with a segment for each run of sizes off it between two thresholds, and the
    (lower, upper] thresholds of each regime it gave a segment; ``fit`` itself and () when none."""
    pts = sorted(points, key=lambda p: p.bytes)
    sizes = [p.bytes for p in pts]
    bounds = sorted(set(thresholds))
    made: list[tuple[int, int]] = []
    for lower, upper in zip(bounds, bounds[1:]):
        off = {a.bytes for a in find_anomalies(pts, fit)}
        inside = [s for s in sizes if lower < s <= upper]
        run = _longest_run(inside, off)
        if len(run) < MIN_RUN:
            continue
        added = []
        for t in (lower, upper):
            if any(b.low_bytes <= t < b.high_bytes for b in fit.breakpoints):
                continue
            bp = _at(t, sizes)
            if bp is not None:
                added.append(bp)
        if not added:
            continue
        tried = relocated(fit, pts, pts, [*fit.breakpoints, *added], confidence,
                          included=[s for s in run if s in fit.excluded_bytes])
        if tried is None:
            continue
        still = {a.bytes for a in find_anomalies(pts, tried)}
        if any(s in still for s in run):
            continue
        fit = tried
        made.append((lower, upper))
    return fit, tuple(made)
