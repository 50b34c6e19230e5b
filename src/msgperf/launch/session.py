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
import os
import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ContextManager

from msgperf.errors import MsgperfError
from msgperf.launch import budget as budgets
from msgperf.launch.children import Terminated, stop_signals
from msgperf.launch.host_load import launch_host_record, snapshot
from msgperf.launch.hosts import check_launch, pairs_per_size
from msgperf.launch.job import LaunchError, execute
from msgperf.launch.launcher import Launcher, MpiLauncher
from msgperf.launch.refine_rounds import refine
# the request and outcome types are imported from here by measure's callers, with measure itself
from msgperf.launch.request import (LaunchOutcome, LaunchStart, MeasureOutcome, MeasureRequest,  # noqa: F401
                                    StoreOutcome, parse_deadline)
from msgperf.launch.run_file_guard import (RunFileLock, check_output, check_output_directory, claim_output,
                                           default_output, make_parent)
from msgperf.plan import Plan
from msgperf.records.format import PatternInfo, RecordError, Run
from msgperf.records.runfile_read import read_run
from msgperf.records.runfile_write import append_launch_abort, append_launch_host, cut_partial_line
from msgperf.store.db import open_store

MIN_REFINE_BUDGET_S = 10.0  # without one budget for the command: refinement gets as long as the sweep, >= this


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

