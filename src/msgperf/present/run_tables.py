"""The tables of a run in the terminal: one per (pattern, buffer, ranks), one row per size, with
the first message under each. Rendering only: every number comes from ``RunResult.tables``."""

from __future__ import annotations

from rich.console import Console

from msgperf import units
from msgperf.analysis.tables import TOOL_NAMES, FirstMessages, RunSource
from msgperf.analysis.result import RowTable, RunResult
from msgperf.present.grid import Grid, render
from msgperf.present.machine_text import machine_lines
from msgperf.data_text import FIELD_LIMIT, cut, printable
from msgperf.present.text import safe

MAX_HOSTS_SHOWN = 8

MAX_CONDITION_LINES = 4  # launches whose conditions show prints in full

_COLUMN = {"one_way": "one-way", "per_iteration": "per iter", "per_message": "per msg", "per_hop": "per hop",
           "round_trip": "round trip", "copy": "per copy", "per_call": "per call",
           "probe": "per probe"}


def run_title(source: RunSource) -> str:
    """Tool (when not msgperf), MPI, hosts and placement in one line (escaped: it comes from a file)."""
    parts = []
    if source.hosts:
        hosts = ", ".join(cut(h) for h in source.hosts[:MAX_HOSTS_SHOWN])
        if len(source.hosts) > MAX_HOSTS_SHOWN:
            hosts += f" and {len(source.hosts) - MAX_HOSTS_SHOWN} more"
        parts.append(cut(source.mpi_library) or "unknown MPI")
        parts.append(f"{source.nranks} ranks on {hosts}")
        parts.append(source.placement_words)
        if source.launches > 1:
            parts.append(f"{source.launches} launches")
    return safe(" · ".join(p for p in parts if p))


# Beyond this half-width the value is not known to within a factor of two: a percentage such as
# "±81613.7 %" would only suggest a precision the interval does not have, so the table says
# ">100%" (the absolute interval is in show --json: ci_low_s, ci_high_s).
WIDEST_SHOWN = 1.0


def plus_minus(table_row) -> str:
    """The ± column: half the interval of the row's time, relative; "—" for a value without one
    (one value: never "0.0 %"); ">100%" beyond ``WIDEST_SHOWN``."""
    half = table_row.interval.halfwidth_rel if table_row.interval is not None else None
    if half is None:
        return units.NO_INTERVAL
    if half > WIDEST_SHOWN:
        return ">100%"
    return units.percent(half, decimals=1).replace(" %", "%")


COVERS_LISTED = 6  # sizes the note names for an interval of another kind than most rows


def covers(rows) -> str:
    """What the table's ± cover, in words (within one launch, across N launches, none); where rows
    differ, the sizes of each kind but the most common one's ("across 4 launches at 0 B, 1 MiB;
    within one launch elsewhere": msgperf run measures the answer's sizes in launches of their own)."""
    by_kind: dict[str, list[int]] = {}
    for r in rows:
        if r.interval is not None and r.interval.low is not None:
            by_kind.setdefault(r.interval.covers, []).append(r.bytes)
    if len(by_kind) <= 1:
        return next(iter(by_kind), "none: one value per size")
    common = max(by_kind, key=lambda kind: len(by_kind[kind]))

    def at(sizes: list[int]) -> str:
        shown = sorted(set(sizes))
        more = f" and {len(shown) - COVERS_LISTED} more" if len(shown) > COVERS_LISTED else ""
        return ", ".join(units.size(b) for b in shown[:COVERS_LISTED]) + more

    return "; ".join([f"{kind} at {at(sizes)}" for kind, sizes in by_kind.items() if kind != common]
                     + [f"{common} elsewhere"])


def samples_text(table_row) -> str:
    if table_row.stats.n < 2:
        return "1 value"
    ks = sorted(set(table_row.k))
    return f"{table_row.stats.n} × {ks[0] if len(ks) == 1 else '/'.join(map(str, ks))}"


