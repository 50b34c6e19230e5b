"""Patterns measured in one run, compared size by size: the send modes and non-blocking forms
against the blocking ping-pong, one-way against bidirectional bandwidth, the two variants of a
pattern (expected vs unexpected receive, direct vs packed), the tools' compatibility modes, MPI
against the shared-memory floor, and the synchronised exchange's barrier.

Every value is a median of ``size_rows`` (pooled over launches); a difference of two medians
carries the interval [low_b - high_a, high_b - low_a] from the two medians' own intervals (each
95 %, so the difference's covers at least 90 %: conservative, no independence assumed). Pure.
"""

from __future__ import annotations

import math
from typing import Sequence

from msgperf import units
from msgperf.analysis.tables.catalog_view import PatternFacts
from msgperf.analysis.tables.eager import protocol_at
from msgperf.analysis.tables.size_rows import SizeRow
from msgperf.values import Value


class Cell(Value):
    value: float | None  # seconds or bytes/s; None when the size was not measured
    ratio: float | None  # value / the reference column's value at the same size
    # the ratio's interval from the two medians' own intervals (conservative: low/high against
    # high/low); None when either side has none
    ratio_ci: tuple[float, float] | None = None
    # why the ratio is no finding ("" when it is one): it breaks a physical bound (BIDIRECTIONAL_BOUND)
    why_not: str = ""


# Two directions at once move at most twice what one direction moves: where bandwidth dominates
# (the ping-pong's regime, model/regimes.py: β·b above α), a bidirectional pattern's bandwidth is
# at most 2x the one-way ping-pong's at the same size. A ratio whose whole interval lies above
# this (or, without an interval, whose value does) is "cannot tell", not a finding (a loaded run
# printed sendrecv at 5.41x). Where latency dominates there is no such bound: an exchange's
# per-message overheads overlap (quiet runs measured 2.02-2.13x at 16-256 B).
BIDIRECTIONAL_BOUND = 2.0


def ratio_interval(a: SizeRow, ref: SizeRow, scale: float = 1.0) -> tuple[float, float] | None:
    """The interval of scale·a/ref from both rows' intervals (low over high, high over low: each
    95 %, so the ratio's covers at least 90 %, no independence assumed)."""
    ia, ir = a.interval, ref.interval
    if ia is None or ir is None or None in (ia.low, ia.high, ir.low, ir.high) or not (ir.low > 0 and ia.low > 0):
        return None
    return scale * ia.low / ir.high, scale * ia.high / ir.low


def bound_breach(ratio: float | None, ratio_ci: tuple[float, float] | None, bound: float, what: str) -> str:
    """"" when ``ratio`` may lie within ``bound``, else the reason it cannot be a finding."""
    if ratio is None or not math.isfinite(ratio):
        return ""
    if ratio_ci is not None:
        if ratio_ci[0] <= bound:
            return ""
        return f"{what} at {ratio:.3g}× [{ratio_ci[0]:.3g}–{ratio_ci[1]:.3g}×], above the {bound:g}× two directions allow"
    if ratio <= bound:
        return ""
    return f"{what} at {ratio:.3g}× with no interval, above the {bound:g}× two directions allow"


class ColumnsRow(Value):
    bytes: int
    cells: tuple[Cell, ...]


class ColumnsTable(Value):
    """One quantity of several patterns side by side."""

    kind: str  # "send_modes" (one-way time) or "bidirectional" (bandwidth)
    quantity: str  # "time" or "bandwidth"
    columns: tuple[str, ...]  # pattern names
    reference: int | None  # index of the column the ratios are taken against
    rows: tuple[ColumnsRow, ...]


class Difference(Value):
    value_s: float  # b - a
    low_s: float | None  # interval of the difference (None: a side has no interval)
    high_s: float | None

    @property
    def measurable(self) -> bool | None:
        """Whether the interval excludes 0 (None when there is no interval)."""
        if self.low_s is None or self.high_s is None:
            return None
        return not (self.low_s <= 0 <= self.high_s)


def difference(a: SizeRow, b: SizeRow) -> Difference:
    """b - a with the interval from both rows' own intervals (each row's interval covers what
    its launches cover: within one launch, or across them)."""
    ia, ib = a.interval, b.interval
    if ia is None or ib is None or ia.low is None or ib.low is None:
        return Difference(b.time_s - a.time_s, None, None)
    return Difference(b.time_s - a.time_s, ib.low - ia.high, ib.high - ia.low)


