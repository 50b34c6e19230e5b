"""The comparisons the seeds ask for, side by side: send modes, expected vs unexpected receive,
packed vs direct, separate vs combined, buffered bandwidth b_e against b_c·b_n/(b_c+b_n),
overlap, contention (pairs), the rank-pair matrix, the eager limit and the tools' own figures.

Each table appears only when the run holds the patterns it compares; every number is a median
of the rows of ``analysis.rows`` (the compatibility table uses the mean, as those tools do).
"""

from __future__ import annotations

import math

import numpy as np
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from msgperf.analysis.rows import SizeRow
from msgperf.present.summary_table import render_model_tables
from msgperf.present.units import format_bytes, format_count, format_rate, format_seconds

SEND_MODES = ("pingpong", "pingpong-nb", "pingpong-ssend", "pingpong-rsend", "pingpong-bsend",
              "pingpong-persistent")
BIDIRECTIONAL = ("pingpong", "sendrecv", "pingping", "exchange")
COMPAT = ("osu-latency", "osu-bw", "osu-bibw", "imb-pingpong", "imb-sendrecv", "imb-uniband", "imb-biband")


def _index(rows: list[SizeRow]) -> dict[tuple[str, str, int], SizeRow]:
    """(pattern, variant, bytes) -> the first row (separate buffers preferred)."""
    out: dict[tuple[str, str, int], SizeRow] = {}
    for r in sorted(rows, key=lambda r: r.buffer != "separate"):
        out.setdefault((r.pattern, r.variant, r.bytes), r)
    return out


def _table(title: str, caption: str, columns: list[str]) -> Table:
    t = Table(title=escape(title), caption=escape(caption), caption_justify="left", header_style="bold")
    for c in columns:
        t.add_column(c, justify="right", no_wrap=True)
    return t


def _sizes(rows: list[SizeRow], patterns: tuple[str, ...] | list[str]) -> list[int]:
    return sorted({r.bytes for r in rows if r.pattern in patterns})


def _ratio(x: float, ref: float) -> str:
    return f"{x / ref:.2f}×" if ref > 0 and math.isfinite(x) else "-"


def send_modes(rows: list[SizeRow]) -> Table | None:
    present = [p for p in SEND_MODES if any(r.pattern == p for r in rows)]
    if len(present) < 2:
        return None
    idx = _index(rows)
    t = _table("ping-pong: blocking vs non-blocking and each send mode",
               "one-way time (half the round trip), median; (×) relative to the blocking MPI_Send ping-pong",
               ["bytes", *present])
    for size in _sizes(rows, present):
        ref = idx.get(("pingpong", "", size))
        cells = []
        for p in present:
            r = idx.get((p, "", size))
            if r is None:
                cells.append("-")
            elif ref is None or p == "pingpong":
                cells.append(format_seconds(r.summary.median))
            else:
                cells.append(f"{format_seconds(r.summary.median)} ({_ratio(r.summary.median, ref.summary.median)})")
        t.add_row(format_bytes(size), *cells)
    return t


def bidirectional(rows: list[SizeRow]) -> Table | None:
    present = [p for p in BIDIRECTIONAL if any(r.pattern == p for r in rows)]
    if len(present) < 2 or present == ["pingpong"]:
        return None
    idx = _index(rows)
    t = _table("one-way vs bidirectional: bandwidth", "MB/s = bytes moved per second, both directions counted "
               "for sendrecv, pingping and exchange (one direction for the ping-pong)", ["bytes", *present])
    for size in _sizes(rows, present):
        cells = []
        for p in present:
            r = idx.get((p, "", size))
            cells.append(format_rate(r.bandwidth_bytes_per_s) if r is not None and size else "-")
        t.add_row(format_bytes(size), *cells)
    return t


def _two_variants(rows: list[SizeRow], pattern: str, a: str, b: str, title: str, caption: str) -> Table | None:
    idx = _index(rows)
    sizes = _sizes(rows, [pattern])
    if not sizes:
        return None
    t = _table(title, caption, ["bytes", a, b, f"{b} − {a}", "ratio"])
    for size in sizes:
        ra, rb = idx.get((pattern, a, size)), idx.get((pattern, b, size))
        if ra is None or rb is None:
            continue
        ma, mb = ra.summary.median, rb.summary.median
        t.add_row(format_bytes(size), format_seconds(ma), format_seconds(mb), format_seconds(mb - ma)
                  if mb >= ma else "-" + format_seconds(ma - mb), _ratio(mb, ma))
    return t


def unexpected(rows: list[SizeRow]) -> Table | None:
    return _two_variants(rows, "unexpected", "preposted", "late",
                         "expected vs unexpected receive (seeds/002)",
                         "time per iteration, median: the receive posted before the message arrives (preposted) "
                         "or after it has arrived (late: the MPI buffers it, then copies it out)")


def pack(rows: list[SizeRow]) -> Table | None:
    return _two_variants(rows, "pack", "direct", "packed", "packed vs direct transfer (the PVM path of seeds/002)",
                         "one-way time, median: MPI_Send/MPI_Recv of the bytes, or MPI_Pack + send + MPI_Unpack")


