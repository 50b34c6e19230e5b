"""Tables of issue 10: Saphir's Table 1 across runs (``msgperf summary``), and in ``msgperf show``
the LogGP parameters beside α and β, and the synchronised exchange beside the plain one.

Every number is taken from ``analysis.table1`` / ``analysis.loggp`` results; nothing is
recomputed here.
"""

from __future__ import annotations

import math
from typing import Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from msgperf.analysis.loggp import LogGPError, analyze_loggp, points_from_rows
from msgperf.analysis.rows import SizeRow
from msgperf.analysis.table1 import Table1Row
from msgperf.present.units import format_bytes, format_rate, format_seconds

TABLE1_COLUMNS = ("run", "MPI library", "place", "0 B lat.", "α", "1/β MB/s", "copy MB/s", "b_e MB/s",
                  "eager", "n½", "÷ floor")


def _s(x: float | None) -> str:
    if x is None:
        return "-"
    text = format_seconds(x)
    return format_seconds(x, 4) if "e+" in text else text  # 999.5 ns, not 1e+03 ns


def _r(x: float | None) -> str:
    return format_rate(x) if x is not None else "-"


def table1_cells(row: Table1Row) -> list[str]:
    """The printed cells of one row, in TABLE1_COLUMNS order ("-" where the run has no data)."""
    zero = _s(row.zero_byte_latency_s)
    if row.zero_byte_latency_s is not None and row.zero_byte_size:
        zero += f" ({format_bytes(row.zero_byte_size)})"
    # "MPICH Version: 5.0.2" -> "MPICH 5.0.2"; "Open MPI v4.1.4, package: ..." -> "Open MPI v4.1.4"
    lib = " ".join(w for w in (row.mpi_library or "unknown MPI").split(",")[0].split() if w.lower() != "version:")
    return [row.run, lib, row.placement or "-", zero,
            _s(row.asymptotic_latency_s), _r(row.bandwidth_bytes_per_s), _r(row.copy_speed_bytes_per_s),
            _r(row.effective_buffered_bandwidth_bytes_per_s),
            format_bytes(row.eager_limit_bytes) if row.eager_limit_bytes is not None else "-",
            format_bytes(row.n_half_bytes) if row.n_half_bytes is not None and row.n_half_bytes >= 0 else "-",
            f"{row.floor_ratio:.3g}×" if row.floor_ratio is not None else "-"]


def render_table1(console: Console, rows: Sequence[Table1Row]) -> None:
    t = Table(title="message passing across MPI builds (Saphir's Table 1, seeds/002)",
              caption=escape("0 B lat.: one-way ping-pong median at the smallest size; asymptotic latency α and "
                             "bandwidth 1/β (MB/s = 10^6 B/s): line α + β·s fitted to the ping-pong (weighted by 1/T); copy: memcpy "
                             "peak; buffered bandwidth b_e = b_c·b_n/(b_c+b_n); eager limit: eager-probe; n½ = α/β; ÷ floor: 0 B "
                             "latency over the shared-memory floor (the floor pattern); -: the run has no such pattern"),
              caption_justify="left", header_style="bold")
    for c in TABLE1_COLUMNS:
        if c in ("run", "MPI library"):
            t.add_column(c, justify="left", overflow="fold", min_width=10)
        else:
            t.add_column(c, justify="right", no_wrap=True)
    for row in rows:
        t.add_row(*map(escape, table1_cells(row)))
    console.print(t)


def _index(rows: list[SizeRow], pattern: str) -> dict[int, SizeRow]:
    out: dict[int, SizeRow] = {}
    for r in sorted(rows, key=lambda r: r.buffer != "separate"):
        if r.pattern == pattern:
            out.setdefault(r.bytes, r)
    return out


