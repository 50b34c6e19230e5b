"""The one analysis of a run: ``analyze(run) -> RunResult``.

Every number a user can read about a run — the tables of ``show``, the model of ``fit``, Saphir's
Table 1 of ``summary``, the advice of ``advise``, the report and the plots, and every ``--json``
— is a field of this one immutable object (or of an object it holds), computed here once, by one
function each. Renderers (msgperf.present) never compute.

A *series* is what one model describes: a pattern, one of its variants, and (with
``--placement both``) one placement of the measured pair. The *main* series is the blocking
ping-pong when the run has it (the one its headline figures describe), else the first ping-pong
form, else the first modelled series.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import msgspec

from msgperf.analysis import caveats as cv
from msgperf.analysis.answer import Answer, Figure, build_answer, disturbance, disturbed_terms
from msgperf.analysis.model import (EAGER, TOLERANCE, BreakpointEvidence, BreakpointLabel, KnownThreshold, LogGPAnalysis, LogGPError,
                                    LogGPPoint, SeriesAnalysis, analyze_loggp, analyze_series,
                                    known_thresholds, label_breakpoints, points_from_rows,
                                    probe_contradiction, reported_thresholds)
from msgperf.analysis.tables import (MIN_GAIN, BarrierRow, BufferingRow, ColumnsTable, CombiningPrediction,
                                     CompatRow, Contention, EagerLimit, FirstMessages, FloorRow, Gap, Machine,
                                     MatrixGrid, OverlapRow, PatternFacts, PlacementModel, PlacementPair,
                                     RunSource, SaphirRow, SizeRow, VariantPair, agreement, barrier_rows,
                                     bidirectional, buffering_of, buffering_row, compat, contention, describe_source,
                                     difference, eager_limit, first_messages, floor_rows, goes_eagerly, index,
                                     matrices, memcpy_times, overlap_rows, pattern_facts, placement_pairs,
                                     predict_combining, ratio_interval, run_machine, saphir_row, send_modes, undisturbed,
                                     size_rows, variant_pairs, copy_undisturbed)
from msgperf.analysis.launches import LaunchConditions, caveats_of, run_conditions
from msgperf.analysis.samples import AnalysisError
from msgperf.analysis.collectives import (COMBINE, MODEL_PATTERNS, ONE_WAY, Collectives, PointToPoint, collective_fits,
                                         collective_name, confirm, nameable, steps_family)
from msgperf.analysis.tables import ToolRow, collective_method, tool_rows
from msgperf.values import Value


# The (k, s) cases the report predicts message combining for (Lawlor's lecture: small messages,
# a page, a large message), where k·s lies within the measured sizes.
COMBINING_CASES = ((2, 8), (2, 1024), (2, 16384), (8, 8), (8, 1024), (8, 16384), (32, 8), (32, 1024))


class SeriesKey(Value):
    pattern: str
    variant: str = ""
    placement: str = ""  # "intra" or "inter" with --placement both, else ""

    @property
    def name(self) -> str:
        """'pingpong', 'unexpected [late]', 'pingpong (inter-node)'."""
        name = f"{self.pattern} [{self.variant}]" if self.variant else self.pattern
        return f"{name} ({self.placement}-node)" if self.placement else name


class SeriesResult(Value):
    key: SeriesKey
    facts: PatternFacts
    model: SeriesAnalysis | None  # None when it has no model (why: ``not_modelled``)
    not_modelled: str = ""
    # Each breakpoint of the model, named by its evidence in this run (eager-probe, memcpy's
    # knees, the floor, the MPI's thresholds as set): analysis/model/breakpoint_labels.py
    labels: tuple[BreakpointLabel, ...] = ()

    @property
    def name(self) -> str:
        return self.key.name


class RowTable(Value):
    """One table of ``show``: the rows of one (pattern, buffer, ranks, metric), one per size (and
    variant). A pattern that sweeps concurrent pairs (``pairs``) is one table whose rows are
    (size, step); a pattern measured round by round over every pair (``matrix``) is summarised by
    its grids instead (``grid_only``)."""

    pattern: str
    buffer: str
    ranks: tuple[int, ...]  # () when the rows' ranks differ (one step of a sweep each)
    metric: str
    time_words: str
    rows: tuple[SizeRow, ...]
    first: FirstMessages | None
    steps: bool = False  # the rows are steps of a contention sweep ("active_pairs" in each)
    grid_only: bool = False  # the rows are rounds of an all-pairs map: shown as its grids
    # What the machine did to the launches behind these rows (oversubscribed, a shared core, a busy
    # machine: analysis/launches/conditions.py), said under the table
    caveats: tuple[cv.Caveat, ...] = ()
    # A collective's methodology, defaults included (tables/compat_collectives.collective_method); "" otherwise
    method: str = ""

    @property
    def caveat_line(self) -> str:
        return cv.table_line(self.caveats)


class CombineRow(Value):
    """The combine pattern at one (k, s): measured separate and combined, and the prediction."""

    messages: int
    bytes: int
    separate_s: float
    combined_s: float
    gain: float  # separate / combined (above 1: combining paid)
    prediction: CombiningPrediction | None  # from the main series' model (None without one)
    gain_ci: tuple[float, float] | None = None  # of the gain, from both medians' intervals (None: a side has none)


class LogGPResult(Value):
    points: tuple[LogGPPoint, ...]
    analysis: LogGPAnalysis | None  # None when the points cannot give the parameters
    why_not: str = ""


class RunResult(Value):
    source: RunSource
    tables: tuple[RowTable, ...]
    series: tuple[SeriesResult, ...]
    main: SeriesResult | None
    saphir: tuple[SaphirRow, ...]
    send_modes: ColumnsTable | None
    bidirectional: ColumnsTable | None
    variant_pairs: tuple[VariantPair, ...]
    compat: tuple[CompatRow, ...]
    floor: tuple[FloorRow, ...]
    overlap: tuple[OverlapRow, ...]
    barrier: tuple[BarrierRow, ...]
    buffering: tuple[BufferingRow, ...]
    combine: tuple[CombineRow, ...]
    eager: EagerLimit | None  # as the probe measured it: "cannot tell" when not eager.agreed
    loggp: LogGPResult | None
    contention: Contention | None
    matrices: tuple[MatrixGrid, ...]
    placement: tuple[PlacementPair, ...]
    placement_models: tuple[PlacementModel, ...]  # --placement both: each series' model per placement
    combining_cases: tuple[CombiningPrediction, ...]  # the report's table: COMBINING_CASES within the sweep
    tolerance: float
    confidence: float
    launch: int | None  # the one launch analysed, or None: all launches pooled
    caveats: tuple[cv.Caveat, ...] = ()  # about the whole run
    # What the run recorded about its machine (hosts' facts, MPI_T thresholds): analysis/tables/machine.py
    machine: Machine = msgspec.field(default_factory=lambda: Machine((), None, None))
    # Per launch: oversubscribed, pair on one core, busy machine, each yes/no/cannot tell
    conditions: tuple[LaunchConditions, ...] = ()
    # The last size before each switch the launch environment set to the byte (threshold_anchors)
    thresholds: tuple[int, ...] = ()
    # The answer the output opens with (analysis/answer.py): the main series' figures in words
    answer: Answer | None = None
    # Per table pattern: the sizes a refinement added that carry no switch (shown with --all)
    refined_only: tuple[tuple[str, tuple[int, ...]], ...] = ()
    # The collective compatibility modes as OSU and IMB print them (analysis/tables/compat_collectives.py)
    compat_collectives: tuple[ToolRow, ...] = ()
    # The collectives measured against each standard algorithm's prediction from the ping-pong's
    # model, their algorithm named per size range (analysis/collectives); None: no collective
    collectives: Collectives | None = None

    @property
    def caveat_line(self) -> str:
        """The run's conditions caveats in one line (under the tables that pool every launch)."""
        return cv.table_line(self.caveats)

    @property
    def rows(self) -> tuple[SizeRow, ...]:
        return tuple(r for t in self.tables for r in t.rows)

    def find(self, pattern: str | None = None, variant: str | None = None,
             placement: str | None = None) -> SeriesResult:
        """A series by name (the main series when no pattern is named); AnalysisError listing the
        series there are when none matches."""
        if pattern is None:
            if self.main is None:
                raise AnalysisError(f"{self.source.path or 'the run'}: no series to model "
                                    f"({self._why_none()})")
            if variant is None and placement is None:
                return self.main
            pattern = self.main.key.pattern
        candidates = [s for s in self.series if s.key.pattern == pattern
                      and (variant is None or s.key.variant == variant)
                      and (placement is None or s.key.placement == placement)]
        if not candidates:
            names = ", ".join(dict.fromkeys(s.key.pattern for s in self.series)) or "none"
            what = pattern + (f" variant {variant!r}" if variant else "") + (f" ({placement}-node)" if placement else "")
            raise AnalysisError(f"{self.source.path or 'the run'}: no measurements of {what}; "
                                f"the run has {names}")
        return candidates[0]

    def _why_none(self) -> str:
        reasons = [f"{s.name}: {s.not_modelled}" for s in self.series if s.not_modelled]
        return "; ".join(reasons[:3]) or "no measurements"

    def advise(self, messages: int, size: int, min_gain: float = MIN_GAIN,
               series: SeriesResult | None = None, copy_bandwidth: float | None = None) -> CombiningPrediction:
        """k = ``messages`` messages of ``size`` bytes apart versus combined, from what this run
        measured: the model of ``series`` (the main one by default), the LogGP gap when the run
        measured it, the combine pattern when it measured this very case, the eager limit; and
        what buffering the combined message costs (copy speed ``copy_bandwidth`` or the run's memcpy)."""
        chosen = series or self.find()
        if chosen.model is None:
            raise AnalysisError(f"{chosen.name}: no model to predict from ({chosen.not_modelled})")
        model = chosen.model
        measured = {s.bytes: s.point.time_s for s in model.sizes}
        case = next(((c.separate_s, c.combined_s) for c in self.combine
                     if c.messages == messages and c.bytes == size), None)
        prediction = predict_combining(model.sweep.piecewise, model.sweep.hockney.line, messages, size,
                                       min_gain, measured, self.gap, case,
                                       self.eager.split_bytes if self.eager is not None and self.eager.agreed else None)
        # memcpy as every table reads it (memcpy_times): the one copy speed summary and the report give
        buffering = buffering_of(messages * size, prediction.combined_s, model.sweep.characteristics,
                                 memcpy_times(self.rows), copy_bandwidth)
        return msgspec.structs.replace(prediction, buffering=buffering)

    @property
    def gap(self) -> Gap | None:
        """The LogGP gap g + G·s of back-to-back messages, when the run measured it."""
        if self.loggp is None or self.loggp.analysis is None:
            return None
        p = self.loggp.analysis.params
        return Gap(p.g, p.G) if p.reason("g") is None and p.reason("G") is None else None


