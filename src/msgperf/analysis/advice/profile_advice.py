"""Advice on an application's own messages: its profile (``msgperf profile``) against the model of a
ping-pong run (``analyze(run)``). Pure: no I/O, no printing, no fitting — every time comes from
the run's ``RunResult`` (its main series' piecewise model, the eager limit the eager-probe measured,
the memcpy series' model for the cost of a copy, the LogGP gap when the run measured it).

The prediction (docs/profile.md, "Advice"):

- one message of s bytes costs T(s), the piecewise model's one-way time (half a ping-pong round
  trip): what the sender and the receiver spend on it together, one message at a time;
- a rank's transfers cost the larger of what its sends and its receives cost:
  max(Σ_sent T(s), Σ_received T(s)). A rank that exchanges (sends to a peer while receiving from
  it) pays each direction's overheads concurrently with the other's, not one after the other;
- an exchange phase: a rank that sends to a peer and then waits for that peer's messages (a
  completion call: MPI_Wait*, a blocking receive, MPI_Sendrecv) finds the peer's last message
  still on its way: that message's sender overhead and latency, LogGP's o_s + L, about half of
  T(s). Each such call, up to the number of messages the rank receives from peers it also sends
  to, adds T(s̄)/2 at the mean size s̄ it receives (``PHASE_SHARE``);
- back-to-back sends: when the run measured the LogGP gap (loggp pattern), the messages of a
  sequence after its first cost the gap g + G·s instead of T(s); the order inside a sequence is
  unknown (the profile keeps the multiset of sizes), so each message counts as first with equal
  chance: T(s)/n + (n - 1)/n·gap(s). Without the gap: T(s) each. The gap is the sender's pace in
  a one-way stream: a rank that also receives from that peer spends the receives' overheads on
  the same core between its sends, so only the one-way share of its sends to that peer
  (1 − received/sent, at least 0) pipelines;
- waiting for a slower rank: ranks that exchange every step move in lockstep, so a rank whose
  time outside MPI is shorter than the longest one's waits the difference inside MPI. This is
  measured, not predicted, by the profile's accounting (profile_accounting.lockstep_waiting, the
  one rule, whose value the advice shows as it is: ``RankTime.waiting_s``; out of lockstep it
  cannot be told, and said so). A rank's predicted time is its transfers plus the part of that
  waiting its point-to-point calls can hold (``waiting_added_s``: at most their measured time;
  the rest waited in collectives or other calls; 0 when it cannot be told); combining changes
  the transfers, not the waiting;
- the program's is its slowest rank's, against the slowest rank's measured time inside MPI (the
  rule of honest measurement: what the slowest participant saw). Time inside MPI also holds
  waiting for a peer that is descheduled or delayed at random: the model cannot predict that;
- the collectives and the whole program's shares (``ProfileAdvice.collectives``, ``.whole``):
  profile_collectives.py, from the same run's models and the same accounting.

The answers, in order of payoff (``ProfileAdvice.actions``):

- combining: each sequence shape (n sends of sizes s_i to one peer, ``count`` times) sent as one
  message of Σ s_i saves Σ T(s_i) - T(Σ s_i) per sequence inside MPI (Lawlor's message-combining
  lecture); packing and unpacking cost two copies of Σ s_i bytes outside MPI (memcpy's model);
- the eager limit E (eager-probe): sizes E < s ≤ 2·E (``JUST_ABOVE``) go by rendezvous; sent
  eagerly (a raised limit, or the message trimmed to E) each would cost the eager segment's line
  at s instead: the saving is T(s) - T_eager(s) per message;
- buffering (Saphir 1994): a buffered send (Bsend, or a pack into a buffer) adds one copy, of
  s bytes at memcpy's speed at s; the program's buffered sends pay it now;
- page faults (profile_faults.py): collectives whose temporary buffers fault in again at every call;
  keeping their pages saves the time faulting of the rank that faults most;
- latency- versus bandwidth-bound: each message's predicted time, split by which term of the
  single Hockney line dominates at its size (α ≥ β·s: latency-bound; ``regimes.dominant_term``).

Intervals: each predicted time is a linear combination of the piecewise segments' α and β (the
segments are fitted on disjoint sizes, so independent); its interval comes from the segments'
covariances, at the fit's confidence, within the run (one launch's scatter unless the run
pooled several). Copies and gaps add their value without an interval.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from msgperf.analysis.advice.profile_accounting import (ProfileAccounting, account_profile, point_to_point_time,
                                                      slowest_wall_s)
from msgperf.analysis.advice.profile_collectives import (ProfileCollectives, WholeProgram, point_to_point,
                                                         profile_collectives, whole_program)
from msgperf.analysis.advice.profile_faults import PageFaults, page_faults
from msgperf.analysis.tables import Gap, goes_eagerly
from msgperf.analysis.model import LineFit, PiecewiseFit, dominant_term
from msgperf.analysis.samples import AnalysisError
from msgperf.values import Value

JUST_ABOVE = 2.0  # sizes up to this factor above the eager limit sit "just above" it
PHASE_SHARE = 0.5  # of T(s): the peer's last message in flight when an exchange phase waits (o_s + L)
COMPLETING = ("MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome", "MPI_Recv", "MPI_Sendrecv",
              "MPI_Sendrecv_replace")  # the calls that wait for a message (a Test only polls)
MAX_EAGER_ROWS = 16
# measured / predicted beyond 1.5x either way is worth a sentence of explanation; above it, the
# whole program's speedup of combining is also "cannot tell" (program_saving_s, program_cannot_tell)
RATIO_FAR = 1.5


class Estimate(Value):
    """A predicted time with its interval (None when the model gives none)."""

    value_s: float
    low_s: float | None = None
    high_s: float | None = None


class ModelBasis(Value):
    """Which model and measurements every predicted figure comes from."""

    run: str  # the run's label (file or store id)
    series: str  # "pingpong"
    time_words: str  # "one-way time = half a round trip"
    mpi: str
    hosts: tuple[str, ...]
    segments: tuple[LineFit, ...]  # the piecewise model
    line_alpha_s: float  # the single Hockney line (which term dominates)
    line_beta_s_per_byte: float
    n_half_bytes: float | None  # α/β of the single line: above it a message is bandwidth-bound
    eager_limit_bytes: int | None  # eager-probe; None: the run did not measure it
    copy_from: str  # "the memcpy series' model (…)" or "" when the run has no memcpy
    gap: Gap | None  # LogGP g + G·s, when the run measured the loggp pattern
    confidence: float


class RankTime(Value):
    """One rank: predicted against measured time inside MPI."""

    rank: int
    predicted: Estimate  # transfers + waiting_added_s
    sent_s: float
    received_s: float
    phases: int  # exchange phases: completion calls that wait for a peer it also sends to
    phase_s: float  # what they add: phases × PHASE_SHARE × T(mean size received)
    transfers: Estimate  # max(sends, receives) + phase_s: the model's
    waiting_s: float | None  # waiting for a slower rank inside MPI, measured: the accounting's (ProfileAccounting
    #                          .ranks[].waiting_s, the same value); None: cannot tell (not in lockstep)
    waiting_added_s: float  # the part of waiting_s the prediction adds: at most measured_s; 0 when it cannot tell
    measured_s: float  # the time in point-to-point calls, waits and tests (profile_accounting.point_to_point_time)
    wait_s: float  # of which inside MPI_Wait*/MPI_Test*
    wall_s: float
    messages: int  # sent + received
    finalized: bool

    @property
    def ratio(self) -> float | None:
        """measured / predicted."""
        return self.measured_s / self.predicted.value_s if self.predicted.value_s > 0 else None


class CombineAdvice(Value):
    """One sequence shape of one rank to one peer: combine its sends into one message."""

    rank: int
    peer: int
    sequences: int
    length: int
    bytes: int  # per sequence (the combined message)
    sizes: tuple[tuple[int, int], ...]  # (bytes, count) per sequence; () when not known exactly
    sizes_assumed: bool  # sizes not known exactly: the mean size assumed for each message
    apart_s: float  # per sequence, as sent now
    combined_s: float  # T(bytes)
    saving: Estimate  # over all ``sequences``, inside MPI
    copy_s: float | None  # packing and unpacking them all (2 copies each), outside MPI
    speedup: float  # apart / combined, one sequence

    @property
    def net_saving_s(self) -> float:
        return self.saving.value_s - (self.copy_s or 0.0)

    @property
    def mean_bytes(self) -> float:
        """The size assumed for each message when the sizes were not recorded exactly."""
        return self.bytes / self.length


class EagerAdvice(Value):
    """A size just above the eager limit, over all ranks and peers."""

    bytes: int
    messages: int
    time_s: float  # T(s), the model's (rendezvous) time
    eager_time_s: float  # the eager segment's line at s
    saving: Estimate  # messages × (T(s) - T_eager(s))
    ranks: tuple[int, ...]


class BufferingAdvice(Value):
    """What one extra copy costs at one size the program sends (Saphir 1994)."""

    bytes: int
    messages: int  # sent at this size, all ranks
    buffered_messages: int  # of which in buffered mode (Bsend, Ibsend, Bsend_init)
    time_s: float  # T(s)
    copy_s: float  # one copy of s bytes
    cost_now_s: float  # buffered_messages × copy
    cost_if_all_s: float  # messages × copy

    @property
    def slowdown(self) -> float:
        """(T(s) + copy) / T(s)."""
        return (self.time_s + self.copy_s) / self.time_s if self.time_s > 0 else math.inf


class BoundShare(Value):
    """The predicted time of the messages in one regime (latency- or bandwidth-bound)."""

    regime: str  # "latency-bound" or "bandwidth-bound"
    messages: int
    bytes: int
    time_s: float
    share: float  # of the predicted time of all messages


class HistogramBin(Value):
    """Sent messages of low ≤ size < 2·low (low 0: 0 B), all ranks, and the model's regime there."""

    low_bytes: int
    high_bytes: int  # exclusive
    messages: int
    regime: str  # "eager", "rendezvous", "eager/rendezvous", "latency-bound", "bandwidth-bound"


