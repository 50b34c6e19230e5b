"""Which algorithm's prediction fits a collective's measured time, size by size and per size range.

At each size the measured time (its median with its interval: analysis/model/points.py) is set against
every algorithm's prediction (model.predict). The rule, right or "cannot tell", never wrong:

- an algorithm *fits* when its prediction lies within ``FIT_TOLERANCE`` (25 %) of the measured
  time, or inside the measured interval;
- none fits: "none of these" (the closest one and its ratio are the evidence);
- the fitting algorithm closest to the measurement (in log ratio) is named when every other
  fitting algorithm's prediction differs from its own by more than the measured interval's width
  plus the model's resolution (``SEPARATION`` × the measured time, or the run's model tolerance if
  larger); otherwise "cannot tell" between those that do not differ by that much.

``SEPARATION`` is the fit tolerance itself (25 %): a prediction is trusted to within that, so two
closer than that cannot be told apart however narrow the measured interval. On the ground-truth
runs of bench/collective_zoo.py (MPICH and Open MPI, 2 ranks) the set algorithm's prediction was
off by 5-20 % at the median where the model fits, and the same case measured twice moved by up to
a third at some sizes (bench/RESULTS.md §19); 15 % named 12 sizes wrong there, 25 % 7.

A run names an algorithm only where the model's error, as measured on runs with the algorithm
set, did not reach the other algorithms (``names``): for a collective those runs set
(``VALIDATED``), at 2 ranks (``NAMED_RANKS``), with every point-to-point pattern the collective's
models use measured in the run, when every other algorithm's prediction lies outside
``MODEL_BAND`` × the measured time (the band the set algorithm's own predicted/measured kept on
those runs) and the size next to it is named the same; and then only where at least two launches, each analysed alone, give the same name and none
says otherwise (``confirmed``: one launch's point-to-point inputs and collective can move
together). Elsewhere the verdict is "cannot tell" with what the times alone point to as its
evidence and why no name was given (``pointer_only``). A name also needs undisturbed launches: where the run's
conditions say the machine was busy, the ranks shared a core or were oversubscribed
(analysis/launches/conditions.py), a name becomes "cannot tell" with that reason (``withhold``): a
time slowed by other work looks like a slower algorithm.

Consecutive sizes with the same verdict form a size range; its ratio is the median of
predicted / measured of the named algorithm over the range, and ``ratios`` the same median for
every algorithm (what the collectives table prints), over the finite ratios.
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

import msgspec
import numpy as np

from msgperf.values import Value

FIT_TOLERANCE = 0.25
SEPARATION = FIT_TOLERANCE
# On the collective zoo's runs with the algorithm set (bench/collective_zoo.py, 2 ranks, every model
# pattern measured: 120 (case, launch) fits, 2,160 sizes, bench/RESULTS.md §19; one 2-vCPU machine,
# shared memory) the set algorithm's own predicted/measured lay in 0.49-1.79 at 98 % of sizes (its
# 1st and 99th percentiles). A name needs every other algorithm's prediction outside this band: on
# those runs the model's own error did not make another algorithm fit that far off. Through the code
# (all twelve rounds, a collective refused where the round lacked one of its patterns) 68 sizes
# were named, none wrong; the neighbour guards against one size's fluke, not against a whole launch
# moving (neighbours share it).
MODEL_BAND = (0.5, 1.8)
NAMED_RANKS = 2  # the rank count the rule was checked at
# the collectives whose algorithm the zoo sets (bench/collective_zoo.py): the others are never named,
# and a barrier moves no bytes, so its sizes are one measurement repeated, not neighbours that agree
VALIDATED = frozenset({"allreduce", "bcast", "alltoall"})
NONE = "none of these"
CANNOT_TELL = "cannot tell"


class Prediction(Value):
    algorithm: str
    predicted_s: float

    def ratio(self, measured_s: float) -> float:
        """predicted / measured."""
        return self.predicted_s / measured_s if measured_s > 0 else math.nan


class SizeVerdict(Value):
    bytes: int
    measured_s: float
    low_s: float | None  # the measured interval (None: a single value without one)
    high_s: float | None
    predictions: tuple[Prediction, ...]
    verdict: str  # an algorithm's key, CANNOT_TELL or NONE
    candidates: tuple[str, ...]  # the algorithms that fit and cannot be told apart (the named one first)
    why: str  # the evidence in words
    # The algorithm the times alone point to, where a name was withheld because the launch was
    # disturbed (``withhold``): a slower time may then be interference, not a slower algorithm
    evidence: str = ""

    def prediction(self, algorithm: str) -> Prediction | None:
        return next((p for p in self.predictions if p.algorithm == algorithm), None)

    @property
    def points_to(self) -> str:
        """The algorithm named, else what the times alone point to (NONE, or "" for several)."""
        return self.verdict if self.verdict not in (CANNOT_TELL, NONE) else self.evidence or (
            NONE if self.verdict == NONE else "")


class SizeRange(Value):
    from_bytes: int
    to_bytes: int
    sizes: int
    verdict: str
    candidates: tuple[str, ...]
    ratio: float | None  # median predicted / measured of the named algorithm (of the closest candidate
    # for "cannot tell"; None for "none of these")
    # median predicted / measured of every algorithm over the range, by its key (None: no finite ratio)
    ratios: dict[str, float | None] = msgspec.field(default_factory=dict)
    evidence: str = ""  # the algorithm the range's times alone point to, where a name is withheld ("": none)


def _within(p: float, m: float, low: float | None, high: float | None) -> bool:
    if low is not None and high is not None and low <= p <= high:
        return True
    return m > 0 and p > 0 and abs(math.log(p / m)) <= math.log1p(FIT_TOLERANCE)


def judge(size: int, measured_s: float, low_s: float | None, high_s: float | None,
          predictions: Sequence[Prediction], tolerance: float) -> SizeVerdict:
    preds = tuple(predictions)
    usable = [p for p in preds if p.predicted_s > 0 and math.isfinite(p.predicted_s)]
    if not measured_s > 0 or not usable:
        return SizeVerdict(size, measured_s, low_s, high_s, preds, CANNOT_TELL, (),
                           "no positive measured time or prediction")
    distance = {p.algorithm: abs(math.log(p.predicted_s / measured_s)) for p in usable}
    closest = min(usable, key=lambda p: distance[p.algorithm])
    fits = sorted((p for p in usable if _within(p.predicted_s, measured_s, low_s, high_s)),
                  key=lambda p: distance[p.algorithm])
    if not fits:
        # a call with nothing to move, timed far below every algorithm's steps: the MPI returned at once
        # (MPICH's alltoall of 0 B took 11 ns where its steps would take 1-2 µs)
        idle = size == 0 and all(p.predicted_s > 4 * measured_s for p in usable)
        return SizeVerdict(size, measured_s, low_s, high_s, preds, NONE, (),
                           f"no prediction within {FIT_TOLERANCE:.0%}: the closest, {closest.algorithm}, "
                           f"is {closest.ratio(measured_s):.2f} × the measured time"
                           + ("; with nothing to move the MPI returned at once, running no algorithm's steps"
                              if idle else ""))
    width = (high_s - low_s) if low_s is not None and high_s is not None else 0.0
    resolution = width + max(tolerance, SEPARATION) * measured_s
    best = fits[0]
    alike = tuple(p for p in fits[1:] if abs(p.predicted_s - best.predicted_s) <= resolution)
    if alike:
        names = (best.algorithm, *(p.algorithm for p in alike))
        return SizeVerdict(size, measured_s, low_s, high_s, preds, CANNOT_TELL, names,
                           f"{' and '.join(names)} fit and their predictions differ by less than the "
                           f"measured interval plus the model's resolution ({resolution * 1e6:.3g} µs)")
    others = [p for p in fits[1:]]
    why = f"{best.algorithm} at {best.ratio(measured_s):.2f} × measured"
    why += ("; " + ", ".join(f"{p.algorithm} at {p.ratio(measured_s):.2f}" for p in others) +
            " also within tolerance but farther, beyond the interval" if others else
            "; no other prediction within tolerance")
    return SizeVerdict(size, measured_s, low_s, high_s, preds, best.algorithm, (best.algorithm,), why)


def withhold(v: SizeVerdict, reason: str) -> SizeVerdict:
    """A name is valid only when the time is the algorithm's: on a disturbed launch (a busy machine,
    ranks sharing a core, oversubscribed) a named verdict becomes "cannot tell", with the reason."""
    if v.verdict in (CANNOT_TELL, NONE):
        return v
    return msgspec.structs.replace(v, verdict=CANNOT_TELL, evidence=v.verdict,
                                   why=f"{reason}: a slower time may be interference, not a slower algorithm "
                                       f"(the times alone point to {v.verdict}: {v.why})")


def apart(v: SizeVerdict) -> bool:
    """``v`` names an algorithm and every other algorithm's prediction lies outside ``MODEL_BAND`` ×
    the measured time."""
    if v.verdict in (CANNOT_TELL, NONE) or not v.measured_s > 0:
        return False
    low, high = MODEL_BAND
    return all(not low <= p.ratio(v.measured_s) <= high for p in v.predictions if p.algorithm != v.verdict)


def names(verdicts: Sequence[SizeVerdict], ranks: int, lacking: Sequence[str] = (),
          collective: str = "allreduce") -> tuple[SizeVerdict, ...]:
    """The verdicts a run shows, by size: a name where it holds (module docstring: a ``collective``
    the ground truth checked, ``ranks`` at most ``NAMED_RANKS``, none of the model's patterns
    ``lacking`` a model in the run, every other prediction outside ``MODEL_BAND``, and the size next
    to it named the same); elsewhere "cannot tell" with what the times alone point to and why no
    name (``pointer_only``)."""
    ordered = sorted(verdicts, key=lambda v: v.bytes)
    held = [apart(v) for v in ordered]
    low, high = MODEL_BAND
    out = []
    for i, v in enumerate(ordered):
        twin = any(0 <= j < len(ordered) and held[j] and ordered[j].verdict == v.verdict for j in (i - 1, i + 1))
        if v.verdict in (CANNOT_TELL, NONE):
            out.append(pointer_only(v, ""))
        elif collective not in VALIDATED:
            out.append(pointer_only(v, f"names are checked against runs with the algorithm set for "
                                       f"{', '.join(sorted(VALIDATED))} only (bench/collective_zoo.py)"))
        elif ranks > NAMED_RANKS:
            out.append(pointer_only(v, f"at {ranks} ranks the point-to-point model leaves out the contention of "
                                       f"transfers that run at once (names are checked at {NAMED_RANKS} ranks)"))
        elif lacking:
            out.append(pointer_only(v, f"the run has no model of {', '.join(lacking)} (not measured, or not "
                                       "modelled), which the predictions need to be as close as a name requires "
                                       "(msgperf run measures it beside a collective)"))
        elif not held[i]:
            near = min((p for p in v.predictions if p.algorithm != v.verdict and low <= p.ratio(v.measured_s) <= high),
                       key=lambda p: abs(math.log(p.ratio(v.measured_s))))
            out.append(pointer_only(v, f"{near.algorithm} is predicted at {near.ratio(v.measured_s):.2f} × the "
                                       f"measured time, inside the {low:g}-{high:g} band the model's own error spans "
                                       "on runs with the algorithm set (bench/RESULTS.md §19)"))
        elif not twin:
            out.append(pointer_only(v, "the sizes beside it are not named the same (a name needs two sizes in a row)"))
        else:
            out.append(msgspec.structs.replace(v, why=f"{v.why}; every other prediction is outside {low:g}-{high:g} × "
                                                  "the measured time, and the size beside it is named the same"))
    return tuple(out)


def confirmed(verdicts: Sequence[SizeVerdict], by_launch: Mapping[int, Mapping[int, SizeVerdict]]
              ) -> tuple[SizeVerdict, ...]:
    """The verdicts of all launches pooled (``verdicts``) with the names the launches give: a size is
    named where at least two launches, each analysed alone (``by_launch``: launch -> size -> that
    launch's verdict, every rule of ``names`` applied), give the same name, whatever the pooled
    verdict (pooled, the interval spans the launches and seldom parts the algorithms); a pooled name
    no two launches agree on becomes "cannot tell" with why. One launch's point-to-point inputs and
    collective can move together (a launch whose inputs ran slow over-predicted the set algorithm
    by 2x: bench/RESULTS.md §19); the next launch does not repeat it."""
    out = []
    for v in sorted(verdicts, key=lambda v: v.bytes):
        seen = {i: sizes[v.bytes] for i, sizes in sorted(by_launch.items()) if v.bytes in sizes}
        given = {w.verdict for w in seen.values()}
        name = next(iter(given)) if len(seen) >= 2 and len(given) == 1 else CANNOT_TELL
        if name not in (CANNOT_TELL, NONE):
            i, first = next(iter(seen.items()))
            out.append(msgspec.structs.replace(
                v, verdict=name, candidates=(name,), evidence="",
                why=f"each of launches {', '.join(map(str, seen))}, analysed alone, names {name} (launch {i}: {first.why})"))
        elif v.verdict in (CANNOT_TELL, NONE):
            out.append(v)
        elif len(seen) < 2:
            out.append(pointer_only(v, "fewer than two launches, each analysed alone, judged it: a name needs the same "
                                       "name in two (msgperf run --repeat 2)"))
        else:
            i, w = next((i, w) for i, w in seen.items() if w.verdict != v.verdict)
            said = w.verdict if w.verdict not in (CANNOT_TELL, NONE) else f"{w.verdict} ({w.points_to or 'several'})"
            out.append(pointer_only(v, f"launch {i}, analysed alone, says {said}"))
    # the launches may agree on one size of a range each named: a name still needs the size beside it
    named = [v.verdict not in (CANNOT_TELL, NONE) for v in out]
    return tuple(pointer_only(v, "the sizes beside it are not named the same by the launches (a name needs two "
                                 "sizes in a row)")
                 if named[k] and not any(0 <= j < len(out) and named[j] and out[j].verdict == v.verdict
                                         for j in (k - 1, k + 1)) else v
                 for k, v in enumerate(out))


def pointer_only(v: SizeVerdict, why_no_name: str) -> SizeVerdict:
    """``v`` as "cannot tell" among all the algorithms, with what the times alone point to as its
    evidence (``evidence``: an algorithm, NONE where no prediction fits, "" where several do and
    cannot be told apart) and ``why_no_name`` where they point to one."""
    pointed = v.evidence if v.verdict == CANNOT_TELL else v.verdict
    if v.verdict == CANNOT_TELL and v.evidence:
        why = v.why  # withheld (a disturbed launch): the reason and the pointer are said already
    else:
        why = (f"no name: {why_no_name}; " if why_no_name else "") + \
            f"the times alone: {v.verdict if v.verdict != CANNOT_TELL else 'cannot tell'} ({v.why})"
    return msgspec.structs.replace(v, verdict=CANNOT_TELL, candidates=tuple(p.algorithm for p in v.predictions),
                                   evidence=pointed, why=why)


def size_ranges(verdicts: Sequence[SizeVerdict]) -> tuple[SizeRange, ...]:
    """Consecutive sizes with the same verdict (the same candidates, the same pointer) as one range."""
    out: list[SizeRange] = []
    group: list[SizeVerdict] = []

    def close() -> None:
        if not group:
            return
        head = group[0]
        medians: dict[str, float | None] = {}
        for algorithm in dict.fromkeys(p.algorithm for v in group for p in v.predictions):
            finite = [r for r in (v.prediction(algorithm).ratio(v.measured_s) for v in group
                                  if v.prediction(algorithm) is not None) if math.isfinite(r)]
            medians[algorithm] = float(np.median(finite)) if finite else None
        ratio = medians.get(head.candidates[0]) if head.verdict != NONE and head.candidates else None
        if head.evidence:
            ratio = medians.get(head.evidence)
        out.append(SizeRange(head.bytes, group[-1].bytes, len(group), head.verdict, head.candidates, ratio,
                             medians, head.evidence))

    for v in sorted(verdicts, key=lambda v: v.bytes):
        if group and (v.verdict != group[0].verdict or set(v.candidates) != set(group[0].candidates)
                      or v.evidence != group[0].evidence):
            close()
            group = []
        group.append(v)
    close()
    return tuple(out)
