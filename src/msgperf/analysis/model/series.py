"""The whole analysis of one pattern: per-size statistics, the pooled model, the model of each
launch and the comparison of launches. Entry points: ``analyze_series`` (a ``Run`` from a run
file), ``analyze_pairs`` (bytes and seconds arrays, the two-column text format) and
``analyze_sets`` (sample sets from anywhere).

A sweep is one *series*: a pattern and one of its variants (``late``/``preposted``, ``k8``...;
most patterns have only ""), whose measurements are never pooled with another variant's.
Measurements of one series that differ in rank pair or buffer are pooled, with a caveat.

``analyze_series`` reads only attributes of the run it is given (``measurements`` with
``pattern``, ``variant``, ``bytes``, ``launch``, ``divisor``, ``validated``, ``flows``,
``ranks``, ``buffer``, ``per_message_s``; ``launches`` with ``index`` and
``clock.resolution_s``), so the analysis needs nothing from the records layer but its data.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Callable, Iterable, Sequence

import msgspec
import numpy as np

from msgperf.analysis import caveats as cv
from msgperf.analysis.launches import (Interval, LaunchComparison, align, compare_launches,
                                       disturbed_launches, measuring_launches, parameter_across_launches,
                                       quiet_launches)
from msgperf.analysis.samples import (AnalysisError, MeasurementAnalysis, SampleSet, SampleStats,
                                      analyze_measurement, check_set, check_times, sample_stats)
from msgperf.analysis.model.points import TOLERANCE, SizePoint, point_from_stats
from msgperf.analysis.model.sweep import SweepAnalysis, analyze_sweep
from msgperf.values import Value

ALIGNMENT_WORTH_SAYING = 0.02  # a supplement launch more than 2 % off the sweep's level is named


class SizeAnalysis(Value):
    bytes: int
    stats: SampleStats  # all launches pooled
    measurements: tuple[MeasurementAnalysis, ...]  # one per launch, in launch order
    point: SizePoint

    @property
    def outliers(self) -> int:
        return sum(m.outliers.count for m in self.measurements)


class LaunchModel(Value):
    launch: int
    sweep: SweepAnalysis


class ParameterAcrossLaunches(Value):
    """A parameter of the Hockney line combined over the launches' own fits (``--repeat``)."""

    name: str  # "alpha", "beta", "n_half"
    interval: Interval  # value and interval across the launches (covers "across N launches")


class SeriesAnalysis(Value):
    pattern: str
    source: str  # the file analysed, for headings
    launches: tuple[int, ...]  # the launches analysed (pooled when several)
    sizes: tuple[SizeAnalysis, ...]
    sweep: SweepAnalysis  # the model of all launches pooled
    per_launch: tuple[LaunchModel, ...]  # the model of each launch (empty for a single launch)
    launch_comparison: LaunchComparison | None
    caveats: tuple[cv.Caveat, ...]  # of every measurement, of the sweep and of the launches
    tolerance: float
    confidence: float
    variant: str = ""  # the pattern's variant analysed ("" when it has one)
    flows: int = 1  # messages of `bytes` per reported time (2 for bidirectional patterns)
    metric: str = "one_way"  # what a time is: one_way (half a round trip), round_trip, per_iteration...
    placement: str = ""  # "intra" or "inter" when the series is one placement of --placement both
    # α, β and n½ across launches, from each launch's own fit (empty with one launch)
    parameters_across_launches: tuple[ParameterAcrossLaunches, ...] = ()
    # sizes a launch added whose times here are on the sweep's level (multiplied by its launch's
    # factor, launch_alignment.py); msgperf show's tables list them as measured
    aligned_bytes: tuple[int, ...] = ()

    @property
    def series(self) -> str:
        """The pattern, with its variant when it has several, and its placement when the run
        measured two: 'unexpected [late]', 'pingpong (inter-node)'."""
        name = f"{self.pattern} [{self.variant}]" if self.variant else self.pattern
        return f"{name} ({self.placement}-node)" if self.placement else name


def _merge(sets: Sequence[SampleSet]) -> SampleSet:
    """Several sample sets of one size and launch (e.g. a re-measured size) as one."""
    if len(sets) == 1:
        return sets[0]
    first = sets[0]
    later = any(s.deferred for s in sets)  # samples on disk: joined when used
    return SampleSet(bytes=first.bytes, launch=first.launch, divisor=first.divisor,
                     per_message_s=(lambda: np.concatenate([s.per_message_s for s in sets])) if later
                     else np.concatenate([s.per_message_s for s in sets]),
                     clock_resolution_s=first.clock_resolution_s,
                     validated=all(s.validated for s in sets), where=first.where)


