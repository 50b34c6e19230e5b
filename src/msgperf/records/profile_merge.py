"""One profile from the files a run left behind when it did not reach MPI_Finalize.

Each rank that ended on its own (``exit`` without MPI_Finalize, ``MPI_Abort``) wrote its
record alone to ``<output>.rank<N>`` (a header as that rank knew it, then its ``rank``
record). Merged: the lowest rank's header, every rank's host from its record, the latest end
time, and ``complete`` false. Ranks that left nothing (killed by the launcher, a signal) are
missing from the profile (``Profile.missing_ranks``).
"""

from __future__ import annotations

import re
from pathlib import Path

import msgspec

from msgperf.records.profile_format import Profile, ProfileError, RankProfile
from msgperf.records.profile_read import read_profile

_RANK_FILE = re.compile(r"\.rank(\d+)\Z")


def rank_files(output: Path) -> list[Path]:
    """``<output>.rank<N>`` files, by rank."""
    found = []
    for path in output.parent.glob(f"{output.name}.rank*"):
        match = _RANK_FILE.search(path.name[len(output.name):])
        if match and path.is_file():
            found.append((int(match.group(1)), path))
    return [p for _, p in sorted(found)]


def temporary_files(output: Path) -> list[Path]:
    """What a writer killed mid-write left: ``<output>.tmp.<pid>``, ``<output>.rank<N>.tmp.<pid>``."""
    return sorted(p for p in output.parent.glob(f"{output.name}*.tmp.*") if p.is_file())


def merge_rank_files(paths: list[Path], name: str) -> Profile:
    """The profile the rank files hold together; ``name`` becomes its path."""
    if not paths:
        raise ProfileError(f"{name}: no rank files to merge")
    profiles = [read_profile(p).profile for p in paths]
    first = profiles[0].info
    ranks: dict[int, RankProfile] = {}
    for path, profile in zip(paths, profiles):
        if profile.info.nranks != first.nranks or profile.info.argv != first.argv:
            raise ProfileError(f"{path}: a rank file of another run ({profile.info.nranks} ranks, "
                               f"{' '.join(profile.info.argv)}); remove it")
        for rank in profile.ranks:
            if rank.rank in ranks:
                raise ProfileError(f"{path}: rank {rank.rank} appears in two rank files")
            ranks[rank.rank] = rank
    hosts = tuple(ranks[r].host if r in ranks else "" for r in range(first.nranks))
    info = msgspec.structs.replace(first, hosts=hosts, complete=False,
                                   start_time=min(p.info.start_time for p in profiles),
                                   end_time=max(p.info.end_time for p in profiles))
    return Profile(info=info, ranks=tuple(ranks[r] for r in sorted(ranks)), path=name)
