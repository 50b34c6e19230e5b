"""What a run recorded about its machine: each host's facts and the MPI's thresholds through
MPI_T (the launch record's ``host_facts`` and ``mpi_t_cvars``, docs/record-format.md). Pure.

The facts are those of the run's last launch that recorded any (the launch its heading names);
when its launches recorded different facts (a run resumed on another machine), ``varies`` names
them. ``thresholds`` are the point-to-point variables among the MPI_T ones (eager limits,
rendezvous, cell sizes, single-copy thresholds): what a short view shows."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping

from msgperf.analysis.machine_diff import diff_facts
from msgperf.records.format import CvarValue, HostFacts

# A point-to-point threshold by name; collectives', RMA's, GPU's and context ids' are not.
_POINT_TO_POINT = re.compile(r"eager|rndv|rendezvous|cell_size|p2p_threshold", re.IGNORECASE)
_ELSEWHERE = re.compile(r"ctxid|gpu|coll|bcast|reduce|alltoall|allgather|rma", re.IGNORECASE)


@dataclass(frozen=True)
class Machine:
    hosts: tuple[HostFacts, ...]  # one per host, in order of its first rank
    cvars: Mapping[str, CvarValue] | None  # every MPI_T variable recorded; None: not recorded
    launch: int | None  # the launch the facts come from (None: none recorded any)
    thresholds: tuple[tuple[str, CvarValue], ...] = ()  # the point-to-point ones among cvars
    varies: tuple[str, ...] = ()  # facts that differ between the run's launches

    @property
    def recorded(self) -> bool:
        return bool(self.hosts) or self.cvars is not None


def point_to_point(cvars: Mapping[str, CvarValue] | None) -> tuple[tuple[str, CvarValue], ...]:
    return tuple((n, v) for n, v in (cvars or {}).items()
                 if _POINT_TO_POINT.search(n) and not _ELSEWHERE.search(n))


def run_machine(run: Any) -> Machine:
    recorded = [l for l in getattr(run, "launches", ()) if l.host_facts or l.mpi_t_cvars is not None]
    if not recorded:
        return Machine((), None, None)
    last = recorded[-1]
    varies: dict[str, None] = {}
    for other in recorded[:-1]:
        diff = diff_facts(other.host_facts, other.mpi_t_cvars, last.host_facts, last.mpi_t_cvars)
        varies.update(dict.fromkeys(diff.facts))
        if diff.cvars_only_a or diff.cvars_only_b:
            varies["MPI_T variables"] = None
    return Machine(last.host_facts, last.mpi_t_cvars, last.index, point_to_point(last.mpi_t_cvars),
                   tuple(varies))
