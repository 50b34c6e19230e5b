"""The comparisons the lecture, the paper and the exercises ask for, side by side, in the
terminal: send modes, one-way vs bidirectional, expected vs unexpected receive, packed vs direct,
separate vs combined, buffered bandwidth against b_c·b_n/(b_c+b_n), the hardware floor, overlap,
the eager limit, contention (pairs), the rank-pair matrix, the barrier of the synchronised
exchange, LogGP, the tools' compatibility modes and intra- vs inter-node.

Each table appears only when the run holds what it compares. Rendering only: every number is a
field of ``RunResult`` (analysis/tables/side_by_side.py, buffering.py, combining.py, contention.py...).
"""

from __future__ import annotations

from rich.console import Console

from msgperf import units
from msgperf.analysis.result import RunResult
from msgperf.analysis.tables import Difference
from msgperf.present.collectives_text import collective_tables
from msgperf.present.grid import Grid, render
from msgperf.present.text import safe


def _table(title: str, caption: str, columns: list[str], wrap_last: bool = False,
           detail: tuple[str, ...] = ()) -> Grid:
    """A table of numbers, right-justified; ``wrap_last``: its last column is words (left);
    ``detail``: columns left out of the default view, to fit 80 columns (show --detail and the
    report show them). Its title and caption are printed as lines of their own (``render``)."""
    t = Grid(heading=title, note=caption)
    for i, c in enumerate(columns):
        t.add_column(c, justify="left" if wrap_last and i == len(columns) - 1 else "right", detail=c in detail)
    return t


def _difference(d: Difference) -> str:
    text = units.seconds(d.value_s)
    if d.low_s is None or d.high_s is None:
        return text
    return f"{text} {units.interval(d.low_s, d.high_s, 's')}"


def send_modes(result: RunResult) -> Grid | None:
    t = result.send_modes
    if t is None:
        return None
    others = [i for i in range(len(t.columns)) if i != t.reference]
    intervals = [f"{t.columns[i]} (×) interval" for i in others] if t.reference is not None else []
    out = _table("ping-pong: blocking vs non-blocking and each send mode",
                 "one-way time (half the round trip), median; (×) relative to the blocking MPI_Send ping-pong, its "
                 "interval from both medians' 95 % intervals",
                 ["bytes", *t.columns, *intervals], detail=tuple(intervals))
    for row in t.rows:
        cells = []
        for c in row.cells:
            if c.value is None:
                cells.append(units.MISSING)
            else:
                cells.append(units.seconds(c.value) + (f" ({units.ratio(c.ratio, 3)})" if c.ratio is not None else ""))
        ranges = [_ratio_interval(row.cells[i].ratio_ci) for i in others] if intervals else []
        out.add_row(units.size(row.bytes), *cells, *ranges)
    return out


def _ratio_interval(ci: tuple[float, float] | None) -> str:
    return units.MISSING if ci is None else f"[{units.ratio(ci[0])[:-1]}–{units.ratio(ci[1])}]"


def _ratio_interval_or_none(ci: tuple[float, float] | None) -> str:
    """A measured ratio's interval; NO_INTERVAL where a side had none (one sample, an imported mean)."""
    return units.NO_INTERVAL if ci is None else _ratio_interval(ci)


def bidirectional(result: RunResult) -> Grid | None:
    t = result.bidirectional
    if t is None:
        return None
    others = [i for i in range(len(t.columns)) if i != t.reference]
    intervals = [f"{t.columns[i]} (×) interval" for i in others] if t.reference is not None else []
    out = _table("one-way vs bidirectional: bandwidth", "MB/s = bytes moved per second, both directions counted "
                 "for sendrecv, pingping and exchange (one direction for the ping-pong); (×) relative to the ping-pong, "
                 "its interval from both medians' 95 % intervals; two directions give at most 2× where bandwidth "
                 "dominates (the ping-pong's regime: β·b above α)",
                 ["bytes", *t.columns, *intervals], detail=tuple(intervals))
    refused = []
    for row in t.rows:
        cells = []
        for c in row.cells:
            if c.value is None:
                cells.append(units.MISSING)
            elif c.why_not:
                cells.append(units.mb_per_s(c.value) + " (cannot tell)")
                refused.append(f"{units.size(row.bytes)}: {c.why_not}")
            else:
                cells.append(units.mb_per_s(c.value) + (f" ({units.ratio(c.ratio, 3)})" if c.ratio is not None else ""))
        ranges = [units.MISSING if row.cells[i].why_not else _ratio_interval(row.cells[i].ratio_ci) for i in others]
        out.add_row(units.size(row.bytes), *cells, *(ranges if intervals else []))
    if refused:
        out.note += ("; cannot tell (beyond that bound: the two patterns' times disagree, as when the machine "
                     "moved between them): " + "; ".join(refused))
    return out


