"""The collectives of a profiled program predicted from a run's point-to-point model, and the
program's whole time inside MPI split into shares that add up to it (``advise --profile``'s
"Whole program"). Pure: no I/O.

A collective call of the profile (records/profile_format.CollectiveCalls: call, communicator
size P, bytes at this rank, count, time) is predicted with the collective room's standard
algorithms (analysis/collectives: each algorithm a sequence of point-to-point steps, after Thakur,
Rabenseifner and Gropp 2005), from the model run's own point-to-point model (``PointToPoint``:
the advice's series for T(m), its sendrecv for a step both ways, its memcpy for local copies, its
reduce-local for γ, and the patterns that measure an implementation's own steps whole,
``PointToPoint.measured``; what the run lacks is left out and said, ``PointToPoint.gamma_words``):

- the prediction is the range over the algorithms the MPI could choose, fastest to slowest: the
  profile does not say which one ran. Where the algorithms differ by more than ``WIDE`` (2×), the
  range is all there is to say (``wide``), never a single value;
- where the model run itself measured that collective at that size and rank count (the blocking
  pattern, no variant), its measured time per call is the prediction instead (``source`` "model run");
- the profile's bytes are the call's data at this rank (docs/profile.md); the algorithms' size n is
  the vector of an allreduce, reduce or bcast, the block per rank of an allgather, and the block
  per destination of an alltoall and per rank of a reduce_scatter_block: the profile's bytes / P;
- not predicted, counted as measured with the reason: non-blocking collectives (the call starts
  it; its completion is timed in the wait or test that completes it), the v and w variants (counts
  differ per rank), collectives without a model here (gather, scatter, scan, exscan,
  reduce_scatter), calls beyond the profiler's table of sizes, and collectives recorded with their
  time only (neighbourhood, persistent, large-count).

The whole program, per rank (``WholeProgram``): the rank's time inside MPI split into disjoint
shares that add up to it. The waiting for a slower rank is measured by the accounting's one rule
(profile_accounting.lockstep_waiting) and is its own share; the profile does not say in which call
a rank waited, so it is taken out of the point-to-point calls first, up to their time (the
advice's ``RankTime.waiting_added_s``, the same value), and the rest out of the other parts in
proportion to their measured time, what they cannot hold out of the point-to-point calls' remaining
time (so the waiting share is the measured waiting whole). A predicted part is held against its
prediction by one rule (``waiting_blurs``, also the collectives' verdict's): the rank's whole waiting
known and within the tolerance of the part's time, wherever it was allocated. Each part's measured time is then its time without that
waiting: point-to-point (predicted by the advice's transfers), collectives predicted (the range
above), collectives not predicted, each other kind (measured). Out of lockstep the waiting cannot
be told: the parts keep their whole time and the waiting share is "cannot tell".
"""

from __future__ import annotations

from typing import Any

from msgperf.analysis.advice.profile_accounting import POINT_TO_POINT_KINDS, ProfileAccounting
from msgperf.analysis.collectives import (COLLECTIVES, COMBINE, COPY, FIT_TOLERANCE, TO_SELF,
                                          REDUCTIONS, PointToPoint, algorithms_of, predict, steps_family)
from msgperf.analysis.tables import mpi_device
from msgperf.values import Value

LOCAL_PATTERNS = frozenset({COPY, COMBINE, TO_SELF})  # operations within one process: no link crossed
WIDE = 2.0  # a range of predictions wider than this (slowest / fastest) has no single value
# What the algorithms' size n is, from the profile's bytes at this rank (docs/profile.md)
PER_RANK_BLOCKS = frozenset({"alltoall", "reduce_scatter_block"})  # the profile counts P blocks
NO_MODEL = ("MPI_Gather", "MPI_Scatter", "MPI_Scan", "MPI_Exscan", "MPI_Reduce_scatter")
VARYING = ("MPI_Gatherv", "MPI_Scatterv", "MPI_Allgatherv", "MPI_Alltoallv", "MPI_Alltoallw")
BYTE_TYPES = ("MPI_UNSIGNED_CHAR", "MPI_CHAR", "MPI_SIGNED_CHAR")  # what the collective patterns reduce


