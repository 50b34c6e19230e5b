"""msgperf show: the tables of a run file, without re-running anything."""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich.console import Console

from msgperf.analysis.rows import size_rows
from msgperf.present.analysis_text import render_analysis
from msgperf.present.text import printable
from msgperf.present.table import render_rows, terminal_console, rows_as_json
from msgperf.records.read import read_run
from msgperf.store.resolve import resolve_run


def is_run_file(arg: str) -> bool:
    """An existing file that starts like a msgperf run file (other files go to resolve_run)."""
    path = Path(arg)
    try:
        with path.open("rb") as f:
            return path.is_file() and f.read(64).lstrip().startswith(b'{"type":"run"')
    except OSError:
        return False


@click.command("show")
@click.argument("run_file", metavar="RUN")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per measurement.")
@click.option("--db", type=click.Path(dir_okay=False), help="Result database for run ids.")
@click.option("--brief", is_flag=True, help="Only the tables, without the model and caveats.")
def command(run_file: str, as_json: bool, db: str | None, brief: bool) -> None:
    """Show the results of RUN: a run file, an exported or imported file, or a stored run id."""
    err = Console(stderr=True)
    if is_run_file(run_file):
        result = read_run(run_file)
        if result.truncated:
            err.print("note: the run file ends with a partial record (the job was killed); it is ignored")
        run = result.run
    else:
        run = resolve_run(run_file, db)
    rows = size_rows(run)
    for launch in run.launches:
        if launch.aborted:
            err.print(f"note: launch {launch.index} was stopped: {printable(launch.aborted)}", markup=False)
    missing = run.missing()
    if run.info.source == "msgperf" and (missing or not run.launches[-1].finished):
        err.print(f"note: incomplete run ({len(missing)} planned measurement(s) missing); "
                  f"continue with: msgperf run --resume {run_file}", markup=False)
    if as_json:
        click.echo(json.dumps(rows_as_json(rows), indent=1))
        return
    console = terminal_console()
    render_rows(console, run, rows)
    if not brief:
        render_analysis(console, run, per_size=False)