class PairRow(Value):
    bytes: int
    a_s: float
    b_s: float
    difference: Difference
    ratio: float  # b / a
    regime: str  # "eager" or "rendezvous" when the run measured the eager limit, else ""
    ratio_ci: tuple[float, float] | None = None  # of b / a, from both medians' intervals (None: a side has none)


class VariantPair(Value):
    """Two variants of one pattern: unexpected (preposted, late), pack (direct, packed)."""

    pattern: str
    a: str
    b: str
    metric: str
    rows: tuple[PairRow, ...]
    eager_limit_bytes: int | None  # the split between the rows' regimes, when measured

    @property
    def b_faster_bytes(self) -> tuple[int, ...]:
        """The sizes sent eagerly (or of an unknown regime) where b was measurably faster than a (the
        interval of b - a wholly below 0): a late receive faster than a pre-posted one shows no
        buffered copy. Rendezvous sizes are buffered by nobody and are left out."""
        return tuple(r.bytes for r in self.rows if r.regime != "rendezvous"
                     and r.difference.high_s is not None and r.difference.high_s < 0)


class CompatRow(Value):
    pattern: str
    bytes: int
    mean_s: float  # the tools print the mean
    bandwidth_bytes_per_s: float | None  # bytes x flows / mean
    messages_per_s: float  # flows / mean


class FloorRow(Value):
    bytes: int
    floor_s: float
    pingpong_s: float | None
    ratio: float | None  # MPI / floor; None when the floor breaks its rule (cannot_tell)
    floor_low_s: float | None = None  # the floor's interval, lower end (None: no interval)
    cannot_tell: str = ""  # why the ratio is not a finding: the floor is not below the MPI time
    floor_high_s: float | None = None  # the floor's interval, upper end (None: no interval)
    ratio_ci: tuple[float, float] | None = None  # of MPI / floor, from both medians' intervals


def floor_above(floor_s: float, floor_low_s: float | None, mpi_s: float, mpi_high_s: float | None,
                what: str = "the MPI time") -> str:
    """The floor's rule: a floor lies below the MPI time it divides, within both intervals. The
    reason it cannot be told when the floor's lower end is above the MPI time's upper end; "" when it holds."""
    low = floor_low_s if floor_low_s is not None and math.isfinite(floor_low_s) else floor_s
    high = mpi_high_s if mpi_high_s is not None and math.isfinite(mpi_high_s) else mpi_s
    if not low > high:
        return ""
    return (f"the floor, {units.seconds(floor_s)}, is above {what}, {units.seconds(mpi_s)}, beyond their intervals: "
            "a floor measured while the pair was disturbed (sharing a core, a busy machine)")


class OverlapRow(Value):
    bytes: int
    comm_s: float
    compute_s: float
    both_s: float
    hidden: float  # (comm + compute - both) / comm, clipped to [0, 1]


class BarrierRow(Value):
    bytes: int
    plain_s: float
    synchronised_s: float
    cost: Difference  # synchronised - plain: what the barrier costs
    ratio: float
    ratio_ci: tuple[float, float] | None  # of synchronised / plain, from both medians' intervals
    # why the cost is no finding ("" when it is one): a barrier added to the same exchange cannot
    # save time, so a cost below 0 beyond its interval (or without one) is a disturbed measurement
    why_not: str = ""


def barrier_why_not(cost: Difference) -> str:
    """"" unless the barrier's cost is negative beyond its interval (or negative with none)."""
    below = cost.high_s < 0 if cost.high_s is not None and cost.low_s is not None else cost.value_s < 0
    if not below:
        return ""
    return ("the synchronised exchange measured faster than the plain one"
            + (" beyond its interval" if cost.high_s is not None else " (no interval)")
            + ": a barrier cannot save time, so one of the two was disturbed")


def index(rows: Sequence[SizeRow]) -> dict[tuple[str, str, int], SizeRow]:
    """(pattern, variant, bytes) -> the first row, separate buffers preferred."""
    out: dict[tuple[str, str, int], SizeRow] = {}
    for r in sorted(rows, key=lambda r: r.buffer != "separate"):
        out.setdefault((r.pattern, r.variant, r.bytes), r)
    return out


