"""msgperf fit RUN: the Hockney and piecewise model of one series of a run."""

from __future__ import annotations

import click

from msgperf.analysis.model import TOLERANCE
from msgperf.commands._options import db_option
from msgperf.errors import MsgperfError
from msgperf.plan import PAIR_PLACEMENTS


def series_options(f):
    """--pattern, --variant, --placement, --launch: which series of the run (fit, advise)."""
    for option in reversed((
            click.option("--pattern", help="Pattern to model (default: the ping-pong, else the run's main series)."),
            click.option("--variant", help="Variant of the pattern (default: its first), e.g. late."),
            click.option("--placement", type=click.Choice(PAIR_PLACEMENTS),
                         help="With --placement both runs: the intra- or inter-node pair (default: intra)."),
            click.option("--launch", type=int, help="One launch only (default: all launches pooled)."),
            db_option)):
        f = option(f)
    return f


def load_series(run_arg: str, db, pattern, variant, placement, launch, tolerance=TOLERANCE):
    """options -> load -> analyze once -> (result, the chosen series)."""
    from msgperf.loader import load_analyzed
    from msgperf.present.terminal import console
    from msgperf.data_text import printable

    loaded, result = load_analyzed(run_arg, db, launch=launch, tolerance=tolerance)
    err = console(stderr=True)
    for note in loaded.notes:
        err.print(f"note: {printable(note)}", markup=False, soft_wrap=True)
    series = result.find(pattern, variant, placement)
    if series.model is None:
        raise MsgperfError(f"{series.name}: not modelled — {series.not_modelled}")
    return result, series


@click.command("fit")
@click.argument("run", metavar="RUN")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
@series_options
@click.option("--tolerance", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=TOLERANCE, show_default=True,
              help="Relative misfit below which one line is enough (no breakpoint).")
def command(run: str, as_json: bool, pattern: str | None, variant: str | None, placement: str | None,
            launch: int | None, db: str | None, tolerance: float) -> None:
    """Fit T(b) = α + β·b and its piecewise refinement to one series of RUN.

    RUN is a run file, a stored run id, another tool's output (OSU, IMB, NetPIPE), or a text file
    with two columns per line, bytes and seconds (whitespace or comma separated, '#' comments, a
    size may repeat). The ping-pong is modelled unless --pattern names another series; the heading
    says which series and what its times are.
    """
    _fit(run, as_json, pattern, variant, placement, launch, db, tolerance)


def _fit(run: str, as_json: bool, pattern: str | None, variant: str | None, placement: str | None,
         launch: int | None, db: str | None, tolerance: float) -> None:
    from msgperf.present.json_view import dumps, series_dict
    from msgperf.present.model_text import render_series
    from msgperf.present.terminal import console

    result, series = load_series(run, db, pattern, variant, placement, launch, tolerance)
    if as_json:
        click.echo(dumps(series_dict(series, result.answer), indent=2))
    else:
        render_series(console(), series, result)
