"""``msgperf runs``: list the stored runs, with filters."""

from __future__ import annotations

import sys

import click

from msgperf.commands._options import db_option
from msgperf.present.runs_table import nothing_stored, render_listing
from msgperf.present.terminal import console
from msgperf.store.db import NoStoreError, open_store
from msgperf.store.listing import RunFilter, parse_since

DEFAULT_LIMIT = 50  # newest runs listed without --all: a screenful, however long the history


@click.command("runs")
@db_option
@click.option("--host", help="Only runs with a host containing this text.")
@click.option("--mpi", help="Only runs whose MPI library/version contains this text.")
@click.option("--pattern", help="Only runs that measured this pattern (a glob such as 'osu-*' works).")
@click.option("--since", help="Only runs from this date/time (2026-11-01, 2026-11-01T12:00) or age (7d, 12h).")
@click.option("--label", help="Only runs whose label contains this text.")
@click.option("--source", type=click.Choice(["msgperf", "osu", "imb", "netpipe", "profile"]),
              help="Only runs measured by msgperf or imported from this tool; 'profile': only the "
              "applications' profiles (msgperf profile).")
@click.option("--limit", type=click.IntRange(min=1), default=DEFAULT_LIMIT, show_default=True,
              help="List only the newest N matching runs (and profiles); a last line says how many more match.")
@click.option("--all", "list_all", is_flag=True, help="List every matching run (no --limit).")
def command(db: str | None, host: str | None, mpi: str | None, pattern: str | None,
            since: str | None, label: str | None, source: str | None, limit: int, list_all: bool) -> None:
    """List the stored runs (id, time, hosts, machine, MPI, patterns, sizes, placement, label), the
    newest 50 unless --limit or --all."""
    filters = RunFilter(host=host, mpi=mpi, pattern=pattern, label=label,
                        source=None if source == "profile" else source,
                        since=parse_since(since) if since else None)
    newest = None if list_all else limit
    try:
        with open_store(db, create=False) as store:
            rows, total = store.find_runs(filters, newest) if source != "profile" else ([], 0)
            # a profile has hosts, an MPI, a label and a time, which is all these filters read
            profiles = ([p for p in store.list_profiles() if filters.matches(p)]
                        if source in (None, "profile") and pattern is None else [])
            path = store.path
    except NoStoreError as exc:
        click.echo(f"no stored runs: {exc}")
        return
    all_profiles = len(profiles)
    if newest is not None:
        profiles = profiles[max(0, len(profiles) - newest):]
    if not rows and not profiles:
        click.echo(nothing_stored(path, any(v is not None for v in (host, mpi, pattern, since, label, source))))
        return
    render_listing(console(width=None if sys.stdout.isatty() else 200), rows, total - len(rows),
                   profiles, all_profiles - len(profiles))
