"""Where to measure next so that a switch is located, not just bracketed.

A sweep of ratio-2 sizes leaves each breakpoint of the model somewhere in (low, high] bytes
between two measured sizes, an octave or more wide: "between 8 and 32 KiB" says little about an
eager limit at 16 KiB less a header. After the sweep, ``msgperf run`` measures extra sizes
inside every breakpoint interval of the main pattern wider than ``TARGET_OCTAVES`` and fits
again; a round places ``POINTS`` sizes evenly on a log scale, so one round narrows an octave to
at most an eighth of one wherever the data are clear, and the next round bisects what the
noise left wide. Each size is offset by ``PERTURB_BYTES`` bytes, alternately up and down, as
NetPIPE perturbs its sizes: refined sizes do not all sit on powers of two, where page and
cache boundaries line up with the size and can fake or hide a switch.

Where the run's eager-probe measured the eager limit E inside an interval, or the launch
environment set a threshold to the byte (a single-copy threshold T: E = T - 1), the round also
measures ``ANCHOR_SIDE`` sizes on each side of it, E itself and E + 1 included, within
``ANCHOR_OCTAVES`` of it (past the interval's end where it lies near one): the switch the probe names is then located at (E, E + 1] when that
launch shows a step there (analysis/model/switch_location.py, ``step_at``), even where the bandwidth
regime bends too much past it for two lines over the wider window to tell a step from a spike.

The interval refined is the model's own (``Breakpoint.low_bytes``, ``high_bytes``: every gap
whose fit is not significantly worse than the best one), so refinement stops where the data
stop being able to say more, not where a rule of thumb does.
"""

from __future__ import annotations

import math
from typing import Sequence

from msgperf.analysis.result import RunResult
from msgperf.analysis.model import SIDE
from msgperf.values import Value

TARGET_OCTAVES = 1 / 8  # stop when the interval is at most this wide: high/low <= 2^(1/8)
POINTS = 7  # sizes per interval and round: eighths of an octave across one octave
PERTURB_BYTES = 3  # NetPIPE's perturbation
MIN_WIDTH_BYTES = 32  # an interval narrower than this (in bytes) is located well enough
CONTEXT = SIDE  # measured sizes on each side of an interval that a refinement launch measures again
ANCHOR_SIDE = 3  # sizes on each side of the eager-probe's limit, E and E + 1 included
ANCHOR_OCTAVES = 1 / 16  # ... spread over this much of an octave on each side


class Bracket(Value):
    """A breakpoint of one series as the sweep left it: somewhere in (low_bytes, high_bytes]."""

    series: str  # "pingpong", "pingpong (inter-node)"
    low_bytes: int
    high_bytes: int
    suspect: bool = False  # not a breakpoint: the sizes around one that stands off the model alone
    probe: bool = False  # ... or around the eager-probe's limit (or a threshold set to the byte), where no breakpoint interval lies
    threshold: bool = False  # ... that limit is a threshold the MPI was set to, not the probe's

    @property
    def octaves(self) -> float:
        """How wide, in octaves (log2 of high / low); infinite when low is 0."""
        return math.log2(self.high_bytes / self.low_bytes) if self.low_bytes > 0 else math.inf

    @property
    def located(self) -> bool:
        return (self.octaves <= TARGET_OCTAVES + 1e-9
                or self.high_bytes - self.low_bytes <= MIN_WIDTH_BYTES)


class RefinementStep(Value):
    """The next launch of a refinement: one pattern, the sizes to add, and why."""

    pattern: str
    brackets: tuple[Bracket, ...]  # the intervals still too wide
    sizes: tuple[int, ...]  # what the launch measures, ascending: ``new`` and ``context``
    new: tuple[int, ...] = ()  # sizes inside the intervals, none measured before
    context: tuple[int, ...] = ()  # measured sizes either side, measured again in the same launch


def sizes_inside(low: int, high: int) -> list[int]:
    """``POINTS`` sizes strictly inside (low, high), evenly spaced on a log scale (linearly
    when low is 0), each offset by ``PERTURB_BYTES`` alternately up and down."""
    found = []
    for k in range(1, POINTS + 1):
        f = k / (POINTS + 1)
        centre = low * (high / low) ** f if low > 0 else high * f
        size = round(centre) + (PERTURB_BYTES if k % 2 else -PERTURB_BYTES)
        if low < size < high:
            found.append(size)
    return sorted(set(found))


