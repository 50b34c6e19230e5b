"""The run-file format: the one place that knows its record types and field names.

A run file is JSON Lines (docs/record-format.md). Its records, in order:

- ``run``: written once, when the file is created: format version, plan, command line, and the
  catalog of the planned patterns (what each pattern is, from the kernels themselves);
- ``launch``: one per MPI launch (a run has several with ``--repeat`` or ``--resume``):
  MPI library, rank placement, clock self-test, MPI-related environment, each host's facts
  (CPU, cores, OS, governor) and the MPI's thresholds through MPI_T;
- ``measurement``: one per (pattern, size), written and flushed as soon as it is done;
- ``launch_end``: when a launch finishes cleanly: placement at the end, end time;
- ``launch_abort``: written by msgperf when it had to stop a launch (hang, a dead rank,
  Ctrl-C): the reason. Such a run is incomplete; ``--resume`` continues it.
- ``launch_host``: written by msgperf after each launch (format 3): the launching node's usable
  cores, its load before and after, CPU steal and other work over the launch, and the progress
  settings msgperf chose (``Launch.host``).

This module turns already-decoded JSON objects into frozen dataclasses and back; reading
bytes from disk is ``records.read``'s job.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from msgperf.errors import MsgperfError
from msgperf.plan import PAIR_PLACEMENTS, PLAN_PLACEMENTS, Plan
from msgperf.records.limits import (MAX_EXACT, MAX_INT64, MAX_RANKS, MAX_TIME_S, MIN_PER_MESSAGE_S, check_float,
                                    check_int)
from msgperf.records.pattern_names import pattern_name
from msgperf.records.spilled_samples import SpilledSamples

FORMAT_NAME = "msgperf-run"
FORMAT_VERSION = 3  # 3: launch_host records; 2: the run record's "catalog" (docs/record-format.md, history)

STOP_REASONS = ("precision", "time_budget", "max_samples", "imported")
MAX_LAUNCH = 1 << 20  # launch indices: --repeat is at most 1000, each resume adds one
# A pattern's family in the catalog (kernels/catalog.c names them; a new one is a format change).
FAMILIES = ("pingpong", "bidirectional", "compat", "many-ranks", "buffering", "combining", "overlap", "probe",
            "hardware")
PARTICIPANTS = ("pair", "all")  # the --pair (other ranks idle), or every rank


class RecordError(MsgperfError):
    """A record that does not follow the format."""


@dataclass(frozen=True)
class VariantInfo:
    """One record the kernels write per size for a pattern."""

    name: str  # the record's ``variant`` ("" when the record has none)
    active_pairs: int | None = None  # concurrent pairs of this step of a contention sweep (pairs)


@dataclass(frozen=True)
class PatternInfo:
    """What a pattern is, as the kernels say (``msgperf-kernels --list-patterns``; the run
    record's ``catalog``): the one source of pattern facts."""

    name: str
    family: str  # one of FAMILIES
    modelled: bool  # a Hockney time-vs-size model of its records is meaningful
    participants: str  # "pair" (the --pair; other ranks idle) or "all" (every rank)
    even_ranks: bool  # needs an even number of ranks (an odd count would deadlock)
    metric: str  # what samples_s / divisor is: one_way, round_trip, per_iteration, ...
    divisor: int  # reported time = sample / (k x divisor); 0: the number of ranks taking part
    flows: int  # messages of `bytes` the bandwidth counts per reported time
    inplace_ok: bool  # honours --buffer inplace
    timing: str  # what one iteration is and what is reported, in words
    variants: tuple[VariantInfo, ...]  # one per record per size, for the catalog's number of ranks

    @property
    def sweeps(self) -> bool:
        """Its variants are the steps of a contention sweep (what --active chooses among)."""
        return any(v.active_pairs is not None for v in self.variants)


@dataclass(frozen=True)
class RunInfo:
    """The ``run`` record: written once when a run file is created."""

    format_version: int
    msgperf_version: str
    command_line: str
    start_time: str
    plan: Plan
    source: str = "msgperf"  # "msgperf" or the tool an imported run came from
    # The planned patterns' catalog entries for the run's number of ranks (format 2); empty in
    # version 1 files and imported runs.
    catalog: tuple[PatternInfo, ...] = ()


@dataclass(frozen=True)
class RankPlacement:
    rank: int
    host: str
    cpu: int  # -1 where unknown
    node: int  # index of the rank's shared-memory node (MPI_COMM_TYPE_SHARED)


@dataclass(frozen=True)
class ClockSelfTest:
    source: str
    resolution_s: float
    overhead_s: float
    monotonic: bool
    reported_resolution_s: float  # what clock_getres() claims
    mpi_wtick_s: float


SMT_STATES = ("on", "off", "unknown")


@dataclass(frozen=True)
class HostFacts:
    """One host of a launch as its OS describes it (the launch record's ``host_facts``, read by
    the host's first rank). A count the host does not expose is None, a word "unknown"."""

    host: str  # MPI_Get_processor_name, as in the ranks' placement
    cpu_model: str
    logical_cpus: int | None  # online CPUs
    physical_cores: int | None  # distinct (package, core) of /proc/cpuinfo
    usable_cpus: int | None  # CPUs the job's ranks on the host may run on (their affinity, joined)
    memory_bytes: int | None  # physical memory
    ranks: int | None  # the job's ranks on the host
    smt: str  # one of SMT_STATES
    os: str  # the distribution (/etc/os-release), else the kernel's name
    kernel: str  # uname: "Linux 6.1.0-13-amd64"
    arch: str  # uname: machine
    governor: str  # cpufreq scaling governor ("a,b" when CPUs differ); "unknown" without cpufreq


# A control variable's value as MPI_T reports it: an integer, a double or a string.
CvarValue = int | float | str


@dataclass(frozen=True)
class HostLoad:
    """/proc/loadavg on the launching node at one instant."""

    load_1m: float
    load_5m: float
    load_15m: float
    runnable: int | None = None  # tasks runnable at that instant (the reader included)


@dataclass(frozen=True)
class LaunchHost:
    """The ``launch_host`` record: what else the launching node did while the launch ran."""

    host: str
    usable_cores: int | None  # os.sched_getaffinity of msgperf, which the launcher inherits
    online_cores: int | None
    progress: Mapping[str, str]  # MPI progress settings msgperf added to the environment ({}: none)
    before: HostLoad | None
    after: HostLoad | None
    interval_s: float
    steal_fraction: float | None  # share of all CPU time stolen by the hypervisor over the launch
    other_cores: float | None  # busy CPU time of everything but msgperf and its launch, in cores


@dataclass(frozen=True)
class Launch:
    """The ``launch`` record, plus the matching ``launch_end`` when there is one."""

    index: int
    mpi_library: str
    mpi_version: str
    nranks: int
    ranks: tuple[RankPlacement, ...]
    pair: tuple[int, int]
    pair_shares_node: bool
    clock: ClockSelfTest
    environment: Mapping[str, str]
    start_time: str
    end_time: str | None = None
    end_cpus: tuple[int, ...] | None = None
    max_rss_kib: tuple[int, ...] | None = None  # peak resident memory of each rank, at the end
    aborted: str | None = None  # why msgperf stopped this launch (hang, dead rank, Ctrl-C)
    launcher_command_line: str | None = None  # the launcher's full command line (mpiexec/mpirun/srun ...)
    # One per host (distinct shared-memory node), in order of its first rank; empty in files
    # written before the field and in imports.
    host_facts: tuple[HostFacts, ...] = ()
    # The MPI's own thresholds through MPI_T (name -> value, variables named like eager, rndv,
    # cell, threshold, limit); None when the file does not say (older files, no MPI_T).
    mpi_t_cvars: Mapping[str, CvarValue] | None = None
    host: LaunchHost | None = None  # the launching node during the launch (format 3; None before)

    @property
    def finished(self) -> bool:
        return self.end_time is not None

    @property
    def hosts(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(r.host for r in self.ranks))


@dataclass(frozen=True, eq=False)
class Measurement:
    """One (pattern, size) measurement with its raw samples.

    ``samples_s[i]`` is the wall time of one sample: ``k`` iterations of the pattern, as seen
    by the slowest participant. The reported time per message is ``samples_s / divisor``
    (for a ping-pong, divisor = 2k: the one-way time is half the round trip).
    """

    pattern: str
    bytes: int
    buffer: str
    ranks: tuple[int, ...]
    k: int
    divisor: int
    samples_s: np.ndarray
    stop_reason: str
    validated: bool
    launch: int = 0
    timing: str = ""
    metric: str = "one_way"
    first_s: float | None = None  # the cold first iteration, before warm-up; never a sample
    warmup: int = 0
    elapsed_s: float = 0.0
    flows: int = 1  # messages of `bytes` the bandwidth counts per reported time (2 for bidirectional)
    variant: str = ""  # which variant of the pattern (a round, a k, a phase); "" when it has one
    extra: Mapping[str, Any] = field(default_factory=dict)
    # "intra" (the two measured ranks share a host) or "inter" (different hosts); "" when the
    # record does not say (patterns over many ranks, older files). Also kept in ``extra`` so that
    # the rows built from measurements (``msgperf show --json``) carry it.
    placement: str = ""

    @property
    def per_message_s(self) -> np.ndarray:
        """Samples converted to the reported time per message (one-way for a ping-pong)."""
        return self.samples_s / self.divisor

    @property
    def spilled(self) -> bool:
        """Whether the samples wait on disk (a large run file, records/spilled_samples.py)."""
        return isinstance(self.__dict__["_samples_s"], SpilledSamples)

    @property
    def key(self) -> tuple[str, str, int, tuple[int, ...]]:
        return (self.pattern, self.buffer, self.bytes, self.ranks)


def _samples_s(m: Measurement) -> np.ndarray:
    held = m.__dict__["_samples_s"]
    return held.load() if isinstance(held, SpilledSamples) else held


def _hold_samples(m: Measurement, value: np.ndarray | SpilledSamples) -> None:
    m.__dict__["_samples_s"] = value


# ``samples_s`` stays a constructor field (Measurement(samples_s=...), dataclasses.replace), but it
# is read through a property, so that a measurement of a large run file can hold its samples on
# disk (SpilledSamples) and give them back, as an array, each time they are used.
Measurement.samples_s = property(_samples_s, _hold_samples,  # type: ignore[assignment]
                                 doc="The raw samples, in seconds, in the order they were measured.")


@dataclass(frozen=True)
class Run:
    info: RunInfo
    launches: tuple[Launch, ...]
    measurements: tuple[Measurement, ...]
    path: str = ""

    @property
    def complete(self) -> bool:
        """Every planned (pattern, size) was measured (in ``plan.repeat`` launches) and the last
        launch ended cleanly (an earlier launch may have been killed and resumed)."""
        if not self.launches or not self.launches[-1].finished:
            return False
        return not self.missing()

    def missing(self) -> list[tuple[str, int]]:
        """Planned (pattern, size) pairs still to measure, in plan order: each must be measured
        in ``plan.repeat`` different launches (once without --repeat); a pair measured in only
        some of them appears once per launch it still lacks."""
        launches: dict[tuple[str, int], set[int]] = {}
        for m in self.measurements:
            launches.setdefault((m.pattern, m.bytes), set()).add(m.launch)
        plan = self.info.plan
        return [(p, s) for rep in range(plan.repeat) for p in plan.patterns for s in plan.sizes
                if len(launches.get((p, s), ())) <= rep]


# ---- decoding -------------------------------------------------------------------------------

def _require(obj: Mapping[str, Any], name: str, kind: type | tuple[type, ...], where: str) -> Any:
    if name not in obj:
        raise RecordError(f"{where}: missing field '{name}'")
    value = obj[name]
    if kind in (int, float) or kind == (int, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise RecordError(f"{where}: field '{name}' must be a number, got {type(value).__name__}")
        if isinstance(value, float) and not math.isfinite(value):
            raise RecordError(f"{where}: field '{name}' is not a finite number")
        if kind is int and not float(value).is_integer():
            raise RecordError(f"{where}: field '{name}' must be an integer")
        if kind is int and not -MAX_INT64 <= value <= MAX_INT64:
            raise RecordError(f"{where}: field '{name}' is beyond the 64-bit range of any count msgperf keeps")
        return int(value) if kind is int else float(value)
    if not isinstance(value, kind):
        raise RecordError(f"{where}: field '{name}' has the wrong type ({type(value).__name__})")
    return value


def _pair(value: Any, where: str, name: str) -> tuple[int, ...]:
    if (not isinstance(value, list) or not value
            or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < MAX_RANKS for v in value)):
        raise RecordError(f"{where}: field '{name}' must be a list of rank numbers (0 to {MAX_RANKS - 1})")
    return tuple(value)


def _int_in(obj: Mapping[str, Any], name: str, where: str, low: int, high: int) -> int:
    return check_int(_require(obj, name, int, where), where, name, low, high, RecordError)


def _float_in(obj: Mapping[str, Any], name: str, where: str, low: float, high: float, low_open: bool = False) -> float:
    return check_float(_require(obj, name, float, where), where, name, low, high, RecordError, low_open=low_open)


def decode_plan(obj: Any, where: str) -> Plan:
    if not isinstance(obj, dict):
        raise RecordError(f"{where}: field 'plan' must be an object")
    patterns = _require(obj, "patterns", list, where)
    sizes = _require(obj, "sizes", list, where)
    if not all(isinstance(p, str) for p in patterns):
        raise RecordError(f"{where}: plan.patterns must be strings")
    if not all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s <= MAX_EXACT for s in sizes):
        raise RecordError(f"{where}: plan.sizes must be byte counts from 0 to 2^53")
    pair = _pair(_require(obj, "pair", list, where), where, "plan.pair")
    if len(pair) != 2:
        raise RecordError(f"{where}: plan.pair must name two ranks")
    return Plan(
        patterns=tuple(pattern_name(p) for p in patterns),
        sizes=tuple(sizes),
        buffer=_require(obj, "buffer", str, where),
        pair=(pair[0], pair[1]),
        nranks=_int_in(obj, "nranks", where, 1, MAX_RANKS),
        precision=_float_in(obj, "precision", where, 0.0, 1.0),
        time_budget_s=_float_in(obj, "time_budget_s", where, 0.0, MAX_TIME_S),
        min_samples=_int_in(obj, "min_samples", where, 0, MAX_EXACT),
        max_samples=_int_in(obj, "max_samples", where, 0, MAX_EXACT),
        placement=_placement_of(obj, where),
        active=tuple(_active_of(obj, where)),
        repeat=_repeat_of(obj, where),
        total_time_s=_total_time_of(obj, where),
        iterations_per_sample=_iterations_per_sample_of(obj, where),
        after=_after_of(obj, where),
    )


