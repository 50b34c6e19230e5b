"""The profile format: the one place that knows its record types and field names.

A profile file (docs/profile.md) is JSON Lines written by msgperf's PMPI profiler
(``kernels/profiler``): one ``profile`` record (the header: program, MPI, ranks, hosts,
times, the sequence rule), then one ``rank`` record per rank: its messages per (peer,
direction, call kind) with their sizes, the time it spent inside MPI, and its back-to-back
sequences. This module turns decoded JSON objects into immutable ``Value``s (values.py) and back; reading
the file is ``profile_read``'s job.

What later advice needs, and where it is:

- per (peer, size) the message counts split by call kind: ``RankProfile.messages``
  (``PeerMessages.sizes``), flattened by ``RankProfile.size_counts()``;
- the sequences (their number, lengths, the size of each message in them):
  ``RankProfile.sequences`` (``PeerSequences.shapes``: ``SequenceShape``);
- the time inside MPI per rank (``mpi_time_s``, ``wait_time_s``, ``calls``) and the wall
  time (``wall_s``), with the clock that measured them (``RankProfile.clock``, version 2).

Version 1 files stay readable: their ranks have ``clock`` None (they were timed with
``clock_gettime(CLOCK_MONOTONIC)``, which their header names) and are written back as they were.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from msgperf.errors import MsgperfError
from msgperf.records.fields import REQUIRED, Field, absent, decode, flag, integer, items, nullable, number, records, text
from msgperf.records.limits import (MAX_CLOCK_TICKS_PER_S, MAX_EXACT, MAX_INT64, MAX_MESSAGE_BYTES, MAX_PID,
                                    MAX_PROFILE_TIME_S, MAX_RANKS, check_int)
from msgperf.values import Value

FORMAT_NAME = "msgperf-profile"
FORMAT_VERSION = 4  # 2: each rank record names its clock; 3: every MPI call, kinds, sites, collectives;
# 4: the page faults of a sample of the large collectives, a page's cost, a reduction's datatype

DIRECTIONS = ("send", "recv")
SEND_KINDS = ("send", "ssend", "rsend", "bsend", "isend", "issend", "irsend", "ibsend",
              "send_init", "ssend_init", "rsend_init", "bsend_init", "sendrecv", "sendrecv_replace")
RECV_KINDS = ("recv", "irecv", "recv_init", "sendrecv", "sendrecv_replace")
# The profiler counts the page faults of one collective call of at least FAULT_SAMPLE_BYTES in
# FAULT_SAMPLE_ONE_IN (kernels/profiler/faults.c: FAULT_BYTES and its sampling; version 4).
FAULT_SAMPLE_BYTES = 64 * 1024
FAULT_SAMPLE_ONE_IN = 8

# A rank killed by one of these signals wrote its record first (the profiler's signals.c).
SIGNAL_ENDINGS = tuple(f"signal {name}" for name in
                       ("SIGSEGV", "SIGBUS", "SIGFPE", "SIGILL", "SIGABRT", "SIGTERM", "SIGINT", "SIGHUP"))
ENDED_BY = ("MPI_Finalize", "MPI_Abort", "exit without MPI_Finalize", *SIGNAL_ENDINGS)
# The kinds of MPI call the profiler tells apart (its prof.h enum call_kind; version 3). A
# version 1 or 2 file wrapped point-to-point calls and their waits and tests alone.
CALL_KINDS = ("point-to-point", "wait/test", "collective", "one-sided", "probe",
              "communicator/datatype", "other MPI")
WAIT_CALLS = ("MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome", "MPI_Test", "MPI_Testall",
              "MPI_Testany", "MPI_Testsome")


class ProfileError(MsgperfError):
    """A profile record that does not follow the format."""


class SizeCount(Value):
    """``count`` messages of ``bytes`` bytes (in a log2 histogram: of ``bytes`` up to twice that)."""

    bytes: int
    count: int


class PeerMessages(Value):
    """The messages of one call kind between a rank and one peer, in one direction.

    ``sizes`` counts each size exactly, most frequent first, for the first 16 distinct sizes
    the profiler met; messages of later sizes are only in ``log2`` and ``other_*``. ``log2``
    holds every message: ``SizeCount(low, n)``, n messages of low ≤ size < 2·low (low 0: 0 B).
    A send is counted when issued, a receive when it completed (its size is the received size).
    """

    peer: int  # world rank
    direction: str  # "send" or "recv"
    kind: str  # the call that issued it: "send", "isend", "send_init" (persistent), "sendrecv", ...
    count: int
    bytes: int
    sizes: tuple[SizeCount, ...]
    other_count: int
    other_bytes: int
    log2: tuple[SizeCount, ...]

    @property
    def blocking(self) -> bool:
        return not self.nonblocking and not self.persistent

    @property
    def nonblocking(self) -> bool:
        return self.kind.startswith("i")

    @property
    def persistent(self) -> bool:
        return self.kind.endswith("_init")

    @property
    def mode(self) -> str:
        """standard, synchronous, ready or buffered (receives: standard)."""
        base = self.kind.removeprefix("i").removesuffix("_init")
        return {"ssend": "synchronous", "rsend": "ready", "bsend": "buffered"}.get(base, "standard")


class SequenceShape(Value):
    """``count`` back-to-back sequences alike: ``length`` sends of ``bytes`` in all.

    ``sizes`` is the multiset of their message sizes (ascending); None when a sequence held
    more than 4 distinct sizes (then only ``min_bytes`` and ``max_bytes`` are known)."""

    count: int
    length: int
    bytes: int
    min_bytes: int
    max_bytes: int
    kinds: tuple[str, ...]  # send kinds in the sequence
    sizes: tuple[SizeCount, ...] | None


class PeerSequences(Value):
    """A rank's back-to-back sequences to one peer (see docs/profile.md for the rule).

    ``shapes`` holds the first 32 distinct shapes; sequences of later shapes are only in
    ``other_*``. ``count``, ``messages`` and ``bytes`` cover all of them."""

    peer: int
    count: int
    messages: int
    bytes: int
    shapes: tuple[SequenceShape, ...]
    other_count: int
    other_messages: int
    other_bytes: int
    other_max_length: int

    def lengths(self) -> dict[int, int]:
        """Sequence length -> number of sequences, over the shapes (``other_*`` apart)."""
        out: dict[int, int] = {}
        for s in self.shapes:
            out[s.length] = out.get(s.length, 0) + s.count
        return dict(sorted(out.items()))


class CallTime(Value):
    """How often a wrapped MPI call ran and the time spent inside it."""

    call: str  # "MPI_Isend", "MPI_Waitall", ...
    n: int
    time_s: float
    kind: str = "point-to-point"  # one of CALL_KINDS
    bytes: int = 0  # sent by a point-to-point send, a collective's or a one-sided transfer's data (version 3)


class CallSite(Value):
    """One call site: the return address of an MPI call in the program (version 3).

    ``object`` is the file the address lies in (the program or a shared library, as the
    dynamic loader named it; None where it could not tell) and ``offset`` the address from
    that file's load address, what ``addr2line -e object`` reads; without an object,
    ``offset`` is the absolute address."""

    call: str
    object: str | None
    offset: int
    n: int
    time_s: float


class CollectiveCalls(Value):
    """The calls of one collective with one communicator size and one data size (version 3):
    what a collective's model needs to predict them."""

    call: str  # "MPI_Allreduce", "MPI_Ibcast", ...
    comm_size: int  # the communicator's size (remote group of an intercommunicator)
    bytes: int  # the data of one call at this rank (docs/profile.md)
    n: int
    time_s: float
    # Version 4 (0 before): of the calls of at least 64 KiB, one in 8 (pseudo-randomly) had its
    # minor page faults counted (faults.c: FAULT_BYTES, the one in 8)
    faults_n: int = 0  # calls sampled
    faults: int = 0  # page faults inside them
    faulted_n: int = 0  # of the calls sampled, those that faulted at all
    preempted_n: int = 0  # ... and those in which the rank was descheduled (an involuntary context switch)
    # a reduction's datatype (version 4): "MPI_DOUBLE", ... (a predefined type the profiler names),
    # "other", "mixed" (the row's calls reduced different types); None: not a reduction, or older
    datatype: str | None = None

    @property
    def faults_every_call(self) -> bool:
        """Most calls sampled faulted: not one call's first touch spread over the rest."""
        return self.faults_n > 0 and 2 * self.faulted_n > self.faults_n

    @property
    def faults_per_call(self) -> float | None:
        return self.faults / self.faults_n if self.faults_n else None


