"""What each breakpoint is, by the evidence the run holds, or "unexplained" when it holds none.

A knee of T(b) is not always a protocol switch: a message that stops fitting in a cache
bends the curve as much as eager -> rendezvous does (the "network buffer size" question of
Blaisdell's latency and bandwidth assignment is exactly which knee is which). A breakpoint
found between measured sizes low < b <= high is labelled by every piece of evidence whose
switch lies in that interval:

- the eager limit measured by the eager-probe pattern: messages up to L bytes are sent
  eagerly, so rendezvous starts at L + 1 (an interval when the probe could not be exact);
- the MPI's thresholds recorded in the launch environment (``known_thresholds``), or reported
  through MPI_T for the transport in use (analysis/model/mpit_thresholds.py): MPICH's
  single-copy (CMA, XPMEM) thresholds start the new protocol at the value itself; its
  shared-memory cell size and Open MPI's btl eager limits bound the eager payload, which
  is the value less a header, so their switch lies within ``HEADER_ALLOWANCE`` below it;
- the breakpoints of the memcpy pattern (a cache or memory-capacity knee shows in a plain
  copy too) and of the floor pattern (the hardware's own shared-memory round trip). The rule
  for these labels: a knee is named by a cause only if the cause's own measurement shows a
  knee inside the same interval (the two intervals overlap). A knee of the copy an octave
  away may be the same cache boundary seen through a different working set, or may not: the
  data do not tell, so such a breakpoint is "unexplained" and its label says where the
  nearby knee lies (within ``NEAR_FACTOR``) and that it is outside.

Pure function, plain data in and out; the caller passes what the run measured.
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

import msgspec

from msgperf.analysis.model.piecewise import Breakpoint
from msgperf.values import Value

HEADER_ALLOWANCE = 1024  # bytes: an eager limit set as a buffer size carries a header below it
NEAR_FACTOR = 2.0  # a knee of memcpy or the floor this close (either way) is named as near, not as the cause

EAGER = "eager_rendezvous"
SINGLE_COPY = "single_copy"
CAPACITY = "cache_memory"
FLOOR = "hardware_floor"
UNEXPLAINED = "unexplained"


class KnownThreshold(Value):
    """A threshold of the MPI with a recorded value: the switch lies in (low, high] bytes."""

    kind: str  # EAGER or SINGLE_COPY
    name: str  # where it was read, e.g. the environment variable
    value: int  # as set
    low: int  # the largest size that is still in the old regime, at most
    high: int  # the smallest size that is already in the new regime, at least
    source: str = "launch environment"  # where the value was read: the launch environment, or "MPI_T"


class BreakpointEvidence(Value):
    """What a run measured or recorded that can say which knee is which."""

    eager_limit: tuple[int, int] | None = None  # eager-probe: (largest eager, smallest not eager)
    # eager-probe that saw no size wait up to its maximum: every size up to this one was sent
    # eagerly, and the limit lies somewhere above it (names no switch; rules out those below it)
    eager_at_least: int | None = None
    memcpy_breakpoints: tuple[Breakpoint, ...] = ()
    floor_breakpoints: tuple[Breakpoint, ...] = ()
    thresholds: tuple[KnownThreshold, ...] = ()
    # the series is a copy with no MPI in it (memcpy, the shared-memory floor): no protocol can
    # switch there, and its knees are the memory hierarchy's by nature
    copy_only: bool = False


class BreakpointLabel(Value):
    breakpoint: Breakpoint
    kinds: tuple[str, ...]  # EAGER, SINGLE_COPY, CAPACITY, FLOOR; (UNEXPLAINED,) when none
    text: str  # "eager → rendezvous (eager-probe: 8112 B)", "unexplained (...)"
    evidence: tuple[str, ...]  # one line per matching piece of evidence
    sources: tuple[str, ...] = ()  # what each piece is, in a few words: "eager-probe", "VAR = value", "memcpy"
    # the probe's exact limit where an eager variable names this switch but its interval leaves
    # out the probe's gap: a step the setting makes just past where the protocol changed
    past_limit: int | None = None

    @property
    def is_protocol_switch(self) -> bool:
        return EAGER in self.kinds or SINGLE_COPY in self.kinds


def _bytes(n: int) -> str:
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n} B"


# (environment variable, kind, the switch relative to the value: "at" = first new size is the
# value; "below" = the value less a header is the last old size)
_THRESHOLD_VARIABLES: tuple[tuple[str, str, str], ...] = (
    ("MPIR_CVAR_CH4_IPC_CMA_P2P_THRESHOLD", SINGLE_COPY, "at"),
    ("MPIR_CVAR_CH4_IPC_XPMEM_P2P_THRESHOLD", SINGLE_COPY, "at"),
    ("MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE", EAGER, "below"),
    ("MPIR_CVAR_CH4_OFI_EAGER_THRESHOLD", EAGER, "above"),
    ("MPIR_CVAR_CH3_EAGER_MAX_MSG_SIZE", EAGER, "above"),
    ("MPIR_CVAR_NEMESIS_SHM_EAGER_MAX_SZ", EAGER, "above"),
    ("OMPI_MCA_btl_vader_eager_limit", EAGER, "below"),
    ("OMPI_MCA_btl_sm_eager_limit", EAGER, "below"),
    ("OMPI_MCA_btl_tcp_eager_limit", EAGER, "below"),
    ("OMPI_MCA_btl_vader_single_copy_threshold", SINGLE_COPY, "at"),
)


def _parse_size(text: str) -> int | None:
    """A CVAR or MCA byte count: '8192', '32k', '1M' (binary multiples); None if not one."""
    t = text.strip().lower()
    scale = 1
    if t and t[-1] in "kmg":
        scale = 1 << (10 * ("kmg".index(t[-1]) + 1))
        t = t[:-1]
    try:
        value = int(t, 0)
    except ValueError:
        return None
    return value * scale if value > 0 else None


def known_thresholds(environment: Mapping[str, str]) -> tuple[KnownThreshold, ...]:
    """The MPI thresholds a launch environment sets (MPICH CVARs, Open MPI MCA variables).

    Only values that were set are known: a default is the MPI's business and may change
    between versions, so it is not guessed here. A single-copy threshold whose mechanism is
    switched off (MPIR_CVAR_CH4_CMA_ENABLE=0, btl_vader_single_copy_mechanism=none) is left out.
    """
    off = (environment.get("MPIR_CVAR_CH4_CMA_ENABLE", "").strip() == "0",
           environment.get("OMPI_MCA_btl_vader_single_copy_mechanism", "").strip().lower() == "none")
    found = []
    for name, kind, where in _THRESHOLD_VARIABLES:
        if name not in environment:
            continue
        if (name.endswith("CMA_P2P_THRESHOLD") and off[0]) or (name.startswith("OMPI_MCA_btl_vader_single") and off[1]):
            continue
        value = _parse_size(environment[name])
        if value is None:
            continue
        if where == "at":  # sizes >= value take the new protocol
            low, high = value - 1, value
        elif where == "above":  # sizes <= value stay eager
            low, high = value, value + 1
        else:  # the eager payload is the value less a header
            low, high = max(0, value - HEADER_ALLOWANCE), value
        found.append(KnownThreshold(kind, name, value, low, high))
    return tuple(found)


# how far (relative) a located step may sit from the probe's limit and still be the switch the
# MPI's eager variable sets: with MPICH's cell at 32 KiB the probe measured 32688/32689 B, and three
# runs of three located the timing step at (32689, 32768]: 32689 B, already past the limit, took
# the eager time (tests/analysis/model/test_real_switches.py)
PROBE_SLACK = 0.01


def past_the_limit(bp: Breakpoint, eager_limit: tuple[int, int] | None) -> int | None:
    """The probe's exact limit where the switch interval lies just past it (above its gap, within
    ``PROBE_SLACK``): the step the variable sets is not where the protocol changed (MPICH's (8113,
    8189] beside 8112 B, inside its shared-memory rendezvous regime); else None."""
    if eager_limit is None or eager_limit[1] != eager_limit[0] + 1 or bp.low_bytes < eager_limit[1]:
        return None
    return eager_limit[0] if bp.low_bytes <= eager_limit[1] * (1 + PROBE_SLACK) else None


def _below_the_limit(bp: Breakpoint, eager_limit: tuple[int, int] | None) -> bool:
    """The interval lies at or below an exact limit: every size in it was sent eagerly."""
    return eager_limit is not None and eager_limit[1] == eager_limit[0] + 1 and bp.high_bytes <= eager_limit[0]


def _overlaps(bp: Breakpoint, low: float, high: float) -> bool:
    """Whether the switch interval (low, high] meets the breakpoint's (bp.low, bp.high]."""
    return max(bp.low_bytes, low) < min(bp.high_bytes, high)