def _launch_caveats(comparison: LaunchComparison) -> list[cv.Caveat]:
    found = []
    if len(comparison.launches) == 2:
        found.append(cv.two_launches())
    for v in comparison.verdicts:
        if v.apart:
            found.append(cv.launch_apart(v.launch, v.typical_ratio, comparison.rule))
    if comparison.between_rel > cv.LAUNCH_SPREAD:
        found.append(cv.launch_spread(comparison.between_rel, comparison.within_rel))
    return found


def analyze_sets(sets: Iterable[SampleSet], pattern: str = "", source: str = "",
                 tolerance: float = TOLERANCE, confidence: float = 0.95,
                 planned: frozenset[int] | None = None, anchor: int | None = None,
                 thresholds: Sequence[int] = (), regime_bounds: Sequence[int] = (),
                 quiet: frozenset[int] = frozenset()) -> SeriesAnalysis:
    """Analyse sample sets of one pattern (any sizes, any launches); ``planned``: the sizes the
    run's plan lists, which tell the sweep's launches from those that added sizes; ``anchor``:
    the eager-probe's limit, ``thresholds`` the last size before each switch the MPI settings name
    (sweep.analyze_sweep); ``quiet``: the launches whose records say they had their cores
    (launch_alignment.disturbed_launches)."""
    grouped: dict[int, dict[int, list[SampleSet]]] = defaultdict(lambda: defaultdict(list))
    for s in sets:
        grouped[int(s.bytes)][s.launch].append(s)
    if not grouped:
        raise AnalysisError(f"{source or 'the input'}: no samples to analyse")
    merged_sets = {size: {launch: _merge(group) for launch, group in by_launch.items()}
                   for size, by_launch in grouped.items()}
    refinements, disturbed = _refinement_points(merged_sets, planned, confidence, quiet)
    if disturbed:  # a launch that measured another curve has no times to give, only a caveat
        gone = {c.launch for c in disturbed}
        merged_sets = {size: kept for size, ls in merged_sets.items()
                       if (kept := {l: m for l, m in ls.items() if l not in gone})}
    merged_sets, alignments, extra = align(merged_sets, planned)
    # a size measured again beside a switch locates it; its time stays that of the launches that measured it first
    chosen = measuring_launches({size: set(ls) for size, ls in merged_sets.items()}, planned)
    merged_sets = {size: {l: m for l, m in ls.items() if l in chosen[size]} for size, ls in merged_sets.items()}
    sizes = []
    for size in sorted(merged_sets):
        merged = [m for _, m in sorted(merged_sets[size].items())]
        analyses = tuple(analyze_measurement(m, confidence) for m in merged)
        if len(analyses) == 1:
            pooled = analyses[0].stats
        else:
            pooled = sample_stats(np.concatenate([m.per_message_s for m in merged]), confidence)
        per_launch = [a.stats for a in analyses] if len(analyses) > 1 else ()
        sizes.append(SizeAnalysis(size, pooled, analyses, point_from_stats(size, pooled, per_launch)))
    rescaled = frozenset(b for a in alignments if a.factor != 1.0 for b in a.added_bytes)
    sweep = analyze_sweep([s.point for s in sizes], tolerance, confidence,
                          model_sizes=planned if refinements or disturbed else None, refinements=refinements,
                          anchor=anchor, thresholds=thresholds, rescaled=rescaled, regime_bounds=regime_bounds)
    launches = tuple(sorted({m.launch for s in sizes for m in s.measurements}))
    per_launch_models: list[LaunchModel] = []
    comparison = None
    found = [c for s in sizes for m in s.measurements for c in m.caveats]
    if all(s.stats.n == 1 for s in sizes):  # said once, by the sweep's no_per_size_noise
        found = [c for c in found if c.kind != "single_value"]
    found.extend(sweep.caveats)
    found.extend(disturbed)
    found.extend(cv.launch_aligned(a.launch, a.factor, len(a.shared_bytes), len(a.added_bytes))
                 for a in alignments if abs(a.factor - 1) >= ALIGNMENT_WORTH_SAYING)
    # Run-to-run variation comes from launches that measured the same sizes again (--repeat, or
    # msgperf run's launches of the answer's sizes); a launch that adds sizes (the extra sizes of a
    # refinement, a resumed remainder) adds points to the sweep, not a repetition to compare. The
    # launches are compared on the sizes measured again only: a size the sweep measured alone has
    # no spread between launches to give. Each launch gets a model of its own only where every
    # size was measured again (--repeat): a model of the answer's five sizes beside the pooled one
    # of the sweep's 28 would differ by what they measured, not by the launch, and compare would
    # test the pooled α, β and 64 MiB bandwidth against the spread of other sizes' fits.
    repeated = [s for s in sizes if len([m for m in s.measurements if m.launch not in extra]) > 1]
    repeating = tuple(l for l in launches if l not in extra
                      and any(l in {m.launch for m in s.measurements} for s in repeated))
    if len(repeating) > 1:
        summaries = {l: {m.bytes: m.stats for s in repeated for m in s.measurements if m.launch == l}
                     for l in repeating}
        every_size = all(s in repeated for s in sizes if any(m.launch not in extra for m in s.measurements))
        for l in repeating if every_size else ():
            points = [point_from_stats(b, summary) for b, summary in sorted(summaries[l].items())]
            if len(points) >= 2:
                per_launch_models.append(LaunchModel(l, analyze_sweep(points, tolerance, confidence)))
        comparison = compare_launches(summaries)
        found.extend(_launch_caveats(comparison))
    elif any(s.stats.n > 1 for s in sizes):
        found.append(cv.one_launch())
    return SeriesAnalysis(pattern=pattern, source=source, launches=launches, sizes=tuple(sizes),
                       sweep=sweep, per_launch=tuple(per_launch_models),
                       launch_comparison=comparison, caveats=tuple(found),
                       tolerance=tolerance, confidence=confidence,
                       parameters_across_launches=_parameters_across(per_launch_models, confidence),
                       aligned_bytes=tuple(sorted(rescaled)))


