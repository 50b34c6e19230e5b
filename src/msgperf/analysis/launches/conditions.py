"""Did the ranks have their cores to themselves? Per launch, three verdicts from what the run
recorded (the launch record's rank→host/CPU map, launch_end's CPUs, msgperf's launch_host record):

- **oversubscribed**: more ranks on the launching node than cores msgperf could use there
  (``os.sched_getaffinity``), with the MPI progress setting msgperf chose for it;
- **pair on one core**: the two ranks of the measured pair (or, for patterns over every rank, any
  two ranks) on the same CPU when the kernels looked (``sched_getcpu`` at the start and the end);
- **busy machine**: other work on the launching node over the launch (busy CPU time that was
  neither msgperf nor its launch, in cores), with the load average before and after and the CPU
  steal.

A launch cut off before anything was written after it (no ``launch_end``, no abort mark, no
``launch_host``: the job was killed, the file truncated, or the launch still runs), or without the
``launch_host`` record the run's other launches have (a file cut between the two), is **cut off**:
its conditions are unknown, and what it measured is not vouched for (a tester's run beside a busy
loop, cut at 100 kB, read a latency of 1.89 µs [1.88 – 1.91] where the whole file says "cannot tell").

Each verdict is yes, no, or None — *cannot tell* — when the run does not hold what it needs (a
file from before format 3, ranks on nodes msgperf did not run on, an aborted launch). A "no" is
never said for lack of data. The thresholds are here, in one place, and in docs/statistics.md.
Pure.
"""

from __future__ import annotations

from typing import Any, Sequence

import msgspec

from msgperf.analysis import caveats as cv
from msgperf.values import Value

# Other work is called busy from a quarter of a core on average (below that: kernel threads,
# msgperf's neighbours' shells, the 10 ms tick granularity of /proc/stat over a short launch)...
OTHER_CORES = 0.25
# ... and only when it and the ranks on the node together need more cores than there are: then
# the scheduler must time-share, and a rank that loses its core loses a time slice (milliseconds)
# in the middle of a microsecond message.
STEAL = 0.02  # a hypervisor taking 2 % of the CPU time is worth saying: it comes in slices too


class SharedCore(Value):
    ranks: tuple[int, int]
    cpu: int
    when: str  # "start" or "end" of the launch


class LaunchConditions(Value):
    launch: int
    host: str  # the launching node, or the crowded host the kernels reported ("" when not recorded)
    ranks_here: int | None  # ranks on the launching node
    usable_cores: int | None
    oversubscribed: bool | None  # None: cannot tell
    progress: tuple[tuple[str, str], ...]  # the MPI progress settings msgperf added
    shared: tuple[SharedCore, ...]  # pairs seen on one CPU
    shared_core: bool | None  # True when seen; None: not seen, which does not prove they never shared
    busy: bool | None  # None: cannot tell
    other_cores: float | None
    load_before: float | None  # 1-minute load average
    load_after: float | None
    steal_fraction: float | None
    caveats: tuple[cv.Caveat, ...]
    cut_off: bool = False  # nothing written after the launch's measurements: its conditions are unknown

    def words(self) -> str:
        """'oversubscribed: yes (3 ranks on 2 usable cores) · pair on one core: ... · other work: ...'"""
        if self.oversubscribed is None:
            over = "cannot tell (cores not recorded)" if self.usable_cores is None else \
                "cannot tell (ranks on nodes msgperf did not see)"
        elif self.ranks_here is None or self.usable_cores is None:
            over = f"{'yes' if self.oversubscribed else 'no'} (no host had more ranks than usable CPUs, by the " \
                   "kernels' own facts)"
        else:
            over = f"{'yes' if self.oversubscribed else 'no'} ({self.ranks_here} ranks on {self.usable_cores} " \
                   "usable cores" + (", yield progress set" if self.progress else "") + ")"
        if self.shared_core:
            shared = "yes (" + ", ".join(f"ranks {s.ranks[0]}:{s.ranks[1]} on CPU {s.cpu} at the {s.when}"
                                        for s in self.shared) + ")"
        else:
            shared = "cannot tell (not seen at the start or the end)"
        if self.busy is None:
            busy = ("cannot tell (the ranks ran on other nodes)" if self.ranks_here == 0 else
                    "cannot tell (cut off before it was recorded)" if self.cut_off else "cannot tell (not recorded)")
        else:
            busy = f"{'yes' if self.busy else 'no'} ({load_words(self)})"
        return f"oversubscribed: {over} · pair on one core: {shared} · busy machine: {busy}"