def _knee(bp: Breakpoint, others: Iterable[Breakpoint], widen: float = 1.0) -> Breakpoint | None:
    """The first of ``others`` whose interval (widened by ``widen`` either way) meets the breakpoint's."""
    for o in others:
        if _overlaps(bp, o.low_bytes / widen, o.high_bytes * widen):
            return o
    return None


def _near_misses(bp: Breakpoint, ev: BreakpointEvidence) -> list[str]:
    """Knees of memcpy and the floor close to the breakpoint but outside its interval: said, not used."""
    out = []
    for name, knees in (("memcpy", ev.memcpy_breakpoints), ("the floor pattern", ev.floor_breakpoints)):
        near = _knee(bp, knees, NEAR_FACTOR)
        if near is not None and _knee(bp, (near,)) is None:
            out.append(f"{name}'s knee, {_bytes(near.low_bytes)}–{_bytes(near.high_bytes)}, lies outside it")
    return out


def _label(bp: Breakpoint, ev: BreakpointEvidence) -> BreakpointLabel:
    if ev.copy_only:
        return BreakpointLabel(bp, (CAPACITY,), "cache/memory capacity (a plain copy: no MPI protocol to switch)",
                               ("memcpy and the floor pattern call no MPI between their timers: a knee in their "
                                "times is the memory hierarchy's",))
    parts: list[tuple[str, str, str, str]] = []  # (kind, short text, evidence line, source)
    if ev.eager_limit is not None:
        eager, not_eager = ev.eager_limit
        if _overlaps(bp, eager, not_eager):
            limit = f"{eager} B" if not_eager == eager + 1 else f"{eager}–{not_eager} B"
            parts.append((EAGER, f"eager → rendezvous (eager-probe: {limit})",
                          f"eager-probe: messages up to {eager} B are sent eagerly"
                          + ("" if not_eager == eager + 1 else f", {not_eager} B is not"), "eager-probe"))
    # a single-copy threshold whose switch lies inside the interval, exactly
    single_copy_inside = any(t.kind == SINGLE_COPY and _overlaps(bp, t.low, t.high) for t in ev.thresholds)
    for t in ev.thresholds:
        # an eager threshold read from a variable brackets the limit loosely (within a header of its
        # value); where the eager-probe measured the limit, the switch must lie at what it measured
        # (16 cores, --sizes 1K:64K: a step at 7510-7756 B sat in MPI_T's (7168, 8192] beside a
        # probe limit of 8112 B, and was labelled eager -> rendezvous)
        if t.kind == EAGER and ev.eager_at_least is not None and bp.high_bytes <= ev.eager_at_least:
            continue  # every size in it was sent eagerly
        if t.kind == EAGER and ev.eager_limit is not None and (_below_the_limit(bp, ev.eager_limit) or not _overlaps(
                bp, ev.eager_limit[0] * (1 - PROBE_SLACK), ev.eager_limit[1] * (1 + PROBE_SLACK))):
            continue
        # a step beside the probe's limit (within the slack, not at it) with a single-copy threshold
        # inside it is that threshold's switch: MPICH's default narrow regime, eager limit 8112 B and
        # CMA from 8192 B, where a step at (8113, 8192] (8113 B 6.6 µs, 8192 B 4.1 µs, the limit's
        # own step located apart) was also called eager -> rendezvous (bench/RESULTS.md §27)
        if t.kind == EAGER and ev.eager_limit is not None and single_copy_inside \
                and not _overlaps(bp, *ev.eager_limit):
            continue
        if _overlaps(bp, t.low, t.high):
            what = "eager → rendezvous" if t.kind == EAGER else "single-copy threshold"
            where = "reported through MPI_T" if t.source == "MPI_T" else f"in the {t.source}"
            past = past_the_limit(bp, ev.eager_limit) if t.kind == EAGER else None
            if past is not None:  # the answer's words (answer.py CAUSES, past_limit)
                what = f"a step just past the eager limit ({past} B;"
            parts.append((t.kind, f"{what} {t.name} = {t.value})" if past is not None else f"{what} ({t.name} = {t.value})",
                          f"{t.name} = {t.value} {where} puts the switch in "
                          f"({t.low}, {t.high}] B", f"{t.name} = {t.value}"))
    # a step between two sizes a byte apart that a protocol's own evidence puts there is that
    # protocol's: a cache or the memory does not fill at one byte (a knee of memcpy's a few KiB
    # wide met MPICH's (32688, 32689] and was named beside eager -> rendezvous)
    if bp.high_bytes - bp.low_bytes == 1 and parts:
        return _joined(bp, parts)
    memcpy = _knee(bp, ev.memcpy_breakpoints)
    if memcpy is not None:
        parts.append((CAPACITY, "cache/memory capacity (memcpy shows the same knee)",
                      f"memcpy has a knee between {_bytes(memcpy.low_bytes)} and "
                      f"{_bytes(memcpy.high_bytes)}", "memcpy"))
    floor = _knee(bp, ev.floor_breakpoints)
    if floor is not None:
        parts.append((FLOOR, "hardware (the floor pattern shows the same knee)",
                      f"the floor pattern has a knee between {_bytes(floor.low_bytes)} and "
                      f"{_bytes(floor.high_bytes)}", "floor pattern"))
    if not parts:
        near = _near_misses(bp, ev)
        if ev.eager_limit is not None and ev.eager_limit[1] == ev.eager_limit[0] + 1 and not _overlaps(
                bp, *ev.eager_limit) and _overlaps(bp, ev.eager_limit[0] * (1 - PROBE_SLACK),
                                                   ev.eager_limit[1] * (1 + PROBE_SLACK)):
            side = "below" if bp.low_bytes >= ev.eager_limit[1] else "above"
            near.insert(0, f"the eager-probe's limit, {ev.eager_limit[0]} B, lies just {side} it, outside the "
                           "interval")
        if near:
            return BreakpointLabel(bp, (UNEXPLAINED,), f"unexplained (cause unknown: {'; '.join(near)})", ())
        return BreakpointLabel(bp, (UNEXPLAINED,),
                               "unexplained (nothing the run measured or recorded matches it)", ())
    return _joined(bp, parts)