def _refinement_points(by_size: dict[int, dict[int, SampleSet]], planned: frozenset[int] | None,
                       confidence: float, quiet: frozenset[int] = frozenset()
                       ) -> tuple[list[list[SizePoint]], list[cv.Caveat]]:
    """Each launch that measured sizes outside the plan (a refinement), in launch order, as its own
    points at every size it measured: where a switch lies is judged within one launch. A launch
    that measured another curve (launch_alignment.disturbed_launches) locates nothing, and that
    is said."""
    if not planned or all(size in planned for size in by_size):  # no refinement launch
        return [], []
    medians = {size: {l: float(np.median(m.per_message_s)) for l, m in ls.items()} for size, ls in by_size.items()}
    disturbed = disturbed_launches(medians, planned, quiet)
    gone = {d.launch for d in disturbed}
    launches = sorted({l for size, ls in by_size.items() if size not in planned for l in ls} - gone)
    # the statistics alone (a point): outliers, drift and modality of these sets are the sweep's business
    kept = [[point_from_stats(size, sample_stats(check_set(ls[l]).per_message_s, confidence))
             for size, ls in sorted(by_size.items()) if l in ls] for l in launches]
    return kept, [cv.refinement_disturbed(d.launch, d.low, d.high, d.shared,
                                          sorted(size for size, ls in by_size.items() if set(ls) == {d.launch}))
                  for d in disturbed]


def _parameters_across(models: Sequence[LaunchModel], confidence: float
                       ) -> tuple[ParameterAcrossLaunches, ...]:
    """α, β and n½ of the Hockney line over the launches' own fits (needs two or more)."""
    out = []
    for name, value, ci in (("alpha", "alpha_s", "alpha_ci_s"),
                            ("beta", "beta_s_per_byte", "beta_ci_s_per_byte"),
                            ("n_half", "n_half_bytes", "n_half_ci_bytes")):
        interval = parameter_across_launches(
            [(getattr(m.sweep.hockney.line, value), getattr(m.sweep.hockney.line, ci)) for m in models],
            confidence)
        if interval is not None:
            out.append(ParameterAcrossLaunches(name, interval))
    return tuple(out)


def patterns_of(run: Any) -> tuple[str, ...]:
    """The patterns of a run, in the order their first measurement appears."""
    return tuple(dict.fromkeys(m.pattern for m in run.measurements))


def series_of(run: Any) -> tuple[tuple[str, str], ...]:
    """The (pattern, variant) series of a run, in the order they first appear."""
    return tuple(dict.fromkeys((m.pattern, getattr(m, "variant", "")) for m in run.measurements))


