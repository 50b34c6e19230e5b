"""Several profiled runs of one program merged: what a user needs to judge a change (five runs
before it, five after), per kind of MPI call and per call, the time inside MPI, the time from
MPI_Init to MPI_Finalize and the shares of point-to-point, collective and other calls, each as
the median across the runs with its smallest and largest value and the number of runs. Pure: the
profiles come read (records/profile_read.py, the store), each run's accounting from
``account_profile``, the one definition of its kinds, calls and times.

The numbers (docs/profile.md, "Several runs"):

- a run's ``mpi_time_s`` is every rank's time inside MPI together (the accounting's total), its
  ``wall_s`` the longest rank's time from MPI_Init to MPI_Finalize (the program's span);
- a run's shares divide its MPI time: point-to-point (the calls and their waits and tests,
  ``POINT_TO_POINT_KINDS``, what ``advise --profile`` predicts), collective, and the rest
  (one-sided, probes, communicator/datatype, other MPI);
- a call or kind a run did not make counts 0 s in that run (it spent no time there);
- the median of an even number of runs is the mean of the middle two; ``low`` and ``high`` are
  the smallest and largest run: the run-to-run spread, not a confidence interval.

The same program: the same program name (argv[0] without its directory), the same arguments and
the same number of ranks; anything else is refused in one line naming what differs. A run with
missing ranks or ranks that ended without MPI_Finalize is kept, and said: its times are those of
the ranks that wrote.
"""

from __future__ import annotations

import math
import statistics
from typing import Any, Sequence

from msgperf.analysis.advice.profile_accounting import POINT_TO_POINT_KINDS, account_profile
from msgperf.analysis.samples import AnalysisError
from msgperf.records.profile_format import CALL_KINDS
from msgperf.values import Value

SHARE_GROUPS = ("point-to-point", "collective", "other")


class Spread(Value):
    """One quantity over the runs: each run's value (in the runs' order; NaN where a run cannot
    give it), their median, smallest and largest, and how many runs gave one (``n``)."""

    values: tuple[float, ...]
    median: float  # NaN when no run gave a value
    low: float
    high: float
    n: int


def spread(values: Sequence[float]) -> Spread:
    """The ``Spread`` of ``values``; NaN values (a run that cannot tell) are left out of the median."""
    told = [v for v in values if not math.isnan(v)]
    if not told:
        return Spread(tuple(values), math.nan, math.nan, math.nan, 0)
    return Spread(tuple(values), statistics.median(told), min(told), max(told), len(told))


class RunTotals(Value):
    """One profiled run's totals."""

    label: str  # the profile's file or store id
    start_time: str
    complete: bool  # every rank reached MPI_Finalize and wrote its record
    missing_ranks: tuple[int, ...]
    unfinished_ranks: tuple[int, ...]  # ranks that ended without MPI_Finalize
    wall_s: float  # the longest rank's time from MPI_Init to MPI_Finalize
    mpi_time_s: float  # every rank together
    point_to_point_share: float  # of mpi_time_s; NaN when it is 0
    collective_share: float
    other_share: float


class CallSpread(Value):
    """A kind of call or one call over the runs (every rank together in each run)."""

    name: str  # a kind of CALL_KINDS, or a call ("MPI_Allreduce")
    kind: str
    calls: Spread
    bytes: Spread
    time_s: Spread
    share: Spread  # of the run's time inside MPI


class ProfileRuns(Value):
    program: str
    argv: tuple[str, ...]
    nranks: int
    runs: tuple[RunTotals, ...]
    wall_s: Spread
    mpi_time_s: Spread
    point_to_point_share: Spread
    collective_share: Spread
    other_share: Spread
    kinds: tuple[CallSpread, ...]  # by median time, most first
    calls: tuple[CallSpread, ...]  # by median time, most first
    notes: tuple[str, ...]

    @property
    def n(self) -> int:
        return len(self.runs)


def _command(profile: Any) -> str:
    return " ".join((profile.program, *profile.info.argv[1:])) or "?"


