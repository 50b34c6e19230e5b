"""Intra-node versus inter-node, side by side: one table per pattern with both placements.

A run made with ``--placement both`` (or runs whose records say ``placement``) holds, for each
size, a pair of ranks on one node and a pair on different nodes; this table puts their times
and bandwidths next to each other, with the inter/intra time ratio.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from msgperf.analysis.rows import SizeRow
from msgperf.present.text import safe
from msgperf.present.units import format_bytes, format_rate, format_seconds


@dataclass(frozen=True)
class PlacementPair:
    pattern: str
    buffer: str
    variant: str
    metric: str
    bytes: int
    intra: SizeRow
    inter: SizeRow

    @property
    def ratio(self) -> float:
        """inter-node time / intra-node time (median per message)."""
        a = self.intra.summary.median
        return self.inter.summary.median / a if a > 0 else float("nan")


def placement_pairs(rows: list[SizeRow]) -> list[PlacementPair]:
    """Sizes measured both within a node and across nodes, in the order the rows appear."""
    groups: dict[tuple, dict[int, dict[str, SizeRow]]] = {}
    for r in rows:
        where = r.extra.get("placement")
        if where not in ("intra", "inter"):
            continue
        sizes = groups.setdefault((r.pattern, r.buffer, r.variant, r.metric), {})
        sizes.setdefault(r.bytes, {}).setdefault(where, r)
    out = []
    for (pattern, buffer, variant, metric), sizes in groups.items():
        for size, both in sizes.items():
            if "intra" in both and "inter" in both:
                out.append(PlacementPair(pattern, buffer, variant, metric, size, both["intra"], both["inter"]))
    return out


def placement_json(rows: list[SizeRow]) -> list[dict]:
    """The comparison as plain data (for JSON exports)."""
    return [{"pattern": p.pattern, "buffer": p.buffer, "variant": p.variant, "metric": p.metric, "bytes": p.bytes,
             "intra_ranks": list(p.intra.ranks), "inter_ranks": list(p.inter.ranks),
             "intra_median_s": p.intra.summary.median, "inter_median_s": p.inter.summary.median,
             "intra_bandwidth_bytes_per_s": p.intra.bandwidth_bytes_per_s if p.bytes else 0.0,
             "inter_bandwidth_bytes_per_s": p.inter.bandwidth_bytes_per_s if p.bytes else 0.0,
             "inter_over_intra": p.ratio} for p in placement_pairs(rows)]


def render_placement_table(console: Console, rows: list[SizeRow]) -> None:
    """Print an intra vs inter table per pattern that has both; nothing when none has."""
    pairs = placement_pairs(rows)
    keys = list(dict.fromkeys((p.pattern, p.buffer, p.variant, p.metric) for p in pairs))
    for key in keys:
        group = [p for p in pairs if (p.pattern, p.buffer, p.variant, p.metric) == key]
        pattern, buffer, variant, metric = key
        first = group[0]
        title = (f"{pattern}{' ' + variant if variant else ''}  ·  intra-node (ranks "
                 f"{':'.join(map(str, first.intra.ranks))}) vs inter-node (ranks "
                 f"{':'.join(map(str, first.inter.ranks))})  ·  {buffer} buffers")
        what = "one-way time = half the round trip" if metric == "one_way" else metric.replace("_", " ")
        table = Table(title=safe(title), header_style="bold", caption_justify="left",
                      caption=escape(f"time: median per message ({what}); MB/s: 10^6 bytes/s; "
                                     "inter/intra: ratio of the median times"))
        for name in ("bytes", "intra time", "inter time", "inter/intra", "intra MB/s", "inter MB/s"):
            table.add_column(name, justify="right", no_wrap=True)
        for p in group:
            table.add_row(format_bytes(p.bytes), format_seconds(p.intra.summary.median),
                          format_seconds(p.inter.summary.median), f"{p.ratio:.2f}×",
                          format_rate(p.intra.bandwidth_bytes_per_s) if p.bytes else "-",
                          format_rate(p.inter.bandwidth_bytes_per_s) if p.bytes else "-")
        console.print(table)
