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


def pattern_name(name: str) -> str:
    """The name in msgperf's vocabulary: 'osu_latency' -> 'osu-latency'; others unchanged."""
    return name.replace("_", "-") if name.startswith(LEGACY_PREFIXES) else name
