"""The profile format: the one place that knows its record types and field names.

A profile file (docs/profile.md) is JSON Lines written by msgperf's PMPI profiler
(``kernels/profiler``): one ``profile`` record (the header: program, MPI, ranks, hosts,
times, the sequence rule), then one ``rank`` record per rank: its messages per (peer,
direction, call kind) with their sizes, the time it spent inside MPI, and its back-to-back
sequences. This module turns decoded JSON objects into frozen dataclasses and back; reading
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
import math
from dataclasses import dataclass
from typing import Any, Mapping

from msgperf.errors import MsgperfError
from msgperf.records.limits import (MAX_CLOCK_TICKS_PER_S, MAX_EXACT, MAX_MESSAGE_BYTES, MAX_PID,
                                    MAX_PROFILE_TIME_S, MAX_RANKS, check_float, check_int)

FORMAT_NAME = "msgperf-profile"
FORMAT_VERSION = 3  # 2: each rank record names its clock; 3: every MPI call, kinds, sites, collectives

DIRECTIONS = ("send", "recv")
SEND_KINDS = ("send", "ssend", "rsend", "bsend", "isend", "issend", "irsend", "ibsend",
              "send_init", "ssend_init", "rsend_init", "bsend_init", "sendrecv", "sendrecv_replace")
RECV_KINDS = ("recv", "irecv", "recv_init", "sendrecv", "sendrecv_replace")
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


@dataclass(frozen=True)
class SizeCount:
    """``count`` messages of ``bytes`` bytes (in a log2 histogram: of ``bytes`` up to twice that)."""

    bytes: int
    count: int


@dataclass(frozen=True)
class PeerMessages:
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


@dataclass(frozen=True)
class SequenceShape:
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


@dataclass(frozen=True)
class PeerSequences:
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


@dataclass(frozen=True)
class CallTime:
    """How often a wrapped MPI call ran and the time spent inside it."""

    call: str  # "MPI_Isend", "MPI_Waitall", ...
    n: int
    time_s: float
    kind: str = "point-to-point"  # one of CALL_KINDS
    bytes: int = 0  # sent by a point-to-point send, a collective's or a one-sided transfer's data (version 3)


@dataclass(frozen=True)
class CallSite:
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


@dataclass(frozen=True)
class CollectiveCalls:
    """The calls of one collective with one communicator size and one data size (version 3):
    what a collective's model needs to predict them."""

    call: str  # "MPI_Allreduce", "MPI_Ibcast", ...
    comm_size: int  # the communicator's size (remote group of an intercommunicator)
    bytes: int  # the data of one call at this rank (docs/profile.md)
    n: int
    time_s: float


@dataclass(frozen=True)
class RankClock:
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


@dataclass(frozen=True)
class KindSizeCount:
    """One row of ``RankProfile.size_counts``."""

    peer: int
    bytes: int
    kind: str
    count: int


@dataclass(frozen=True)
class RankProfile:
    """One rank's record."""

    rank: int
    host: str
    pid: int
    ended_by: str  # MPI_Finalize; MPI_Abort, "exit without MPI_Finalize", "signal SIGSEGV"...: a partial record
    wall_s: float  # from the return of MPI_Init to the entry of MPI_Finalize (or the end)
    mpi_time_s: float  # inside the wrapped point-to-point calls, waits and tests included
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


@dataclass(frozen=True)
class ProfileInfo:
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


@dataclass(frozen=True)
class Profile:
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


# ---- decoding ------------------------------------------------------------------------------

