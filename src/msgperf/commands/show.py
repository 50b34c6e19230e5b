"""msgperf show: the tables of a run file, without re-running anything."""

from __future__ import annotations

import json

import click
from rich.console import Console

from msgperf.analysis.rows import size_rows
from msgperf.present.table import render_rows, terminal_console, rows_as_json
from msgperf.records.read import read_run


@click.command("show")
@click.argument("run_file")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per measurement.")
def command(run_file: str, as_json: bool) -> None:
    """Show the results of RUN_FILE."""
    result = read_run(run_file)
    run = result.run
    rows = size_rows(run)
    err = Console(stderr=True)
    if result.truncated:
        err.print("note: the run file ends with a partial record (the job was killed); it is ignored")
    missing = run.missing()
    if run.info.source == "msgperf" and (missing or not run.launches[-1].finished):
        err.print(f"note: incomplete run ({len(missing)} planned measurement(s) missing); "
                  f"continue with: msgperf run --resume {run_file}", markup=False)
    if as_json:
        click.echo(json.dumps(rows_as_json(rows), indent=1))
        return
    render_rows(terminal_console(), run, rows)