class Action(Value):
    """One line of advice, in order of payoff."""

    kind: str  # "combine", "eager", "buffering", "page faults"
    saving_s: float
    words: str  # what to do


class ProfileAdvice(Value):
    program: str
    profile: str  # the profile's path or store id
    nranks: int
    complete: bool
    missing_ranks: tuple[int, ...]
    basis: ModelBasis
    ranks: tuple[RankTime, ...]
    predicted: Estimate  # the slowest rank's predicted time
    predicted_rank: int
    measured_s: float  # the slowest rank's measured time inside MPI
    measured_rank: int
    combine: tuple[CombineAdvice, ...]  # largest saving first
    predicted_combined_s: float  # the slowest rank's predicted time with every sequence combined
    eager: tuple[EagerAdvice, ...]
    buffering: tuple[BufferingAdvice, ...]  # most messages first
    bound: tuple[BoundShare, ...]
    histogram: tuple[HistogramBin, ...]
    actions: tuple[Action, ...]
    notes: tuple[str, ...] = ()
    model_choice: str = ""  # which run models the program and why (one line; "" when not said)
    accounting: ProfileAccounting | None = None  # the whole time inside MPI, by kind, of the same profile
    # the collectives predicted from the collective models (None: the profile timed no collective)
    collectives: ProfileCollectives | None = None
    whole: tuple[WholeProgram, ...] = ()  # per rank, its time inside MPI in shares that add up to it
    # collectives that fault their pages in again at every call (None: the profile counted no faults)
    page_faults: PageFaults | None = None
    # why the sizes just above the eager limit get no saving: the model run cannot tell what crossing
    # the limit costs (its answer's eager step); "" where it can (or no size lies just above it)
    eager_why_not: str = ""

    @property
    def whole_held(self) -> WholeProgram | None:
        """The whole program of the rank the advice is held against (the slowest measured)."""
        return next((w for w in self.whole if w.rank == self.measured_rank), None)

    @property
    def ratio(self) -> float | None:
        """measured / predicted, the program (slowest ranks)."""
        return self.measured_s / self.predicted.value_s if self.predicted.value_s > 0 else None

    @property
    def combine_saving_s(self) -> float:
        return sum(c.saving.value_s for c in self.combine)

    def combine_saving_after_s(self, first: int) -> float:
        """What the shapes after the ``first`` largest save together."""
        return sum(c.saving.value_s for c in self.combine[first:])

    @property
    def ratio_reading(self) -> str | None:
        """measured / predicted read against RATIO_FAR: "more" (MPI holds time the model has no term
        for), "less" (messages moved faster than one ping-pong at a time), or None (close)."""
        r = self.ratio
        if r is None or 1 / RATIO_FAR <= r <= RATIO_FAR:
            return None
        return "more" if r > RATIO_FAR else "less"

    @property
    def just_above_bytes(self) -> int | None:
        """The upper end of "just above the eager limit"."""
        limit = self.basis.eager_limit_bytes
        return None if limit is None else int(JUST_ABOVE * limit)

    @property
    def predicted_speedup(self) -> float | None:
        """Predicted time inside MPI now / with every back-to-back sequence combined."""
        return self.predicted.value_s / self.predicted_combined_s if self.predicted_combined_s > 0 else None

    # The whole program with every sequence combined. The model's saving is scaled by the program's
    # own measured / predicted when that is below 1: the program spent less inside MPI than the
    # model's transfers, so its messages cost less than the model says and combining them saves
    # less alike. Checked on PRK Stencil's halo sent in 2-16 pieces against one message
    # (bench/RESULTS.md §25): the program's speedup within 20 % of the measured one in 7 of 8
    # cases, the unscaled saving's in 4 of 8 (up to 4.5× over). Up to RATIO_FAR above 1 the excess
    # is taken as time combining does not remove and the saving stays the model's. Beyond it the
    # time inside MPI is mostly time the model has no term for, and that time can follow the
    # messages: LULESH's halo sent in 8 pieces on 8 ranks oversubscribing 2 cores (each wait a
    # descheduled peer's turn) was 1.22× faster combined where the model's saving made 1.002×
    # (§26): cannot tell, never a speedup that misses most of the change.

    @property
    def program_wall_s(self) -> float:
        """The slowest rank's MPI_Init to MPI_Finalize."""
        return slowest_wall_s(self.ranks)

    @property
    def saving_scale(self) -> float:
        """min(1, measured / predicted), or 1 when the ratio is unknown."""
        r = self.ratio
        return 1.0 if r is None else min(1.0, r)

    @property
    def program_copies_s(self) -> float:
        """The slowest rank's packing of what it sends and unpacking of what it receives, every
        sequence combined (outside MPI, so in its MPI_Init to MPI_Finalize; 0 without memcpy)."""
        rank = self.predicted_rank
        return sum(c.copy_s / 2 * ((c.rank == rank) + (c.peer == rank)) for c in self.combine if c.copy_s is not None)

    @property
    def program_saving_s(self) -> float | None:
        """What combining every sequence saves the slowest rank: the scaled saving inside MPI less
        its copies (None: nothing to combine, or measured / predicted beyond RATIO_FAR above 1)."""
        if not self.combine or self.ratio_reading == "more":
            return None
        return (self.predicted.value_s - self.predicted_combined_s) * self.saving_scale - self.program_copies_s

    @property
    def program_cannot_tell(self) -> str | None:
        """Why the whole program's speedup cannot be told, or None."""
        if not self.combine:
            return "no back-to-back sends to combine"
        if self.ratio_reading == "more":
            return (f"the time inside MPI is {self.ratio:.3g}× the model's transfers: mostly time the model has no "
                    f"term for (waiting for a descheduled or slower peer), which fewer messages may shorten too; "
                    f"measure the change")
        if self.program_wall_s <= 0:
            return "the profile holds no time from MPI_Init to MPI_Finalize"
        if self.program_wall_s - self.program_saving_s <= 0:
            return "the predicted saving reaches the whole time: the model does not hold for this program"
        return None

    @property
    def program_speedup(self) -> float | None:
        """The program's MPI_Init to MPI_Finalize now / with every sequence combined; None when it
        cannot be told (``program_cannot_tell``)."""
        if self.program_cannot_tell is not None:
            return None
        return self.program_wall_s / (self.program_wall_s - self.program_saving_s)