def hockney_fit(rows: list[SizeRow]) -> tuple[float, float] | None:
    """alpha, beta of T(b) = alpha + beta·b by least squares over the ping-pong medians."""
    pts = [(r.bytes, r.summary.median) for r in rows if r.pattern == "pingpong" and r.variant == ""]
    if len({b for b, _ in pts}) < 2:
        return None
    b, t = np.array(pts, dtype=float).T
    beta, alpha = np.polyfit(b, t, 1)
    return float(alpha), float(beta)


def combine(rows: list[SizeRow]) -> Table | None:
    crow = [r for r in rows if r.pattern == "combine"]
    if not crow:
        return None
    fit = hockney_fit(rows)
    idx = _index(rows)
    ks = sorted({int(r.extra.get("k_messages", 0)) for r in crow if r.extra.get("k_messages")})
    cap = ("one-way time of k messages of s bytes sent apart vs one message of k·s bytes, median; predicted from "
           "the ping-pong's fit T(b) = α + β·b: apart k·(α + β·s), combined α + β·k·s")
    if fit is None:
        cap += " (no prediction: the run has no ping-pong over two or more sizes)"
    t = _table("separate vs combined messages (seeds/000)", cap,
               ["s", "k", "separate", "combined", "gain", "predicted separate", "predicted combined"])
    for k in ks:
        for size in _sizes(crow, ["combine"]):
            sep, com = idx.get(("combine", f"k{k}-separate", size)), idx.get(("combine", f"k{k}-combined", size))
            if sep is None or com is None:
                continue
            ps = pc = "-"
            if fit is not None:
                alpha, beta = fit
                ps, pc = format_seconds(k * (alpha + beta * size)), format_seconds(alpha + beta * k * size)
            t.add_row(format_bytes(size), str(k), format_seconds(sep.summary.median),
                      format_seconds(com.summary.median), _ratio(sep.summary.median, com.summary.median), ps, pc)
    return t


def buffering(rows: list[SizeRow]) -> Table | None:
    idx = _index(rows)
    sizes = [s for s in _sizes(rows, ["memcpy"]) if s and ("pingpong", "", s) in idx]
    if not sizes:
        return None
    t = _table("buffered bandwidth: measured b_e vs b_c·b_n/(b_c+b_n) (seeds/002)",
               "b_c: memcpy bandwidth; b_n: unbuffered network bandwidth (ping-pong, one-way); predicted b_e = "
               "b_c·b_n/(b_c+b_n); measured b_e: the unexpected (late-posted, buffered) receive",
               ["bytes", "b_c", "b_n", "predicted b_e", "measured b_e", "measured/predicted"])
    for s in sizes:
        bc = idx[("memcpy", "", s)].bandwidth_bytes_per_s
        bn = idx[("pingpong", "", s)].bandwidth_bytes_per_s
        pred = bc * bn / (bc + bn)
        late = idx.get(("unexpected", "late", s))
        be = late.bandwidth_bytes_per_s if late is not None else float("nan")
        t.add_row(format_bytes(s), format_rate(bc), format_rate(bn), format_rate(pred),
                  format_rate(be) if math.isfinite(be) else "-", _ratio(be, pred))
    return t


def floor(rows: list[SizeRow]) -> Table | None:
    idx = _index(rows)
    sizes = _sizes(rows, ["floor"])
    if not sizes:
        return None
    t = _table("MPI above the hardware floor", "one-way time, median: the same round trip through shared memory "
               "(MPI_Win_allocate_shared, a flag per cache line, memcpy) vs the MPI ping-pong",
               ["bytes", "floor", "pingpong", "MPI / floor"])
    for s in sizes:
        f, p = idx.get(("floor", "", s)), idx.get(("pingpong", "", s))
        if f is None:
            continue
        t.add_row(format_bytes(s), format_seconds(f.summary.median),
                  format_seconds(p.summary.median) if p else "-",
                  _ratio(p.summary.median, f.summary.median) if p else "-")
    return t


def overlap(rows: list[SizeRow]) -> Table | None:
    idx = _index(rows)
    sizes = _sizes(rows, ["overlap"])
    if not sizes:
        return None
    t = _table("overlap of communication and computation",
               "time per iteration, median: the exchange alone (comm), the calibrated computation alone "
               "(compute), both (Isend/Irecv, compute, Wait); hidden = (comm + compute − both) / comm, in [0, 1]",
               ["bytes", "comm", "compute", "both", "hidden"])
    for s in sizes:
        c, w, b = (idx.get(("overlap", v, s)) for v in ("comm", "compute", "both"))
        if c is None or w is None or b is None:
            continue
        frac = b.extra.get("overlap_fraction")
        if not isinstance(frac, (int, float)):
            frac = min(1.0, max(0.0, (c.summary.median + w.summary.median - b.summary.median) / c.summary.median))
        t.add_row(format_bytes(s), format_seconds(c.summary.median), format_seconds(w.summary.median),
                  format_seconds(b.summary.median), f"{100 * frac:.0f}%")
    return t