def _get(obj: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in obj:
        raise ProfileError(f"{where}: missing field {key!r}")
    value = obj[key]
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        name = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        raise ProfileError(f"{where}: field {key!r} must be {name}, not {type(value).__name__}")
    return value


def _count(obj: Mapping[str, Any], key: str, where: str, high: int = MAX_EXACT) -> int:
    """A count (or a total of bytes) within [0, ``high``]: the limits of records/limits.py."""
    value = _get(obj, key, int, where)
    if value < 0:
        raise ProfileError(f"{where}: field {key!r} must not be negative ({value})")
    return check_int(value, where, key, 0, high, ProfileError)


def _total(obj: Mapping[str, Any], key: str, where: str) -> int:
    """A total of bytes over many messages: within a signed 64-bit integer."""
    return _count(obj, key, where, (1 << 63) - 1)


def _message_bytes(obj: Mapping[str, Any], key: str, where: str) -> int:
    """The size of one message: at most ``MAX_MESSAGE_BYTES``."""
    return _count(obj, key, where, MAX_MESSAGE_BYTES)


def _seconds(obj: Mapping[str, Any], key: str, where: str) -> float:
    value = _get(obj, key, float, where)
    if not math.isfinite(value) or value < 0:
        raise ProfileError(f"{where}: field {key!r} must be a non-negative time ({value})")
    return check_float(value, where, key, 0.0, MAX_PROFILE_TIME_S, ProfileError)


def _pairs(value: Any, key: str, where: str) -> tuple[SizeCount, ...]:
    """[bytes, count] pairs: a message size within ``MAX_MESSAGE_BYTES``, a count within 2^53."""
    if not isinstance(value, list):
        raise ProfileError(f"{where}: field {key!r} must be a list of [bytes, count] pairs")
    out = []
    for i, pair in enumerate(value):
        if (not isinstance(pair, list) or len(pair) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in pair)):
            raise ProfileError(f"{where}: field {key!r} must be a list of [bytes, count] pairs")
        out.append(SizeCount(bytes=check_int(pair[0], where, f"{key}[{i}] bytes", 0, MAX_MESSAGE_BYTES, ProfileError),
                             count=check_int(pair[1], where, f"{key}[{i}] count", 0, MAX_EXACT, ProfileError)))
    return tuple(out)