_PAIR_WORDS = {
    "unexpected": ("expected vs unexpected receive (Saphir 1994)",
                   "time per iteration, median: the receive posted before the message arrives (preposted) or "
                   "only after it has arrived (late); at or below the eager limit the MPI may keep an early message "
                   "in its own buffer and copy it out (Saphir's buffered path), above it a rendezvous waits for the "
                   "receive and nothing is buffered; difference and ratio with the interval from both medians' 95 % intervals"),
    "pack": ("packed vs direct transfer (the PVM path of Saphir 1994)",
             "one-way time, median: MPI_Send/MPI_Recv of the bytes, or MPI_Pack + send + MPI_Unpack; difference "
             "and ratio with the interval from both medians' 95 % intervals"),
}


def variant_pairs(result: RunResult) -> list[Grid]:
    tables = []
    for pair in result.variant_pairs:
        title, caption = _PAIR_WORDS.get(pair.pattern, (f"{pair.pattern}: {pair.a} vs {pair.b}", "median times"))
        split = any(r.regime for r in pair.rows)
        if split:
            caption += f"; eager limit measured at {units.exact_bytes(pair.eager_limit_bytes)}"
        faster = pair.b_faster_bytes
        if pair.pattern == "unexpected" and faster:
            caption += (f"; the late receive was measurably faster at {len(faster)} size(s) sent eagerly "
                        f"({', '.join(units.size(b) for b in faster[:6])}{' …' if len(faster) > 6 else ''}): "
                        "no extra copy shows there" + (" (the buffering check, per size)" if result.buffering else ""))
        t = _table(title, caption, ["bytes", pair.a, pair.b, f"{pair.b} − {pair.a}", "ratio", "ratio interval"]
                   + (["regime"] if split else []), detail=(pair.a, pair.b, "ratio interval"))
        for r in pair.rows:
            cells = [units.size(r.bytes), units.seconds(r.a_s), units.seconds(r.b_s), _difference(r.difference),
                     units.ratio(r.ratio), _ratio_interval_or_none(r.ratio_ci)]
            if split:
                cells.append("eager (may be buffered)" if r.regime == "eager" else "rendezvous (not buffered)")
            t.add_row(*cells)
        tables.append(t)
    return tables


def combine(result: RunResult) -> Grid | None:
    if not result.combine:
        return None
    first = next((c.prediction for c in result.combine if c.prediction is not None), None)
    model = first.model_words if first is not None else "no prediction: the run has no ping-pong model"
    t = _table("separate vs combined messages (Lawlor's message-combining lecture)",
               "one-way time of k messages of s bytes sent apart vs one message of k·s bytes, median; gain = "
               f"separate / combined as measured, with its interval from both medians' 95 % intervals; predicted from "
               f"the {model}",
               ["s", "k", "separate", "combined", "gain", "gain interval", "predicted separate", "predicted combined",
                "predicted gain"],
               detail=("gain interval", "predicted separate", "predicted combined"))
    for c in result.combine:
        p = c.prediction
        t.add_row(units.size(c.bytes), str(c.messages), units.seconds(c.separate_s), units.seconds(c.combined_s),
                  units.ratio(c.gain), _ratio_interval_or_none(c.gain_ci), units.seconds(p.apart_s) if p else units.MISSING,
                  units.seconds(p.combined_s) if p else units.MISSING, units.ratio(p.speedup) if p else units.MISSING)
    return t


