"""What to measure, validated before anything runs: sizes, ranks, precision, budget.

The grammar matches the kernels' own parser (kernels/units.c), so a plan written here and a
standalone ``msgperf-kernels --sizes ...`` mean the same thing. What the patterns are (their
names, the ranks they need, the records they write) is not restated here: it comes from the
kernel binary's catalog (``launch/catalog.py``), checked by ``Plan.validate``.
"""

from __future__ import annotations

import math
import os
import re
from typing import TYPE_CHECKING, Iterable

import msgspec

from msgperf.errors import MsgperfError
from msgperf.records.limits import MAX_BUDGET_S, MAX_SIZES
from msgperf.values import Value

if TYPE_CHECKING:
    from msgperf.records.format import PatternInfo

MAX_COUNT = 2**31 - 1  # the largest count of one MPI_BYTE message without large-count support
BUFFERS = ("separate", "inplace")
MIN_SAMPLES, MAX_SAMPLES = 6, 100_000_000  # a median's confidence interval needs 6 samples
MAX_ITERATIONS_PER_SAMPLE = 1_000_000_000

# Where the measured pair sits: one vocabulary for the options, the plan, the records and listings.
PAIR_PLACEMENTS = ("intra", "inter")  # a measurement's pair: on one host, on different hosts
PLACEMENTS = (*PAIR_PLACEMENTS, "both")  # --placement: the kernels choose the pair (both: one of each)
PLAN_PLACEMENTS = ("pair", *PLACEMENTS)  # a plan's: "pair" is the --pair as given
PLACEMENT_WORDS = {"intra": "intra-node", "inter": "inter-node", "both": "intra- and inter-node"}

_UNITS = {"": 1, "b": 1, "k": 2**10, "kb": 2**10, "kib": 2**10, "m": 2**20, "mb": 2**20,
          "mib": 2**20, "g": 2**30, "gb": 2**30, "gib": 2**30}
_SIZE = re.compile(r"^\s*(-?)(\d+)\s*([a-zA-Z]*)\s*$")


def parse_size(text: str) -> int:
    """'64' -> 64, '4K' -> 4096, '1M' -> 1048576 (K, M, G are powers of 1024)."""
    m = _SIZE.match(text)
    if not m:
        raise MsgperfError(f"cannot read size '{text}'; write bytes like 64, 4K, 1M or 2G")
    sign, digits, unit = m.groups()
    if sign:
        raise MsgperfError(f"size '{text}' is negative; sizes are byte counts >= 0")
    if unit.lower() not in _UNITS:
        raise MsgperfError(f"unknown unit in size '{text}'; use K, M or G (powers of 1024)")
    return int(digits) * _UNITS[unit.lower()]


def parse_sizes(text: str) -> tuple[int, ...]:
    """A list '0,1,4K', a power-of-two range '1:64M' (0 first if the range starts at 0), or a
    range with an integer ratio '1:64M:4'; items may be mixed: '0,16:1K'."""
    sizes: list[int] = []
    if not text or not text.strip():
        raise MsgperfError("no sizes given; use a list like 0,1,4K or a range like 1:64M")
    for item in text.split(","):
        parts = item.split(":")
        if len(parts) == 1:
            sizes.append(parse_size(item))
            continue
        if len(parts) > 3:
            raise MsgperfError(f"cannot read size range '{item}'; write FROM:TO or FROM:TO:RATIO")
        lo, hi = parse_size(parts[0]), parse_size(parts[1])
        ratio = 2
        if len(parts) == 3:
            if not parts[2].strip().isdigit() or int(parts[2]) < 2:
                raise MsgperfError(f"range step in '{item}' must be an integer ratio >= 2")
            ratio = int(parts[2])
        if hi < lo:
            raise MsgperfError(f"range '{item}' ends below where it starts")
        if lo == 0:
            sizes.append(0)
            lo = 1
        s = lo
        while s <= hi:
            sizes.append(s)
            s *= ratio
        if len(sizes) > MAX_SIZES:
            break
    if len(sizes) > MAX_SIZES:
        raise MsgperfError(f"too many sizes (at most {MAX_SIZES})")
    for s in sizes:
        if s > MAX_COUNT:
            raise MsgperfError(
                f"size {s} B is beyond 2^31-1 bytes, the largest MPI count of one MPI_BYTE "
                "message; use smaller sizes")
    return tuple(sizes)