def range_spread(low: float | None, high: float | None) -> float | None:
    """slowest / fastest of a range of predictions (None: no range, or a fastest of 0)."""
    return high / low if low is not None and high is not None and low > 0 else None


def is_wide(spread: float | None) -> bool:
    """A range wider than WIDE: only the range can be said, no single value."""
    return spread is not None and spread > WIDE


def collective_of(call: str) -> tuple[str, str]:
    """("allreduce", "") for a call the algorithms predict, else ("", why not)."""
    base = call[len("MPI_"):] if call.startswith("MPI_") else call
    name = base.lower()
    if name in COLLECTIVES and call.startswith("MPI_"):
        return name, ""
    blocking = f"MPI_{base[1:]}"  # MPI_Iallreduce -> MPI_Allreduce
    if base.startswith("I") and (base[1:].lower() in COLLECTIVES or blocking in NO_MODEL + VARYING):
        return "", ("non-blocking: the call only starts it; its completion is timed in the wait or test "
                    "that completes it (wait/test)")
    if call in VARYING:
        return "", "a v or w variant: its counts differ per rank, no model"
    if call in NO_MODEL:
        return "", f"no model of {call} among the standard algorithms"
    return "", f"no model of {call}"


class CollectivePrediction(Value):
    """The calls of one collective with one communicator size and one data size, at one rank."""

    call: str  # "MPI_Allreduce"
    collective: str  # "allreduce"; "" when not predicted
    comm_size: int  # P
    bytes: int  # the call's data at this rank, as the profile counts it
    model_bytes: float  # the algorithms' size n (bytes, or bytes / P: module docstring)
    calls: int
    measured_s: float  # all ``calls`` together, as the profile measured them
    low_s: float | None  # predicted, all calls: the fastest algorithm (or the model run's measurement)
    high_s: float | None  # the slowest algorithm (or the model run's measurement)
    fastest: str  # the algorithm of low_s, its short name ("" when not predicted or from the model run)
    slowest: str
    source: str  # "algorithms", "model run" or "" (not predicted)
    why_not: str  # why it is not predicted ("" when it is)
    algorithms_low_s: float | None = None  # the algorithms' range, also where the model run's time is used
    algorithms_high_s: float | None = None
    datatype: str | None = None  # a reduction's, as the profile recorded it (None: not recorded, or no reduction)
    gamma_type: str = ""  # the type whose sums γ was measured with ("" where no γ was charged)

    @property
    def predicted(self) -> bool:
        return self.source != ""

    @property
    def spread(self) -> float | None:
        """slowest / fastest prediction (1 for the model run's own measurement)."""
        return range_spread(self.low_s, self.high_s)

    @property
    def wide(self) -> bool:
        """The algorithms differ by more than WIDE: only the range can be said."""
        return is_wide(self.spread)


class RankCollectives(Value):
    """One rank's collectives: predicted against measured."""

    rank: int
    measured_s: float  # the rank's time in collective calls (the accounting's, kind "collective")
    rows: tuple[CollectivePrediction, ...]  # predicted ones first, most time first
    predicted_measured_s: float  # the measured time of the rows predicted
    low_s: float  # their predicted total: every call at its fastest algorithm
    high_s: float  # every call at its slowest
    not_predicted_s: float  # measured, not predicted (the rest of measured_s)
    # "within", "more", "less" (with FIT_TOLERANCE either side), "cannot tell" (``why``), "" (nothing predicted)
    verdict: str
    why: str = ""  # why the verdict cannot tell
    # the rank's waiting is known and within the tolerance of measured (``waiting_blurs``): its measured
    # times, rank and rows alike, can be held against their predictions; else only "less" can be said
    comparable: bool = False

    @property
    def ratio_low(self) -> float | None:
        """measured / the slowest prediction: the smallest ratio the range allows (None: not comparable)."""
        return self.predicted_measured_s / self.high_s if self.comparable and self.high_s > 0 else None

    @property
    def ratio_high(self) -> float | None:
        """measured / the fastest prediction (None: not comparable)."""
        return self.predicted_measured_s / self.low_s if self.comparable and self.low_s > 0 else None

    @property
    def spread(self) -> float | None:
        return range_spread(self.low_s, self.high_s)

    @property
    def wide(self) -> bool:
        return is_wide(self.spread)

    def row_ratios(self, row: CollectivePrediction) -> tuple[float | None, float | None]:
        """One row's measured / predicted (slowest, fastest); (None, None) where the rank is not comparable:
        its waiting may sit in any of its calls."""
        if not self.comparable or not row.low_s or not row.high_s:
            return None, None
        return row.measured_s / row.high_s, row.measured_s / row.low_s


