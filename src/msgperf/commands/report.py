"""msgperf report: one self-contained HTML file (summary, plots, tables, caveats, combining
advice, comparisons, metadata) that can be mailed or attached to a ticket."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from msgperf.errors import MsgperfError
from msgperf.store.resolve import resolve_run


def default_report_path(run_file: str | Path) -> Path:
    """``runs/x.jsonl`` -> ``runs/x.html``."""
    return Path(run_file).with_suffix(".html")


def report_next_to(run: Any, run_file: str | Path) -> str:
    """Write the report beside the run file (the end of ``msgperf run``); never fails the run,
    whose measurements are safe in the run file already."""
    from msgperf.present.report import write_report

    path = default_report_path(run_file)
    try:
        write_report([run], path)
    except Exception as exc:  # noqa: BLE001 - a report problem must not lose a measurement
        return f"note: no report written ({type(exc).__name__}: {exc}); try: msgperf report {run_file}"
    return f"report: {path}"


@click.command("report")
@click.argument("runs", nargs=-1, required=True, metavar="RUN...")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="HTML file to write (default: beside the first run file, or report.html).")
@click.option("--title", default=None, help="Heading of the report.")
@click.option("--alpha", type=float, default=0.05, show_default=True,
              help="Significance level of the comparisons (several runs).")
@click.option("--db", type=click.Path(dir_okay=False), help="Result database for run ids.")
def command(runs: tuple[str, ...], output: Path | None, title: str | None, alpha: float,
            db: str | None) -> None:
    """Write a self-contained HTML report of RUN... (run files or run ids); several runs are
    overlaid and compared against the first."""
    from msgperf.present.report import write_report

    if not 0 < alpha < 1:
        raise MsgperfError(f"--alpha {alpha}: give a level between 0 and 1, e.g. 0.05")
    loaded = [resolve_run(r, db) for r in runs]
    if output is None:
        first = Path(runs[0])
        output = default_report_path(first) if first.is_file() and len(runs) == 1 else Path("report.html")
    if output.suffix.lower() not in (".html", ".htm"):
        raise MsgperfError(f"{output}: the report is HTML; name it something.html")
    path = write_report(loaded, output, title=title, alpha=alpha)
    click.echo(f"report: {path}")