# ---- the model's costs, as linear combinations of the segments' parameters -----------------------

class _Cost:
    """Σ over segments of (cα·α + cβ·β), plus a constant: a predicted time whose interval follows
    from the segments' covariances."""

    __slots__ = ("terms", "constant")

    def __init__(self) -> None:
        self.terms: dict[int, list[float]] = {}
        self.constant = 0.0

    def add(self, segment: int, weight: float, size: float) -> "_Cost":
        t = self.terms.setdefault(segment, [0.0, 0.0])
        t[0] += weight
        t[1] += weight * size
        return self

    def plus(self, other: "_Cost", sign: float = 1.0) -> "_Cost":
        for seg, (ca, cb) in other.terms.items():
            t = self.terms.setdefault(seg, [0.0, 0.0])
            t[0] += sign * ca
            t[1] += sign * cb
        self.constant += sign * other.constant
        return self

    def value(self, segments: Sequence[LineFit]) -> float:
        return self.constant + sum(ca * segments[i].alpha_s + cb * segments[i].beta_s_per_byte
                                   for i, (ca, cb) in self.terms.items())

    def estimate(self, segments: Sequence[LineFit]) -> Estimate:
        value = self.value(segments)
        variance, t = 0.0, 0.0
        for i, (ca, cb) in self.terms.items():
            if abs(ca) < 1e-12 and abs(cb) < 1e-12:
                continue
            s = segments[i]
            (vaa, vab), (_, vbb) = s.covariance
            if not all(math.isfinite(v) for v in (vaa, vab, vbb, *s.alpha_ci_s)) or vaa <= 0 or s.dof <= 0:
                return Estimate(value)
            variance += ca * ca * vaa + 2 * ca * cb * vab + cb * cb * vbb
            t = max(t, (s.alpha_ci_s[1] - s.alpha_s) / math.sqrt(vaa))  # the segment's own quantile
        half = t * math.sqrt(max(variance, 0.0))
        return Estimate(value, value - half, value + half)