class Share(Value):
    """One part of a rank's time inside MPI, without the waiting for a slower rank (its own share)."""

    part: str  # "point-to-point", "collectives predicted", "collectives not predicted", "waiting", a kind
    measured_s: float
    predicted_low_s: float | None  # None: measured, not predicted
    predicted_high_s: float | None
    how: str  # where the figure comes from, in words
    waiting_taken_s: float = 0.0  # the waiting for a slower rank taken out of this part's measured time
    fraction: float | None = None  # measured_s / the rank's time inside MPI (None: no time inside MPI)
    # measured (waiting included) against the prediction, by the collectives' one rule (``_verdict``):
    # "within", "more", "less", "cannot tell" (``why``), "" (not predicted)
    verdict: str = ""
    why: str = ""
    # its measured time can be held against its prediction: predicted, and the rank's whole waiting known and
    # within the tolerance of the part's measured time (``waiting_blurs``: the profile does not say in which
    # calls a rank waited, so the waiting taken out of a part is only an allocation)
    comparable: bool = False

    @property
    def spread(self) -> float | None:
        return range_spread(self.predicted_low_s, self.predicted_high_s)

    @property
    def wide(self) -> bool:
        return is_wide(self.spread)

    @property
    def ratio_low(self) -> float | None:
        """measured / the slowest prediction (None: not comparable)."""
        return self.measured_s / self.predicted_high_s if self.comparable and self.predicted_high_s else None

    @property
    def ratio_high(self) -> float | None:
        """measured / the fastest prediction (None: not comparable)."""
        return self.measured_s / self.predicted_low_s if self.comparable and self.predicted_low_s else None


class WholeProgram(Value):
    """One rank's time inside MPI in shares that add up to it (``shares``' measured_s)."""

    rank: int
    mpi_time_s: float
    shares: tuple[Share, ...]
    waiting_s: float | None  # measured (the accounting's); None: cannot tell
    waits_for: int | None
    predicted_low_s: float  # the whole time inside MPI: predicted parts at their range, the rest as measured
    predicted_high_s: float
    # the calls' times add up to more than the rank's time inside MPI by this much (a record whose total is
    # below its calls'): the shares, each call's time, add up to mpi_time_s + calls_over_s
    calls_over_s: float = 0.0

    @property
    def ratio_low(self) -> float | None:
        return self.mpi_time_s / self.predicted_high_s if self.predicted_high_s > 0 else None

    @property
    def ratio_high(self) -> float | None:
        return self.mpi_time_s / self.predicted_low_s if self.predicted_low_s > 0 else None


class ProfileCollectives(Value):
    """Every rank's collectives, and what their predictions rest on."""

    ranks: tuple[RankCollectives, ...]
    model_words: str  # the point-to-point model and what it leaves out
    notes: tuple[str, ...]


def point_to_point(result: Any, chosen: Any, mpi_library: str = "") -> PointToPoint:
    """The advice's series (T(m)) with the same run's other point-to-point patterns, where measured;
    the algorithms' steps of the MPI the program ran with (``mpi_library``, the profile's)."""
    placement = getattr(chosen.key, "placement", "")

    def model(pattern: str, variant: str = ""):
        """The exact placement first, then one not said; a local operation (memcpy, reduce-local, a
        message to itself) may also come from an intra-node series: it crosses no link, while a step
        measured within a node would price an inter-node step too low."""
        wanted = (placement, "", "intra") if pattern in LOCAL_PATTERNS else (placement, "")
        found: dict[str, Any] = {}
        for s in result.series:
            if s.key.pattern == pattern and s.key.variant == variant and s.model is not None:
                found.setdefault(getattr(s.key, "placement", ""), s)
        return next((found[p].model.sweep.piecewise for p in wanted if p in found), None)

    return PointToPoint.measured(chosen.name, chosen.model.sweep.piecewise, model,
                                 steps_family(mpi_library, mpi_device(mpi_library)))


