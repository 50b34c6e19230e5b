"""What else the launching node was doing while a launch measured: the facts msgperf records
beside each launch (the ``launch_host`` record, docs/record-format.md) so that the analysis can
say when the ranks had no core to themselves.

Read on the node that starts the launcher, before and after the launch: the load average and
the runnable count (/proc/loadavg), the CPU time of every state (/proc/stat: busy, idle, steal),
the cores this process may run on (``os.sched_getaffinity``, which mpiexec and its ranks
inherit), and the CPU time of msgperf's own children (the launcher and its ranks, once waited
for). Busy time minus the children's and msgperf's own is the work of *others*. Linux only:
elsewhere a figure is None and the analysis says "cannot tell".
"""

from __future__ import annotations

import os
import resource
import socket
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from msgperf.values import Value

PROC = Path("/proc")


class Snapshot(Value):
    monotonic_s: float
    load: tuple[float, float, float] | None  # 1, 5 and 15 minute load averages
    runnable: int | None  # tasks runnable at that instant (this reader included)
    cpu_s: Mapping[str, float] | None  # "busy", "idle", "steal", "total": seconds over all CPUs since boot
    own_cpu_s: float  # msgperf's own CPU time and its waited-for children's (user + system)


def _loadavg(proc: Path) -> tuple[tuple[float, float, float] | None, int | None]:
    try:
        fields = (proc / "loadavg").read_text().split()
        return (float(fields[0]), float(fields[1]), float(fields[2])), int(fields[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return None, None


def _cpu_times(proc: Path) -> dict[str, float] | None:
    """The aggregate "cpu" line of /proc/stat in seconds: user nice system idle iowait irq softirq
    steal (guest time is already inside user)."""
    try:
        line = (proc / "stat").read_text().split("\n", 1)[0].split()
        ticks = [int(v) for v in line[1:9]]
    except (OSError, ValueError, IndexError):
        return None
    if line[0] != "cpu" or len(ticks) < 8:
        return None
    hz = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    user, nice, system, idle, iowait, irq, softirq, steal = (t / hz for t in ticks)
    return {"busy": user + nice + system + irq + softirq, "idle": idle + iowait, "steal": steal,
            "total": user + nice + system + idle + iowait + irq + softirq + steal}


def _own_cpu_s() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def snapshot(proc: Path = PROC) -> Snapshot:
    load, runnable = _loadavg(proc)
    return Snapshot(time.monotonic(), load, runnable, _cpu_times(proc), _own_cpu_s())


def usable_cores() -> int | None:
    """The cores this process (and the launcher it starts) may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None


def _load(s: Snapshot) -> dict[str, Any] | None:
    if s.load is None:
        return None
    return {"load_1m": s.load[0], "load_5m": s.load[1], "load_15m": s.load[2], "runnable": s.runnable}


def launch_host_record(launch: int, before: Snapshot, after: Snapshot, progress: Mapping[str, str]) -> dict[str, Any]:
    """The ``launch_host`` record of one launch: the node, its usable cores, the load before and
    after, and over the launch the CPU share of steal and of other work (in cores). ``progress``:
    the MPI progress settings msgperf added to the launch's environment (e.g. MPICH's yielding
    polls when the ranks outnumber the cores); empty when it added none."""
    record: dict[str, Any] = {
        "type": "launch_host", "launch": launch, "host": socket.gethostname(),
        "usable_cores": usable_cores(), "online_cores": os.cpu_count(),
        "progress": dict(progress), "before": _load(before), "after": _load(after),
        "interval_s": max(after.monotonic_s - before.monotonic_s, 0.0),
        "steal_fraction": None, "other_cores": None,
    }
    if before.cpu_s is not None and after.cpu_s is not None:
        delta = {k: after.cpu_s[k] - before.cpu_s[k] for k in before.cpu_s}
        interval = record["interval_s"]
        if delta["total"] > 0:
            record["steal_fraction"] = max(delta["steal"], 0.0) / delta["total"]
        if interval > 0:
            # Busy CPU time that was neither msgperf nor the launch it waited for, in cores.
            others = delta["busy"] - (after.own_cpu_s - before.own_cpu_s)
            record["other_cores"] = max(others, 0.0) / interval
    return record