def segment_index(model: PiecewiseFit, size: float) -> int:
    """The index of ``PiecewiseFit.segment_for(size)``."""
    return model.segment_index(size)


def _one(model: PiecewiseFit, size: float, weight: float = 1.0) -> _Cost:
    return _Cost().add(segment_index(model, size), weight, size)


# ---- what the profile holds, flattened -------------------------------------------------------------

def _sizes(m: Any) -> list[tuple[float, int, bool]]:
    """(size, count, exact) of one PeerMessages: its exact sizes, and the messages of other sizes
    at the middle of their power-of-two bucket (the log2 histogram minus the exact sizes)."""
    out = [(float(s.bytes), s.count, True) for s in m.sizes]
    if m.other_count:
        rest: dict[int, int] = {b.bytes: b.count for b in m.log2}
        for s in m.sizes:
            low = 0 if s.bytes == 0 else 1 << (s.bytes.bit_length() - 1)
            rest[low] = rest.get(low, 0) - s.count
        for low, n in sorted(rest.items()):
            if n > 0:
                out.append((0.0 if low == 0 else 1.5 * low, n, False))
    return out


def _copy_time(copy: PiecewiseFit | None, size: float) -> float | None:
    return None if copy is None else max(copy.predict(size), 0.0)


# ---- the advice ----------------------------------------------------------------------------------