AFTER_SWEEP = ("probe", "refine")


def _after_of(plan: Mapping[str, Any], where: str) -> tuple[str, ...] | None:
    value = plan.get("after")  # absent: a file from before the field
    if value is None:
        return None
    if not isinstance(value, list) or not all(v in AFTER_SWEEP for v in value):
        raise RecordError(f"{where}: plan.after must list some of {', '.join(AFTER_SWEEP)}")
    return tuple(value)


def _total_time_of(plan: Mapping[str, Any], where: str) -> float:
    value = plan.get("total_time_s", 0.0)  # files written before the field existed: per-size budgets
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= MAX_TIME_S:
        raise RecordError(f"{where}: plan.total_time_s must be seconds from 0 to {MAX_TIME_S:g}")
    return float(value)


def _iterations_per_sample_of(plan: Mapping[str, Any], where: str) -> int | None:
    value = plan.get("iterations_per_sample")  # absent: k calibrated per measurement
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise RecordError(f"{where}: plan.iterations_per_sample must be an integer >= 1")
    return value


def _repeat_of(plan: Mapping[str, Any], where: str) -> int:
    value = plan.get("repeat", 1)  # files written before the field existed: one launch
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 1000:
        raise RecordError(f"{where}: plan.repeat must be a launch count from 1 to 1000")
    return value


