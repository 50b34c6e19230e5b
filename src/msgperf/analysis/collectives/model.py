"""The point-to-point model a collective's prediction rests on, and the prediction itself.

The inputs come from the same run: the piecewise model of its ping-pong (one-way time T(m) of an
m-byte message, segment by segment: α and β of each, the eager limit among the breakpoints),
its sendrecv when measured (a step in which each rank sends and receives at once), its memcpy
(the time of a local copy of m bytes), its self-message (a rank's message to itself) and, for reductions, γ: the time of combining
m bytes, from the ``reduce-local`` pattern (MPI_Reduce_local with the operator and type the
collective patterns reduce with, MPI_SUM over MPI_UNSIGNED_CHAR; its ``double`` variant sums
MPI_DOUBLE, what applications reduce: ``for_datatype``). γ is measured, not estimated
from memcpy: on the machine this was written on, MPI_Reduce_local of bytes took 0.9-1.9 ns/B where

memcpy took 0.01-0.02 ns/B (an operator loop over bytes, not a streaming copy), so no factor of
memcpy would do. Without reduce-local in the run, the reductions' predictions leave γ out and say
so; without memcpy, the local copies likewise. A step that exchanges m bytes and combines them into
what it sends next (recursive doubling and halving, a ring's reduce-scatter) is charged what the
``sendrecv-reduce`` pattern measured for it whole, when the run has it: its sendrecv and its
reduce-local measured apart add up to less (0.37-0.9x at 32-64 KiB on MPICH 5.0, depending on the
launch: bench/allreduce_parts.c, bench/RESULTS.md §19). Likewise a step that exchanges through a
derived datatype built for it (Bruck's alltoall) is charged what ``sendrecv-indexed`` measured for
it whole: the datatype's life and its packing cost more than a sendrecv and a memcpy of the block
(bench/alltoall_bruck_parts.c). A binomial bcast's sends, its calls back to back from one root, are
charged what ``send-stream`` measured per message (bench/bcast_stream.c).
"""

from __future__ import annotations

from typing import Callable

import msgspec
from msgperf.analysis.collectives.algorithms import Algorithm, Step
from msgperf.analysis.model import PiecewiseFit
from msgperf.values import Value

# The point-to-point patterns the predictions are made from, one per input: one-way steps (the
# ping-pong's piecewise model), steps both ways at once, local copies, combining (γ), a step both
# ways that combines what it received into what it sends next, a step both ways through a datatype
# built for it (both measured whole), a rank's message to itself, an exchange whose persistent
# requests are made and freed every call, one-way sends back to back
ONE_WAY, BOTH_WAYS, COPY, COMBINE = "pingpong", "sendrecv", "memcpy", "reduce-local"
BOTH_WAYS_COMBINED, BOTH_WAYS_INDEXED, TO_SELF = "sendrecv-reduce", "sendrecv-indexed", "self-message"
BOTH_WAYS_INITS, STREAM = "exchange-init", "send-stream"
MODEL_PATTERNS = (ONE_WAY, BOTH_WAYS, COPY, COMBINE, BOTH_WAYS_COMBINED, BOTH_WAYS_INDEXED, TO_SELF, BOTH_WAYS_INITS,
                  STREAM)  # in the order a plan measures them

DOUBLE_TYPES = frozenset({"MPI_DOUBLE", "MPI_DOUBLE_PRECISION"})  # 8-byte floats: one γ