def advise_profile(profile: Any, result: Any, series: Any = None, profile_label: str = "",
                   model_label: str = "", model_choice: str = "") -> ProfileAdvice:
    """The advice for ``profile`` (records.profile_format.Profile) from the model of ``series``
    (default: the main series) of ``result`` (analysis.result.RunResult). The labels name the
    profile and the run in the advice (a file, or a stored id). One builder per kind of advice:
    the prediction per rank, combining, the eager limit, buffering, latency- against
    bandwidth-bound."""
    if not profile.ranks:
        raise AnalysisError(f"{profile_label or 'the profile'}: no rank left a record "
                            f"({'the program never reached MPI_Init under the profiler' if not profile.info.nranks else 'every rank was killed before writing'}); "
                            "nothing to advise on")
    chosen = series or result.find()
    if chosen.model is None:
        raise AnalysisError(f"{chosen.name}: no model to predict from ({chosen.not_modelled})")
    model: PiecewiseFit = chosen.model.sweep.piecewise
    line = chosen.model.sweep.hockney.line
    copy_model, copy_from = _copy_model(result)
    basis = _model_basis(result, chosen, model, line, copy_from, model_label)
    eager, gap, n_half = basis.eager_limit_bytes, basis.gap, basis.n_half_bytes
    notes: list[str] = []

    one_way = _one_way_shares(profile)
    traffic = _traffic(profile, model, gap, one_way)
    if traffic.approximated:
        notes.append(f"{traffic.approximated:,} messages of sizes the profiler did not count exactly (more than 16 "
                     "distinct sizes per peer and call): each taken at the middle of its power-of-two bucket")
    combining = _combine_advice(profile, model, gap, one_way, copy_model, traffic)
    accounting = account_profile(profile)
    if accounting.waiting_note:
        notes.append(accounting.waiting_note)
    waiting = {split.rank: split.waiting_s for split in accounting.ranks}
    ranks, after = _rank_times(profile, model, one_way, traffic, combining, waiting)
    slowest = max(ranks, key=lambda t: t.predicted.value_s)
    measured = max(ranks, key=lambda t: t.measured_s)

    eager_rows = _eager_advice(model, eager, traffic.sizes_sent, traffic.ranks_at) if eager is not None else ()
    # what crossing the limit costs, only where the model run's answer can tell it (show's "crossing it")
    eager_why_not = crossing_why_not(result, chosen) if eager_rows else ""
    if eager_why_not:
        eager_rows = ()
    if eager is None:
        notes.append("the run did not measure the eager limit (no eager-probe): no advice about it")
    buffering = _buffering_advice(model, copy_model, traffic.sizes_sent) if copy_model is not None else ()
    if copy_model is None:
        notes.append("the run has no memcpy measurement: the cost of a copy (buffering, packing) is unknown")
    shares = _bound_advice(profile, model, line)
    notes += _profile_notes(profile)
    collectives = (profile_collectives(profile, accounting,
                                       point_to_point(result, chosen, profile.info.mpi_library), result)
                   if any(k == "collective" for s in accounting.ranks for k, _ in s.by_kind) else None)
    whole = whole_program(accounting, collectives, {t.rank: t.transfers for t in ranks},
                          {t.rank: t.waiting_added_s for t in ranks})
    faults = page_faults(profile)
    return ProfileAdvice(
        program=profile.program, profile=profile_label or profile.path, nranks=profile.info.nranks,
        complete=profile.info.complete, missing_ranks=profile.missing_ranks, basis=basis, ranks=tuple(ranks),
        predicted=slowest.predicted, predicted_rank=slowest.rank, measured_s=measured.measured_s,
        measured_rank=measured.rank, combine=combining.advice, predicted_combined_s=after,
        eager=eager_rows[:MAX_EAGER_ROWS], eager_why_not=eager_why_not, buffering=buffering, bound=shares,
        histogram=_histogram(_sent_log2(profile), eager, n_half),
        actions=_actions(combining.advice, eager_rows, buffering, faults),
        notes=tuple(notes), model_choice=model_choice, accounting=accounting, collectives=collectives, whole=whole,
        page_faults=faults)


def _model_basis(result: Any, chosen: Any, model: PiecewiseFit, line: LineFit, copy_from: str,
                 model_label: str) -> ModelBasis:
    segs = model.segments
    return ModelBasis(
        run=model_label or result.source.path or result.source.label, series=chosen.name,
        time_words=chosen.facts.time_words, mpi=result.source.mpi, hosts=tuple(result.source.hosts),
        segments=segs, line_alpha_s=line.alpha_s, line_beta_s_per_byte=line.beta_s_per_byte,
        n_half_bytes=line.n_half_bytes if math.isfinite(line.n_half_bytes) else None,
        eager_limit_bytes=result.eager.split_bytes if result.eager is not None and result.eager.agreed else None,
        copy_from=copy_from, gap=result.gap, confidence=segs[0].confidence)


# ---- the prediction ------------------------------------------------------------------------------

@dataclass
class _Traffic:
    """The profile's messages as the model's costs, per rank and direction (back-to-back sends
    pipelined when the run measured the gap), and the sizes sent exactly."""

    sent: dict[int, _Cost]
    received: dict[int, _Cost]
    sizes_sent: dict[int, dict[str, int]]  # exact size -> {"all": messages, "buffered": of which buffered}
    ranks_at: dict[int, set[int]]  # exact size -> the ranks that send it
    approximated: int  # messages taken at the middle of their power-of-two bucket