def _active_of(plan: Mapping[str, Any], where: str) -> list[int]:
    value = plan.get("active", [])  # files written before the field existed: the whole sweep
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) and 0 < v < MAX_RANKS
                                              for v in value):
        raise RecordError(f"{where}: plan.active must be a list of positive pair counts")
    return value


def _placement_of(plan: Mapping[str, Any], where: str) -> str:
    value = plan.get("placement", "pair")  # files written before the field existed: --pair
    if value not in PLAN_PLACEMENTS:
        raise RecordError(f"{where}: plan.placement must be {', '.join(PLAN_PLACEMENTS[:-1])} or {PLAN_PLACEMENTS[-1]}")
    return value


def decode_variant(obj: Any, where: str) -> VariantInfo:
    if not isinstance(obj, dict):
        raise RecordError(f"{where}: each variant must be an object")
    name = _require(obj, "name", str, where)
    if "active_pairs" not in obj:  # present, null when the variant is not a step of a sweep
        raise RecordError(f"{where}: missing field 'active_pairs'")
    active = obj["active_pairs"]
    if active is not None and (isinstance(active, bool) or not isinstance(active, int) or not 1 <= active < MAX_RANKS):
        raise RecordError(f"{where}: variant active_pairs must be a positive integer or null")
    return VariantInfo(name=name, active_pairs=active)


