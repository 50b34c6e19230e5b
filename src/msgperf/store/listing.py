"""What ``msgperf runs`` shows of a run, and the filters it takes.

``listing_of`` turns a run's metadata into the listing fields the store keeps next to it
(hosts, MPI, patterns, sizes, placement, machine), so listing never decodes a whole run.
"""

from __future__ import annotations

import fnmatch
import re
from datetime import datetime, timedelta, timezone
from typing import Iterable, Sequence

from msgperf.errors import MsgperfError
from msgperf.plan import PLACEMENT_WORDS
from msgperf.records.format import Launch, RunInfo
from msgperf.records.machine_name import machine_name
from msgperf.records.mpi_name import mpi_name  # noqa: F401 (re-exported: listings use it)
from msgperf.records.pattern_names import pattern_name
from msgperf.values import Value


class Listing(Value):
    """The listing fields of one run (schema version 2 columns)."""

    hosts: tuple[str, ...]
    mpi: str
    patterns: tuple[str, ...]
    sizes: tuple[int, ...]
    nranks: int
    placement: str  # "intra-node", "inter-node", "intra- and inter-node" (--placement both), "mixed"
    # (launches that differ) or "" when unknown (imported summaries)
    n_measurements: int
    machine: str = ""  # CPU and cores (schema version 6); "" when the run recorded none


class RunRow(Value):
    """One stored run, as ``Store.list_runs`` returns it."""

    id: int
    start_time: str  # as the run states it; "" when the tool printed none
    added_at: str  # UTC, when the store received it
    source: str  # "msgperf", "osu", "imb", "netpipe"
    label: str
    source_path: str
    hosts: tuple[str, ...]
    mpi: str
    patterns: tuple[str, ...]
    sizes: tuple[int, ...]
    nranks: int
    placement: str
    n_measurements: int
    machine: str = ""  # "Intel Xeon Gold 6248, 20 cores"; "" when the run recorded none

    @property
    def time(self) -> datetime | None:
        """When the run started, else when it was stored (aware, UTC)."""
        return parse_time(self.start_time) or parse_time(self.added_at)


class RunFilter(Value):
    """``msgperf runs`` filters; ``None`` matches everything."""

    host: str | None = None  # substring of any host, case-insensitive
    mpi: str | None = None  # substring of the MPI library and version, case-insensitive
    pattern: str | None = None  # a pattern name or a glob (osu-*)
    since: datetime | None = None  # runs that started (or were stored) at or after this
    label: str | None = None  # substring of the label, case-insensitive
    source: str | None = None  # exact: msgperf, osu, imb, netpipe

    def matches(self, row: RunRow) -> bool:
        if self.host and not any(self.host.lower() in h.lower() for h in row.hosts):
            return False
        if self.mpi and self.mpi.lower() not in row.mpi.lower():
            return False
        if self.pattern and not any(fnmatch.fnmatchcase(p, pattern_name(self.pattern)) for p in row.patterns):
            return False
        if self.label and self.label.lower() not in row.label.lower():
            return False
        if self.source and row.source != self.source:
            return False
        if self.since is not None:
            when = row.time
            if when is None or when < self.since:
                return False
        return True


def listing_of(info: RunInfo, launches: Sequence[Launch],
              measured: Iterable[tuple[str, int]]) -> Listing:
    """Listing fields from a run's metadata and its measured (pattern, bytes) pairs."""
    measured = list(measured)
    hosts = tuple(dict.fromkeys(h for launch in launches for h in launch.hosts))
    mpi = "; ".join(dict.fromkeys(mpi_name(launch) for launch in launches))
    shared = {launch.pair_shares_node for launch in launches}
    placement = ("" if not shared else "mixed" if len(shared) > 1
                 else PLACEMENT_WORDS["intra" if shared.pop() else "inter"])
    if info.plan.placement == "both":  # a pair on a node and a pair across: the launch names only the first
        placement = PLACEMENT_WORDS["both"]
    nranks = max((launch.nranks for launch in launches), default=info.plan.nranks)
    return Listing(hosts=hosts, mpi=mpi, patterns=tuple(dict.fromkeys(p for p, _ in measured)),
                   sizes=tuple(sorted({b for _, b in measured})), nranks=nranks,
                   placement=placement, n_measurements=len(measured),
                   machine=machine_of(launches))


def machine_of(launches: Sequence[Launch]) -> str:
    """The listing's machine: each launch's CPU and cores, each distinct one once."""
    return "; ".join(dict.fromkeys(n for n in map(machine_name, launches) if n))


def parse_time(text: str) -> datetime | None:
    """An ISO 8601 time as an aware UTC datetime (a naive one is local time); None if unreadable."""
    if not text:
        return None
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if value.tzinfo is None:
        value = value.astimezone()  # naive: the local time of this machine
    return value.astimezone(timezone.utc)


_RELATIVE = re.compile(r"(\d+)\s*([mhdw])\Z")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_since(text: str, now: datetime | None = None) -> datetime:
    """``--since``: a date or time (2026-11-01, 2026-11-01T12:00) or an age (30m, 12h, 7d, 2w)."""
    relative = _RELATIVE.match(text.strip().lower())
    if relative:
        now = now or datetime.now(timezone.utc)
        return now - timedelta(**{_UNITS[relative.group(2)]: int(relative.group(1))})
    value = parse_time(text)
    if value is None:
        raise MsgperfError(f"--since {text!r}: expected a date (2026-11-01), a time "
                           "(2026-11-01T12:00) or an age (30m, 12h, 7d, 2w)")
    return value
