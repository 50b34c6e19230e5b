"""The one way msgperf makes a rich Console: as wide as the terminal on a terminal, else
``COLUMNS`` or 120 columns (piped output wraps the same way in every command), no automatic
highlighting of numbers (colour is chosen, never guessed), markup only in msgperf's own text
(strings from files go through ``present.text.safe``)."""

from __future__ import annotations

import os

from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment

PIPE_WIDTH = 120
PIPE_HEIGHT = 25  # fixed, so rich stops asking the terminal; nothing msgperf prints reads it
_PLAIN_OPTIONS = frozenset({"markup", "style", "soft_wrap", "highlight"})


class PlainConsole(Console):
    """A Console that writes no colour and records nothing (a pipe, a file): a line of text that
    fits the width is written as rich would write it, without rich's per-line layout (which
    re-measures and re-wraps every line: two thirds of ``show``'s rendering time on a run of
    every pattern, bench/RESULTS.md §5d). Anything else (a table, a line to wrap, a tab or
    control character) goes through rich unchanged."""

    def print(self, *objects, **options) -> None:  # noqa: A003 - rich's name
        if (len(objects) != 1 or not isinstance(objects[0], str) or not options.keys() <= _PLAIN_OPTIONS
                or self.color_system is not None or self.record or self._render_hooks):
            return super().print(*objects, **options)
        text = self.render_str(objects[0], markup=options.get("markup"), highlight=False).plain
        lines = text.split("\n")
        width = self.width
        # characters as well as cells: rich strips trailing spaces past ``width`` characters, and
        # zero-width characters (combining accents) make a line longer in characters than in cells
        if not all(line.isprintable() and len(line) <= width and (line.isascii() or cell_len(line) <= width)
                   for line in lines):
            return super().print(*objects, **options)
        with self:
            self._buffer.append(Segment(text + "\n"))
        return None


def console(stderr: bool = False, quiet: bool = False, record: bool = False, file=None,
            width: int | None = None) -> Console:
    probe = Console(stderr=stderr, file=file)
    terminal = probe.is_terminal
    if width is None and not terminal:
        try:
            width = int(os.environ.get("COLUMNS", "")) or PIPE_WIDTH
        except ValueError:
            width = PIPE_WIDTH
    color_system = None if file is not None else "auto"
    if terminal or record:
        return Console(stderr=stderr, quiet=quiet, width=width, highlight=False, record=record, file=file,
                       color_system=color_system)
    # Off a terminal, what rich would ask the terminal on every print (its size, whether it is
    # one) is fixed here: the same output, less time per line printed.
    return PlainConsole(stderr=stderr, quiet=quiet, width=width, highlight=False, file=file,
                        color_system=color_system, force_terminal=False, height=PIPE_HEIGHT)
