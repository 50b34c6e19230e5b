"""One vocabulary of pattern names, whichever tool measured the run.

msgperf's own modes are ``osu-latency``, ``osu-bw``, ``imb-pingpong``...; runs imported from OSU,
IMB and NetPIPE outputs carry the same names (``osu-latency`` for an ``osu_latency`` output), so
that ``compare`` finds the pattern two tools share and ``runs --pattern`` finds both. Importers
before this vocabulary wrote the tools' names with underscores (``osu_latency``,
``imb_pingpong``, ``netpipe_pingpong``); run files and stored runs written that way are read
under the hyphenated names.
"""

from __future__ import annotations

LEGACY_PREFIXES = ("osu_", "imb_", "netpipe_")

# The tools' loops msgperf's kernels reproduce (their compatibility modes): an imported output of
# one of these compares with msgperf run --pattern NAME. The kernels' catalog is the source;
# tests/records/test_pattern_names.py holds this set to it.
REPRODUCED = frozenset({"osu-latency", "osu-bw", "osu-bibw", "osu-allreduce", "osu-bcast", "osu-alltoall",
                        "imb-pingpong", "imb-sendrecv", "imb-uniband", "imb-biband", "imb-allreduce", "imb-bcast",
                        "imb-alltoall"})


def pattern_name(name: str) -> str:
    """The name in msgperf's vocabulary: 'osu_latency' -> 'osu-latency'; others unchanged."""
    return name.replace("_", "-") if name.startswith(LEGACY_PREFIXES) else name


def metric_name(pattern: str, metric: str) -> str:
    """A record's metric in today's words: reduce-local's time per call was labelled ``copy`` (a
    memcpy's) by the kernels before 2026-12-07."""
    return "per_call" if (pattern, metric) == ("reduce-local", "copy") else metric
