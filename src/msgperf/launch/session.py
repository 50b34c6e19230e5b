"""The measurement workflow as a library function: ``measure(request) -> MeasureOutcome``.

One call claims the run file (never destroying one that exists without ``force``, never one
that is not a run file), locks it, starts the kernels once per launch (``repeat``) or for what
a run file still lacks (``resume``) through an injectable ``Launcher``, follows each launch's
records, stops a launch that makes no progress for the deadline, marks a stopped launch in the
run file (hang, dead rank, Ctrl-C, SIGTERM), reads the run back and stores it. It renders
nothing: progress and notes go to the caller's callbacks, the caller renders the outcome.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ContextManager

from msgperf.analysis import AnalysisError
from msgperf.analysis.refinement import by_priority, next_step
from msgperf.analysis.result import analyze
from msgperf.errors import MsgperfError
from msgperf.launch import budget as budgets
from msgperf.launch.hosts import check_launch, pairs_per_size
from msgperf.launch.children import Terminated, stop_signals
from msgperf.launch.job import LaunchError, execute
from msgperf.launch.launcher import Launcher, MpiLauncher, split_launcher
from msgperf.launch.run_file_guard import (RunFileLock, check_output, check_output_directory, claim_output,
                                           default_output, make_parent)
from msgperf.plan import Plan, check_placement
from msgperf.records.format import PatternInfo
from msgperf.records.format import RecordError, Run
from msgperf.records.runfile_read import read_run
from msgperf.launch.host_load import launch_host_record, snapshot
from msgperf.records.runfile_write import append_launch_abort, append_launch_host, cut_partial_line
from msgperf.store.db import open_store
from msgperf.units import size as format_size

MAX_REPEAT = 1000
MAX_REFINE_ROUNDS = 3
MIN_REFINE_BUDGET_S = 10.0  # without one budget for the command: refinement gets as long as the sweep, >= this


# What a refinement bracket is: in the note that says where the refinement stopped, and in a few
# words on the progress line.
_BRACKET_KINDS = {"threshold": ("the threshold the MPI was set to", "set threshold"),
                  "probe": ("the eager-probe limit", "eager-probe limit"),
                  "suspect": ("a size off the model alone", "off the model"),
                  "switch": ("a switch", "switch")}


def _bracket_kind(b, short: bool = False) -> str:
    kind = "threshold" if b.threshold else "probe" if b.probe else "suspect" if b.suspect else "switch"
    return _BRACKET_KINDS[kind][short]


def check_deadline(seconds: float, text: str | None = None) -> float:
    """A watchdog deadline: positive and finite (0 or less would kill a healthy job as hung,
    NaN or infinity would switch the watchdog off)."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not (math.isfinite(seconds) and seconds > 0):
        raise MsgperfError(f"--deadline {text if text is not None else seconds}: a deadline must be a positive finite "
                           "number of seconds, e.g. --deadline 120")
    return float(seconds)


def parse_deadline(text: str) -> float:
    """--deadline as given on the command line: seconds, e.g. 120 or 4.5."""
    try:
        value = float(text)
    except ValueError:
        raise MsgperfError(f"cannot read --deadline '{text}'; write seconds, e.g. --deadline 120") from None
    return check_deadline(value, text)


