"""The ranges every value read from a file must fall in: checked once, where the value enters
(the run-file reader, the JSON export, the importers, the samples text), so that no later
command (show, fit, report, export, import into SQLite) meets a value it cannot handle.

The limits are far beyond anything real and far inside what the later stages compute with:

- an integer fits a signed 64-bit SQLite INTEGER (|n| < 2^63), and counts and sizes are exact
  as doubles (< 2^53), because the analysis divides by them;
- a time is finite and positive; a sample or a first-message time lies between one femtosecond
  per message and a million seconds (11.6 days; the time budget is at most a day);
- an imported output has at most ``MAX_SIZES`` distinct sizes per pattern, as many as a run
  may plan (the analysis and the tables of a series grow with its sizes);
- a string has at most ``MAX_STRING_CHARS`` characters and no lone UTF-16 surrogate (which JSON's
  ``\\ud800`` escapes can smuggle in, and which no terminal, HTML file or database can encode).

docs/record-format.md ("Limits") lists them for users; docs/reliability.md has the messages.
"""

from __future__ import annotations

import math
import re
from typing import Any, Callable

from msgperf.errors import MsgperfError

MAX_STRING_CHARS = 65536  # a host name, label, command line or environment value
MAX_INT64 = (1 << 63) - 1  # SQLite's INTEGER
MAX_EXACT = 1 << 53  # counts and byte sizes: exact as a double
MAX_RANKS = 1 << 24  # 16 M ranks (rank numbers, ranks per launch, flows)
MAX_TIME_S = 1e6  # a sample, a first message, a time budget: at most 11.6 days
MAX_BUDGET_S = 86400.0  # what msgperf run or slurm asks: a time budget, per size or for a launch (plan.py)
MIN_PER_MESSAGE_S = 1e-15  # a femtosecond: light crosses a third of a micrometre
MAX_DEPTH = 32  # nesting of JSON objects and lists inside one record
# A profile (records/profile_format.py): what a profiled program did, over its whole life.
MAX_MESSAGE_BYTES = 1 << 48  # one message: 256 TiB, beyond any node's memory (2^91 was read)
MAX_PROFILE_TIME_S = 1e8  # a profiled program's wall, MPI and call times: about three years
MAX_CLOCK_TICKS_PER_S = 1e15  # a clock's rate: a femtosecond tick (real ones: 1e6 to 1e10)
MAX_PID = (1 << 32) - 1
MAX_SIZES = 4096  # distinct message sizes of one pattern that a run plans, or an import reads

_SURROGATE = re.compile("[\ud800-\udfff]")


def check_json_values(obj: Any, where: str, error: Callable[[str], MsgperfError],
                      skip: frozenset[str] = frozenset({"samples_s"})) -> None:
    """Every value inside a decoded JSON record: integers within int64, floats finite (JSON's
    1e400 parses to infinity), strings within ``MAX_STRING_CHARS`` and without lone surrogates
    (keys included), nesting at most ``MAX_DEPTH``. The keys in ``skip`` (the samples) are
    checked by their own, vectorised, rule. Raises ``error`` with one line naming the field."""
    stack: list[tuple[Any, str, int]] = [(obj, "", 0)]
    while stack:
        value, path, depth = stack.pop()
        if isinstance(value, str):
            _check_string(value, path, where, error)
        elif isinstance(value, bool) or value is None:
            continue
        elif isinstance(value, int):
            if not -MAX_INT64 <= value <= MAX_INT64:
                raise error(f"{where}: field '{_cut(path)}' is {_short_int(value)}, beyond the 64-bit range "
                            "of any count, size or index msgperf keeps")
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise error(f"{where}: field '{_cut(path)}' is not a finite number ({value!r})")
        elif isinstance(value, (dict, list)):
            if depth >= MAX_DEPTH:
                raise error(f"{where}: field '{_cut(path)}' is nested more than {MAX_DEPTH} levels deep")
            if isinstance(value, dict):
                for key, item in value.items():
                    name = f"{path}.{key}" if path else str(key)
                    _check_string(key, f"{name} (its name)", where, error)
                    if not (depth == 0 and key in skip):
                        stack.append((item, name, depth + 1))
            else:
                for i, item in enumerate(value):
                    if isinstance(item, (str, dict, list)) or (isinstance(item, int) and not isinstance(item, bool)
                                                                and abs(item) > MAX_INT64) \
                            or (isinstance(item, float) and not math.isfinite(item)):
                        stack.append((item, f"{path}[{i}]", depth + 1))


def _check_string(value: str, path: str, where: str, error: Callable[[str], MsgperfError]) -> None:
    if len(value) > MAX_STRING_CHARS:
        raise error(f"{where}: field '{_cut(path)}' is {len(value):,} characters long; msgperf reads strings "
                    f"of at most {MAX_STRING_CHARS:,}")
    found = _SURROGATE.search(value)
    if found:
        raise error(f"{where}: field '{_cut(path)}' holds a lone UTF-16 surrogate "
                    f"(\\u{ord(found.group()):04x} at character {found.start()}), which is not text; "
                    "the file is corrupt or forged")


def _cut(path: str) -> str:
    """A field path for a message: short, and free of characters that would break the line."""
    text = path if len(path) <= 60 else path[:60] + "..."
    text = _SURROGATE.sub("?", text)
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _short_int(value: int) -> str:
    digits = len(str(abs(value)))
    return str(value) if digits <= 25 else f"an integer of {digits} digits"


def check_int(value: int, where: str, name: str, low: int, high: int,
              error: Callable[[str], MsgperfError]) -> int:
    """``low <= value <= high``, or one line naming the field and its range."""
    if not low <= value <= high:
        raise error(f"{where}: field '{name}' is {_short_int(value)}; it must be from {low} to {high}")
    return value


def check_float(value: float, where: str, name: str, low: float, high: float,
                error: Callable[[str], MsgperfError], *, low_open: bool = False) -> float:
    """A finite ``value`` within [low, high] (``low_open``: (low, high]), or one line."""
    if not math.isfinite(value) or value > high or value < low or (low_open and value == low):
        bracket = "(" if low_open else "["
        raise error(f"{where}: field '{name}' is {value!r}; it must be within {bracket}{low:g}, {high:g}]")
    return value