def first_message_line(first: FirstMessages | None) -> str | None:
    if first is None:
        return None
    text = ""
    if first.job is not None:
        text = (f"first message of the job: {units.seconds(first.job.first_s)}, "
                f"{units.ratio(first.job.times_steady, 2)} the steady state ({units.size(first.job.bytes)}); ")
    parts = [f"{units.size(f.bytes)}{' ' + f.variant if f.variant else ''} {units.seconds(f.first_s)} "
             f"({units.ratio(f.times_steady, 2)})" for f in first.per_size]
    return text + "first message per size (cold, before warm-up, never a sample): " + " · ".join(parts)


# Stop reasons that leave a size short of its precision (an imported value never had one)
_SHORT_OF_PRECISION = ("time_budget", "max_samples")


def _stopped_early(r) -> bool:
    return not r.validated or any(reason in _SHORT_OF_PRECISION for reason in r.stop_reasons)


def compact_grid(t: RowTable, hidden: frozenset[int] = frozenset()) -> Grid:
    """The table of show's default view, within 80 columns: size, time, ±, MB/s, msg/s, samples
    and p95; a size that stopped before its precision is marked * on its ± (the stop reasons, min
    and max are in show --detail). ``hidden``: sizes left out (a refinement's, carrying no switch)."""
    rows = [r for r in t.rows if r.bytes not in hidden]
    several = [r.interval is not None and r.interval.launches > 1 for r in rows]
    what = ("estimate across launches" if all(several) else
            "median, or the estimate across launches where ± says so" if any(several) else "median")
    who = f"ranks {':'.join(map(str, t.ranks))}" if t.ranks else "every step of the sweep"
    early = sorted({x for r in rows if _stopped_early(r) for x in (r.stop_reasons if r.validated else ("data mismatch",))
                    if x in _SHORT_OF_PRECISION or x == "data mismatch"})
    left_out = len(t.rows) - len(rows)
    grid = Grid(heading=f"{t.pattern}  ·  {who}  ·  {t.buffer} buffers" + (f"  ·  {t.method}" if t.method else ""),
                note=(f"{_COLUMN.get(t.metric, t.metric)}: {what}"
                      f" ({t.time_words}); ±: half its 95% interval ({covers(rows)})"
                      + (f", *: stopped by {', '.join(early)} before the precision" if early else "")
                      + "; MB/s: 10^6 B/s; samples: count × k messages; p95: of every sample"
                      + (f"; {left_out} sizes a refinement added beside no switch are left out (--all)"
                         if left_out else "")))
    variants = any(r.variant for r in rows)
    extra_columns = (["variant"] if variants else []) + (["pairs"] if t.steps else [])
    for name in ("bytes", *extra_columns, _COLUMN.get(t.metric, t.metric), "±", "MB/s", "msg/s", "samples", "p95"):
        grid.add_column(name, justify="left" if name == "variant" else "right")
    for r in rows:
        grid.add_row(units.size(r.bytes), *([printable(r.variant, FIELD_LIMIT)] if variants else []),
                     *([str(r.extra["active_pairs"])] if t.steps else []), units.seconds(r.time_s),
                     plus_minus(r) + ("*" if _stopped_early(r) else ""),
                     units.mb_per_s(r.bandwidth_bytes_per_s) if r.bytes else units.MISSING,
                     units.count(r.messages_per_s), samples_text(r), units.seconds(r.stats.p95))
    return grid