@dataclass(frozen=True)
class MeasureRequest:
    """A validated ``msgperf run``: a new run (``plan``) or the continuation of a run file
    (``resume``, whose plan comes from the file)."""

    plan: Plan | None = None
    resume: Path | None = None
    output: Path | None = None  # None: <runs_dir>/<time>-<patterns>.jsonl
    runs_dir: Path = Path("runs")  # where run files go without ``output`` (relative: the working directory)
    force: bool = False  # replace an existing run file at ``output``
    repeat: int = 1
    placement: str | None = None  # intra, inter, both (the kernels choose the pair), or None: plan.pair
    hosts: tuple[str, ...] = ()
    ranks_per_node: int | None = None
    launcher: str | None = None  # --launcher text (for the default MpiLauncher)
    mpicc: str | None = None
    deadline_s: float | None = None  # None: 60 + 10 × the time budget
    command_line: str = "msgperf run"
    test_stall: str | None = None
    store: bool = True
    db: str | None = None
    log_dir: Path | None = None  # where launch logs go (None: the temporary directory)
    refine: bool = False  # after the sweep, measure extra sizes inside wide breakpoint intervals
    probe: bool = False  # after the sweep of a new run, one short eager-probe launch (msgperf run's default)
    refine_budget_s: float | None = None  # time refinement may take (None: as long as the sweep, >= 10 s)
    # The plan's total_time_s (given, or the automatic one times --repeat) is the wall-clock budget of
    # the whole command from ``started_s``, shared out by launch/budget.py, not the sweep launch's own
    # (msgperf run's --total-time). A new run only: a resumed one keeps the launch budget it recorded.
    whole_budget: bool = False
    started_s: float | None = None  # the command's start, time.monotonic() clock (None: when measure is called)
    after_s: float = budgets.FINISH_S  # with whole_budget: what the caller needs after measure returns
    overrun_s: float = 0.0  # with whole_budget: the time a sweep launch's kernels are expected past their budget

    def __post_init__(self) -> None:
        if (self.plan is None) == (self.resume is None):
            raise MsgperfError("a measurement needs either a plan or a run file to resume, not both")
        if self.plan is not None:  # a plan built by hand (the API, tests) is checked as the options' are
            object.__setattr__(self, "plan", self.plan.checked())
        if isinstance(self.repeat, bool) or not isinstance(self.repeat, int) or not 1 <= self.repeat <= MAX_REPEAT:
            raise MsgperfError(f"--repeat {self.repeat}: use 1 to {MAX_REPEAT} launches")
        if self.deadline_s is not None:
            check_deadline(self.deadline_s)
        if self.launcher is not None:
            split_launcher(self.launcher)
        if self.placement is not None:
            check_placement(self.placement)
        if self.resume is not None:
            given = [name for name, value in (("-o", self.output), ("--force", self.force),
                                               ("--repeat", self.repeat != 1), ("--placement", self.placement))
                     if value]
            if given:
                raise MsgperfError(f"--resume {self.resume} takes the plan from the run file; drop {', '.join(given)}")
        if self.plan is not None and self.placement and self.plan.pair != (0, 1):
            pair = f"{self.plan.pair[0]}:{self.plan.pair[1]}"
            raise MsgperfError(f"--pair {pair} and --placement {self.placement} both choose the measured pair; "
                               "give one of them")


@dataclass(frozen=True)
class LaunchStart:
    """Given to ``on_launch`` before a launch starts."""

    index: int  # the launch's index in the run file
    ordinal: int  # 0-based among this session's launches
    total: int  # launches this session starts
    sizes: tuple[int, ...]
    expected_records: int  # measurement records the kernels will write
    refining: bool = False  # a launch of extra sizes inside breakpoint intervals
    probing: bool = False  # the short eager-probe launch after the sweep
    budget_s: float = 0.0  # the launch's one time budget (--total-time), 0 when each size has its own
    deadline_s: float | None = None  # when the command's budget ends (time.monotonic()), if it has one
    detail: str = ""  # what the launch is for, a few words (a refinement's switches)

    @property
    def label(self) -> str:
        """The phase, as the progress line names it."""
        if self.refining:
            return f"refine {self.ordinal + 1}/{self.total}"
        if self.probing:
            return "eager probe"
        return f"sweep {self.ordinal + 1}/{self.total}" if self.total > 1 else "sweep"


@dataclass(frozen=True)
class LaunchOutcome:
    index: int
    sizes: tuple[int, ...]
    records: int  # measurement records this launch wrote
    refining: bool = False


@dataclass(frozen=True)
class StoreOutcome:
    run_id: int | None = None
    added: bool = False
    error: str | None = None  # why it could not be stored (the run file keeps the measurement)


@dataclass(frozen=True)
class MeasureOutcome:
    run: Run  # the run file read back
    run_file: Path
    launches: tuple[LaunchOutcome, ...]  # empty when a resumed file lacked nothing
    stored: StoreOutcome | None  # None when not asked to store
    notes: tuple[str, ...] = field(default=())
    # analyze(run), when the refinement's last look at the run file was at the file as it is now
    # (the caller need not analyse it again: a second or more of a short budget); else None
    result: Any = None
    # with one budget for the command: how far the sweep's kernels went past their own budget, the
    # most of its launches (first to last record, less the budget); else None
    sweep_overrun_s: float | None = None


