"""``msgperf runs``: list the stored runs, with filters."""

from __future__ import annotations

import sys

import click
from rich.console import Console
from rich.table import Table

from msgperf.commands._options import db_option
from msgperf.present.text import FIELD_LIMIT, cut, safe
from msgperf.store.db import NoStoreError, open_store
from msgperf.store.listing import RunFilter, RunRow, parse_since, parse_time
from msgperf.store.profiles import ProfileRow

_UNITS = ("B", "KiB", "MiB", "GiB", "TiB")
DEFAULT_LIMIT = 50  # newest runs listed without --all: a screenful, however long the history


def format_bytes(n: int) -> str:
    value, unit = float(n), 0
    while value >= 1024 and unit < len(_UNITS) - 1:
        value, unit = value / 1024, unit + 1
    return f"{value:.3g} {_UNITS[unit]}"


def format_sizes(sizes: tuple[int, ...]) -> str:
    if not sizes:
        return "-"
    if len(sizes) == 1:
        return format_bytes(sizes[0])
    return f"{format_bytes(sizes[0])}–{format_bytes(sizes[-1])} ({len(sizes)})"


def format_time(row: RunRow | ProfileRow) -> str:
    when = parse_time(row.start_time)
    suffix = ""
    if when is None:
        when, suffix = parse_time(row.added_at), " (added)"
    return when.astimezone().strftime("%Y-%m-%d %H:%M") + suffix if when else "-"


def format_hosts(hosts: tuple[str, ...]) -> str:
    if not hosts:
        return "-"
    shown = ", ".join(cut(h, 40) for h in hosts[:2])
    return shown + (f" +{len(hosts) - 2}" if len(hosts) > 2 else "")


def format_placement(row: RunRow) -> str:
    ranks = f"{row.nranks} ranks" if row.nranks else ""
    return ", ".join(p for p in (ranks, row.placement) if p) or "-"


def format_patterns(patterns: tuple[str, ...]) -> str:
    shown = ", ".join(patterns[:4])
    return shown + (f" +{len(patterns) - 4}" if len(patterns) > 4 else "")


def _cell(text: str) -> str:
    """A cell from the database: its text shown as text (markup, escapes), cut when long."""
    return safe(text, FIELD_LIMIT)


def runs_table(rows: list[RunRow]) -> Table:
    imported = any(r.source != "msgperf" for r in rows)
    table = Table(box=None, header_style="bold", pad_edge=False)
    for name in ("id", "time", "host(s)", "machine", "MPI", "patterns", "sizes", "placement", "label"):
        table.add_column(name, justify="right" if name == "id" else "left", overflow="fold")
    if imported:
        table.add_column("from")
    for r in rows:
        cells = [str(r.id), format_time(r), format_hosts(r.hosts), r.machine or "-", r.mpi or "-",
                 format_patterns(r.patterns), format_sizes(r.sizes), format_placement(r), r.label]
        if imported:
            cells.append(r.source)
        table.add_row(*map(_cell, cells))
    return table


def profiles_table(rows: list[ProfileRow]) -> Table:
    table = Table(box=None, header_style="bold", pad_edge=False)
    for name in ("id", "time", "host(s)", "MPI", "program", "ranks", "messages sent", "label"):
        table.add_column(name, justify="right" if name in ("id", "ranks", "messages sent") else "left",
                         overflow="fold")
    for r in rows:
        table.add_row(*map(_cell, (str(r.id), format_time(r), format_hosts(r.hosts), r.mpi or "-",
                                   " ".join(r.argv) or "-", str(r.nranks) + ("" if r.complete else " (partial)"),
                                   f"{r.messages:,}", r.label)))
    return table


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
    console = Console(width=None if sys.stdout.isatty() else 200)
    if profiles:
        if rows:
            console.print(runs_table(rows))
            _more(total - len(rows), "runs")
        console.print("profiles (msgperf profile)", style="bold")
        console.print(profiles_table(profiles))
        _more(all_profiles - len(profiles), "profiles")
        return
    if not rows:
        filtered = any(v is not None for v in (host, mpi, pattern, since, label, source))
        click.echo(f"no stored runs{' match' if filtered else ''} in {path}"
                   + ("" if filtered else " ('msgperf run' stores each run; 'msgperf import' adds files)"))
        return
    console.print(runs_table(rows))
    _more(total - len(rows), "runs")


def _more(hidden: int, what: str) -> None:
    """The line under a cut listing: how many older matches it leaves out and how to see them."""
    if hidden > 0:
        click.echo(f"{hidden:,} more {what} (older; the newest are listed): --all lists every one, "
                   "--limit N the newest N")