def row_grid(t: RowTable) -> Grid:
    """One table of show --detail: a row per size (and variant, or step of a sweep), every column."""
    several = any(r.interval is not None and r.interval.launches > 1 for r in t.rows)
    what = ("the median of one launch's samples, or with several launches their random-effects estimate"
            if several else "median")
    who = f"ranks {':'.join(map(str, t.ranks))}" if t.ranks else "every step of the sweep"
    grid = Grid(heading=f"{t.pattern}  ·  {who}  ·  {t.buffer} buffers" + (f"  ·  {t.method}" if t.method else ""),
                note=(f"time per message: {what}; {t.time_words}; ±: half-width of its 95% interval "
                      f"({covers(t.rows)}); MB/s: 10^6 bytes/s; samples: count × k messages each; "
                      "min, p95, max: of every sample"))
    variants = any(r.variant for r in t.rows)
    extra_columns = (["variant"] if variants else []) + (["pairs"] if t.steps else [])
    for name in ("bytes", *extra_columns, _COLUMN.get(t.metric, t.metric), "±", "MB/s",
                 "msg/s", "samples", "min", "p95", "max", "stopped by"):
        grid.add_column(name, justify="left" if name in ("variant", "stopped by") else "right")
    for r in t.rows:
        s = r.stats
        stop = ",".join(sorted(set(r.stop_reasons))) if r.validated else "DATA MISMATCH"
        grid.add_row(units.size(r.bytes), *([printable(r.variant, FIELD_LIMIT)] if variants else []),
                     *([str(r.extra["active_pairs"])] if t.steps else []), units.seconds(r.time_s),
                     plus_minus(r), units.mb_per_s(r.bandwidth_bytes_per_s) if r.bytes else units.MISSING,
                     units.count(r.messages_per_s), samples_text(r),
                     units.seconds(s.min), units.seconds(s.p95), units.seconds(s.max), stop)
    return grid


def render_table(console: Console, t: RowTable, detail: bool = True,
                 hidden: frozenset[int] = frozenset()) -> None:
    """A table of show: every column, the first messages and the machine's caveats with
    ``detail``; else the compact table without the sizes in ``hidden``."""
    grid = row_grid(t) if detail else compact_grid(t, hidden)
    render(console, grid)
    if not detail:
        return
    line = first_message_line(t.first)
    if line:
        console.print(safe(line))
    if t.caveats:
        console.print(f"[yellow]![/] {safe(t.caveat_line)}")


def heading(source: RunSource) -> str:
    """'msgperf run runs/x.jsonl', or for another tool's output 'OSU Micro-Benchmarks output x.txt'."""
    if source.tool == "msgperf":
        return f"[bold]msgperf run[/bold] {safe(source.path)}"
    return f"[bold]{TOOL_NAMES.get(source.tool, source.tool)} output[/bold] {safe(source.path)} ({safe(source.method)})"


def render_machine(console: Console, result: RunResult) -> None:
    """The Machine block and each launch's conditions (show --detail)."""
    for line in machine_lines(result.machine, result.source.tool):
        console.print(safe(line), highlight=False)
    for c in result.conditions[:MAX_CONDITION_LINES]:
        console.print(f"machine, launch {c.launch}: {safe(c.words())}")
    if len(result.conditions) > MAX_CONDITION_LINES:
        console.print(f"machine: {len(result.conditions) - MAX_CONDITION_LINES} more launches (show --json, the report)")


def hidden_sizes(result: RunResult, pattern: str) -> frozenset[int]:
    return frozenset(next((sizes for p, sizes in result.refined_only if p == pattern), ()))


def render_row_tables(console: Console, result: RunResult, detail: bool = True, all_sizes: bool = True) -> None:
    """Every table of the run; without ``detail`` the compact ones (and no eager-probe times: the
    answer block says its limit); without ``all_sizes`` no refinement size that carries no switch."""
    for t in result.tables:
        if t.grid_only:
            continue  # its per-round tables say little on their own: the grids say it
        if not detail and t.pattern == "eager-probe":
            continue
        render_table(console, t, detail, frozenset() if all_sizes else hidden_sizes(result, t.pattern))


def render_tables(console: Console, result: RunResult) -> None:
    """What show --detail prints before the pattern tables: heading, title, machine, tables."""
    console.print(heading(result.source))
    title = run_title(result.source)
    if title:
        console.print(title)
    render_machine(console, result)
    render_row_tables(console, result)
