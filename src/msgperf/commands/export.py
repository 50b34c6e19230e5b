"""``msgperf export RUN --format json|csv|parquet``: one run, raw samples and metadata."""

from __future__ import annotations

import sys

import click

from msgperf.present.export import FORMATS, export_run
from msgperf.store.resolve import resolve_run_ref


@click.command("export")
@click.argument("run", metavar="RUN")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="json", show_default=True,
              help="json: metadata + raw samples (msgperf import reads it back); csv/parquet: one "
                   "row per sample (columns in docs/store.md); run: a run file.")
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="Output file (default: standard output; required for parquet).")
@click.option("--db", type=click.Path(dir_okay=False), help="Database file (default: the user's store).")
def command(run: str, fmt: str, output: str | None, db: str | None) -> None:
    """Export RUN (a stored run's id, or a run file) with its raw samples."""
    loaded, row = resolve_run_ref(run, db)
    written = export_run(loaded, row, fmt, output, stdout=sys.stdout)
    if written:
        click.echo(f"wrote {written}", err=True)