def buffering(result: RunResult) -> Grid | None:
    if not result.buffering:
        return None
    if all(r.measured_extra_s is None for r in result.buffering):
        # nothing measured it (no unexpected-receive pattern): the prediction alone, said as such
        t = _table("buffered bandwidth b_e = b_c·b_n/(b_c+b_n), predicted (Saphir 1994)",
                   "b_c: memcpy bandwidth at the size; b_n: unbuffered bandwidth (ping-pong, one-way); b_e: one extra "
                   "copy; predicted only: msgperf run --pattern unexpected measures it",
                   ["bytes", "b_c\nMB/s", "b_n\nMB/s", "b_e MB/s\npredicted"])
        for r in result.buffering:
            t.add_row(units.size(r.bytes), units.mb_per_s(r.copy_bandwidth_bytes_per_s),
                      units.mb_per_s(r.network_bandwidth_bytes_per_s), units.mb_per_s(r.predicted_effective_bytes_per_s))
        return t
    t = _table("buffered bandwidth: measured b_e vs b_c·b_n/(b_c+b_n) (Saphir 1994)",
               "b_c: memcpy bandwidth at the size; b_n: unbuffered bandwidth (ping-pong, one-way); predicted b_e = "
               "b_c·b_n/(b_c+b_n), one extra copy; measured: the unexpected receive's extra time (late − preposted) "
               "against that copy's time s/b_c; verdict: agrees when the interval of measured/predicted lies within "
               "0.5–2×, costs less or more when it lies below or above, cannot tell when it is wider; no copy seen "
               "when the late receive was faster (no ratio: a negative time is not a fraction of a copy); a verdict its "
               "neighbouring sizes or another launch contradict is cannot tell",
               ["bytes", "b_c\nMB/s", "b_n\nMB/s", "b_e MB/s\npredicted", "b_e MB/s\nmeasured", "measured /\npredicted",
                "interval", "verdict"], wrap_last=True, detail=("b_c\nMB/s", "b_n\nMB/s", "interval"))
    for r in result.buffering:
        interval = units.NO_INTERVAL if r.ratio_ci is None else f"{units.ratio(r.ratio_ci[0])} – {units.ratio(r.ratio_ci[1])}"
        t.add_row(units.size(r.bytes), units.mb_per_s(r.copy_bandwidth_bytes_per_s),
                  units.mb_per_s(r.network_bandwidth_bytes_per_s), units.mb_per_s(r.predicted_effective_bytes_per_s),
                  units.mb_per_s(r.measured_effective_bytes_per_s), units.ratio(r.ratio),
                  interval if r.ratio_ci is not None else units.MISSING,
                  f"cannot tell ({r.why_not})" if r.why_not else r.verdict or units.MISSING)
    return t


def floor(result: RunResult) -> Grid | None:
    if not result.floor:
        return None
    t = _table("MPI above the hardware floor", "one-way time, median: the same round trip through shared memory "
               "(MPI_Win_allocate_shared, a flag per cache line, memcpy) vs the MPI ping-pong; the ratio with its "
               "interval from both medians' 95 % intervals",
               ["bytes", "floor", "pingpong", "MPI / floor", "interval"])
    for r in result.floor:
        t.add_row(units.size(r.bytes), units.seconds(r.floor_s), units.seconds(r.pingpong_s),
                  "cannot tell" if r.cannot_tell else units.ratio(r.ratio),
                  units.MISSING if r.cannot_tell or r.ratio is None else _ratio_interval_or_none(r.ratio_ci))
        if r.cannot_tell:
            t.note += f"; MPI / floor at {units.size(r.bytes)}: cannot tell ({r.cannot_tell})"
    return t


def overlap(result: RunResult) -> Grid | None:
    if not result.overlap:
        return None
    t = _table("overlap of communication and computation",
               "time per iteration, median: the exchange alone (comm), the calibrated computation alone "
               "(compute), both (Isend/Irecv, compute, Wait); hidden = (comm + compute − both) / comm, in [0, 1]",
               ["bytes", "comm", "compute", "both", "hidden"])
    for r in result.overlap:
        t.add_row(units.size(r.bytes), units.seconds(r.comm_s), units.seconds(r.compute_s), units.seconds(r.both_s),
                  units.percent(r.hidden, decimals=0))
    return t