def anchored_sizes(anchor: int, low: int, high: int) -> list[int]:
    """``ANCHOR_SIDE`` sizes at and below the eager limit ``anchor`` and as many from ``anchor`` + 1
    up, evenly spread over ``ANCHOR_OCTAVES`` on each side, those strictly inside (low, high)."""
    step = max(1, round(anchor * (2 ** (ANCHOR_OCTAVES / max(ANCHOR_SIDE - 1, 1)) - 1)))
    found = [anchor - k * step for k in range(ANCHOR_SIDE)] + [anchor + 1 + k * step for k in range(ANCHOR_SIDE)]
    return sorted(s for s in set(found) if low < s < high)


def probe_anchor(result: RunResult) -> int | None:
    """The largest size the eager-probe saw sent eagerly, when it also saw one wait (a limit exists)."""
    return result.eager.switch_bytes if result.eager is not None and result.eager.agreed else None


def anchors(result: RunResult) -> tuple[int, ...]:
    """Every size after which the run says a switch lies: the probe's limit and the thresholds
    the launch environment set to the byte (result.threshold_anchors)."""
    probe = probe_anchor(result)
    return tuple(sorted({*(() if probe is None else (probe,)), *result.thresholds}))


def brackets(result: RunResult) -> tuple[Bracket, ...]:
    """Every breakpoint interval of the main pattern's series (each placement's), in order, and
    the interval around each size that stands off the model alone (a switch the sweep may have
    taken for a spike; analysis/model/switch_location.py)."""
    if result.main is None:
        return ()
    pattern = result.main.key.pattern
    found = []
    for series in result.series:
        if series.key.pattern != pattern or series.key.variant != result.main.key.variant or series.model is None:
            continue
        for b in series.model.sweep.piecewise.breakpoints:
            found.append(Bracket(series.name, b.low_bytes, b.high_bytes))
        for low, high in series.model.sweep.suspects:
            found.append(Bracket(series.name, low, high, suspect=True))
        sizes = [p.bytes for p in series.model.sweep.points]
        probe = probe_anchor(result)
        for anchor in anchors(result):
            if sizes and min(sizes) <= anchor < max(sizes) and not any(
                    b.low_bytes <= anchor < b.high_bytes for b in found if b.series == series.name):
                # the switch the probe (or a threshold) names, which the sweep merged with another or did not see
                below = max(s for s in sizes if s <= anchor)
                above = min(s for s in sizes if s > anchor)
                found.append(Bracket(series.name, below, above, suspect=True, probe=True, threshold=anchor != probe))
    return tuple(found)


def context_sizes(bracket: Bracket, sweep: set[int]) -> list[int]:
    """The ``CONTEXT`` sizes of ``sweep`` nearest the interval at or below it and at or above it: measured
    again in the refinement launch, they put that launch on the sweep's level (launches differ;
    analysis/launches/launch_alignment.py) and give each side of the switch points of the same launch."""
    below = sorted(s for s in sweep if s <= bracket.low_bytes)[-CONTEXT:]
    above = sorted(s for s in sweep if s >= bracket.high_bytes)[:CONTEXT]
    return below + above


def next_step(result: RunResult, measured: set[int], sweep: set[int] | None = None,
              keep: Sequence[Bracket] | None = None) -> RefinementStep | None:
    """The launch that narrows the main pattern's wide breakpoint intervals, or None when every
    one is located (or there are none, or nothing new fits inside them). ``measured``: every size
    measured so far; ``sweep``: the sizes the anchors are taken from, measured again beside each
    interval (the plan's and the main pattern's refined ones; default: ``measured``); ``keep``:
    only these intervals (a round with time for part of them: ``by_priority``)."""
    wide = tuple(b for b in brackets(result) if (b.suspect or not b.located) and (keep is None or b in keep))
    inside = {s for b in wide for s in sizes_inside(b.low_bytes, b.high_bytes)}
    for anchor in anchors(result):
        if any(b.low_bytes <= anchor < b.high_bytes for b in wide):
            # both sides of the limit, even past the interval's end: the step test needs 3 sizes a side
            inside |= set(anchored_sizes(anchor, 0, 2 * anchor + 2))
    new = sorted(inside - measured)
    if not new:
        return None
    context = sorted({s for b in wide for s in context_sizes(b, measured if sweep is None else sweep)})
    return RefinementStep(pattern=result.main.key.pattern, brackets=wide, sizes=tuple(sorted(set(new) | set(context))),
                          new=tuple(new), context=tuple(context))


def by_priority(result: RunResult, wide: Sequence[Bracket]) -> list[Bracket]:
    """The order in which a round short of time takes intervals: those that hold a limit the run
    measured or was set to (the eager-probe's, a threshold: located to the byte by a few small
    sizes, and what the answer names), then the smallest (small sizes cost microseconds, the
    largest milliseconds a sample)."""
    held = anchors(result)
    return sorted(wide, key=lambda b: (not any(b.low_bytes <= a < b.high_bytes for a in held), b.low_bytes))
