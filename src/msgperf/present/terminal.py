"""The one way msgperf makes a rich Console: as wide as the terminal on a terminal, else
``COLUMNS`` or 120 columns (piped output wraps the same way in every command), no automatic
highlighting of numbers (colour is chosen, never guessed), markup only in msgperf's own text
(strings from files go through ``present.text.safe``)."""

from __future__ import annotations

import os

from rich.console import Console

PIPE_WIDTH = 120


def console(stderr: bool = False, quiet: bool = False, record: bool = False, file=None,
            width: int | None = None) -> Console:
    probe = Console(stderr=stderr, file=file)
    if width is None and not probe.is_terminal:
        try:
            width = int(os.environ.get("COLUMNS", "")) or PIPE_WIDTH
        except ValueError:
            width = PIPE_WIDTH
    return Console(stderr=stderr, quiet=quiet, width=width, highlight=False, record=record, file=file,
                   color_system=None if file is not None else "auto")