def exchange_sync_table(rows: list[SizeRow]) -> Table | None:
    """exchange vs exchange-sync: what the barrier costs, per size."""
    plain, sync = _index(rows, "exchange"), _index(rows, "exchange-sync")
    sizes = sorted(set(plain) & set(sync))
    if not sizes:
        return None
    t = Table(title="exchange: unsynchronised vs Irecv, barrier, Isend (seeds/002 §3.1)",
              caption=escape("time per exchange, median. exchange-sync posts both receives, then a barrier, then "
                             "the sends, so no message ever arrives before its receive: the MPI never buffers it as "
                             "unexpected (no copy out of a system buffer, no unexpected-queue search, no buffer "
                             "memory held). The cost is the barrier: the difference of the medians."),
              caption_justify="left", header_style="bold")
    for c in ("bytes", "exchange", "exchange-sync", "barrier cost", "sync / plain"):
        t.add_column(c, justify="right", no_wrap=True)
    for s in sizes:
        a, b = plain[s].summary.median, sync[s].summary.median
        diff = b - a
        t.add_row(format_bytes(s), format_seconds(a), format_seconds(b),
                  format_seconds(diff) if diff >= 0 else "-" + format_seconds(-diff),
                  f"{b / a:.3g}×" if a > 0 else "-")
    return t


def loggp_table(rows: list[SizeRow]) -> Table | None:
    """LogGP parameters (Netgauge's method) next to the Hockney α and β, and which fits better."""
    points = points_from_rows(rows)
    if len({p.bytes for p in points}) < 2:
        return None
    try:
        a = analyze_loggp(points)
    except LogGPError:
        return None
    p, h, c = a.params, a.hockney, a.comparison
    t = Table(title="LogGP (Netgauge's PRTT method, docs/loggp.md) beside Hockney α + β·s",
              caption=escape(f"from the loggp pattern over {len(points)} sizes; which fits the one-way time better: "
                             f"{c.better} ({c.criterion}: LogGP {c.loggp_rms_log:.3f}, Hockney "
                             f"{c.hockney_rms_log:.3f}; Hockney is fitted to these times, LogGP predicts them from "
                             "the other series)" + (f"; d < g + G·s at {', '.join(map(format_bytes, p.d_too_small))}"
                                                    if p.d_too_small else "")
                             + ("; L ≤ 0: no wire to cross (shared memory: the overheads hold the copy that is "
                                "the transfer)" if p.L <= 0 else "")),
              caption_justify="left", header_style="bold")
    for col in ("L", "o_s", "o_r", "g", "G (1/G MB/s)", "α", "β (1/β MB/s)", "n½"):
        t.add_column(col, justify="right", no_wrap=True)
    t.add_row(format_seconds(p.L), format_seconds(p.o_s), format_seconds(p.o_r), format_seconds(p.g),
              f"{p.G * 1e9:.3g} ns/B ({format_rate(p.bandwidth_bytes_per_s)})", format_seconds(h.alpha),
              f"{h.beta * 1e9:.3g} ns/B ({format_rate(h.bandwidth_bytes_per_s)})",
              format_bytes(h.n_half) if math.isfinite(h.n_half) and h.n_half >= 0 else "-")
    return t


def loggp_sizes_table(rows: list[SizeRow]) -> Table | None:
    """Per size: each side's call time beside the round trip (seeds/004's send and receive slopes)."""
    points = points_from_rows(rows)
    if not points:
        return None
    t = Table(title="each side's cost per size (loggp pattern)",
              caption=escape("PRTT(n,d,s): n = 10 messages, d between sends, one reply (Kielmann et al. 2000); "
                             "send call: one MPI_Send paced by d; recv call: one MPI_Recv after waiting d (o_r); "
                             "o_s = (PRTT(n,d,s) − PRTT(1,0,s))/(n−1) − d; gap = (PRTT(n,0,s) − PRTT(1,0,s))/(n−1)"),
              caption_justify="left", header_style="bold")
    for col in ("bytes", "round trip", "PRTT(1,0,s)", "PRTT(n,0,s)", "PRTT(n,d,s)", "gap", "o_s", "send call",
                "recv call"):
        t.add_column(col, justify="right", no_wrap=True)
    for q in points:
        t.add_row(format_bytes(q.bytes), format_seconds(q.round_trip_s), format_seconds(q.prtt_1_0_s),
                  format_seconds(q.prtt_n_0_s), format_seconds(q.prtt_n_d_s), format_seconds(q.gap_s),
                  format_seconds(q.o_s), format_seconds(q.send_call_s), format_seconds(q.recv_call_s))
    return t


def render_model_tables(console: Console, rows: list[SizeRow]) -> None:
    """The show tables of issue 10, where the run holds their patterns."""
    for t in (loggp_sizes_table(rows), loggp_table(rows), exchange_sync_table(rows)):
        if t is not None and t.row_count:
            console.print(t)
