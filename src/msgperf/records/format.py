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

This module turns already-decoded JSON objects into immutable records (``Value``s; ``Measurement`` a
frozen dataclass) and back; reading
bytes from disk is ``records.read``'s job.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

import msgspec
import numpy as np

from msgperf.errors import MsgperfError
from msgperf.plan import PAIR_PLACEMENTS, PLAN_PLACEMENTS, Plan
from msgperf.records.fields import (decode, flag, int_items, integer, items, nullable, number, record, records,
                                    strings_map, text)
from msgperf.records.limits import MAX_EXACT, MAX_INT64, MAX_RANKS, MAX_TIME_S, MIN_PER_MESSAGE_S
from msgperf.records.pattern_names import metric_name, pattern_name
from msgperf.records.spilled_samples import SpilledSamples
from msgperf.values import Value

FORMAT_NAME = "msgperf-run"
FORMAT_VERSION = 3  # 3: launch_host records; 2: the run record's "catalog" (docs/record-format.md, history)

STOP_REASONS = ("precision", "time_budget", "max_samples", "imported")
MAX_LAUNCH = 1 << 20  # launch indices: --repeat is at most 1000, each resume adds one
# A pattern's family in the catalog (kernels/catalog.c names them; a new one is a format change).
FAMILIES = ("pingpong", "bidirectional", "compat", "many-ranks", "buffering", "combining", "overlap", "probe",
            "hardware", "collective")
PARTICIPANTS = ("pair", "all")  # the --pair (other ranks idle), or every rank


class RecordError(MsgperfError):
    """A record that does not follow the format."""


class VariantInfo(Value):
    """One record the kernels write per size for a pattern."""

    name: str  # the record's ``variant`` ("" when the record has none)
    active_pairs: int | None = None  # concurrent pairs of this step of a contention sweep (pairs)


class PatternInfo(Value):
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


class RunInfo(Value):
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


class RankPlacement(Value):
    rank: int
    host: str
    cpu: int  # -1 where unknown
    node: int  # index of the rank's shared-memory node (MPI_COMM_TYPE_SHARED)


class ClockSelfTest(Value):
    source: str
    resolution_s: float
    overhead_s: float
    monotonic: bool
    reported_resolution_s: float  # what clock_getres() claims
    mpi_wtick_s: float


SMT_STATES = ("on", "off", "unknown")


class HostFacts(Value):
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


class HostLoad(Value):
    """/proc/loadavg on the launching node at one instant."""

    load_1m: float
    load_5m: float
    load_15m: float
    runnable: int | None = None  # tasks runnable at that instant (the reader included)


class LaunchHost(Value):
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


class Launch(Value):
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
    def sample_count(self) -> int:
        """How many samples, without reading those that wait on disk."""
        held = self.__dict__["_samples_s"]
        return held.count if isinstance(held, SpilledSamples) else int(held.size)

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


class Run(Value):
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


# ---- decoding: each record type is a table of its fields (records/fields.py) ------------------

AFTER_SWEEP = ("probe", "refine")
NOT_FINITE_CVAR = "not a finite number"
_RANKS = "a list of rank numbers (0 to %d)" % (MAX_RANKS - 1)

ROOTS = ("0", "rotate")  # --root: rank 0 every call (as OSU), or rotating (as IMB)

PLAN_FIELDS = (
    items("patterns", lambda v: isinstance(v, str), "a list of pattern names", convert=pattern_name),
    int_items("sizes", 0, MAX_EXACT, "a list of byte counts from 0 to 2^53"),
    text("buffer"),
    int_items("pair", 0, MAX_RANKS - 1, f"two rank numbers (0 to {MAX_RANKS - 1})", length=2),
    integer("nranks", 1, MAX_RANKS),
    number("precision", 0.0, 1.0),
    number("time_budget_s", 0.0, MAX_TIME_S),
    integer("min_samples", 0, MAX_EXACT),
    integer("max_samples", 0, MAX_EXACT),
    text("placement", choices=PLAN_PLACEMENTS, default="pair"),  # absent in older files: --pair
    int_items("active", 1, MAX_RANKS - 1, "a list of positive pair counts", default=()),
    integer("repeat", 1, 1000, default=1),  # absent in older files: one launch
    number("total_time_s", 0.0, MAX_TIME_S, default=0.0),  # absent in older files: per-size budgets
    integer("iterations_per_sample", 1, MAX_EXACT, default=None),  # absent: k calibrated per measurement
    nullable(items("after", lambda v: v in AFTER_SWEEP, f"some of {', '.join(AFTER_SWEEP)}")),
    # the collectives' methodology; absent in older files: rank 0, no barrier, the same buffers
    text("root", choices=ROOTS, default="0"),
    flag("iteration_barrier", default=False),
    flag("off_cache", default=False),
)

VARIANT_FIELDS = (
    text("name"),
    integer("active_pairs", 1, MAX_RANKS - 1, default=None),  # null when the variant is no step of a sweep
)

