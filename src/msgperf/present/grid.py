"""A table of text cells drawn in the terminal with the box characters rich uses, a hundred times
faster than rich's ``Table``: ``show`` of a run with every pattern prints some forty tables, and
rich's per-cell layout (about 10 ms a table here) alone would take longer than re-reading a run
may (docs/libraries.md). Cells are plain text: never wrapped, never markup. The same ``Grid`` is
rendered as an HTML table by the report, so the terminal and the report show one table.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.cells import cell_len


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

    def add_column(self, header: str, justify: str = "right", detail: bool = False) -> None:
        self.columns.append(Column(header, justify, detail))

    def without_detail(self) -> "Grid":
        """The table without its detail columns (the default view within 80 columns); its note
        says which columns --detail adds."""
        keep = [i for i, c in enumerate(self.columns) if not c.detail]
        if len(keep) == len(self.columns):
            return self
        left_out = ", ".join(c.header.replace("\n", " ") for c in self.columns if c.detail)
        return Grid([self.columns[i] for i in keep], [[r[i] for i in keep] for r in self.rows], self.heading,
                    f"{self.note}; --detail adds: {left_out}" if self.note else f"--detail adds: {left_out}",
                    list(self.caveats))

    def add_row(self, *cells: str) -> None:
        if len(cells) != len(self.columns):
            raise ValueError(f"{len(cells)} cells for {len(self.columns)} columns")
        self.rows.append([str(c) for c in cells])

    @property
    def row_count(self) -> int:
        return len(self.rows)

    def lines(self) -> list[str]:
        """The table as lines of text (rich's heavy-head box)."""
        headers = [c.header.split("\n") for c in self.columns]
        height = max((len(h) for h in headers), default=1)
        headers = [[""] * (height - len(h)) + h for h in headers]  # bottom-aligned
        widths = [max([cell_len(x) for x in h] + [cell_len(r[i]) for r in self.rows])
                  for i, h in enumerate(headers)]

        def cell(text: str, width: int, justify: str) -> str:
            pad = " " * (width - cell_len(text))
            return f" {pad}{text} " if justify == "right" else f" {text}{pad} "

        def line(left: str, mid: str, right: str, fill: str) -> str:
            return left + mid.join(fill * (w + 2) for w in widths) + right

        out = [line("┏", "┳", "┓", "━")]
        for k in range(height):
            out.append("┃" + "┃".join(cell(h[k], w, c.justify)
                                      for h, w, c in zip(headers, widths, self.columns)) + "┃")
        out.append(line("┡", "╇", "┩", "━"))
        for r in self.rows:
            out.append("│" + "│".join(cell(x, w, c.justify) for x, w, c in zip(r, widths, self.columns)) + "│")
        out.append(line("└", "┴", "┘", "─"))
        return out

    def text(self) -> str:
        return "\n".join(self.lines())