def _ratio(x: float | None, ref: float | None) -> float | None:
    if x is None or ref is None or not (ref > 0) or not math.isfinite(x):
        return None
    return x / ref


def _patterns(rows: Sequence[SizeRow]) -> list[str]:
    return list(dict.fromkeys(r.pattern for r in rows))


def _sizes(rows: Sequence[SizeRow], patterns: Sequence[str]) -> list[int]:
    return sorted({r.bytes for r in rows if r.pattern in patterns})


def _compared(cells: Sequence[Cell]) -> bool:
    """Whether a row compares anything: two of its patterns measured the size (a size only one
    measured, as a refinement launch's sizes around a switch, has nothing beside it)."""
    return sum(c.value is not None for c in cells) >= 2


def send_modes(rows: Sequence[SizeRow], facts: dict[str, PatternFacts]) -> ColumnsTable | None:
    """Every one-way ping-pong form (family "pingpong") against the blocking ``pingpong``."""
    present = [p for p in _patterns(rows) if p in facts and facts[p].metric == "one_way"
               and (facts[p].family == "pingpong" or (not facts[p].family and p.startswith("pingpong")))]
    if len(present) < 2:
        return None
    idx = index(rows)
    ref = present.index("pingpong") if "pingpong" in present else None
    out = []
    for size in _sizes(rows, present):
        base = idx.get(("pingpong", "", size))
        cells = []
        for p in present:
            r = idx.get((p, "", size))
            value = r.time_s if r else None
            ratio = None if p == "pingpong" or base is None else _ratio(value, base.time_s)
            cells.append(Cell(value, ratio, ratio_interval(r, base) if ratio is not None and r is not None else None))
        if _compared(cells):
            out.append(ColumnsRow(size, tuple(cells)))
    if not out:
        return None
    return ColumnsTable("send_modes", "time", tuple(present), ref, tuple(out))


def bidirectional(rows: Sequence[SizeRow], facts: dict[str, PatternFacts],
                  bandwidth_sizes: frozenset[int] | None = None) -> ColumnsTable | None:
    """Bandwidth of the ping-pong (one direction) beside the patterns that move data both ways
    at once (family "bidirectional"): bytes x flows / median. ``bandwidth_sizes``: where the
    ping-pong's regime is bandwidth (the 2x bound holds there; None: at every size)."""
    both = [p for p in _patterns(rows) if p in facts and facts[p].family == "bidirectional"]
    if not both:
        return None
    present = (["pingpong"] if any(r.pattern == "pingpong" for r in rows) else []) + both
    idx = index(rows)
    out = []
    for size in _sizes(rows, present):
        if size == 0:
            continue
        base = idx.get(("pingpong", "", size))
        cells = []
        for p in present:
            r = idx.get((p, "", size))
            value = r.bandwidth_bytes_per_s if r else None
            if p == "pingpong" or base is None or r is None:
                cells.append(Cell(value, None))
                continue
            ratio = _ratio(value, base.bandwidth_bytes_per_s)
            # bandwidth ratio = flows x t_pingpong / t_pattern (per message of the same bytes)
            ci = ratio_interval(base, r, scale=r.flows / base.flows) if ratio is not None else None
            bandwidth_bound = bandwidth_sizes is None or size in bandwidth_sizes
            cells.append(Cell(value, ratio, ci, bound_breach(ratio, ci, BIDIRECTIONAL_BOUND,
                                                             f"{p} against the one-way ping-pong")
                              if bandwidth_bound else ""))
        if _compared(cells):
            out.append(ColumnsRow(size, tuple(cells)))
    if not out:
        return None
    return ColumnsTable("bidirectional", "bandwidth", tuple(present),
                        0 if present[0] == "pingpong" else None, tuple(out))


