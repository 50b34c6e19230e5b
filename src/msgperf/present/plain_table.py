"""A borderless table (rich's ``Table(box=None, show_edge=False)``) drawn without rich's per-cell
layout when nothing in it needs that layout: every cell is plain text (no markup, emoji code,
newline or control character) and the table fits the console. Then each column is as wide as its
widest cell, every cell padded and justified as rich pads and justifies it, and the header styled
as rich styles it: the same characters and styles, segment for segment, at a small fraction of
the time (``fit`` of a 118-size NetPIPE output spent most of its time laying out this table).
Anything else is handed to rich's ``Table`` unchanged (a table wider than the console is wrapped
by rich as before)."""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.table import Table


def _plain(text: str) -> bool:
    return text.isprintable() and "[" not in text and ":" not in text and text == text.strip()


class PlainTable:
    def __init__(self, padding: tuple[int, int] = (1, 1)) -> None:
        self.padding = padding  # (left, right) spaces of every cell
        self.columns: list[tuple[str, str, bool]] = []  # (header, justify, no_wrap)
        self.rows: list[tuple[str, ...]] = []

    def add_column(self, header: str, justify: str = "left", no_wrap: bool = False) -> None:
        self.columns.append((header, justify, no_wrap))

    def add_row(self, *cells: str) -> None:
        if len(cells) != len(self.columns):
            raise ValueError(f"{len(cells)} cells for {len(self.columns)} columns")
        self.rows.append(tuple(cells))

    def rich_table(self) -> Table:
        left, right = self.padding
        table = Table(box=None, padding=(0, right, 0, left), show_edge=False)
        for header, justify, no_wrap in self.columns:
            table.add_column(header, justify=justify, no_wrap=no_wrap)
        for row in self.rows:
            table.add_row(*row)
        return table

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        left, right = self.padding
        headers = [c[0] for c in self.columns]
        cells = [headers, *self.rows]
        widths = [max(cell_len(row[i]) for row in cells) for i in range(len(self.columns))]
        fits = sum(widths) + (left + right) * len(widths) <= options.max_width and all(widths)  # rich
        # joins the padding of an empty column into one segment
        if not (fits and all(isinstance(c, str) and _plain(c) for row in cells for c in row)):
            yield self.rich_table()
            return
        header_style = console.get_style("table.header")
        pad_left, pad_right = " " * left, " " * right
        for n, row in enumerate(cells):
            style = header_style if n == 0 else None
            for text, width, (_, justify, _) in zip(row, widths, self.columns):
                fill = " " * (width - cell_len(text))
                yield Segment(pad_left, style)
                yield Segment(fill + text if justify == "right" else text + fill, style)
                yield Segment(pad_right, style)
            yield Segment.line()
