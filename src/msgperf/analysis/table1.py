"""Saphir's Table 1 (seeds/002), one row per run and placement: the figures that compare MPI builds.

Every value comes from the rows of ``analysis.rows.size_rows`` (medians of the samples, per
message) and is None where the run does not hold what it needs:

- zero-byte latency: the one-way median of ``pingpong`` at its smallest size (0 B when measured)
- asymptotic latency α and bandwidth 1/β: the Hockney line T(s) = α + β·s of the analysis
  engine (``analyze_run(run, "pingpong").sweep.hockney``: the robust, relatively weighted fit
  that ``msgperf fit``, ``show`` and the report print). A run with both placements gets one row
  per placement, each from a plain 1/T-weighted least-squares line over that placement's medians
  (``analysis.loggp.fit_line``), since the engine pools the pairs of one pattern
- copy speed b_c: the ``memcpy`` pattern's bandwidth at its largest size (the copy a large,
  buffered message costs; a peak at a small, in-cache size would make b_e look free)
- effective buffered bandwidth b_e = b_c·b_n/(b_c + b_n), with b_n = 1/β (seeds/002 §3)
- eager limit: the ``eager-probe`` records' ``eager_limit_bytes``
- n½ = α/β: the size at which half the asymptotic bandwidth is reached
- hardware floor ratio: zero-byte latency / the ``floor`` pattern's median at the same size (its
  smallest size when it lacks that one): how far MPI sits above a shared-memory round trip

Pure: no I/O.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from msgperf.analysis.inputs import AnalysisError
from msgperf.analysis.loggp import LogGPError, fit_line
from msgperf.analysis.run import analyze_run
from msgperf.analysis.rows import SizeRow, size_rows
from msgperf.records.format import Run


@dataclass(frozen=True)
class Table1Row:
    run: str                       # the run's path (or what the caller names it by)
    mpi_library: str               # first line of MPI_Get_library_version
    mpi_version: str               # MPI standard version, "4.1"
    placement: str                 # "intra" (pair on one node) or "inter"
    zero_byte_size: int | None
    zero_byte_latency_s: float | None
    asymptotic_latency_s: float | None
    bandwidth_bytes_per_s: float | None
    copy_speed_bytes_per_s: float | None
    effective_buffered_bandwidth_bytes_per_s: float | None
    eager_limit_bytes: int | None
    n_half_bytes: float | None
    floor_ratio: float | None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _placement(run: Run, r: SizeRow) -> str:
    value = r.extra.get("placement")
    if isinstance(value, str) and value:
        return value
    if run.launches:
        return "intra" if run.launches[-1].pair_shares_node else "inter"
    return ""


def _pick(rows: list[SizeRow], pattern: str) -> dict[int, SizeRow]:
    """size -> row of pattern (no variant), separate buffers preferred."""
    out: dict[int, SizeRow] = {}
    for r in sorted(rows, key=lambda r: r.buffer != "separate"):
        if r.pattern == pattern and r.variant == "":
            out.setdefault(r.bytes, r)
    return out


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def table1_from_rows(rows: list[SizeRow], name: str = "", mpi_library: str = "", mpi_version: str = "",
                     placement: str = "", line: tuple[float, float] | None = None) -> Table1Row:
    """One Table-1 row from the rows of one placement; ``line`` is (α, β) when the caller has
    the analysis engine's fit, else a plain weighted line is fitted here."""
    ping = _pick(rows, "pingpong")
    zero_size = min(ping) if ping else None
    zero = ping[zero_size].summary.median if ping else None
    alpha = beta = None
    if line is not None:
        alpha, beta = line
    elif len(ping) >= 2:
        try:
            line = fit_line(sorted(ping), [ping[s].summary.median for s in sorted(ping)])
            alpha, beta = line.alpha, line.beta
        except LogGPError:
            pass
    bn = 1.0 / beta if beta is not None and beta > 0 else None
    copies = [(s, r.bandwidth_bytes_per_s) for s, r in _pick(rows, "memcpy").items() if s > 0]
    copies = [(s, c) for s, c in copies if math.isfinite(c)]
    bc = max(copies)[1] if copies else None  # at the largest size
    be = bc * bn / (bc + bn) if bc is not None and bn is not None else None
    eager = None
    for r in rows:
        v = r.extra.get("eager_limit_bytes") if r.pattern == "eager-probe" else None
        if isinstance(v, int) and not isinstance(v, bool):
            eager = v
            break
    n_half = alpha / beta if alpha is not None and beta is not None and beta > 0 else None
    floor = _pick(rows, "floor")
    ratio = None
    if floor and zero is not None:
        f = floor.get(zero_size, floor[min(floor)])
        ratio = zero / f.summary.median if f.summary.median > 0 else None
    return Table1Row(run=name, mpi_library=mpi_library, mpi_version=mpi_version, placement=placement,
                     zero_byte_size=zero_size, zero_byte_latency_s=zero,
                     asymptotic_latency_s=alpha, bandwidth_bytes_per_s=bn, copy_speed_bytes_per_s=bc,
                     effective_buffered_bandwidth_bytes_per_s=be, eager_limit_bytes=eager,
                     n_half_bytes=_finite(n_half) if n_half is not None else None, floor_ratio=ratio)


def table1(run: Run, name: str | None = None) -> list[Table1Row]:
    """The Table-1 rows of a run: one per placement of the measured pair (usually one)."""
    rows = size_rows(run)
    launch = run.launches[-1] if run.launches else None
    library = launch.mpi_library.strip().splitlines()[0].strip() if launch and launch.mpi_library.strip() else ""
    library = " ".join(library.split())
    version = launch.mpi_version if launch else ""
    by_place: dict[str, list[SizeRow]] = {}
    for r in rows:
        by_place.setdefault(_placement(run, r), []).append(r)
    if not by_place:
        by_place[""] = []
    line = None
    if len(by_place) == 1 and len(_pick(rows, "pingpong")) >= 2:
        try:
            hockney = analyze_run(run, pattern="pingpong").sweep.hockney
            line = (hockney.alpha_s, hockney.beta_s_per_byte)
        except AnalysisError:
            pass
    return [table1_from_rows(group, name if name is not None else run.path, library, version, place, line)
            for place, group in by_place.items()]