@dataclass(frozen=True)
class ResumeState:
    """What ``--resume`` continues: the original plan and the launches still to run."""

    plan: Plan
    placement: str | None  # None: the plan's --pair
    repeat: int
    launches: tuple[tuple[int, ...], ...]  # the sizes of each launch still to run
    next_index: int
    refine: bool = True  # the run was made to refine after its sweep (files before plan.after: True)


def resume_state(path: Path) -> ResumeState:
    """The plan of a run file and the launches it still lacks: every (pattern, size) must be
    measured in ``plan.repeat`` different launches; a size short of d launches is measured by
    the first d launches of the resume. A partial last line (a killed writer's) is cut off so
    that appending stays valid. Call it holding the run file's lock."""
    result = read_run(path)
    if result.truncated:
        cut_partial_line(path)
    run = result.run
    if run.info.source != "msgperf":
        raise MsgperfError(f"--resume {path}: an imported run ({run.info.source}) cannot be continued; "
                           "measure anew with msgperf run")
    p = run.info.plan
    plan = p
    missing = run.missing()  # one entry per launch a (pattern, size) still lacks
    per_size: dict[int, int] = {}
    for pattern in p.patterns:
        for size, count in Counter(s for pat, s in missing if pat == pattern).items():
            per_size[size] = max(per_size.get(size, 0), count)
    rounds = max(per_size.values(), default=0)
    launches = tuple(tuple(s for s in plan.sizes if per_size.get(s, 0) > j) for j in range(rounds))
    next_index = max((l.index for l in run.launches), default=-1) + 1
    return ResumeState(plan=plan, placement=None if p.placement == "pair" else p.placement, repeat=p.repeat,
                       launches=launches, next_index=next_index, refine=p.after is None or "refine" in p.after)


def expected_records(plan: Plan, sizes: tuple[int, ...], placement: str | None,
                     catalog: tuple[PatternInfo, ...]) -> list[tuple[str, int, str]]:
    """(pattern, size, who) of each measurement record, in the order the kernels write them:
    one per variant (the kernels' catalog), for each pair (two with --placement both; patterns
    over all ranks once)."""
    known = {p.name: p for p in catalog}
    pair = "the --placement pair" if placement else f"ranks {plan.pair[0]} and {plan.pair[1]}"
    every = {p for p in plan.patterns if known[p].participants == "all"}
    return [(p, s, f"all {plan.nranks} ranks" if p in every else pair)
            for n in range(pairs_per_size(placement)) for p in plan.patterns
            if n == 0 or p not in every
            for s in sizes for _ in range(plan.records_per_size(known[p]))]


def mark_aborted(run_file: Path, launch: int, reason: str) -> None:
    """Record why a launch was stopped, if it got far enough to write its launch record; an
    empty file claimed for a launch that never started is removed."""
    try:
        run = read_run(run_file).run
    except RecordError:
        if run_file.exists() and run_file.stat().st_size == 0:
            run_file.unlink()
        return
    if any(l.index == launch for l in run.launches):
        append_launch_abort(run_file, launch, reason)


def record_host(run_file: Path, launch: int, started: bool | None, before, progress: dict[str, str]) -> None:
    """Add the launch's ``launch_host`` record (the launching node's load, steal and other work over
    the launch, and the progress settings msgperf chose) once the launch is over, if it got far
    enough to write its launch record (``started``: the follower saw it; None after a failure, when
    the follower may have stopped early: the file says)."""
    after = snapshot()
    if started is None:
        try:
            started = any(l.index == launch for l in read_run(run_file).run.launches)
        except RecordError:
            return
    if started:
        append_launch_host(run_file, launch_host_record(launch, before, after, progress))


def added_settings(env: Mapping[str, str] | None) -> dict[str, str]:
    """What msgperf added to (or changed in) its own environment for the launch."""
    return {k: v for k, v in (env or {}).items() if os.environ.get(k) != v}


def store_run(run: Run, db: str | None) -> StoreOutcome:
    """Land the run in the result database; a database problem never loses the measurement,
    which is safe in the run file already."""
    try:
        with open_store(db) as store:
            run_id, added = store.add_run(run)
    except (MsgperfError, OSError, sqlite3.Error) as exc:
        return StoreOutcome(error=str(exc))
    return StoreOutcome(run_id=run_id, added=added)


