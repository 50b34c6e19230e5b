"""msgperf compare: is B (C, ...) slower or faster than A, size by size and parameter by
parameter, beyond what re-running produces? ``--fail-above PCT`` gates a CI pipeline with three
outcomes: exit 0 (the data show no slowdown above PCT), 3 (they show one), 4 (they cannot tell,
with a one-line reason)."""

from __future__ import annotations

import math
import sys

import click

from msgperf.commands._options import db_option
from msgperf.errors import MsgperfError

EXIT_SLOWDOWN = 3
EXIT_CANNOT_TELL = 4
MAX_FAIL_ABOVE = 1000.0  # percent: a run 11 times slower; a larger threshold gates nothing
HISTORY_RUNS = 30  # newest stored runs of the configuration read for the noise floor


def _percentage(option: str, value: float | None, upper: float) -> None:
    if value is not None and not (math.isfinite(value) and 0 <= value <= upper):
        raise MsgperfError(f"{option} {value:g}: give a percentage between 0 and {upper:g}, "
                           "e.g. 5")


def _history(runs: list, db: str | None) -> list:
    """Stored runs that may share the configuration of any compared run (newest first),
    or none when there is no database yet."""
    from msgperf.store.db import NoStoreError, StoreError, open_store

    try:
        store = open_store(db, create=False)
    except NoStoreError:
        return []
    except StoreError as exc:
        raise MsgperfError(f"{exc} (or --no-history to compare without the stored runs)") from None
    with store:
        ids: dict[int, None] = {}
        for run in runs:
            for row in store.runs_like(run, limit=HISTORY_RUNS):
                ids.setdefault(row.id)
        return [store.load_run(i) for i in ids]


@click.command("compare")
@click.argument("runs", nargs=-1, required=True, metavar="A B [C...]")
@click.option("--pattern", help="The pattern to compare (default: the first both runs have).")
@click.option("--alpha", type=float, default=0.05, show_default=True,
              help="Significance level (family-wise, Holm across sizes).")
@click.option("--min-effect", "min_effect", type=float, default=0.0, show_default=True,
              help="Changes smaller than this many percent count as within noise.")
@click.option("--fail-above", "fail_above", type=float, default=None, metavar="PCT",
              help="Gate: exit 3 when the data show a slowdown above PCT percent, 0 when they "
                   "show none, 4 when they cannot tell.")
@click.option("--no-history", "no_history", is_flag=True,
              help="Ignore stored runs of the same configuration (noise floor from the "
                   "compared runs' own launches only).")
@click.option("--json", "as_json", is_flag=True, help="The comparison as JSON.")
@db_option
def command(runs: tuple[str, ...], pattern: str | None, alpha: float, min_effect: float,
            fail_above: float | None, no_history: bool, as_json: bool, db: str | None) -> None:
    """Compare runs A B [C...] (run files or run ids): each later run against A."""
    _compare(runs, pattern, alpha, min_effect, fail_above, no_history, as_json, db)


def _compare(runs: tuple[str, ...], pattern: str | None, alpha: float, min_effect: float,
             fail_above: float | None, no_history: bool, as_json: bool, db: str | None) -> None:
    from msgperf.analysis import AnalysisError
    from msgperf.analysis.compare import CANNOT_TELL, FAIL, compare_runs, gate
    from msgperf.present.compare_table import render_comparison, render_gate
    from msgperf.present.terminal import console as terminal_console
    from msgperf.loader import load_analyzed

    if len(runs) < 2:
        raise MsgperfError("compare needs at least two runs: msgperf compare A B")
    if not 0 < alpha < 1:
        raise MsgperfError(f"--alpha {alpha:g}: give a level between 0 and 1, e.g. 0.05")
    _percentage("--fail-above", fail_above, MAX_FAIL_ABOVE)
    _percentage("--min-effect", min_effect, 100.0)
    analysed = [load_analyzed(r, db) for r in runs]  # the answers: what each run cannot tell
    loaded = [a[0].run for a in analysed]
    history = [] if no_history else _history(loaded, db)
    results = []
    for arg, run, (_, result) in zip(runs[1:], loaded[1:], analysed[1:]):
        try:
            results.append(compare_runs(loaded[0], run, pattern=pattern, alpha=alpha,
                                        min_effect=min_effect / 100, label_a=runs[0], label_b=arg,
                                        history=history, answers=(analysed[0][1].answer, result.answer)))
        except AnalysisError as exc:
            raise MsgperfError(f"{runs[0]} vs {arg}: {exc}") from exc
    threshold = None if fail_above is None else fail_above / 100
    decision = None if threshold is None else gate(results, threshold)
    if as_json:
        from msgperf.present.json_view import comparison_dict, dumps
        own = [None if threshold is None else gate([c], threshold) for c in results]  # each pair's own gate
        click.echo(dumps([comparison_dict(c, g) for c, g in zip(results, own)]))
    else:
        console = terminal_console()
        for c in results:
            render_comparison(console, c, decision)
        if decision is not None:
            render_gate(console, decision)
    if decision is None:
        return
    if decision.outcome == FAIL:
        click.echo(f"FAIL: {decision.reason}", err=True)
        sys.exit(EXIT_SLOWDOWN)
    if decision.outcome == CANNOT_TELL:
        click.echo(f"CANNOT TELL: {decision.reason}", err=True)
        sys.exit(EXIT_CANNOT_TELL)
    click.echo(f"OK: {decision.reason}", err=True)
