"""msgperf compare: is B (C, ...) slower or faster than A, size by size and parameter by
parameter, beyond the noise? ``--fail-above PCT`` gates a CI pipeline (exit status 3)."""

from __future__ import annotations

import json
import sys

import click

from msgperf.errors import MsgperfError
from msgperf.store.resolve import resolve_run

EXIT_SLOWDOWN = 3


@click.command("compare")
@click.argument("runs", nargs=-1, required=True, metavar="A B [C...]")
@click.option("--pattern", help="The pattern to compare (default: the first both runs have).")
@click.option("--alpha", type=float, default=0.05, show_default=True,
              help="Significance level (family-wise, Holm across sizes).")
@click.option("--min-effect", "min_effect", type=float, default=0.0, show_default=True,
              help="Changes smaller than this many percent count as within noise.")
@click.option("--fail-above", "fail_above", type=float, default=None, metavar="PCT",
              help="Exit with status 3 when any significant slowdown exceeds PCT percent.")
@click.option("--json", "as_json", is_flag=True, help="The comparison as JSON.")
@click.option("--db", type=click.Path(dir_okay=False), help="Result database for run ids.")
def command(runs: tuple[str, ...], pattern: str | None, alpha: float, min_effect: float,
            fail_above: float | None, as_json: bool, db: str | None) -> None:
    """Compare runs A B [C...] (run files or run ids): each later run against A."""
    from msgperf.analysis import AnalysisError
    from msgperf.analysis.compare import compare_runs, comparison_to_dict
    from msgperf.present.compare_table import render_comparison
    from msgperf.present.table import terminal_console

    if len(runs) < 2:
        raise MsgperfError("compare needs at least two runs: msgperf compare A B")
    if not 0 < alpha < 1:
        raise MsgperfError(f"--alpha {alpha}: give a level between 0 and 1, e.g. 0.05")
    if fail_above is not None and fail_above < 0:
        raise MsgperfError(f"--fail-above {fail_above}: give a percentage >= 0")
    loaded = [resolve_run(r, db) for r in runs]
    results = []
    for arg, run in zip(runs[1:], loaded[1:]):
        try:
            results.append(compare_runs(loaded[0], run, pattern=pattern, alpha=alpha,
                                        min_effect=min_effect / 100, label_a=runs[0], label_b=arg))
        except AnalysisError as exc:
            raise MsgperfError(f"{runs[0]} vs {arg}: {exc}") from exc
    if as_json:
        click.echo(json.dumps([comparison_to_dict(c) for c in results], indent=1))
    else:
        console = terminal_console()
        for c in results:
            render_comparison(console, c)
    if fail_above is not None:
        failing = [(c.label_b, item) for c in results for item in c.slowdowns_above(fail_above / 100)]
        if failing:
            click.echo(f"FAIL: significant slowdown above {fail_above:g} %: "
                       + "; ".join(f"{label} {item}" for label, item in failing), err=True)
            sys.exit(EXIT_SLOWDOWN)
        click.echo(f"OK: no significant slowdown above {fail_above:g} %", err=True)