class RankClock(Value):
    """The clock a rank timed its calls with (format version 2).

    ``name`` is ``"tsc"`` (the x86 time-stamp counter read directly, where the kernel calls it
    constant and non-stop) or ``"clock_gettime(CLOCK_MONOTONIC)"``. Ticks become seconds by
    ``ticks_per_s``, calibrated against CLOCK_MONOTONIC over ``calibration_s`` (from MPI_Init
    to the end); ``ticks_per_s_at_init`` is the first calibration (2 ms at MPI_Init), with
    which the run converted its sequence gap. For CLOCK_MONOTONIC both are 1e9."""

    name: str
    ticks_per_s: float
    ticks_per_s_at_init: float
    calibration_s: float
    read_s: float  # the cost of one read, measured at MPI_Init

    @property
    def drift(self) -> float:
        """Relative difference of the two calibrations: far from 0, the ticks were not steady."""
        return self.ticks_per_s / self.ticks_per_s_at_init - 1.0


class KindSizeCount(Value):
    """One row of ``RankProfile.size_counts``."""

    peer: int
    bytes: int
    kind: str
    count: int


class RankProfile(Value):
    """One rank's record."""

    rank: int
    host: str
    pid: int
    ended_by: str  # MPI_Finalize; MPI_Abort, "exit without MPI_Finalize", "signal SIGSEGV"...: a partial record
    wall_s: float  # from the return of MPI_Init to the entry of MPI_Finalize (or the end)
    mpi_time_s: float  # inside MPI: the point-to-point calls, waits and tests; from format 3 every MPI call
    wait_time_s: float  # inside MPI_Wait*/MPI_Test* alone
    calls: tuple[CallTime, ...]
    messages: tuple[PeerMessages, ...]
    sequences: tuple[PeerSequences, ...]
    proc_null: int  # messages to or from MPI_PROC_NULL (not in ``messages``)
    unknown_peer: int  # messages whose peer could not be translated to a world rank
    untracked_requests: int  # requests the profiler could not remember (out of memory)
    clock: RankClock | None = None  # None in a version 1 file
    # Version 3 (empty before): the sites with the most time, then the rest summed
    sites: tuple[CallSite, ...] = ()
    sites_other_n: int = 0
    sites_other_time_s: float = 0.0
    collectives: tuple[CollectiveCalls, ...] = ()
    collectives_other_n: int = 0  # calls whose (call, size, bytes) found the table full
    collectives_other_time_s: float = 0.0
    # Version 4: what a page mapped, first touched and unmapped cost this rank, measured at
    # MPI_Finalize where a sampled collective faulted (None: not measured)
    page_fault_s: float | None = None

    @property
    def finalized(self) -> bool:
        return self.ended_by == "MPI_Finalize"

    def sent(self) -> tuple[PeerMessages, ...]:
        return tuple(m for m in self.messages if m.direction == "send")

    def received(self) -> tuple[PeerMessages, ...]:
        return tuple(m for m in self.messages if m.direction == "recv")

    @property
    def messages_sent(self) -> int:
        return sum(m.count for m in self.sent())

    @property
    def bytes_sent(self) -> int:
        return sum(m.bytes for m in self.sent())

    @property
    def messages_received(self) -> int:
        return sum(m.count for m in self.received())

    @property
    def bytes_received(self) -> int:
        return sum(m.bytes for m in self.received())

    @property
    def sequence_messages(self) -> int:
        """Sends that belong to a back-to-back sequence, all peers."""
        return sum(s.messages for s in self.sequences)

    def top_sizes(self, direction: str = "send", n: int = 3) -> tuple[SizeCount, ...]:
        """The ``n`` most frequent exact sizes over all peers and kinds (ties: smaller first)."""
        totals: dict[int, int] = {}
        for m in self.messages:
            if m.direction == direction:
                for s in m.sizes:
                    totals[s.bytes] = totals.get(s.bytes, 0) + s.count
        ranked = sorted(totals.items(), key=lambda item: (-item[1], item[0]))[:n]
        return tuple(SizeCount(bytes=b, count=c) for b, c in ranked)

    def size_counts(self, direction: str = "send") -> tuple[KindSizeCount, ...]:
        """Exact counts per (peer, size, kind), sorted by peer, size, kind. Messages whose
        size was beyond the exact table are not here (``PeerMessages.other_count``)."""
        rows = [KindSizeCount(m.peer, s.bytes, m.kind, s.count)
                for m in self.messages if m.direction == direction for s in m.sizes]
        return tuple(sorted(rows, key=lambda r: (r.peer, r.bytes, r.kind)))


