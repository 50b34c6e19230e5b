"""An imported summary as an ordinary ``Run``: one measurement per (pattern, size) whose single
"sample" is the time per message the other tool reported (stop_reason "imported", k = 1,
divisor = 1) and whose ``extra["imported"]`` keeps everything else the tool printed.
"""

from __future__ import annotations

import math
from typing import Any

import msgspec
import numpy as np

from msgperf import __version__
from msgperf.records.format import FORMAT_VERSION, Measurement, Plan, Run, RunInfo
from msgperf.records.importers.text import ForeignFormatError
from msgperf.records.limits import (MAX_EXACT, MAX_RANKS, MAX_SIZES, MAX_TIME_S, MIN_PER_MESSAGE_S,
                                    check_json_values)
from msgperf.values import Value


class Point(Value):
    """One result line of another tool, already converted to seconds per message."""

    pattern: str
    bytes: int
    time_s: float
    metric: str  # "one_way" or "per_message"
    line: int
    ranks: tuple[int, ...] = (0, 1)
    validated: bool = True  # False only when the tool itself reported a failed check
    info: dict[str, Any] = msgspec.field(default_factory=dict)  # -> extra["imported"]


class Points(list):
    """The points of one output as they are parsed, refused at the line that gives a pattern
    more distinct sizes than ``MAX_SIZES`` (before the rest of a huge output is read)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self._sizes: dict[str, set[int]] = {}

    def append(self, point: Point) -> None:  # type: ignore[override]
        sizes = self._sizes.setdefault(point.pattern, set())
        sizes.add(point.bytes)
        if len(sizes) > MAX_SIZES:
            raise ForeignFormatError(
                f"{self.name}, line {point.line}: more than {MAX_SIZES:,} message sizes of {point.pattern}; "
                f"msgperf reads at most {MAX_SIZES:,} per pattern (as many as a run measures): "
                "split the output or keep fewer sizes")
        super().append(point)


class ImportResult(Value):
    run: Run
    notes: tuple[str, ...] = ()  # lines the tool printed that carry no time (said, not dropped silently)


def build_run(points: list[Point], *, name: str, source: str, buffer: str, nranks: int,
              command_line: str, start_time: str = "", notes: list[str] | None = None) -> ImportResult:
    """Assemble the run; duplicate (pattern, size, ranks) lines are an error naming both lines."""
    if not points:
        raise ForeignFormatError(f"{name}: no results found in this {source} output")
    seen: dict[tuple[str, int, tuple[int, ...]], int] = {}
    for p in points:
        key = (p.pattern, p.bytes, p.ranks)
        if key in seen:
            raise ForeignFormatError(
                f"{name}, line {p.line}: {p.pattern} at {p.bytes} B appears twice (first on line "
                f"{seen[key]}); split the file into one output per run")
        if not (math.isfinite(p.time_s) and p.time_s > 0):
            raise ForeignFormatError(f"{name}, line {p.line}: time per message {p.time_s!r} s is not positive")
        # The limits every run file obeys (records/limits.py), checked here once for imports.
        if not MIN_PER_MESSAGE_S <= p.time_s <= MAX_TIME_S:
            raise ForeignFormatError(f"{name}, line {p.line}: time per message {p.time_s!r} s is outside "
                                     f"[{MIN_PER_MESSAGE_S:g}, {MAX_TIME_S:g}] s; not a measurement")
        if p.bytes > MAX_EXACT:
            raise ForeignFormatError(f"{name}, line {p.line}: message size {p.bytes} B is beyond 2^53 B")
        check_json_values(p.info, f"{name}, line {p.line}", ForeignFormatError)
        seen[key] = p.line
    if not 1 <= nranks <= MAX_RANKS:
        raise ForeignFormatError(f"{name}: {nranks} processes is beyond the {MAX_RANKS} ranks msgperf handles")
    check_json_values({"command_line": command_line, "start_time": start_time}, name, ForeignFormatError)
    patterns = tuple(dict.fromkeys(p.pattern for p in points))
    sizes = tuple(sorted({p.bytes for p in points}))
    plan = Plan(patterns=patterns, sizes=sizes, buffer=buffer, pair=(0, 1), nranks=nranks,
                precision=0.0, time_budget_s=0.0, min_samples=0, max_samples=0)
    info = RunInfo(format_version=FORMAT_VERSION, msgperf_version=__version__,
                   command_line=command_line, start_time=start_time, plan=plan, source=source)
    measurements = tuple(
        Measurement(pattern=p.pattern, bytes=p.bytes, buffer=buffer, ranks=p.ranks, k=1, divisor=1,
                    samples_s=np.array([p.time_s], dtype=np.float64), stop_reason="imported",
                    validated=p.validated, launch=0, timing="", metric=p.metric,
                    extra={"imported": dict(p.info, line=p.line)})
        for p in points)
    return ImportResult(run=Run(info=info, launches=(), measurements=measurements, path=name),
                        notes=tuple(notes or ()))
