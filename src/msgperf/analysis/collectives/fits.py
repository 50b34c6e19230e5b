"""Each collective the run measured, against every standard algorithm's prediction at its sizes."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import msgspec

from msgperf.analysis.collectives.algorithms import COLLECTIVES, algorithms_of
from msgperf.analysis.collectives.model import (BOTH_WAYS, BOTH_WAYS_COMBINED, BOTH_WAYS_INDEXED, BOTH_WAYS_INITS,
                                                COMBINE, COPY, MODEL_PATTERNS, ONE_WAY, STREAM, TO_SELF, PointToPoint,
                                                predict)
from msgperf.analysis.collectives.naming import (NAMED_RANKS, NONE, VALIDATED, Prediction, SizeRange, SizeVerdict,
                                                 confirmed, judge, names, size_ranges, withhold)
from msgperf.analysis.collectives.selection import mpi_family, own_collectives, selection_words
from msgperf.analysis.launches import first_disturbance
from msgperf.values import Value

_ALIASES = {"reduce-scatter-block": "reduce_scatter_block", "reduce_scatter": "reduce_scatter_block",
            "reduce-scatter": "reduce_scatter_block"}


def collective_name(pattern: str) -> str | None:
    """The collective a pattern measures ("allreduce", ...), None for a point-to-point pattern."""
    name = _ALIASES.get(pattern, pattern.replace("-", "_"))
    return name if name in COLLECTIVES else None


def model_patterns(patterns: Sequence[str], nranks: int, family: str | None = None,
                   back_to_back: bool = True) -> tuple[str, ...]:
    """The point-to-point patterns the predictions of ``patterns``' collectives at ``nranks`` ranks
    are made from, as their algorithms' steps use them (``family``'s, ``steps_family`` of the MPI
    that will run them; None: every MPI's): the ping-pong always, sendrecv
    for a step both ways, memcpy for a local copy, reduce-local for combining, sendrecv-reduce for
    a step both ways that combines, sendrecv-indexed for one through a datatype of its own (and
    memcpy, its packing's price without it), self-message for a rank's message to itself,
    exchange-init for an exchange whose requests are made every call, send-stream for a binomial
    bcast's sends when its calls run ``back_to_back`` from one root; () without a collective."""
    need: set[str] = set()
    for collective in filter(None, map(collective_name, patterns)):
        need.add(ONE_WAY)
        for a in algorithms_of(collective):
            for steps in ((a.steps_of(family),) if family is not None else
                          (a.steps, *(s for _, s in a.family_steps))):
                for step in steps(max(nranks, 2), 1024.0):
                    need |= {BOTH_WAYS} if step.exchange else set()
                    need |= {COPY} if step.copy_bytes or step.indexed else set()
                    need |= {COMBINE} if step.reduce_bytes else set()
                    need |= {BOTH_WAYS_COMBINED} if step.exchange_combined else set()
                    need |= {BOTH_WAYS_INDEXED} if step.exchange_indexed else set()
                    need |= {TO_SELF} if step.to_self else set()
                    need |= {BOTH_WAYS_INITS} if step.exchange and step.inits else set()
                    need |= {STREAM} if step.streamed and back_to_back else set()
    return tuple(p for p in MODEL_PATTERNS if p in need)


class AlgorithmModel(Value):
    key: str
    words: str
    formula: str  # one segment's closed form (the prediction sums the steps on the piecewise model)
    source: str  # the cost formula's source, by title
    select: str  # the MPI's own variables that select it ("" when this MPI has none, or is unknown)
    short: str = ""  # a table column's name


class CollectiveFit(Value):
    collective: str
    pattern: str  # the run's pattern name
    variant: str
    ranks: int
    algorithms: tuple[AlgorithmModel, ...]
    sizes: tuple[SizeVerdict, ...]
    ranges: tuple[SizeRange, ...]
    # where the times point to none of these: what the MPI may have run instead that no model
    # describes (selection.own_collectives), "" when nothing is known
    unmodelled: str = ""
    # why no size can be named at all, said once over the table ("" when a name could stand)
    why_no_names: str = ""

    @property
    def name(self) -> str:
        return f"{self.pattern} [{self.variant}]" if self.variant else self.pattern


class Collectives(Value):
    fits: tuple[CollectiveFit, ...]
    p2p: PointToPoint | None  # None: no point-to-point model to predict from (why_not says why)
    mpi: str  # "mpich", "openmpi" or "" (the selection variables are given for the first two)
    tolerance: float
    why_not: str = ""

    def find(self, collective: str, ranks: int | None = None) -> CollectiveFit | None:
        for f in self.fits:
            if f.collective == collective and (ranks is None or f.ranks == ranks):
                return f
        return None


def nameable(collectives: Collectives | None) -> bool:
    """Whether a name could stand in these fits (a validated collective at up to ``NAMED_RANKS`` ranks
    with predictions): what ``confirm`` decides, from the launches analysed alone."""
    return collectives is not None and any(f.collective in VALIDATED and f.ranks <= NAMED_RANKS and f.sizes
                                           for f in collectives.fits)


def confirm(collectives: Collectives, per_launch: Mapping[int, Collectives | None],
            one_launch: str = "") -> Collectives:
    """``collectives`` (all launches pooled) with each name kept only where the launches, each analysed
    alone (``per_launch``), name it too (naming.confirmed); ``one_launch``: why a name cannot stand
    when fewer than two launches judged (the default: the run measured it in one)."""
    fits = []
    for f in collectives.fits:
        by_launch = {}
        for i, c in per_launch.items():
            mine = next((g for g in (c.fits if c is not None else ())
                         if (g.pattern, g.variant, g.ranks) == (f.pattern, f.variant, f.ranks)), None)
            if mine is not None:
                by_launch[i] = {v.bytes: v for v in mine.sizes}
        sizes = confirmed(f.sizes, by_launch)
        fits.append(msgspec.structs.replace(f, sizes=sizes, ranges=size_ranges(sizes),
                                            unmodelled=f.unmodelled if _points_to_none(sizes) else "",
                                            why_no_names=_why_no_names(f, len(by_launch), one_launch)))
    return msgspec.structs.replace(collectives, fits=tuple(fits))


def _why_no_names(fit: CollectiveFit, launches: int, one_launch: str = "") -> str:
    """Why no size of ``fit`` can be named at all ("" where a name may stand), the first rule of
    naming.names that rules out every size, said once over its table."""
    if fit.collective not in VALIDATED:
        return f"names are checked for {', '.join(sorted(VALIDATED))} only"
    if fit.ranks > NAMED_RANKS:
        return f"names are checked at {NAMED_RANKS} ranks"
    if launches < 2:
        return one_launch or ("judged from one launch: a name needs the same name from two launches, each "
                              "analysed alone (msgperf run --repeat 2)")
    return ""


def _ranks(row: Any, nranks: int) -> int:
    for key in ("ranks", "world_size", "nranks"):
        value = row.extra.get(key) if hasattr(row, "extra") else None
        if isinstance(value, int) and value > 1:
            return value
    return len(row.ranks) if len(row.ranks) > 1 else nranks


def _points_to_none(sizes: Sequence[SizeVerdict]) -> bool:
    """Some size with bytes to move points to none of these (where the MPI's own collectives are said;
    at 0 B the MPI returns at once instead)."""
    return any(v.points_to == NONE and v.bytes > 0 for v in sizes)


def back_to_back(row: Any) -> bool:
    """Whether the row's calls ran back to back from one root: no barrier before each call
    (--iteration-barrier), the root not rotating (--root rotate); a record without these fields
    (an older file) ran back to back from rank 0."""
    extra = getattr(row, "extra", None) or {}
    return not extra.get("iteration_barrier", False) and extra.get("root", "0") != "rotate"


def collective_fits(rows: Sequence[Any], p2p: PointToPoint | None, nranks: int, mpi_library: str,
                    tolerance: float, why_no_model: str = "", conditions: Sequence[Any] = (),
                    environments: Sequence[Mapping[str, str]] = ()) -> Collectives | None:
    """Every collective of ``rows`` (the run's SizeRows) against the algorithms' predictions from the
    run's point-to-point model (``PointToPoint.measured``; None: the run has no ping-pong model,
    ``why_no_model`` says why); None when the run has no collective. ``environments``: each launch's
    MPI environment (what it selected)."""
    groups: dict[tuple[str, str, int], list[Any]] = {}
    for r in rows:
        if collective_name(r.pattern) is not None:
            groups.setdefault((r.pattern, r.variant, _ranks(r, nranks)), []).append(r)
    if not groups:
        return None
    family = mpi_family(mpi_library)
    fits = []
    for (pattern, variant, ranks), group in groups.items():
        collective = collective_name(pattern)
        algorithms = algorithms_of(collective)
        models = tuple(AlgorithmModel(a.key, a.words, a.formula, a.source, selection_words(family, collective, a.key),
                                      a.short or a.key)
                       for a in algorithms)
        judged: list[SizeVerdict] = []
        if p2p is not None:
            for r in sorted(group, key=lambda r: r.bytes):
                iv = r.interval
                predictions = tuple(Prediction(a.key, predict(p2p, a, ranks, r.bytes, back_to_back(r)))
                                    for a in algorithms)
                v = judge(r.bytes, r.time_s, iv.low if iv else None, iv.high if iv else None, predictions,
                          tolerance)
                reason = first_disturbance(conditions, r.launch_ids)
                judged.append(withhold(v, reason) if reason else v)
        lacking = () if p2p is None else tuple(
            p for p in model_patterns((pattern,), ranks, p2p.family, any(map(back_to_back, group)))
            if p not in p2p.patterns)
        verdicts = names(judged, ranks, lacking, collective)
        unmodelled = (own_collectives(p2p.family, collective, environments)
                      if p2p is not None and _points_to_none(verdicts) else "")
        fits.append(CollectiveFit(collective, pattern, variant, ranks, models, tuple(verdicts),
                                  size_ranges(verdicts), unmodelled))
    why = "" if p2p is not None else (why_no_model or "no ping-pong model in the run to predict from "
                                      "(msgperf run adds it beside a collective unless --no-model-patterns)")
    return Collectives(tuple(fits), p2p, family, tolerance, why)
