"""One progress line for a whole ``msgperf run``, on stderr, updated in place on a terminal: the
phase (build, sweep, eager probe, answer k/n, refine k/n, analysis, report), the current launch's records
done of those expected, the budget counting down (``--total-time``: what is left of it, or how
far past it the command is), and what the phase is doing (the last size measured, a refinement
round's intervals). Off a terminal it shows nothing: piped stderr keeps only warnings and errors.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, Progress, ProgressColumn, Task, TextColumn
from rich.table import Column
from rich.text import Text

from msgperf import units


def budget_text(deadline_s: float | None, now_s: float, started_s: float) -> str:
    """The budget column: seconds left before ``deadline_s`` (time.monotonic()), or past it; the
    time elapsed since ``started_s`` when the command has no budget (yet)."""
    if deadline_s is None:
        return f"{now_s - started_s:.0f} s"
    left = deadline_s - now_s
    return f"{left:.0f} s left" if left >= 0 else f"{-left:.0f} s over"


class CommandProgress:
    """Context manager around the command; ``phase(name)`` starts a step that is not a launch,
    ``launch(start)`` (a context manager, for ``measure``'s ``on_launch``) one that is, and
    ``record(obj)`` takes every record the kernels write."""

    def __init__(self, console: Console, started_s: float | None = None) -> None:
        self.started_s = time.monotonic() if started_s is None else started_s
        self.deadline_s: float | None = None
        self._launch_detail = ""  # what the current launch is for, kept beside its last record
        self.console = console
        self._progress = Progress(TextColumn("[bold]{task.description}", table_column=Column(width=11)),
                                  BarColumn(bar_width=20), CountColumn(), BudgetColumn(self),
                                  TextColumn("{task.fields[detail]}",
                                             table_column=Column(no_wrap=True, overflow="ellipsis")),
                                  console=console, transient=True,
                                  # quiet: no line, and no capture of stderr that would swallow warnings
                                  disable=not console.is_terminal or console.quiet)
        self._task = self._progress.add_task("start", total=None, detail="")

    def __enter__(self) -> "CommandProgress":
        self._progress.start()
        return self

    def __exit__(self, *exc) -> None:
        self._progress.stop()

    def phase(self, name: str, detail: str = "", total: int | None = None) -> None:
        """A new step: its name, what it does, the records it will write (None: no count, no bar)."""
        self._launch_detail = ""
        self._progress.remove_task(self._task)
        self._task = self._progress.add_task(name, total=total, detail=self._fit(detail))

    def _fit(self, text: str) -> str:
        """The detail, cut to what the line leaves it (the phase, the bar, the count and the budget
        take about 50 columns), so that the bar and the budget are never squeezed out."""
        room = max(10, self.console.width - 52)
        return text if len(text) <= room else text[:room - 1] + "…"

    @contextmanager
    def launch(self, start) -> Iterator[None]:
        """A launch of the kernels (launch/session.py ``LaunchStart``): its phase, its records."""
        if start.deadline_s is not None:
            self.deadline_s = start.deadline_s
        self.phase(start.label, start.detail, start.expected_records or None)
        self._launch_detail = start.detail
        yield

    def record(self, obj: dict) -> None:
        if obj.get("type") != "measurement":
            return
        samples = obj.get("samples_s") or []
        last = f"{obj.get('pattern')} {units.size(obj.get('bytes', 0))}: {len(samples)} samples"
        divisor = obj.get("divisor") or 1
        if samples:
            last += f", ~{units.seconds(sorted(samples)[len(samples) // 2] / divisor)}"
        detail = f"{self._launch_detail} · {last}" if self._launch_detail else last
        self._progress.update(self._task, advance=1, detail=self._fit(detail))


class CountColumn(ProgressColumn):
    """Records done of those expected; nothing for a phase without records."""

    def render(self, task: Task) -> Text:
        if task.total is None:
            return Text("")
        return Text(f"{int(task.completed)}/{int(task.total)}", style="progress.download")


class BudgetColumn(ProgressColumn):
    """The command's budget counting down (the last size may take a few seconds more to reach its
    minimum samples: then it counts the time past the budget)."""

    def __init__(self, owner: CommandProgress) -> None:
        super().__init__()
        self.owner = owner

    def render(self, task: Task) -> Text:
        return Text(budget_text(self.owner.deadline_s, time.monotonic(), self.owner.started_s),
                    style="progress.remaining")