def decode_pattern_info(obj: Any, where: str) -> PatternInfo:
    """One catalog entry (``msgperf-kernels --list-patterns`` or the run record's ``catalog``)."""
    if not isinstance(obj, dict):
        raise RecordError(f"{where}: each catalog entry must be an object")
    name = _require(obj, "name", str, where)
    where = f"{where}: pattern {name!r}"
    family = _require(obj, "family", str, where)
    if family not in FAMILIES:
        raise RecordError(f"{where}: unknown family {family!r} (known: {', '.join(FAMILIES)}); upgrade msgperf")
    participants = _require(obj, "participants", str, where)
    if participants not in PARTICIPANTS:
        raise RecordError(f"{where}: participants must be pair or all, not {participants!r}")
    divisor, flows = _require(obj, "divisor", int, where), _require(obj, "flows", int, where)
    if not 0 <= divisor <= MAX_EXACT or not 1 <= flows <= MAX_RANKS:
        raise RecordError(f"{where}: divisor must be >= 0 and flows >= 1 (and at most 2^53 and {MAX_RANKS})")
    variants = _require(obj, "variants", list, where)
    if not variants:
        raise RecordError(f"{where}: a pattern writes at least one record per size (variants is empty)")
    return PatternInfo(
        name=name, family=family, modelled=_require(obj, "modelled", bool, where), participants=participants,
        even_ranks=_require(obj, "even_ranks", bool, where), metric=_require(obj, "metric", str, where), divisor=divisor,
        flows=flows, inplace_ok=_require(obj, "inplace_ok", bool, where), timing=_require(obj, "timing", str, where),
        variants=tuple(decode_variant(v, where) for v in variants))


def decode_catalog(obj: Any, where: str) -> tuple[PatternInfo, ...]:
    if not isinstance(obj, list):
        raise RecordError(f"{where}: the catalog must be a list of patterns")
    catalog = tuple(decode_pattern_info(p, where) for p in obj)
    names = [p.name for p in catalog]
    if len(set(names)) != len(names):
        twice = next(n for n in names if names.count(n) > 1)
        raise RecordError(f"{where}: the catalog lists pattern {twice!r} twice")
    return catalog


def decode_run(obj: Mapping[str, Any], where: str) -> RunInfo:
    version = _require(obj, "format_version", int, where)
    if version > FORMAT_VERSION:
        raise RecordError(
            f"{where}: run file format version {version} is newer than this msgperf reads "
            f"({FORMAT_VERSION}); upgrade msgperf")
    if version < 1:
        raise RecordError(f"{where}: unknown run file format version {version}")
    if obj.get("format") != FORMAT_NAME:
        raise RecordError(f"{where}: not a msgperf run file (format is {obj.get('format')!r})")
    return RunInfo(
        format_version=version,
        msgperf_version=_require(obj, "msgperf_version", str, where),
        command_line=_require(obj, "command_line", str, where),
        start_time=_require(obj, "start_time", str, where),
        plan=decode_plan(obj.get("plan"), where),
        source=obj.get("source", "msgperf") if isinstance(obj.get("source", ""), str) else "msgperf",
        catalog=decode_catalog(obj.get("catalog", []), where),  # absent before format 2
    )


