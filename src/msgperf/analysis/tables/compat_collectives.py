"""The collective compatibility modes (osu-allreduce, imb-bcast ...) as those tools print them.

OSU and IMB summarise a collective by each rank's mean time per call, then over the ranks: OSU's
"Avg Latency" (with -f its Min and Max), IMB's t_min, t_max and t_avg. The kernels reduce those
per-rank means in the pattern's own step and record them (``tool_mean_s``, ``tool_min_s``,
``tool_max_s``, ``tool_calls``); msgperf's own figure for the same records is the median of the
slowest rank's samples. This module reads both off the size rows: no fit, no other statistic.
"""

from __future__ import annotations

from collections.abc import Sequence

from msgperf.analysis.tables.size_rows import SizeRow
from msgperf.values import Value


class ToolRow(Value):
    pattern: str  # osu-allreduce, imb-bcast ...
    tool: str  # the program and benchmark as the record names it: osu_allreduce, IMB-MPI1 Allreduce
    bytes: int  # the per-rank size, as the tool's Size / #bytes column
    mean_s: float  # OSU's Avg Latency, IMB's t_avg: each rank's mean time per call, averaged over the ranks
    min_s: float  # OSU -f's Min Latency, IMB's t_min: the fastest rank's mean
    max_s: float  # OSU -f's Max Latency, IMB's t_max: the slowest rank's mean
    calls: int  # the calls each rank's mean counts (OSU's Iterations, IMB's #repetitions)
    median_s: float  # msgperf's figure: the median per call of the slowest rank's samples


def tool_rows(rows: Sequence[SizeRow]) -> tuple[ToolRow, ...]:
    """One row per (pattern, size) of every collective compatibility mode in ``rows``."""
    out = []
    for r in rows:
        e = r.extra
        if not e.get("collective") or "tool_mean_s" not in e:
            continue
        out.append(ToolRow(r.pattern, str(e.get("compat", r.pattern)), r.bytes, float(e["tool_mean_s"]),
                           float(e["tool_min_s"]), float(e["tool_max_s"]), int(e["tool_calls"]), r.time_s))
    return tuple(sorted(out, key=lambda t: (t.pattern, t.bytes)))


def collective_method(rows: Sequence[SizeRow]) -> str:
    """The methodology a table of collective records states (their ``root``, ``iteration_barrier``
    and ``off_cache`` fields, defaults included): "root 0 · calls back to back · same buffers".
    Several values (launches that differ) are all named, joined by "/".
    "" for rows that carry none of them (not a collective)."""
    extras = [r.extra for r in rows if "iteration_barrier" in r.extra]
    if not extras:
        return ""
    words = []
    roots = {e["root"] for e in extras if "root" in e}
    if roots:
        words.append("root " + "/".join("rotating (i mod P)" if r == "rotate" else r for r in sorted(roots)))
    barriers = {bool(e["iteration_barrier"]) for e in extras}
    words.append("/".join("untimed barrier before each call" if b else "calls back to back" for b in sorted(barriers)))
    caches = {bool(e["off_cache"]) for e in extras if "off_cache" in e}  # barrier has no buffers
    if caches:
        words.append("/".join("off-cache buffers" if c else "same buffers" for c in sorted(caches)))
    return " · ".join(words)
