"""Many pairs at once: the contention sweep of ``pairs`` (1, 2, 4 ... P/2 concurrent pairs) and
the all-pairs map of ``matrix`` (every ordered rank pair). A pair's time is its slower rank's
median one-way time, as the kernels record it (``pair_median_s``). Where the record keeps each
pair's samples (``pair_samples_s``), each pair also gets its spread, p95/p50 of its own samples:
a pair whose typical time is fine but whose samples straggle (a core shared with other work, an
interrupt-laden core) shows there, and the slowest pairs and ranks of a matrix are named. Pure."""

from __future__ import annotations

import math
from typing import Mapping, Sequence

import msgspec
import numpy as np

from msgperf.analysis.samples import PairSpread
from msgperf.analysis.tables.size_rows import SizeRow
from msgperf.values import Value

SLOWEST_LISTED = 3  # the slowest pairs a matrix names per size


class SlowPair(Value):
    pair: tuple[int, int]
    time_s: float  # the grid's time of the pair
    times_typical: float  # time / the median of every pair's time at this size
    spread: float | None  # its p95/p50, None without per-pair samples


class ContentionCell(Value):
    active_pairs: int
    slowest_s: float
    fastest_s: float
    slowdown: float | None  # slowest pair / one pair alone at the same size
    pairs: tuple[tuple[int, int], ...]
    pair_times_s: tuple[float, ...]
    spreads: tuple[PairSpread, ...] = ()  # each pair's spread (older files: ())

    @property
    def widest(self) -> PairSpread | None:
        """The pair whose samples spread most at this step."""
        return max(self.spreads, key=lambda s: s.spread, default=None)


class ContentionRow(Value):
    bytes: int
    cells: tuple[ContentionCell, ...]  # by active pairs, ascending


class Contention(Value):
    """The step x size table of ``pairs``."""

    steps: tuple[int, ...]  # the numbers of concurrent pairs measured
    rows: tuple[ContentionRow, ...]

    def worst_slowdown(self) -> float | None:
        values = [c.slowdown for r in self.rows for c in r.cells if c.slowdown is not None]
        return max(values) if values else None


class MatrixGrid(Value):
    """Every ordered pair at one size: one-way time (0 B) or bandwidth (bytes / one-way time)."""

    bytes: int
    ranks: tuple[int, ...]
    times_s: Mapping[tuple[int, int], float]  # (initiator, responder) -> one-way time
    hosts: Mapping[int, str]  # rank -> host, to mark host boundaries
    spreads: Mapping[tuple[int, int], PairSpread] = msgspec.field(default_factory=dict)  # older files: {}
    slowest: tuple[SlowPair, ...] = ()  # the SLOWEST_LISTED slowest pairs, slowest first
    # Each rank's typical pair: the median time of the pairs it takes part in, over the median pair
    rank_ratios: Mapping[int, float] = msgspec.field(default_factory=dict)

    def spread(self, a: int, b: int) -> float | None:
        s = self.spreads.get((a, b))
        return None if s is None else s.spread

    @property
    def slowest_rank(self) -> tuple[int, float] | None:
        """The rank whose pairs are slowest, with its ratio (a slow core shows in every pair of its rank)."""
        if not self.rank_ratios:
            return None
        rank = max(self.rank_ratios, key=lambda r: self.rank_ratios[r])
        return rank, self.rank_ratios[rank]

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
            max(times) / base if base and base > 0 and math.isfinite(base) else None, pairs, times,
            r.pair_spreads))
    steps = tuple(sorted({c.active_pairs for cells in by_size.values() for c in cells}))
    return Contention(steps, tuple(ContentionRow(size, tuple(sorted(cells, key=lambda c: c.active_pairs)))
                                   for size, cells in sorted(by_size.items())))


def matrices(rows: Sequence[SizeRow], hosts: Mapping[int, str]) -> tuple[MatrixGrid, ...]:
    cells: dict[int, dict[tuple[int, int], float]] = {}
    spreads: dict[int, dict[tuple[int, int], PairSpread]] = {}
    for r in rows:
        if r.pattern != "matrix":
            continue
        for (a, b), t in zip(r.extra.get("pairs", []), r.extra.get("pair_median_s", [])):
            cells.setdefault(r.bytes, {})[(int(a), int(b))] = float(t)
        for s in r.pair_spreads:
            spreads.setdefault(r.bytes, {})[s.pair] = s
    out = []
    for size, times in sorted(cells.items()):
        ranks = tuple(sorted({a for a, _ in times} | {b for _, b in times}))
        spread = spreads.get(size, {})
        typical = float(np.median(list(times.values())))
        slowest = tuple(SlowPair(pair, t, t / typical if typical > 0 else math.nan,
                                 spread[pair].spread if pair in spread else None)
                        for pair, t in sorted(times.items(), key=lambda kv: -kv[1])[:SLOWEST_LISTED])
        ratios = {rank: float(np.median([t for (a, b), t in times.items() if rank in (a, b)])) / typical
                  for rank in ranks} if typical > 0 else {}
        out.append(MatrixGrid(size, ranks, dict(times), dict(hosts), dict(spread), slowest, ratios))
    return tuple(out)