def _kernel_args(plan: Plan, sizes: tuple[int, ...], run_file: Path, index: int, request: MeasureRequest,
                 placement: str | None, first: str) -> list[str]:
    """The kernels' options for one launch; ``first`` is "--append", "--overwrite" or "" (the
    kernels create the file, refusing one that exists)."""
    args = plan.kernel_args()
    args[args.index("--sizes") + 1] = ",".join(map(str, sizes))
    args += ["--output", str(run_file), "--quiet", "--launch", str(index), "--command-line", request.command_line]
    if first:
        args.append(first)
    if first != "--append" and request.repeat > 1:
        args += ["--repeat", str(request.repeat)]
    if first != "--append":  # recorded in the plan: a --resume does what this run was asked to
        args += ["--after", ",".join(name for name, on in (("probe", request.probe), ("refine", request.refine))
                                     if on) or "none"]
    if request.test_stall:
        args += ["--test-stall", request.test_stall]
    if placement:
        args += ["--placement", placement]
    return args


def _brackets_text(brackets) -> str:
    return "; ".join(f"{b.series}: {_bracket_kind(b)} between {format_size(b.low_bytes)} and "
                     f"{format_size(b.high_bytes)}" for b in brackets)


def round_detail(step, again_after: int | None = None) -> str:
    """A refinement round in a few words, for the progress line: the intervals it narrows by kind,
    how many sizes it adds."""
    kinds: dict[str, list[str]] = {}
    for b in step.brackets:
        kinds.setdefault(_bracket_kind(b, short=True), []).append(f"{format_size(b.low_bytes)}–{format_size(b.high_bytes)}")
    again = f"again (refinement launch {again_after} was disturbed): " if again_after is not None else ""
    return again + "; ".join(f"{kind} {', '.join(where)}" for kind, where in kinds.items()) \
        + f"; {len(step.new)} new size(s), {len(step.context)} again beside them"


def refine(run_file: Path, end_s: float, next_index: int,
           launch: Callable[[int, str, Plan, LaunchStart], None], note: Callable[[str], None], *,
           why: str = "the refinement budget", fix: str = "", overhead_s: float = budgets.LAUNCH_OVERHEAD_S,
           last_look: list | None = None) -> int:
    """Measure extra sizes inside the main pattern's breakpoint intervals until each is at most
    an eighth of an octave wide (analysis/refinement.py), ``MAX_REFINE_ROUNDS`` launches were
    made or the time left before ``end_s`` (time.monotonic()) is too short for another round
    (launch/budget.py ``round_share``; ``why`` names that budget in the note that says what is
    left wide, ``fix`` ends it: how to give it more); returns the launches made. Each round
    re-reads and re-fits the run, so a round refines what the previous one left wide; a round
    after a disturbed one measures its sizes again. ``last_look`` (a list) gets the (run,
    analysis) of the last look when no launch followed it."""
    made = 0
    previous: tuple[int, ...] = ()
    said: set = set()  # intervals a note already left as measured
    for _ in range(MAX_REFINE_ROUNDS):
        run = read_run(run_file).run
        try:
            result = analyze(run)
        except AnalysisError:
            return made
        # a launch the analysis found disturbed located nothing: its sizes may be measured again
        main_pattern = result.main.key.pattern if result.main is not None else None
        disturbed = {c.launch for series in result.series if series.key.pattern == main_pattern
                     and series.model is not None for c in series.model.caveats if c.kind == "refinement_disturbed"}
        usable = [m for m in run.measurements if m.launch not in disturbed]
        main = result.main.key.pattern if result.main is not None else None
        # anchors: the main pattern's sizes nearest each interval, a refinement's included, so that
        # a later round has close sizes on both sides of the switch (a step at an interval's end
        # with only far sizes beyond it cannot be told from a spike)
        step = next_step(result, {m.bytes for m in usable},
                         {m.bytes for m in usable if m.pattern == main} | set(run.info.plan.sizes))
        if last_look is not None:
            last_look[:] = [run, result]
        if step is None:
            return made
        paces = [(m.bytes, m.elapsed_s, len(m.samples_s)) for m in usable if m.pattern == step.pattern]
        last = made == MAX_REFINE_ROUNDS - 1

        def share_of(sizes: tuple[int, ...]) -> float | None:
            need = sum(budgets.size_floor_s(size, paces) for size in sizes)
            return budgets.round_share(end_s - time.monotonic(), need, last=last, overhead_s=overhead_s)

        share = share_of(step.sizes)
        if share is None:  # too little time for every interval: those that fit, in order of priority
            whole, kept = step, []
            for bracket in by_priority(result, whole.brackets):
                trial = next_step(result, {m.bytes for m in usable},
                                  {m.bytes for m in usable if m.pattern == main} | set(run.info.plan.sizes),
                                  keep=kept + [bracket])
                trial_share = share_of(trial.sizes) if trial is not None else None
                if trial_share is not None:
                    kept.append(bracket)
                    step, share = trial, trial_share
            left = [b for b in whole.brackets if b not in kept and b not in said]
            said.update(left)  # a later round short of time for them too says nothing again
            if left:
                note(f"{'not refined' if made == 0 else 'refinement stopped'}" + (" in part" if kept else "")
                     + f": {why} is spent; left as measured: " + _brackets_text(left) + fix)
            if not kept:
                return made
        p = run.info.plan
        refine_plan = dataclasses.replace(p, patterns=(step.pattern,), sizes=step.sizes, total_time_s=share)
        again = next_index + made - 1 if step.sizes == previous and next_index + made - 1 in disturbed else None
        if last_look is not None:
            last_look.clear()  # the file is about to change
        launch(next_index + made, "--append", refine_plan,
               LaunchStart(index=next_index + made, ordinal=made, total=MAX_REFINE_ROUNDS, sizes=step.sizes,
                           expected_records=0, refining=True,
                           detail=round_detail(step, again)))
        previous = step.sizes
        made += 1
    return made