def eager(result: RunResult) -> Grid | None:
    e = result.eager
    if e is None:
        return None
    interval = f"[{e.low_bytes}, {e.high_bytes if e.high_bytes is not None else '∞'})"
    found = (f"cannot tell ({e.disagreement})" if not e.agreed else
             units.exact_bytes(e.limit_bytes) if e.limit_bytes is not None else interval)
    t = _table("eager limit (Blaisdell's network buffer size), measured directly",
               "eager: MPI_Send of this size returned before any receive was posted; limit: the largest such "
               f"size found by bisection, {found}; "
               "capacity: unexpected eager messages of this size accepted before a sender blocked",
               ["bytes", "eager", "capacity"])
    for r in e.rows:
        t.add_row(units.size(r.bytes), units.MISSING if r.eager is None else ("yes" if r.eager else "no"),
                  units.MISSING if r.capacity is None else f"{r.capacity}{'+' if r.capacity_capped else ''}")
    return t


def contention(result: RunResult) -> Grid | None:
    c = result.contention
    if c is None:
        return None
    t = _table("pairs: contention as concurrent pairs are added (the ping-pong exercise)",
               "slowest pair's one-way time (each pair's time is its slower rank's median) and, in brackets, its "
               "slowdown against one pair alone; one column per number of concurrent pairs",
               ["bytes", *[f"{n} pair{'s' if n > 1 else ''}" for n in c.steps]])
    for row in c.rows:
        cells = {cell.active_pairs: cell for cell in row.cells}
        t.add_row(units.size(row.bytes), *[
            units.MISSING if n not in cells else units.seconds(cells[n].slowest_s)
            + (f" ({units.ratio(cells[n].slowdown)})" if cells[n].slowdown is not None and n > 1 else "")
            for n in c.steps])
    return t


def matrices(result: RunResult) -> list[Grid]:
    tables = []
    for grid in result.matrices:
        rate = grid.quantity == "bandwidth"
        t = _table(f"matrix: every ordered rank pair, {units.size(grid.bytes)}",
                   "row: the rank that starts the ping-pong, column: its partner; "
                   + ("MB/s (bytes / one-way time)" if rate else "one-way time") + ", median",
                   ["from \\ to", *map(str, grid.ranks)])
        for a in grid.ranks:
            cells = []
            for b in grid.ranks:
                v = grid.value(a, b)
                cells.append("·" if v is None else (units.mb_per_s(v) if rate else units.seconds(v)))
            t.add_row(str(a), *cells)
        tables.append(t)
        if grid.spreads:
            tables.append(_matrix_spread(grid))
    return tables


def _matrix_spread(grid) -> Grid:
    """Each pair's p95/p50 at one size, with the slowest pairs and ranks named under it."""
    t = _table(f"matrix: each pair's spread, {units.size(grid.bytes)}",
               "p95/p50 of the pair's own samples (its slower rank's time, sample by sample): 1.0 is steady; "
               "slowest: by the matrix's time, against the median pair", ["from \\ to", *map(str, grid.ranks)])
    for a in grid.ranks:
        t.add_row(str(a), *["·" if grid.spread(a, b) is None else f"{grid.spread(a, b):.2f}" for b in grid.ranks])
    slow = "; ".join(f"{p.pair[0]}→{p.pair[1]} {units.seconds(p.time_s)} ({units.ratio(p.times_typical, 2)}"
                     + (f", p95/p50 {p.spread:.2f}" if p.spread is not None else "") + ")" for p in grid.slowest)
    worst = grid.slowest_rank
    t.note += f". Slowest pairs: {slow}" + (
        f"; slowest rank {worst[0]}: its pairs' median is {units.ratio(worst[1], 2)} the median pair"
        if worst is not None and len(grid.ranks) > 2 else "")
    return t