def _traffic(profile: Any, model: PiecewiseFit, gap: Gap | None, one_way: dict[tuple[int, int], float]) -> _Traffic:
    t = _Traffic(defaultdict(_Cost), defaultdict(_Cost), defaultdict(lambda: {"all": 0, "buffered": 0}),
                 defaultdict(set), 0)
    for r in profile.ranks:
        for m in r.messages:
            for size, n, exact in _sizes(m):
                t.approximated += 0 if exact else n
                cost = _one(model, size, n)
                if m.direction != "send":
                    t.received[r.rank].plus(cost)
                    continue
                t.sent[r.rank].plus(cost)
                if exact:
                    entry = t.sizes_sent[int(size)]
                    entry["all"] += n
                    entry["buffered"] += n if m.mode == "buffered" else 0
                    t.ranks_at[int(size)].add(r.rank)
    if gap is not None:  # back-to-back sends pipeline: all but the first cost the gap, at both ends
        for r in profile.ranks:
            for seq in r.sequences:
                share = one_way.get((r.rank, seq.peer), 1.0)
                for shape_sizes, n_seq, length in _shapes(seq):
                    for size, k in shape_sizes:
                        w = share * n_seq * k * (length - 1) / length
                        relief = _one(model, size, w)
                        relief.constant -= w * max(gap.at(size), 0.0)
                        t.sent[r.rank].plus(relief, -1.0)
                        if seq.peer in t.received:  # and its peer receives them pipelined too
                            t.received[seq.peer].plus(relief, -1.0)
    return t


def _rank_times(profile: Any, model: PiecewiseFit, one_way: dict[tuple[int, int], float], traffic: _Traffic,
                combining: "_Combining", waiting: dict[int, float | None]) -> tuple[list[RankTime], float]:
    """Each rank's predicted time against its measured one, and the slowest rank's predicted time
    with every sequence combined; ``waiting``: rank -> its waiting for a slower rank (the
    accounting's; None: cannot tell)."""
    segs = model.segments
    ranks = []
    after = 0.0
    for r in profile.ranks:
        s_cost, r_cost = traffic.sent.get(r.rank, _Cost()), traffic.received.get(r.rank, _Cost())
        s_val, r_val = s_cost.value(segs), r_cost.value(segs)
        phases = _phases(r, one_way)
        received_n = r.messages_received
        mean = r.bytes_received / received_n if received_n else 0.0
        phase = _one(model, mean, PHASE_SHARE * phases) if phases else _Cost()
        transfers = _Cost().plus(s_cost if s_val >= r_val else r_cost).plus(phase)
        est = transfers.estimate(segs)
        waited = waiting.get(r.rank)
        measured = point_to_point_time(r)
        # the point-to-point calls hold at most their own time of it: the rest was waited elsewhere in MPI
        w = 0.0 if waited is None else min(waited, measured)
        predicted = Estimate(est.value_s + w, None if est.low_s is None else est.low_s + w,
                             None if est.high_s is None else est.high_s + w)
        ranks.append(RankTime(rank=r.rank, predicted=predicted, sent_s=s_val, received_s=r_val, phases=phases,
                              phase_s=phase.value(segs), transfers=est, waiting_s=waited, waiting_added_s=w,
                              measured_s=measured, wait_s=r.wait_time_s, wall_s=r.wall_s,
                              messages=r.messages_sent + r.messages_received, finalized=r.finalized))
        # all combined: fewer, larger messages received; as many phases, at most one per message
        left = received_n - combining.merged_into.get(r.rank, 0)
        phases_after = min(phases, max(left, 0))
        phase_after = (PHASE_SHARE * phases_after * model.predict(r.bytes_received / left)) if left > 0 else 0.0
        after = max(after, max(combining.sent.get(r.rank, _Cost()).value(segs),
                               combining.received.get(r.rank, _Cost()).value(segs)) + phase_after + w)
    return ranks, after


def _profile_notes(profile: Any) -> list[str]:
    """What the profile itself leaves out."""
    notes = []
    if not any(r.messages for r in profile.ranks):
        notes.append("the profile holds no point-to-point message: nothing to predict or advise on for messages "
                     "(collectives are predicted in the whole program's shares; one-sided communication and "
                     "probes are accounted, not predicted)")
    if not profile.info.complete:
        notes.append("the profile is partial (the program did not finish normally): the advice covers what it did")
    if profile.missing_ranks:
        notes.append(f"no record from rank(s) {', '.join(map(str, profile.missing_ranks))}: their messages are missing")
    return notes


# ---- combining -----------------------------------------------------------------------------------

@dataclass
class _Combining:
    """The combining advice, largest saving first, and the traffic with every sequence combined."""

    advice: tuple[CombineAdvice, ...]
    sent: dict[int, _Cost]  # per rank, every sequence combined
    received: dict[int, _Cost]
    merged_into: dict[int, int]  # messages a rank would no longer receive, all combined


