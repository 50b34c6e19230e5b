"""Launches that add sizes to a sweep, put on the sweep's level before they are pooled.

A run can hold launches that measured other sizes than the sweep: the extra sizes of a
refinement (``msgperf run --refine``) or the remainder of a resumed run. MPI launches differ
in level (where the ranks land, what else runs): on a 2-core machine a refinement launch ran
15 % faster than the sweep launch at the same sizes, and its points, pooled as measured, made
the curve jagged enough to hide the very switch they were measured to locate.

A launch that measured sizes the reference launches (those with the most of the plan's sizes, or
of all sizes when the plan is unknown) did not, and
at least ``MIN_SHARED`` sizes that they did, is a supplement: its level relative to the
reference is the median, over the shared sizes, of the ratio of the reference's median to its
own, and its times are multiplied by that factor before pooling (a multiplicative launch
effect, as a block effect in a two-way layout, estimated locally from the sizes both measured).
The factor is reported, never hidden. Launches that only repeat sizes (``--repeat``) are not
supplements: their differences are the run-to-run spread the launch comparison measures.
"""

from __future__ import annotations

import math
import dataclasses
from collections.abc import Mapping

import numpy as np

from msgperf.analysis.samples import SampleSet
from msgperf.values import Value

MIN_SHARED = 3


class Alignment(Value):
    launch: int
    factor: float  # the launch's times were multiplied by this
    shared_bytes: tuple[int, ...]  # the sizes both it and the reference measured
    added_bytes: tuple[int, ...]  # the sizes only it measured


def supplements(by_size: Mapping[int, Mapping[int, SampleSet]], planned: frozenset[int] | None = None
                ) -> tuple[set[int], set[int]]:
    """(reference launches, supplement launches) of one series: sets per size, then per launch;
    ``planned``: the sizes of the run's plan (a refinement measures more sizes than the sweep)."""
    sizes_of: dict[int, set[int]] = {}
    for size, launches in by_size.items():
        for launch in launches:
            sizes_of.setdefault(launch, set()).add(size)

    def weight(sizes: set[int]) -> int:
        return len(sizes & planned) if planned else len(sizes)

    most = max((weight(s) for s in sizes_of.values()), default=0)
    reference = {l for l, s in sizes_of.items() if weight(s) == most}
    covered = set().union(*(sizes_of[l] for l in reference)) if reference else set()
    return reference, {l for l, s in sizes_of.items() if l not in reference and s - covered}


def align(by_size: Mapping[int, Mapping[int, SampleSet]], planned: frozenset[int] | None = None
          ) -> tuple[dict[int, dict[int, SampleSet]], tuple[Alignment, ...], set[int]]:
    """The sets with every supplement launch that shares ``MIN_SHARED`` sizes with the reference
    scaled to the reference's level, what was done, and the supplement launches (aligned or not)."""
    reference, extra = supplements(by_size, planned)
    out = {size: dict(launches) for size, launches in by_size.items()}
    done = []
    for launch in sorted(extra):
        shared = sorted(s for s, ls in by_size.items() if launch in ls and reference & set(ls))
        if len(shared) < MIN_SHARED:
            continue
        ratios = []
        for s in shared:
            ref = np.concatenate([by_size[s][l].per_message_s for l in reference if l in by_size[s]])
            ratios.append(float(np.median(ref)) / float(np.median(by_size[s][launch].per_message_s)))
        factor = float(np.median(ratios))
        for size, launches in out.items():
            if launch in launches:
                own = launches[launch]
                launches[launch] = dataclasses.replace(own, per_message_s=own.per_message_s * factor)
        added = tuple(sorted(s for s, ls in by_size.items() if launch in ls and not reference & set(ls)))
        done.append(Alignment(launch, factor, tuple(shared), added))
    return out, tuple(done), extra


def measuring_launches(launches_of: Mapping[int, set[int]], planned: frozenset[int] | None,
                       exclude: frozenset[int] = frozenset()) -> dict[int, set[int]]:
    """For each size (``launches_of``: size -> the launches that measured it), the launches whose
    samples are its time. A refinement launch (one that measured sizes outside the plan) measures
    again, as anchors beside a switch, sizes that the sweep or an earlier refinement measured
    first: those serve to locate the switch (switch_location.py), not to be the size's time, so
    a plan size keeps the sweep's launches and a refined size the first refinement launch that
    measured it. Without a plan, or without refinements, every launch counts. ``exclude``: the
    disturbed refinement launches (``disturbed_launches``), which give no size its time."""
    launches_of = {size: set(ls) - exclude for size, ls in launches_of.items() if set(ls) - exclude}
    if not planned:
        return {size: set(ls) for size, ls in launches_of.items()}
    refining = {l for size, ls in launches_of.items() if size not in planned for l in ls}
    if not refining:
        return {size: set(ls) for size, ls in launches_of.items()}
    out = {}
    for size, ls in launches_of.items():
        sweep = set(ls) - refining
        out[size] = sweep if size in planned and sweep else {min(ls & refining)} if ls & refining else set(ls)
    return out


