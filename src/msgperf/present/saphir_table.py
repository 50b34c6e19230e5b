"""Saphir's Table 1 across runs (``msgperf summary``): one row per run and placement. Rendering
only: every value is a field of ``RunResult.saphir`` (analysis/tables/saphir.py)."""

from __future__ import annotations

from typing import Sequence

from rich.console import Console

from msgperf import units
from msgperf.analysis.tables import SaphirRow
from msgperf.present.grid import Grid, render
from msgperf.data_text import printable

SAPHIR_COLUMNS = ("run", "MPI library", "place", "0 B lat.", "asym. lat.", "peak MB/s", "asym. MB/s",
                  "copy MB/s", "b_e MB/s", "eager", "n½", "÷ floor")
_HEADERS = {c: "\n".join(c.rsplit(" ", 1)) if c not in ("run", "MPI library") else c for c in SAPHIR_COLUMNS}


def _library(text: str) -> str:
    """"MPICH Version: 5.0.2" -> "MPICH 5.0.2"; "Open MPI v4.1.4, package: ..." -> "Open MPI v4.1.4"."""
    return " ".join(w for w in (text or "unknown MPI").split(",")[0].split() if w.lower() != "version:")


def saphir_cells(row: SaphirRow) -> list[str]:
    """The printed cells of one row, in SAPHIR_COLUMNS order ("-" where the run has no data)."""
    zero = units.seconds(row.zero_byte_latency_s) if not row.zero_byte_latency_why_not else "cannot tell"
    if row.zero_byte_latency_s is not None and row.zero_byte_size:
        zero += f" ({units.size(row.zero_byte_size)})"
    peak = units.mb_per_s(row.peak_bandwidth_bytes_per_s) if not row.peak_bandwidth_why_not else "cannot tell"
    ratio = units.MISSING
    if row.floor_ratio is not None:
        ratio = units.ratio(row.floor_ratio)
        if row.floor_ratio_low is not None and row.floor_ratio_high is not None:
            ratio += f" [{units.ratio(row.floor_ratio_low)[:-1]}–{units.ratio(row.floor_ratio_high)[:-1]}]"
    elif row.floor_cannot_tell:
        ratio = "cannot tell"
    return [row.run, _library(row.mpi_library), row.placement or units.MISSING, zero,
            units.seconds(row.asymptotic_latency_s) if not row.asymptotic_latency_why_not else "cannot tell", peak,
            units.mb_per_s(row.bandwidth_bytes_per_s) if not row.bandwidth_why_not else "cannot tell",
            "cannot tell" if row.copy_speed_why_not else units.mb_per_s(row.copy_speed_bytes_per_s),
            "cannot tell" if (row.bandwidth_why_not and row.copy_speed_bytes_per_s is not None)
            or row.copy_speed_why_not else
            units.mb_per_s(row.effective_buffered_bandwidth_bytes_per_s),
            units.exact_bytes(row.eager_limit_bytes) if row.eager_limit_bytes is not None else
            "cannot tell" if row.eager_limit_why_not else units.MISSING,
            "cannot tell" if row.n_half_why_not else
            units.size(row.n_half_bytes) if row.n_half_bytes is not None and row.n_half_bytes >= 0 else units.MISSING,
            ratio]


CAPTION = ("0 B lat.: zero-byte latency, the one-way ping-pong median at the smallest size; asym. lat.: "
           "asymptotic latency, the intercept of the large-message segment; peak MB/s: the largest measured "
           "bandwidth among the sizes measured in several launches, where there are any and they reach within 2× "
           "of every size's best (a size one launch alone measured may show more); asym. MB/s: the asymptotic bandwidth (MB/s = 10^6 B/s); copy: memcpy bandwidth at its "
           "largest size; b_e = b_c·b_n/(b_c+b_n), the buffered bandwidth; eager limit: eager-probe; n½ = α/β "
           "of the Hockney line; ÷ floor: 0 B latency over the shared-memory floor (the floor pattern), with "
           "the widest interval the two 95 % intervals allow; "
           "-: the run has no such pattern, or its model gives no such value (msgperf fit says why). The same "
           "values as msgperf show and fit print")


def saphir_grid(rows: Sequence[SaphirRow]) -> Grid:
    t = Grid(heading="message passing across MPI builds (Saphir 1994, Table 1)", note=CAPTION, box="rule",
             pad_edge=False)
    for c in SAPHIR_COLUMNS:
        t.add_column(_HEADERS[c], justify="left" if c in ("run", "MPI library") else "right")
    for row in rows:
        t.add_row(*map(printable, saphir_cells(row)))
    return t


def render_saphir(console: Console, rows: Sequence[SaphirRow]) -> None:
    t = saphir_grid(rows)
    if not console.is_terminal:
        # Off a terminal (a file, a pipe) nothing scrolls sideways to cut: the caption is wrapped
        # at the table's width, as wide as its widest run name.
        console.width = max(console.width, t.width)
    render(console, t, centred_heading=True)
    for row in rows:
        if row.zero_byte_latency_why_not:
            console.print(f"{row.run}: 0 B latency: cannot tell ({row.zero_byte_latency_why_not})", markup=False,
                          highlight=False)
        if row.peak_bandwidth_why_not:
            console.print(f"{row.run}: peak bandwidth: cannot tell ({row.peak_bandwidth_why_not})", markup=False,
                          highlight=False)
        if row.bandwidth_why_not:
            console.print(f"{row.run}: asymptotic bandwidth: cannot tell ({row.bandwidth_why_not})", markup=False,
                          highlight=False)
        if row.asymptotic_latency_why_not:
            console.print(f"{row.run}: asymptotic latency: cannot tell ({row.asymptotic_latency_why_not})",
                          markup=False, highlight=False)
        if row.n_half_why_not:
            console.print(f"{row.run}: n½: cannot tell ({row.n_half_why_not})", markup=False, highlight=False)
        if row.copy_speed_why_not:
            console.print(f"{row.run}: copy: cannot tell ({row.copy_speed_why_not})", markup=False, highlight=False)
        if row.floor_cannot_tell:
            console.print(f"{row.run}: ÷ floor: cannot tell ({row.floor_cannot_tell})", markup=False)
        if row.eager_limit_why_not:
            console.print(f"{row.run}: eager limit {row.eager_limit_why_not}", markup=False, highlight=False)