# ---- building it ---------------------------------------------------------------------------


def _series_keys(run: Any, launch: int | None) -> list[SeriesKey]:
    keys: dict[SeriesKey, None] = {}
    placements = {getattr(m, "placement", "") for m in run.measurements}
    split = {"intra", "inter"} <= placements  # --placement both: one model per placement
    for m in run.measurements:
        if launch is not None and m.launch != launch:
            continue
        keys[SeriesKey(m.pattern, getattr(m, "variant", ""), m.placement if split else "")] = None
    return list(keys)


def _model(run: Any, key: SeriesKey, facts: PatternFacts, launch: int | None, tolerance: float,
           confidence: float, anchor: int | None = None, thresholds: tuple[int, ...] = (),
           regime_bounds: tuple[int, ...] = ()) -> SeriesResult:
    if not facts.modelled:
        return SeriesResult(key, facts, None, "no time-against-size model for this pattern "
                            "(its own table says what it measured)")
    try:
        model = analyze_series(run, pattern=key.pattern, launch=launch, tolerance=tolerance,
                               confidence=confidence, variant=key.variant,
                               placement=key.placement or None, anchor=anchor, thresholds=thresholds,
                               regime_bounds=regime_bounds)
    except AnalysisError as exc:
        reason = str(exc)
        prefix = f"{run.path or 'the run'}: "
        return SeriesResult(key, facts, None, reason[len(prefix):] if reason.startswith(prefix) else reason)
    return SeriesResult(key, facts, model)


