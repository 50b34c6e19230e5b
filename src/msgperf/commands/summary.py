"""msgperf summary RUN...: Saphir's Table 1 (Saphir 1994), one row per run and placement: zero-byte
and asymptotic latency, peak and asymptotic bandwidth, copy speed, effective buffered bandwidth,
eager limit, n½ and the ratio to the hardware floor — the same values show and fit print."""

from __future__ import annotations

import click
import msgspec

from msgperf.commands._options import db_option


@click.command("summary")
@click.argument("runs", nargs=-1, required=True, metavar="RUN...")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per row (seconds, bytes, bytes/s; null: absent).")
@db_option
def command(runs: tuple[str, ...], as_json: bool, db: str | None) -> None:
    """Compare RUNs (run files, exports, other tools' outputs, or stored run ids) in one table."""
    from msgperf.loader import load_analyzed
    from msgperf.present.json_view import dumps, saphir_dict
    from msgperf.present.saphir_table import render_saphir
    from msgperf.present.terminal import console

    rows = [msgspec.structs.replace(row, run=arg) for arg in runs for row in load_analyzed(arg, db)[1].saphir]
    if as_json:
        click.echo(dumps([saphir_dict(r) for r in rows]))
        return
    render_saphir(console(), rows)