def _strings(value: Any, key: str, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        raise ProfileError(f"{where}: field {key!r} must be a list of strings")
    return tuple(value)


def _peer(obj: Mapping[str, Any], nranks: int | None, where: str) -> int:
    peer = _count(obj, "peer", where)
    if nranks is not None and peer >= nranks:
        raise ProfileError(f"{where}: peer {peer} is not a rank of this run ({nranks} ranks)")
    return peer


def decode_info(obj: Mapping[str, Any], where: str) -> ProfileInfo:
    if obj.get("format") != FORMAT_NAME:
        raise ProfileError(f"{where}: not a msgperf profile (format {obj.get('format')!r})")
    version = _get(obj, "format_version", int, where)
    if version > FORMAT_VERSION:
        raise ProfileError(f"{where}: profile format version {version} is newer than this msgperf "
                           f"reads ({FORMAT_VERSION}); upgrade msgperf")
    if version < 1:
        raise ProfileError(f"{where}: profile format version {version} does not exist")
    nranks = _count(obj, "nranks", where, MAX_RANKS)
    if nranks < 1:
        raise ProfileError(f"{where}: nranks must be at least 1")
    hosts = _strings(_get(obj, "hosts", list, where), "hosts", where)
    if hosts and len(hosts) != nranks:
        raise ProfileError(f"{where}: {len(hosts)} hosts for {nranks} ranks")
    return ProfileInfo(
        format_version=version,
        profiler_version=_get(obj, "profiler_version", str, where),
        argv=_strings(_get(obj, "argv", list, where), "argv", where),
        mpi_library=_get(obj, "mpi_library", str, where),
        mpi_version=_get(obj, "mpi_version", str, where),
        nranks=nranks,
        hosts=hosts,
        start_time=_get(obj, "start_time", str, where),
        end_time=_get(obj, "end_time", str, where),
        thread_level=_get(obj, "thread_level", str, where),
        clock=_get(obj, "clock", str, where),
        clock_read_s=_seconds(obj, "clock_read_s", where),
        sequence_gap_s=_seconds(obj, "sequence_gap_s", where),
        complete=_get(obj, "complete", bool, where),
    )


def _decode_messages(obj: Any, nranks: int | None, where: str) -> PeerMessages:
    if not isinstance(obj, dict):
        raise ProfileError(f"{where}: each entry of 'messages' must be an object")
    direction = _get(obj, "direction", str, where)
    kind = _get(obj, "kind", str, where)
    if direction not in DIRECTIONS:
        raise ProfileError(f"{where}: direction {direction!r} is neither 'send' nor 'recv'")
    if kind not in (SEND_KINDS if direction == "send" else RECV_KINDS):
        raise ProfileError(f"{where}: {kind!r} is not a kind of {direction}")
    m = PeerMessages(peer=_peer(obj, nranks, where), direction=direction, kind=kind,
                     count=_count(obj, "count", where), bytes=_total(obj, "bytes", where),
                     sizes=_pairs(_get(obj, "sizes", list, where), "sizes", where),
                     other_count=_count(obj, "other_count", where),
                     other_bytes=_total(obj, "other_bytes", where),
                     log2=_pairs(_get(obj, "log2", list, where), "log2", where))
    if sum(s.count for s in m.sizes) + m.other_count != m.count or sum(s.count for s in m.log2) != m.count:
        raise ProfileError(f"{where}: the size counts of peer {m.peer} ({kind}) do not add up to {m.count}")
    if sum(s.bytes * s.count for s in m.sizes) + m.other_bytes != m.bytes:
        raise ProfileError(f"{where}: the sizes of peer {m.peer} ({kind}) do not add up to {m.bytes} bytes")
    return m


def _decode_shape(obj: Any, where: str) -> SequenceShape:
    if not isinstance(obj, dict):
        raise ProfileError(f"{where}: each sequence shape must be an object")
    sizes = obj.get("sizes")
    kinds = _strings(_get(obj, "kinds", list, where), "kinds", where)
    if any(k not in SEND_KINDS for k in kinds):
        raise ProfileError(f"{where}: a sequence holds sends only, not {kinds}")
    shape = SequenceShape(count=_count(obj, "count", where), length=_count(obj, "length", where),
                          bytes=_total(obj, "bytes", where), min_bytes=_message_bytes(obj, "min_bytes", where),
                          max_bytes=_message_bytes(obj, "max_bytes", where), kinds=kinds,
                          sizes=None if sizes is None else _pairs(sizes, "sizes", where))
    if shape.length < 2:
        raise ProfileError(f"{where}: a sequence has at least 2 messages, not {shape.length}")
    if shape.sizes is not None and (sum(s.count for s in shape.sizes) != shape.length
                                    or sum(s.bytes * s.count for s in shape.sizes) != shape.bytes):
        raise ProfileError(f"{where}: the sizes of a sequence shape do not add up to its length and bytes")
    return shape


def _decode_sequences(obj: Any, nranks: int | None, where: str) -> PeerSequences:
    if not isinstance(obj, dict):
        raise ProfileError(f"{where}: each entry of 'sequences' must be an object")
    shapes = _get(obj, "shapes", list, where)
    seq = PeerSequences(peer=_peer(obj, nranks, where), count=_count(obj, "count", where),
                        messages=_count(obj, "messages", where), bytes=_total(obj, "bytes", where),
                        shapes=tuple(_decode_shape(s, where) for s in shapes),
                        other_count=_count(obj, "other_count", where),
                        other_messages=_count(obj, "other_messages", where),
                        other_bytes=_total(obj, "other_bytes", where),
                        other_max_length=_count(obj, "other_max_length", where))
    if (sum(s.count for s in seq.shapes) + seq.other_count != seq.count
            or sum(s.count * s.length for s in seq.shapes) + seq.other_messages != seq.messages):
        raise ProfileError(f"{where}: the sequence shapes of peer {seq.peer} do not add up to its totals")
    return seq


def _rate(obj: Mapping[str, Any], key: str, where: str) -> float:
    """A clock's ticks per second: positive, at most ``MAX_CLOCK_TICKS_PER_S``."""
    value = _get(obj, key, float, where)
    if not math.isfinite(value) or value <= 0:
        raise ProfileError(f"{where}: field {key!r} must be a positive number ({value})")
    return check_float(value, where, key, 0.0, MAX_CLOCK_TICKS_PER_S, ProfileError, low_open=True)


def _decode_clock(obj: Mapping[str, Any], where: str) -> RankClock:
    return RankClock(name=_get(obj, "clock", str, where),
                     ticks_per_s=_rate(obj, "clock_ticks_per_s", where),
                     ticks_per_s_at_init=_rate(obj, "clock_ticks_per_s_at_init", where),
                     calibration_s=_seconds(obj, "clock_calibration_s", where),
                     read_s=_seconds(obj, "clock_read_s", where))


def decode_rank(obj: Mapping[str, Any], where: str, nranks: int | None = None,
                version: int = FORMAT_VERSION) -> RankProfile:
    """A ``rank`` record of a file of format ``version`` (its header's)."""
    calls_obj = _get(obj, "calls", dict, where)
    calls = []
    for name, value in calls_obj.items():
        if not isinstance(value, dict):
            raise ProfileError(f"{where}: calls[{name!r}] must be an object")
        _string(name, f"calls[{name[:40]!r}]", where)
        if version >= 3:
            kind = _get(value, "kind", str, where)
            if kind not in CALL_KINDS:
                raise ProfileError(f"{where}: calls[{name!r}] kind {kind!r} is not one of {', '.join(CALL_KINDS)}")
            extra = {"kind": kind, "bytes": _total(value, "bytes", where)}
        else:
            extra = {"kind": "wait/test" if name in WAIT_CALLS else "point-to-point"}
        calls.append(CallTime(call=name, n=_count(value, "n", where), time_s=_seconds(value, "time_s", where),
                              **extra))
    rank = _count(obj, "rank", where)
    if nranks is not None and rank >= nranks:
        raise ProfileError(f"{where}: rank {rank} in a run of {nranks} ranks")
    ended_by = _get(obj, "ended_by", str, where)
    if ended_by not in ENDED_BY:
        raise ProfileError(f"{where}: ended_by {ended_by!r} is not one of {', '.join(ENDED_BY)}")
    messages = tuple(_decode_messages(m, nranks, where) for m in _get(obj, "messages", list, where))
    sequences = tuple(_decode_sequences(s, nranks, where) for s in _get(obj, "sequences", list, where))
    sends: dict[int, int] = {}
    for m in messages:
        if m.direction == "send":
            sends[m.peer] = sends.get(m.peer, 0) + m.count
    for seq in sequences:  # a sequence is of sends the rank made, each counted among its messages
        if seq.messages > sends.get(seq.peer, 0):
            raise ProfileError(f"{where}: rank {rank} sends {seq.messages} messages to peer {seq.peer} in "
                               f"sequences but {sends.get(seq.peer, 0)} in all; the record is inconsistent")
    return RankProfile(
        rank=rank, host=_get(obj, "host", str, where), pid=_count(obj, "pid", where, MAX_PID), ended_by=ended_by,
        wall_s=_seconds(obj, "wall_s", where), mpi_time_s=_seconds(obj, "mpi_time_s", where),
        wait_time_s=_seconds(obj, "wait_time_s", where), calls=tuple(calls),
        messages=messages, sequences=sequences,
        proc_null=_count(obj, "proc_null", where), unknown_peer=_count(obj, "unknown_peer", where),
        untracked_requests=_count(obj, "untracked_requests", where),
        clock=_decode_clock(obj, where) if version >= 2 else None,
        **(_decode_v3(obj, where, nranks) if version >= 3 else {}))


def _string(value: Any, key: str, where: str) -> str:
    if not isinstance(value, str):
        raise ProfileError(f"{where}: field {key!r} must be str, not {type(value).__name__}")
    return value  # its length and characters: the reader's check_json_values


def _decode_v3(obj: Mapping[str, Any], where: str, nranks: int | None) -> dict[str, Any]:
    sites = []
    for i, site in enumerate(_get(obj, "sites", list, where)):
        if not isinstance(site, dict):
            raise ProfileError(f"{where}: sites[{i}] must be an object")
        obj_name = site.get("object")
        sites.append(CallSite(call=_string(_get(site, "call", str, where), "call", where),
                              object=None if obj_name is None else _string(obj_name, "object", where),
                              offset=_total(site, "offset", where), n=_count(site, "n", where),
                              time_s=_seconds(site, "time_s", where)))
    colls = []
    for i, c in enumerate(_get(obj, "collectives", list, where)):
        if not isinstance(c, dict):
            raise ProfileError(f"{where}: collectives[{i}] must be an object")
        colls.append(CollectiveCalls(call=_string(_get(c, "call", str, where), "call", where),
                                     comm_size=_count(c, "comm_size", where, MAX_RANKS),
                                     bytes=_message_bytes(c, "bytes", where), n=_count(c, "n", where),
                                     time_s=_seconds(c, "time_s", where)))
    return {"sites": tuple(sites), "sites_other_n": _count(obj, "sites_other_n", where),
            "sites_other_time_s": _seconds(obj, "sites_other_time_s", where),
            "collectives": tuple(colls), "collectives_other_n": _count(obj, "collectives_other_n", where),
            "collectives_other_time_s": _seconds(obj, "collectives_other_time_s", where)}


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
                             "time_s": c.time_s} for c in r.collectives],
            "collectives_other_n": r.collectives_other_n,
            "collectives_other_time_s": r.collectives_other_time_s} if version >= 3 else {}),
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