class ProfileInfo(Value):
    """The ``profile`` header record."""

    format_version: int
    profiler_version: str
    argv: tuple[str, ...]  # rank 0's command line (its /proc/self/cmdline)
    mpi_library: str  # MPI_Get_library_version, verbatim
    mpi_version: str  # MPI_Get_version: the standard's version, "5.0"
    nranks: int
    hosts: tuple[str, ...]  # host of each rank, by rank ("" unknown)
    start_time: str  # UTC, ISO 8601: rank 0's MPI_Init
    end_time: str  # UTC, ISO 8601: rank 0's MPI_Finalize (or its end)
    thread_level: str  # single, funneled, serialized, multiple
    clock: str  # rank 0's clock (each rank's own: RankProfile.clock)
    clock_read_s: float  # cost of one read of rank 0's clock, measured at MPI_Init
    sequence_gap_s: float  # time outside MPI longer than this ends a back-to-back sequence
    complete: bool  # every rank reached MPI_Finalize and its record is here


class Profile(Value):
    info: ProfileInfo
    ranks: tuple[RankProfile, ...]  # by rank; a rank that left no record is missing
    path: str = ""

    @property
    def missing_ranks(self) -> tuple[int, ...]:
        present = {r.rank for r in self.ranks}
        return tuple(r for r in range(self.info.nranks) if r not in present)

    @property
    def program(self) -> str:
        """The program's name (rank 0's argv[0] without its directory)."""
        return self.info.argv[0].rsplit("/", 1)[-1] if self.info.argv else ""


