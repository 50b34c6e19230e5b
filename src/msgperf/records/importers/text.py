"""Reading the text other benchmarks print: bounded file reads and strict number tokens.

Numbers are matched against a plain decimal pattern before conversion, so ``nan``, ``inf``,
``0x10`` or ``1_000`` (all of which ``float()``/``int()`` would accept) are errors, and unit
conversions go through ``Decimal`` so that, e.g., "1.66" µs becomes the double nearest to
1.66e-6 s rather than ``1.66 * 1e-6``.
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

from msgperf.errors import MsgperfError
from msgperf.records.textfile import read_text_file

# Text outputs of OSU/IMB/NetPIPE are kilobytes; refuse anything absurd before reading it.
MAX_INPUT_BYTES = 64 << 20

_DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d{1,3})?\Z")
_INTEGER = re.compile(r"\d{1,18}\Z")


class ForeignFormatError(MsgperfError):
    """Another tool's output that does not read as that tool's output."""


def excerpt(line: str, width: int = 60) -> str:
    """A line, shortened and quoted (control characters escaped) for an error message."""
    text = line.strip()
    if len(text) > width:
        text = text[:width] + "..."
    return repr(text)


class OutputLines:
    """The lines of another tool's output, knowing which one may have been cut off: a tool killed
    while printing (or a full disk) leaves a last line without its newline ("4   15" of
    "4   15.23"), which would read as a wrong number. Such a line is left out with a note, and a
    last result line with too few columns is too, as the run-file reader does with a partial
    record; anywhere else a wrong line stays an error."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        self.notes: list[str] = []
        if self.lines and not text.endswith(("\n", "\r")):
            number = len(self.lines)
            cut = self.lines.pop()
            if cut.strip():
                self.notes.append(f"line {number}: the output ends in a line without its newline "
                                  f"({excerpt(cut)}): it was cut off while printing and is left out")
        self.last = next((i + 1 for i in range(len(self.lines) - 1, -1, -1) if self.lines[i].strip()), 0)

    def numbered(self):
        """(line number, line) of every complete line."""
        return enumerate(self.lines, start=1)

    def cut_short(self, number: int, tokens: list[str], expected: int) -> bool:
        """Whether line ``number`` is the output's last, starts as a result line does (a size)
        and has fewer than ``expected`` columns: then it is noted and should be skipped."""
        if number != self.last or len(tokens) >= expected or not tokens or not _INTEGER.match(tokens[0]):
            return False
        self.notes.append(f"line {number}: the last line has {len(tokens)} of {expected} columns "
                          f"({excerpt(' '.join(tokens))}): the output was cut off; it is left out")
        return True


def read_text(path: str | Path, limit: int = MAX_INPUT_BYTES) -> str:
    """The contents of a text file of at most ``limit`` bytes, or a one-line error."""
    return read_text_file(path, what="a benchmark output", error=ForeignFormatError, limit=limit, nul_scan=None)


def decimal(token: str, where: str, what: str) -> Decimal:
    """A finite decimal number (never nan/inf/hex)."""
    if not _DECIMAL.match(token):
        raise ForeignFormatError(f"{where}: {what} must be a number, got {excerpt(token, 30)}")
    return Decimal(token)


def size(token: str, where: str) -> int:
    """A message size in bytes: a non-negative integer."""
    if not _INTEGER.match(token):
        raise ForeignFormatError(
            f"{where}: the message size must be a whole number of bytes, got {excerpt(token, 30)}")
    return int(token)


def count(token: str, where: str, what: str) -> int:
    if not _INTEGER.match(token):
        raise ForeignFormatError(f"{where}: {what} must be a whole number, got {excerpt(token, 30)}")
    return int(token)


def seconds(value: Decimal, scale: int) -> float:
    """``value`` × 10^scale seconds as the nearest double (scale -6 for µs)."""
    return float(value.scaleb(scale))


def per_message_from_rate(nbytes: int, mb_per_s: Decimal) -> float:
    """Time per message from a bandwidth in MB/s (1 MB = 10^6 B): bytes / (MB/s · 10^6)."""
    return float(Decimal(nbytes) / (mb_per_s * 1000000))


def per_message_from_msg_rate(messages_per_s: Decimal) -> float:
    """Time per message from a message rate: 1 / (messages/s)."""
    return float(1 / messages_per_s)


def significant_digits(token: str) -> int:
    """How many significant digits a printed number carries ("0.00000057" → 2)."""
    digits = token.lstrip("+-").split("e")[0].split("E")[0].replace(".", "").lstrip("0")
    return len(digits)