PATTERN_FIELDS = (
    text("name"),
    text("family"),  # checked against FAMILIES with its own advice (upgrade msgperf)
    flag("modelled"),
    text("participants", choices=PARTICIPANTS),
    flag("even_ranks"),
    text("metric"),
    integer("divisor", 0, MAX_EXACT),
    integer("flows", 1, MAX_RANKS),
    flag("inplace_ok"),
    text("timing"),
    records("variants", VARIANT_FIELDS, VariantInfo, "variants, one per record per size", nonempty=True),
)

RANK_FIELDS = (
    integer("rank", 0, MAX_RANKS - 1),
    text("host"),
    integer("cpu", -1, MAX_RANKS),
    integer("node", 0, MAX_RANKS - 1),
)

CLOCK_FIELDS = (
    text("source"),
    number("resolution_s", 0.0, MAX_TIME_S),
    number("overhead_s", 0.0, MAX_TIME_S),
    flag("monotonic"),
    number("reported_resolution_s", 0.0, MAX_TIME_S),
    number("mpi_wtick_s", 0.0, MAX_TIME_S),
)

HOST_FACTS_FIELDS = (
    text("host"),
    text("cpu_model"),
    *(integer(name, 0, MAX_INT64, default=None)  # null: the host does not expose it
      for name in ("logical_cpus", "physical_cores", "usable_cpus", "memory_bytes", "ranks")),
    text("smt", choices=SMT_STATES),
    text("os"),
    text("kernel"),
    text("arch"),
    text("governor"),
)

HOST_LOAD_FIELDS = (
    number("load_1m", 0.0, math.inf),
    number("load_5m", 0.0, math.inf),
    number("load_15m", 0.0, math.inf),
    integer("runnable", 0, MAX_INT64, default=None),
)

LAUNCH_HOST_FIELDS = (
    text("host", default="", wrong=""),
    integer("usable_cores", 1, MAX_INT64, default=None),
    integer("online_cores", 1, MAX_INT64, default=None),
    strings_map("progress", default=dict),
    record("before", HOST_LOAD_FIELDS, HostLoad, default=None),
    record("after", HOST_LOAD_FIELDS, HostLoad, default=None),
    number("interval_s", 0.0, math.inf, default=0.0),
    number("steal_fraction", 0.0, math.inf, default=None),
    number("other_cores", 0.0, math.inf, default=None),
)

RUN_FIELDS = (
    text("msgperf_version"),
    text("command_line"),
    text("start_time"),
    record("plan", PLAN_FIELDS, Plan),
    text("source", default="msgperf", wrong="msgperf"),
)

LAUNCH_FIELDS = (
    integer("launch", 0, MAX_LAUNCH, attr="index"),
    text("mpi_library"),
    text("mpi_version"),
    integer("nranks", 1, MAX_RANKS),
    records("ranks", RANK_FIELDS, RankPlacement, "rank placements"),
    int_items("pair", 0, MAX_RANKS - 1, _RANKS, nonempty=True),  # the first and the last are the pair
    flag("pair_shares_node"),
    record("clock", CLOCK_FIELDS, ClockSelfTest),
    strings_map("environment"),
    text("start_time"),
    nullable(text("launcher_command_line")),
    records("host_facts", HOST_FACTS_FIELDS, HostFacts, "host facts", default=()),  # absent in older files
)

MEASUREMENT_FIELDS = (
    text("pattern", convert=pattern_name),
    integer("bytes", 0, MAX_EXACT),
    text("buffer"),
    int_items("ranks", 0, MAX_RANKS - 1, _RANKS, nonempty=True),
    integer("k", 1, MAX_EXACT),
    integer("divisor", 1, MAX_EXACT),
    text("stop_reason", choices=STOP_REASONS),
    integer("launch", 0, MAX_LAUNCH, default=0, whole_floats=False),
    text("timing", default="", wrong=""),
    text("metric", default="one_way", wrong=""),
    number("first_s", 0.0, MAX_TIME_S, low_open=True, default=None),  # the cold first iteration
    integer("warmup", 0, MAX_EXACT, default=0),
    number("elapsed_s", 0.0, 10 * MAX_TIME_S, default=0.0),
    integer("flows", 1, MAX_RANKS, default=1, whole_floats=False),
    text("variant", default=""),
    text("placement", choices=("", *PAIR_PLACEMENTS), default=""),
)
# The record's own members; the rest is the pattern's (``extra``), and so is ``placement`` (so that
# the rows built from measurements, ``msgperf show --json``, carry it).
_MEASUREMENT_KNOWN = frozenset({"type", "samples_s", "validation",
                                *(f.name for f in MEASUREMENT_FIELDS if f.name != "placement")})


_FORMAT_VERSION, _VALIDATION = integer("format_version"), text("validation")


