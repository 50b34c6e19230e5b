"""Advice for collectives: k collectives of s bytes against one of k·s (the message-combining
question one level up: three 8-byte allreduces cost about three latencies, one of 24 bytes one),
and which algorithm the model favours per size, with the MPI's own variables to select it.

Everything here is a prediction from the run's point-to-point model except what the run measured
(the collective at s and at k·s); the favoured algorithm is a suggestion to measure, never a fact:
the model leaves out what it says it leaves out (algorithms.py).
"""

from __future__ import annotations

import math

import numpy as np

from msgperf.analysis.collectives.algorithms import algorithms_of
from msgperf.analysis.collectives.fits import Collectives, CollectiveFit
from msgperf.analysis.collectives.model import predict
from msgperf.analysis.collectives.naming import CANNOT_TELL, NONE
from msgperf.analysis.collectives.selection import selection_words
from msgperf.analysis.samples import AnalysisError
from msgperf.values import Value

# Below this relative margin over the runner-up, the model favours no algorithm (about equal)
FAVOUR_MARGIN = 0.10


class AlgorithmChoice(Value):
    """One algorithm's predicted time for k collectives of s bytes and for one of k·s."""

    algorithm: str
    apart_s: float
    combined_s: float

    @property
    def speedup(self) -> float:
        return self.apart_s / self.combined_s if self.combined_s > 0 else math.nan


class Favoured(Value):
    """Over sizes [from_bytes, to_bytes]: the algorithm the model predicts fastest, by how much over
    the runner-up, the algorithm the run's measurement was named (where it measured), and the
    variables that select the favoured one."""

    from_bytes: int
    to_bytes: int
    algorithm: str  # "" when no algorithm is ahead by FAVOUR_MARGIN (about equal)
    runner_up: str
    margin: float  # runner-up / favoured - 1 (median over the range)
    named: str  # what the run's measurement was named over these sizes ("" when not measured)
    select: str  # the MPI's variables that select the favoured algorithm ("" when none or unknown MPI)


class ModelMiss(Value):
    """A size the run measured where every algorithm's prediction lies outside the model's band."""

    bytes: int
    measured_s: float
    lowest_s: float  # the fastest and slowest prediction there
    highest_s: float


class CollectiveAdvice(Value):
    collective: str
    ranks: int
    messages: int
    bytes: int
    choices: tuple[AlgorithmChoice, ...]  # every algorithm, predicted
    used: str  # the algorithm the headline prediction uses: named by the run at s, else the fastest predicted
    used_why: str
    measured_apart_s: float | None  # k × the measured time at s (when the run measured s)
    measured_combined_s: float | None  # the measured time at k·s
    favoured: tuple[Favoured, ...]
    mpi: str
    model_words: str  # what the predictions rest on (p2p model, γ)
    # the measured sizes of the question (s, k·s) where the times point to none of the modelled
    # algorithms: there the predictions are not this MPI's, and the advice says so
    misses: tuple[ModelMiss, ...] = ()

    @property
    def choice(self) -> AlgorithmChoice:
        return next(c for c in self.choices if c.algorithm == self.used)

    @property
    def measured_speedup(self) -> float | None:
        if self.measured_apart_s is None or not self.measured_combined_s:
            return None
        return self.measured_apart_s / self.measured_combined_s


def _favoured(collectives: Collectives, fit: CollectiveFit | None, collective: str, ranks: int,
              sizes: list[int]) -> tuple[Favoured, ...]:
    p2p = collectives.p2p
    algorithms = algorithms_of(collective)
    named = {v.bytes: v.verdict for v in fit.sizes} if fit is not None else {}
    rows = []
    for s in sizes:
        times = sorted(((predict(p2p, a, ranks, s), a.key) for a in algorithms))
        margin = times[1][0] / times[0][0] - 1 if len(times) > 1 and times[0][0] > 0 else math.inf
        rows.append((s, times[0][1] if margin >= FAVOUR_MARGIN else "",
                     times[1][1] if len(times) > 1 else "", margin, named.get(s, "")))
    out: list[Favoured] = []
    group: list[tuple] = []

    def close():
        if group:
            s0, alg, runner, _, name = group[0]
            names = {g[4] for g in group if g[4]}
            out.append(Favoured(s0, group[-1][0], alg, runner, float(np.median([g[3] for g in group])),
                                next(iter(names)) if len(names) == 1 else ("" if not names else "several"),
                                selection_words(collectives.mpi, collective, alg) if alg else ""))

    for row in rows:
        if group and (row[1], row[4]) != (group[0][1], group[0][4]):
            close()
            group = []
        group.append(row)
    close()
    return tuple(out)


def collective_advice(collectives: Collectives, collective: str, messages: int, size: int,
                      ranks: int | None = None) -> CollectiveAdvice:
    """k = ``messages`` collectives of ``size`` bytes against one of k·s, and the favoured algorithm
    per size over the run's sizes (or, without a measurement of this collective, 1 B to k·s)."""
    if collectives.p2p is None:
        raise AnalysisError(f"{collective}: nothing to predict from ({collectives.why_not})")
    algorithms = algorithms_of(collective)
    if not algorithms:
        raise AnalysisError(f"no model of a collective named {collective!r}")
    fit = collectives.find(collective, ranks)
    if ranks is None:
        ranks = fit.ranks if fit is not None else max((f.ranks for f in collectives.fits), default=2)
    p2p = collectives.p2p
    k, s = messages, size
    choices = tuple(AlgorithmChoice(a.key, k * predict(p2p, a, ranks, s), predict(p2p, a, ranks, k * s))
                    for a in algorithms)
    measured = {v.bytes: v for v in fit.sizes} if fit is not None else {}
    at_s = measured.get(s)
    used, why = "", ""
    if at_s is not None and at_s.verdict not in (CANNOT_TELL, NONE):
        used, why = at_s.verdict, f"the algorithm this run's {collective} at {s} B was named"
    else:
        fastest = min(choices, key=lambda c: c.apart_s)
        used = fastest.algorithm
        why = ("the fastest predicted at s (the run's own algorithm at s is not named: "
               + (at_s.verdict if at_s is not None else "s not measured") + ")")
    at_ks = measured.get(k * s)
    sizes = sorted(measured) or [int(b) for b in np.unique(np.geomspace(1, max(k * s, 2), 24).round())]
    misses = tuple(ModelMiss(v.bytes, v.measured_s, min(usable), max(usable))
                   for v in (at_s, at_ks) if v is not None and v.points_to == NONE
                   if (usable := [p.predicted_s for p in v.predictions
                                  if p.predicted_s > 0 and math.isfinite(p.predicted_s)]))
    return CollectiveAdvice(collective, ranks, k, s, choices, used, why,
                            k * at_s.measured_s if at_s is not None else None,
                            at_ks.measured_s if at_ks is not None else None,
                            _favoured(collectives, fit, collective, ranks, sizes), collectives.mpi,
                            f"{p2p.series}'s piecewise model; {p2p.gamma_words}", misses)
