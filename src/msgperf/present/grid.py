"""msgperf's one table engine for the terminal: a table of text cells drawn line by line, a hundred
times faster than rich's ``Table``: ``show`` of a run with every pattern prints some forty tables,
and rich's per-cell layout (about 10 ms a table here) alone would take longer than re-reading a
run may (docs/libraries.md). Cells are plain text: never wrapped, never markup (a line wider than
the terminal is left to the terminal). Three looks, with rich's characters: ``heavy`` (rich's
default heavy-head box), ``rule`` (a rule under the header, rich's ``SIMPLE_HEAD``) and ``none``
(columns apart by their padding only). Off a colour terminal (a pipe, a file) the table is plain
text; on one, headers are bold and a cell may have a style (``add_row(..., styles=)``). The same
``Grid`` is rendered as an HTML table by the report, so the terminal and the report show one table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from msgperf.present.text import safe

# (left edge, between cells, right edge, line fill) of the lines above the header, under it and
# under the rows; and (left, between, right) of a line of cells. None: no such line.
_BOXES: dict[str, dict[str, tuple[str, ...] | None]] = {
    "heavy": {"top": ("┏", "┳", "┓", "━"), "head": ("┃", "┃", "┃"), "rule": ("┡", "╇", "┩", "━"),
              "row": ("│", "│", "│"), "bottom": ("└", "┴", "┘", "─")},
    "rule": {"top": (" ", " ", " ", " "), "head": (" ", " ", " "), "rule": (" ", "─", " ", "─"),
             "row": (" ", " ", " "), "bottom": (" ", " ", " ", " ")},
    "none": {"top": None, "head": ("", "", ""), "rule": None, "row": ("", "", ""), "bottom": None},
}
HEADER_STYLE = "bold"


@dataclass
class Column:
    header: str  # may hold "\n" for a two-line header
    justify: str = "right"  # "right" or "left"
    detail: bool = False  # shown by show --detail and the report, left out of the 80-column view


@dataclass
class Grid:
    columns: list[Column] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    heading: str = ""  # printed above the table
    note: str = ""  # printed under it
    caveats: list[str] = field(default_factory=list)  # lines on what the machine did to these numbers
    box: str = "heavy"  # "heavy", "rule" or "none" (_BOXES)
    padding: tuple[int, int] = (1, 1)  # spaces left and right of every cell
    pad_edge: bool = True  # False: no padding left of the first column and right of the last
    styles: dict[tuple[int, int], str] = field(default_factory=dict)  # (row, column) -> a rich style

    def add_column(self, header: str, justify: str = "right", detail: bool = False) -> None:
        self.columns.append(Column(header, justify, detail))

    def without_detail(self) -> "Grid":
        """The table without its detail columns (the default view within 80 columns); its note
        says which columns --detail adds."""
        keep = [i for i, c in enumerate(self.columns) if not c.detail]
        if len(keep) == len(self.columns):
            return self
        left_out = ", ".join(c.header.replace("\n", " ") for c in self.columns if c.detail)
        where = {old: new for new, old in enumerate(keep)}
        return Grid([self.columns[i] for i in keep], [[r[i] for i in keep] for r in self.rows], self.heading,
                    f"{self.note}; --detail adds: {left_out}" if self.note else f"--detail adds: {left_out}",
                    list(self.caveats), self.box, self.padding, self.pad_edge,
                    {(r, where[c]): s for (r, c), s in self.styles.items() if c in where})

    def add_row(self, *cells: str, styles: dict[int, str] | None = None) -> None:
        """One row; ``styles``: column index -> the rich style of that cell on a colour terminal."""
        if len(cells) != len(self.columns):
            raise ValueError(f"{len(cells)} cells for {len(self.columns)} columns")
        for column, style in (styles or {}).items():
            self.styles[(len(self.rows), column)] = style
        self.rows.append([str(c) for c in cells])

    @property
    def row_count(self) -> int:
        return len(self.rows)

    def _pieces(self) -> Iterator[list[tuple[str, str | None]]]:
        """The table's lines, each as (text, style) pieces."""
        box = _BOXES[self.box]
        headers = [c.header.split("\n") for c in self.columns]
        height = max((len(h) for h in headers), default=1)
        headers = [[""] * (height - len(h)) + h for h in headers]  # bottom-aligned
        # each cell measured once (its width, then its fill); printable ASCII is as wide as it is long
        # (a control character is not: rich counts it 0 cells)
        lens = [[len(x) if x.isascii() and x.isprintable() else cell_len(x) for x in r] for r in self.rows]
        head_lens = [[len(x) if x.isascii() and x.isprintable() else cell_len(x) for x in h] for h in headers]
        widths = [max(hl + [r[i] for r in lens]) for i, hl in enumerate(head_lens)]
        last = len(widths) - 1
        pads = [(" " * (0 if i == 0 and not self.pad_edge else self.padding[0]),
                 " " * (0 if i == last and not self.pad_edge else self.padding[1])) for i in range(len(widths))]
        spans = [len(p[0]) + w + len(p[1]) for p, w in zip(pads, widths)]

        def line(kind: str) -> list[tuple[str, str | None]] | None:
            chars = box[kind]
            if chars is None:
                return None
            left, mid, right, fill = chars
            return [(left + mid.join(fill * s for s in spans) + right, None)]

        def cells(texts: list[str], text_lens: list[int], styles: list[str | None],
                  kind: str) -> list[tuple[str, str | None]]:
            left, mid, right = box[kind]
            out: list[tuple[str, str | None]] = [(left, None)] if left else []
            for i, (text, width, column, (pad_left, pad_right)) in enumerate(zip(texts, widths, self.columns, pads)):
                fill = " " * (width - text_lens[i])
                if column.justify == "right":
                    out += [(pad_left + fill, None), (text, styles[i])]
                else:
                    out += [(pad_left, None), (text, styles[i]), (fill, None)]
                out.append((pad_right + (mid if i < last else right), None))
            return out

        if (top := line("top")) is not None:
            yield top
        for k in range(height):
            yield cells([h[k] for h in headers], [hl[k] for hl in head_lens], [HEADER_STYLE] * len(widths), "head")
        if (rule := line("rule")) is not None:
            yield rule
        styles = self.styles
        for n, (r, row_lens) in enumerate(zip(self.rows, lens)):
            row_styles = [styles.get((n, i)) for i in range(len(widths))] if styles else [None] * len(widths)
            yield cells(r, row_lens, row_styles, "row")
        if (bottom := line("bottom")) is not None:
            yield bottom

    def lines(self) -> list[str]:
        """The table as lines of plain text."""
        return ["".join(text for text, _ in pieces) for pieces in self._pieces()]

    def text(self) -> str:
        return "\n".join(self.lines())

    @property
    def width(self) -> int:
        """Cells of the widest line."""
        return max((cell_len(x) for x in self.lines()), default=0)

    def styled(self) -> Text:
        """The table as rich ``Text``: bold headers and the cells' styles."""
        out = Text()
        for n, pieces in enumerate(self._pieces()):
            if n:
                out.append("\n")
            for text, style in pieces:
                out.append(text, style)
        return out


def render(console: Console, grid: Grid, centred_heading: bool = False) -> None:
    """The heading (bold; ``centred_heading``: over the table), the table, the note (dim) and the
    caveats of ``grid``. Off a colour terminal every line is plain text."""
    if grid.heading:
        heading = safe(grid.heading)
        if centred_heading:
            heading = " " * max(0, (grid.width - cell_len(grid.heading)) // 2) + heading
        console.print(f"[bold]{heading}[/]")
    if console.color_system is None:
        console.print(grid.text(), markup=False, highlight=False, soft_wrap=True)
    else:
        console.print(grid.styled(), highlight=False, soft_wrap=True)
    if grid.note:
        console.print(safe(grid.note), style="dim")
    for c in grid.caveats:
        console.print(f"[yellow]![/] {safe(c)}")
