"""The machine a run recorded, in words: one line per host, the MPI's point-to-point thresholds
through MPI_T, and how two runs' machines differ. Shared by ``show`` (the Machine block),
``compare`` (the "Machines differ" block) and the report. Formatting only: the facts come from
``analysis.machine`` and the differences from ``analysis.machine_diff``."""

from __future__ import annotations

from typing import Any

import msgspec

from msgperf import units
from msgperf.analysis.tables import Machine, MachineDiff, device_of
from msgperf.records.format import HostFacts

NOT_RECORDED = "not recorded (the run file is from before msgperf recorded its machine)"
MAX_ONLY_NAMED = 3  # MPI_T variables recorded by one run only: named up to this many, else counted


def count_text(n: int | None) -> str:
    return "?" if n is None else str(n)


def cores_text(h: HostFacts) -> str:
    """'2 cores, 4 logical CPUs, 4 usable, SMT on' (unknown counts as '?')."""
    return (f"{count_text(h.physical_cores)} cores, {count_text(h.logical_cpus)} logical CPUs, "
            f"{count_text(h.usable_cpus)} usable, SMT {h.smt}")


MAX_HOSTS_NAMED = 3  # hosts alike are named up to this many, then counted


def host_line(h: HostFacts, name: str | None = None) -> str:
    return (f"{name or h.host}: {h.cpu_model} · {cores_text(h)} · {units.memory(h.memory_bytes)} · "
            f"{h.os}, {h.kernel} {h.arch} · governor {h.governor}")


def host_lines(hosts: tuple[HostFacts, ...]) -> list[str]:
    """One line per kind of host: hosts alike but for their names (and rank counts) share one,
    so 64 identical nodes stay one line ('n01, n02, n03 +61: ...')."""
    kinds: dict[tuple, list[HostFacts]] = {}
    for h in hosts:
        kinds.setdefault(msgspec.structs.astuple(msgspec.structs.replace(h, host="", ranks=None)), []).append(h)
    lines = []
    for alike in kinds.values():
        names = ", ".join(h.host for h in alike[:MAX_HOSTS_NAMED])
        more = f" +{len(alike) - MAX_HOSTS_NAMED}" if len(alike) > MAX_HOSTS_NAMED else ""
        lines.append(host_line(alike[0], names + more))
    return lines


def cvar_text(value: Any) -> str:
    return repr(value) if isinstance(value, str) else f"{value:g}" if isinstance(value, float) else str(value)


def common_prefix(names: list[str]) -> str:
    """'MPIR_CVAR_' when every name starts with it (MPICH's), else ''."""
    prefix = "MPIR_CVAR_"
    return prefix if names and all(n.startswith(prefix) for n in names) else ""


def thresholds_line(m: Machine) -> str | None:
    """The point-to-point MPI_T thresholds, and how many other variables the run file holds."""
    if m.cvars is None:
        return None
    prefix = common_prefix([n for n, _ in m.thresholds])
    shown = ", ".join(f"{name[len(prefix):]}={cvar_text(v)}" for name, v in m.thresholds) or "none of its variables"
    others = len(m.cvars) - len(m.thresholds)
    devices = " and ".join(dict.fromkeys(d for d in map(device_of, m.other_devices) if d))
    elsewhere = (f", {len(m.other_devices)} of them {devices}'s, a device this build does not use"
                 if m.other_devices else "")
    return (f"MPI_T thresholds{f' of {m.device}' if m.device else ''}{f' ({prefix}…)' if prefix else ''}: {shown}"
            + (f"; {others} other variables in the run file{elsewhere}" if others else ""))


def machine_lines(m: Machine, tool: str) -> list[str]:
    """The Machine block of ``show``: nothing for another tool's output (it records no machine)."""
    if not m.recorded:
        return [f"Machine: {NOT_RECORDED}"] if tool == "msgperf" else []
    lines = [f"  {line}" for line in host_lines(m.hosts)] or ["  host facts not recorded"]
    lines.append("  " + (thresholds_line(m) or "MPI_T: not available from this MPI library"))
    if m.varies:
        lines.append(f"  note: the run's launches recorded different {', '.join(m.varies)}; shown: launch {m.launch}")
    return ["Machine", *lines]


def _value(kind: str, value: Any) -> str:
    if value is None:
        return "unknown"
    if kind == "bytes":
        return units.memory(value)
    if kind == "mpi_t":
        return cvar_text(value)
    return str(value)


def difference_items(diff: MachineDiff) -> list[str]:
    """'CPU Intel X vs AMD Y', 'MPIR_CVAR_... 8192 vs 32768', ... in order."""
    items = []
    for d in diff.differences:
        where = f"host {d.host + 1} " if diff.several_hosts and d.host is not None else ""
        name = f"MPI_T {d.fact}" if d.kind == "mpi_t" else d.fact
        items.append(f"{where}{name} {_value(d.kind, d.a)} vs {_value(d.kind, d.b)}")
    for side, names in (("A", diff.cvars_only_a), ("B", diff.cvars_only_b)):
        if names:
            listed = ", ".join(names) if len(names) <= MAX_ONLY_NAMED else f"{len(names)} variables"
            items.append(f"MPI_T {listed} only in {side}")
    return items


def diff_line(diff: MachineDiff) -> str:
    """One sentence for ``compare``: what differs, that nothing does, or that it cannot tell."""
    if diff.unrecorded:
        sides = " and ".join(diff.unrecorded)
        return f"Machines: not recorded in {sides} (a run file from before msgperf recorded them); cannot tell whether they differ"
    if not diff.differ:
        return "Machines: the same recorded facts (hosts' CPU, cores, OS, governor, memory; MPI_T thresholds)"
    return "Machines differ: " + "; ".join(difference_items(diff))