def load_words(c: LaunchConditions) -> str:
    parts = []
    if c.other_cores is not None:
        parts.append(f"other work {c.other_cores:.2f} of {c.usable_cores or '?'} cores")
    if c.load_before is not None and c.load_after is not None:
        parts.append(f"load {c.load_before:.1f} → {c.load_after:.1f}")
    if c.steal_fraction is not None:
        parts.append(f"steal {100 * c.steal_fraction:.0f} %")
    return ", ".join(parts)


def _short(host: str) -> str:
    return host.split(".", 1)[0]


def _shared(launch: Any, pair: tuple[int, int] | None) -> tuple[SharedCore, ...]:
    """Ranks on one CPU (same host) at the start or the end: the measured pair only, or any two
    ranks (``pair`` None: patterns over every rank)."""
    found = []
    hosts = {r.rank: r.host for r in launch.ranks}
    for when, cpus in (("start", {r.rank: r.cpu for r in launch.ranks}),
                       ("end", dict(enumerate(launch.end_cpus or ())))):
        ranks = sorted(r for r in cpus if cpus[r] >= 0)
        candidates = [pair] if pair is not None else [(a, b) for i, a in enumerate(ranks) for b in ranks[i + 1:]]
        for a, b in candidates:
            if a in cpus and b in cpus and cpus[a] >= 0 and cpus[a] == cpus[b] and hosts.get(a) == hosts.get(b):
                found.append(SharedCore((a, b), cpus[a], when))
    return tuple(found)


def _crowded_host(launch: Any) -> tuple[bool | None, Any]:
    """Oversubscription from the kernels' own facts of every host (``host_facts``: its ranks and
    the CPUs they may use, read on that host): (True, the first crowded host), (False, None) when
    every host with ranks has both counts and none is crowded, else (None, None)."""
    facts = [h for h in getattr(launch, "host_facts", ()) or () if h.ranks]
    crowded = [h for h in facts if h.usable_cpus is not None and h.ranks > h.usable_cpus]
    if crowded:
        return True, crowded[0]
    if facts and all(h.usable_cpus is not None for h in facts) and sum(h.ranks for h in facts) == len(launch.ranks):
        return False, None
    return None, None


