"""Strings from run files, peer outputs, the database and options are data, never markup or
terminal control, and never so long that showing them takes long: every such string reaches
the terminal (and the report) through ``printable`` or ``safe``."""

from __future__ import annotations

# Longest data string shown whole; longer ones are cut with a mark saying how much was left out.
# A whole line of msgperf's (a caveat, a table row) that holds one is cut at ``LINE_LIMIT``.
FIELD_LIMIT = 120
LINE_LIMIT = 1000
_TAG_START = frozenset("abcdefghijklmnopqrstuvwxyz#/@")


def cut(text: str, limit: int = FIELD_LIMIT) -> str:
    """``text`` itself, or its first ``limit`` characters and "…(+N chars)"."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}…(+{len(text) - limit} chars)"


def printable(text: str, limit: int | None = LINE_LIMIT) -> str:
    """Control characters (ANSI escapes, carriage returns, newlines, ...) shown as \\xNN, not
    obeyed; cut to ``limit`` characters (before escaping, so the cost is bounded; None: whole)."""
    shown = text if limit is None else cut(text, limit)
    if shown.isprintable():  # most strings: nothing to show escaped (a report has ~10^5 of them)
        return shown
    return "".join(c if c.isprintable() or c == " " else f"\\x{ord(c):02x}" for c in shown)


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
