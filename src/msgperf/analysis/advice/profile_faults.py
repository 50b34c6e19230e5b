"""Page faults inside the large collectives, and what keeping the pages would save.

An MPI that allocates a temporary buffer in each call (MPICH's generic reduce and allreduce do)
gets it from glibc, which maps an allocation above its mmap threshold (128 KiB at first) and
unmaps it when it is freed, or trims the heap's top back to the system: the next call faults
every page in again. On PRK Reduce at 2 ranks (512 KiB, binomial) that was 129 faults a call and
most of the call's time (bench/RESULTS.md §31). The collective models have no term for it.

The profiler counts the minor faults of one large call (64 KiB or more) in 8, pseudo-randomly,
per row (call, communicator size, bytes), and how many of those calls faulted at all; at
MPI_Finalize it measures what a page costs on the rank's node: mapped, first touched, unmapped,
as such a buffer is (profile format 4). A row faults "call after call" when most of its sampled
calls faulted (one call's first touch of a buffer, sampled, is not spread over the rest). Its
time faulting is its faults per sampled call × its calls × that cost, and must fit within the
calls' own measured time, else the estimate does not hold ("cannot tell"); a rank descheduled
inside more than a tenth of its counted calls (involuntary context switches, counted with the
faults) was on a busy machine, where faulting takes longer than a page's cost: "cannot tell". Every rank of a
collective waits for the others, so the program's saving is the time faulting of the rank that
faults most, and its speedup the slowest rank's MPI_Init to MPI_Finalize over the same less that
saving. glibc keeps the pages when its mmap threshold is fixed above the buffers and its trim
threshold above what they free together (``setting``): a suggestion to measure, never a fact.
docs/profile.md, "Page faults".
"""

from __future__ import annotations

from typing import Any

from msgperf.analysis.advice.profile_accounting import slowest_wall_s
from msgperf.values import Value

MIN_FAULTS_PER_CALL = 1.0  # fewer a call: no buffer is faulted in per call (first touches, one-offs)
MIN_SAMPLED = 3  # fewer calls sampled in a row: its faults per call are not estimated
LARGEST_MMAP_THRESHOLD = 32 << 20  # glibc's upper limit on a 64-bit system (mallopt(3))
SMALLEST_THRESHOLD = 256 << 10
TRIM_FACTOR = 4  # the trim threshold over the mmap threshold: room for the buffers one call frees
# A rank descheduled inside more than this share of its counted calls was on a busy machine: its faults took
# longer than a page's cost (PRK Reduce beside two busy loops: the saving came out at half the measured one;
# descheduled in 10-17 of 64 counted calls there, in 2-6 of 64 on the quiet machine, 0 at SCHED_FIFO)
MAX_PREEMPTED = 0.10
PAGE_BYTES = 4096  # the faults' pages, for a buffer's size at least faults × page (the common page)
# the collectives whose temporary buffers hold every rank's block, of which the profile counts one (the v
# variants count every block already)
ALL_BLOCKS = frozenset({"MPI_Gather", "MPI_Igather", "MPI_Allgather", "MPI_Iallgather", "MPI_Scatter",
                        "MPI_Iscatter"})


class FaultingCalls(Value):
    """The calls of one collective (one communicator size, one data size) at one rank that fault
    pages in, call after call."""

    rank: int
    call: str  # "MPI_Reduce"
    comm_size: int
    bytes: int  # the call's data at this rank, as the profile counts it
    calls: int
    sampled: int  # calls whose faults were counted
    faults_per_call: float  # over the sampled calls
    measured_s: float  # all ``calls`` together
    page_s: float | None  # the rank's cost of one page (None: not measured)
    preempted: int = 0  # sampled calls in which the rank was descheduled

    @property
    def faulting_s(self) -> float | None:
        """The estimated time all ``calls`` spent faulting pages in (None: no page cost)."""
        return None if self.page_s is None else self.calls * self.faults_per_call * self.page_s

    @property
    def share(self) -> float | None:
        """faulting_s / measured_s."""
        f = self.faulting_s
        return f / self.measured_s if f is not None and self.measured_s > 0 else None

    @property
    def threshold_wanted(self) -> float:
        """What glibc's mmap threshold must exceed to keep this row's buffers: twice the call's data (every
        rank's block for a gather or scatter; a buffer may be a little larger than what it holds), or the pages
        a call faulted, whichever is more."""
        blocks = self.comm_size if self.call in ALL_BLOCKS else 1
        return max(2 * self.bytes * blocks, self.faults_per_call * PAGE_BYTES)