def check_same_program(profiles: Sequence[Any], labels: Sequence[str]) -> None:
    """Refuse, in one line naming what differs, profiles of different programs, arguments or
    numbers of ranks, and one run given twice."""
    first, name = profiles[0], labels[0]
    seen = {(first.info.start_time, tuple(r.pid for r in first.ranks)): name}
    for profile, label in zip(profiles[1:], labels[1:]):
        if profile.program != first.program:
            raise AnalysisError(f"cannot merge {label} with {name}: another program ({profile.program or '?'} "
                                f"against {first.program or '?'}); merge runs of one program")
        if profile.info.argv[1:] != first.info.argv[1:]:
            raise AnalysisError(f"cannot merge {label} with {name}: other arguments ('{_command(profile)}' against "
                                f"'{_command(first)}'); merge runs of one program with one input")
        if profile.info.nranks != first.info.nranks:
            raise AnalysisError(f"cannot merge {label} with {name}: {profile.info.nranks} ranks against "
                                f"{first.info.nranks}; merge runs with one number of ranks")
        key = (profile.info.start_time, tuple(r.pid for r in profile.ranks))
        if key in seen:
            raise AnalysisError(f"{label} and {seen[key]} are the same run (started {profile.info.start_time}); "
                                "give each run once")
        seen[key] = label


def _share(part: float, whole: float) -> float:
    return part / whole if whole > 0 else math.nan


def _run_totals(profile: Any, label: str, accounting: Any) -> RunTotals:
    by_kind = {k.name: k.time_s for k in accounting.kinds}
    p2p = sum(by_kind.get(k, 0.0) for k in POINT_TO_POINT_KINDS)
    coll = by_kind.get("collective", 0.0)
    total = accounting.mpi_time_s
    return RunTotals(
        label=label, start_time=profile.info.start_time, complete=profile.info.complete,
        missing_ranks=profile.missing_ranks, unfinished_ranks=tuple(r.rank for r in profile.ranks if not r.finalized),
        wall_s=max((r.wall_s for r in profile.ranks), default=math.nan), mpi_time_s=total,
        point_to_point_share=_share(p2p, total), collective_share=_share(coll, total),
        # the other kinds' time, not the rest of the total: time the record counts inside MPI but in
        # no call is none of the three
        other_share=_share(sum(t for k, t in by_kind.items() if k not in POINT_TO_POINT_KINDS and k != "collective"),
                           total))


def _spreads(per_run: list[dict[str, Any]], totals: Sequence[float], order: Any) -> tuple[CallSpread, ...]:
    """One ``CallSpread`` per name any run holds; a run without it counts 0."""
    names: dict[str, str] = {}
    for rows in per_run:
        for row in rows.values():
            names.setdefault(row.name, row.kind)
    out = []
    for name, kind in names.items():
        rows = [r.get(name) for r in per_run]
        out.append(CallSpread(
            name=name, kind=kind,
            calls=spread([float(r.calls) if r else 0.0 for r in rows]),
            bytes=spread([float(r.bytes) if r else 0.0 for r in rows]),
            time_s=spread([r.time_s if r else 0.0 for r in rows]),
            share=spread([_share(r.time_s if r else 0.0, t) for r, t in zip(rows, totals)])))
    return tuple(sorted(out, key=lambda c: (-c.time_s.median, order(c))))


