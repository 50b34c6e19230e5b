"""Strings from run files and peer outputs are data, never markup or terminal control."""

from __future__ import annotations

from rich.markup import escape


def printable(text: str) -> str:
    """Control characters (ANSI escapes, carriage returns, ...) shown as \\xNN, not obeyed."""
    return "".join(c if c.isprintable() or c == " " else f"\\x{ord(c):02x}" for c in text)


def safe(text: str) -> str:
    """For rich output: printable and with markup escaped (``[red]`` shows as text)."""
    return escape(printable(text))
