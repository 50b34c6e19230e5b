"""The answer a user runs msgperf for, in a few figures: the latency (0 B, one way), the bandwidth
(its peak, where it is reached, what the largest messages get), the eager limit and what crossing
it costs, the switches the evidence supports with their causes, n½, and only the warnings that
change one of these conclusions, each with the command that would fix it.

Every figure carries its interval and what that interval covers, or, where the data do not
support a value, ``why_not``: the block says "cannot tell" and why. Nothing here is new
arithmetic on the measurements but the step at a switch (the difference of the two measured
medians beside it); the rest is picked from the main series' model, its labels, the eager probe
and the caveats, so ``show``, ``fit``, ``summary`` and the report give the same numbers. Pure.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import msgspec
import numpy as np

from msgperf import units
from msgperf.analysis import caveats as cv
from msgperf.analysis.model import (CAPACITY, EAGER, FLOOR, SINGLE_COPY, UNEXPLAINED, BreakpointLabel,
                                    SizePoint, Term)
from msgperf.analysis.caveats import LINE_MISFIT, Caveat
from msgperf.analysis.tables import EagerLimit, SizeRow
from msgperf.values import Value

# A step is the difference of the medians just below and just above a switch. Only where the two
# sizes are this close (an eighth of an octave, what the refinement aims for) is the bandwidth
# term between them small against a protocol's step; further apart, the difference is mostly
# β·Δb and says nothing about the switch.
STEP_SPAN = 2 ** (1 / 8)

# A figure measured while the ranks did not have their cores to themselves is not the machine's
# figure: a rank that loses its core waits a scheduler slice (milliseconds) in the middle of a
# microsecond message, and a launch beside other work gave 4.00 ms for 0.14 µs and half the quiet
# bandwidth (bench/RESULTS.md §18). The launch verdicts that say so (analysis/launches/conditions.py)...
DISTURBING = ("busy_machine", "oversubscribed")
# ... and a launch cut off before its conditions were recorded: whether it was disturbed is unknown
UNKNOWN = "conditions_unknown"
UNKNOWN_WORDS = "conditions unknown"  # how ``disturbance`` begins where every launch was only cut off
# ... and two ranks seen on one CPU, which alone is no proof (6 of 20 quiet runs on 2 vCPUs saw it
# at an instant), so it counts only with the samples' own sign of a scheduler: two groups of times
# at the figure's size, or a time of at least one slice (1 ms, the shortest tick, HZ = 1000).
SHARED = "shared_core"
SLICE_S = 1e-3
# ... or where a launch seen so measured the size apart from the other launches (beyond the 1.5x a
# launch may differ before it measured another curve, launch_alignment.REFINEMENT_AGREEMENT): Open
# MPI, 1 KiB at 0.31, 0.31, 0.87, 0.35, 0.30 µs, the third launch seen with both ranks on CPU 1
APART = "size_apart"
APART_FACTOR = 1.5
_HOW = {"busy_machine": "beside other work", "oversubscribed": "oversubscribed",
        UNKNOWN: "cut off",
        SHARED: "ranks on one core", "bimodal": "two groups of times", APART: "times apart from the other launches'"}

CAUSES = {EAGER: "eager → rendezvous", SINGLE_COPY: "single-copy threshold",
          CAPACITY: "cache/memory capacity", FLOOR: "the hardware's own knee",
          UNEXPLAINED: "cause unknown"}


class Figure(Value):
    """A value with its interval and what the interval covers, or None and why not."""

    value: float | None
    low: float | None = None
    high: float | None = None
    covers: str = ""  # "within one launch", "across 3 launches", "fit of one line over 34 sizes", ...
    bytes: int | None = None  # the size it was measured at or is reached at
    why_not: str = ""  # when value is None: why the data cannot tell
    launches: tuple[int, ...] = ()  # the launches whose samples it comes from (a row's), () when not one row's


class Step(Value):
    """What crossing a switch costs: the medians of the two measured sizes beside it, and their
    difference (with the interval from the two medians' intervals, conservatively)."""

    below: Figure  # time at the last size before the switch
    above: Figure  # time at the first size after it
    step: Figure  # above - below, seconds (None with why_not when the sizes are too far apart)
    rel: float | None  # step / below
    # whether the step's interval excludes zero (None: no interval): False is "no measurable step"
    measurable: bool | None = None


class Switch(Value):
    low_bytes: int  # the switch lies in (low, high]
    high_bytes: int
    best_low_bytes: int  # the most likely gap between two measured sizes
    best_high_bytes: int
    kinds: tuple[str, ...]  # breakpoint_labels' kinds
    cause: str  # in words
    evidence: tuple[str, ...]  # what names it: "eager-probe", an MPI setting, "memcpy", "floor"
    step: Step
    # why the most likely gap is the whole interval although the model found a narrower one
    # (``_held_likely``: a side measured while disturbed, ...); "" when it was not widened
    best_why_not: str = ""
    # the sweep's switch a refinement launch measured inside without seeing a step there beyond its
    # noise (a tester's quiet run: 16 B - 32 B from the sweep, 10-64 B flat in the refinement)
    not_seen_again: bool = False
    # the probe's exact limit where an eager variable names this switch just past it
    # (BreakpointLabel.past_limit): "a step just past the eager limit"
    past_limit_bytes: int | None = None
    # why the likely gap was withheld, as a kind: "not_seen", "refinement", "disturbed", "probe"
    # (the gap does not hold the probe's limit); "" when it was not
    withheld: str = ""
    # why the step itself may not be the MPI's: nothing names it and both sizes of its gap were
    # measured while disturbed ("" when not; _seen_disturbed)
    unconfirmed: str = ""


class Warning(Value):
    kind: str  # the caveat's kind
    text: str  # one line
    fix: str  # the command (or action) that would settle it


class Answer(Value):
    series: str  # the series the figures describe ("pingpong")
    time_words: str  # what a time is ("one-way time = half a round trip")
    latency: Figure  # 0 B (or the smallest size), one way
    peak_bandwidth: Figure  # bytes/s, at the size it is reached
    large_bandwidth: Figure  # bytes/s the largest messages get
    eager_limit: Figure  # bytes; low/high when the probe bracketed it
    eager_step: Step | None  # what crossing the eager limit costs (None with eager_step_why)
    eager_step_why: str
    switches: tuple[Switch, ...]
    switches_why_not: str  # "" when the model could look for switches
    switches_none: str  # with no switch found: whether every size fits one line, in words
    n_half: Figure  # bytes, α/β of the Hockney line
    warnings: tuple[Warning, ...]
    confidence: float = 0.95  # of every interval in the block
    # The figures it cannot tell because they were measured while disturbed, by the term's name in
    # the model's characteristics ("zero_byte_latency", "peak_bandwidth", "asymptotic_bandwidth";
    # and those fitted to sizes: "n_half", "asymptotic_latency", "line_bandwidth"; the Hockney
    # line's "alpha" and "beta"), each with its reason: decided here once, read by every output
    disturbed: dict[str, str] = msgspec.field(default_factory=dict)
    # per segment of the series' piecewise model, why its α and β cannot be told (its sizes measured
    # while disturbed), "" where they can (fit printed each segment's α, β and n½ beside a Hockney
    # line it could not tell)
    segments_disturbed: tuple[str, ...] = ()


def disturbed_terms(answer: Answer | None, series: str) -> dict[str, str]:
    """The terms of ``series``' model the answer cannot tell (measured while disturbed), with their
    reasons; empty for a series the answer is not about."""
    return dict(answer.disturbed) if answer is not None and answer.series == series else {}


def segments_cannot_tell(sweep: Any, disturbed: Mapping[str, str],
                         segments_disturbed: Sequence[str] = ()) -> tuple[str, ...]:
    """Why each segment's β (with its 1/β and n½) is no finding, "" where it is one: its sizes
    measured while disturbed (``segments_disturbed``, the answer's), the piecewise model's own
    rule, and for the last segment why the term "1/β, last segment" is not given (its sizes
    measured while disturbed, ``disturbed_terms``; too few or too narrow a regime), so that the
    segment and the term agree."""
    out = [own or rule for own, rule in zip([*segments_disturbed, *[""] * len(sweep.piecewise.segments)],
                                            sweep.piecewise.segments_cannot_tell)]
    term = sweep.characteristics.line_bandwidth
    if out and not out[-1]:
        out[-1] = disturbed.get("line_bandwidth") or (term.note if term.value is None else "")
    return tuple(out)


def segments_disturbed_of(answer: Answer | None, series: str) -> tuple[str, ...]:
    """``Answer.segments_disturbed`` for the answer's own series; () for another."""
    return tuple(answer.segments_disturbed) if answer is not None and answer.series == series else ()


def unconfirmed_switches(answer: Answer | None, series: str) -> dict[tuple[int, int], str]:
    """Each switch of ``series`` the answer cannot tell (``Switch.unconfirmed``), by its interval
    (low, high), with why; empty for another series."""
    if answer is None or answer.series != series:
        return {}
    return {(w.low_bytes, w.high_bytes): w.unconfirmed for w in answer.switches if w.unconfirmed}


def held_gaps(answer: Answer | None, series: str) -> dict[tuple[int, int], tuple[int, int, str]]:
    """Each switch of ``series`` by its interval (low, high): its most likely gap as held to its
    rule (``_held_likely``) and why it was widened ("" when not); empty for another series."""
    if answer is None or answer.series != series:
        return {}
    return {(w.low_bytes, w.high_bytes): (w.best_low_bytes, w.best_high_bytes, w.best_why_not)
            for w in answer.switches}


def _covers(p: SizePoint | None) -> str:
    if p is None or p.interval is None or p.ci_low_s is None:
        return "no interval: one value per size"
    return p.interval.covers


def _term_figure(term: Term, points: dict[int, SizePoint], short: str = "") -> Figure:
    if term.value is None:
        return Figure(None, why_not=short or term.note)
    size = term.sizes[0] if term.sizes else None
    low, high = (float(x) for x in term.ci) if term.ci is not None else (None, None)
    return Figure(float(term.value), low, high, _covers(points.get(size)), size)


def row_figure(row: SizeRow) -> Figure:
    """A row of show's table as a figure: its time, interval and what the interval covers."""
    iv = row.interval
    if iv is None or iv.low is None or iv.high is None:
        return Figure(row.time_s, covers="no interval: one value per size", bytes=row.bytes,
                      launches=tuple(row.launch_ids))
    return Figure(row.time_s, iv.low, iv.high, iv.covers, row.bytes, launches=tuple(row.launch_ids))


def step_between(below: Figure, above: Figure) -> Step:
    """The step from ``below`` to ``above`` (the times of adjacent measured sizes around a
    switch, as show's table lists them)."""
    if not below.bytes or above.bytes / below.bytes > STEP_SPAN:
        return Step(below, above, Figure(None, why_not=(
            f"sizes beside it, {units.size(below.bytes)} and {units.size(above.bytes)}, too far apart")),
            None)
    if below.launches and above.launches and set(below.launches) != set(above.launches):
        # Launches run at levels of their own (launch_alignment.py): a difference across two of
        # them holds their offset too, which neither size's interval covers.
        return Step(below, above, Figure(None, why_not=(
            f"{units.size(below.bytes)} and {units.size(above.bytes)} are from two launches")),
            None)
    value = above.value - below.value
    low = high = None
    if None not in (below.low, below.high, above.low, above.high):
        low, high = above.low - below.high, above.high - below.low
    covers = below.covers if below.covers == above.covers else f"{below.covers} / {above.covers}"
    return Step(below, above, Figure(value, low, high, covers, above.bytes),
                value / below.value if below.value > 0 else None,
                None if low is None else bool(low > 0 or high < 0))


def _switches(breakpoints: Sequence, labels: Sequence[BreakpointLabel],
              measured: Mapping[int, Figure]) -> tuple[Switch, ...]:
    out = []
    for bp, label in zip(breakpoints, list(labels) + [None] * len(breakpoints)):
        kinds = label.kinds if label is not None else (UNEXPLAINED,)
        # a step an eager variable names beside the probe's exact limit is not where the protocol changed
        past = label.past_limit if label is not None else None
        cause = " and ".join(f"a step just past the eager limit ({past} B)" if k == EAGER and past is not None
                             else CAUSES.get(k, k) for k in kinds)
        below, above = measured.get(bp.best_low_bytes), measured.get(bp.best_high_bytes)
        none = Figure(None, why_not="not in the table")
        step = (step_between(below, above) if below is not None and above is not None else
                Step(below or none, above or none, Figure(None, why_not="a side was not measured"), None))
        out.append(Switch(bp.low_bytes, bp.high_bytes, bp.best_low_bytes, bp.best_high_bytes, kinds, cause,
                          label.sources if label is not None else (), step, past_limit_bytes=past))
    return tuple(out)


def disturbance(figure: Figure, rows: Mapping[int, SizeRow], caveats: Sequence[Caveat]) -> str:
    """Why ``figure`` (a size's time, or a bandwidth read from it) cannot be told under load
    ("disturbed: launch 2 beside other work"; "conditions unknown: ..." where every launch in
    question was cut off before its conditions were recorded): "" when none of the launches its
    size was measured in was disturbed (``DISTURBING``) or cut off (``UNKNOWN``), or only seen with
    two ranks on one core while its samples show no scheduler (``SHARED``, ``SLICE_S``)."""
    row = rows.get(figure.bytes) if figure.bytes is not None else None
    if figure.value is None or row is None:
        return ""
    launches = set(row.launch_ids)
    hits = [c for c in caveats if c.launch in launches and (c.kind in DISTURBING or c.kind == UNKNOWN)]
    if not hits:
        shared = [c for c in caveats if c.launch in launches and c.kind == SHARED]
        slices = [c for c in caveats if c.bytes == row.bytes and (c.kind == "bimodal" or (
            c.kind == APART and c.launch in {s.launch for s in shared}))]
        if shared and (slices or row.time_s >= SLICE_S):
            hits = shared + slices[:1]
    if not hits:
        return ""
    said = ", ".join(dict.fromkeys(c.brief if c.kind == APART else _HOW[c.kind] for c in hits))
    where = sorted({c.launch for c in hits if c.launch is not None})
    what = UNKNOWN_WORDS if all(c.kind == UNKNOWN for c in hits) else "disturbed"
    return f"{what}: {_launch_words(where)} {said}"


def answer_caveats(model: Any, run_caveats: Sequence[Caveat]) -> list[Caveat]:
    """The caveats the answer reads its figures with: the model's, the run's, and each launch whose
    median at a size lies apart (``_apart``)."""
    return list(model.caveats) + [c for c in run_caveats if c not in model.caveats] + _apart(model)


def measured_while_rule(run_caveats: Sequence[Caveat], model: Any = None) -> Callable[[SizeRow], str]:
    """The answer's disturbance rule for one row of show's table, for another output to read, not
    repeat (advise): why the row was measured while disturbed, "" when it was not; with ``model``,
    its caveats among those read (as ``build_answer`` reads them)."""
    caveats = list(run_caveats) if model is None else answer_caveats(model, run_caveats)
    return lambda row: disturbance(row_figure(row), {row.bytes: row}, caveats)


# the kinds of the answer's warnings that are about the launches' conditions
CONDITION_KINDS = (*DISTURBING, SHARED, UNKNOWN)


def condition_warnings(answer: Answer | None) -> tuple[Warning, ...]:
    """The answer's warnings about the launches' conditions, as show says them."""
    return tuple(w for w in answer.warnings if w.kind in CONDITION_KINDS) if answer is not None else ()


def _apart(model: Any) -> list[Caveat]:
    """Each launch whose median at a size lies beyond ``APART_FACTOR`` of the median of the other
    launches' (at least two others), as a caveat the disturbance rule reads."""
    out = []
    for size in model.sizes:
        medians = {m.launch: m.stats.median for m in size.measurements if m.stats.median > 0}
        if len(medians) < 3:
            continue
        for launch, value in medians.items():
            others = float(np.median([v for k, v in medians.items() if k != launch]))
            ratio = value / others
            if max(ratio, 1 / ratio) > APART_FACTOR:
                out.append(cv.size_apart(launch, size.bytes, ratio))
    return out


def _undisturbed(figure: Figure, rows: Mapping[int, SizeRow], caveats: Sequence[Caveat], said: str) -> Figure:
    """``figure``, or "cannot tell" with its value in the reason (``said``: the value in words)."""
    why = disturbance(figure, rows, caveats)
    if not why:
        return figure
    return Figure(None, covers=figure.covers, bytes=figure.bytes, launches=figure.launches,
                  why_not=f"{why} ({said})")


def _undisturbed_fit(figure: Figure, sizes: Sequence[int], measured: Mapping[int, Figure],
                     rows: Mapping[int, SizeRow], caveats: Sequence[Caveat], said: str) -> Figure:
    """``figure``, a value fitted to ``sizes`` (n½ to every size, a segment's terms to its own), or
    "cannot tell" where any of those sizes was measured while disturbed (``said``: the value in words)."""
    if figure.value is None:
        return figure
    found = [why for why in (disturbance(measured[b], rows, caveats) for b in sizes if b in measured) if why]
    if not found:
        return figure
    return Figure(None, covers=figure.covers,
                  why_not=f"{found[0]} ({len(found)} of the {len(sizes)} sizes it is fitted to; {said})")


def _seen_disturbed(s: Switch, measured: Mapping[int, Figure], rows: Mapping[int, SizeRow],
                    caveats: Sequence[Caveat]) -> Switch:
    """The switch marked ``unconfirmed`` where nothing but its times names it and both sizes of its
    gap were measured while disturbed: a step a busy launch made is the other work's as likely as
    the MPI's (every launch of a tester's run beside a busy loop: "4183 B – 4235 B: cause unknown",
    the time falling across it and rising again)."""
    if s.kinds != (UNEXPLAINED,):
        return s
    said = [disturbance(measured[b], rows, caveats) for b in (s.best_low_bytes, s.best_high_bytes) if b in measured]
    if len(said) < 2 or not all(said):
        return s
    why = ("sizes measured where conditions were not recorded"
           if all(w.startswith(UNKNOWN_WORDS) for w in said) else "sizes measured while disturbed")
    return msgspec.structs.replace(s, unconfirmed=why)


def _held_likely(s: Switch, measured: Mapping[int, Figure], rows: Mapping[int, SizeRow],
                 caveats: Sequence[Caveat], eager: EagerLimit | None) -> Switch:
    """The switch with its most likely gap only where that gap is held to its rule: its two sizes
    measured undisturbed, no refinement launch set aside as disturbed, and, for an eager switch,
    the gap holding the probe's limit; else the gap is the whole interval and the step across it
    cannot be told (beside a busy process a switch at 8112/8113 B read "likely 8 KiB – 16 KiB")."""
    whole = (s.best_low_bytes, s.best_high_bytes) == (s.low_bytes, s.high_bytes)
    if whole and s.step.step.value is None:  # its step already says why it cannot be told
        return s
    why, kind = "", ""
    if s.not_seen_again:
        why, kind = "a refinement launch saw no step there", "not_seen"
    elif not whole and any(c.kind == "refinement_disturbed" for c in caveats):  # (no likely gap it made)
        why, kind = "a refinement launch was set aside as disturbed", "refinement"
    for b in (s.best_low_bytes, s.best_high_bytes):
        if not why and b in measured and (said := disturbance(measured[b], rows, caveats)):
            why, kind = _measured_while(b, said), "disturbed"
    # (a step an eager variable names just past the limit does not hold it, by its name)
    if not why and not whole and EAGER in s.kinds and s.past_limit_bytes is None and eager is not None \
            and eager.agreed and eager.limit_bytes is not None \
            and not s.best_low_bytes <= eager.split_bytes < s.best_high_bytes:
        why, kind = f"the likely gap does not hold the eager-probe's limit, {eager.limit_bytes} B", "probe"
    if not why:
        return s
    # where the gap is the whole interval (two sizes beside each other) it stays, but its step is
    # as uncertain: a step read off disturbed sizes, or one a later launch did not see
    none = Figure(None, why_not=why)
    return msgspec.structs.replace(s, best_low_bytes=s.low_bytes, best_high_bytes=s.high_bytes,
                                   step=Step(s.step.below, s.step.above, none, None), best_why_not=why,
                                   withheld=kind)


def _eager(eager: EagerLimit | None, no_probe: str) -> Figure:
    """``no_probe``: why there is no probe, in words (result._no_probe)."""
    if eager is None:
        return Figure(None, why_not=no_probe)
    if not eager.agreed:
        return Figure(None, covers="eager-probe", why_not=eager.disagreement)
    if eager.limit_bytes is not None:
        return Figure(float(eager.limit_bytes), covers="eager-probe, to the byte",
                      bytes=eager.limit_bytes)
    high = eager.high_bytes
    return Figure(None, float(eager.low_bytes), float(high) if high is not None else None,
                  covers="eager-probe", bytes=eager.low_bytes,
                  why_not=(f"the probe saw {eager.low_bytes} B sent eagerly and "
                           + (f"{high} B not" if high is not None else "no size up to its maximum wait")))


def _eager_step(eager: EagerLimit | None, switches: Sequence[Switch], measured: Mapping[int, Figure],
                rows: Mapping[int, SizeRow] | None = None, caveats: Sequence[Caveat] = ()) -> tuple[Step | None, str]:
    if eager is None:
        return None, "no eager limit measured"
    if not eager.agreed:
        return None, f"no eager limit to cross ({eager.disagreement})"
    if eager.high_bytes is None:  # its largest size is no limit: the limit lies somewhere above it
        return None, f"no eager limit to cross: no size up to the probe's {units.size(eager.low_bytes)} waited"
    split = eager.split_bytes
    for s in switches:
        # the switch's own step only where its most likely gap holds the limit (read across a
        # wider bracket, both sizes could lie on one side of it), and is the limit's own gap where
        # the probe was exact (a switch across a narrow regime holds the limit and another switch)
        # (a gap widened because its sizes were disturbed keeps its "cannot tell")
        if EAGER in s.kinds and s.best_low_bytes <= split < s.best_high_bytes and (
                eager.limit_bytes is None or s.best_high_bytes == split + 1
                or s.withheld in ("not_seen", "refinement", "disturbed")):
            return s.step, ""
    below = [measured[b] for b in sorted(measured) if b <= split]
    above = [measured[b] for b in sorted(measured) if b > split]
    if not below or not above:
        return None, "the sweep does not measure both sides of the limit"
    step = step_between(below[-1], above[0])
    if step.step.value is None:
        return None, step.step.why_not
    for side in (below[-1], above[0]):
        if rows is not None and (said := disturbance(side, rows, caveats)):
            return None, _measured_while(side.bytes, said)
    return step, ""


def _measured_while(size: int, said: str) -> str:
    """'8112 B was measured while disturbed', or where its launches were only cut off (``said``,
    ``disturbance``'s words) 'was measured in a launch whose conditions were not recorded'."""
    if said.startswith(UNKNOWN_WORDS):
        return f"{units.size(size)} was measured in a launch whose conditions were not recorded"
    return f"{units.size(size)} was measured while disturbed"


# The caveats that change a conclusion of the block, in the order they are said, each with what
# it changes and the command that settles it. The rest (outliers, drift, anomalies, each caveat's
# explanation) is the fine print of show --detail and the report.
_CONCLUSIONS: tuple[tuple[str, str, str], ...] = (
    ("not_validated", "data mismatch at {n}: not to be trusted", "msgperf run again"),
    ("oversubscribed", "{launches}: oversubscribed", "fewer ranks (--np), or more cores"),
    ("shared_core", "{launches}: the ranks shared a core", "pin them (mpiexec -bind-to core)"),
    ("busy_machine", "{launches} on a busy machine", "quiet it, or msgperf run --repeat 3"),
    (UNKNOWN, "{launches} cut off: conditions not recorded", "msgperf run again"),
    ("refinement_disturbed", "a refinement launch saw another curve", "msgperf run on a quiet machine"),
    ("no_per_size_noise", "no samples per size: intervals from the scatter", "msgperf run keeps samples"),
    ("few_sizes", "only {sizes} sizes: too few to find switches", "msgperf run --sizes 0:64M"),
    ("launch_spread", "the launches disagree", "msgperf show RUN --detail"),
    ("scatter", "sizes scatter beyond their intervals", "msgperf run --repeat 3"),
    ("one_launch", "one launch: no run-to-run spread in the intervals", "msgperf run --repeat 3"),
)


def _launch_words(launches: Sequence[int]) -> str:
    if not launches:
        return "a launch"
    if len(launches) > 2:
        return f"{len(launches)} launches"
    return ("launch " if len(launches) == 1 else "launches ") + " and ".join(map(str, launches))


def warnings_of(caveats: Sequence[Caveat], sizes: int) -> tuple[Warning, ...]:
    """One line per kind of caveat that changes a conclusion (see ``_CONCLUSIONS``)."""
    by_kind: dict[str, list[Caveat]] = {}
    for c in caveats:
        by_kind.setdefault(c.kind, []).append(c)
    out = []
    for kind, text, fix in _CONCLUSIONS:
        found = by_kind.get(kind)
        if not found:
            continue
        launches = sorted({c.launch for c in found if c.launch is not None})
        bad = sorted({c.bytes for c in found if c.bytes is not None})
        n = ", ".join(units.size(b) for b in bad[:3]) + (" …" if len(bad) > 3 else "") if bad else "some sizes"
        out.append(Warning(kind, text.format(launches=_launch_words(launches), n=n, sizes=sizes), fix))
    return tuple(out)


def build_answer(series: str, time_words: str, model, labels: Sequence[BreakpointLabel],
                 eager: EagerLimit | None, run_caveats: Sequence[Caveat], no_probe: str,
                 rows: Sequence[SizeRow] = (), confidence: float = 0.95) -> Answer:
    """The answer from the main series' model (``SeriesAnalysis`` or None), its breakpoints' labels,
    the eager probe, the caveats about the run and the series' rows of show's table (the steps
    are read from them, so the block and the table agree)."""
    measured = {r.bytes: row_figure(r) for r in rows}
    eager_figure = _eager(eager, no_probe)
    if model is None:
        none = Figure(None, why_not="no model of a ping-pong (too few sizes, or none)")
        return Answer(series, time_words, none, none, none, eager_figure, None, "no model", (),
                      "no model", "", none, warnings_of(run_caveats, 0), confidence)
    sweep = model.sweep
    points = {p.bytes: p for p in sweep.points}
    ch = sweep.characteristics
    latency = _term_figure(ch.zero_byte_latency, points)
    peak = _term_figure(ch.peak_bandwidth, points)
    large = _term_figure(ch.asymptotic_bandwidth, points,
                         "the largest size is latency-bound" if ch.asymptotic_bandwidth.sizes else "")
    pw = sweep.piecewise
    by_size = {r.bytes: r for r in rows}
    caveats = answer_caveats(model, run_caveats)
    # a switch no evidence but the sweep's times names, that a refinement launch did not see again
    # (one the probe, an MPI setting or memcpy names stands on that evidence)
    # (where a later launch contests a located switch, whatever names it, its place cannot be told)
    unseen = [c.bytes for c in model.caveats if c.kind in ("not_narrowed", "step_not_repeated")]
    contested = [c.bytes for c in model.caveats if c.kind == "not_seen_again"]
    switches = tuple(_held_likely(msgspec.structs.replace(s, not_seen_again=True)
                                  if any(s.low_bytes < b <= s.high_bytes for b in contested)
                                  or (any(s.low_bytes < b <= s.high_bytes for b in unseen) and s.kinds == (UNEXPLAINED,))
                                  else s,
                                  measured, by_size, caveats, eager)
                     for s in (_seen_disturbed(s, measured, by_size, caveats)
                               for s in _switches(pw.breakpoints, labels, measured)))
    why_no_switches = "" if pw.criterion else "too few sizes to look for switches"
    off = len(pw.off_model)
    none_words = ("every size fits one line within its noise" if pw.fits_every_size else
                  f"{off} size{'s' if off > 1 else ''} off the line beyond {'their' if off > 1 else 'its'} noise")
    step, step_why = _eager_step(eager, switches, measured, by_size, caveats)
    half = ch.n_half
    if half.value is None:
        n_half = Figure(None, why_not=half.note)
    else:
        rms = sweep.hockney.rms_rel_residual
        misses = "" if rms <= LINE_MISFIT else f", misses by {units.percent(rms, decimals=0)}"
        lo, hi = (float(x) for x in half.ci) if half.ci is not None else (None, None)
        n_half = Figure(float(half.value), lo, hi, f"line fit, {len(sweep.points)} sizes{misses}")
    told = {"zero_byte_latency": (latency, _undisturbed(latency, by_size, caveats, units.seconds(latency.value))),
            "peak_bandwidth": (peak, _undisturbed(peak, by_size, caveats, units.rate(peak.value))),
            "asymptotic_bandwidth": (large, _undisturbed(large, by_size, caveats, units.rate(large.value))),
            "n_half": (n_half, _undisturbed_fit(n_half, half.sizes, measured, by_size, caveats,
                                                units.size(n_half.value) if n_half.value is not None else ""))}
    disturbed = {name: after.why_not for name, (before, after) in told.items() if after is not before}
    latency, peak, large, n_half = (told[name][1] for name in told)
    # the Hockney line's α and β, held to n½'s sizes as n½ = α/β is (fit printed α and 1/β beside
    # an n½ it could not tell)
    line, swept = sweep.hockney.line, half.sizes or [p.bytes for p in sweep.points]
    for name, value, said in (("alpha", line.alpha_s, units.seconds(line.alpha_s)),
                              ("beta", line.beta_s_per_byte, units.rate(line.bandwidth_bytes_per_s))):
        fitted = _undisturbed_fit(Figure(value), swept, measured, by_size, caveats, said)
        if fitted.value is None:
            disturbed[name] = fitted.why_not
    for name in ("asymptotic_latency", "line_bandwidth"):  # fitted to the last segment's sizes
        term: Term = getattr(ch, name)
        if term.value is not None:
            said = units.seconds(term.value) if name == "asymptotic_latency" else units.rate(term.value)
            fitted = _undisturbed_fit(Figure(term.value), term.sizes, measured, by_size, caveats, said)
            if fitted.value is None:
                disturbed[name] = fitted.why_not
    # each segment's α and β, fitted to its own sizes
    segments = tuple(_undisturbed_fit(Figure(seg.alpha_s), [p.bytes for p in sweep.points
                                                            if seg.from_bytes <= p.bytes <= seg.to_bytes],
                                      measured, by_size, caveats,
                                      f"{units.size(seg.from_bytes)} – {units.size(seg.to_bytes)}").why_not
                     for seg in pw.segments)
    # launches that disagree change no conclusion where the latency and the peak are estimated across
    # them (msgperf run's answer launches, --repeat): their intervals hold that spread already
    headline = [points[t.sizes[0]] for t in (ch.zero_byte_latency, ch.peak_bandwidth)
                if t.sizes and t.sizes[0] in points]
    across = bool(headline) and all(p.launches > 1 for p in headline)
    shown = [c for c in caveats if not (across and c.kind == "launch_spread")]
    return Answer(series, time_words, latency, peak, large, eager_figure, step, step_why, switches,
                  why_no_switches, none_words, n_half, warnings_of(shown, len(sweep.points)), confidence,
                  disturbed, segments if any(segments) else ())