def _run_measured(result: Any) -> dict[tuple[str, int, int], float]:
    """(collective, ranks, bytes) -> the model run's measured time per call (its blocking patterns)."""
    found: dict[tuple[str, int, int], float] = {}
    collectives = getattr(result, "collectives", None)
    for fit in (collectives.fits if collectives is not None else ()):
        if fit.variant:
            continue
        for v in fit.sizes:
            found.setdefault((fit.collective, fit.ranks, v.bytes), v.measured_s)
    return found


def _predict(p2p: PointToPoint, run: dict, call: Any) -> CollectivePrediction:
    name, why = collective_of(call.call)
    p = max(int(call.comm_size), 1)
    if not name:
        return CollectivePrediction(call.call, "", p, call.bytes, float(call.bytes), call.n, call.time_s, None, None,
                                    "", "", "", why)
    n = call.bytes / p if name in PER_RANK_BLOCKS else float(call.bytes)
    datatype = getattr(call, "datatype", None) if name in REDUCTIONS else None
    typed = p2p.for_datatype(datatype)
    times = sorted((predict(typed, a, p, n), a.short or a.key) for a in algorithms_of(name))
    (low, fastest), (high, slowest) = times[0], times[-1]
    k = call.n
    # the model run's collective patterns reduce bytes: their time stands for a reduction of bytes only
    bytes_like = name not in REDUCTIONS or datatype in (None, *BYTE_TYPES)
    measured = run.get((name, p, int(n))) if float(n).is_integer() and bytes_like else None
    gamma = typed.gamma_type if name in REDUCTIONS and typed.reduce_local is not None else ""
    if measured is not None:
        return CollectivePrediction(call.call, name, p, call.bytes, n, k, call.time_s, k * measured, k * measured,
                                    "", "", "model run", "", k * low, k * high, datatype, gamma)
    return CollectivePrediction(call.call, name, p, call.bytes, n, k, call.time_s, k * low, k * high, fastest, slowest,
                                "algorithms", "", k * low, k * high, datatype, gamma)


def waiting_blurs(measured: float, waiting: float | None) -> str:
    """The one rule of comparability: why a part's measured time (waiting included) cannot be held against
    its prediction, "" when it can. The profile does not say in which calls a rank waited for a slower one,
    so the rank's whole waiting must be known (lockstep) and within the tolerance of the part's time."""
    if waiting is None:
        return "the waiting for a slower rank cannot be told (ranks out of lockstep)"
    if waiting > FIT_TOLERANCE * measured:
        return "the rank waited for a slower rank, and the profile does not say in which calls"
    return ""


def _verdict(measured: float, low: float, high: float, waiting: float | None) -> tuple[str, str]:
    """Measured (waiting included) against the predicted range. Where ``waiting_blurs``, only "less"
    still holds (waiting only adds); the rest cannot tell."""
    if high <= 0:
        return "", ""
    if measured < low / (1 + FIT_TOLERANCE):
        return "less", ""
    why = waiting_blurs(measured, waiting)
    if why:
        return "cannot tell", why
    return ("more" if measured > high * (1 + FIT_TOLERANCE) else "within"), ""


