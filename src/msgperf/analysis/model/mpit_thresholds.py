"""The MPI's own thresholds as it reports them through MPI_T, for the device and transport the
measured pair used: what names a switch when the launch environment set nothing.

MPI_T lists every variable the library was built with, defaults included: Open MPI's eager limit
of each BTL (``btl_vader_eager_limit``, ``btl_tcp_eager_limit``, ``btl_self_eager_limit``), MPICH's
of each device and netmod. Only the transport that carries the pair's messages can switch its
protocol: shared memory for a pair on one node (Open MPI's vader/sm BTL; MPICH's POSIX shm and its
CMA single copy; ch3's nemesis), the network for a pair on two nodes (Open MPI's tcp BTL; MPICH's
OFI netmod; ch3's eager size). XPMEM's threshold is left out: MPI_T lists it whether or not the
build can use XPMEM, and nothing in the run says which. A variable of a device not in use is
already left out of ``Machine.thresholds`` (analysis/tables/machine.py). Where the environment set the
same variable, its value is the one in force and the environment's threshold names the switch.
Pure.
"""

from __future__ import annotations

import re
from typing import Mapping, Sequence

from msgperf.analysis.model.breakpoint_labels import EAGER, KnownThreshold, known_thresholds

# (pattern over the MPI_T name, the transport it belongs to: "shm" on one node, "net" across nodes)
_TRANSPORT: tuple[tuple[re.Pattern, str], ...] = (
    (re.compile(r"^btl_(vader|sm)_"), "shm"),
    (re.compile(r"^btl_tcp_"), "net"),
    (re.compile(r"^MPIR_CVAR_CH4_(SHM_POSIX|IPC_CMA)_"), "shm"),
    (re.compile(r"^MPIR_CVAR_CH4_OFI_"), "net"),
    (re.compile(r"^MPIR_CVAR_NEMESIS_SHM_"), "shm"),
    (re.compile(r"^MPIR_CVAR_CH3_EAGER_"), "net"),
)
SOURCE = "MPI_T"


def _transport(name: str) -> str | None:
    return next((t for pattern, t in _TRANSPORT if pattern.search(name)), None)


def _as_environment(name: str) -> str:
    """The launch-environment spelling of an MPI_T variable (Open MPI's MCA names gain OMPI_MCA_)."""
    return name if name.startswith("MPIR_CVAR_") else f"OMPI_MCA_{name}"


def reported_thresholds(thresholds: Sequence[tuple[str, object]], cvars: Mapping[str, object] | None,
                        pair_shares_node: bool | None,
                        environment: Mapping[str, str]) -> tuple[KnownThreshold, ...]:
    """The thresholds MPI_T reports (``Machine.thresholds``: the point-to-point variables of the
    device in use) for the pair's transport, as ``KnownThreshold``s named by the MPI_T variable
    and with ``source`` "MPI_T"; none when the run does not say where the pair ran. ``cvars``: every
    MPI_T variable (for the switches that turn a single copy off)."""
    if pair_shares_node is None:
        return ()
    used = "shm" if pair_shares_node else "net"
    named = {_as_environment(n): (n, v) for n, v in thresholds
             if _transport(n) == used and not isinstance(v, str) and _as_environment(n) not in environment}
    as_set = {env: str(v) for env, (_, v) in named.items()}
    for off in ("MPIR_CVAR_CH4_CMA_ENABLE", "btl_vader_single_copy_mechanism"):
        if cvars and off in cvars:
            as_set[_as_environment(off)] = str(cvars[off])
    return tuple(KnownThreshold(t.kind, named[t.name][0], t.value, t.low, t.high, SOURCE)
                 for t in known_thresholds(as_set) if t.name in named)


def probe_contradiction(split_bytes: int, thresholds: Sequence[KnownThreshold]) -> str:
    """Why an eager-probe limit cannot be told against the eager thresholds the MPI itself reports
    for the transport in use (``reported_thresholds``, which MPI_T gives in force, set or not): ""
    when there is none, or the limit lies in one's (low, high]. Two searches of one probe launch can
    agree and both be wrong on a loaded machine (Open MPI beside a second job: 256 B and 256 B for
    4040 B, bench/RESULTS.md §21), where every size past a point waits past the probe's 10 ms; the
    MPI's own eager threshold is evidence a disturbance cannot move."""
    eager = [t for t in thresholds if t.kind == EAGER]
    if not eager or any(t.low <= split_bytes < t.high for t in eager):
        return ""
    said = ", ".join(f"{t.name} = {t.value} puts it in ({t.low}, {t.high}] B" for t in eager)
    return f"the probe's limit, {split_bytes} B, is not where the MPI says through MPI_T: {said}"
