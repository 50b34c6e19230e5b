"""The point-to-point model a collective's prediction rests on, and the prediction itself.

The inputs come from the same run: the piecewise model of its ping-pong (one-way time T(m) of an
m-byte message, segment by segment: α and β of each, the eager limit among the breakpoints),
its memcpy (the time of a local copy of m bytes) and, for reductions, γ: the time per byte of
combining two vectors. msgperf has no kernel that times an MPI reduction operator alone, so γ is
*estimated* from memcpy: a sum `a[i] += b[i]` streams three vectors where a copy streams two, so
γ(m) = 1.5 × memcpy's time per byte at m (``GAMMA_PER_COPY``). Without memcpy in the run the
copies and γ are left out of the predictions, and the result says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from msgperf.analysis.collectives.algorithms import Algorithm, Step
from msgperf.analysis.piecewise import PiecewiseFit

GAMMA_PER_COPY = 1.5  # streams of a two-operand sum (2 read, 1 written) over a copy's (1 read, 1 written)


@dataclass(frozen=True)
class PointToPoint:
    """What the predictions rest on: the ping-pong's model and, when measured, memcpy's."""

    series: str  # the series whose model gives T(m): "pingpong"
    pingpong: PiecewiseFit
    memcpy: PiecewiseFit | None  # None: the run has no memcpy; copies and γ are not predicted

    @property
    def gamma_words(self) -> str:
        if self.memcpy is None:
            return ("reduction compute γ and local copies not predicted: the run has no memcpy "
                    "(add --pattern memcpy)")
        return (f"γ estimated as {GAMMA_PER_COPY:g} × memcpy's time per byte (a sum streams three "
                "vectors, a copy two); local copies from memcpy")

    def one_way(self, size: float) -> float:
        """T(m): the ping-pong's one-way time of an m-byte message (a 0-byte message, or one below
        the smallest size measured, costs what the smallest measured size costs)."""
        first = self.pingpong.segments[0]
        return max(float(self.pingpong.predict(max(size, float(first.from_bytes)))), 0.0)

    def copy(self, size: float) -> float:
        if self.memcpy is None or size <= 0:
            return 0.0
        first = self.memcpy.segments[0]
        at = max(size, float(first.from_bytes))
        return max(float(self.memcpy.predict(at)), 0.0) * size / at

    def combine(self, size: float) -> float:
        """γ·m: combining m bytes of a reduction."""
        return GAMMA_PER_COPY * self.copy(size)


def step_time(p2p: PointToPoint, step: Step) -> float:
    """``count`` rounds of one message, its combining and its local copy."""
    sent = p2p.one_way(step.message_bytes) if step.message_bytes is not None else 0.0
    return step.count * (sent + p2p.combine(step.reduce_bytes) + p2p.copy(step.copy_bytes))


def predict(p2p: PointToPoint, algorithm: Algorithm, ranks: int, size: float) -> float:
    """The algorithm's time for ``ranks`` ranks and a size of ``size`` bytes, step by step."""
    return sum(step_time(p2p, s) for s in algorithm.steps(ranks, float(size)))