def launch_conditions(launch: Any, pair_only: bool = True, host_expected: bool = False) -> LaunchConditions:
    """The three verdicts for one launch (``pair_only``: judge sharing on the launch's measured
    pair; else on any two ranks). Oversubscription: from every host's facts when the kernels
    recorded them (multi-node runs too), else from the launching node's cores. ``host_expected``:
    msgperf recorded the launching node for the run's other launches, so a launch without that
    record was cut off after its end record (a file cut between the two)."""
    host = launch.host
    shared = _shared(launch, tuple(launch.pair) if pair_only else None)
    by_facts, crowded_host = _crowded_host(launch)
    if host is None:
        here = usable = None
        over = busy = None
        progress: tuple[tuple[str, str], ...] = ()
        other = before = after = steal = None
    else:
        here = sum(1 for r in launch.ranks if _short(r.host) == _short(host.host))
        usable = host.usable_cores
        elsewhere = len(launch.ranks) - here
        if usable is None or (here <= usable and elsewhere):
            over = None
        else:
            over = here > usable
        progress = tuple(sorted(host.progress.items()))
        other, steal = host.other_cores, host.steal_fraction
        before = host.before.load_1m if host.before is not None else None
        after = host.after.load_1m if host.after is not None else None
        if here == 0:  # launched from a node the ranks did not run on (a login node): its load says nothing
            busy = None
        elif other is None or usable is None:
            busy = None if steal is None or steal < STEAL else True
        else:
            crowded = other >= OTHER_CORES and min(here, usable) + other > usable
            busy = crowded or (steal is not None and steal >= STEAL)
    where = host.host if host else ""
    if by_facts is not None:
        over = by_facts
        if crowded_host is not None and (host is None or _short(crowded_host.host) != _short(host.host)):
            here, usable, where = crowded_host.ranks, crowded_host.usable_cpus, crowded_host.host
        elif here is None:  # no launch_host record (a launch cut off): the kernels' facts have the counts
            facts = [h for h in getattr(launch, "host_facts", ()) or () if h.ranks]
            if len(facts) == 1:
                here, usable, where = facts[0].ranks, facts[0].usable_cpus, facts[0].host
    cut_off = host is None and ((not launch.finished and launch.aborted is None) or host_expected)
    partial = LaunchConditions(launch.index, where, here, usable, over, progress, shared,
                               True if shared else None, busy, other, before, after, steal, (), cut_off)
    found = []
    if over:
        found.append(cv.oversubscribed(launch.index, here, usable, partial.host, progress))
    if shared:
        found.append(cv.shared_core(launch.index, [(s.ranks, s.cpu, s.when) for s in shared]))
    if busy:
        found.append(cv.busy_machine(launch.index, load_words(partial)))
    if cut_off:
        found.append(cv.conditions_unknown(launch.index))
    return msgspec.structs.replace(partial, caveats=tuple(found))


def crowded_launches(run: Any) -> frozenset[int]:
    """The launches that were oversubscribed or ran beside other work, or were cut off before
    their conditions were recorded: their times may be the machine's load as much as the
    configuration's (a noise floor leaves them out)."""
    return frozenset(c.launch for c in run_conditions(run) if c.oversubscribed or c.busy or c.cut_off)


def quiet_launches(run: Any) -> frozenset[int]:
    """The launches whose records say they had their cores: not oversubscribed, no other work,
    no two ranks seen on one CPU (a launch the run cannot judge is not among them)."""
    return frozenset(c.launch for c in run_conditions(run)
                     if c.oversubscribed is False and c.busy is False and not c.shared_core)


def run_conditions(run: Any) -> tuple[LaunchConditions, ...]:
    """Every launch's verdicts. Sharing is judged on the measured pair when every measurement of
    the launch is a two-rank pattern, else on any two ranks."""
    out = []
    launches = getattr(run, "launches", ())
    hosts = any(launch.host is not None for launch in launches)
    for n, launch in enumerate(launches):
        ranks = {len(m.ranks) for m in run.measurements if m.launch == launch.index}
        # only the file's last launch can have lost its host record to a cut: a launch followed by
        # others was added without one (the kernels run by hand with --append)
        out.append(launch_conditions(launch, pair_only=ranks <= {2}, host_expected=hosts and n == len(launches) - 1))
    return tuple(out)


def caveats_of(conditions: Sequence[LaunchConditions], launches: Sequence[int] | None = None) -> tuple[cv.Caveat, ...]:
    """The caveats of the given launches (all when None), each once."""
    return tuple(c for cond in conditions if launches is None or cond.launch in launches for c in cond.caveats)


def first_disturbance(conditions: Sequence[LaunchConditions], launches: Sequence[int] | None = None) -> str:
    """Why the launches (``launches``; None: all) were not conditions whose times are the MPI's own:
    the first of them oversubscribed, with its pair on one core, on a busy machine, or cut off
    before its conditions were recorded; "" when none was seen so. The one wording advise's model
    choice and the collectives' names give."""
    for c in conditions:
        if launches is not None and c.launch not in launches:
            continue
        if c.oversubscribed:
            return f"launch {c.launch} oversubscribed ({c.ranks_here} ranks on {c.usable_cores} usable cores)"
        if c.shared_core:
            return f"launch {c.launch} had its pair on one core"
        if c.busy:
            return f"launch {c.launch} ran on a busy machine"
        if c.cut_off:
            return f"launch {c.launch} was cut off before its conditions were recorded"
    return ""