def _main(series: Sequence[SeriesResult]) -> SeriesResult | None:
    modelled = [s for s in series if s.model is not None]
    for choose in (lambda s: s.key.pattern == "pingpong" and not s.key.variant,
                   lambda s: s.facts.family == "pingpong" and s.facts.metric == "one_way",
                   lambda s: s.facts.family not in ("hardware", "probe")):
        found = [s for s in modelled if choose(s)]
        if found:
            intra = [s for s in found if s.key.placement in ("", "intra")]
            return (intra or found)[0]
    return None


def _tables(rows: Sequence[SizeRow], facts: dict[str, PatternFacts],
            conditions: Sequence[LaunchConditions] = ()) -> tuple[RowTable, ...]:
    groups: dict[tuple, list[SizeRow]] = {}
    for r in rows:
        swept = "active_pairs" in r.extra or "round" in r.extra  # one record per step or round
        groups.setdefault((r.pattern, r.buffer, () if swept else r.ranks, r.metric), []).append(r)
    out = []
    for (pattern, buffer, ranks, metric), group in groups.items():
        words = facts[pattern].time_words if pattern in facts else metric
        steps = all("active_pairs" in r.extra for r in group)
        if steps:
            group = sorted(group, key=lambda r: (r.bytes, r.extra["active_pairs"]))
        launches = sorted({i for r in group for i in r.launch_ids})
        out.append(RowTable(pattern, buffer, ranks, metric, words, tuple(group), first_messages(group),
                            steps=steps, grid_only=all("round" in r.extra for r in group),
                            caveats=caveats_of(conditions, launches), method=collective_method(group)))
    return tuple(out)


