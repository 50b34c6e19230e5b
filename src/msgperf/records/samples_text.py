"""The two-column text format of samples: one sample per line, bytes then seconds.

    # comment lines and trailing comments start with '#'
    0        1.12e-6
    1, 1.10e-6          (comma or whitespace separated)
    1        1.09e-6    (a size may repeat: each line is one sample)

This is what the ping-pong of the ping-pong exercise (Marcotte, Durham) and most hand-written benchmarks print, and what
its "write your own linear regression" challenge reads. An optional first line of column
names (e.g. ``bytes,seconds``) is skipped. Every bad line is an error naming the line.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np

from msgperf.errors import MsgperfError
from msgperf.records.limits import MAX_EXACT, MAX_SIZES, MAX_TIME_S, MIN_PER_MESSAGE_S
from msgperf.records.textfile import read_text_file
from msgperf.values import Value

_SPLIT = re.compile(r"[,\s]+")


class SamplesTextError(MsgperfError):
    """A samples text file that cannot be read."""


class SamplesText(Value, eq=False):
    name: str
    bytes: np.ndarray  # int64, one per sample, in file order
    seconds: np.ndarray  # float64
    lines: np.ndarray  # the line number of each sample


def _number(token: str) -> float | None:
    try:
        return float(token)
    except ValueError:
        return None


def _size(token: str, where: str) -> int:
    value = _number(token)
    if value is None or not math.isfinite(value) or value < 0 or not value.is_integer():
        raise SamplesTextError(f"{where}: the size {token!r} is not a whole number of bytes >= 0")
    if value > MAX_EXACT:
        raise SamplesTextError(f"{where}: the size {token} is beyond 2^53 bytes; not a message size")
    return int(value)


def _seconds(token: str, where: str) -> float:
    value = _number(token)
    if value is None:
        raise SamplesTextError(f"{where}: the time {token!r} is not a number")
    if math.isnan(value) or math.isinf(value):
        raise SamplesTextError(f"{where}: the time {token!r} is not a finite number")
    if value <= 0:
        kind = "zero" if value == 0 else "negative"
        raise SamplesTextError(f"{where}: the time {token} s is {kind}; a time must be positive "
                               "(a clock or overflow fault, not a sample): fix or delete the line")
    if not MIN_PER_MESSAGE_S <= value <= MAX_TIME_S:
        raise SamplesTextError(f"{where}: the time {token} s is outside [{MIN_PER_MESSAGE_S:g}, {MAX_TIME_S:g}] s "
                               "(a clock or unit fault, not a sample): fix or delete the line")
    return value


def parse_samples_text(text: str, name: str = "<samples>") -> SamplesText:
    """Parse the text of a samples file; errors name ``name`` and the line."""
    sizes: list[int] = []
    seconds: list[float] = []
    lines: list[int] = []
    distinct: set[int] = set()
    header_allowed = True
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"{name}, line {number}"
        tokens = [t for t in _SPLIT.split(line) if t]
        if header_allowed and all(_number(t) is None for t in tokens):
            if "sample_s" in tokens and ("run_id" in tokens or tokens[:2] == ["measurement", "sample"]):
                raise SamplesTextError(f"{name}: is msgperf's CSV export of samples, which msgperf reads no "
                                       "further; read the run file or its JSON export (msgperf export --format json)")
            header_allowed = False
            continue  # column names
        header_allowed = False
        if len(tokens) != 2:
            hint = (" (for 'bytes reps seconds' output keep columns 1 and 3, e.g. "
                    "awk '{print $1, $3}')") if len(tokens) == 3 else ""
            raise SamplesTextError(f"{where}: expected two columns, bytes and seconds, found "
                                   f"{len(tokens)}{hint}")
        sizes.append(_size(tokens[0], where))
        distinct.add(sizes[-1])
        if len(distinct) > MAX_SIZES:
            raise SamplesTextError(f"{where}: more than {MAX_SIZES:,} distinct message sizes; msgperf reads "
                                   f"at most {MAX_SIZES:,} (as many as a run measures): keep fewer sizes")
        seconds.append(_seconds(tokens[1], where))
        lines.append(number)
    if not sizes:
        raise SamplesTextError(f"{name}: no samples (expected lines of 'bytes seconds')")
    return SamplesText(name=name, bytes=np.array(sizes, dtype=np.int64),
                       seconds=np.array(seconds, dtype=np.float64),
                       lines=np.array(lines, dtype=np.int64))


def read_samples_text(path: str | Path) -> SamplesText:
    text = read_text_file(path, what="a text file of samples", error=SamplesTextError, limit=4 << 30)
    return parse_samples_text(text, str(Path(path)))


def is_run_file(path: str | Path) -> bool:
    """Whether the file looks like a run file (JSON Lines) rather than two-column text."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError:
        return False
    for line in head.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith(b"#"):
            return stripped.startswith(b"{")
    return False
