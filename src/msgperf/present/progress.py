"""A progress bar fed by records as the kernels write them: done/total, elapsed and the time left
(estimated from the pace so far), on a terminal only (piped output gets no bar and no blank lines)."""

from __future__ import annotations

from rich.console import Console
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                           TimeRemainingColumn)

from msgperf import units


class RunProgress:
    """Context manager; call ``record(obj)`` for every record read from the run file."""

    def __init__(self, total: int, console: Console, label: str = "measuring") -> None:
        self._progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                                  TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(),
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
