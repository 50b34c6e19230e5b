"""msgperf show: the tables and models of a run, without re-running anything."""

from __future__ import annotations

import json

import click


@click.command("show")
@click.argument("run_file", metavar="RUN")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per row of the tables.")
@click.option("--db", type=click.Path(dir_okay=False), help="Result database for run ids.")
@click.option("--brief", is_flag=True, help="Only the tables, without the models and caveats.")
def command(run_file: str, as_json: bool, db: str | None, brief: bool) -> None:
    """Show the results of RUN: a run file, an export, another tool's output, or a stored run id."""
    _show(run_file, as_json, db, brief)


def _show(run_file: str, as_json: bool, db: str | None, brief: bool) -> None:
    from msgperf.loader import load_analyzed
    from msgperf.present.text import printable
    from msgperf.present.json_view import rows_json
    from msgperf.present.run_text import render_run
    from msgperf.present.terminal import console

    loaded, result = load_analyzed(run_file, db)
    run = loaded.run
    err = console(stderr=True)
    for note in loaded.notes:
        err.print(f"note: {printable(note)}", markup=False, soft_wrap=True)
    for launch in run.launches:
        if launch.aborted:
            err.print(f"note: launch {launch.index} was stopped: {printable(launch.aborted)}", markup=False, soft_wrap=True)
    missing = run.missing()
    if run.info.source == "msgperf" and (missing or not run.launches or not run.launches[-1].finished):
        err.print(f"note: incomplete run ({len(missing)} planned measurement(s) missing); "
                  f"continue with: msgperf run --resume {printable(run_file)}", markup=False, soft_wrap=True)
    if as_json:
        click.echo(json.dumps(rows_json(result), indent=1, allow_nan=False))
        return
    render_run(console(), result, brief=brief)