# ---- decoding: each record type is a table of its fields (records/fields.py) ------------------

def _count(name: str, high: int = MAX_EXACT, **kw: Any) -> Field:
    """A count (or a total of bytes) within [0, ``high``]: the limits of records/limits.py."""
    return integer(name, 0, high, whole_floats=False, **kw)


def _total(name: str, **kw: Any) -> Field:
    """A total of bytes over many messages: within a signed 64-bit integer."""
    return _count(name, MAX_INT64, **kw)


def _seconds(name: str, **kw: Any) -> Field:
    return number(name, 0.0, MAX_PROFILE_TIME_S, **kw)


def _rate(name: str, **kw: Any) -> Field:
    """A clock's ticks per second: positive, at most ``MAX_CLOCK_TICKS_PER_S``."""
    return number(name, 0.0, MAX_CLOCK_TICKS_PER_S, low_open=True, **kw)


def _strings(name: str, **kw: Any) -> Field:
    return items(name, lambda v: isinstance(v, str), "a list of strings", **kw)


def _size_counts(name: str, default: Any = REQUIRED) -> Field:
    """[bytes, count] pairs: a message size within ``MAX_MESSAGE_BYTES``, a count within 2^53."""
    def read(obj, where, error, prefix=""):
        value = obj.get(name)
        if value is None:
            return absent(prefix + name, default, where, error)
        if not isinstance(value, list) or not all(
                isinstance(pair, list) and len(pair) == 2 and all(type(x) is int and x >= 0 for x in pair)
                for pair in value):
            raise error(f"{where}: field '{prefix}{name}' must be a list of [bytes, count] pairs")
        return tuple(SizeCount(bytes=check_int(b, where, f"{prefix}{name}[{i}] bytes", 0, MAX_MESSAGE_BYTES, error),
                               count=check_int(c, where, f"{prefix}{name}[{i}] count", 0, MAX_EXACT, error))
                     for i, (b, c) in enumerate(value))
    return Field(name, read)


INFO_FIELDS = (
    text("profiler_version"),
    _strings("argv"),
    text("mpi_library"),
    text("mpi_version"),
    integer("nranks", 1, MAX_RANKS, whole_floats=False),
    _strings("hosts"),
    text("start_time"),
    text("end_time"),
    text("thread_level"),
    text("clock"),
    _seconds("clock_read_s"),
    _seconds("sequence_gap_s"),
    flag("complete"),
)

MESSAGES_FIELDS = (
    _count("peer"),
    text("direction", choices=DIRECTIONS),
    text("kind"),  # a kind of its direction: checked beside the table
    _count("count"),
    _total("bytes"),
    _size_counts("sizes"),
    _count("other_count"),
    _total("other_bytes"),
    _size_counts("log2"),
)

