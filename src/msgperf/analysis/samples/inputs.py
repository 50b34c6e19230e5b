"""What the analysis consumes: sample sets (one size, one launch) and their validation.

A ``SampleSet`` is the analysis' view of a measurement: per-message times in seconds, the
size, the launch, and what is needed to judge the samples (the divisor that turned a raw
sample into a per-message time, the clock's resolution). Run files and the two-column
text format both become sample sets; nothing here reads files.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from msgperf.errors import MsgperfError


class AnalysisError(MsgperfError):
    """Input the analysis cannot use (no samples, a negative time...)."""


@dataclass(frozen=True, eq=False)
class SampleSet:
    bytes: int
    # in the order they were measured; or a function that returns them, for samples that wait on
    # disk (a large run file): the analysis then holds one size's samples at a time
    per_message_s: np.ndarray
    launch: int = 0
    divisor: int = 1  # raw sample = per-message time x divisor (for the clock-resolution check)
    clock_resolution_s: float | None = None
    validated: bool = True
    where: str = ""  # the record or line it came from, for error messages

    @property
    def deferred(self) -> bool:
        """Whether the times are given by a function (samples on disk until they are used)."""
        return callable(self.__dict__["_per_message_s"])


def _times(sample_set: SampleSet) -> np.ndarray:
    held = sample_set.__dict__["_per_message_s"]
    return held() if callable(held) else held


def _hold_times(sample_set: SampleSet, value: np.ndarray | Callable[[], np.ndarray]) -> None:
    sample_set.__dict__["_per_message_s"] = value


SampleSet.per_message_s = property(_times, _hold_times)  # type: ignore[assignment]


def check_times(values: np.ndarray, where: str) -> np.ndarray:
    """The values as a float array, or an ``AnalysisError`` naming the first bad one."""
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 1 or x.size == 0:
        raise AnalysisError(f"{where}: no samples")
    bad = np.flatnonzero(~np.isfinite(x) | (x <= 0))
    if bad.size:
        i = int(bad[0])
        raise AnalysisError(f"{where}: sample {i} is {float(x[i])!r} s; a time must be positive and "
                            "finite (a clock or overflow fault, not a measurement)")
    return x


def check_set(sample_set: SampleSet) -> SampleSet:
    where = sample_set.where or f"{sample_set.bytes} B, launch {sample_set.launch}"
    if isinstance(sample_set.bytes, bool) or int(sample_set.bytes) != sample_set.bytes \
            or sample_set.bytes < 0:
        raise AnalysisError(f"{where}: a message size must be a whole number of bytes >= 0")
    check_times(sample_set.per_message_s, where)
    res = sample_set.clock_resolution_s
    if res is not None and not (math.isfinite(res) and res > 0):
        raise AnalysisError(f"{where}: clock resolution {res!r} s is not a positive time")
    return sample_set
