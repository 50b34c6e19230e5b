"""One budget for a whole ``msgperf run``, wall clock: ``--total-time`` is the time from the
command's start to the printed answer (the HTML report too, when one is written), not the
sweep's alone. Pure functions of the seconds involved; the session (launch/session.py) reads
the clock and calls them.

The budget is shared out in order of need: what the command has already spent (start-up, the
kernels' build check) and what it must still spend after the measurements (reading the run
back, the analysis, the answer, the report) come off first; then each launch's start-up and
tear-down (mpiexec, MPI_Init, MPI_Finalize: measured on the sweep's launch and used for the
launches after it); then shares kept for the eager probe, the answer's launches
(analysis/answer_sizes.py) and the refinement. The sweep gets the rest, and its kernels share
that among the sizes (sizes that reach the precision early hand their time on). Refinement
rounds get what is left of the deadline when they start: a sweep that finished early leaves
them more; a round that would get less than its sizes need is not started (the caller says so
in one line).

What follows the measurements is kept aside at what it took the last time on this machine
(``remembered_finish``; the defaults below before the first run): the report's plots cost 1 s on
a quiet 2-core VM and 4 s on the same VM shared with six other jobs. So is the time the sweep's
kernels went past their own budget the last time (``remembered_overrun``, per largest size): once
the budget is spent each size still takes its minimum samples, which on a busy machine add up
to seconds for the largest sizes.
"""

from __future__ import annotations

import json
import math
import os
import time

from msgperf.values import Value


# An MPI launch's start-up and tear-down (mpiexec, MPI_Init, the barrier, MPI_Finalize) before one
# is measured: 0.3 s for MPICH's hydra on the 2-core VM (bench/RESULTS.md, time to the answer).
LAUNCH_OVERHEAD_S = 0.4
PROBE_S = 0.8  # the eager probe's own work: its two bisections (0 B and 1 B, session.PROBE_SIZES) and their samples
# one launch of the answer's sizes (analysis/answer_sizes.py), shared by the kernels among them: 0 B
# and 0.5-2 MiB to 1 % took 0.1-0.15 s on the 2-core VM
ANSWER_S = 0.2
FINISH_S = 1.0  # reading the run back, the analysis, the answer on the terminal
REPORT_S = 0.5  # the HTML report and its figures (SVG), written after the answer: 0.16 s for a default run
REFINE_FRACTION = 0.2  # of the budget, kept for refinement (more when the sweep ends early)
MIN_SWEEP_S = 1.0  # the sweep's floor when start-up and the reserves leave less (sizes then say
# they stopped at the time budget, not at the precision)
REFINE_S_PER_SIZE = 0.02  # the least a refinement launch gives each of its sizes
FLOOR_SAMPLES = 6  # the fewest samples the kernels take of a size, however short its budget (a median CI)
FIRST_ROUND_FRACTION = 0.6  # of what is left, for a refinement round that may have a successor


class Split(Value):
    """The shares of one budget, in seconds."""

    sweep_s: float  # each sweep launch's own --total-time (the kernels share it among the sizes)
    probe_s: float  # kept for the eager-probe launch, its start-up included
    refine_s: float  # kept for refinement launches
    finish_s: float  # kept for what follows the measurements (analysis, answer, report)
    overhead_s: float  # each sweep launch's start-up and tear-down
    launches: int = 1  # sweep launches (--repeat)
    overrun_s: float = 0.0  # each sweep launch's time past its own budget, expected
    answer_launches_s: float = 0.0  # kept for the launches of the answer's sizes, start-ups included

    @property
    def planned_s(self) -> float:
        """What the shares add up to (the budget less what was spent before the split)."""
        return self.launches * (self.sweep_s + self.overhead_s + self.overrun_s) + self.probe_s \
            + self.answer_launches_s + self.refine_s + self.finish_s


def split(budget_s: float, spent_s: float, *, launches: int = 1, overhead_s: float = LAUNCH_OVERHEAD_S,
          probe: bool = True, refine: bool = True, finish_s: float = FINISH_S, overrun_s: float = 0.0,
          answer_launches: int = 0) -> Split:
    """Share ``budget_s`` (wall clock from the command's start) among ``launches`` sweep launches,
    the eager probe, ``answer_launches`` launches of the answer's sizes and the refinement,
    ``spent_s`` seconds after the start, keeping ``finish_s`` for what follows the measurements
    and ``overrun_s`` a sweep launch for the time its kernels take past their own budget (the
    sizes' minimum samples: what the last run here measured). Where the start-up and the reserves
    leave less than MIN_SWEEP_S a sweep launch, the sweep still gets that (the refinement then finds nothing left
    and is skipped): a sweep is the one part that cannot be left out."""
    probe_s = overhead_s + PROBE_S if probe else 0.0
    answers_s = answer_launches * (overhead_s + ANSWER_S)
    refine_s = REFINE_FRACTION * budget_s if refine else 0.0
    left = budget_s - spent_s - finish_s - probe_s - answers_s - refine_s - launches * (overhead_s + overrun_s)
    sweep = max(MIN_SWEEP_S, left / launches)
    return Split(sweep_s=sweep, probe_s=probe_s, refine_s=refine_s, finish_s=finish_s, overhead_s=overhead_s,
                 launches=launches, overrun_s=overrun_s, answer_launches_s=answers_s)