def _buffering(rows: Sequence[SizeRow], eager: EagerLimit | None,
               launches: Sequence[Sequence[SizeRow]] = ()) -> tuple[BufferingRow, ...]:
    """Saphir's buffering check per size, each verdict checked against its neighbours and, with
    ``launches`` (each launch's own rows, when several measured the unexpected pattern), against
    each launch's own verdict (buffering.agreement)."""
    by_launch: dict[int, dict[int, str]] = {}
    for own in launches:
        ids = {i for r in own for i in r.launch_ids}
        for r in _buffering_rows(own, eager):
            if r.verdict and len(ids) == 1:
                by_launch.setdefault(r.bytes, {})[next(iter(ids))] = r.verdict
    return agreement(_buffering_rows(rows, eager), by_launch)


def _buffering_rows(rows: Sequence[SizeRow], eager: EagerLimit | None) -> tuple[BufferingRow, ...]:
    idx = index(rows)
    out = []
    for (pattern, variant, size), copy in sorted(idx.items(), key=lambda kv: kv[0][2]):
        if pattern != "memcpy" or variant or size <= 0 or ("pingpong", "", size) not in idx:
            continue
        ping = idx[("pingpong", "", size)]
        late, early = idx.get(("unexpected", "late", size)), idx.get(("unexpected", "preposted", size))
        extra = None
        if late is not None and early is not None:
            d = difference(early, late)
            extra = (d.value_s, d.low_s, d.high_s)
        is_eager = None if eager is None else goes_eagerly(size, eager.split_bytes)
        out.append(buffering_row(size, copy.time_s, ping.time_s, extra, is_eager))
    return tuple(out)


def _combine(rows: Sequence[SizeRow], main: SeriesResult | None, gap: Gap | None,
             eager: EagerLimit | None) -> tuple[CombineRow, ...]:
    found = [r for r in rows if r.pattern == "combine" and r.extra.get("k_messages")]
    if not found:
        return ()
    idx = index(rows)
    ks = sorted({int(r.extra["k_messages"]) for r in found})
    out = []
    for k in ks:
        for size in sorted({r.bytes for r in found}):
            sep = idx.get(("combine", f"k{k}-separate", size))
            com = idx.get(("combine", f"k{k}-combined", size))
            if sep is None or com is None:
                continue
            prediction = None
            if main is not None and main.model is not None:
                model = main.model
                measured = {s.bytes: s.point.time_s for s in model.sizes}
                try:
                    prediction = predict_combining(
                        model.sweep.piecewise, model.sweep.hockney.line, k, size, MIN_GAIN, measured,
                        gap, (sep.time_s, com.time_s),
                        eager.split_bytes if eager is not None else None)
                except AnalysisError:
                    prediction = None
            out.append(CombineRow(k, size, sep.time_s, com.time_s,
                                  sep.time_s / com.time_s if com.time_s > 0 else math.nan,
                                  prediction, ratio_interval(sep, com)))
    return tuple(out)


def _loggp(rows: Sequence[SizeRow]) -> LogGPResult | None:
    points = tuple(points_from_rows(rows))
    if not points:
        return None
    if len({p.bytes for p in points}) < 2:
        return LogGPResult(points, None, "LogGP needs the loggp pattern at two or more sizes")
    try:
        return LogGPResult(points, analyze_loggp(points))
    except LogGPError as exc:
        return LogGPResult(points, None, str(exc))


def _bandwidth_dominated(series: Sequence[SeriesResult]) -> frozenset[int] | None:
    """The sizes where the ping-pong's Hockney line says bandwidth dominates (β·b above α: the
    regimes table's "beta"), None without a ping-pong model (then every size is held to the bound)."""
    ping = next((s for s in series if s.key.pattern == "pingpong" and not s.key.variant and s.model is not None), None)
    return None if ping is None else frozenset(r.bytes for r in ping.model.sweep.regimes if r.regime == "beta")


