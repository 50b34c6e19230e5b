"""A whole run in the terminal, as ``show`` and ``run`` print it: the tables of every pattern,
the side-by-side comparisons, and (unless brief) every series' model and caveats. Rendering
only: everything comes from one ``RunResult``."""

from __future__ import annotations

from rich.console import Console

from msgperf.analysis.result import RunResult
from msgperf.present.model_text import render_models
from msgperf.present.pattern_tables import render_pattern_tables
from msgperf.present.run_tables import render_tables


def render_run(console: Console, result: RunResult, brief: bool = False) -> None:
    render_tables(console, result)
    render_pattern_tables(console, result)
    if not brief:
        render_models(console, result, per_size=False)