def _rank_collectives(p2p: PointToPoint, run: dict, rank: Any, measured_s: float,
                      waiting: float | None) -> RankCollectives:
    rows = [_predict(p2p, run, c) for c in rank.collectives]
    recorded = sum(c.time_s for c in rank.collectives)
    if rank.collectives_other_n or rank.collectives_other_time_s:
        rows.append(CollectivePrediction("(other sizes)", "", 0, 0, 0.0, rank.collectives_other_n,
                                         rank.collectives_other_time_s, None, None, "", "", "",
                                         "the profiler's table of sizes was full: sizes not recorded"))
    rest = measured_s - recorded - rank.collectives_other_time_s
    if rest > 1e-9 * max(measured_s, 1e-9):
        rows.append(CollectivePrediction("(time only)", "", 0, 0, 0.0, 0, rest, None, None, "", "", "",
                                         "recorded with their time only (neighbourhood, persistent or large-count "
                                         "collectives, or a record without sizes)"))
    rows.sort(key=lambda r: (not r.predicted, -r.measured_s, r.call))
    done = [r for r in rows if r.predicted]
    got = sum(r.measured_s for r in done)
    low = sum(r.low_s or 0.0 for r in done)
    high = sum(r.high_s or 0.0 for r in done)
    verdict, why = _verdict(got, low, high, waiting) if done else ("", "")
    return RankCollectives(rank.rank, measured_s, tuple(rows), got, low, high, max(measured_s - got, 0.0),
                           verdict, why, bool(done) and high > 0 and not waiting_blurs(got, waiting))


def profile_collectives(profile: Any, accounting: ProfileAccounting, p2p: PointToPoint, result: Any,
                        ) -> ProfileCollectives:
    """Every rank's collectives of ``profile`` predicted from ``p2p`` (and the model run ``result``'s own
    collectives where it measured them)."""
    run = _run_measured(result)
    splits = {s.rank: s for s in accounting.ranks}
    ranks = tuple(_rank_collectives(p2p, run, r, dict(splits[r.rank].by_kind).get("collective", 0.0),
                                    splits[r.rank].waiting_s) for r in profile.ranks)
    notes = []
    rows = [row for r in ranks for row in r.rows if row.predicted]
    run_ranks = getattr(getattr(result, "source", None), "nranks", None)
    if any(row.comm_size > (run_ranks or 2) for row in rows):
        notes.append(f"the steps' times come from the model run's point-to-point model ({run_ranks or 2} ranks): "
                     "more ranks communicating at once may contend for the same memory or links (not modelled)")
    notes += _gamma_notes(rows, p2p)
    if any(row.source == "model run" for row in rows):
        notes.append("where the model run measured the collective at that size and rank count, its measured time "
                     "per call is the prediction")
    words = (f"the standard algorithms (Thakur, Rabenseifner and Gropp 2005) on {p2p.series}'s piecewise model; "
             f"{p2p.gamma_words}")
    return ProfileCollectives(ranks, words, tuple(notes))


def _gamma_notes(rows: list[CollectivePrediction], p2p: PointToPoint) -> list[str]:
    """What the reductions' γ stands for: the sums of the type reduce-local measured, against the types the
    program reduced (the profile names them from format 4)."""
    reductions = [r for r in rows if r.collective in REDUCTIONS]
    if not reductions or p2p.reduce_local is None:
        return []
    untyped = sorted({r.datatype or "a type the profile does not name (before format 4)" for r in reductions
                      if r.gamma_type != "MPI_DOUBLE" and r.datatype not in BYTE_TYPES})
    notes = []
    if any(r.gamma_type == "MPI_DOUBLE" for r in reductions):
        notes.append("γ of the MPI_DOUBLE reductions: MPI_SUM over MPI_DOUBLE (reduce-local [double])")
    if untyped:
        double = ("" if p2p.reduce_local_double is not None else
                  "; the run has no reduce-local [double] for MPI_DOUBLE reductions (msgperf run --pattern "
                  "reduce-local measures both)")
        notes.append(f"γ of the reductions of {', '.join(untyped)}: MPI_SUM over bytes (reduce-local), which may "
                     f"combine far slower or faster than the program's type and operator{double}")
    return notes