def _hosts(run: Any) -> dict[int, str]:
    return {r.rank: r.host for r in run.launches[-1].ranks} if run.launches else {}


def analyze(run: Any, *, launch: int | None = None, tolerance: float = TOLERANCE,
            confidence: float = 0.95, name_collectives: bool = True) -> RunResult:
    """The whole analysis of ``run`` (all launches pooled unless ``launch`` is given). A collective's
    algorithm is named only where two launches or more, each analysed alone, name it
    (``collectives.confirm``): never from one launch (``launch`` given, or a run of one), and not at
    all with ``name_collectives`` False (the refinement's rounds, which read only the main series)."""
    if launch is not None and not any(m.launch == launch for m in run.measurements):
        available = sorted({m.launch for m in run.measurements})
        raise AnalysisError(f"{run.path or 'the run'}: no launch {launch}; its launches are "
                            + (", ".join(map(str, available)) or "none"))
    measured = run if launch is None else _one_launch(run, launch)
    rows = size_rows(measured)
    patterns = list(dict.fromkeys(m.pattern for m in measured.measurements))
    facts = {p: pattern_facts(run, p) for p in patterns}
    # every record of the probe (each launch's), checked for agreement; a limit they disagree on is
    # "cannot tell" (result.eager keeps it, with the reason) and nothing below is derived from it
    probe = eager_limit(rows, [(m.bytes, m.extra) for m in measured.measurements if m.pattern == "eager-probe"])
    if probe is not None and probe.agreed:  # ... and with the MPI's own eager threshold, where MPI_T reports one
        said = probe_contradiction(probe.split_bytes, _reported(run))
        probe = msgspec.structs.replace(probe, disagreement=said) if said else probe
    eager = probe if probe is not None and probe.agreed else None
    # where the probe saw the eager limit, a refinement launch may show the switch as a step
    anchor = eager.switch_bytes if eager is not None else None
    # ... and where the launch environment set a threshold to the byte (a single-copy threshold)
    thresholds = threshold_anchors(run)
    # the probe's limit and every threshold the MPI names: between two, sizes off the model are a
    # regime; where the probe measured the eager limit, an eager variable's loose bracket (a cell
    # size: its low end 1 KiB below, for a header) is no switch of its own
    bounds = tuple(sorted({*([eager.split_bytes] if eager is not None else []),
                           *(t.low for t in _mpi_thresholds(run)
                             if eager is None or t.kind != EAGER or t.high - t.low == 1)}))
    series = tuple(_model(run, key, facts[key.pattern], launch, tolerance, confidence, anchor, thresholds,
                          bounds if key.pattern not in ("memcpy", "floor") else ())
                   for key in _series_keys(run, launch))
    series = _labelled(series, eager, run)
    conditions = tuple(c for c in run_conditions(measured) if launch is None or c.launch == launch)
    series = tuple(_with_conditions(s, conditions) for s in series)
    main = _main(series)
    loggp = _loggp(rows)
    gap = None
    if loggp is not None and loggp.analysis is not None:
        p = loggp.analysis.params
        gap = Gap(p.g, p.G) if p.reason("g") is None and p.reason("G") is None else None
    floors = floor_rows(rows)
    source = describe_source(run)
    memcpy = memcpy_times(rows)
    mains = [s for s in series if main is not None and s.model is not None
             and (s.key.pattern, s.key.variant) == (main.key.pattern, main.key.variant)]
    ping = sorted((r.bytes, r.time_s) for r in rows if r.pattern == "pingpong" and not r.variant)
    saphir = []
    for s in (mains or [main]):
        placement = s.key.placement if s is not None and s.key.placement else (
            "" if source.pair_shares_node is None else "intra" if source.pair_shares_node else "inter")
        saphir.append(saphir_row(run.path or "", source.mpi_library, source.mpi_version, placement,
                                 s.model if s is not None else None, memcpy, probe, floors,
                                 ping[0] if ping and s is None else None))
    machine = run_machine(run)
    partial = RunResult(
        source=source, tables=_tables(rows, facts, conditions), series=series, main=main, saphir=tuple(saphir),
        send_modes=send_modes(rows, facts), bidirectional=bidirectional(rows, facts, _bandwidth_dominated(series)),
        variant_pairs=variant_pairs(rows, facts, eager.split_bytes if eager is not None else None),
        compat=compat(rows, facts), floor=floors, overlap=overlap_rows(rows), barrier=barrier_rows(rows),
        buffering=_buffering(rows, eager, _launch_rows(measured, "unexpected")), combine=_combine(rows, main, gap, eager), eager=probe,
        loggp=loggp, contention=contention(rows), matrices=matrices(rows, _hosts(run)),
        placement=placement_pairs(rows), placement_models=_placement_models(series), combining_cases=(), tolerance=tolerance, confidence=confidence,
        launch=launch, machine=machine, caveats=caveats_of(conditions), conditions=conditions,
        thresholds=thresholds, compat_collectives=tool_rows(rows))
    copies = next((s for s in series if s.key.pattern == "memcpy" and s.model is not None), None)
    partial = msgspec.structs.replace(partial, saphir=tuple(
        copy_undisturbed(r, _copy_disturbed(r, rows, [*caveats_of(conditions), *(copies.model.caveats if copies else ())]))
        for r in partial.saphir))
    answer = _answer(main, probe, partial.caveats, source, rows, confidence, _no_probe(run, source.tool))
    if main is not None and answer is not None and answer.disturbed:  # what the answer cannot tell, in summary too
        partial = msgspec.structs.replace(partial, saphir=tuple(undisturbed(r, disturbed_terms(answer, r.series))
                                                            for r in partial.saphir))
    collectives = _collectives(rows, series, source, tolerance, conditions, machine.device,
                               tuple(l.environment for l in run.launches))
    launches = sorted({m.launch for m in run.measurements if collective_name(m.pattern)})
    if launch is None and name_collectives and len(launches) > 1 and nameable(collectives):
        # a name stands where the launches, each analysed alone, give it
        collectives = confirm(collectives, {i: _launch_collectives(
            run, i, tolerance, confidence, (anchor, thresholds, bounds), machine.device,
            tuple(l.environment for l in run.launches)) for i in launches})
    elif collectives is not None:  # one launch's names are pointers
        collectives = confirm(collectives, {}, f"the analysis of launch {launch} alone names nothing (the whole run's "
                                               "may, from two launches that agree)" if launch is not None else "")
    return msgspec.structs.replace(partial, combining_cases=_combining_cases(partial), answer=answer,
                                   refined_only=_refined_only(run, series, answer), collectives=collectives)


