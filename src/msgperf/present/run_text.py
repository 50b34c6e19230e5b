"""A whole run in the terminal, as ``show`` and ``run`` print it: the answer block first
(present/answer_text.py), then the tables of the sweep's own sizes (and the refinement's sizes
that carry a switch), then the side-by-side comparisons; with ``detail`` the fine print too:
the machine and each launch's conditions, every column, the first messages, every series'
model and caveats. Rendering only: everything comes from one ``RunResult``."""

from __future__ import annotations

from rich.console import Console

from msgperf.analysis.result import RunResult
from msgperf.present.answer_text import render_answer
from msgperf.present.model_text import render_models
from msgperf.present.pattern_tables import render_pattern_tables
from msgperf.present.run_tables import heading, render_machine, render_row_tables


def render_run(console: Console, result: RunResult, brief: bool = False, detail: bool = False,
               all_sizes: bool = False) -> None:
    """``brief``: the answer block only; ``detail``: everything; ``all_sizes``: every size the
    run measured in the tables (detail implies it)."""
    render_answer(console, result, heading(result.source), whole=detail)
    if brief:
        return
    console.print()
    if detail:
        render_machine(console, result)
    render_row_tables(console, result, detail=detail, all_sizes=all_sizes or detail)
    render_pattern_tables(console, result, detail=detail)
    if detail:
        render_models(console, result, per_size=False)
