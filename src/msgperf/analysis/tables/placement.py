"""Intra-node against inter-node: a run made with ``--placement both`` measured each size on a
pair of ranks on one node and on a pair on different nodes. Per pattern and size: both medians,
the inter/intra ratio and both bandwidths. The model of each placement is its own series
(``SeriesKey.placement``). Pure."""

from __future__ import annotations

from typing import Sequence

from msgperf.analysis.tables.size_rows import SizeRow
from msgperf.values import Value


class PlacementPair(Value):
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
        a = self.intra.time_s
        return self.inter.time_s / a if a > 0 else float("nan")


def placement_pairs(rows: Sequence[SizeRow]) -> tuple[PlacementPair, ...]:
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
    return tuple(out)


class PlacementModel(Value):
    """One series' model on each placement of --placement both, side by side: the comparison
    the ping-pong exercise asks for (α, β and the switches within a node and across nodes)."""

    pattern: str
    variant: str
    intra: object  # SeriesAnalysis of the intra-node pair
    inter: object  # SeriesAnalysis of the inter-node pair

    @property
    def alpha_ratio(self) -> float:
        a = self.intra.sweep.hockney.line.alpha_s
        return self.inter.sweep.hockney.line.alpha_s / a if a > 0 else float("nan")

    @property
    def bandwidth_ratio(self) -> float:
        """inter-node bandwidth 1/β over intra-node."""
        b = self.intra.sweep.hockney.line.bandwidth_bytes_per_s
        return self.inter.sweep.hockney.line.bandwidth_bytes_per_s / b if b > 0 else float("nan")