class PointToPoint(Value):
    """What the predictions rest on: the ping-pong's model and, when measured, memcpy's."""

    series: str  # the series whose model gives T(m): "pingpong"
    pingpong: PiecewiseFit
    memcpy: PiecewiseFit | None  # None: the run has no memcpy; local copies are not predicted
    reduce_local: PiecewiseFit | None = None  # None: no reduce-local; γ is not predicted
    exchange: PiecewiseFit | None = None  # the sendrecv pattern's model; None: an exchange costs T(m)
    # reduce-local's double variant (MPI_SUM over MPI_DOUBLE); None: not measured
    reduce_local_double: PiecewiseFit | None = None
    gamma_type: str = "MPI_UNSIGNED_CHAR"  # the type reduce_local sums
    family: str = ""  # the MPI's family ("mpich", "openmpi"): its implementation's own steps, where they differ
    # the sendrecv-reduce pattern's model: a step that exchanges m bytes and combines them into what
    # it sends next, measured whole; None: such a step costs both_ways(m) + γ·m
    exchange_combine: PiecewiseFit | None = None
    # the sendrecv-indexed pattern's model: a step that exchanges m bytes through a datatype it
    # builds, packing them, measured whole; None: such a step costs both_ways(m) + a copy of m
    exchange_indexed: PiecewiseFit | None = None
    # the self-message pattern's model: a rank's message of m bytes to itself (MPICH's scattered
    # alltoall posts its own block so); None: it costs the ping-pong's one-way time T(m)
    to_self: PiecewiseFit | None = None
    # the exchange-init pattern's model: an exchange of m bytes whose persistent requests are made,
    # started and freed every call (Open MPI's linear alltoall); None: it costs both_ways(m)
    exchange_init: PiecewiseFit | None = None
    # the send-stream pattern's model: a message of m bytes sent right after the last, no reply (a
    # binomial bcast's sends when its calls run back to back); None: it costs T(m)
    stream: PiecewiseFit | None = None

    @classmethod
    def measured(cls, series: str, one_way: PiecewiseFit, model: Callable[[str, str], PiecewiseFit | None],
                 family: str = "") -> "PointToPoint":
        """The model with every input the run measured: ``model(pattern, variant)`` is that
        pattern's piecewise model, or None where the run has none."""
        return cls(series, one_way, model(COPY, ""), model(COMBINE, ""), model(BOTH_WAYS, ""),
                   model(COMBINE, "double"), family=family, exchange_combine=model(BOTH_WAYS_COMBINED, ""),
                   exchange_indexed=model(BOTH_WAYS_INDEXED, ""), to_self=model(TO_SELF, ""),
                   exchange_init=model(BOTH_WAYS_INITS, ""), stream=model(STREAM, ""))

    @property
    def patterns(self) -> frozenset[str]:
        """The point-to-point patterns whose models this holds."""
        inputs = {ONE_WAY: self.pingpong, BOTH_WAYS: self.exchange, COPY: self.memcpy, COMBINE: self.reduce_local,
                  BOTH_WAYS_COMBINED: self.exchange_combine, BOTH_WAYS_INDEXED: self.exchange_indexed,
                  TO_SELF: self.to_self, BOTH_WAYS_INITS: self.exchange_init, STREAM: self.stream}
        return frozenset(p for p, model in inputs.items() if model is not None)

    def for_datatype(self, datatype: str | None) -> "PointToPoint":
        """The same model with γ of ``datatype``'s sums where the run measured it (MPI_DOUBLE and
        Fortran's MPI_DOUBLE_PRECISION: reduce-local's double variant); else unchanged, γ of bytes."""
        if datatype in DOUBLE_TYPES and self.reduce_local_double is not None:
            # sendrecv-reduce sums bytes: a step of doubles is its parts, exchange + γ of doubles
            return msgspec.structs.replace(self, reduce_local=self.reduce_local_double, gamma_type="MPI_DOUBLE",
                                           exchange_combine=None)
        return self

    @property
    def gamma_words(self) -> str:
        gamma = (f"γ from reduce-local (MPI_Reduce_local, MPI_SUM over {self.gamma_type})"
                 if self.reduce_local is not None else
                 "reductions' compute γ left out: the run has no reduce-local (add --pattern reduce-local)")
        copies = ("local copies from memcpy" if self.memcpy is not None else
                  "local copies left out: the run has no memcpy (add --pattern memcpy)")
        steps = ("a step that sends and receives at once from sendrecv" if self.exchange is not None else
                 "a step that sends and receives at once costs the one-way time: the run has no sendrecv "
                 "(add --pattern sendrecv)")
        if self.exchange_combine is not None:
            steps += ("; one that also combines what it received into what it sends next from sendrecv-reduce "
                      "(measured whole: the parts do not add up)")
        if self.exchange_indexed is not None:
            steps += ("; one through a datatype built for it (Bruck's alltoall) from sendrecv-indexed "
                      "(measured whole, its packing included)")
        if self.to_self is not None:
            steps += "; a rank's message to itself (MPICH's scattered alltoall) from self-message"
        if self.exchange_init is not None:
            steps += "; an exchange through requests made every call (Open MPI's linear alltoall) from exchange-init"
        if self.stream is not None:
            steps += "; a binomial bcast's sends, where its calls ran back to back from one root, from send-stream"
        return f"{steps}; {gamma}; {copies}"

    def one_way(self, size: float) -> float:
        """T(m): the ping-pong's one-way time of an m-byte message (a 0-byte message, or one below
        the smallest size measured, costs what the smallest measured size costs)."""
        return _at(self.pingpong, size)

    def both_ways(self, size: float) -> float:
        """One MPI_Sendrecv of m bytes each way (the sendrecv pattern's model; T(m) without it)."""
        return self.one_way(size) if self.exchange is None else _at(self.exchange, size)

    def both_ways_combined(self, size: float) -> float:
        """One MPI_Sendrecv of m bytes each way and the combining of the m bytes received into the
        buffer sent next (sendrecv-reduce's model; both_ways + γ·m without it)."""
        if self.exchange_combine is None:
            return self.both_ways(size) + self.combine(size)
        return _at(self.exchange_combine, size)

    def both_ways_init(self, size: float) -> float:
        """An exchange of m bytes each way whose persistent requests are made, started and freed for it
        (exchange-init's model; both_ways without it)."""
        return self.both_ways(size) if self.exchange_init is None else _at(self.exchange_init, size)

    def streamed(self, size: float) -> float:
        """A message of m bytes sent right after the last one, no reply (send-stream's model; T(m)
        without it)."""
        return self.one_way(size) if self.stream is None else _at(self.stream, size)

    def self_message(self, size: float) -> float:
        """A rank's message of m bytes to itself (self-message's model; T(m) without it)."""
        return self.one_way(size) if self.to_self is None else _at(self.to_self, size)

    def both_ways_indexed(self, size: float) -> float:
        """One step of m bytes each way through a datatype built, committed and freed for it, its
        packing included (sendrecv-indexed's model; both_ways + a copy of m without it)."""
        if self.exchange_indexed is None:
            return self.both_ways(size) + self.copy(size)
        return _at(self.exchange_indexed, size)

    def copy(self, size: float) -> float:
        """A local copy of m bytes (memcpy's model; 0 without memcpy in the run)."""
        return _scaled(self.memcpy, size)

    def combine(self, size: float) -> float:
        """γ·m: combining m bytes of a reduction (reduce-local's model; 0 without it)."""
        return _scaled(self.reduce_local, size)