def whole_program(accounting: ProfileAccounting, collectives: ProfileCollectives | None,
                  transfers: dict[int, Any], waiting_added: dict[int, float]) -> tuple[WholeProgram, ...]:
    """Each rank's time inside MPI in shares that add up to it (module docstring); ``transfers``: rank ->
    the advice's predicted transfers (an Estimate), ``waiting_added``: rank -> the waiting its
    point-to-point calls hold (``RankTime.waiting_added_s``)."""
    colls = {r.rank: r for r in collectives.ranks} if collectives is not None else {}
    out = []
    for split in accounting.ranks:
        c = colls.get(split.rank)
        p2p_s = split.point_to_point_s
        parts: list[list] = []  # [part, measured, low, high, how]
        est = transfers.get(split.rank)
        parts.append(["point-to-point", p2p_s, None if est is None else est.value_s,
                      None if est is None else est.value_s,
                      "predicted: the point-to-point model's transfers (above)"])
        if c is not None and any(r.predicted for r in c.rows):
            parts.append(["collectives predicted", c.predicted_measured_s, c.low_s, c.high_s,
                          "predicted from the collective models: the range over the algorithms the MPI could choose"
                          " (the model run's own measurement where it has one)"])
            if c.not_predicted_s > 0:
                reasons = sorted({r.why_not for r in c.rows if not r.predicted})
                parts.append(["collectives not predicted", c.not_predicted_s, None, None,
                              "measured, not predicted: " + "; ".join(reasons)])
        else:
            coll = dict(split.by_kind).get("collective", 0.0)
            if coll > 0:
                parts.append(["collectives not predicted", coll, None, None,
                              "measured, not predicted: " + ("; ".join(sorted({r.why_not for r in c.rows}))
                                                             if c is not None and c.rows else "no sizes recorded")])
        for kind, seconds in split.by_kind:
            if kind in POINT_TO_POINT_KINDS or kind == "collective":
                continue
            parts.append([kind, seconds, None, None, "measured, not predicted"])
        unattributed = split.mpi_time_s - sum(t for _, t in split.by_kind)
        if unattributed > 1e-9 * max(split.mpi_time_s, 1e-9):
            parts.append(["in no call", unattributed, None, None,
                          "measured inside MPI but in no call's time (the record's total exceeds its calls')"])
        waiting = split.waiting_s
        taken = [0.0] * len(parts)
        if waiting is not None and waiting > 0:
            first = min(waiting_added.get(split.rank, min(waiting, p2p_s)), p2p_s, waiting)
            taken[0] = first
            rest = waiting - first
            others = sum(p[1] for p in parts[1:])
            if rest > 0 and others > 0:
                for i in range(1, len(parts)):
                    taken[i] = min(rest * parts[i][1] / others, parts[i][1])
            # what the other parts could not hold comes out of the point-to-point calls' remaining time: the
            # parts hold at least the rank's time inside MPI, which holds its waiting, so the "waiting" share
            # is the measured waiting_s whole
            taken[0] += min(max(waiting - sum(taken), 0.0), p2p_s - first)
        total = split.mpi_time_s
        shares = []
        for (part, measured, low, high, how), t in zip(parts, taken):
            verdict, why = _verdict(measured, low, high, waiting) if low is not None and high is not None \
                else ("", "")
            shares.append(Share(part, max(measured - t, 0.0), low, high, how, t,
                                max(measured - t, 0.0) / total if total > 0 else None, verdict, why,
                                low is not None and high is not None and high > 0
                                and not waiting_blurs(measured, waiting)))
        placed = sum(taken)
        if waiting is not None:
            shares.append(Share("waiting", placed, None, None,
                                f"measured: waiting for rank {split.waits_for}, the slowest outside MPI "
                                "(load imbalance), taken out of the parts above",
                                fraction=placed / total if total > 0 else None))
        low = sum(s.predicted_low_s if s.predicted_low_s is not None else s.measured_s for s in shares)
        high = sum(s.predicted_high_s if s.predicted_high_s is not None else s.measured_s for s in shares)
        over = sum(t for _, t in split.by_kind) - split.mpi_time_s
        out.append(WholeProgram(split.rank, split.mpi_time_s, tuple(shares), waiting, split.waits_for, low, high,
                                over if over > 1e-9 * max(split.mpi_time_s, 1e-9) else 0.0))
    return tuple(out)
