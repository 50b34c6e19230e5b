"""Terminal tables of a run: one per (pattern, buffer, ranks), one row per size."""

from __future__ import annotations

from itertools import groupby

from rich.console import Console
from rich.markup import escape

from msgperf.present.text import printable, safe
from rich.table import Table

from msgperf.analysis.rows import SizeRow
from msgperf.present.pattern_tables import render_pattern_tables
from msgperf.present.first_message import render_first_message
from msgperf.present.placement_table import render_placement_table
from msgperf.present.units import format_bytes, format_count, format_rate, format_seconds
from msgperf.records.format import Run

_METRIC_WORDS = {
    "one_way": "one-way time = half the round trip",
    "round_trip": "round-trip time",
    "per_iteration": "time per iteration (one bidirectional exchange); MB/s counts both directions",
    "per_message": "time per message of the window; MB/s counts every direction",
    "per_hop": "time per hop of the token around the ring",
    "copy": "time of one memcpy",
    "probe": "time of one probe cycle (see the pattern's timing)",
}
_COLUMN = {"one_way": "one-way", "per_iteration": "per iter", "per_message": "per msg", "per_hop": "per hop"}
# Patterns whose per-round tables say little on their own: only their summary table is shown.
_SUMMARY_ONLY = ("matrix",)


def run_title(run: Run) -> str:
    """MPI library, hosts and placement in one line (escaped: it comes from a file)."""
    parts = [f"source {run.info.source}"] if run.info.source != "msgperf" else []
    if run.launches:
        launch = run.launches[-1]
        mpi = launch.mpi_library.strip().splitlines()[0] if launch.mpi_library.strip() else "unknown MPI"
        parts.append(" ".join(mpi.split()))
        parts.append(f"{launch.nranks} ranks on {', '.join(launch.hosts)}")
        parts.append("pair on one node" if launch.pair_shares_node else "pair on different nodes")
        if len(run.launches) > 1:
            parts.append(f"{len(run.launches)} launches")
    return safe(" · ".join(parts))


def terminal_console(stderr: bool = False, quiet: bool = False) -> Console:
    """A console as wide as the tables need when output goes to a file or pipe."""
    probe = Console(stderr=stderr)
    return Console(stderr=stderr, quiet=quiet, width=None if probe.is_terminal else 132)


def render_rows(console: Console, run: Run, rows: list[SizeRow]) -> None:
    console.print(f"[bold]msgperf run[/bold] {safe(run.path)}")
    console.print(run_title(run))
    for (pattern, buffer, ranks, metric), group in groupby(rows, key=lambda r: (r.pattern, r.buffer, r.ranks, r.metric)):
        group = list(group)
        words = _METRIC_WORDS.get(metric, metric)
        table = Table(title=safe(f"{pattern}  ·  ranks {':'.join(map(str, ranks))}  ·  {buffer} buffers"),
                      caption=escape(f"time: median per message, {words}; ±: half-width of the 95% CI of the "
                                     "median; MB/s: 10^6 bytes/s; samples: count × k messages each"),
                      caption_justify="left", header_style="bold")
        for name in ("bytes", _COLUMN.get(metric, metric), "±", "MB/s", "msg/s", "samples",
                     "min", "p95", "max"):
            table.add_column(name, justify="right", no_wrap=True)
        table.add_column("stopped by", no_wrap=True)
        for r in group:
            s = r.summary
            ks = sorted(set(r.k))
            stop = ",".join(sorted(set(r.stop_reasons)))
            if not r.validated:
                stop = "[red]DATA MISMATCH[/red]"
            table.add_row(
                format_bytes(r.bytes), format_seconds(s.median), f"{100 * s.ci_halfwidth_rel:.1f}%",
                format_rate(r.bandwidth_bytes_per_s) if r.bytes else "-", format_count(r.messages_per_s),
                f"{s.n} × {ks[0] if len(ks) == 1 else '/'.join(map(str, ks))}",
                format_seconds(s.min), format_seconds(s.p95), format_seconds(s.max), stop)
        console.print(table)
        render_first_message(console, group)
    render_pattern_tables(console, rows)
    render_placement_table(console, rows)


def rows_as_json(rows: list[SizeRow]) -> list[dict]:
    """``msgperf show --json``: one object per measurement (pooled over launches)."""
    out = []
    for r in rows:
        s = r.summary
        out.append({
            "pattern": r.pattern, "bytes": r.bytes, "buffer": r.buffer, "ranks": list(r.ranks),
            "metric": r.metric, "median_s": s.median, "ci_low_s": s.ci_low, "ci_high_s": s.ci_high,
            "ci_halfwidth_rel": s.ci_halfwidth_rel, "samples": s.n, "k": list(r.k),
            "mean_s": s.mean, "std_s": s.std, "min_s": s.min, "p5_s": s.p5, "p25_s": s.p25,
            "p75_s": s.p75, "p95_s": s.p95, "p99_s": s.p99, "max_s": s.max, "mad_s": s.mad,
            "bandwidth_bytes_per_s": r.bandwidth_bytes_per_s if r.bytes else 0.0,
            "messages_per_s": r.messages_per_s, "stop_reasons": list(r.stop_reasons),
            "validated": r.validated, "launches": r.launches, "first_s": r.first_s,
            "variant": r.variant, "flows": r.flows,
        })
        # Pattern-specific fields (eager_limit_bytes, pairs and pair_median_s, window, ...).
        out[-1].update({k: v for k, v in r.extra.items() if k not in out[-1]})
    return out