def decode_launch(obj: Mapping[str, Any], where: str) -> Launch:
    ranks_raw = _require(obj, "ranks", list, where)
    ranks = []
    for r in ranks_raw:
        if not isinstance(r, dict):
            raise RecordError(f"{where}: each entry of 'ranks' must be an object")
        ranks.append(RankPlacement(rank=_int_in(r, "rank", where, 0, MAX_RANKS - 1),
                                   host=_require(r, "host", str, where),
                                   cpu=_int_in(r, "cpu", where, -1, MAX_RANKS),
                                   node=_int_in(r, "node", where, 0, MAX_RANKS - 1)))
    clock = _require(obj, "clock", dict, where)
    env = _require(obj, "environment", dict, where)
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
        raise RecordError(f"{where}: 'environment' must map names to strings")
    pair = _pair(_require(obj, "pair", list, where), where, "pair")
    return Launch(
        index=_int_in(obj, "launch", where, 0, MAX_LAUNCH),
        mpi_library=_require(obj, "mpi_library", str, where),
        mpi_version=_require(obj, "mpi_version", str, where),
        nranks=_int_in(obj, "nranks", where, 1, MAX_RANKS),
        ranks=tuple(ranks),
        pair=(pair[0], pair[-1]),
        pair_shares_node=_require(obj, "pair_shares_node", bool, where),
        clock=ClockSelfTest(
            source=_require(clock, "source", str, where),
            resolution_s=_float_in(clock, "resolution_s", where, 0.0, MAX_TIME_S),
            overhead_s=_float_in(clock, "overhead_s", where, 0.0, MAX_TIME_S),
            monotonic=_require(clock, "monotonic", bool, where),
            reported_resolution_s=_float_in(clock, "reported_resolution_s", where, 0.0, MAX_TIME_S),
            mpi_wtick_s=_float_in(clock, "mpi_wtick_s", where, 0.0, MAX_TIME_S),
        ),
        environment=dict(env),
        start_time=_require(obj, "start_time", str, where),
        launcher_command_line=_optional_str(obj, "launcher_command_line", where),
        host_facts=decode_host_facts(obj.get("host_facts", []), where),  # absent in older files
        mpi_t_cvars=decode_cvars(obj.get("mpi_t_cvars"), where),
        host=decode_launch_host(obj["host"], where) if obj.get("host") is not None else None,
    )


def _optional_count(obj: Mapping[str, Any], name: str, where: str) -> int | None:
    value = obj.get(name)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise RecordError(f"{where}: host_facts {name} must be a non-negative integer or null")
    return value


def decode_host_facts(obj: Any, where: str) -> tuple[HostFacts, ...]:
    if not isinstance(obj, list) or not all(isinstance(h, dict) for h in obj):
        raise RecordError(f"{where}: 'host_facts' must be a list of objects")
    facts = []
    for h in obj:
        smt = _require(h, "smt", str, where)
        if smt not in SMT_STATES:
            raise RecordError(f"{where}: host_facts smt must be on, off or unknown")
        facts.append(HostFacts(
            host=_require(h, "host", str, where), cpu_model=_require(h, "cpu_model", str, where),
            logical_cpus=_optional_count(h, "logical_cpus", where),
            physical_cores=_optional_count(h, "physical_cores", where),
            usable_cpus=_optional_count(h, "usable_cpus", where),
            memory_bytes=_optional_count(h, "memory_bytes", where), ranks=_optional_count(h, "ranks", where),
            smt=smt, os=_require(h, "os", str, where), kernel=_require(h, "kernel", str, where),
            arch=_require(h, "arch", str, where), governor=_require(h, "governor", str, where)))
    return tuple(facts)


NOT_FINITE_CVAR = "not a finite number"


def decode_cvars(obj: Any, where: str) -> dict[str, CvarValue] | None:
    if obj is None:
        return None
    if isinstance(obj, dict):  # the kernels write null for a double JSON cannot hold (nan, inf)
        obj = {k: NOT_FINITE_CVAR if v is None else v for k, v in obj.items()}
    if not isinstance(obj, dict) or not all(
            isinstance(v, (int, float, str)) and not isinstance(v, bool) for v in obj.values()):
        raise RecordError(f"{where}: 'mpi_t_cvars' must map names to numbers or strings")
    if any(isinstance(v, float) and not math.isfinite(v) for v in obj.values()):
        raise RecordError(f"{where}: 'mpi_t_cvars' holds a number that is not finite")
    return dict(obj)


def _number(obj: Mapping[str, Any], name: str, where: str, optional: bool = True) -> float | None:
    value = obj.get(name)
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise RecordError(f"{where}: launch_host {name} must be a non-negative number")
    return float(value)


def _host_load(obj: Any, where: str) -> HostLoad | None:
    if obj is None:
        return None
    if not isinstance(obj, dict):
        raise RecordError(f"{where}: launch_host before/after must be objects")
    runnable = obj.get("runnable")
    return HostLoad(_number(obj, "load_1m", where, False), _number(obj, "load_5m", where, False),
                    _number(obj, "load_15m", where, False),
                    runnable if isinstance(runnable, int) and not isinstance(runnable, bool) else None)


