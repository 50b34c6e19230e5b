"""The eager limit as the ``eager-probe`` pattern measured it: the largest size whose standard-mode
send completed while no receive was posted (bisection), and per probed size whether it was sent
eagerly and how many unexpected messages of that size were accepted before a sender blocked
(Blaisdell's "network buffer size", measured directly). Pure.

Validity rule: every record of one probe (each probed size, in every launch) carries the limit its
bisection found; they must agree, and each record's eager yes/no must agree with its own limit. On
a busy machine they do not (one Open MPI run gave 1023, 2091 and 4040 B, and "1 KiB: eager yes"
beside its own limit of 1023 B): then the limit is "cannot tell" (``disagreement`` says why) and
nothing is derived from it (no regime split, no label, no step at the limit)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from msgperf.analysis.tables.size_rows import SizeRow
from msgperf.values import Value


class ProbeRow(Value):
    bytes: int
    eager: bool | None
    capacity: int | None  # unexpected messages of this size accepted before a sender blocked
    capacity_capped: bool  # the probe stopped counting at its cap


class EagerLimit(Value):
    limit_bytes: int | None  # exact when the bisection closed (high = low + 1)
    low_bytes: int  # the largest size seen sent eagerly
    high_bytes: int | None  # the smallest size seen wait for its receive; None: none up to the probe's maximum
    probe_max_bytes: int | None
    rows: tuple[ProbeRow, ...]
    # why the limit is "cannot tell" ("" when the probe's records agree): the limits they carry,
    # or the records whose eager yes/no contradicts their own limit
    disagreement: str = ""

    @property
    def agreed(self) -> bool:
        return not self.disagreement

    @property
    def split_bytes(self) -> int:
        """The size up to which messages went eagerly (the limit, else the interval's low end)."""
        return self.limit_bytes if self.limit_bytes is not None else self.low_bytes

    @property
    def switch_bytes(self) -> int | None:
        """``split_bytes`` when the probe also saw a size wait for its receive (a switch lies just
        above it: where a refinement tests the ping-pong for a step), else None."""
        return None if self.high_bytes is None else self.split_bytes


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _bracket(extra: Mapping[str, Any]) -> tuple[int | None, int | None, int | None]:
    """(limit, low, high) one record's bisection found."""
    limit, low = _int(extra.get("eager_limit_bytes")), _int(extra.get("eager_limit_low_bytes"))
    return limit, low if low is not None else limit, _int(extra.get("eager_limit_high_bytes"))


def goes_eagerly(size: float, limit: int) -> bool:
    """The eager limit's one rule: a message at or below the limit (the largest size the probe saw
    sent eagerly) goes eagerly, a larger one by rendezvous."""
    return size <= limit


def protocol_at(size: float, limit: int) -> str:
    """The protocol regime of a message of ``size`` bytes: "eager" or "rendezvous"."""
    return "eager" if goes_eagerly(size, limit) else "rendezvous"


def _contradicts(size: int, eager: Any, bracket: tuple[int | None, int | None, int | None]) -> bool:
    """A record's eager yes/no against its own limit: a size at or below it went eagerly, above it not."""
    if not isinstance(eager, bool):
        return False
    limit, low, high = bracket
    if eager:  # eager above the limit (or at or above the size seen waiting)
        return (not goes_eagerly(size, limit)) if limit is not None else (high is not None and size >= high)
    return goes_eagerly(size, limit) if limit is not None else (low is not None and size <= low)


def disagreement(records: Sequence[tuple[int, Mapping[str, Any]]]) -> str:
    """"" when the probe's records, (bytes, record fields) of every launch, agree on the limit and
    each record's eager yes/no is consistent with its own limit; else the reason, in words."""
    brackets = [(size, extra, _bracket(extra)) for size, extra in records]
    # a record's finding: its exact limit, else the bracket [low, high) its bisection left
    found = sorted({(b[0], None) if b[0] is not None else (b[1], b[2]) for _, _, b in brackets
                    if b != (None, None, None)}, key=lambda f: (f[0] if f[0] is not None else -1, f[1] or 0))
    words = []
    if len(found) > 1:
        limits = [f"{lo} B" if hi is None and lo is not None else f"[{lo}, {hi if hi is not None else '∞'}) B"
                  for lo, hi in found]
        words.append("the probe's records disagree: " + ", ".join(limits))
    wrong = sorted({(size, bool(extra["eager"]), b[0] if b[0] is not None else b[1]) for size, extra, b in brackets
                    if _contradicts(size, extra.get("eager"), b)})
    if wrong:
        words.append("; ".join(f"{size} B: eager {'yes' if e else 'no'} beside its own limit of {lim} B"
                               for size, e, lim in wrong[:4]) + (" …" if len(wrong) > 4 else ""))
    return "; ".join(words)


def eager_limit(rows: Sequence[SizeRow],
                records: Sequence[tuple[int, Mapping[str, Any]]] | None = None) -> EagerLimit | None:
    """The limit from the probe's rows; ``records``: (bytes, fields) of every eager-probe record
    the rows pool (every launch), checked for agreement (the rows keep only the latest's)."""
    probes = [r for r in rows if r.pattern == "eager-probe"]
    if not probes:
        return None
    if records is None:
        records = [(r.bytes, r.extra) for r in probes]
    first = probes[0].extra
    low = _int(first.get("eager_limit_low_bytes"))
    limit = _int(first.get("eager_limit_bytes"))
    if low is None:
        low = limit if limit is not None else 0
    table = tuple(ProbeRow(r.bytes, r.extra.get("eager") if isinstance(r.extra.get("eager"), bool) else None,
                           _int(r.extra.get("unexpected_capacity")), bool(r.extra.get("capacity_capped")))
                  for r in probes)
    return EagerLimit(limit, low, _int(first.get("eager_limit_high_bytes")),
                      _int(first.get("probe_max_bytes")), table, disagreement(records))
