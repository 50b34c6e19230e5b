"""msgperf summary RUN...: one row per run and placement, the table Saphir made by hand (seeds/002
Table 1): zero-byte and asymptotic latency, bandwidth, copy speed, effective buffered bandwidth,
eager limit, n½ and the ratio to the hardware floor."""

from __future__ import annotations

import json

import click

from msgperf.analysis.table1 import table1
from msgperf.present.summary_table import render_table1
from msgperf.present.table import terminal_console
from msgperf.store.resolve import resolve_run


@click.command("summary")
@click.argument("runs", nargs=-1, required=True, metavar="RUN...")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per row (seconds, bytes, bytes/s; null: absent).")
@click.option("--db", type=click.Path(dir_okay=False), help="Result database for run ids.")
def command(runs: tuple[str, ...], as_json: bool, db: str | None) -> None:
    """Compare RUNs (run files, exported or imported files, or stored run ids) in one table."""
    rows = [row for arg in runs for row in table1(resolve_run(arg, db), name=arg)]
    if as_json:
        click.echo(json.dumps([r.as_dict() for r in rows], indent=1))
        return
    render_table1(terminal_console(), rows)
