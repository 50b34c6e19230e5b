"""``msgperf runs`` in the terminal: the stored runs and profiles as tables, and the line under a
listing cut to the newest. Rendering only: every value is a column of the store's listing
(store/listing.py, store/profiles.py)."""

from __future__ import annotations

from rich.console import Console

from msgperf.present.grid import Grid, render
from msgperf.data_text import FIELD_LIMIT, cut, printable
from msgperf.store.listing import RunRow, parse_time
from msgperf.store.profiles import ProfileRow

_UNITS = ("B", "KiB", "MiB", "GiB", "TiB")


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
    """A cell from the database: its text shown as text (escapes shown, not obeyed), cut when long."""
    return printable(text, FIELD_LIMIT)


def runs_table(rows: list[RunRow]) -> Grid:
    imported = any(r.source != "msgperf" for r in rows)
    table = Grid(box="none", pad_edge=False)
    for name in ("id", "time", "host(s)", "machine", "MPI", "patterns", "sizes", "placement", "label"):
        table.add_column(name, justify="right" if name == "id" else "left")
    if imported:
        table.add_column("from", justify="left")
    for r in rows:
        cells = [str(r.id), format_time(r), format_hosts(r.hosts), r.machine or "-", r.mpi or "-",
                 format_patterns(r.patterns), format_sizes(r.sizes), format_placement(r), r.label]
        if imported:
            cells.append(r.source)
        table.add_row(*map(_cell, cells))
    return table


def profiles_table(rows: list[ProfileRow]) -> Grid:
    table = Grid(box="none", pad_edge=False)
    for name in ("id", "time", "host(s)", "MPI", "program", "ranks", "messages sent", "label"):
        table.add_column(name, justify="right" if name in ("id", "ranks", "messages sent") else "left")
    for r in rows:
        table.add_row(*map(_cell, (str(r.id), format_time(r), format_hosts(r.hosts), r.mpi or "-",
                                   " ".join(r.argv) or "-", str(r.nranks) + ("" if r.complete else " (partial)"),
                                   f"{r.messages:,}", r.label)))
    return table


def render_listing(console: Console, rows: list[RunRow], hidden_runs: int, profiles: list[ProfileRow],
                   hidden_profiles: int) -> None:
    """The runs, then the profiles (when any), each with the line on how many older ones match."""
    if rows:
        render(console, runs_table(rows))
        _more(console, hidden_runs, "runs")
    if profiles:
        console.print("profiles (msgperf profile)", style="bold")
        render(console, profiles_table(profiles))
        _more(console, hidden_profiles, "profiles")


def nothing_stored(path: object, filtered: bool) -> str:
    """The line when no stored run matches."""
    return (f"no stored runs{' match' if filtered else ''} in {path}"
            + ("" if filtered else " ('msgperf run' stores each run; 'msgperf import' adds files)"))


def _more(console: Console, hidden: int, what: str) -> None:
    """The line under a cut listing: how many older matches it leaves out and how to see them."""
    if hidden > 0:
        console.print(f"{hidden:,} more {what} (older; the newest are listed): --all lists every one, "
                      "--limit N the newest N", markup=False, highlight=False)
