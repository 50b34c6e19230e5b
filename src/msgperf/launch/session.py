"""The measurement workflow as a library function: ``measure(request) -> MeasureOutcome``.

One call claims the run file (never destroying one that exists without ``force``, never one
that is not a run file), locks it, starts the kernels once per launch (``repeat``) or for what
a run file still lacks (``resume``) through an injectable ``Launcher``, follows each launch's
records, stops a launch that makes no progress for the deadline, marks a stopped launch in the
run file (hang, dead rank, Ctrl-C, SIGTERM), reads the run back and stores it. It renders
nothing: progress and notes go to the caller's callbacks, the caller renders the outcome.

``measure`` is a sequence of ``MeasureSession``'s steps: prepare, sweep, probe, the answer's
launches, refine, read back. Beside it: the request and outcome types (request.py), what a
resumed file lacks (resume.py), one launch followed and marked (launch_marks.py), the
refinement rounds (refine_rounds.py), the budget's shares (budget.py).
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

from msgperf.analysis.answer_sizes import ANSWER_PATTERN, answer_sizes
from msgperf.errors import MsgperfError
from msgperf.launch import budget as budgets
from msgperf.launch.children import Terminated, stop_signals
from msgperf.launch.host_load import snapshot
from msgperf.launch.hosts import check_launch, pairs_per_size
from msgperf.launch.job import LaunchError, execute
from msgperf.launch.launch_marks import Follower, added_settings, mark_aborted, record_host
from msgperf.launch.launcher import Launcher, MpiLauncher
from msgperf.launch.refine_rounds import refine
from msgperf.values import Value

# measure's callers import its request and outcome types, and resume_state, from here
from msgperf.launch.request import (LaunchOutcome, LaunchStart, MeasureOutcome, MeasureRequest,  # noqa: F401
                                    StoreOutcome, parse_deadline)
from msgperf.launch.resume import resume_state
from msgperf.launch.run_file_guard import (RunFileLock, check_output, check_output_directory, claim_output,
                                           default_output, make_parent)
from msgperf.plan import Plan
from msgperf.records.format import PatternInfo, Run
from msgperf.records.runfile_read import read_run
from msgperf.store.db import open_store

MIN_REFINE_BUDGET_S = 10.0  # without one budget for the command: refinement gets as long as the sweep, >= this


def expected_records(plan: Plan, sizes: tuple[int, ...], placement: str | None,
                     catalog: tuple[PatternInfo, ...]) -> list[tuple[str, int, str]]:
    """(pattern, size, who) of each measurement record, in the order the kernels write them:
    for each pair (two with --placement both; patterns over all ranks once), size by size, every
    pattern at that size, one record per variant (the kernels' catalog)."""
    known = {p.name: p for p in catalog}
    pair = "the --placement pair" if placement else f"ranks {plan.pair[0]} and {plan.pair[1]}"
    every = {p for p in plan.patterns if known[p].participants == "all"}
    return [(p, s, f"all {plan.nranks} ranks" if p in every else pair)
            for n in range(pairs_per_size(placement)) for s in sizes for p in plan.patterns
            if n == 0 or p not in every
            for _ in range(plan.records_per_size(known[p]))]


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


def answer_plan(plan: Plan, sizes: tuple[int, ...], budget_s: float = budgets.ANSWER_S) -> Plan:
    """A short launch of the answer's sizes (analysis/answer_sizes.py) after the sweep: its main
    pattern alone, on the sweep's pair and buffers, the kernels sharing ``budget_s`` among the
    sizes and taking at least the floor of samples a median's interval needs (not the sweep's
    minimum: 20 samples of 64 MiB took a second a launch on the 2-core VM)."""
    return msgspec.structs.replace(plan, patterns=(ANSWER_PATTERN,), sizes=sizes, total_time_s=budget_s,
                                   min_samples=min(plan.min_samples, budgets.FLOOR_SAMPLES))


class SweepSize(Value):
    """What the sweep's record of one size of the answer's pattern says: enough to choose the
    answer's sizes and to know how long measuring them again takes."""

    bytes: int
    median_s: float  # median time per message
    elapsed_s: float  # the kernels' time on the size, warm-up and calibration included
    samples: int


def sweep_size(record: dict) -> tuple[str, SweepSize] | None:
    """(placement, what it says) of a measurement record of the answer's pattern as the kernels
    write it; None for any other record or one that cannot say."""
    samples = record.get("samples_s")
    if record.get("type") != "measurement" or record.get("pattern") != ANSWER_PATTERN or not samples:
        return None
    try:
        median = float(np.median(np.asarray(samples, dtype=np.float64))) / float(record.get("divisor") or 1)
        return str(record.get("placement") or ""), SweepSize(int(record["bytes"]), median,
                                                             float(record.get("elapsed_s") or 0.0), len(samples))
    except (TypeError, ValueError, KeyError, ZeroDivisionError):
        return None


def answer_pair(by_placement: dict[str, dict[int, SweepSize]]) -> tuple[str, dict[int, SweepSize]]:
    """The pair the answer describes and its sizes: the intra-node one where the sweep measured one
    (``--placement both`` measures both; result._main prefers it), else the pair it measured."""
    for placement in ("intra", ""):
        if by_placement.get(placement):
            return placement, by_placement[placement]
    return next(iter(by_placement.items()), ("", {}))


def answer_need_s(sizes: tuple[int, ...], swept: dict[int, SweepSize]) -> float:
    """The time one launch of the answer's sizes needs: each size's floor of samples at the pace
    the sweep measured it (budget.size_floor_s), never less than budget.ANSWER_S; where the peak
    lies at the largest sizes (64 MiB between hosts) that is more."""
    measured = [(s.bytes, s.elapsed_s, s.samples) for s in swept.values()]
    return max(budgets.ANSWER_S, sum(budgets.size_floor_s(size, measured) for size in sizes))


Note = Callable[[str], None]
OnPhase = Callable[[str], None]
OnLaunch = Callable[[LaunchStart], "ContextManager[Any] | None"]
OnRecord = Callable[[dict], None]


class MeasureSession:
    """One ``measure`` call, step by step: ``prepare`` (the plan, the run file claimed or resumed
    under its lock, the kernels built and their catalog, the budget's shares), ``sweep``,
    ``probe``, ``answer`` (the answer's sizes again), ``refine``, ``read_back``; each launch
    through ``launch``. The run file is read
    whole only where something unknown is needed: by ``--resume`` (what the file lacks), by each
    refinement round (the file the previous round grew), after a failed launch whose launch
    record was not seen, and by ``read_back`` unless the last look at it is still the file as it
    is (``look``: (run, analysis or None), forgotten by every launch)."""

    # set by prepare
    run_file: Path
    plan: Plan  # the sweep's plan (with its share of the budget)
    placement: str | None
    launches: tuple[tuple[int, ...], ...]  # the sizes of each sweep launch
    first_index: int  # the run file's index of the first sweep launch
    first_kind: str  # how the first launch opens the run file: --overwrite (claimed), --append (resumed)
    refining: bool
    stall: float  # seconds without progress before a launch is declared hung

    def __init__(self, request: MeasureRequest, launcher: Launcher | None, *, on_note: Note | None = None,
                 on_launch: OnLaunch | None = None, on_record: OnRecord | None = None,
                 on_phase: OnPhase | None = None) -> None:
        self.request, self.launcher = request, launcher
        self.on_note, self.on_launch, self.on_record, self.on_phase = on_note, on_launch, on_record, on_phase
        self.started_s = request.started_s if request.started_s is not None else time.monotonic()
        self.notes: list[str] = []
        self.outcomes: list[LaunchOutcome] = []
        self.overheads: list[float] = []  # each launch's start-up and tear-down, measured
        self.spans: list[float] = []  # each launch's time from its first record to its last
        self.look: list = []  # the last (run, analysis or None) read, while the file is unchanged
        self.catalog: tuple[PatternInfo, ...] = ()
        self.deadline: float | None = None  # the end of the command's budget (time.monotonic())
        self.probing = False
        self.answering = 0  # launches of the answer's sizes planned (0: none)
        self.answered = 0  # ... started
        self.sweep_records: list[dict] = []  # the sweep's records of the answer's pattern, when answering
        self.sweeping = False  # a sweep launch is running: its records of the answer's pattern are kept
        self.sweep_s = 0.0  # the sweep's launches, from the first's start to the last's end
        self.sweep_overrun_s: float | None = None
        self.sweep_began_s = 0.0

    def note(self, text: str) -> None:
        self.notes.append(text)
        if self.on_note:
            self.on_note(text)

    # ---- prepare --------------------------------------------------------------------------------

    def prepare(self, stack: contextlib.ExitStack) -> None:
        """Everything before the first launch; the run file's lock is held by ``stack``."""
        self._plan_the_launches(stack)
        self.plan.check_memory()
        check_launch(self.plan.nranks, self.request.hosts, self.request.ranks_per_node, self.placement)
        if self.launches:
            self._build()
        if self.request.resume is None:
            self._claim(stack)
        self.stall = self.request.deadline_s if self.request.deadline_s is not None else default_deadline(self.plan)

    def _plan_the_launches(self, stack: contextlib.ExitStack) -> None:
        """The plan, placement and launches: the request's, or what the resumed file lacks (read
        under its lock; the run read is kept: with nothing to resume it is the run read back)."""
        request = self.request
        if request.resume is not None:
            self.run_file = request.resume
            if not self.run_file.is_file():
                raise MsgperfError(f"--resume {self.run_file}: no such run file")
            stack.enter_context(RunFileLock(self.run_file))
            state = resume_state(self.run_file)
            self.plan, self.placement = state.plan, state.placement
            self.launches, self.first_index, self.first_kind = state.launches, state.next_index, "--append"
            self.refining = request.refine and state.refine
            self.look[:] = [state.run, None]
            if not self.launches:
                self.note(f"{self.run_file} already holds every planned measurement; nothing to resume")
        else:
            assert request.plan is not None
            self.plan, self.placement = request.plan, request.placement
            self.launches, self.first_index = (self.plan.sizes,) * request.repeat, 0
            # msgperf claims the run file itself (created empty, exclusively, or emptied by
            # --force), under its lock; the kernels are told to --overwrite that empty file.
            self.first_kind = "--overwrite"
            self.refining = request.refine
            self.run_file = request.output
            # Refused before the (slow) build; checked again, and claimed, under the lock.
            if self.run_file is not None:
                check_output(self.run_file, request.force)
            else:
                check_output_directory(request.runs_dir)

    def _build(self) -> None:
        """The kernels built (or found built) and their catalog; the plan checked against it, its
        one budget chosen and, with one budget for the command, the sweep's share of it."""
        request = self.request
        if self.on_phase:
            self.on_phase("build")
        if self.launcher is None:
            self.launcher = MpiLauncher.prepare(launcher=request.launcher, mpicc=request.mpicc, hosts=request.hosts,
                                                ranks_per_node=request.ranks_per_node)
        self.catalog = self.launcher.catalog(self.plan.nranks)
        plan = self.plan
        plan.validate(self.catalog)  # pattern names, even ranks, --active: the kernels' own facts
        auto = plan.total_time_s is None
        plan = plan.with_total_time(len(expected_records(plan, plan.sizes, self.placement, self.catalog)))
        self.probing = request.probe and request.resume is None and "eager-probe" not in plan.patterns \
            and any(p.name == "eager-probe" for p in self.catalog)
        # a run of one launch measures the answer's sizes again in launches of their own (with
        # --repeat every size is measured in several already)
        self.answering = request.answer_launches if request.resume is None and len(self.launches) == 1 \
            and ANSWER_PATTERN in plan.patterns else 0
        if request.whole_budget and request.resume is None and plan.total_time_s:
            budget_s = plan.total_time_s * (len(self.launches) if auto else 1)
            self.deadline = self.started_s + budget_s
            shares = budgets.split(budget_s, time.monotonic() - self.started_s, launches=len(self.launches),
                                   probe=self.probing, refine=self.refining, finish_s=request.after_s,
                                   overrun_s=request.overrun_s, answer_launches=self.answering)
            plan = msgspec.structs.replace(plan, total_time_s=shares.sweep_s)
        self.plan = plan

    def _claim(self, stack: contextlib.ExitStack) -> None:
        """A new run's file, created empty or emptied (``force``) under its lock."""
        if self.run_file is None:
            self.run_file = default_output(self.plan.patterns, self.request.runs_dir)
            stack.enter_context(RunFileLock(self.run_file))
        else:
            make_parent(self.run_file)
            lock = stack.enter_context(RunFileLock(self.run_file))
            claim_output(self.run_file, self.request.force)
            lock.lock_file()  # the file claimed: now its inode too

    # ---- one launch -----------------------------------------------------------------------------

    def launch(self, index: int, kind: str, launch_plan: Plan, start: LaunchStart,
               placement: str | None = None) -> None:
        """Start the kernels for one launch into the run file and follow it to its end. A launch
        that fails or is stopped is marked in the run file (with its ``launch_host`` record when it
        started) and raises ``LaunchError``. ``placement``: the pair to measure when not the run's."""
        self.look.clear()  # the file is about to change
        request, launcher, run_file = self.request, self.launcher, self.run_file
        placement = placement or self.placement
        argv = launcher.command(self.plan.nranks, _kernel_args(launch_plan, start.sizes, run_file, index, request,
                                                               placement, kind))
        expected = expected_records(launch_plan, start.sizes, placement, self.catalog)
        start = msgspec.structs.replace(start, expected_records=len(expected), budget_s=launch_plan.total_time_s or 0.0,
                                        deadline_s=self.deadline)
        follow = Follower(index, self._record_of_the_sweep if self.sweeping else self.on_record)
        env = launcher.environment(self.plan.nranks)
        before = snapshot()
        try:
            with contextlib.ExitStack() as launch_stack:
                view = self.on_launch(start) if self.on_launch else None
                if view is not None:
                    launch_stack.enter_context(view)
                launch_stack.enter_context(stop_signals())
                began = time.monotonic()
                execute(argv, run_file, expected=expected, stall_timeout_s=self.stall, on_record=follow,
                        env=env, log_dir=request.log_dir, resumable=self.sweeping)
                if follow.first_s:  # start-up (to the first record) and tear-down (after the last)
                    self.overheads.append(follow.first_s - began + time.monotonic() - follow.last_s)
                    self.spans.append(follow.last_s - follow.first_s)
        except LaunchError as exc:
            started = mark_aborted(run_file, index, str(exc), started=follow.started)
            record_host(run_file, index, started, before, added_settings(env))
            raise
        except Terminated as stop:  # SIGTERM or SIGHUP outside the job's own loop (before it started)
            exc = LaunchError(f"terminated ({stop.name}) before launch {index} started; "
                              + (f"continue with: msgperf run --resume {run_file}" if self.sweeping else
                                 "every planned measurement is in the run file"), exit_code=stop.exit_code)
            mark_aborted(run_file, index, str(exc), started=follow.started)
            raise exc from None
        record_host(run_file, index, follow.started, before, added_settings(env))
        self.outcomes.append(LaunchOutcome(index=index, sizes=start.sizes, records=follow.measurements,
                                           refining=start.refining))

    def _record_of_the_sweep(self, record: dict) -> None:
        """A record of a sweep launch: kept when it is one of the answer's pattern and answer
        launches will follow (read after the sweep, not while its ranks are timed)."""
        if self.answering and record.get("type") == "measurement" and record.get("pattern") == ANSWER_PATTERN:
            self.sweep_records.append(record)
        if self.on_record:
            self.on_record(record)

    # ---- the steps after prepare ----------------------------------------------------------------

    def sweep(self) -> None:
        """The plan's launches (``repeat`` of them, or those a resumed file lacks)."""
        self.sweep_began_s = time.monotonic()
        self.sweeping = True
        try:
            for ordinal, sizes in enumerate(self.launches):
                index = self.first_index + ordinal
                self.launch(index, self.first_kind if ordinal == 0 else "--append", self.plan,
                            LaunchStart(index=index, ordinal=ordinal, total=len(self.launches), sizes=sizes,
                                        expected_records=0))
        finally:
            self.sweeping = False
            self.sweep_s = time.monotonic() - self.sweep_began_s
        if self.deadline is not None and self.spans:
            self.sweep_overrun_s = max(self.spans) - self.plan.total_time_s

    @property
    def next_index(self) -> int:
        """The index of the next launch after the sweep (and the probe and the answer's launches, if
        any were started)."""
        return self.first_index + len(self.launches) + self.probing + self.answered

    def probe(self) -> None:
        """The short eager-probe launch after a new run's sweep; its failure loses only itself."""
        if not self.probing:
            return
        probe = probe_plan(self.plan)
        index = self.first_index + len(self.launches)
        with _an_extra(self.note, "the eager-probe launch"):
            self.launch(index, "--append", probe, LaunchStart(index=index, ordinal=0, total=1, sizes=probe.sizes,
                                                              expected_records=0, probing=True))

    def _twice_the_budget(self) -> str:
        """The option that gives a command with one budget twice as much (what a note suggests),
        or twice what it has taken so far where that is well beyond the budget (--total-time 1ms
        took 5.6 s, and a note suggested 0.002s)."""
        budget, took = self.deadline - self.started_s, time.monotonic() - self.started_s
        return f"--total-time {2 * (took if took > 1.5 * budget else budget):.3g}s"

    def answer(self) -> None:
        """The answer's sizes measured again in short launches of their own (analysis/answer_sizes.py),
        so that its latency and bandwidth are known across launches; each that fails loses only
        itself. With one budget for the command, a launch that no longer fits before the deadline
        is not started, and the note says how many were made."""
        if not self.answering:
            return
        by_placement: dict[str, dict[int, SweepSize]] = {}
        for record in self.sweep_records:
            seen = sweep_size(record)
            if seen is not None:
                by_placement.setdefault(seen[0], {}).setdefault(seen[1].bytes, seen[1])
        self.sweep_records = []
        placement, swept = answer_pair(by_placement)
        sizes = answer_sizes({b: s.median_s for b, s in swept.items()})
        if not sizes:
            return
        need = answer_need_s(sizes, swept)
        plan = answer_plan(self.plan, sizes, need)
        overhead = max(self.overheads) if self.overheads else budgets.LAUNCH_OVERHEAD_S
        # --placement both: the answer describes the intra-node pair (result._main), measured alone
        pair = "intra" if self.placement == "both" and placement == "intra" else None
        for ordinal in range(self.answering):
            if self.deadline is not None and time.monotonic() + overhead + need > self.deadline - self.request.after_s:
                self.note(f"the answer's sizes were measured again in {ordinal} of {self.answering} launches: the "
                          f"--total-time budget is spent (more time: {self._twice_the_budget()})")
                return
            index = self.next_index
            self.answered += 1  # its index is taken, whether it starts or not
            before = len(self.outcomes)
            with _an_extra(self.note, "a launch of the answer's sizes"):
                self.launch(index, "--append", plan, LaunchStart(index=index, ordinal=ordinal, total=self.answering,
                                                                 sizes=sizes, expected_records=0, answering=True),
                            placement=pair)
            if len(self.outcomes) == before:  # it failed: the next would too (said once, by _an_extra)
                return

    def refine(self) -> None:
        """Refinement rounds (launch/refine_rounds.py) in the time left: the refinement budget, or
        with one budget for the command what is left of it; their failure loses only themselves."""
        if not (self.refining and self.launches):
            return
        request, deadline, started = self.request, self.deadline, self.started_s
        overhead = max(self.overheads) if self.overheads else budgets.LAUNCH_OVERHEAD_S
        if request.refine_budget_s is not None or deadline is None:
            budget = request.refine_budget_s
            if budget is None:
                budget = max(MIN_REFINE_BUDGET_S, self.sweep_s)
            end, why = time.monotonic() + budget, f"the refinement budget ({budget:.3g} s)"
        else:
            end, why = deadline - request.after_s, f"the --total-time budget ({deadline - started:.3g} s)"
        fix = f" (more time locates them: {self._twice_the_budget()})" if deadline else ""
        with _an_extra(self.note, "refining"):
            refine(self.run_file, end, self.next_index, self.launch, self.note, why=why, fix=fix,
                   overhead_s=overhead, last_look=self.look)

    def read_back(self) -> tuple[Run, Any]:
        """The run as the file holds it now, and its analysis if the last look made one: that
        look, when no launch followed it; else the file read."""
        if self.look:
            run, result = self.look
            return run, result
        return read_run(self.run_file).run, None

    def outcome(self, run: Run, result: Any, stored: StoreOutcome | None) -> MeasureOutcome:
        return MeasureOutcome(run=run, run_file=self.run_file, launches=tuple(self.outcomes), stored=stored,
                              notes=tuple(self.notes), result=result, sweep_overrun_s=self.sweep_overrun_s)


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
    session = MeasureSession(request, launcher, on_note=on_note, on_launch=on_launch, on_record=on_record,
                             on_phase=on_phase)
    with contextlib.ExitStack() as lock:
        session.prepare(lock)
        session.sweep()
        session.probe()
        session.answer()
        session.refine()
        run, result = session.read_back()
    stored = store_run(run, request.db) if request.store else None
    return session.outcome(run, result, stored)
