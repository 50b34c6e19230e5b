"""Where a profiled program's time inside MPI went (``msgperf profile``'s summary, like mpiP's):
per kind of call and per call (calls, bytes, time, share of the MPI time), the call sites with
the most time, and per rank the MPI time split so that the parts add up to it: the kinds
measured, and of them the time spent waiting for a slower rank (load imbalance, measured,
attributed to the rank waited for). Pure: the file:line of each site comes from the command,
which asks the debug information (records/call_sites.py).

Waiting for a slower rank (``lockstep_waiting``, the one definition: the accounting shows it and
``advise --profile`` adds it to its prediction): ranks that communicate every step move in
lockstep, so a rank that spends less time outside MPI than the one that spends most waits the
difference inside MPI, max_p(wall_p − mpi_p) − (wall_r − mpi_r), never more than its own time
inside MPI. The ranks taken: every rank that finished and spent time inside MPI (a collective
binds the ranks as an exchange does); the waiting is told only when their times from MPI_Init to
MPI_Finalize agree within ``LOCKSTEP``, else "cannot tell"."""

from __future__ import annotations

import math
from typing import Any, Mapping

from msgperf.records.profile_format import CALL_KINDS
from msgperf.values import Value

LOCKSTEP = 0.05  # ranks whose MPI_Init-to-MPI_Finalize times agree this closely move in lockstep

TOP_SITES = 10
POINT_TO_POINT_KINDS = ("point-to-point", "wait/test")


def slowest_wall_s(ranks: Any) -> float:
    """The slowest rank's MPI_Init to MPI_Finalize (each item has ``wall_s``): the program's time."""
    return max((r.wall_s for r in ranks), default=0.0)


def point_to_point_time(rank: Any) -> float:
    """A rank's (records/profile_format.RankProfile) time in point-to-point calls and in waits and
    tests: what ``advise --profile``'s point-to-point model is held against. A version 1 or 2
    profile timed nothing else, so it is the rank's whole time inside MPI there, as it is for a
    rank that made no other call."""
    if all(c.kind in POINT_TO_POINT_KINDS for c in rank.calls):
        return rank.mpi_time_s
    return sum(c.time_s for c in rank.calls if c.kind in POINT_TO_POINT_KINDS)


class CallShare(Value):
    """One row of the table per kind or per call, summed over the ranks."""

    name: str  # a kind of CALL_KINDS, or a call ("MPI_Allreduce")
    kind: str
    calls: int
    bytes: int
    time_s: float
    share: float  # of the time inside MPI of every rank together; NaN when that is 0


class SiteShare(Value):
    """A call site, summed over the ranks that called from it."""

    call: str
    object: str | None
    offset: int
    location: str | None  # file:line from the debug information; None: cannot tell
    calls: int
    time_s: float
    share: float
    ranks: int  # how many ranks called from it


class RankSplit(Value):
    """One rank's time inside MPI, split so that ``by_kind`` adds up to ``mpi_time_s``, and the
    part of it spent waiting for a slower rank (within those kinds: where the rank blocked)."""

    rank: int
    mpi_time_s: float
    by_kind: tuple[tuple[str, float], ...]  # (kind, seconds), in CALL_KINDS order, kinds used
    waiting_s: float | None  # for a slower rank; None: cannot tell (not in lockstep, partial record)
    waits_for: int | None  # the rank that spends longest outside MPI

    def share(self, seconds: float) -> float:
        """``seconds`` as a share of this rank's time inside MPI (NaN when that is 0)."""
        return _share(seconds, self.mpi_time_s)

    @property
    def point_to_point_s(self) -> float:
        """The part the point-to-point model predicts: its calls and their waits and tests."""
        return sum(t for k, t in self.by_kind if k in POINT_TO_POINT_KINDS)


class ProfileAccounting(Value):
    mpi_time_s: float  # every rank together
    kinds: tuple[CallShare, ...]  # by time, most first
    calls: tuple[CallShare, ...]  # by time, most first
    sites: tuple[SiteShare, ...]  # the TOP_SITES with the most time
    sites_other_s: float  # the time of the sites not shown (and not kept by the profiler)
    ranks: tuple[RankSplit, ...]
    waiting_s: float | None  # every rank's waiting for a slower rank together
    notes: tuple[str, ...]
    waiting_note: str = ""  # why the waiting cannot be told ("" when it can); also among ``notes``


def _share(part: float, whole: float) -> float:
    return part / whole if whole > 0 else math.nan