PROBE_BUDGET_S = 0.2


def default_deadline(plan: Plan) -> float:
    """Seconds without a finished measurement before a launch is declared hung: a measurement
    may take up to five budgets (its last samples), and with one budget for the launch the
    last measurement may get all of it."""
    return 60 + 10 * max(plan.time_budget_s, plan.total_time_s or 0.0)


@contextlib.contextmanager
def _an_extra(note: Callable[[str], None], what: str) -> Iterator[None]:
    """A launch msgperf adds after the sweep (the probe, a refinement) that fails loses only
    itself: the sweep is complete and is still read back, stored and reported. Stopping by the
    user (Ctrl-C, SIGTERM) still stops everything."""
    try:
        yield
    except LaunchError as exc:
        if exc.exit_code != 1:
            raise
        note(f"{what} failed; the sweep is complete and kept: {exc}")


# Each size of the eager probe runs its own bisection: two sizes are two independent searches for
# the limit, which must agree (analysis/tables/eager.py). One search alone, on a machine where a rank is
# descheduled for the probe's 10 ms wait, can close on a wrong limit to the byte with nothing to
# tell it from the right one (Open MPI beside a second job: 3071 B for 4040 B, bench/RESULTS.md §18).
PROBE_SIZES = (0, 1)


def probe_plan(plan: Plan) -> Plan:
    """The short eager-probe launch ``msgperf run`` adds after a sweep: two sizes (two searches
    for the limit that must agree), few samples; the probe's bisection (before timing) finds the
    eager limit, which names the switches the model finds (analysis/model/breakpoint_labels.py). Its
    pair is the sweep's."""
    return Plan(patterns=("eager-probe",), sizes=PROBE_SIZES, nranks=plan.nranks, pair=plan.pair, buffer="separate",
                precision=plan.precision, time_budget_s=min(plan.time_budget_s, PROBE_BUDGET_S),
                min_samples=6, max_samples=1000, iterations_per_sample=plan.iterations_per_sample)


Note = Callable[[str], None]
OnPhase = Callable[[str], None]
OnLaunch = Callable[[LaunchStart], "ContextManager[Any] | None"]
OnRecord = Callable[[dict], None]


