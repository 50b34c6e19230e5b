"""A progress bar fed by records as the kernels write them: done/total, elapsed and the time left
(what is left of the launch's one time budget, or else estimated from the pace so far), on a
terminal only (piped output gets no bar and no blank lines)."""

from __future__ import annotations

from rich.console import Console
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, ProgressColumn, Task, TextColumn,
                           TimeElapsedColumn, TimeRemainingColumn)
from rich.text import Text

from msgperf import units


class RunProgress:
    """Context manager; call ``record(obj)`` for every record read from the run file."""

    def __init__(self, total: int, console: Console, label: str = "measuring", budget_s: float = 0.0) -> None:
        left = BudgetLeftColumn(budget_s) if budget_s > 0 else TimeRemainingColumn()
        self._progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                                  TimeElapsedColumn(), TextColumn("left"), left,
                                  TextColumn("{task.fields[last]}"), console=console, transient=True,
                                  disable=not console.is_terminal)
        self._task = self._progress.add_task(label, total=total, last="")

    def __enter__(self) -> "RunProgress":
        self._progress.start()
        return self

    def __exit__(self, *exc) -> None:
        self._progress.stop()

    def record(self, obj: dict) -> None:
        if obj.get("type") != "measurement":
            return
        samples = obj.get("samples_s") or []
        size = obj.get("bytes", 0)
        last = f"{obj.get('pattern')} {units.size(size)}: {len(samples)} samples"
        divisor = obj.get("divisor") or 1
        if samples:
            median = sorted(samples)[len(samples) // 2] / divisor
            last += f", ~{units.seconds(median)}"
        self._progress.update(self._task, advance=1, last=last)


class BudgetLeftColumn(ProgressColumn):
    """With one budget for the launch the time left is known, not estimated: the budget less the
    time elapsed (the last size may use a few seconds more to reach its minimum samples)."""

    def __init__(self, budget_s: float) -> None:
        super().__init__()
        self.budget_s = budget_s

    def render(self, task: Task) -> Text:
        left = max(0.0, self.budget_s - (task.elapsed or 0.0))
        return Text(f"≤ {int(left) // 60}:{int(left) % 60:02d}", style="progress.remaining")
