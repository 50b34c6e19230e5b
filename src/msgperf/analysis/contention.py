"""Many pairs at once: the contention sweep of ``pairs`` (1, 2, 4 ... P/2 concurrent pairs) and
the all-pairs map of ``matrix`` (every ordered rank pair). A pair's time is its slower rank's
median one-way time, as the kernels record it (``pair_median_s``). Pure."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

from msgperf.analysis.size_rows import SizeRow


@dataclass(frozen=True)
class ContentionCell:
    active_pairs: int
    slowest_s: float
    fastest_s: float
    slowdown: float | None  # slowest pair / one pair alone at the same size
    pairs: tuple[tuple[int, int], ...]
    pair_times_s: tuple[float, ...]


@dataclass(frozen=True)
class ContentionRow:
    bytes: int
    cells: tuple[ContentionCell, ...]  # by active pairs, ascending


@dataclass(frozen=True)
class Contention:
    """The step x size table of ``pairs``."""

    steps: tuple[int, ...]  # the numbers of concurrent pairs measured
    rows: tuple[ContentionRow, ...]

    def worst_slowdown(self) -> float | None:
        values = [c.slowdown for r in self.rows for c in r.cells if c.slowdown is not None]
        return max(values) if values else None


@dataclass(frozen=True)
class MatrixGrid:
    """Every ordered pair at one size: one-way time (0 B) or bandwidth (bytes / one-way time)."""

    bytes: int
    ranks: tuple[int, ...]
    times_s: Mapping[tuple[int, int], float]  # (initiator, responder) -> one-way time
    hosts: Mapping[int, str]  # rank -> host, to mark host boundaries

    def value(self, a: int, b: int) -> float | None:
        """bandwidth (bytes/s) above 0 B, else the time (s); None for an unmeasured pair."""
        t = self.times_s.get((a, b))
        if t is None:
            return None
        return self.bytes / t if self.bytes > 0 else t

    @property
    def quantity(self) -> str:
        return "bandwidth" if self.bytes > 0 else "time"


def contention(rows: Sequence[SizeRow]) -> Contention | None:
    found = [r for r in rows if r.pattern == "pairs" and r.extra.get("pair_median_s")]
    if not found:
        return None
    by_size: dict[int, list[ContentionCell]] = {}
    alone = {r.bytes: max(map(float, r.extra["pair_median_s"])) for r in found
             if len(r.extra["pair_median_s"]) == 1}
    for r in found:
        times = tuple(float(x) for x in r.extra["pair_median_s"])
        pairs = tuple((int(a), int(b)) for a, b in r.extra.get("pairs", []))
        base = alone.get(r.bytes)
        by_size.setdefault(r.bytes, []).append(ContentionCell(
            len(times), max(times), min(times),
            max(times) / base if base and base > 0 and math.isfinite(base) else None, pairs, times))
    steps = tuple(sorted({c.active_pairs for cells in by_size.values() for c in cells}))
    return Contention(steps, tuple(ContentionRow(size, tuple(sorted(cells, key=lambda c: c.active_pairs)))
                                   for size, cells in sorted(by_size.items())))


def matrices(rows: Sequence[SizeRow], hosts: Mapping[int, str]) -> tuple[MatrixGrid, ...]:
    cells: dict[int, dict[tuple[int, int], float]] = {}
    for r in rows:
        if r.pattern != "matrix":
            continue
        for (a, b), t in zip(r.extra.get("pairs", []), r.extra.get("pair_median_s", [])):
            cells.setdefault(r.bytes, {})[(int(a), int(b))] = float(t)
    out = []
    for size, times in sorted(cells.items()):
        ranks = tuple(sorted({a for a, _ in times} | {b for _, b in times}))
        out.append(MatrixGrid(size, ranks, dict(times), dict(hosts)))
    return tuple(out)