SHAPE_FIELDS = (
    _count("count"),
    _count("length"),
    _total("bytes"),
    _count("min_bytes", MAX_MESSAGE_BYTES),
    _count("max_bytes", MAX_MESSAGE_BYTES),
    _strings("kinds"),
    _size_counts("sizes", default=None),  # absent in version 1 files
)

SEQUENCES_FIELDS = (
    _count("peer"),
    _count("count"),
    _count("messages"),
    _total("bytes"),
    records("shapes", SHAPE_FIELDS, SequenceShape, "sequence shapes"),
    _count("other_count"),
    _count("other_messages"),
    _total("other_bytes"),
    _count("other_max_length"),
)

CALL_FIELDS = (_count("n"), _seconds("time_s"))
CALL_V3_FIELDS = (text("kind", choices=CALL_KINDS), _total("bytes"))  # version 3

SITE_FIELDS = (text("call"), nullable(text("object")), _total("offset"), _count("n"), _seconds("time_s"))
COLLECTIVE_FIELDS = (text("call"), _count("comm_size", MAX_RANKS), _count("bytes", MAX_MESSAGE_BYTES), _count("n"),
                     _seconds("time_s"), _count("faults_n", default=0), _count("faults", default=0),
                     _count("faulted_n", default=0), _count("preempted_n", default=0), text("datatype", default=None))
RANK_V3_FIELDS = (  # version 3: call sites and collectives, each list capped by the profiler (the rest: *_other_*)
    records("sites", SITE_FIELDS, CallSite, "call sites"),
    _count("sites_other_n"),
    _seconds("sites_other_time_s"),
    records("collectives", COLLECTIVE_FIELDS, CollectiveCalls, "collectives"),
    _count("collectives_other_n"),
    _seconds("collectives_other_time_s"),
    _seconds("page_fault_s", default=None),  # version 4
)

CLOCK_FIELDS = (
    text("clock", attr="name"),
    _rate("clock_ticks_per_s", attr="ticks_per_s"),
    _rate("clock_ticks_per_s_at_init", attr="ticks_per_s_at_init"),
    _seconds("clock_calibration_s", attr="calibration_s"),
    _seconds("clock_read_s", attr="read_s"),
)

RANK_FIELDS = (
    _count("rank"),
    text("host"),
    _count("pid", MAX_PID),
    text("ended_by", choices=ENDED_BY),
    _seconds("wall_s"),
    _seconds("mpi_time_s"),
    _seconds("wait_time_s"),
    records("messages", MESSAGES_FIELDS, PeerMessages, "messages per peer"),
    records("sequences", SEQUENCES_FIELDS, PeerSequences, "sequences per peer"),
    _count("proc_null"),
    _count("unknown_peer"),
    _count("untracked_requests"),
)
_FORMAT_VERSION = integer("format_version", whole_floats=False)


def decode_info(obj: Mapping[str, Any], where: str) -> ProfileInfo:
    if obj.get("format") != FORMAT_NAME:
        raise ProfileError(f"{where}: not a msgperf profile (format {obj.get('format')!r})")
    version = _FORMAT_VERSION.read(obj, where, ProfileError)
    if version > FORMAT_VERSION:
        raise ProfileError(f"{where}: profile format version {version} is newer than this msgperf "
                           f"reads ({FORMAT_VERSION}); upgrade msgperf")
    if version < 1:
        raise ProfileError(f"{where}: profile format version {version} does not exist")
    info = ProfileInfo(format_version=version, **decode(INFO_FIELDS, obj, where, ProfileError))
    if info.hosts and len(info.hosts) != info.nranks:
        raise ProfileError(f"{where}: {len(info.hosts)} hosts for {info.nranks} ranks")
    return info


def _check_peer(peer: int, nranks: int | None, where: str) -> None:
    if nranks is not None and peer >= nranks:
        raise ProfileError(f"{where}: peer {peer} is not a rank of this run ({nranks} ranks)")