def measure(request: MeasureRequest, *, launcher: Launcher | None = None, on_note: Note | None = None,
            on_launch: OnLaunch | None = None, on_record: OnRecord | None = None,
            on_phase: OnPhase | None = None) -> MeasureOutcome:
    """Run the request's launches into its run file; returns the run read back, the run file,
    each launch's outcome and where it was stored.

    ``launcher``: how the kernels are started (default: ``MpiLauncher.prepare`` from the
    request's launcher, mpicc, hosts; built only when something is to be measured).
    ``on_note(text)``: one-line notes a user should read (nothing to resume, a launch after the
    sweep that failed, switches left unrefined for lack of time). ``on_phase(name)``: a step that
    is not a launch begins ("build": the kernels' build check and catalog). ``on_launch(start)``:
    called before each launch (its phase, its budget, the command's deadline); a context manager
    it returns is held around the launch (a progress line). ``on_record(record)``: every record
    as the kernels write it.

    Raises MsgperfError for bad input before anything runs, LaunchError (with ``exit_code``)
    when a launch fails or is stopped: that launch is marked in the run file, whose finished
    measurements are all kept, and the message says how to ``--resume``.
    """
    notes: list[str] = []
    started = request.started_s if request.started_s is not None else time.monotonic()

    def note(text: str) -> None:
        notes.append(text)
        if on_note:
            on_note(text)

    with contextlib.ExitStack() as stack:
        if request.resume is not None:
            run_file = request.resume
            if not run_file.is_file():
                raise MsgperfError(f"--resume {run_file}: no such run file")
            stack.enter_context(RunFileLock(run_file))
            state = resume_state(run_file)
            plan, placement = state.plan, state.placement
            launches, first_index, first = state.launches, state.next_index, "--append"
            refining = request.refine and state.refine
            if not launches:
                note(f"{run_file} already holds every planned measurement; nothing to resume")
        else:
            assert request.plan is not None
            plan, placement = request.plan, request.placement
            launches, first_index = (plan.sizes,) * request.repeat, 0
            refining = request.refine
            run_file = request.output
            # Refused before the (slow) build; checked again, and claimed, under the lock.
            if run_file is not None:
                check_output(run_file, request.force)
            else:
                check_output_directory(request.runs_dir)
        plan.check_memory()
        check_launch(plan.nranks, request.hosts, request.ranks_per_node, placement)
        if launches and on_phase:
            on_phase("build")
        if launches and launcher is None:
            launcher = MpiLauncher.prepare(launcher=request.launcher, mpicc=request.mpicc, hosts=request.hosts,
                                           ranks_per_node=request.ranks_per_node)
        catalog: tuple[PatternInfo, ...] = ()
        deadline: float | None = None  # the end of the command's budget (time.monotonic())
        probing = False
        if launches:
            catalog = launcher.catalog(plan.nranks)
            plan.validate(catalog)  # pattern names, even ranks, --active: the kernels' own facts
            auto = plan.total_time_s is None
            plan = plan.with_total_time(len(expected_records(plan, plan.sizes, placement, catalog)))
            probing = request.probe and request.resume is None and "eager-probe" not in plan.patterns \
                and any(p.name == "eager-probe" for p in catalog)
            if request.whole_budget and request.resume is None and plan.total_time_s:
                budget_s = plan.total_time_s * (len(launches) if auto else 1)
                deadline = started + budget_s
                shares = budgets.split(budget_s, time.monotonic() - started, launches=len(launches), probe=probing,
                                       refine=refining, finish_s=request.after_s,
                                       overrun_s=request.overrun_s)
                plan = dataclasses.replace(plan, total_time_s=shares.sweep_s)
        if request.resume is None:
            # msgperf claims the run file itself (created empty, exclusively, or emptied by
            # --force), under its lock; the kernels are told to --overwrite that empty file.
            first = "--overwrite"
            if run_file is None:
                run_file = default_output(plan.patterns, request.runs_dir)
                stack.enter_context(RunFileLock(run_file))
            else:
                make_parent(run_file)
                lock = stack.enter_context(RunFileLock(run_file))
                claim_output(run_file, request.force)
                lock.lock_file()  # the file claimed: now its inode too
        outcomes: list[LaunchOutcome] = []
        stall = request.deadline_s if request.deadline_s is not None else default_deadline(plan)
        overheads: list[float] = []  # each launch's start-up and tear-down, measured
        spans: list[float] = []  # each launch's time from its first record to its last
        last_look: list = []  # the refinement's last (run, analysis), while the file is unchanged

        def launch(index: int, kind: str, launch_plan: Plan, start: LaunchStart) -> None:
            argv = launcher.command(plan.nranks, _kernel_args(launch_plan, start.sizes, run_file, index, request,
                                                          placement, kind))
            expected = expected_records(launch_plan, start.sizes, placement, catalog)
            start = dataclasses.replace(start, expected_records=len(expected), budget_s=launch_plan.total_time_s or 0.0,
                                        deadline_s=deadline)
            seen = [0]
            started = [False]  # the kernels wrote this launch's launch record
            first_last = [0.0, 0.0]  # when its first and its last record arrived

            def follow(record: dict) -> None:
                now = time.monotonic()
                first_last[0] = first_last[0] or now
                first_last[1] = now
                seen[0] += record.get("type") == "measurement"
                started[0] |= record.get("type") == "launch" and record.get("launch") == index
                if on_record:
                    on_record(record)

            env = launcher.environment(plan.nranks)
            before = snapshot()
            try:
                with contextlib.ExitStack() as launch_stack:
                    view = on_launch(start) if on_launch else None
                    if view is not None:
                        launch_stack.enter_context(view)
                    launch_stack.enter_context(stop_signals())
                    began_launch = time.monotonic()
                    execute(argv, run_file, expected=expected, stall_timeout_s=stall, on_record=follow,
                            env=env, log_dir=request.log_dir)
                    if first_last[0]:  # start-up (to the first record) and tear-down (after the last)
                        overheads.append(first_last[0] - began_launch + time.monotonic() - first_last[1])
                        spans.append(first_last[1] - first_last[0])
            except LaunchError as exc:
                mark_aborted(run_file, index, str(exc))
                record_host(run_file, index, started[0] or None, before, added_settings(env))
                raise
            except Terminated as stop:  # SIGTERM or SIGHUP outside the job's own loop (before it started)
                exc = LaunchError(f"terminated ({stop.name}) before launch {index} started; "
                                  f"continue with: msgperf run --resume {run_file}", exit_code=stop.exit_code)
                mark_aborted(run_file, index, str(exc))
                raise exc from None
            record_host(run_file, index, started[0], before, added_settings(env))
            outcomes.append(LaunchOutcome(index=index, sizes=start.sizes, records=seen[0], refining=start.refining))

        began = time.monotonic()
        for ordinal, sizes in enumerate(launches):
            launch(first_index + ordinal, first if ordinal == 0 else "--append", plan,
                   LaunchStart(index=first_index + ordinal, ordinal=ordinal, total=len(launches), sizes=sizes,
                               expected_records=0))
        overrun = max(spans) - plan.total_time_s if deadline is not None and spans else None
        if probing:
            probe = probe_plan(plan)
            index = first_index + len(launches)
            with _an_extra(note, "the eager-probe launch"):
                launch(index, "--append", probe, LaunchStart(index=index, ordinal=0, total=1, sizes=probe.sizes,
                                                              expected_records=0, probing=True))
            first_index += 1
        if refining and launches:
            overhead = max(overheads) if overheads else budgets.LAUNCH_OVERHEAD_S
            if request.refine_budget_s is not None or deadline is None:
                budget = request.refine_budget_s
                if budget is None:
                    budget = max(MIN_REFINE_BUDGET_S, time.monotonic() - began)
                end, why = time.monotonic() + budget, f"the refinement budget ({budget:.3g} s)"
            else:
                end, why = deadline - request.after_s, f"the --total-time budget ({deadline - started:.3g} s)"
            fix = f" (more time locates them: --total-time {2 * (deadline - started):.3g}s)" if deadline else ""
            with _an_extra(note, "refining"):
                refine(run_file, end, first_index + len(launches), launch, note, why=why, fix=fix,
                       overhead_s=overhead, last_look=last_look)
        run, result = last_look if last_look else (read_run(run_file).run, None)
    stored = store_run(run, request.db) if request.store else None
    return MeasureOutcome(run=run, run_file=run_file, launches=tuple(outcomes), stored=stored, notes=tuple(notes),
                          result=result, sweep_overrun_s=overrun)