def merge_runs(profiles: Sequence[Any], labels: Sequence[str] | None = None) -> ProfileRuns:
    """The runs of one program (records/profile_format.Profile each, ``labels`` their names;
    default their paths) merged: medians, ranges and counts (module docstring). Raises
    ``AnalysisError`` for profiles of different programs, an empty list or a profile without a rank."""
    if not profiles:
        raise AnalysisError("no profile to merge")
    labels = list(labels) if labels is not None else [p.path or f"profile {i + 1}" for i, p in enumerate(profiles)]
    for profile, label in zip(profiles, labels):
        if not profile.ranks:
            raise AnalysisError(f"{label}: no rank left a record (not an MPI program, or every rank was killed "
                                "before writing its part); nothing to merge")
    check_same_program(profiles, labels)
    accountings = [account_profile(p) for p in profiles]
    runs = tuple(_run_totals(p, label, a) for p, label, a in zip(profiles, labels, accountings))
    totals = [r.mpi_time_s for r in runs]
    kinds = _spreads([{k.name: k for k in a.kinds} for a in accountings], totals,
                     lambda c: CALL_KINDS.index(c.kind) if c.kind in CALL_KINDS else 99)
    calls = _spreads([{c.name: c for c in a.calls} for a in accountings], totals, lambda c: c.name)
    notes = []
    for run in runs:
        if run.missing_ranks or run.unfinished_ranks:
            parts = []
            if run.missing_ranks:
                parts.append(f"no record from rank(s) {', '.join(map(str, run.missing_ranks))}")
            if run.unfinished_ranks:
                parts.append(f"rank(s) {', '.join(map(str, run.unfinished_ranks))} ended without MPI_Finalize")
            notes.append(f"{run.label} is a partial run ({'; '.join(parts)}): kept; its times are those of the "
                         "ranks that wrote, until they stopped")
    mpis = [p.info.mpi_library.splitlines()[0] if p.info.mpi_library else "?" for p in profiles]
    hosts = [", ".join(dict.fromkeys(h for h in p.info.hosts if h)) for p in profiles]
    for what, values in (("MPIs", mpis), ("hosts", hosts)):
        if len(set(values)) > 1:
            notes.append(f"the runs differ in their {what} ({'; '.join(dict.fromkeys(values))}): the spread holds "
                         "that difference too")
    versions = {p.info.format_version for p in profiles}
    if min(versions) < 3:
        notes.append("a profile of format 1 or 2 wrapped only point-to-point calls and their waits and tests; "
                     "its other calls counted as time outside MPI")
    first = profiles[0]
    return ProfileRuns(
        program=first.program, argv=first.info.argv, nranks=first.info.nranks, runs=runs,
        wall_s=spread([r.wall_s for r in runs]), mpi_time_s=spread(totals),
        point_to_point_share=spread([r.point_to_point_share for r in runs]),
        collective_share=spread([r.collective_share for r in runs]),
        other_share=spread([r.other_share for r in runs]),
        kinds=kinds, calls=calls, notes=tuple(notes))


# ---- advice over several runs (advise --profile A --profile B ...) -----------------------------

class ProfileRunsAdvice(Value):
    """``advise_profile`` on each run of one program, with one model, and its figures over the
    runs. Each run's advice is its own (its measured times and its measured waiting); the lists of
    what to change are the ``median_run``'s, the run whose measured time is the median (the lower
    middle one for an even number): the same messages give the same lists, and a note says when
    the runs' messages differ."""

    runs: ProfileRuns
    advices: tuple[Any, ...]  # ProfileAdvice, one per run, in the runs' order
    median_run: int  # index into ``advices``
    predicted_s: Spread  # each run's predicted time of its slowest rank
    measured_s: Spread  # each run's slowest rank's time in point-to-point calls, waits and tests
    ratio: Spread  # each run's measured / predicted (NaN where it cannot tell)
    predicted_speedup: Spread  # of combining every back-to-back sequence, each run's (NaN: none)
    notes: tuple[str, ...]
    # the whole program (MPI_Init to MPI_Finalize) with every sequence combined, each run's advice's
    program_speedup: Spread = Spread((), math.nan, math.nan, math.nan, 0)
    program_saving_s: Spread = Spread((), math.nan, math.nan, math.nan, 0)
    resolution: "Resolution | None" = None  # whether the median of so many runs can show that saving

    @property
    def median_advice(self) -> Any:
        return self.advices[self.median_run]


# Whether a predicted saving can show in the medians of n runs before and n after the change, from
# the runs' own spread: a run's MPI_Init to MPI_Finalize varies from run to run (±15 % and more
# on a shared machine, bench/RESULTS.md §25), and a saving below what the medians resolve is
# "cannot tell", not a speedup. σ is the larger of the wall times' MAD × 1.4826 (robust to one
# odd run) and their range over its expected value for n normal samples (so that three runs of
# which two agree by chance do not claim a spread of nothing); runs whose times do not vary at all
# give no spread to judge by. A median's standard error is 1.2533·σ/√n (normal samples), the
# difference of two medians √2 times that; the saving "would show" when it is at least the
# difference the medians detect at 95 % (two-sided) four times in five (power 80 %). The change
# is assumed not to change the spread; none of this says the prediction is right.
RESOLUTION_MIN_RUNS = 3
MAX_RUNS_SAID = 100  # beyond it: "no practical number of runs"
_Z95, _Z80, _MEDIAN_SE, _MAD_SIGMA = 1.959964, 0.841621, 1.2533, 1.4826


def expected_range(n: int) -> float:
    """E[max − min] of n standard normal samples (the d2 constant of control charts)."""
    from scipy import integrate, stats

    value, _ = integrate.quad(lambda x: 1.0 - stats.norm.cdf(x) ** n - stats.norm.sf(x) ** n, -12.0, 12.0)
    return value


