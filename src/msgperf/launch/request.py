"""What ``measure`` (launch/session.py) is given and gives back: the validated request of a
``msgperf run``, what each launch's callback is told, and the outcome. Validation only; nothing
here runs anything."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from msgperf.errors import MsgperfError
from msgperf.launch import budget as budgets
from msgperf.launch.launcher import split_launcher
from msgperf.plan import Plan, check_placement
from msgperf.records.format import Run
from msgperf.values import Value

MAX_REPEAT = 1000
MAX_ANSWER_LAUNCHES = 20  # each costs a launch start; more narrows the interval little (t on L - 1 df)


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
    # after the sweep of a new one-launch run, this many short launches of the answer's sizes, so that its
    # latency and bandwidth are known across launches (analysis/answer_sizes.py; msgperf run's default: 3)
    answer_launches: int = 0
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
        if isinstance(self.answer_launches, bool) or not isinstance(self.answer_launches, int) \
                or not 0 <= self.answer_launches <= MAX_ANSWER_LAUNCHES:
            raise MsgperfError(f"--answer-launches {self.answer_launches}: use 0 to {MAX_ANSWER_LAUNCHES} launches")
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


class LaunchStart(Value):
    """Given to ``on_launch`` before a launch starts."""

    index: int  # the launch's index in the run file
    ordinal: int  # 0-based among this session's launches
    total: int  # launches this session starts
    sizes: tuple[int, ...]
    expected_records: int  # measurement records the kernels will write
    refining: bool = False  # a launch of extra sizes inside breakpoint intervals
    probing: bool = False  # the short eager-probe launch after the sweep
    answering: bool = False  # a short launch of the answer's sizes after the sweep
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
        if self.answering:
            return f"answer {self.ordinal + 1}/{self.total}"
        return f"sweep {self.ordinal + 1}/{self.total}" if self.total > 1 else "sweep"


class LaunchOutcome(Value):
    index: int
    sizes: tuple[int, ...]
    records: int  # measurement records this launch wrote
    refining: bool = False


class StoreOutcome(Value):
    run_id: int | None = None
    added: bool = False
    error: str | None = None  # why it could not be stored (the run file keeps the measurement)


class MeasureOutcome(Value):
    run: Run  # the run file read back
    run_file: Path
    launches: tuple[LaunchOutcome, ...]  # empty when a resumed file lacked nothing
    stored: StoreOutcome | None  # None when not asked to store
    notes: tuple[str, ...] = ()
    # analyze(run), when the refinement's last look at the run file was at the file as it is now
    # (the caller need not analyse it again: a second or more of a short budget); else None
    result: Any = None
    # with one budget for the command: how far the sweep's kernels went past their own budget, the
    # most of its launches (first to last record, less the budget); else None
    sweep_overrun_s: float | None = None