def decode_launch_host(obj: Any, where: str) -> LaunchHost:
    """A ``launch_host`` record (or the ``host`` member of a launch record msgperf wrote itself)."""
    if not isinstance(obj, dict):
        raise RecordError(f"{where}: launch_host must be an object")
    progress = obj.get("progress", {})
    if not isinstance(progress, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in progress.items()):
        raise RecordError(f"{where}: launch_host progress must map names to strings")

    def cores(name: str) -> int | None:
        value = obj.get(name)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise RecordError(f"{where}: launch_host {name} must be a count >= 1")
        return value

    host = obj.get("host", "")
    return LaunchHost(host=host if isinstance(host, str) else "", usable_cores=cores("usable_cores"),
                      online_cores=cores("online_cores"), progress=dict(progress),
                      before=_host_load(obj.get("before"), where), after=_host_load(obj.get("after"), where),
                      interval_s=_number(obj, "interval_s", where) or 0.0,
                      steal_fraction=_number(obj, "steal_fraction", where),
                      other_cores=_number(obj, "other_cores", where))


def encode_launch_host(host: LaunchHost) -> dict[str, Any]:
    d = dataclasses.asdict(host)
    d["progress"] = dict(host.progress)
    return d


def _check_pair_samples(obj: Mapping[str, Any], where: str) -> None:
    """``pair_samples_s`` (pairs, matrix): one list of samples per pair of ``pairs``, each sample a
    positive finite time like ``samples_s``."""
    if "pair_samples_s" not in obj:
        return
    lists, pairs = obj["pair_samples_s"], obj.get("pairs")
    if not isinstance(lists, list) or not isinstance(pairs, list) or len(lists) != len(pairs):
        raise RecordError(f"{where}: pair_samples_s must hold one list of samples per entry of pairs")
    for i, samples in enumerate(lists):
        if not isinstance(samples, list) or not samples or not all(
                isinstance(s, (int, float)) and not isinstance(s, bool) and math.isfinite(s) and s > 0
                for s in samples):
            raise RecordError(f"{where}: pair_samples_s[{i}] must be a non-empty list of positive, finite "
                              "times (a clock or overflow fault, not a measurement)")


def _optional_str(obj: Mapping[str, Any], name: str, where: str) -> str | None:
    value = obj.get(name)
    if value is not None and not isinstance(value, str):
        raise RecordError(f"{where}: {name} must be a string")
    return value


def decode_measurement(obj: Mapping[str, Any], where: str) -> Measurement:
    samples = _require(obj, "samples_s", list, where)
    if not samples:
        raise RecordError(f"{where}: a measurement needs at least one sample")
    if not all(isinstance(s, (int, float)) and not isinstance(s, bool) for s in samples):
        raise RecordError(f"{where}: samples_s must hold numbers")
    try:
        array = np.asarray(samples, dtype=np.float64)
    except OverflowError:  # an integer beyond a double (10^400)
        array = np.asarray([float("inf") if abs(s) > MAX_INT64 else s for s in samples], dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(array) | (array <= 0))
    if bad.size:
        i = int(bad[0])
        raise RecordError(
            f"{where}: sample {i} is {_number_text(samples[i])} s; a time must be positive and finite "
            "(a clock or overflow fault, not a measurement)")
    k = _require(obj, "k", int, where)
    divisor = _require(obj, "divisor", int, where)
    size = _require(obj, "bytes", int, where)
    if k < 1 or divisor < 1 or size < 0:
        raise RecordError(f"{where}: k and divisor must be >= 1 and bytes >= 0")
    if k > MAX_EXACT or divisor > MAX_EXACT or size > MAX_EXACT:
        raise RecordError(f"{where}: k, divisor and bytes must be at most 2^53 (k {k}, divisor {divisor}, "
                          f"bytes {size}); no real measurement comes near")
    _check_sample_range(array, divisor, where)
    stop = _require(obj, "stop_reason", str, where)
    if stop not in STOP_REASONS:
        raise RecordError(f"{where}: unknown stop_reason {stop!r}")
    validation = _require(obj, "validation", str, where)
    first = obj.get("first_s")
    if first is not None:
        first = _float_in(obj, "first_s", where, 0.0, MAX_TIME_S, low_open=True)
    warmup = _int_in(obj, "warmup", where, 0, MAX_EXACT) if obj.get("warmup") is not None else 0
    elapsed = _float_in(obj, "elapsed_s", where, 0.0, 10 * MAX_TIME_S) if obj.get("elapsed_s") is not None else 0.0
    known = {"type", "pattern", "bytes", "buffer", "ranks", "k", "divisor", "samples_s",
             "stop_reason", "validation", "launch", "timing", "metric", "first_s", "warmup",
             "elapsed_s", "flows", "variant"}
    flows = obj.get("flows", 1)
    if isinstance(flows, bool) or not isinstance(flows, int) or not 1 <= flows <= MAX_RANKS:
        raise RecordError(f"{where}: flows must be an integer from 1 to {MAX_RANKS}")
    launch = obj.get("launch", 0)
    if isinstance(launch, bool) or not isinstance(launch, int) or not 0 <= launch <= MAX_LAUNCH:
        raise RecordError(f"{where}: launch must be a launch index from 0 to {MAX_LAUNCH}")
    variant = obj.get("variant", "")
    if not isinstance(variant, str):
        raise RecordError(f"{where}: variant must be a string")
    _check_pair_samples(obj, where)
    _check_extra(obj, where)
    placement = obj.get("placement", "")
    if placement != "" and placement not in PAIR_PLACEMENTS:
        raise RecordError(f"{where}: placement must be one of {', '.join(repr(p) for p in PAIR_PLACEMENTS)}")
    return Measurement(
        pattern=pattern_name(_require(obj, "pattern", str, where)),
        bytes=size,
        buffer=_require(obj, "buffer", str, where),
        ranks=_pair(_require(obj, "ranks", list, where), where, "ranks"),
        k=k,
        divisor=divisor,
        samples_s=array,
        stop_reason=stop,
        validated=validation == "ok",
        launch=launch,
        timing=obj.get("timing", "") if isinstance(obj.get("timing", ""), str) else "",
        metric=obj.get("metric", "one_way") if isinstance(obj.get("metric", ""), str) else "",
        first_s=first,
        warmup=warmup,
        elapsed_s=elapsed,
        flows=flows,
        variant=variant,
        extra={k2: v for k2, v in obj.items() if k2 not in known},
        placement=placement,
    )


