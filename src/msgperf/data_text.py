"""Strings from run files, peer outputs, the database and options are data, never terminal
control, and never so long that showing them takes long: every such string that msgperf shows
(on the terminal, in a report, in an error or a batch script's comment) goes through
``printable``. ``present/text.py`` adds the escaping of rich's markup for the terminal."""

from __future__ import annotations

# Longest data string shown whole; longer ones are cut with a mark saying how much was left out.
# A whole line of msgperf's (a caveat, a table row) that holds one is cut at ``LINE_LIMIT``.
FIELD_LIMIT = 120
LINE_LIMIT = 1000


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