def _at(model: PiecewiseFit, size: float) -> float:
    """The model's time at ``size`` bytes; below its smallest measured size, that size's time."""
    return max(float(model.predict(max(size, float(model.segments[0].from_bytes)))), 0.0)


def _scaled(model: PiecewiseFit | None, size: float) -> float:
    """The model's time at ``size`` bytes; below its smallest measured size, that size's time
    scaled down in proportion (a copy of nothing costs nothing)."""
    if model is None or size <= 0:
        return 0.0
    return _at(model, size) * size / max(size, float(model.segments[0].from_bytes))


def step_time(p2p: PointToPoint, step: Step, back_to_back: bool = False) -> float:
    """``count`` rounds of one message, its combining and its local copy; an exchange that combines
    what it received (recursive doubling and halving, a ring's reduce-scatter) as sendrecv-reduce
    measured it, whole; one through a datatype of its own (Bruck's) as sendrecv-indexed did; with
    ``back_to_back`` (calls from one root, no barrier between them) a streamed send as send-stream did."""
    if step.exchange_combined:
        return step.count * (p2p.both_ways_combined(step.message_bytes) + p2p.copy(step.copy_bytes))
    if step.exchange_indexed:
        return step.count * (p2p.both_ways_indexed(step.message_bytes) + p2p.combine(step.reduce_bytes)
                             + p2p.copy(step.copy_bytes))
    sent = 0.0
    if step.message_bytes is not None and step.to_self:
        sent = p2p.self_message(step.message_bytes)
    elif step.message_bytes is not None and step.streamed and back_to_back:
        sent = p2p.streamed(step.message_bytes)
    elif step.message_bytes is not None and step.exchange:
        sent = p2p.both_ways_init(step.message_bytes) if step.inits else p2p.both_ways(step.message_bytes)
    elif step.message_bytes is not None:
        sent = p2p.one_way(step.message_bytes)
    return step.count * (sent + p2p.combine(step.reduce_bytes) + p2p.copy(step.copy_bytes))


def predict(p2p: PointToPoint, algorithm: Algorithm, ranks: int, size: float, back_to_back: bool = False) -> float:
    """The algorithm's time for ``ranks`` ranks and a size of ``size`` bytes, step by step; with
    ``back_to_back``, per call of calls run back to back from one root (the kernels' default for a
    collective; not under --iteration-barrier or --root rotate, nor in a program that waits between)."""
    return sum(step_time(p2p, s, back_to_back) for s in algorithm.steps_of(p2p.family)(ranks, float(size)))