class Resolution(Value):
    """What the medians of ``runs`` runs per side can tell of a saving of ``saving_s``."""

    runs: int
    sigma_s: float  # the wall times' spread: max(MAD × 1.4826, range / its expected value); 0: none
    resolves_s: float  # the difference of two medians of ``runs`` runs detected at 95 % four times in five
    saving_s: float  # the advice's saving (the median over the runs; negative: combining predicted slower)
    runs_needed: int | None  # runs per side for that; None: no spread, or more than MAX_RUNS_SAID

    @property
    def shows(self) -> bool:
        """The saving would show in the medians, if the prediction is right (False: cannot tell)."""
        return self.sigma_s > 0 and abs(self.saving_s) >= self.resolves_s


def resolution(walls: Sequence[float], saving_s: float) -> Resolution | None:
    """``Resolution`` of a saving against the runs' wall times; None with fewer than
    RESOLUTION_MIN_RUNS runs (no spread to judge by) or no saving."""
    told = [w for w in walls if not math.isnan(w)]
    if len(told) < RESOLUTION_MIN_RUNS or math.isnan(saving_s):
        return None
    n = len(told)
    centre = statistics.median(told)
    sigma = max(_MAD_SIGMA * statistics.median(abs(w - centre) for w in told),
                (max(told) - min(told)) / expected_range(n))
    per_run = (_Z95 + _Z80) * _MEDIAN_SE * sigma * math.sqrt(2.0)
    needed = None
    if sigma > 0 and saving_s != 0:
        needed = max(RESOLUTION_MIN_RUNS, math.ceil((per_run / abs(saving_s)) ** 2))
        needed = needed if needed <= MAX_RUNS_SAID else None
    return Resolution(runs=n, sigma_s=sigma, resolves_s=per_run / math.sqrt(n), saving_s=saving_s,
                      runs_needed=needed)


def _nan(value: float | None) -> float:
    return math.nan if value is None else value


def merge_advice(runs: ProfileRuns, advices: Sequence[Any], profiles: Sequence[Any]) -> ProfileRunsAdvice:
    """The ``ProfileRunsAdvice`` of ``advices`` (``advise_profile`` of each of ``profiles``, with
    one model) over ``runs`` (``merge_runs`` of the same profiles)."""
    measured = [a.measured_s for a in advices]
    median_run = sorted(range(len(advices)), key=lambda i: (measured[i], i))[(len(advices) - 1) // 2]
    notes = []
    traffic = [tuple((r.rank, r.messages_sent, r.bytes_sent, r.messages_received) for r in p.ranks) for p in profiles]
    if len(set(traffic)) > 1:
        notes.append(f"the runs' messages differ (counts or bytes per rank): the lists of what to change are those of "
                     f"{runs.runs[median_run].label}, the run of median measured time")
    saving = spread([_nan(a.program_saving_s) for a in advices])
    # the saving judged against the runs' spread only when every run could tell it: a median over the
    # runs that could is not the program's (the others' time inside MPI was beyond the model's reach)
    told_by_all = saving.n == len(advices)
    return ProfileRunsAdvice(
        runs=runs, advices=tuple(advices), median_run=median_run,
        predicted_s=spread([a.predicted.value_s for a in advices]), measured_s=spread(measured),
        ratio=spread([_nan(a.ratio) for a in advices]),
        predicted_speedup=spread([_nan(a.predicted_speedup) for a in advices]), notes=tuple(notes),
        program_speedup=spread([_nan(a.program_speedup) for a in advices]), program_saving_s=saving,
        resolution=resolution([t.wall_s for t in runs.runs], saving.median) if told_by_all else None)


def advise_profile_runs(profiles: Sequence[Any], labels: Sequence[str], result: Any, series: Any = None,
                        model_label: str = "", model_choice: str = "") -> ProfileRunsAdvice:
    """``advise_profile`` on each run (one model: ``result``'s ``series``), merged."""
    from msgperf.analysis.advice.profile_advice import advise_profile

    runs = merge_runs(profiles, labels)
    advices = [advise_profile(p, result, series, profile_label=label, model_label=model_label,
                              model_choice=model_choice) for p, label in zip(profiles, labels)]
    return merge_advice(runs, advices, profiles)