def _combine_advice(profile: Any, model: PiecewiseFit, gap: Gap | None, one_way: dict[tuple[int, int], float],
                    copy_model: PiecewiseFit | None, traffic: _Traffic) -> _Combining:
    segs = model.segments
    combine = []
    after_sent = {rank: _Cost().plus(c) for rank, c in traffic.sent.items()}
    after_received = {rank: _Cost().plus(c) for rank, c in traffic.received.items()}
    merged_into: dict[int, int] = defaultdict(int)
    for r in profile.ranks:
        for seq in r.sequences:
            share = one_way.get((r.rank, seq.peer), 1.0)
            for shape_sizes, n_seq, length, total, assumed in _shape_rows(seq):
                apart = _Cost().plus(_apart(model, shape_sizes, length, gap), share)
                apart.plus(_apart(model, shape_sizes, length, None), 1.0 - share)
                combined = _one(model, total)
                merged_into[seq.peer] += n_seq * (length - 1)
                saving = _Cost().plus(apart, float(n_seq)).plus(combined, -float(n_seq))
                after_sent[r.rank].plus(saving, -1.0)
                if seq.peer in after_received:
                    after_received[seq.peer].plus(saving, -1.0)
                copy = _copy_time(copy_model, total)
                apart_s, combined_s = apart.value(segs), combined.value(segs)
                combine.append(CombineAdvice(
                    rank=r.rank, peer=seq.peer, sequences=n_seq, length=length, bytes=int(total),
                    sizes=() if assumed else tuple((int(s), int(k)) for s, k in shape_sizes),
                    sizes_assumed=assumed, apart_s=apart_s, combined_s=combined_s,
                    saving=saving.estimate(segs), copy_s=None if copy is None else 2 * n_seq * copy,
                    speedup=apart_s / combined_s if combined_s > 0 else math.inf))
    combine.sort(key=lambda c: -c.saving.value_s)
    return _Combining(tuple(combine), after_sent, after_received, merged_into)


# ---- latency- against bandwidth-bound -------------------------------------------------------------

def _bound_advice(profile: Any, model: PiecewiseFit, line: LineFit) -> tuple[BoundShare, ...]:
    """The sent messages' predicted time split by the single line's dominant term at each size."""
    bound = {"latency-bound": [0, 0, 0.0], "bandwidth-bound": [0, 0, 0.0]}
    for r in profile.ranks:
        for m in r.messages:
            if m.direction != "send":
                continue
            for size, n, _ in _sizes(m):
                term = dominant_term(line.alpha_s, line.beta_s_per_byte, size)
                b = bound["latency-bound" if term == "alpha" else "bandwidth-bound"]
                b[0] += n
                b[1] += int(size * n)
                b[2] += n * model.predict(size)
    all_time = sum(b[2] for b in bound.values())
    return tuple(BoundShare(k, v[0], v[1], v[2], v[2] / all_time if all_time > 0 else 0.0)
                 for k, v in bound.items() if v[0])


def _sent_log2(profile: Any) -> dict[int, int]:
    """Sent messages per power-of-two bucket (its low end), all ranks."""
    counts: dict[int, int] = defaultdict(int)
    for r in profile.ranks:
        for m in r.messages:
            if m.direction == "send":
                for low in m.log2:
                    counts[low.bytes] += low.count
    return counts


def _one_way_shares(profile: Any) -> dict[tuple[int, int], float]:
    """(rank, peer) -> the share of the rank's sends to that peer that are one-way: 1 − received/sent
    from that peer, at least 0 (a rank that receives as many as it sends exchanges every message)."""
    sent: dict[tuple[int, int], int] = defaultdict(int)
    received: dict[tuple[int, int], int] = defaultdict(int)
    for r in profile.ranks:
        for m in r.messages:
            (sent if m.direction == "send" else received)[(r.rank, m.peer)] += m.count
    return {key: max(0.0, 1.0 - received.get(key, 0) / n) for key, n in sent.items() if n > 0}


def _phases(r: Any, one_way: dict[tuple[int, int], float]) -> int:
    """Exchange phases of one rank: its calls that wait for a message (``COMPLETING``), at most one per
    message it receives from a peer it also sends to."""
    calls = sum(c.n for c in r.calls if c.call in COMPLETING)
    exchanged = 0
    for m in r.messages:
        if m.direction == "recv" and (r.rank, m.peer) in one_way:
            exchanged += m.count
    return min(calls, exchanged)


def _copy_model(result: Any) -> tuple[PiecewiseFit | None, str]:
    for s in result.series:
        if s.key.pattern == "memcpy" and not s.key.variant and s.model is not None:
            return s.model.sweep.piecewise, "the memcpy series' piecewise model (same run)"
    return None, ""


def _shapes(seq: Any) -> Iterable[tuple[list[tuple[float, int]], int, int]]:
    """(sizes with their count per sequence, sequences, length) of each shape, and of the sequences
    beyond the kept shapes (mean length, mean size)."""
    for shape_sizes, n, length, _, _ in _shape_rows(seq):
        yield shape_sizes, n, length


def _shape_rows(seq: Any) -> Iterable[tuple[list[tuple[float, int]], int, int, float, bool]]:
    for shape in seq.shapes:
        if shape.sizes is not None:
            yield [(float(s.bytes), s.count) for s in shape.sizes], shape.count, shape.length, float(shape.bytes), False
        else:
            yield [(shape.bytes / shape.length, shape.length)], shape.count, shape.length, float(shape.bytes), True
    if seq.other_count:
        length = max(2, round(seq.other_messages / seq.other_count))
        per = seq.other_bytes / seq.other_count
        yield [(per / length, length)], seq.other_count, length, per, True