def _is_int(v: Any, low: int, high: int) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and low <= v <= high


def _is_time(v: Any, low_open: bool = True) -> bool:
    return (isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
            and (v > 0 if low_open else v >= 0) and v <= MAX_TIME_S)


def _is_rank_pair(v: Any) -> bool:
    return isinstance(v, list) and len(v) == 2 and all(_is_int(r, 0, MAX_RANKS - 1) for r in v)


# The pattern-specific fields (docs/record-format.md) the analysis reads: name -> (check, what it must be).
EXTRA_FIELDS: dict[str, tuple[Any, str]] = {
    "pairs": (lambda v: isinstance(v, list) and all(_is_rank_pair(p) for p in v), "a list of [rank, rank] pairs"),
    "pair_median_s": (lambda v: isinstance(v, list) and all(_is_time(t) for t in v),
                      "a list of times in (0, 1e6] s"),
    "active_pairs": (lambda v: _is_int(v, 1, MAX_RANKS - 1), "a pair count from 1"),
    "round": (lambda v: _is_int(v, 0, 2 * MAX_RANKS), "a round number from 0"),
    "rounds": (lambda v: _is_int(v, 1, 2 * MAX_RANKS), "a round count from 1"),
    "window": (lambda v: _is_int(v, 1, MAX_EXACT), "a message count from 1"),
    "messages_per_iteration": (lambda v: _is_int(v, 1, MAX_EXACT), "a message count from 1"),
    "bsend_buffer_bytes": (lambda v: _is_int(v, 0, MAX_EXACT), "a byte count"),
    "k_messages": (lambda v: _is_int(v, 1, MAX_EXACT), "a message count from 1"),
    "message_bytes": (lambda v: _is_int(v, 0, MAX_EXACT), "a byte count"),
    "combined": (lambda v: isinstance(v, bool), "true or false"),
    "compute_s": (lambda v: _is_time(v, low_open=False), "a time in [0, 1e6] s"),
    "eager": (lambda v: isinstance(v, bool), "true or false"),
    "capacity_capped": (lambda v: isinstance(v, bool), "true or false"),
    "eager_limit_bytes": (lambda v: v is None or _is_int(v, 0, MAX_EXACT), "a byte count or null"),
    "eager_limit_low_bytes": (lambda v: v is None or _is_int(v, 0, MAX_EXACT), "a byte count or null"),
    "eager_limit_high_bytes": (lambda v: v is None or _is_int(v, 0, MAX_EXACT), "a byte count or null"),
    "unexpected_capacity": (lambda v: _is_int(v, 0, MAX_EXACT), "a message count"),
    "probe_deadline_s": (lambda v: _is_time(v, low_open=False), "a time in [0, 1e6] s"),
    "probe_max_bytes": (lambda v: _is_int(v, 0, MAX_EXACT), "a byte count"),
    "first_message_of_job_s": (lambda v: _is_time(v), "a time in (0, 1e6] s"),
    "n": (lambda v: _is_int(v, 1, 1 << 20), "a message count from 1 to 2^20"),
    "loggp_tests": (lambda v: _is_int(v, 1, 1 << 20), "a test count from 1 to 2^20"),
    "d_s": (lambda v: _is_time(v, low_open=False), "a time in [0, 1e6] s"),
    "prtt_1_0_s": (lambda v: _is_time(v), "a time in (0, 1e6] s"),
    "prtt_n_0_s": (lambda v: _is_time(v), "a time in (0, 1e6] s"),
    "prtt_n_d_s": (lambda v: _is_time(v), "a time in (0, 1e6] s"),
    "send_call_s": (lambda v: _is_time(v, low_open=False), "a time in [0, 1e6] s"),
    "recv_call_s": (lambda v: _is_time(v, low_open=False), "a time in [0, 1e6] s"),
    "synchronised": (lambda v: isinstance(v, bool), "true or false"),
    "barrier": (lambda v: isinstance(v, bool), "true or false"),
}