def pair_spreads(result: RunResult) -> Grid | None:
    """pairs: every pair's spread at every step of the contention sweep."""
    c = result.contention
    if c is None or not any(cell.spreads for row in c.rows for cell in row.cells):
        return None
    t = _table("pairs: each pair's samples", "one-way time of the pair (its slower rank's median, as above), and "
               "p50, p95 and p95/p50 of the pair's own samples (its slower rank's time, sample by sample)",
               ["bytes", "pairs", "pair", "one-way", "samples", "p50", "p95", "p95/p50"])
    for row in c.rows:
        for cell in row.cells:
            times = dict(zip(cell.pairs, cell.pair_times_s))
            for s in cell.spreads:
                t.add_row(units.size(row.bytes), str(cell.active_pairs), f"{s.pair[0]}→{s.pair[1]}",
                          units.seconds(times[s.pair]) if s.pair in times else units.MISSING, str(s.n),
                          units.seconds(s.p50_s), units.seconds(s.p95_s), f"{s.spread:.2f}")
    return t


def compat(result: RunResult) -> Grid | None:
    if not result.compat:
        return None
    t = _table("compatibility modes: the figures those tools print",
               "mean over samples, as OSU and IMB report; latency: one-way (osu_latency, IMB PingPong) or per "
               "iteration (IMB Sendrecv); MB/s = 10^6 bytes/s counting both directions where the tool does",
               ["pattern", "bytes", "latency (mean)", "MB/s", "msg/s"])
    for r in result.compat:
        t.add_row(safe(r.pattern), units.size(r.bytes), units.seconds(r.mean_s), units.mb_per_s(r.bandwidth_bytes_per_s),
                  units.count(r.messages_per_s))
    return t


def compat_collectives(result: RunResult) -> list[Grid]:
    """Each collective compatibility mode in its tool's own columns and units (µs, two decimals)."""
    tables = []
    for pattern in dict.fromkeys(r.pattern for r in result.compat_collectives):
        rows = [r for r in result.compat_collectives if r.pattern == pattern]
        us = lambda s: f"{s * 1e6:.2f}"  # noqa: E731 - as the tools print: µs, %.2f
        if pattern.startswith("osu-"):
            t = _table(f"{safe(rows[0].tool)}: as OSU prints it (with -f)",
                       "each rank's mean time per call (a barrier after each call, outside the timing), averaged "
                       "over the ranks (Avg), and the fastest and slowest rank's (Min, Max); msgperf: the median "
                       "of the slowest rank's calls",
                       ["Size", "Avg Latency(us)", "Min Latency(us)", "Max Latency(us)", "Iterations", "msgperf"])
            for r in rows:
                t.add_row(str(r.bytes), us(r.mean_s), us(r.min_s), us(r.max_s), str(r.calls), units.seconds(r.median_s))
        else:
            t = _table(f"{safe(rows[0].tool)}: as IMB-MPI1 prints it",
                       "each rank's mean time per call over its calls back to back (the root rotating), over the "
                       "ranks: t_min, t_max, t_avg; msgperf: the median of the slowest rank's samples per call",
                       ["#bytes", "#repetitions", "t_min[usec]", "t_max[usec]", "t_avg[usec]", "msgperf"])
            for r in rows:
                t.add_row(str(r.bytes), str(r.calls), us(r.min_s), us(r.max_s), us(r.mean_s), units.seconds(r.median_s))
        tables.append(t)
    return tables


def barrier(result: RunResult) -> Grid | None:
    if not result.barrier:
        return None
    t = _table("exchange: unsynchronised vs Irecv, barrier, Isend (Saphir 1994 §3.1)",
               "time per exchange, median. exchange-sync posts both receives, then a barrier, then the sends, so no "
               "message ever arrives before its receive: the MPI never buffers it as unexpected. The cost is the "
               "barrier: the difference of the medians, with the interval from both medians' 95 % intervals "
               "(no measurable cost when it contains 0)",
               ["bytes", "exchange", "exchange-sync", "barrier cost", "sync / plain", "sync / plain interval"],
               detail=("sync / plain interval",))
    untold = []  # the reasons go under the table: one long reason in a cell widened every row past 200 columns
    for r in result.barrier:
        cost = _difference(r.cost)
        if r.why_not:
            cost = "cannot tell (below)"
            untold.append(f"{units.size(r.bytes)}: {r.why_not}")
        elif r.cost.measurable is False:
            cost += " no measurable cost"
        t.add_row(units.size(r.bytes), units.seconds(r.plain_s), units.seconds(r.synchronised_s), cost, units.ratio(r.ratio),
                  units.MISSING if r.why_not else _ratio_interval(r.ratio_ci))
    if untold:
        t.note += "; barrier cost cannot tell at " + "; ".join(untold)
    return t