def decode_plan(obj: Any, where: str) -> Plan:
    return Plan(**decode(PLAN_FIELDS, obj, where, RecordError, "field 'plan'", "plan."))


def decode_pattern_info(obj: Any, where: str) -> PatternInfo:
    """One catalog entry (``msgperf-kernels --list-patterns`` or the run record's ``catalog``)."""
    if isinstance(obj, dict) and isinstance(obj.get("name"), str):
        where = f"{where}: pattern {obj['name']!r}"
    if isinstance(obj, dict) and isinstance(obj.get("variants"), list):
        for v in obj["variants"]:
            if isinstance(v, dict) and "active_pairs" not in v:
                raise RecordError(f"{where}: missing field 'active_pairs'")
    fields = decode(PATTERN_FIELDS, obj, where, RecordError, "each catalog entry")
    if fields["family"] not in FAMILIES:
        raise RecordError(f"{where}: unknown family {fields['family']!r} (known: {', '.join(FAMILIES)}); "
                          "upgrade msgperf")
    fields["metric"] = metric_name(fields["name"], fields["metric"])
    return PatternInfo(**fields)


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
    version = _FORMAT_VERSION.read(obj, where, RecordError)
    if version > FORMAT_VERSION:
        raise RecordError(
            f"{where}: run file format version {version} is newer than this msgperf reads "
            f"({FORMAT_VERSION}); upgrade msgperf")
    if version < 1:
        raise RecordError(f"{where}: unknown run file format version {version}")
    if obj.get("format") != FORMAT_NAME:
        raise RecordError(f"{where}: not a msgperf run file (format is {obj.get('format')!r})")
    return RunInfo(format_version=version, **decode(RUN_FIELDS, obj, where, RecordError),
                   catalog=decode_catalog(obj.get("catalog", []), where))  # absent before format 2


def decode_launch(obj: Mapping[str, Any], where: str) -> Launch:
    fields = decode(LAUNCH_FIELDS, obj, where, RecordError)
    pair = fields["pair"]
    fields["pair"] = (pair[0], pair[-1])
    return Launch(**fields, mpi_t_cvars=decode_cvars(obj.get("mpi_t_cvars"), where),
                  host=decode_launch_host(obj["host"], where) if obj.get("host") is not None else None)


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


def decode_launch_host(obj: Any, where: str) -> LaunchHost:
    """A ``launch_host`` record (or the ``host`` member of a launch record msgperf wrote itself)."""
    return LaunchHost(**decode(LAUNCH_HOST_FIELDS, obj, where, RecordError, "launch_host"))


def encode_launch_host(host: LaunchHost) -> dict[str, Any]:
    d = msgspec.structs.asdict(host)
    d["progress"] = dict(host.progress)
    for when in ("before", "after"):
        d[when] = None if d[when] is None else msgspec.structs.asdict(d[when])
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


_PLAIN_NUMBERS = frozenset((int, float))


def _samples(obj: Mapping[str, Any], where: str) -> np.ndarray:
    samples = obj.get("samples_s")
    if samples is None:
        raise RecordError(f"{where}: missing field 'samples_s'")
    if not isinstance(samples, list):
        raise RecordError(f"{where}: field 'samples_s' has the wrong type ({type(samples).__name__})")
    if not samples:
        raise RecordError(f"{where}: a measurement needs at least one sample")
    # JSON's numbers are int and float: one pass of type() over them, the slower test only otherwise
    if not set(map(type, samples)) <= _PLAIN_NUMBERS and not all(
            isinstance(s, (int, float)) and not isinstance(s, bool) for s in samples):
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
    return array


def decode_measurement(obj: Mapping[str, Any], where: str) -> Measurement:
    array = _samples(obj, where)
    fields = decode(MEASUREMENT_FIELDS, obj, where, RecordError)
    _check_sample_range(array, fields["divisor"], where)
    validation = _VALIDATION.read(obj, where, RecordError)
    _check_pair_samples(obj, where)
    _check_extra(obj, where)
    fields["metric"] = metric_name(fields["pattern"], fields["metric"])
    return Measurement(**fields, samples_s=array, validated=validation == "ok",
                       extra={k: v for k, v in obj.items() if k not in _MEASUREMENT_KNOWN})


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
    d = msgspec.structs.asdict(plan)
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
    d = msgspec.structs.asdict(p)
    d["variants"] = [msgspec.structs.asdict(v) for v in p.variants]
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
            "ranks": [msgspec.structs.asdict(r) for r in launch.ranks], "pair": list(launch.pair),
            "pair_shares_node": launch.pair_shares_node, "clock": msgspec.structs.asdict(launch.clock),
            "environment": dict(launch.environment), "start_time": launch.start_time,
            **({"launcher_command_line": launch.launcher_command_line}
               if launch.launcher_command_line is not None else {}),
            **({"host_facts": [msgspec.structs.asdict(h) for h in launch.host_facts]} if launch.host_facts else {}),
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