def parse_fraction(text: str) -> float:
    """'1%' -> 0.01, '0.02' -> 0.02; the precision target (relative CI half-width)."""
    t = text.strip()
    try:
        value = float(t[:-1]) / 100 if t.endswith("%") else float(t)
    except ValueError:
        raise MsgperfError(f"cannot read precision '{text}'; write a percentage like 1% or a fraction like 0.01") from None
    if not (math.isfinite(value) and 1e-5 <= value <= 0.5):
        raise MsgperfError(f"precision {text} is out of range; use 0.001% to 50%")
    return value


def parse_seconds(text: str) -> float:
    """'1.5' or '1.5s' -> 1.5, '500ms' -> 0.5, '2m' -> 120."""
    m = re.match(r"^\s*([0-9.eE+-]+)\s*(ms|us|s|m|min)?\s*$", text)
    try:
        value = float(m.group(1)) * {"ms": 1e-3, "us": 1e-6, "s": 1, "m": 60, "min": 60, None: 1}[m.group(2)]
    except (AttributeError, ValueError):
        raise MsgperfError(f"cannot read duration '{text}'; write seconds like 1.5, 500ms or 2s") from None
    if not (math.isfinite(value) and 0 < value <= MAX_BUDGET_S):
        raise MsgperfError(f"time budget {text} is out of range; use more than 0 and at most a day")
    return value


def parse_pair(text: str) -> tuple[int, int]:
    m = re.match(r"^\s*(\d+)\s*:\s*(\d+)\s*$", text)
    if not m:
        raise MsgperfError(f"cannot read --pair '{text}'; write two ranks like 0:1 (the first sends first)")
    a, b = int(m.group(1)), int(m.group(2))
    if a == b:
        raise MsgperfError(f"--pair {text} names rank {a} twice; name two different ranks")
    return a, b


def distinct_sizes(sizes: tuple[int, ...] | list[int]) -> tuple[int, ...]:
    """Each size once, ascending."""
    return tuple(sorted(set(sizes)))


# The automatic one budget: the default sweep (28 sizes) gets about 10 s of measurement, which is
# what its largest sizes need for a 1 % interval on a quiet two-core node (bench/time_to_answer.py).
AUTO_TOTAL_S = 10.0
AUTO_SHARE_S = AUTO_TOTAL_S / 28
DEFAULT_SIZES = (0, *(1 << i for i in range(27)))  # 0:64M


def check_placement(placement: str) -> None:
    """A --placement value (the one check; click's choice refuses others at the command line)."""
    if placement not in PLACEMENTS:
        raise MsgperfError(f"--placement {placement}: use intra, inter or both")