def _launch_collectives(run: Any, launch: int, tolerance: float, confidence: float, fitting: tuple,
                        mpi_device: str | None, environments: Sequence[Mapping[str, str]]) -> Collectives | None:
    """One launch's collectives analysed alone: its rows, and the models of only the point-to-point
    patterns the predictions are made from (the launch's whole analysis, ``analyze(run, launch=...)``,
    fits every pattern: 2.8x the pooled analysis' time on a zoo run of two launches), fitted as the
    whole run's are (``fitting``: the eager anchor, the MPI's thresholds, the regime bounds; a launch
    alone may lack the probe's records). Without a probe, the same verdicts as the launch's whole
    analysis (tests/analysis/collectives/test_naming.py)."""
    anchor, thresholds, bounds = fitting
    measured = _one_launch(run, launch)
    keys = [k for k in _series_keys(run, launch) if k.pattern in MODEL_PATTERNS and k.placement in ("", "intra")
            and (not k.variant or (k.pattern, k.variant) == (COMBINE, "double"))]  # what _collectives reads
    series = tuple(_model(run, k, pattern_facts(run, k.pattern), launch, tolerance, confidence, anchor, thresholds,
                          bounds if k.pattern not in ("memcpy", "floor") else ())
                   for k in keys)
    conditions = tuple(c for c in run_conditions(measured) if c.launch == launch)
    return _collectives(size_rows(measured), series, describe_source(run), tolerance, conditions, mpi_device,
                        environments)


def _collectives(rows: Sequence[SizeRow], series: Sequence[SeriesResult], source: RunSource,
                 tolerance: float, conditions: Sequence[LaunchConditions] = (),
                 mpi_device: str | None = None, environments: Sequence[Mapping[str, str]] = ()) -> Collectives | None:
    """The collectives against the blocking ping-pong's model and the run's other point-to-point
    patterns (``PointToPoint.measured``: memcpy's for copies, reduce-local's for γ, ...)."""
    def found(pattern: str, variant: str = "") -> SeriesResult | None:
        return next((s for s in series if s.key.pattern == pattern and s.key.variant == variant
                     and s.key.placement in ("", "intra")), None)

    def model(pattern: str, variant: str = ""):
        s = found(pattern, variant)
        return s.model.sweep.piecewise if s is not None and s.model is not None else None

    ping, why = model(ONE_WAY), found(ONE_WAY).not_modelled if found(ONE_WAY) is not None else ""
    p2p = (PointToPoint.measured(ONE_WAY, ping, model, steps_family(source.mpi_library, mpi_device))
           if ping is not None else None)
    return collective_fits(rows, p2p, source.nranks, source.mpi_library, tolerance,
                           f"the ping-pong has no model: {why}" if why else "", conditions, environments)