def loggp_sizes(result: RunResult) -> Grid | None:
    lg = result.loggp
    if lg is None:
        return None
    t = _table("each side's cost per size (loggp pattern)",
               "PRTT(n,d,s): n = 10 messages, d between sends, one reply (Kielmann et al. 2000); send call: one "
               "MPI_Send paced by d; recv call: one MPI_Recv after waiting d (o_r); o_s = (PRTT(n,d,s) − "
               "PRTT(1,0,s))/(n−1) − d; gap = (PRTT(n,0,s) − PRTT(1,0,s))/(n−1); round trip: the samples' median",
               ["bytes", "round trip", "PRTT(1,0,s)", "PRTT(n,0,s)", "PRTT(n,d,s)", "gap", "o_s", "send call",
                "recv call"], detail=("PRTT(1,0,s)", "PRTT(n,0,s)", "PRTT(n,d,s)"))
    for q in lg.points:
        t.add_row(units.size(q.bytes), units.seconds(q.round_trip_s), units.seconds(q.prtt_1_0_s),
                  units.seconds(q.prtt_n_0_s), units.seconds(q.prtt_n_d_s), units.seconds(q.gap_s),
                  units.seconds(q.o_s), units.seconds(q.send_call_s), units.seconds(q.recv_call_s))
    return t


def loggp(result: RunResult) -> Grid | None:
    lg = result.loggp
    if lg is None or lg.analysis is None:
        return None
    p, h, c = lg.analysis.params, lg.analysis.hockney, lg.analysis.comparison
    caption = (f"from the loggp pattern over {len(lg.points)} sizes; α and β: the Hockney line fitted to the same "
               f"sizes' one-way times (half the round trip); which fits the one-way time better: {c.better} "
               f"({c.criterion}: LogGP {c.loggp_rms_log:.3f}, Hockney {c.hockney_rms_log:.3f}; Hockney is fitted to "
               "these times, LogGP predicts them from the other series)")
    if p.d_too_small:
        caption += f"; d < g + G·s at {', '.join(map(units.size, p.d_too_small))}"
    reasons = list(dict.fromkeys(why for _, why in p.cannot_tell))
    if reasons:
        caption += "; cannot tell " + ", ".join(n for n, _ in p.cannot_tell) + ": " + "; ".join(reasons)

    def cell(name: str, text: str) -> str:
        return text if p.reason(name) is None else "cannot tell"

    t = _table("LogGP (Netgauge's PRTT method, docs/loggp.md) beside Hockney α + β·s", caption,
               ["L", "o_s", "o_r", "g", "G (1/G)", "α (one-way)", "β (1/β)", "n½"],
               detail=("α (one-way)", "β (1/β)", "n½"))
    t.add_row(cell("L", units.seconds(p.L)), cell("o_s", units.seconds(p.o_s)), cell("o_r", units.seconds(p.o_r)),
              cell("g", units.seconds(p.g)), cell("G", f"{units.beta(p.G)} ({units.rate(p.bandwidth_bytes_per_s)})"),
              units.seconds(h.alpha),
              f"{units.beta(h.beta)} ({units.rate(h.bandwidth_bytes_per_s)})",
              units.size(h.n_half) if h.n_half >= 0 else units.MISSING)
    return t