class Plan(Value):
    """What a run measures: built from ``msgperf run``'s and ``msgperf slurm``'s options (and
    ``checked``), handed to the kernels as their options (``kernel_args``), and written back by
    them as the ``plan`` object of the run record (records/format.py reads it)."""

    patterns: tuple[str, ...] = ("pingpong",)
    sizes: tuple[int, ...] = DEFAULT_SIZES
    buffer: str = "separate"
    pair: tuple[int, int] = (0, 1)
    nranks: int = 2
    precision: float = 0.01
    time_budget_s: float = 1.0
    min_samples: int = 20
    max_samples: int = 1_000_000
    placement: str = "pair"  # one of PLAN_PLACEMENTS: "pair" (--pair as given) or --placement's
    active: tuple[int, ...] = ()  # pairs: the steps of its contention sweep to measure (empty: all)
    repeat: int = 1  # --repeat: launches planned, each measuring every size (files before the field: 1)
    # One budget for the launch (kernels' --total-time): each measurement gets the time left
    # divided by the measurements left, so sizes that reach the precision early hand their time
    # to those that have not. 0: every size gets time_budget_s. None (before the launch only):
    # chosen when the number of measurements is known (``with_total_time``).
    total_time_s: float | None = 0.0
    # --iterations-per-sample: k, the iterations one sample times, fixed (1: per-iteration samples);
    # None: the kernels calibrate k per measurement (files before the field too)
    iterations_per_sample: int | None = None
    # The collectives' methodology (docs/patterns.md): --root 0|rotate, --iteration-barrier, --off-cache
    root: str = "0"
    iteration_barrier: bool = False
    off_cache: bool = False
    # what msgperf run does after the sweep ("probe": the eager-probe launch, "refine": the
    # refinement launches), as chosen by --no-probe/--no-refine; None: files before the field
    # (a --resume of one refines, as before)
    after: tuple[str, ...] | None = None

    def checked(self) -> "Plan":
        """This plan, each size once and ascending (the order the kernels measure in: a size
        listed twice would be measured twice and pooled as one), when its values are ones the
        kernels can run; else a MsgperfError that names the option and the fix. The one
        validation of what a user asks for (the kernels keep only a guard against the impossible)."""
        if self.nranks < 2:
            raise MsgperfError(f"--np {self.nranks}: a pairwise pattern needs at least 2 ranks; use --np 2 or more")
        if max(self.pair) >= self.nranks:
            raise MsgperfError(
                f"--pair {self.pair[0]}:{self.pair[1]} names a rank that does not exist with --np {self.nranks} "
                f"(ranks are 0 to {self.nranks - 1}); use ranks below {self.nranks} or raise --np")
        if self.buffer not in BUFFERS:
            raise MsgperfError(f"unknown --buffer '{self.buffer}'; use separate or inplace")
        if self.placement != "pair":
            check_placement(self.placement)
        k = self.iterations_per_sample
        if k is not None and (isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_ITERATIONS_PER_SAMPLE):
            raise MsgperfError(f"--iterations-per-sample {k}: use 1 to {MAX_ITERATIONS_PER_SAMPLE} "
                               "(1: one iteration, e.g. one round trip, per sample)")
        if self.root not in ("0", "rotate"):
            raise MsgperfError(f"unknown --root '{self.root}'; use 0 or rotate")
        if self.iteration_barrier and k is not None and k > 1:
            raise MsgperfError(f"--iteration-barrier times one call per sample; drop --iterations-per-sample {k}")
        if not MIN_SAMPLES <= self.min_samples <= self.max_samples <= MAX_SAMPLES:
            raise MsgperfError(
                f"--min-samples {self.min_samples} / --max-samples {self.max_samples}: need "
                f"{MIN_SAMPLES} <= min <= max <= {MAX_SAMPLES} (a median CI needs {MIN_SAMPLES} samples)")
        return msgspec.structs.replace(self, sizes=distinct_sizes(self.sizes))

    def validate(self, catalog: Iterable[PatternInfo]) -> None:
        """Check the patterns against the kernel binary's catalog for this plan's number of ranks
        (``pattern_catalog(kernel.path, plan.nranks)``): known names, an even number of ranks where a
        pattern needs one, --active among the steps of a sweep."""
        catalog = tuple(catalog)
        known = {p.name: p for p in catalog}
        for name in self.patterns:
            if name not in known:
                raise MsgperfError(f"unknown pattern '{name}'; known patterns: {', '.join(known)}")
        odd = [name for name in self.patterns if known[name].even_ranks]
        if odd and self.nranks % 2:
            raise MsgperfError(
                f"pattern {odd[0]} pairs the bottom half of the ranks with the top half and needs an even "
                f"number of ranks, not --np {self.nranks} (it would deadlock); use --np {self.nranks + 1} "
                f"or {self.nranks - 1}")
        if self.active:
            sweeping = [known[name] for name in self.patterns if known[name].sweeps]
            if not sweeping:
                names = [p.name for p in catalog if p.sweeps]
                if not names:
                    raise MsgperfError("--active: no pattern of these kernels sweeps concurrent pairs; drop --active")
                raise MsgperfError(f"--active applies to the {' and '.join(names)} pattern; add --pattern {names[0]}")
            for p in sweeping:
                sweep = [v.active_pairs for v in p.variants]
                wrong = [a for a in self.active if a not in sweep]
                if wrong:
                    raise MsgperfError(f"--active {wrong[0]}: with {self.nranks} ranks {p.name} sweeps "
                                       f"{', '.join(map(str, sweep))} concurrent pairs; choose among them")

    def records_per_size(self, pattern: PatternInfo) -> int:
        """How many measurement records the kernels write for one size of ``pattern`` (its
        catalog entry for this plan's ranks): one per variant, only the chosen steps of a sweep
        with --active. For the progress line and "where did it hang"."""
        return sum(1 for v in pattern.variants
                   if not self.active or v.active_pairs is None or v.active_pairs in self.active)

    def check_memory(self, available_bytes: int | None = None, ranks_per_node: int | None = None) -> None:
        """Two buffers of the largest size per rank must fit in the free memory (checked before
        anything is allocated)."""
        if available_bytes is None:
            try:
                available_bytes = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
            except (ValueError, OSError):
                return
        ranks = ranks_per_node if ranks_per_node is not None else self.nranks
        need = 2 * max(self.sizes) * ranks
        if need > 0.9 * available_bytes:
            raise MsgperfError(
                f"sizes up to {max(self.sizes)} B need {need / 2**30:.1f} GiB of buffers for {ranks} "
                f"ranks but {available_bytes / 2**30:.1f} GiB are free; use smaller sizes or fewer ranks")

    def with_total_time(self, measurements: int) -> "Plan":
        """This plan with its automatic one budget chosen for ``measurements`` records a launch:
        AUTO_TOTAL_S for up to 28 (the default sweep, 0 B and 1 B to 64 MiB), AUTO_SHARE_S more
        for each one beyond."""
        if self.total_time_s is not None:
            return self
        return msgspec.structs.replace(self, total_time_s=max(AUTO_TOTAL_S, AUTO_SHARE_S * measurements))

    def kernel_args(self) -> list[str]:
        args: list[str] = []
        for p in self.patterns:
            args += ["--pattern", p]
        args += ["--sizes", ",".join(str(s) for s in self.sizes),
                 "--pair", f"{self.pair[0]}:{self.pair[1]}", "--buffer", self.buffer,
                 "--precision", repr(self.precision), "--time-budget", repr(self.time_budget_s),
                 "--min-samples", str(self.min_samples), "--max-samples", str(self.max_samples)]
        if self.total_time_s:
            args += ["--total-time", repr(self.total_time_s)]
        if self.active:
            args += ["--active", ",".join(map(str, self.active))]
        if self.iterations_per_sample is not None:
            args += ["--iterations-per-sample", str(self.iterations_per_sample)]
        if self.root != "0":
            args += ["--root", self.root]
        args += ["--iteration-barrier"] * self.iteration_barrier + ["--off-cache"] * self.off_cache
        return args


def parse_active(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(v) for v in text.split(","))
    except ValueError:
        raise MsgperfError(f"cannot read --active '{text}'; list concurrent-pair counts like 1,2,4") from None
    if not values or min(values) < 1:
        raise MsgperfError(f"cannot read --active '{text}'; list concurrent-pair counts like 1,2,4")
    return tuple(dict.fromkeys(values))