def _copy_disturbed(row: SaphirRow, rows: Sequence[SizeRow], caveats: Sequence[cv.Caveat]) -> str:
    """Why the copy speed's memcpy measurement (at ``row.copy_speed_size``) was not the memory's own,
    by the answer's rule (answer.disturbance: beside other work, oversubscribed, cut off; two ranks
    seen on one core only with a scheduler's sign in the samples), "" when it was."""
    copied = next((r for r in rows if r.pattern == "memcpy" and not r.variant and r.bytes == row.copy_speed_size), None)
    if copied is None:
        return ""
    return disturbance(Figure(copied.time_s, bytes=copied.bytes), {copied.bytes: copied}, caveats)


def _no_probe(run: Any, tool: str) -> str:
    """Why the run holds no eager-probe, in words: the plan says whether msgperf run meant to
    probe (a tester's run cut off, or interrupted, before its probe launch read "run without
    --no-probe", which it was)."""
    if tool != "msgperf":
        return "this tool does not measure it"
    after = getattr(getattr(run.info, "plan", None), "after", None)
    if after is None:
        return "not measured (msgperf run measures it unless given --no-probe)"
    if "probe" in after:  # (a --resume does not probe: the launch it lost is not measured again)
        return "not measured: the run stopped before its eager-probe launch (msgperf run --resume does not probe)"
    return "not measured (the run was made with --no-probe)"


def _answer(main: SeriesResult | None, eager: EagerLimit | None, caveats: Sequence[cv.Caveat],
            source: RunSource, rows: Sequence[SizeRow], confidence: float, no_probe: str) -> Answer:
    if main is None:
        return build_answer("", "", None, (), eager, caveats, no_probe, confidence=confidence)
    key = main.key
    mine = {r.bytes: r for r in rows if (r.pattern, r.variant) == (key.pattern, key.variant)
            and (not key.placement or r.extra.get("placement", key.placement) == key.placement)}
    return build_answer(main.name, main.facts.time_words, main.model, main.labels, eager, caveats, no_probe,
                        tuple(mine[b] for b in sorted(mine)), confidence)


def _refined_only(run: Any, series: Sequence[SeriesResult],
                  answer: Answer | None = None) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """Per pattern, the sizes outside the run's plan (a refinement added them) that bound none of
    the pattern's switches: the gap each breakpoint lies in, and the interval it may lie in, keep
    their sizes, and so do the two the answer's step at the eager limit is read from; the others
    only served to locate them (show lists them with --all)."""
    plan = getattr(getattr(run, "info", None), "plan", None)
    planned = set(getattr(plan, "sizes", None) or ())
    if not planned:
        return ()
    out = []
    for pattern in dict.fromkeys(m.pattern for m in run.measurements):
        measured = {m.bytes for m in run.measurements if m.pattern == pattern}
        carry = {b for s in series if s.key.pattern == pattern and s.model is not None
                 for bp in s.model.sweep.piecewise.breakpoints
                 for b in (bp.low_bytes, bp.high_bytes, bp.best_low_bytes, bp.best_high_bytes)}
        if answer is not None and answer.eager_step is not None and pattern == answer.series:
            carry |= {answer.eager_step.below.bytes, answer.eager_step.above.bytes}
        hidden = tuple(sorted(b for b in measured if b not in planned and b not in carry))
        if hidden:
            out.append((pattern, hidden))
    return tuple(out)


def _environment(run: Any) -> dict[str, str]:
    """Every launch's environment, later launches' values winning."""
    environment: dict[str, str] = {}
    for launch in getattr(run, "launches", ()):
        environment.update(launch.environment)
    return environment


def threshold_anchors(run: Any) -> tuple[int, ...]:
    """The last size before each switch that the launch environment sets to the byte (a
    single-copy threshold T: sizes from T on take the new protocol, so the switch is in (T - 1, T];
    an eager threshold E of sizes up to E: in (E, E + 1]): where a refinement launch measures both
    sides and may show a step, as at the eager-probe's limit. A cell size is not exact (its eager
    payload is the cell less a header); the probe measures that one."""
    return tuple(sorted({t.low for t in known_thresholds(_environment(run)) if t.high == t.low + 1}))


