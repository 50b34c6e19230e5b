"""The first message beside the steady state: "first message: 2.1 ms, 1900× the steady state".

The cold first iteration of every measurement (``first_s``, timed before warm-up and never a
sample) and, on the launch's first measurement, the job's first message of a pattern
(``first_message_of_job_s``) are set against the row's median, per message.
"""

from __future__ import annotations

import math
from typing import Sequence

from rich.console import Console
from rich.markup import escape

from msgperf.analysis.rows import SizeRow
from msgperf.present.units import format_bytes, format_seconds


def times_the_steady_state(first: float, median: float) -> str:
    if not (math.isfinite(first) and median > 0):
        return "-"
    x = first / median
    return f"{x:,.0f}×" if x >= 10 else f"{x:.2g}×"


def first_message_line(rows: Sequence[SizeRow]) -> str | None:
    """One line for a table's rows, or None when no row has a first iteration."""
    parts = []
    job = None
    for r in rows:
        if r.first_s is None or not math.isfinite(r.first_s):
            continue
        if job is None and isinstance(r.extra.get("first_message_of_job_s"), (int, float)):
            job = r
        parts.append(f"{format_bytes(r.bytes)} {format_seconds(r.first_s)} "
                     f"({times_the_steady_state(r.first_s, r.summary.median)})")
    if not parts:
        return None
    text = ""
    if job is not None:
        # The job's first message is the launch's first measurement's cold first iteration:
        # the same number as that row's first_s, per message.
        text = (f"first message of the job: {format_seconds(job.first_s)}, "
                f"{times_the_steady_state(job.first_s, job.summary.median)} the steady state "
                f"({format_bytes(job.bytes)}); ")
    return text + "first message per size (cold, before warm-up, never a sample): " + " · ".join(parts)


def render_first_message(console: Console, rows: Sequence[SizeRow]) -> None:
    line = first_message_line(rows)
    if line:
        console.print(escape(line))
