"""What a run recorded about its machine: each host's facts and the MPI's thresholds through
MPI_T (the launch record's ``host_facts`` and ``mpi_t_cvars``, docs/record-format.md). Pure.

The facts are those of the run's last launch that recorded any (the launch its heading names);
when its launches recorded different facts (a run resumed on another machine), ``varies`` names
them. ``thresholds`` are the point-to-point variables among the MPI_T ones (eager limits,
rendezvous, cell sizes, single-copy thresholds) of the device in use: what a short view shows.
MPICH exposes the variables of every device it was written for (a ch4 build lists ch3's
``CH3_EAGER_MAX_MSG_SIZE`` and its nemesis channel's ``NEMESIS_SHM_EAGER_MAX_SZ`` beside its own);
its version string names the device (``MPICH Device: ch4:ucx ofi``), and another device's
variables are not this build's thresholds: they stay in ``cvars`` (the run file, ``--json``)."""

from __future__ import annotations

import re
from typing import Any, Mapping

from msgperf.analysis.tables.machine_diff import diff_facts
from msgperf.records.format import CvarValue, HostFacts
from msgperf.values import Value

# A point-to-point threshold by name; collectives', RMA's, GPU's and context ids' are not.
_POINT_TO_POINT = re.compile(r"eager|rndv|rendezvous|cell_size|p2p_threshold", re.IGNORECASE)
_ELSEWHERE = re.compile(r"ctxid|gpu|coll|bcast|reduce|alltoall|allgather|rma", re.IGNORECASE)
# MPICH's device from its version string ("MPICH Device:       ch4:ucx ofi"), else its configure line
_MPICH_DEVICE = re.compile(r"^MPICH Device:\s*(ch\d)\b|--with-device=(ch\d)\b", re.MULTILINE)
# The MPI_T variables of each MPICH device (ch3's nemesis channel is ch3's)
_DEVICE_VARIABLES = {"ch3": re.compile(r"^MPIR_CVAR_(CH3|NEMESIS)_"), "ch4": re.compile(r"^MPIR_CVAR_CH4_")}


class Machine(Value):
    hosts: tuple[HostFacts, ...]  # one per host, in order of its first rank
    cvars: Mapping[str, CvarValue] | None  # every MPI_T variable recorded; None: not recorded
    launch: int | None  # the launch the facts come from (None: none recorded any)
    thresholds: tuple[tuple[str, CvarValue], ...] = ()  # the point-to-point ones among cvars, of the device
    varies: tuple[str, ...] = ()  # facts that differ between the run's launches
    device: str | None = None  # the MPI's device in use ("ch4"), None when the MPI does not say
    other_devices: tuple[str, ...] = ()  # point-to-point variables of devices not in use (not thresholds)

    @property
    def recorded(self) -> bool:
        return bool(self.hosts) or self.cvars is not None


def point_to_point(cvars: Mapping[str, CvarValue] | None) -> tuple[tuple[str, CvarValue], ...]:
    return tuple((n, v) for n, v in (cvars or {}).items()
                 if _POINT_TO_POINT.search(n) and not _ELSEWHERE.search(n))


def mpi_device(mpi_library: str) -> str | None:
    """MPICH's device ("ch3", "ch4") from its version string; None for another MPI or when unsaid."""
    m = _MPICH_DEVICE.search(mpi_library or "")
    return (m.group(1) or m.group(2)) if m else None


def device_of(name: str) -> str | None:
    """The MPICH device an MPI_T variable belongs to ("ch3", "ch4"), None when it is no device's."""
    return next((d for d, pattern in _DEVICE_VARIABLES.items() if pattern.search(name)), None)


def of_other_device(name: str, device: str | None) -> bool:
    """Whether an MPI_T variable belongs to an MPICH device other than ``device``."""
    return device is not None and device_of(name) not in (None, device)


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
    device = mpi_device(last.mpi_library)
    p2p = point_to_point(last.mpi_t_cvars)
    return Machine(last.host_facts, last.mpi_t_cvars, last.index,
                   tuple((n, v) for n, v in p2p if not of_other_device(n, device)), tuple(varies), device,
                   tuple(n for n, _ in p2p if of_other_device(n, device)))