def _reported(run: Any) -> tuple[KnownThreshold, ...]:
    """The thresholds in force that MPI_T reports for the pair's transport (set or not)."""
    machine = run_machine(run)
    return reported_thresholds(machine.thresholds, machine.cvars, describe_source(run).pair_shares_node, {})


def _mpi_thresholds(run: Any) -> tuple[KnownThreshold, ...]:
    """The MPI's thresholds: as the launch environment set them, and as MPI_T reports them for the
    transport the pair used (where the environment did not set them)."""
    environment = _environment(run)
    machine = run_machine(run)
    return known_thresholds(environment) + reported_thresholds(
        machine.thresholds, machine.cvars, describe_source(run).pair_shares_node, environment)


def _evidence(series: Sequence[SeriesResult], eager: EagerLimit | None, run: Any) -> BreakpointEvidence:
    """What in the run can name a breakpoint: the measured eager limit, memcpy's and the floor's
    own knees, and the MPI's thresholds as the launch environment set them."""
    def knees(pattern: str):
        s = next((s for s in series if s.key.pattern == pattern and s.model is not None), None)
        return s.model.sweep.piecewise.breakpoints if s is not None else ()

    # a probe that saw no size wait bounds the limit from below only: it names no switch (read as
    # (L, L + 1) it named one just above its largest size "eager → rendezvous")
    limit = at_least = None
    if eager is not None and eager.high_bytes is not None:
        limit = (eager.low_bytes, eager.high_bytes)
    elif eager is not None:
        at_least = eager.low_bytes
    return BreakpointEvidence(eager_limit=limit, eager_at_least=at_least, memcpy_breakpoints=knees("memcpy"),
                              floor_breakpoints=knees("floor"),
                              thresholds=_mpi_thresholds(run))


def _labelled(series: tuple[SeriesResult, ...], eager: EagerLimit | None, run: Any) -> tuple[SeriesResult, ...]:
    evidence = _evidence(series, eager, run)

    def own(s: SeriesResult) -> BreakpointEvidence:
        """The evidence for one series: a copy with no MPI in it (memcpy, the floor) has no protocol
        to switch, and its own knee is no evidence of itself."""
        return BreakpointEvidence(copy_only=True) if s.key.pattern in ("memcpy", "floor") else evidence

    return tuple(msgspec.structs.replace(s, labels=label_breakpoints(s.model.sweep.piecewise.breakpoints, own(s)))
                 if s.model is not None and s.model.sweep.piecewise.breakpoints else s for s in series)


def _with_conditions(s: SeriesResult, conditions: Sequence[LaunchConditions]) -> SeriesResult:
    """A model's caveats gain what the machine did to its launches (said with every model too)."""
    extra = caveats_of(conditions, s.model.launches) if s.model is not None else ()
    if not extra:
        return s
    return msgspec.structs.replace(s, model=msgspec.structs.replace(s.model, caveats=s.model.caveats + extra))


def _placement_models(series: Sequence[SeriesResult]) -> tuple[PlacementModel, ...]:
    by_key = {(s.key.pattern, s.key.variant, s.key.placement): s for s in series if s.model is not None}
    return tuple(PlacementModel(p, v, by_key[(p, v, "intra")].model, by_key[(p, v, "inter")].model)
                 for (p, v, where) in by_key if where == "intra" and (p, v, "inter") in by_key)


def _combining_cases(result: RunResult) -> tuple[CombiningPrediction, ...]:
    main = result.main
    if main is None or main.model is None:
        return ()
    largest = main.model.sweep.piecewise.segments[-1].to_bytes
    return tuple(result.advise(k, s) for k, s in COMBINING_CASES if k * s <= largest)


def _launch_rows(run: Any, pattern: str) -> tuple[tuple[SizeRow, ...], ...]:
    """Each launch's own rows, when more than one launch measured ``pattern`` (else none)."""
    ids = sorted({m.launch for m in run.measurements if m.pattern == pattern})
    return tuple(tuple(size_rows(_one_launch(run, l))) for l in ids) if len(ids) > 1 else ()


def _one_launch(run: Any, launch: int) -> Any:
    return msgspec.structs.replace(run, measurements=tuple(m for m in run.measurements if m.launch == launch))
