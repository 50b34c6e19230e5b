"""Data strings on the terminal: ``printable`` (msgperf/data_text.py) and, for rich, with its
markup escaped (``safe``), so that a "[red]" in a file name shows as text."""

from __future__ import annotations

from msgperf.data_text import LINE_LIMIT, printable

_TAG_START = frozenset("abcdefghijklmnopqrstuvwxyz#/@")


def escape_markup(text: str) -> str:
    """What ``rich.markup.escape`` does (a "[" that would open or close a tag is preceded by a
    backslash, and the backslashes before it are doubled), in linear time: rich's regular
    expression backtracks over runs of backslashes, quadratically (100 KB of them took minutes)."""
    parts = text.split("[")
    out = [parts[0]]
    for after in parts[1:]:
        before = out[-1]
        if after[:1] in _TAG_START and "]" in after:
            slashes = len(before) - len(before.rstrip("\\"))
            out[-1] = before + "\\" * slashes + "\\"
        out.append(after)
    escaped = "[".join(out)
    if escaped.endswith("\\") and not escaped.endswith("\\\\"):
        escaped += "\\"
    return escaped


def safe(text: str, limit: int = LINE_LIMIT) -> str:
    """For rich output: printable, cut, and with markup escaped (``[red]`` shows as text)."""
    return escape_markup(printable(text, limit))