def _joined(bp: Breakpoint, parts: list[tuple[str, str, str, str]]) -> BreakpointLabel:
    """One label of every piece of evidence (kind, short text, evidence line, source). Pieces that
    say the same thing name it once with their sources together: "eager → rendezvous
    (eager-probe: 8112 B; MPIR_CVAR_... = 8192)", not "eager → rendezvous (eager-probe: 8112 B)
    and eager → rendezvous (MPIR_CVAR_... = 8192)"."""
    kinds = tuple(dict.fromkeys(k for k, _, _, _ in parts))
    said: dict[str, list[str]] = {}
    for _, short, _, _ in parts:
        what, _, why = short.partition(" (")
        why = why[:-1] if why.endswith(")") else why
        whys = said.setdefault(what, [])
        for piece in why.split("; ") if why else ():  # ("32688 B; A = 1" and "32688 B; B = 2": the limit once)
            if piece not in whys:
                whys.append(piece)
    text = " and ".join(f"{what} ({'; '.join(whys)})" if whys else what for what, whys in said.items())
    return BreakpointLabel(bp, kinds, text, tuple(e for _, _, e, _ in parts),
                           tuple(dict.fromkeys(src for _, _, _, src in parts)))


def label_breakpoints(breakpoints: Sequence[Breakpoint],
                      evidence: BreakpointEvidence) -> tuple[BreakpointLabel, ...]:
    """One label per breakpoint, in order."""
    out = []
    for bp in breakpoints:
        label = _label(bp, evidence)
        past = past_the_limit(bp, evidence.eager_limit) if EAGER in label.kinds else None
        out.append(msgspec.structs.replace(label, past_limit=past) if past is not None else label)
    return tuple(out)
