"""What the analysis knows about a run's patterns: their family, whether a time-against-size
model of them means something, and what one of their times is. The kernels are the one source of
these facts: a run file of format 2 carries the kernels' catalog (``RunInfo.catalog``); for a run
without one (format 1, imports, samples), the facts are read off its records (metric, extra
fields) and the family is unknown ("").
"""

from __future__ import annotations

from typing import Any

from msgperf.values import Value

# What one reported time is, by the records' metric (written by the kernels into every record).
TIME_WORDS = {
    "one_way": "one-way time = half a round trip",
    "round_trip": "round-trip time",
    "per_iteration": "time per iteration",
    "per_message": "time per message of the window",
    "per_hop": "time per hop of the token around the ring",
    "copy": "time of one memcpy",
    "per_call": "time of one call (reduce-local: one MPI_Reduce_local)",
    "probe": "time of one probe cycle",
    "as_given": "time per message as the file gives it",
}


class PatternFacts(Value):
    name: str
    family: str  # pingpong, bidirectional, compat, many-ranks, buffering, combining, overlap, probe, hardware,
    # collective; "" unknown
    modelled: bool  # a Hockney time-against-size model of its records means something
    metric: str

    @property
    def time_words(self) -> str:
        return TIME_WORDS.get(self.metric, self.metric.replace("_", " "))


def pattern_facts(run: Any, pattern: str) -> PatternFacts:
    """The facts of one pattern of ``run`` (its catalog entry, else what its records show)."""
    for entry in getattr(run.info, "catalog", ()) or ():
        if entry.name == pattern:
            return PatternFacts(entry.name, entry.family, bool(entry.modelled), entry.metric)
    records = [m for m in run.measurements if m.pattern == pattern]
    metric = records[0].metric if records else "one_way"
    # Without a catalog: a probe's time is not a message time, and a record that times many pairs
    # at once (pairs, matrix) is not one pair's curve.
    many_pairs = any(len(m.extra.get("pairs", ()) or ()) > 1 for m in records)
    # An imported collective (osu_allreduce, IMB Bcast ...): its own family, no ping-pong model.
    if any((m.extra.get("imported") or {}).get("collective") for m in records):
        return PatternFacts(pattern, "collective", False, metric)
    return PatternFacts(pattern, "", metric != "probe" and not many_pairs, metric)
