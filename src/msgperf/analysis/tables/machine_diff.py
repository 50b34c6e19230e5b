"""How two machines differ: each host's facts (CPU, cores, SMT, OS, kernel, governor, memory)
and the MPI's thresholds through MPI_T, as the run files recorded them. Computed once here;
``compare`` (two runs) and ``show`` (the launches of one run) render it. Pure.

Hosts are compared in order (a run's first host with the other's first host); MPI_T variables
by name: those both recorded with different values are differences, those only one recorded
are counted (another MPI, or another build of it, exposes other variables)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from msgperf.records.format import CvarValue, HostFacts
from msgperf.values import Value

# (field of HostFacts, its name in words, how to read its value: text, count or bytes)
HOST_FACTS: tuple[tuple[str, str, str], ...] = (
    ("host", "host name", "text"),
    ("cpu_model", "CPU", "text"),
    ("physical_cores", "physical cores", "count"),
    ("logical_cpus", "logical CPUs", "count"),
    ("usable_cpus", "usable CPUs", "count"),
    ("smt", "SMT", "text"),
    ("memory_bytes", "memory", "bytes"),
    ("os", "OS", "text"),
    ("kernel", "kernel", "text"),
    ("arch", "architecture", "text"),
    ("governor", "frequency governor", "text"),
)


class FactDifference(Value):
    fact: str  # "CPU", "memory", ... or an MPI_T variable's name
    kind: str  # "text", "count", "bytes" (a host fact), "hosts" (their number) or "mpi_t"
    a: Any  # A's value (None: unknown)
    b: Any
    host: int | None = None  # index of the host compared (None: the MPI, or the host count)


class MachineDiff(Value):
    differences: tuple[FactDifference, ...]
    unrecorded: tuple[str, ...] = ()  # the sides ("A", "B") whose run recorded no machine facts
    cvars_only_a: tuple[str, ...] = ()  # MPI_T variables only A recorded
    cvars_only_b: tuple[str, ...] = ()
    several_hosts: bool = False  # name the host of each difference

    @property
    def differ(self) -> bool:
        return bool(self.differences or self.cvars_only_a or self.cvars_only_b)

    @property
    def facts(self) -> tuple[str, ...]:
        """The differing facts' names, in order, each once."""
        return tuple(dict.fromkeys(d.fact for d in self.differences))


def diff_facts(hosts_a: Sequence[HostFacts], cvars_a: Mapping[str, CvarValue] | None,
               hosts_b: Sequence[HostFacts], cvars_b: Mapping[str, CvarValue] | None) -> MachineDiff:
    unrecorded = tuple(side for side, hosts, cvars in (("A", hosts_a, cvars_a), ("B", hosts_b, cvars_b))
                       if not hosts and cvars is None)
    if unrecorded:  # nothing to compare with: say so once rather than list every fact as unknown
        return MachineDiff((), unrecorded)
    found: list[FactDifference] = []
    if hosts_a and hosts_b and len(hosts_a) != len(hosts_b):
        found.append(FactDifference("hosts", "hosts", len(hosts_a), len(hosts_b)))
    for i, (ha, hb) in enumerate(zip(hosts_a, hosts_b)):
        for name, words, kind in HOST_FACTS:
            va, vb = getattr(ha, name), getattr(hb, name)
            if va != vb:
                found.append(FactDifference(words, kind, va, vb, host=i))
    only_a: tuple[str, ...] = ()
    only_b: tuple[str, ...] = ()
    if cvars_a is not None and cvars_b is not None:
        found += [FactDifference(name, "mpi_t", cvars_a[name], cvars_b[name])
                  for name in cvars_a if name in cvars_b and cvars_a[name] != cvars_b[name]]
        only_a = tuple(n for n in cvars_a if n not in cvars_b)
        only_b = tuple(n for n in cvars_b if n not in cvars_a)
    return MachineDiff(tuple(found), (), only_a, only_b,
                       several_hosts=max(len(hosts_a), len(hosts_b)) > 1)


def machine_diff(a: Any, b: Any) -> MachineDiff:
    """The differences between two runs' machines (``analysis.machine.Machine``)."""
    return diff_facts(a.hosts, a.cvars, b.hosts, b.cvars)