class PageFaults(Value):
    rows: tuple[FaultingCalls, ...]  # every rank's, most time faulting first
    unsampled_rows: int  # rows of 64 KiB or more with fewer than MIN_SAMPLED calls sampled
    saving_rank: int | None  # the rank whose faulting the program would save
    saving_s: float | None  # its time faulting (None: cannot tell, ``cannot_tell``)
    wall_s: float  # the slowest rank's MPI_Init to MPI_Finalize
    threshold_bytes: int | None  # glibc's mmap threshold to set (None: beyond what glibc allows)
    cannot_tell: str  # why there is no saving to predict ("" when there is)

    @property
    def speedup(self) -> float | None:
        """The program's MPI_Init to MPI_Finalize now / with the pages kept."""
        if self.saving_s is None or self.wall_s <= 0 or self.saving_s >= self.wall_s:
            return None
        return self.wall_s / (self.wall_s - self.saving_s)

    @property
    def setting(self) -> str:
        """The environment that has glibc keep the pages ("" when it cannot)."""
        if self.threshold_bytes is None:
            return ""
        return (f"MALLOC_MMAP_THRESHOLD_={self.threshold_bytes} "
                f"MALLOC_TRIM_THRESHOLD_={TRIM_FACTOR * self.threshold_bytes}")


def _threshold(wanted: float) -> int | None:
    """The smallest power of two at least ``wanted``, from 256 KiB; None beyond glibc's largest mmap
    threshold."""
    t = SMALLEST_THRESHOLD
    while t < wanted:
        t *= 2
    return t if t <= LARGEST_MMAP_THRESHOLD else None


def _cannot_tell(rows: list[FaultingCalls], threshold: int | None, wall: float) -> str:
    """Why no saving can be predicted from ``rows`` ("" when it can)."""
    if not rows:
        return "no collective faulted pages in call after call"
    if any(r.page_s is None for r in rows):
        return "a rank did not measure what a page costs (its record ended before MPI_Finalize)"
    ranks = sorted({r.rank for r in rows})
    for rank in ranks:  # a busy machine first: it is what stretches the faults beyond the calls' time too
        mine = [r for r in rows if r.rank == rank]
        sampled, preempted = sum(r.sampled for r in mine), sum(r.preempted for r in mine)
        if preempted > MAX_PREEMPTED * sampled:
            return (f"rank {rank} was descheduled inside {preempted} of its {sampled} counted calls: on a busy "
                    "machine faults take longer than a page's cost")
    for rank in ranks:
        mine = [r for r in rows if r.rank == rank]
        if sum(r.faulting_s for r in mine) > sum(r.measured_s for r in mine):
            return (f"rank {rank}'s estimated time faulting exceeds its calls' own measured time: the estimate "
                    "does not hold")
    if threshold is None:
        return (f"the buffers are beyond glibc's largest mmap threshold ({LARGEST_MMAP_THRESHOLD >> 20} MiB): its "
                "settings cannot keep them")
    if wall <= 0:
        return "the profile holds no time from MPI_Init to MPI_Finalize"
    return ""


def page_faults(profile: Any) -> PageFaults | None:
    """The collectives of ``profile`` that fault pages in call after call; None when the profile
    counted no faults (format 3 or older, or no call of 64 KiB or more sampled)."""
    rows, unsampled, sampled_any = [], 0, False
    for rank in profile.ranks:
        for c in rank.collectives:
            sampled_any |= c.faults_n > 0
            if c.faults_n and c.faults_n < MIN_SAMPLED:
                unsampled += 1
            per_call = c.faults_per_call
            if (c.faults_n >= MIN_SAMPLED and c.faults_every_call and per_call is not None
                    and per_call >= MIN_FAULTS_PER_CALL):
                rows.append(FaultingCalls(rank.rank, c.call, c.comm_size, c.bytes, c.n, c.faults_n, per_call,
                                          c.time_s, rank.page_fault_s, c.preempted_n))
    if not sampled_any:
        return None
    rows.sort(key=lambda r: (-(r.faulting_s or 0.0), r.rank, r.call, r.bytes))
    wall = slowest_wall_s(profile.ranks)
    threshold = _threshold(max((r.threshold_wanted for r in rows), default=0.0))
    cannot = _cannot_tell(rows, threshold, wall)
    if cannot:
        return PageFaults(tuple(rows), unsampled, None, None, wall, threshold, cannot)
    by_rank: dict[int, float] = {}
    for r in rows:
        by_rank[r.rank] = by_rank.get(r.rank, 0.0) + r.faulting_s
    rank, saving = max(by_rank.items(), key=lambda kv: (kv[1], -kv[0]))
    if saving >= wall:
        return PageFaults(tuple(rows), unsampled, None, None, wall, threshold,
                          "the estimated time faulting reaches the whole run: the estimate does not hold")
    return PageFaults(tuple(rows), unsampled, rank, saving, wall, threshold, "")
