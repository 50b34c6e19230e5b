"""present/terminal.py: off a terminal, PlainConsole writes what rich's own Console writes, line for
line, whether it takes its fast path (a line that fits) or hands the line to rich."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from msgperf.present.terminal import PlainConsole, console

LINES = [
    "plain text that fits",
    "[bold]Hockney model[/] T(b) = α + β·b — robust fit over 12 sizes",
    "  [yellow]![/] a caveat\n    → its advice",
    "a line with trailing spaces   ",
    "x" * 70,
    "x" * 71,  # one past the width: wrapped by rich
    "words " * 30,  # wrapped at word boundaries
    "tab\tseparated",
    "wide 漢字漢字" * 6,  # cells, not characters, count
    "wide 漢字" * 4,  # wide characters that fit
    "e\u0301" * 40 + "  ",  # 40 cells, 80 characters: rich strips the trailing spaces
    "[not a tag] and \\[escaped] and [link=http://x]a link[/link]",
    "emoji code :smile: stays what rich makes of it",
    "",
    "ends in a newline\n",
    "\x1b[31mcontrol\x1b[0m characters",
]


def _both(text: str, **options) -> tuple[str, str]:
    outputs = []
    for cls in (Console, PlainConsole):
        out = io.StringIO()
        c = cls(file=out, width=70, highlight=False, color_system=None, force_terminal=False, height=25)
        c.print(text, **options)
        outputs.append(out.getvalue())
    return outputs[0], outputs[1]


@pytest.mark.parametrize("text", LINES)
@pytest.mark.parametrize("options", [{}, {"markup": False}, {"style": "dim"}, {"soft_wrap": True}])
def test_plain_console_writes_what_rich_writes(text, options):
    rich_out, plain_out = _both(text, **options)
    assert plain_out == rich_out


def test_console_off_a_terminal_is_plain_and_on_a_terminal_or_recording_is_rich(monkeypatch):
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    monkeypatch.setenv("COLUMNS", "90")
    piped = console(file=io.StringIO())
    assert isinstance(piped, PlainConsole) and piped.width == 90
    assert type(console(file=io.StringIO(), record=True)) is Console  # export needs rich's segments
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert type(console(file=io.StringIO())) is Console


def test_a_line_that_fits_does_not_go_through_rich_layout(monkeypatch):
    out = io.StringIO()
    c = PlainConsole(file=out, width=70, highlight=False, color_system=None, force_terminal=False, height=25)
    monkeypatch.setattr(Console, "print", lambda *a, **k: pytest.fail("laid out by rich"))
    c.print("[bold]fits[/] in 70 columns\n  and so does this", style="dim")
    assert out.getvalue() == "fits in 70 columns\n  and so does this\n"