def _check_messages(m: PeerMessages, nranks: int | None, where: str) -> None:
    """What the table cannot say: a kind of its direction, counts and bytes that add up."""
    _check_peer(m.peer, nranks, where)
    if m.kind not in (SEND_KINDS if m.direction == "send" else RECV_KINDS):
        raise ProfileError(f"{where}: {m.kind!r} is not a kind of {m.direction}")
    if sum(s.count for s in m.sizes) + m.other_count != m.count or sum(s.count for s in m.log2) != m.count:
        raise ProfileError(f"{where}: the size counts of peer {m.peer} ({m.kind}) do not add up to {m.count}")
    if sum(s.bytes * s.count for s in m.sizes) + m.other_bytes != m.bytes:
        raise ProfileError(f"{where}: the sizes of peer {m.peer} ({m.kind}) do not add up to {m.bytes} bytes")


def _check_shape(shape: SequenceShape, where: str) -> None:
    if any(k not in SEND_KINDS for k in shape.kinds):
        raise ProfileError(f"{where}: a sequence holds sends only, not {shape.kinds}")
    if shape.length < 2:
        raise ProfileError(f"{where}: a sequence has at least 2 messages, not {shape.length}")
    if shape.sizes is not None and (sum(s.count for s in shape.sizes) != shape.length
                                    or sum(s.bytes * s.count for s in shape.sizes) != shape.bytes):
        raise ProfileError(f"{where}: the sizes of a sequence shape do not add up to its length and bytes")


def _check_sequences(seq: PeerSequences, nranks: int | None, where: str) -> None:
    _check_peer(seq.peer, nranks, where)
    for shape in seq.shapes:
        _check_shape(shape, where)
    if (sum(s.count for s in seq.shapes) + seq.other_count != seq.count
            or sum(s.count * s.length for s in seq.shapes) + seq.other_messages != seq.messages):
        raise ProfileError(f"{where}: the sequence shapes of peer {seq.peer} do not add up to its totals")


def _calls(obj: Mapping[str, Any], where: str, version: int) -> tuple[CallTime, ...]:
    """The ``calls`` object: each call's count and time; from version 3 its kind and bytes too
    (before, a call's kind follows from its name: a wait or test, else point-to-point)."""
    calls = obj.get("calls")
    if calls is None:
        raise ProfileError(f"{where}: missing field 'calls'")
    if not isinstance(calls, dict):
        raise ProfileError(f"{where}: field 'calls' must be an object of calls")
    table = CALL_FIELDS + CALL_V3_FIELDS if version >= 3 else CALL_FIELDS
    out = []
    for name, value in calls.items():
        fields = decode(table, value, where, ProfileError, f"calls[{name[:40]!r}]", f"calls.{name[:40]}.")
        if version < 3:
            fields["kind"] = "wait/test" if name in WAIT_CALLS else "point-to-point"
        out.append(CallTime(call=name, **fields))
    return tuple(out)


def decode_rank(obj: Mapping[str, Any], where: str, nranks: int | None = None,
                version: int = FORMAT_VERSION) -> RankProfile:
    """A ``rank`` record of a file of format ``version`` (its header's)."""
    calls = _calls(obj, where, version)
    fields = decode(RANK_FIELDS, obj, where, ProfileError)
    rank = fields["rank"]
    if nranks is not None and rank >= nranks:
        raise ProfileError(f"{where}: rank {rank} in a run of {nranks} ranks")
    for m in fields["messages"]:
        _check_messages(m, nranks, where)
    for seq in fields["sequences"]:
        _check_sequences(seq, nranks, where)
    sends: dict[int, int] = {}
    for m in fields["messages"]:
        if m.direction == "send":
            sends[m.peer] = sends.get(m.peer, 0) + m.count
    for seq in fields["sequences"]:  # a sequence is of sends the rank made, each counted among its messages
        if seq.messages > sends.get(seq.peer, 0):
            raise ProfileError(f"{where}: rank {rank} sends {seq.messages} messages to peer {seq.peer} in "
                               f"sequences but {sends.get(seq.peer, 0)} in all; the record is inconsistent")
    clock = RankClock(**decode(CLOCK_FIELDS, obj, where, ProfileError)) if version >= 2 else None
    v3 = decode(RANK_V3_FIELDS, obj, where, ProfileError) if version >= 3 else {}
    for c in v3.get("collectives", ()):
        if (c.faults_n > c.n or c.faulted_n > c.faults_n or c.faulted_n > c.faults or c.preempted_n > c.faults_n
                or (c.faults > 0) != (c.faulted_n > 0)):
            raise ProfileError(f"{where}: {c.call[:40]} has its page faults counted in {c.faults_n} calls of {c.n}, "
                               f"{c.faulted_n} of them faulting, {c.preempted_n} descheduled, {c.faults} faults in all: "
                               "inconsistent")
    return RankProfile(**fields, calls=calls, clock=clock, **v3)