def _check_extra(obj: Mapping[str, Any], where: str) -> None:
    """The pattern-specific fields, when present, have the types and ranges the analysis relies on."""
    for name, (ok, what) in EXTRA_FIELDS.items():
        if name in obj and not ok(obj[name]):
            raise RecordError(f"{where}: field '{name}' must be {what}")
    pairs, medians = obj.get("pairs"), obj.get("pair_median_s")
    if pairs is not None and medians is not None and len(pairs) != len(medians):
        raise RecordError(f"{where}: 'pairs' lists {len(pairs)} pairs but 'pair_median_s' {len(medians)} times")


def _number_text(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 25 else f"a number of {len(text)} digits"


def _check_sample_range(array: np.ndarray, divisor: int, where: str) -> None:
    """Samples at most MAX_TIME_S, and at least MIN_PER_MESSAGE_S once divided per message (a
    smaller time is a clock fault, and it breaks the fits' arithmetic)."""
    bad = np.flatnonzero((array > MAX_TIME_S) | (array / divisor < MIN_PER_MESSAGE_S))
    if bad.size:
        i = int(bad[0])
        raise RecordError(
            f"{where}: sample {i} is {float(array[i])!r} s (divisor {divisor}); a sample must be at most "
            f"{MAX_TIME_S:g} s and at least {MIN_PER_MESSAGE_S:g} s per message (a clock fault, not a measurement)")


# ---- encoding (imports and tests write run files through these) ------------------------------

def encode_plan(plan: Plan) -> dict[str, Any]:
    d = dataclasses.asdict(plan)
    d["patterns"], d["sizes"], d["pair"] = list(plan.patterns), list(plan.sizes), list(plan.pair)
    d["active"] = list(plan.active)
    if plan.iterations_per_sample is None:
        del d["iterations_per_sample"]
    if plan.after is None:
        del d["after"]
    else:
        d["after"] = list(plan.after)
    return d


def encode_pattern_info(p: PatternInfo) -> dict[str, Any]:
    d = dataclasses.asdict(p)
    d["variants"] = [dataclasses.asdict(v) for v in p.variants]
    return d


def encode_catalog(catalog: tuple[PatternInfo, ...]) -> list[dict[str, Any]]:
    return [encode_pattern_info(p) for p in catalog]


def encode_run(info: RunInfo) -> dict[str, Any]:
    d = {"type": "run", "format": FORMAT_NAME, "format_version": info.format_version,
         "msgperf_version": info.msgperf_version, "command_line": info.command_line,
         "start_time": info.start_time, "source": info.source, "plan": encode_plan(info.plan)}
    if info.catalog:  # version 1 files and imported runs have none
        d["catalog"] = encode_catalog(info.catalog)
    return d


def encode_launch(launch: Launch) -> dict[str, Any]:
    return {"type": "launch", "launch": launch.index, "mpi_library": launch.mpi_library,
            "mpi_version": launch.mpi_version, "nranks": launch.nranks,
            "ranks": [dataclasses.asdict(r) for r in launch.ranks], "pair": list(launch.pair),
            "pair_shares_node": launch.pair_shares_node, "clock": dataclasses.asdict(launch.clock),
            "environment": dict(launch.environment), "start_time": launch.start_time,
            **({"launcher_command_line": launch.launcher_command_line}
               if launch.launcher_command_line is not None else {}),
            **({"host_facts": [dataclasses.asdict(h) for h in launch.host_facts]} if launch.host_facts else {}),
            **({"mpi_t_cvars": dict(launch.mpi_t_cvars)} if launch.mpi_t_cvars is not None else {}),
            **({"host": encode_launch_host(launch.host)} if launch.host is not None else {})}


def encode_launch_end(launch: Launch) -> dict[str, Any]:
    end = {"type": "launch_end", "launch": launch.index, "end_time": launch.end_time,
           "cpus": list(launch.end_cpus or ())}
    if launch.max_rss_kib is not None:
        end["max_rss_kib"] = list(launch.max_rss_kib)
    return end


def encode_launch_abort(index: int, time: str, reason: str) -> dict[str, Any]:
    return {"type": "launch_abort", "launch": index, "time": time, "reason": reason}


def encode_measurement(m: Measurement) -> dict[str, Any]:
    d = {"type": "measurement", "launch": m.launch, "pattern": m.pattern, "bytes": m.bytes,
         "buffer": m.buffer, "ranks": list(m.ranks), "k": m.k, "divisor": m.divisor,
         "metric": m.metric, "timing": m.timing, "warmup": m.warmup, "first_s": m.first_s,
         "elapsed_s": m.elapsed_s, "stop_reason": m.stop_reason,
         "validation": "ok" if m.validated else "mismatch",
         "samples_s": [float(x) for x in m.samples_s]}
    if m.flows != 1:
        d["flows"] = m.flows
    if m.variant:
        d["variant"] = m.variant
    d.update(m.extra)
    if m.placement:
        d["placement"] = m.placement
    return d
