"""Where a run came from and how its numbers were made: the tool (msgperf, or OSU, IMB, NetPIPE
for an imported output), its method, the MPI, the hosts and the measured pair's placement —
the heading of every rendering. Pure."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from msgperf.records.mpi_name import mpi_name
from msgperf.values import Value

TOOL_NAMES = {"msgperf": "msgperf", "osu": "OSU Micro-Benchmarks", "imb": "Intel MPI Benchmarks",
              "netpipe": "NetPIPE", "samples": "a text file of samples"}


class RunSource(Value):
    path: str
    tool: str  # "msgperf", "osu", "imb", "netpipe", "samples"
    method: str  # how each number was made, in words
    mpi: str  # "MPICH 5.0.2"; "" when the run does not say
    mpi_library: str  # the first line of MPI_Get_library_version
    mpi_version: str  # the MPI standard version, "4.1"
    hosts: tuple[str, ...]
    nranks: int
    pair_shares_node: bool | None  # None when the run does not say (imports)
    launches: int

    @property
    def placement_words(self) -> str:
        if self.pair_shares_node is None:
            return ""
        return "pair on one node" if self.pair_shares_node else "pair on different nodes"

    @property
    def label(self) -> str:
        """Hosts · MPI · placement, for legends and headings."""
        if not self.hosts:
            return f"{Path(self.path).name or 'run'} ({TOOL_NAMES.get(self.tool, self.tool)})"
        where = "one node" if self.pair_shares_node else "two nodes"
        return f"{','.join(self.hosts)} · {self.mpi[:40] or 'unknown MPI'} · {where}"


def _method(run: Any) -> str:
    source = run.info.source
    if source == "msgperf":
        return "msgperf kernels: raw samples, median per size with its distribution-free interval"
    first = next((m.extra.get("imported") for m in run.measurements
                  if isinstance(m.extra.get("imported"), dict)), None) or {}
    suite = str(first.get("suite") or TOOL_NAMES.get(source, source))
    version = f" {first['version']}" if first.get("version") else ""
    statistic = str(first.get("statistic") or "one value")
    return (f"imported from {suite}{version}: one value per size ({statistic}), no raw samples, "
            "so no interval")


def describe_source(run: Any) -> RunSource:
    launch = run.launches[-1] if run.launches else None
    library = ""
    if launch is not None and launch.mpi_library.strip():
        library = " ".join(launch.mpi_library.strip().splitlines()[0].split())
    return RunSource(
        path=str(run.path or ""), tool=run.info.source, method=_method(run),
        mpi=mpi_name(launch) if launch is not None else "", mpi_library=library,
        mpi_version=launch.mpi_version if launch is not None else "",
        hosts=launch.hosts if launch is not None else (),
        nranks=launch.nranks if launch is not None else run.info.plan.nranks,
        pair_shares_node=launch.pair_shares_node if launch is not None else None,
        launches=len(run.launches))