def lockstep_waiting(profile: Any) -> tuple[dict[int, float], int | None, str]:
    """rank -> the time it waits inside MPI for the rank that spends longest outside MPI (module
    docstring), that rank, and why the waiting cannot be told ("" when it can; then every rank
    taken has a value, the others none)."""
    taking = [r for r in profile.ranks if r.finalized and r.mpi_time_s > 0 and math.isfinite(r.wall_s)
              and r.wall_s > 0]
    if len(taking) < 2:
        return {}, None, "one rank alone, or partial records: no waiting for a slower rank can be measured"
    longest = max(r.wall_s for r in taking)
    if any(r.wall_s < (1.0 - LOCKSTEP) * longest for r in taking):
        return {}, None, (f"the ranks' times from MPI_Init to MPI_Finalize differ by more than {LOCKSTEP:.0%}: "
                          "not in lockstep, so waiting for a slower rank cannot be told")
    outside = {r.rank: max(r.wall_s - r.mpi_time_s, 0.0) for r in taking}
    slowest_rank = max(outside, key=outside.__getitem__)
    inside = {r.rank: r.mpi_time_s for r in taking}
    return ({rank: max(min(outside[slowest_rank] - c, inside[rank]), 0.0) for rank, c in outside.items()},
            slowest_rank, "")


def account_profile(profile: Any, locations: Mapping[tuple[str | None, int], str | None] | None = None
                    ) -> ProfileAccounting:
    """The accounting of ``profile`` (records/profile_format.Profile); ``locations`` maps a
    site's (object, offset) to its file:line where the debug information tells."""
    locations = locations or {}
    total = sum(r.mpi_time_s for r in profile.ranks)
    per_call: dict[str, list] = {}
    for r in profile.ranks:
        for c in r.calls:
            row = per_call.setdefault(c.call, [c.kind, 0, 0, 0.0])
            row[1] += c.n
            row[2] += c.bytes
            row[3] += c.time_s
    calls = sorted((CallShare(name, kind, n, b, t, _share(t, total)) for name, (kind, n, b, t) in per_call.items()),
                   key=lambda c: (-c.time_s, c.name))
    per_kind: dict[str, list] = {}
    for c in calls:
        row = per_kind.setdefault(c.kind, [0, 0, 0.0])
        row[0] += c.calls
        row[1] += c.bytes
        row[2] += c.time_s
    kinds = sorted((CallShare(k, k, n, b, t, _share(t, total)) for k, (n, b, t) in per_kind.items()),
                   key=lambda c: (-c.time_s, CALL_KINDS.index(c.kind) if c.kind in CALL_KINDS else 99))
    per_site: dict[tuple[str, str | None, int], list] = {}
    for r in profile.ranks:
        for s in r.sites:
            row = per_site.setdefault((s.call, s.object, s.offset), [0, 0.0, 0])
            row[0] += s.n
            row[1] += s.time_s
            row[2] += 1
    ranked = sorted(per_site.items(), key=lambda item: -item[1][1])
    sites = tuple(SiteShare(call, obj, off, locations.get((obj, off)), n, t, _share(t, total), k)
                  for (call, obj, off), (n, t, k) in ranked[:TOP_SITES])
    sites_other = (sum(t for _, (_, t, _) in ranked[TOP_SITES:])
                   + sum(r.sites_other_time_s for r in profile.ranks))
    waiting, slowest, note = lockstep_waiting(profile)
    ranks = []
    for r in profile.ranks:
        by_kind: dict[str, float] = {}
        for c in r.calls:
            by_kind[c.kind] = by_kind.get(c.kind, 0.0) + c.time_s
        ordered = tuple((k, by_kind[k]) for k in CALL_KINDS if k in by_kind)
        ranks.append(RankSplit(r.rank, r.mpi_time_s, ordered, waiting.get(r.rank),
                               slowest if r.rank in waiting else None))
    notes = [note] if note else []
    if profile.info.format_version < 3:
        notes.append(f"a format {profile.info.format_version} profile: only point-to-point calls and their "
                     "waits and tests were wrapped; collectives and other calls counted as time outside MPI")
    return ProfileAccounting(
        mpi_time_s=total, kinds=tuple(kinds), calls=tuple(calls), sites=sites, sites_other_s=sites_other,
        ranks=tuple(ranks), waiting_s=sum(waiting.values()) if waiting else None, notes=tuple(notes),
        waiting_note=note)
