"""The one table engine of the terminal (present/grid.py): each of its looks is rich's ``Table``
character for character on tables of plain one-line cells that fit; off a colour terminal it
writes no escape code, on one the header is bold and a cell keeps its style."""

from __future__ import annotations

import io
import random

import pytest
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from msgperf.present.grid import Grid, render
from msgperf.present.terminal import console as make_console

PIECES = ["1", "2.5", "µs", "α", "β", "SPIKE", "B", "–", "%", "+", "GB/s", "x", "é", "日本", "[b]", "yes"]
LOOKS = {  # Grid(box=, padding=, pad_edge=) -> the rich Table it draws
    ("heavy", (1, 1), True): dict(box=box.HEAVY_HEAD),
    ("rule", (1, 1), False): dict(box=box.SIMPLE_HEAD, pad_edge=False),
    ("none", (1, 1), True): dict(box=None, show_edge=False),
    ("none", (2, 1), True): dict(box=None, padding=(0, 1, 0, 2), show_edge=False),
    ("none", (1, 1), False): dict(box=None, pad_edge=False),
}


def _cell(rng: random.Random) -> str:
    return " ".join("".join(rng.choice(PIECES) for _ in range(rng.randint(1, 3))) for _ in range(rng.randint(1, 2)))


def _rich(table: Table) -> str:
    out = io.StringIO()
    Console(file=out, width=400, color_system=None, highlight=False).print(table)
    return out.getvalue()


@pytest.mark.parametrize("look", list(LOOKS), ids=str)
def test_each_look_draws_what_richs_table_draws(look):
    name, padding, pad_edge = look
    rng = random.Random(str(look))
    for _ in range(60):
        grid = Grid(box=name, padding=padding, pad_edge=pad_edge)
        table = Table(**LOOKS[look])
        for _ in range(rng.randint(1, 8)):
            header, justify = rng.choice(["size", "time", "flags", "asym.", "z"]), rng.choice(["left", "right"])
            grid.add_column(header, justify=justify)
            table.add_column(header, justify=justify, no_wrap=True)
        for _ in range(rng.randint(0, 5)):
            cells = [_cell(rng) for _ in grid.columns]
            grid.add_row(*cells)
            table.add_row(*map(escape, cells))  # a Grid's cells are text, never markup
        assert grid.text() + "\n" == _rich(table)


def _grid() -> Grid:
    grid = Grid(heading="verdicts [red]", note="a note", caveats=["busy machine"])
    for name in ("size", "verdict"):
        grid.add_column(name, justify="left")
    grid.add_row("8 B", "slower", styles={1: "bold red"})
    grid.add_row("16 B", "within noise")
    return grid


def test_off_a_terminal_every_line_is_plain_text(monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    out = io.StringIO()
    render(make_console(file=out), _grid())
    text = out.getvalue()
    assert "\x1b" not in text
    assert text.splitlines() == ["verdicts [red]", *_grid().lines(), "a note", "! busy machine"]


def test_on_a_colour_terminal_headers_are_bold_and_a_cell_keeps_its_style():
    out = io.StringIO()
    render(Console(file=out, width=100, force_terminal=True, color_system="standard"), _grid())
    text = out.getvalue()
    assert "\x1b[1;31mslower\x1b[0m" in text  # bold red
    assert "\x1b[1msize" in text and "within noise" in text and "\x1b[1;31mwithin" not in text


def test_a_detail_column_left_out_takes_its_styles_with_it():
    grid = Grid()
    for name, detail in (("size", False), ("ci", True), ("verdict", False)):
        grid.add_column(name, detail=detail)
    grid.add_row("8 B", "[1-2]", "slower", styles={1: "dim", 2: "red"})
    short = grid.without_detail()
    assert [c.header for c in short.columns] == ["size", "verdict"] and short.styles == {(0, 1): "red"}
    assert short.note == "--detail adds: ci"
