"""The per-size table of ``fit`` is drawn without rich's layout when it can be: the output must be
rich's own, character for character and style for style, and rich's wherever it cannot."""

import io
import random

import pytest
from rich.console import Console

from msgperf.present.plain_table import PlainTable

PIECES = ["1", "2.5", " ", "µs", "α", "β", "SPIKE", "B", "–", "%", "+", "GB/s", "x", "[b]", ":smile:", "\n",
          "é", "日本", "", "  ", "\x1b"]


def _render(table, terminal: bool, width: int) -> str:
    buf = io.StringIO()
    console = Console(file=buf, width=width, force_terminal=terminal,
                      color_system="truecolor" if terminal else None, highlight=False)
    console.print(table)
    return buf.getvalue()


def _random_table(rng: random.Random) -> PlainTable:
    columns = rng.randint(1, 10)
    table = PlainTable(padding=(1, 1))
    for _ in range(columns):
        table.add_column(rng.choice(["size", "time", "", "flags", "asym."]), justify=rng.choice(["left", "right"]),
                         no_wrap=rng.random() < 0.7)
    for _ in range(rng.randint(0, 6)):
        table.add_row(*["".join(rng.choice(PIECES) for _ in range(rng.randint(0, 5))) for _ in range(columns)])
    return table


@pytest.mark.parametrize("terminal", [False, True])
@pytest.mark.parametrize("width", [120, 40])
def test_random_tables_render_as_rich_renders_them(terminal, width):
    rng = random.Random(width + terminal)
    for _ in range(150):
        table = _random_table(rng)
        assert _render(table, terminal, width) == _render(table.rich_table(), terminal, width)


def test_a_plain_table_that_fits_is_not_laid_out_by_rich(monkeypatch):
    table = PlainTable()
    for name, justify in (("size", "left"), ("time", "right"), ("", "left"), ("flags", "left")):
        table.add_column(name, justify=justify)
    table.add_row("64 KiB", "12.25 µs", "β", "SPIKE B")
    table.add_row("1 B", "1.5 µs", "α", "")
    expected = _render(table.rich_table(), True, 120)
    monkeypatch.setattr(PlainTable, "rich_table", lambda self: pytest.fail("rich's layout was used"))
    assert _render(table, True, 120) == expected
    assert _render(table, False, 120) == (" size        time     flags   \n 64 KiB  12.25 µs  β  SPIKE B \n"
                                          " 1 B       1.5 µs  α          \n")


def test_a_table_wider_than_the_console_is_wrapped_by_rich():
    table = PlainTable()
    table.add_column("size")
    table.add_column("flags")
    table.add_row("1 B", "SPIKE B W T O F I 1 R X " * 3)
    narrow = _render(table, False, 30)
    assert narrow == _render(table.rich_table(), False, 30) and len(narrow.splitlines()) > 2