def analyze_series(run: Any, pattern: str | None = None, launch: int | None = None,
                   tolerance: float = TOLERANCE, confidence: float = 0.95,
                   variant: str | None = None, placement: str | None = None,
                   anchor: int | None = None, thresholds: Sequence[int] = (),
                   regime_bounds: Sequence[int] = ()) -> SeriesAnalysis:
    """Analyse one series of a run: the first pattern in the file unless ``pattern`` is given,
    its first variant unless ``variant`` is given; all launches pooled unless ``launch`` is;
    every placement pooled unless ``placement`` ("intra", "inter") is given."""
    name = getattr(run, "path", "") or "the run"
    patterns = patterns_of(run)
    if not patterns:
        raise AnalysisError(f"{name}: no measurements to analyse (was the run killed before "
                            "its first size finished?)")
    pattern = patterns[0] if pattern is None else pattern
    if pattern not in patterns:
        raise AnalysisError(f"{name}: no measurements of pattern {pattern!r}; the run has "
                            + ", ".join(patterns))
    chosen = [m for m in run.measurements if m.pattern == pattern]
    variants = tuple(dict.fromkeys(getattr(m, "variant", "") for m in chosen))
    variant = variants[0] if variant is None else variant
    if variant not in variants:
        raise AnalysisError(f"{name}: pattern {pattern!r} has no variant {variant!r}; its "
                            f"variants are {', '.join(repr(v) for v in variants)}")
    chosen = [m for m in chosen if getattr(m, "variant", "") == variant]
    if placement is not None:
        chosen = [m for m in chosen if getattr(m, "placement", "") == placement]
        if not chosen:
            raise AnalysisError(f"{name}: pattern {pattern!r} has no {placement}-node measurements")
    if launch is not None:
        available = sorted({m.launch for m in chosen})
        chosen = [m for m in chosen if m.launch == launch]
        if not chosen:
            raise AnalysisError(f"{name}: pattern {pattern!r} has no launch {launch}; its "
                                f"launches are {', '.join(map(str, available))}")
    ticks = {l.index: l.clock.resolution_s for l in getattr(run, "launches", ())}
    # a measurement whose samples wait on disk gives them when its size is analysed, not before
    sets = [SampleSet(bytes=m.bytes, per_message_s=_per_message_later(m) if getattr(m, "spilled", False)
                      else m.per_message_s, launch=m.launch,
                      divisor=m.divisor, clock_resolution_s=ticks.get(m.launch),
                      validated=m.validated,
                      where=f"{name}: {pattern} {m.bytes} B launch {m.launch}")
            for m in chosen]
    plan = getattr(getattr(run, "info", None), "plan", None)
    planned = frozenset(plan.sizes) if plan is not None and getattr(plan, "sizes", None) else None
    refined = planned is not None and any(m.bytes not in planned for m in chosen)
    result = analyze_sets(sets, pattern, name, tolerance, confidence, planned=planned, anchor=anchor,
                          thresholds=thresholds, regime_bounds=regime_bounds,
                          quiet=quiet_launches(run) if refined else frozenset())
    pooled = len({(getattr(m, "ranks", ()), getattr(m, "buffer", "")) for m in chosen})
    extra = (cv.pooled_pairs(pooled),) if pooled > 1 else ()
    return msgspec.structs.replace(result, variant=variant, caveats=result.caveats + extra,
                                   flows=int(getattr(chosen[0], "flows", 1)),
                                   metric=str(getattr(chosen[0], "metric", "one_way")),
                                   placement=placement or "")


def _per_message_later(m: Any) -> Callable[[], np.ndarray]:
    return lambda: m.per_message_s


def analyze_pairs(sizes: Sequence[int] | np.ndarray, seconds: Sequence[float] | np.ndarray,
                  source: str = "", tolerance: float = TOLERANCE,
                  confidence: float = 0.95) -> SeriesAnalysis:
    """Analyse (bytes, seconds) pairs, one per sample; a size may repeat (several samples)."""
    b = np.asarray(sizes)
    t = check_times(seconds, source or "samples")
    if b.shape != t.shape:
        raise AnalysisError(f"{source or 'samples'}: {b.size} sizes but {t.size} times")
    if b.size and (not np.all(np.isfinite(b.astype(float))) or np.any(b < 0)
                   or np.any(b != np.round(b))):
        raise AnalysisError(f"{source or 'samples'}: sizes must be whole numbers of bytes >= 0")
    b = b.astype(np.int64)
    order = np.argsort(b, kind="stable")
    b, t = b[order], t[order]
    cuts = np.flatnonzero(np.diff(b)) + 1
    sets = [SampleSet(bytes=int(group_b[0]), per_message_s=group_t, where=source)
            for group_b, group_t in zip(np.split(b, cuts), np.split(t, cuts))]
    return analyze_sets(sets, "samples", source, tolerance, confidence)