def size_floor_s(size: int, measured: list[tuple[int, float, int]]) -> float:
    """The least time the kernels will spend on ``size`` however short its budget: FLOOR_SAMPLES
    samples at the pace measured at the nearest size already measured (``measured``: bytes,
    elapsed seconds, samples), warm-up and calibration included pro rata; never less than
    REFINE_S_PER_SIZE. On a busy machine, where a sample takes milliseconds, this is what tells
    a refinement round that it cannot fit."""
    if not measured:
        return REFINE_S_PER_SIZE
    nearest = min(measured, key=lambda m: (abs(m[0] - size), -m[0]))
    _, elapsed, samples = nearest
    return max(REFINE_S_PER_SIZE, elapsed * min(1.0, FLOOR_SAMPLES / max(samples, 1)))


def round_share(left_s: float, need_s: float, *, last: bool, overhead_s: float = LAUNCH_OVERHEAD_S) -> float | None:
    """The --total-time of the next refinement launch, ``left_s`` seconds before the deadline (what
    follows the measurements already kept aside), for sizes whose floors add up to ``need_s``
    (``size_floor_s``): all of it for the last round allowed, FIRST_ROUND_FRACTION otherwise (the
    next round refines what this one leaves wide), never less than the need; None when even
    that does not fit."""
    usable = left_s - overhead_s
    need = need_s
    if usable < need:
        return None
    return usable if last else max(need, FIRST_ROUND_FRACTION * usable)


def process_age_s() -> float:
    """Seconds since this process started (interpreter start-up and imports included), from
    /proc on Linux; 0 where it cannot be read (the budget then counts from the call)."""
    try:
        with open("/proc/self/stat", "rb") as f:
            stat = f.read()
        with open("/proc/uptime", "rb") as f:
            uptime = float(f.read().split()[0])
        # field 22 (starttime, in clock ticks after boot), counted after the command name's ')'
        start_ticks = int(stat[stat.rindex(b")") + 2:].split()[19])
        age = uptime - start_ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0
    return age if 0.0 <= age < 3600.0 else 0.0


_command_start: float | None = None


def mark_command_start(process: bool) -> None:
    """Note that a command starts now (cli.main): at the process's start when msgperf is the
    process (``process``: its interpreter start-up and imports count), else now (a command run
    inside a longer-lived process: a test, a notebook)."""
    global _command_start
    _command_start = time.monotonic() - (process_age_s() if process else 0.0)


def command_start() -> float:
    """The command's start on the ``time.monotonic()`` clock, as marked by ``mark_command_start``;
    now when nothing marked it."""
    return _command_start if _command_start is not None else time.monotonic()


FINISH_TIMES = "finish-times.json"  # in the kernels' cache folder: what the last run's end took here


def _finish_file():
    from msgperf.cache_dir import cache_dir

    return cache_dir("kernels") / FINISH_TIMES


def _remembered() -> dict:
    try:
        seen = json.loads(_finish_file().read_text())
    except (OSError, ValueError):
        return {}
    return seen if isinstance(seen, dict) else {}


def _seconds(seen: dict, name: str, default: float) -> float:
    value = seen.get(name)
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return min(max(float(value), 0.0), 60.0) if ok else default


def remembered_overrun(largest: int) -> float:
    """Seconds the last ``msgperf run`` here with the same largest size saw its sweep's kernels go
    past their budget (0 where none is remembered): the largest sizes' minimum samples make most
    of it."""
    return _seconds(_remembered(), f"sweep_overrun_s/{largest}", 0.0)


def remembered_finish(report: bool) -> float:
    """Seconds to keep aside for what follows the measurements: the analysis and the answer, and
    the report when one is written, as the last ``msgperf run`` on this machine measured them
    (FINISH_S and REPORT_S where it did not). A file that cannot be read is no memory."""
    seen = _remembered()
    return _seconds(seen, "answer_s", FINISH_S) + (_seconds(seen, "report_s", REPORT_S) if report else 0.0)


def remember_finish(answer_s: float | None = None, report_s: float | None = None,
                    sweep_overrun_s: float | None = None, largest: int = 0) -> None:
    """Keep what this run's analysis and answer (``answer_s``, from the end of the last launch) and
    report (``report_s``) took, and how far its sweep's kernels went past their budget (a sweep up
    to ``largest`` bytes), for the next run's budget; a cache that cannot be written is skipped (the defaults serve)."""
    from msgperf.writing import atomic_write

    path = _finish_file()
    seen = _remembered()
    seen.update({k: round(v, 3) for k, v in (("answer_s", answer_s), ("report_s", report_s),
                                              (f"sweep_overrun_s/{largest}", sweep_overrun_s)) if v is not None})
    try:
        with atomic_write(path, parents=True) as f:
            json.dump(seen, f)
    except OSError:
        pass
