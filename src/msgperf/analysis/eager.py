"""The eager limit as the ``eager-probe`` pattern measured it: the largest size whose standard-mode
send completed while no receive was posted (bisection), and per probed size whether it was sent
eagerly and how many unexpected messages of that size were accepted before a sender blocked
(Blaisdell's "network buffer size", measured directly). Pure."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from msgperf.analysis.size_rows import SizeRow


@dataclass(frozen=True)
class ProbeRow:
    bytes: int
    eager: bool | None
    capacity: int | None  # unexpected messages of this size accepted before a sender blocked
    capacity_capped: bool  # the probe stopped counting at its cap


@dataclass(frozen=True)
class EagerLimit:
    limit_bytes: int | None  # exact when the bisection closed (high = low + 1)
    low_bytes: int  # the largest size seen sent eagerly
    high_bytes: int | None  # the smallest size seen wait for its receive; None: none up to the probe's maximum
    probe_max_bytes: int | None
    rows: tuple[ProbeRow, ...]

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


def eager_limit(rows: Sequence[SizeRow]) -> EagerLimit | None:
    probes = [r for r in rows if r.pattern == "eager-probe"]
    if not probes:
        return None
    first = probes[0].extra
    low = _int(first.get("eager_limit_low_bytes"))
    limit = _int(first.get("eager_limit_bytes"))
    if low is None:
        low = limit if limit is not None else 0
    table = tuple(ProbeRow(r.bytes, r.extra.get("eager") if isinstance(r.extra.get("eager"), bool) else None,
                           _int(r.extra.get("unexpected_capacity")), bool(r.extra.get("capacity_capped")))
                  for r in probes)
    return EagerLimit(limit, low, _int(first.get("eager_limit_high_bytes")),
                      _int(first.get("probe_max_bytes")), table)