# The most the sizes a refinement launch measured again may disagree with their earlier times
# beyond one common level (largest / smallest ratio of medians): clean launches on the 2-core VM
# at load 2-5 spread 1.03-1.38, launches whose ranks were descheduled 1.7-250 (bench/RESULTS.md §7)
REFINEMENT_AGREEMENT = 1.5
# ... for a launch whose records say it had its cores (conditions.py ``quiet_launches``): since the
# kernels measure size by size, quiet refinement launches spread 1.4-2.6 on the same VM (each of
# four quiet runs kept lost a launch to 1.5), while launches beside busy loops, on one core or
# beside another MPI job spread 1.95-7.1 and are seen crowded besides (bench/RESULTS.md §35)
QUIET_AGREEMENT = 3.0
# With this many sizes measured again, the level may drift smoothly with size (a ratio that is a
# line in log size: the sweep ran 2x faster at 4 KiB and 0.8x at 1 MiB, the three refinement
# launches agreeing with each other to 10 %, bench/RESULTS.md §14): the spread is taken around it
TREND_SIZES = 5
MAX_DRIFT = 3.0  # ... at most this factor end to end (the §14 case drifted 2.7x); more is another curve


class Disturbed(Value):
    launch: int
    low: float  # the smallest and largest ratio of its medians to the earlier ones
    high: float
    shared: int


def disturbed_launches(medians: Mapping[int, Mapping[int, float]], planned: frozenset[int] | None,
                       quiet: frozenset[int] = frozenset()) -> tuple[Disturbed, ...]:
    """The refinement launches (those that measured sizes outside the plan) that measured another
    curve: ``medians`` is size -> launch -> median time. Each is checked, in launch order, against
    the earlier times of the sizes it measured again: the sweep's, then each accepted refinement
    launch's at the sizes it measured first, put on the sweep's level (divided by its own median
    ratio), so that two launches on different levels do not read as disagreement. A launch in
    ``quiet`` (its records say it had its cores) may disagree by ``QUIET_AGREEMENT`` where every
    sweep launch is quiet too, any other by ``REFINEMENT_AGREEMENT``."""
    if not planned:
        return ()
    refining = sorted({l for size, ls in medians.items() if size not in planned for l in ls})
    if not refining:
        return ()
    # the earlier times are the sweep's: not those of a launch that measured a few of its sizes
    # again (msgperf run's answer launches, each at a level of its own, as the refinement launch
    # is: judged against them, a launch would disagree with itself), but those of every launch
    # whose plan sizes no other launch measured all of (--repeat's, a resumed remainder's)
    planned_of: dict[int, set[int]] = {}
    for size, ls in medians.items():
        for l in ls:
            if l not in refining and size in planned:
                planned_of.setdefault(l, set()).add(size)
    sweeps = {l for l, own in planned_of.items() if not any(own < other for other in planned_of.values())}
    reference: dict[int, float] = {}
    for size, ls in medians.items():
        sweep = [t for l, t in ls.items() if l in sweeps]
        if size in planned and sweep:
            reference[size] = float(np.median(sweep))
    out = []
    for l in refining:
        own = {size: ls[l] for size, ls in medians.items() if l in ls}
        shared = sorted(s for s in own if s in reference and reference[s] > 0 and own[s] > 0)
        ratios = [own[s] / reference[s] for s in shared]
        level = _level(shared, ratios)
        around = [r / level(s) for s, r in zip(shared, ratios)]
        # the quiet allowance is what quiet launches spread against a quiet sweep; against a
        # sweep made beside other work, a launch is held to the strict one
        agreement = QUIET_AGREEMENT if l in quiet and sweeps <= quiet else REFINEMENT_AGREEMENT
        if len(around) >= 2 and max(around) / min(around) > agreement and not _corroborated(l, shared, medians, refining):
            out.append(Disturbed(l, min(ratios), max(ratios), len(ratios)))
            continue
        reference.update({s: t / level(s) for s, t in own.items() if s not in reference})
    return tuple(out)


def _corroborated(launch: int, sizes: list[int], medians: Mapping[int, Mapping[int, float]],
                  refining: list[int]) -> bool:
    """Another refinement launch measured every one of ``sizes`` (those on which this one disagrees
    with the earlier times; at least ``TREND_SIZES``) and agrees with it there within
    ``REFINEMENT_AGREEMENT`` beyond one level: two launches that measured the same curve, where
    the sweep measured another (descheduling does not repeat size for size)."""
    if len(sizes) < TREND_SIZES:
        return False
    for other in refining:
        if other == launch or not all(other in medians[s] and medians[s][other] > 0 for s in sizes):
            continue
        ratios = [medians[s][launch] / medians[s][other] for s in sizes]
        if max(ratios) / min(ratios) <= REFINEMENT_AGREEMENT:
            return True
    return False


def _level(sizes: list[int], ratios: list[float]):
    """A launch's level against the earlier times, as a function of size: the median ratio, or,
    with ``TREND_SIZES`` sizes or more, the least-squares line of log ratio in log size, which
    a smooth drift of the level follows and one size measured on another curve does not."""
    if len(ratios) < TREND_SIZES:
        level = float(np.median(ratios)) if ratios else 1.0
        return lambda size: level
    x = np.log2(np.maximum(np.asarray(sizes, dtype=float), 1.0))
    slope, intercept = np.polyfit(x, np.log(ratios), 1)
    if abs(slope) * float(np.ptp(x)) > math.log(MAX_DRIFT):  # more than a level drifts: judged around one level
        level = float(np.median(ratios))
        return lambda size: level
    return lambda size: float(np.exp(intercept + slope * math.log2(max(size, 1))))
