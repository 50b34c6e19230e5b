"""One row per (pattern, buffer, ranks, size): the numbers behind ``msgperf show``.

Samples of the same key from several launches (``--repeat``, ``--resume``) are pooled here;
separating launches is the launch analysis's job.
"""

from __future__ import annotations

from typing import Any, Mapping

import msgspec
import numpy as np

from msgperf.analysis.launches import Interval, disturbed_launches, measuring_launches, quiet_launches
from msgperf.analysis.samples import PairSpread, SampleStats, pair_spreads, sample_stats
from msgperf.analysis.model import point_from_stats
from msgperf.records.format import Measurement, Run
from msgperf.values import Value


class SizeRow(Value):
    pattern: str
    buffer: str
    ranks: tuple[int, ...]
    bytes: int
    metric: str
    stats: SampleStats            # of the per-message times (one-way for a ping-pong), seconds
    k: tuple[int, ...]          # iterations per sample, per launch
    stop_reasons: tuple[str, ...]
    validated: bool
    launches: int
    first_s: float | None       # the cold first iteration's per-message time, earliest launch
    variant: str = ""           # the pattern's variant (round, k, phase), "" when it has one
    flows: int = 1              # messages of `bytes` per reported time (2 when both directions count)
    extra: Mapping[str, Any] = msgspec.field(default_factory=dict)  # pattern-specific record fields (latest launch)
    # The size's time and how well it is known: the median with its own interval for one launch,
    # the estimate across launches with an interval that covers their spread for several
    # (analysis/model/points.py, across_launches.py) — the value every table and model uses.
    interval: Interval | None = None
    # Patterns of many pairs at once (pairs, matrix): each pair's spread, in the order of
    # extra["pairs"], from the latest launch that kept its samples (older files: ())
    pair_spreads: tuple[PairSpread, ...] = ()
    launch_ids: tuple[int, ...] = ()  # the launches whose samples the row holds
    # first_s is also the job's first message of a pattern (the record that carries it was the
    # launch's first measurement, record field first_message_of_job_s: a round trip for a
    # ping-pong, like the record's first_s; the row keeps only first_s, per message)
    first_of_job: bool = False

    @property
    def time_s(self) -> float:
        """The row's time per message (across launches when it has several)."""
        return self.interval.value if self.interval is not None else self.stats.median

    @property
    def bandwidth_bytes_per_s(self) -> float:
        """Bytes moved per second: bytes x flows / time (both directions for bidirectional patterns)."""
        return self.bytes * self.flows / self.time_s if self.time_s > 0 else float("nan")

    @property
    def messages_per_s(self) -> float:
        return 1.0 / self.time_s if self.time_s > 0 else float("nan")


def time_launches(run: Run) -> dict[tuple, dict[int, set[int]]]:
    """For each series, (pattern, buffer, ranks, variant), and size: the launches whose samples
    are the size's time (launch_alignment.measuring_launches; a disturbed refinement launch gives
    none). The one choice every output of a size's time reads: show's rows, and compare."""
    plan = getattr(getattr(run, "info", None), "plan", None)
    planned = frozenset(plan.sizes) if plan is not None and getattr(plan, "sizes", None) else None
    # measurements, not their samples: a large run's samples wait on disk until their size is used
    by_series: dict[tuple, dict[int, dict[int, list[Measurement]]]] = {}
    for m in run.measurements:
        by_series.setdefault((m.pattern, m.buffer, m.ranks, m.variant), {}).setdefault(m.bytes, {}).setdefault(
            m.launch, []).append(m)
    chosen = {}
    quiet: frozenset[int] | None = None  # the launches that had their cores, read once if a series was refined
    for series, sizes in by_series.items():  # the same launches as the model's (series.analyze_sets)
        gone: frozenset[int] = frozenset()
        if planned and any(size not in planned for size in sizes):  # refined: some launch may be disturbed
            medians = {size: {l: float(np.median(np.concatenate([m.per_message_s for m in v]))) for l, v in ls.items()}
                       for size, ls in sizes.items()}
            quiet = quiet_launches(run) if quiet is None else quiet
            gone = frozenset(d.launch for d in disturbed_launches(medians, planned, quiet))
        chosen[series] = measuring_launches({size: set(ls) for size, ls in sizes.items()}, planned, gone)
    return chosen


def size_rows(run: Run) -> list[SizeRow]:
    """Rows of each series (in the order series first appear in the run) by size."""
    groups: dict[tuple, list[Measurement]] = {}
    for m in run.measurements:
        groups.setdefault((*m.key, m.variant), []).append(m)
    chosen = time_launches(run)
    for key, ms in list(groups.items()):  # the launches whose samples are the size's time (launch_alignment.py)
        kept = [m for m in ms if m.launch in chosen[(key[0], key[1], key[3], key[4])].get(key[2], ())]
        if kept:
            groups[key] = kept
        else:  # measured only by a disturbed launch: no time to give
            del groups[key]
    # within a pattern, by size (refined sizes among the sweep's, not after them), then variant
    table = {k: i for i, k in enumerate(dict.fromkeys((k[0], k[1], k[3]) for k in groups))}
    variant = {k: i for i, k in enumerate(dict.fromkeys(k[4] for k in groups))}
    groups = dict(sorted(groups.items(), key=lambda kv: (table[(kv[0][0], kv[0][1], kv[0][3])], kv[0][2],
                                                         variant[kv[0][4]])))
    rows = []
    for (pattern, buffer, size, ranks, variant), ms in groups.items():
        values = np.concatenate([m.per_message_s for m in ms])
        first = next((m for m in ms if m.first_s is not None), None)
        pooled = sample_stats(values)
        by_launch: dict[int, list[np.ndarray]] = {}
        for m in ms:
            by_launch.setdefault(m.launch, []).append(m.per_message_s)
        per_launch = ([sample_stats(np.concatenate(v)) for _, v in sorted(by_launch.items())]
                      if len(by_launch) > 1 else [])
        kept = next((m for m in reversed(ms) if m.extra.get("pair_samples_s")), None)
        spreads = () if kept is None else pair_spreads(kept.extra.get("pairs", []), kept.extra["pair_samples_s"],
                                                       kept.divisor)
        rows.append(SizeRow(
            pattern=pattern, buffer=buffer, ranks=ranks, bytes=size, metric=ms[0].metric,
            stats=pooled, k=tuple(m.k for m in ms),
            stop_reasons=tuple(m.stop_reason for m in ms), validated=all(m.validated for m in ms),
            launches=len({m.launch for m in ms}),
            first_s=None if first is None else first.first_s * first.k / first.divisor,
            variant=variant, flows=ms[0].flows,
            extra={k: v for k, v in ms[-1].extra.items() if k != "first_message_of_job_s"},
            first_of_job=first is not None and "first_message_of_job_s" in first.extra,
            interval=point_from_stats(size, pooled, per_launch).interval, pair_spreads=spreads,
            launch_ids=tuple(sorted({m.launch for m in ms}))))
    return rows