# ---- encoding (the inverse of decoding, field for field) -------------------------------------

def _encode_pairs(pairs: tuple[SizeCount, ...]) -> list[list[int]]:
    return [[p.bytes, p.count] for p in pairs]


def encode_info(info: ProfileInfo) -> dict[str, Any]:
    return {"type": "profile", "format": FORMAT_NAME, "format_version": info.format_version,
            "profiler_version": info.profiler_version, "argv": list(info.argv),
            "mpi_library": info.mpi_library, "mpi_version": info.mpi_version, "nranks": info.nranks,
            "hosts": list(info.hosts), "start_time": info.start_time, "end_time": info.end_time,
            "thread_level": info.thread_level, "clock": info.clock, "clock_read_s": info.clock_read_s,
            "sequence_gap_s": info.sequence_gap_s, "complete": info.complete}


def encode_rank(r: RankProfile, version: int = FORMAT_VERSION) -> dict[str, Any]:
    clock = {} if r.clock is None else {
        "clock": r.clock.name, "clock_ticks_per_s": r.clock.ticks_per_s,
        "clock_ticks_per_s_at_init": r.clock.ticks_per_s_at_init,
        "clock_calibration_s": r.clock.calibration_s, "clock_read_s": r.clock.read_s}
    return {
        "type": "rank", "rank": r.rank, "host": r.host, "pid": r.pid, "ended_by": r.ended_by,
        "wall_s": r.wall_s, "mpi_time_s": r.mpi_time_s, "wait_time_s": r.wait_time_s,
        "calls": {c.call: {"n": c.n, "time_s": c.time_s, **({"kind": c.kind, "bytes": c.bytes} if version >= 3 else {})}
                  for c in r.calls},
        **({"sites": [{"call": s.call, "object": s.object, "offset": s.offset, "n": s.n, "time_s": s.time_s}
                      for s in r.sites],
            "sites_other_n": r.sites_other_n, "sites_other_time_s": r.sites_other_time_s,
            "collectives": [{"call": c.call, "comm_size": c.comm_size, "bytes": c.bytes, "n": c.n,
                             "time_s": c.time_s,
                             **({"faults_n": c.faults_n, "faults": c.faults, "faulted_n": c.faulted_n,
                                 "preempted_n": c.preempted_n, "datatype": c.datatype}
                                if version >= 4 else {})}
                            for c in r.collectives],
            "collectives_other_n": r.collectives_other_n,
            "collectives_other_time_s": r.collectives_other_time_s,
            **({"page_fault_s": r.page_fault_s} if version >= 4 else {})} if version >= 3 else {}),
        "messages": [{"peer": m.peer, "direction": m.direction, "kind": m.kind, "count": m.count,
                      "bytes": m.bytes, "sizes": _encode_pairs(m.sizes), "other_count": m.other_count,
                      "other_bytes": m.other_bytes, "log2": _encode_pairs(m.log2)} for m in r.messages],
        "sequences": [{"peer": s.peer, "count": s.count, "messages": s.messages, "bytes": s.bytes,
                       "shapes": [{"count": h.count, "length": h.length, "bytes": h.bytes,
                                   "min_bytes": h.min_bytes, "max_bytes": h.max_bytes,
                                   "kinds": list(h.kinds),
                                   "sizes": None if h.sizes is None else _encode_pairs(h.sizes)}
                                  for h in s.shapes],
                       "other_count": s.other_count, "other_messages": s.other_messages,
                       "other_bytes": s.other_bytes, "other_max_length": s.other_max_length}
                      for s in r.sequences],
        "proc_null": r.proc_null, "unknown_peer": r.unknown_peer,
        "untracked_requests": r.untracked_requests, **clock,
    }


def encode_profile(profile: Profile) -> list[dict[str, Any]]:
    """The file's records, in order: the header, then the ranks by rank."""
    return [encode_info(profile.info), *(encode_rank(r, profile.info.format_version) for r in profile.ranks)]


def profile_text(profile: Profile) -> str:
    """The profile as the file's JSON Lines (floats in their shortest exact form)."""
    return "".join(json.dumps(record, allow_nan=False, separators=(",", ":")) + "\n"
                   for record in encode_profile(profile))
