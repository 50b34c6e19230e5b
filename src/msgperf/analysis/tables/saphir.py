"""Saphir's Table 1 (Saphir 1994), one row per run and placement of the measured pair: the figures
that compare MPI builds. Every value is taken from the run's one analysis result, so ``summary``
shows exactly what ``show``, ``fit`` and the report show:

- zero-byte latency, asymptotic latency, peak and asymptotic bandwidth: the main series'
  ``characteristics`` (analysis/model/regimes.py: Saphir's definitions, each limited by the evidence);
- copy speed b_c: ``buffering.copy_speed``, the memcpy bandwidth at its largest measured size;
- effective buffered bandwidth b_e = b_c·b_n/(b_c + b_n) (``buffering.effective_bandwidth``), with
  b_n the asymptotic bandwidth;
- eager limit: what ``eager-probe`` measured;
- n½ = α/β of the main series' Hockney line (the value ``fit`` prints under the Hockney model);
- floor ratio: zero-byte latency / the ``floor`` pattern's median at the same size (its smallest
  size when it lacks that one): how far MPI sits above a shared-memory round trip. A floor must lie
  below the latency it divides (side_by_side.floor_above, within both intervals); when it does not,
  the ratio is None and ``floor_cannot_tell`` says why. Its interval (``floor_ratio_low``,
  ``floor_ratio_high``) is the widest the two intervals allow: the latency's low end over the
  floor's high end, its high end over the floor's low end; without both intervals the ratio has
  none and is "cannot tell" too (issue 27 item 4: every ratio ``summary`` prints has an interval);
- a zero-byte latency, peak or asymptotic bandwidth that the answer cannot tell because it was
  measured while disturbed (analysis/answer.py ``Answer.disturbed``) is None here too, with the
  answer's reason (``zero_byte_latency_why_not``, ``peak_bandwidth_why_not``,
  ``bandwidth_why_not``), and the floor ratio with the latency, b_e with the asymptotic bandwidth.

None where the run does not hold what a value needs. Pure: no I/O.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import msgspec

from msgperf import units

from msgperf.analysis.tables.buffering import copy_speed, effective_bandwidth
from msgperf.analysis.tables.eager import EagerLimit
from msgperf.analysis.model import SeriesAnalysis
from msgperf.analysis.tables.side_by_side import FloorRow, floor_above
from msgperf.values import Value


class SaphirRow(Value):
    run: str                       # the run's path (or what the caller names it by)
    series: str                    # the series the latency and bandwidth figures come from
    mpi_library: str               # first line of MPI_Get_library_version
    mpi_version: str               # MPI standard version, "4.1"
    placement: str                 # "intra" (pair on one node), "inter", "" when unknown
    zero_byte_size: int | None
    zero_byte_latency_s: float | None
    asymptotic_latency_s: float | None
    bandwidth_bytes_per_s: float | None  # asymptotic bandwidth
    peak_bandwidth_bytes_per_s: float | None
    peak_bandwidth_size: int | None
    copy_speed_bytes_per_s: float | None
    copy_speed_size: int | None    # the memcpy size b_c was measured at (its largest)
    effective_buffered_bandwidth_bytes_per_s: float | None
    eager_limit_bytes: int | None
    n_half_bytes: float | None
    floor_ratio: float | None
    floor_cannot_tell: str = ""    # why the floor ratio is not a finding (the floor is not below the latency)
    # why the eager limit is not given although the probe ran ("" when it is, or was not measured)
    eager_limit_why_not: str = ""
    floor_ratio_low: float | None = None   # the floor ratio's interval (None with the ratio)
    floor_ratio_high: float | None = None
    zero_byte_latency_why_not: str = ""    # why the zero-byte latency is not given (disturbed), "" when it is
    peak_bandwidth_why_not: str = ""
    bandwidth_why_not: str = ""            # why the asymptotic bandwidth (and b_e with it) is not given
    asymptotic_latency_why_not: str = ""   # why the asymptotic latency is not given (disturbed)
    n_half_why_not: str = ""               # why n½ is not given (disturbed)
    copy_speed_why_not: str = ""           # why b_c (and b_e with it) is not given (memcpy measured disturbed)

    def as_dict(self) -> dict[str, Any]:
        return msgspec.structs.asdict(self)


def _finite(x: float | None) -> float | None:
    return float(x) if x is not None and math.isfinite(x) else None


def saphir_row(name: str, mpi_library: str, mpi_version: str, placement: str,
               main: SeriesAnalysis | None, memcpy: Sequence[tuple[int, float]],
               eager: EagerLimit | None, floors: Sequence[FloorRow],
               smallest: tuple[int, float] | None = None) -> SaphirRow:
    """One row from the pieces of a run's result (see the module docstring). ``smallest`` is
    (size, median) of the main pattern's smallest size, the zero-byte latency when the pattern
    has too few sizes for a model (the same number the model's ``characteristics`` would give)."""
    zero_size = zero = alpha = bn = peak = peak_size = n_half = None
    if smallest is not None:
        zero_size, zero = smallest
    if main is not None:
        ch = main.sweep.characteristics
        zero_size, zero = ch.zero_byte_size, ch.zero_byte_latency_s
        alpha = _finite(ch.asymptotic_latency_s)
        bn = _finite(ch.asymptotic_bandwidth_bytes_per_s)
        peak, peak_size = _finite(ch.peak_bandwidth_bytes_per_s), ch.peak_bandwidth_size
        n_half = ch.n_half.value  # the answer block's n½, by the same rule
    copy = copy_speed(memcpy)
    bc, bc_size = copy if copy is not None else (None, None)
    be = effective_bandwidth(bc, bn) if bc is not None and bn is not None and bn > 0 else None
    ratio, why = None, ""
    ratio_low = ratio_high = None
    if floors and zero is not None:
        by_size = {f.bytes: f for f in floors}
        f = by_size.get(zero_size, min(floors, key=lambda r: r.bytes))
        zero_ci = main.sweep.characteristics.zero_byte_latency_ci_s if main is not None else None
        zero_high = zero_ci[1] if zero_ci is not None else None
        why = floor_above(f.floor_s, f.floor_low_s, zero, zero_high, "the zero-byte latency")
        ratio = zero / f.floor_s if f.floor_s > 0 and not why else None
        if ratio is not None:
            ends = (zero_ci[0] if zero_ci is not None else None, zero_high, f.floor_low_s, f.floor_high_s)
            if any(e is None or not math.isfinite(e) for e in ends) or ends[2] <= 0 or ends[3] <= 0:
                ratio, why = None, ("no interval: the zero-byte latency or the floor has none, so the ratio "
                                    "has none")
            else:
                ratio_low, ratio_high = ends[0] / ends[3], ends[1] / ends[2]
    return SaphirRow(run=name, series=main.series if main is not None else "", mpi_library=mpi_library,
                     mpi_version=mpi_version, placement=placement, zero_byte_size=zero_size,
                     zero_byte_latency_s=zero, asymptotic_latency_s=alpha, bandwidth_bytes_per_s=bn,
                     peak_bandwidth_bytes_per_s=peak, peak_bandwidth_size=peak_size,
                     copy_speed_bytes_per_s=bc, copy_speed_size=bc_size,
                     effective_buffered_bandwidth_bytes_per_s=be,
                     eager_limit_bytes=eager.limit_bytes if eager is not None and eager.agreed else None,
                     n_half_bytes=n_half, floor_ratio=ratio, floor_cannot_tell=why,
                     floor_ratio_low=ratio_low if ratio is not None else None,
                     floor_ratio_high=ratio_high if ratio is not None else None,
                     eager_limit_why_not=f"cannot tell ({eager.disagreement})" if eager is not None and not eager.agreed
                     else "")


def copy_undisturbed(row: SaphirRow, why: str) -> SaphirRow:
    """The row without its copy speed b_c, and the buffered bandwidth b_e made from it, where the
    memcpy measurement it comes from was disturbed (``why``; "" keeps them): a copy beside a busy
    loop on the same cores is the loop's as much as the memory's."""
    if not why or row.copy_speed_bytes_per_s is None:
        return row
    return msgspec.structs.replace(row, copy_speed_bytes_per_s=None, effective_buffered_bandwidth_bytes_per_s=None,
                                   copy_speed_why_not=f"{why} ({units.rate(row.copy_speed_bytes_per_s)})")


def undisturbed(row: SaphirRow, disturbed: dict[str, str]) -> SaphirRow:
    """The row with the figures the answer could not tell because they were measured while
    disturbed (``Answer.disturbed``: term name -> reason) as None with that reason: the zero-byte
    latency with the floor ratio, the peak bandwidth, the asymptotic bandwidth with the
    buffered bandwidth b_e made from it, the asymptotic latency and n½."""
    changes: dict[str, Any] = {}
    latency_why_not = disturbed.get("zero_byte_latency", "")
    if latency_why_not:
        changes.update(zero_byte_latency_s=None, zero_byte_latency_why_not=latency_why_not)
        if row.floor_ratio is not None or row.floor_cannot_tell:
            changes.update(floor_ratio=None, floor_ratio_low=None, floor_ratio_high=None,
                           floor_cannot_tell=f"the zero-byte latency cannot be told ({latency_why_not})")
    if disturbed.get("peak_bandwidth"):
        changes.update(peak_bandwidth_bytes_per_s=None, peak_bandwidth_why_not=disturbed["peak_bandwidth"])
    if disturbed.get("asymptotic_bandwidth"):
        changes.update(bandwidth_bytes_per_s=None, bandwidth_why_not=disturbed["asymptotic_bandwidth"],
                       effective_buffered_bandwidth_bytes_per_s=None)
    if disturbed.get("asymptotic_latency"):
        changes.update(asymptotic_latency_s=None, asymptotic_latency_why_not=disturbed["asymptotic_latency"])
    if disturbed.get("n_half"):
        changes.update(n_half_bytes=None, n_half_why_not=disturbed["n_half"])
    return msgspec.structs.replace(row, **changes) if changes else row