def _apart(model: PiecewiseFit, sizes: Sequence[tuple[float, int]], length: int, gap: Gap | None) -> _Cost:
    """One sequence as sent now: Σ T(s_i), or with the gap Σ [T(s_i)/n + (n-1)/n·gap(s_i)]: combining's
    ``sent_apart`` over mixed sizes, as a cost whose interval follows from the segments."""
    cost = _Cost()
    for size, k in sizes:
        if gap is None:
            cost.add(segment_index(model, size), k, size)
        else:
            cost.add(segment_index(model, size), k / length, size)
            cost.constant += k * (length - 1) / length * max(gap.at(size), 0.0)
    return cost


def crossing_why_not(result: Any, chosen: Any) -> str:
    """Why the model run's answer cannot tell what crossing the eager limit costs ("" where it can,
    or where its answer is about another series): the saving of sending a size just above the limit
    eagerly is that crossing, read off the model."""
    answer = getattr(result, "answer", None)
    if answer is None or answer.series != chosen.name or answer.eager_step is not None:
        return ""
    return answer.eager_step_why or "no step at the eager limit"


def _eager_advice(model: PiecewiseFit, limit: int, sizes: dict[int, dict[str, int]],
           ranks_at: dict[int, set[int]]) -> tuple[EagerAdvice, ...]:
    eager_seg = segment_index(model, limit)
    out = []
    for size in sorted(sizes):
        if not limit < size <= JUST_ABOVE * limit:
            continue
        n = sizes[size]["all"]
        now = _one(model, size, n)
        saving = _Cost().plus(now).plus(_Cost().add(eager_seg, n, size), -1.0)
        seg = model.segments[eager_seg]
        out.append(EagerAdvice(bytes=size, messages=n, time_s=model.predict(size),
                               eager_time_s=float(seg.predict(size)), saving=saving.estimate(model.segments),
                               ranks=tuple(sorted(ranks_at[size]))))
    out.sort(key=lambda e: -e.saving.value_s)
    return tuple(out)  # every size: the action sums them all; the advice keeps MAX_EAGER_ROWS to show


def _buffering_advice(model: PiecewiseFit, copy: PiecewiseFit, sizes: dict[int, dict[str, int]]) -> tuple[BufferingAdvice, ...]:
    out = []
    for size, n in sizes.items():
        c = _copy_time(copy, size) or 0.0
        out.append(BufferingAdvice(bytes=size, messages=n["all"], buffered_messages=n["buffered"],
                                   time_s=model.predict(size), copy_s=c, cost_now_s=n["buffered"] * c,
                                   cost_if_all_s=n["all"] * c))
    out.sort(key=lambda b: (-b.buffered_messages, -b.messages, b.bytes))
    return tuple(out)


def regime_of(low: int, high: int, eager: int | None, n_half: float | None) -> str:
    """The model's regime for sizes in [low, high): bandwidth-bound above n½, else eager or
    rendezvous by the eager limit (latency-bound when the limit was not measured)."""
    if n_half is not None and low >= n_half:
        return "bandwidth-bound"
    if eager is None:
        return "latency-bound"
    if goes_eagerly(high - 1, eager):
        return "eager"
    if not goes_eagerly(low, eager):
        return "rendezvous"
    return "eager/rendezvous"


def _histogram(counts: dict[int, int], eager: int | None, n_half: float | None) -> tuple[HistogramBin, ...]:
    out = []
    for low in sorted(counts):
        if counts[low] <= 0:
            continue
        high = 1 if low == 0 else 2 * low
        out.append(HistogramBin(low, high, counts[low], regime_of(low, high, eager, n_half)))
    return tuple(out)


def _actions(combine: Sequence[CombineAdvice], eager: Sequence[EagerAdvice],
             buffering: Sequence[BufferingAdvice], faults: PageFaults | None = None) -> tuple[Action, ...]:
    out = []
    if faults is not None and faults.saving_s:
        out.append(Action("page faults", faults.saving_s,
                          f"keep the pages of the MPI's temporary buffers ({faults.setting} in the job's "
                          "environment: glibc then keeps freed memory up to the trim threshold; a suggestion to measure)"))
    combined = sum(c.net_saving_s for c in combine)
    if combine and combined > 0:
        seqs = sum(c.sequences for c in combine)
        out.append(Action("combine", combined, f"combine the back-to-back sends ({seqs:,} sequences)"))
    above = sum(e.saving.value_s for e in eager)
    if eager and above > 0:
        out.append(Action("eager", above, f"keep {sum(e.messages for e in eager):,} messages at or below the eager limit"))
    now = sum(b.cost_now_s for b in buffering)
    if now > 0:
        out.append(Action("buffering", now, f"send the {sum(b.buffered_messages for b in buffering):,} buffered "
                                            "messages in standard mode (no copy)"))
    out.sort(key=lambda a: -a.saving_s)
    return tuple(out)
