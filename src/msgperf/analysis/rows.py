"""One row per (pattern, buffer, ranks, size): the numbers behind ``msgperf show``.

Samples of the same key from several launches (``--repeat``, ``--resume``) are pooled here;
separating launches is the launch analysis's job.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from msgperf.analysis.summary import Summary, summarize
from msgperf.records.format import Measurement, Run


@dataclass(frozen=True)
class SizeRow:
    pattern: str
    buffer: str
    ranks: tuple[int, ...]
    bytes: int
    metric: str
    summary: Summary            # of the per-message times (one-way for a ping-pong), seconds
    k: tuple[int, ...]          # iterations per sample, per launch
    stop_reasons: tuple[str, ...]
    validated: bool
    launches: int
    first_s: float | None       # the cold first iteration's per-message time, earliest launch
    variant: str = ""           # the pattern's variant (round, k, phase), "" when it has one
    flows: int = 1              # messages of `bytes` per reported time (2 when both directions count)
    extra: Mapping[str, Any] = field(default_factory=dict)  # pattern-specific record fields (latest launch)

    @property
    def bandwidth_bytes_per_s(self) -> float:
        """Bytes moved per second: bytes x flows / median (both directions for bidirectional patterns)."""
        return self.bytes * self.flows / self.summary.median if self.summary.median > 0 else float("nan")

    @property
    def messages_per_s(self) -> float:
        return 1.0 / self.summary.median if self.summary.median > 0 else float("nan")


def size_rows(run: Run) -> list[SizeRow]:
    """Rows in the order measurements first appear in the run."""
    groups: dict[tuple, list[Measurement]] = {}
    for m in run.measurements:
        groups.setdefault((*m.key, m.variant), []).append(m)
    rows = []
    for (pattern, buffer, size, ranks, variant), ms in groups.items():
        values = np.concatenate([m.per_message_s for m in ms])
        first = next((m for m in ms if m.first_s is not None), None)
        rows.append(SizeRow(
            pattern=pattern, buffer=buffer, ranks=ranks, bytes=size, metric=ms[0].metric,
            summary=summarize(values), k=tuple(m.k for m in ms),
            stop_reasons=tuple(m.stop_reason for m in ms), validated=all(m.validated for m in ms),
            launches=len({m.launch for m in ms}),
            first_s=None if first is None else first.first_s * first.k / first.divisor,
            variant=variant, flows=ms[0].flows, extra=dict(ms[-1].extra)))
    return rows