def variant_pairs(rows: Sequence[SizeRow], facts: dict[str, PatternFacts],
                  eager_limit: int | None) -> tuple[VariantPair, ...]:
    """Patterns of two variants (family "buffering"): the second against the first, per size;
    rows are split at the measured eager limit (below it the MPI keeps an early message in its
    own buffer; above it a rendezvous waits for the receive and nothing is buffered)."""
    out = []
    for p in _patterns(rows):
        fact = facts.get(p)
        variants = list(dict.fromkeys(r.variant for r in rows if r.pattern == p))
        if fact is None or len(variants) != 2 or fact.family not in ("buffering", ""):
            continue
        if not fact.family and p not in ("unexpected", "pack"):
            continue
        a, b = variants
        idx = index(rows)
        pair_rows = []
        for size in _sizes(rows, [p]):
            ra, rb = idx.get((p, a, size)), idx.get((p, b, size))
            if ra is None or rb is None:
                continue
            regime = ""
            if eager_limit is not None and p == "unexpected":
                regime = protocol_at(size, eager_limit)
            pair_rows.append(PairRow(size, ra.time_s, rb.time_s, difference(ra, rb),
                                     _ratio(rb.time_s, ra.time_s) or math.nan, regime, ratio_interval(rb, ra)))
        if pair_rows:
            out.append(VariantPair(p, a, b, fact.metric, tuple(pair_rows),
                                   eager_limit if p == "unexpected" else None))
    return tuple(out)


def compat(rows: Sequence[SizeRow], facts: dict[str, PatternFacts]) -> tuple[CompatRow, ...]:
    """The compatibility modes (family "compat") as those tools print them: the mean."""
    out = []
    for r in rows:
        fact = facts.get(r.pattern)
        if fact is None or fact.family != "compat" or r.extra.get("collective"):
            continue  # the collective modes print what those tools print: compat_collectives.py
        mean = r.stats.mean
        out.append(CompatRow(r.pattern, r.bytes, mean,
                             r.bytes * r.flows / mean if mean > 0 and r.bytes else None,
                             r.flows / mean if mean > 0 else math.nan))
    return tuple(out)


def floor_rows(rows: Sequence[SizeRow]) -> tuple[FloorRow, ...]:
    """The shared-memory floor against the MPI ping-pong at the same size."""
    idx = index(rows)
    out = []
    for size in _sizes(rows, ["floor"]):
        f, p = idx.get(("floor", "", size)), idx.get(("pingpong", "", size))
        if f is None:
            continue
        low = f.interval.low if f.interval is not None else None
        high = f.interval.high if f.interval is not None else None
        why = floor_above(f.time_s, low, p.time_s, p.interval.high if p.interval is not None else None) if p else ""
        ratio = _ratio(p.time_s, f.time_s) if p and not why else None
        out.append(FloorRow(size, f.time_s, p.time_s if p else None, ratio, low, why, high,
                            ratio_interval(p, f) if ratio is not None else None))
    return tuple(out)


def overlap_fraction(comm_s: float, compute_s: float, both_s: float) -> float:
    """The share of the transfer hidden behind computation: (comm + compute - both) / comm,
    clipped to [0, 1] (the one definition; the kernels' per-launch field is not used)."""
    if not comm_s > 0:
        return math.nan
    return min(1.0, max(0.0, (comm_s + compute_s - both_s) / comm_s))


def overlap_rows(rows: Sequence[SizeRow]) -> tuple[OverlapRow, ...]:
    idx = index(rows)
    out = []
    for size in _sizes(rows, ["overlap"]):
        c, w, b = (idx.get(("overlap", v, size)) for v in ("comm", "compute", "both"))
        if c is None or w is None or b is None:
            continue
        out.append(OverlapRow(size, c.time_s, w.time_s, b.time_s,
                              overlap_fraction(c.time_s, w.time_s, b.time_s)))
    return tuple(out)


def barrier_rows(rows: Sequence[SizeRow]) -> tuple[BarrierRow, ...]:
    """exchange-sync against exchange: what posting every receive before a barrier costs."""
    idx = index(rows)
    out = []
    for size in sorted({r.bytes for r in rows if r.pattern == "exchange"} & {r.bytes for r in rows
                                                                             if r.pattern == "exchange-sync"}):
        a, b = idx.get(("exchange", "", size)), idx.get(("exchange-sync", "", size))
        if a is None or b is None:
            continue
        cost = difference(a, b)
        out.append(BarrierRow(size, a.time_s, b.time_s, cost, _ratio(b.time_s, a.time_s) or math.nan,
                              ratio_interval(b, a), barrier_why_not(cost)))
    return tuple(out)
