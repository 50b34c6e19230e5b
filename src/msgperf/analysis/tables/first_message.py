"""The first message beside the steady state: the cold first iteration of every measurement
(``first_s``, timed before warm-up and never a sample) and the job's first message (the launch's
first measurement's cold first iteration), each against the row's median, per message. Pure."""

from __future__ import annotations

import math
from typing import Sequence

from msgperf.analysis.tables.size_rows import SizeRow
from msgperf.values import Value


class FirstMessage(Value):
    bytes: int
    first_s: float
    times_steady: float | None  # first / median
    variant: str = ""


class FirstMessages(Value):
    job: FirstMessage | None  # the job's first message of the table's pattern, when it is in it
    per_size: tuple[FirstMessage, ...]


def times_steady(first: float, median: float) -> float | None:
    return first / median if math.isfinite(first) and median > 0 else None


def first_messages(rows: Sequence[SizeRow]) -> FirstMessages | None:
    per_size, job = [], None
    for r in rows:
        if r.first_s is None or not math.isfinite(r.first_s):
            continue
        item = FirstMessage(r.bytes, r.first_s, times_steady(r.first_s, r.time_s), r.variant)
        per_size.append(item)
        if job is None and r.first_of_job:
            job = item  # the job's first message is that row's cold first iteration, per message
    return FirstMessages(job, tuple(per_size)) if per_size else None
