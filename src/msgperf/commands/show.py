"""msgperf show: the answer, the tables and (with --detail) the models of a run, without
re-running anything."""

from __future__ import annotations

import click

from msgperf.commands._options import db_option


@click.command("show")
@click.argument("run_file", metavar="RUN")
@click.option("--json", "as_json", is_flag=True,
              help='The answer block\'s figures ("answer") and one object per row of the tables ("rows").')
@db_option
@click.option("--brief", is_flag=True, help="Only the answer block (the figures, their intervals and the "
              "warnings that change them), without the tables.")
@click.option("--detail", is_flag=True, help="Everything: the machine and each launch's conditions, every column "
              "and size, the first messages, every series' model, anomalies and each caveat's explanation.")
@click.option("--all", "all_sizes", is_flag=True, help="Every size in the tables, also those a refinement "
              "added that carry no switch.")
def command(run_file: str, as_json: bool, db: str | None, brief: bool, detail: bool, all_sizes: bool) -> None:
    """Show the results of RUN: a run file, an export, another tool's output, or a stored run id.

    The output opens with the answer (latency, bandwidth, eager limit, switches, n½, with their
    intervals), then the table of the sweep's sizes; --detail adds the fine print."""
    _show(run_file, as_json, db, brief, detail, all_sizes)


def _show(run_file: str, as_json: bool, db: str | None, brief: bool, detail: bool = False,
          all_sizes: bool = False) -> None:
    from msgperf.loader import load_analyzed
    from msgperf.data_text import printable
    from msgperf.present.json_view import dumps, show_json
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
    if run.info.source == "msgperf" and (missing or not run.launches):
        err.print(f"note: incomplete run ({len(missing)} planned measurement(s) missing); "
                  f"continue with: msgperf run --resume {printable(run_file)}", markup=False, soft_wrap=True)
    elif run.info.source == "msgperf" and not run.launches[-1].finished:  # killed after its planned sizes
        err.print(f"note: launch {run.launches[-1].index} did not finish (a killed job?); every planned measurement "
                  "is here, but what that launch and any after it (the eager probe, the answer's and refinement "
                  "launches) would have added is missing", markup=False, soft_wrap=True)
    if as_json:
        click.echo(dumps(show_json(result)))
        return
    out = console()
    render_run(out, result, brief=brief, detail=detail, all_sizes=all_sizes)
    if not detail:
        out.print(MORE, highlight=False, markup=False)


# Where the rest is, in one line (show's default view and run's end)
MORE = "more: --detail (models, caveats, machine), --all (every size), msgperf summary"