def placement(result: RunResult) -> list[Grid]:
    pairs = result.placement
    keys = list(dict.fromkeys((p.pattern, p.buffer, p.variant, p.metric) for p in pairs))
    tables = []
    for key in keys:
        group = [p for p in pairs if (p.pattern, p.buffer, p.variant, p.metric) == key]
        pattern, buffer, variant, metric = key
        first = group[0]
        title = (f"{pattern}{' ' + variant if variant else ''}  ·  intra-node (ranks "
                 f"{':'.join(map(str, first.intra.ranks))}) vs inter-node (ranks "
                 f"{':'.join(map(str, first.inter.ranks))})  ·  {buffer} buffers")
        what = "one-way time = half the round trip" if metric == "one_way" else metric.replace("_", " ")
        t = _table(title, f"time: median per message ({what}); MB/s: 10^6 bytes/s; inter/intra: ratio of "
                   "the median times", [])
        for name in ("bytes", "intra time", "inter time", "inter/intra", "intra MB/s", "inter MB/s"):
            t.add_column(name)
        for p in group:
            t.add_row(units.size(p.bytes), units.seconds(p.intra.time_s), units.seconds(p.inter.time_s),
                      units.ratio(p.ratio), units.mb_per_s(p.intra.bandwidth_bytes_per_s) if p.bytes else units.MISSING,
                      units.mb_per_s(p.inter.bandwidth_bytes_per_s) if p.bytes else units.MISSING)
        tables.append(t)
    return tables


def placement_models(result: RunResult) -> list[Grid]:
    """--placement both: each series' model within a node and across nodes, side by side."""
    tables = []
    for m in result.placement_models:
        name = f"{m.pattern} [{m.variant}]" if m.variant else m.pattern
        t = _table(f"{name}: the model within a node and across nodes (the ping-pong exercise)",
                   "α, β and 1/β of each placement's Hockney line with 95 % intervals; switches: the piecewise "
                   "model's breakpoints, each an interval between measured sizes; inter/intra: ratio of the values",
                   ["", "intra-node", "inter-node", "inter/intra"], wrap_last=False)
        li, lo = m.intra.sweep.hockney.line, m.inter.sweep.hockney.line

        def switches(model, placement: str) -> str:
            labels = {l.breakpoint: l.text for l in result.find(m.pattern, m.variant, placement=placement).labels}
            return ", ".join(f"{units.size(b.low_bytes)}–{units.size(b.high_bytes)}"
                             + (f": {labels[b]}" if b in labels else "")
                             for b in model.sweep.piecewise.breakpoints) or "none"

        t.add_row("α latency", f"{units.seconds(li.alpha_s)} {units.interval(*li.alpha_ci_s, 's')}",
                  f"{units.seconds(lo.alpha_s)} {units.interval(*lo.alpha_ci_s, 's')}", units.ratio(m.alpha_ratio))
        t.add_row("β", f"{units.beta(li.beta_s_per_byte)} {units.interval(*li.beta_ci_s_per_byte, 's/B')}",
                  f"{units.beta(lo.beta_s_per_byte)} {units.interval(*lo.beta_ci_s_per_byte, 's/B')}",
                  units.ratio(lo.beta_s_per_byte / li.beta_s_per_byte) if li.beta_s_per_byte > 0 else units.MISSING)
        t.add_row("bandwidth 1/β", units.rate(li.bandwidth_bytes_per_s), units.rate(lo.bandwidth_bytes_per_s),
                  units.ratio(m.bandwidth_ratio))
        t.add_row("switches", switches(m.intra, "intra"), switches(m.inter, "inter"), "")
        tables.append(t)
    return tables


def all_tables(result: RunResult) -> list[Grid]:
    found = [send_modes(result), bidirectional(result), *variant_pairs(result), combine(result),
             buffering(result), floor(result), overlap(result), eager(result), contention(result),
             pair_spreads(result), *matrices(result), compat(result), *compat_collectives(result),
             loggp_sizes(result), loggp(result),
             barrier(result),
             *placement(result), *placement_models(result), *collective_tables(result)]
    tables = [t for t in found if t is not None and t.row_count]
    for t in tables:  # every pattern table holds the run's launches: it shares their conditions
        t.caveats = [result.caveat_line] if result.caveats else []
    return tables


def render_pattern_tables(console: Console, result: RunResult, detail: bool = True) -> None:
    """Every pattern table; without ``detail`` neither the eager probe's (the answer block says its
    limit) nor the machine's caveats under each table (the block says those that matter)."""
    skip = eager(result) if not detail else None
    for t in all_tables(result):
        if skip is not None and t.heading == skip.heading:
            continue
        if not detail:
            t = t.without_detail()
            t.caveats = []
        render(console, t)