def eager(rows: list[SizeRow]) -> Table | None:
    probes = [r for r in rows if r.pattern == "eager-probe"]
    if not probes:
        return None
    t = _table("eager limit (seeds/004's network buffer size), measured directly",
               "eager: MPI_Send of this size returned before any receive was posted; limit: the largest such "
               "size found by bisection (an interval [low, high) where it cannot be exact); capacity: unexpected "
               "eager messages of this size accepted before a sender blocked",
               ["bytes", "eager", "eager limit", "interval", "capacity"])
    for r in probes:
        e = r.extra
        lo, hi = e.get("eager_limit_low_bytes"), e.get("eager_limit_high_bytes")
        limit = e.get("eager_limit_bytes")
        t.add_row(format_bytes(r.bytes), "yes" if e.get("eager") else "no",
                  format_bytes(limit) if isinstance(limit, int) else "-",
                  f"[{lo}, {hi if hi is not None else '∞'})",
                  str(e.get("unexpected_capacity", "-")) + ("+" if e.get("capacity_capped") else ""))
    return t


def pairs(rows: list[SizeRow]) -> Table | None:
    prow = [r for r in rows if r.pattern == "pairs" and r.extra.get("pair_median_s")]
    if not prow:
        return None
    base = {r.bytes: max(r.extra["pair_median_s"]) for r in prow if len(r.extra["pair_median_s"]) == 1}
    t = _table("pairs: contention as concurrent pairs are added (seeds/003)",
               "one-way time per pair (its slower rank's median); slowdown: the slowest pair against one pair alone",
               ["bytes", "pairs", "slowest pair", "fastest pair", "slowdown", "per pair"])
    for r in sorted(prow, key=lambda r: (r.bytes, len(r.extra["pair_median_s"]))):
        times = [float(x) for x in r.extra["pair_median_s"]]
        names = [f"{a}↔{b}" for a, b in r.extra.get("pairs", [])]
        per = ", ".join(f"{n} {format_seconds(x)}" for n, x in zip(names, times))
        t.add_row(format_bytes(r.bytes), str(len(times)), format_seconds(max(times)), format_seconds(min(times)),
                  _ratio(max(times), base.get(r.bytes, float("nan"))), per)
    return t


def pair_matrix(rows: list[SizeRow]) -> dict[int, dict[tuple[int, int], float]]:
    """bytes -> {(initiator, responder): one-way time} from the matrix rounds."""
    out: dict[int, dict[tuple[int, int], float]] = {}
    for r in rows:
        if r.pattern != "matrix":
            continue
        for (a, b), x in zip(r.extra.get("pairs", []), r.extra.get("pair_median_s", [])):
            out.setdefault(r.bytes, {})[(int(a), int(b))] = float(x)
    return out


def matrix(rows: list[SizeRow]) -> list[Table]:
    tables = []
    for size, cells in sorted(pair_matrix(rows).items()):
        ranks = sorted({a for a, _ in cells} | {b for _, b in cells})
        rate = size > 0
        t = _table(f"matrix: every ordered rank pair, {format_bytes(size)}",
                   "row: the rank that starts the ping-pong, column: its partner; " +
                   ("MB/s (bytes / one-way time)" if rate else "one-way time") + ", median",
                   ["from \\ to", *map(str, ranks)])
        for a in ranks:
            row = []
            for b in ranks:
                x = cells.get((a, b))
                row.append("·" if x is None else (format_rate(size / x) if rate else format_seconds(x)))
            t.add_row(str(a), *row)
        tables.append(t)
    return tables


def compat(rows: list[SizeRow]) -> Table | None:
    crow = [r for r in rows if r.pattern in COMPAT]
    if not crow:
        return None
    t = _table("compatibility modes: the figures those tools print",
               "mean over samples, as OSU and IMB report; latency: one-way (osu_latency, IMB PingPong) or per "
               "iteration (IMB Sendrecv); MB/s = 10^6 bytes/s counting both directions where the tool does",
               ["pattern", "bytes", "latency (mean)", "MB/s", "msg/s"])
    for r in crow:
        mean = r.summary.mean
        t.add_row(r.pattern, format_bytes(r.bytes), format_seconds(mean),
                  f"{r.bytes * r.flows / mean / 1e6:.2f}" if mean > 0 and r.bytes else "-",
                  format_count(r.flows / mean) if mean > 0 else "-")
    return t


def render_pattern_tables(console: Console, rows: list[SizeRow]) -> None:
    tables = [send_modes(rows), bidirectional(rows), unexpected(rows), pack(rows), combine(rows),
              buffering(rows), floor(rows), overlap(rows), eager(rows), pairs(rows), *matrix(rows), compat(rows)]
    for t in tables:
        if t is not None and t.row_count:
            console.print(t)
    render_model_tables(console, rows)
