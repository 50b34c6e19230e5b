"""OSU Micro-Benchmarks point-to-point outputs -> an imported-summary ``Run``.

An output is a title (``# OSU MPI Latency Test v7.4``), a few ``#`` lines (datatype, buffer
placement, ``[ pairs: 1 ] [ window size: 64 ]``), a column header (``# Size  Avg Latency(us)
P50 Tail Lat(us) ...``) and one line per size. Several outputs may follow each other in one
file (a batch job log, whose text before the first title is passed over); each becomes a
pattern of the run. Of the collective tests, osu_allreduce, osu_bcast and osu_alltoall are read
(their "Avg Latency" is the mean over ranks of each rank's mean time per call; with -f also the
min and max over ranks and the iterations); others and the one-sided tests are skipped with a
note. OSU prints no process count: a collective's ranks are not in its output, and the import
says so. Units as OSU prints them: µs, and MB/s with 1 MB = 10^6 B.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from msgperf.records.importers.peer_run import ImportResult, Point, Points, build_run
from msgperf.records.importers.text import (ForeignFormatError, OutputLines, count, decimal, excerpt,
                                            per_message_from_msg_rate, per_message_from_rate,
                                            seconds, size)

# Test title (what follows "OSU MPI[-CUDA]") -> (pattern, kind). Latency tests report a mean
# one-way time; bandwidth tests a rate over a window of messages.
TESTS: dict[str, tuple[str, str]] = {
    "Latency": ("osu-latency", "latency"),
    "Multi Latency": ("osu-multi-lat", "latency"),
    "Multi-threaded Latency": ("osu-latency-mt", "latency"),
    "Multi-process Latency": ("osu-latency-mp", "latency"),
    "Latency Persistent": ("osu-latency-persistent", "latency"),
    "Persistent Latency": ("osu-latency-persistent", "latency"),
    "Bandwidth": ("osu-bw", "bandwidth"),
    "Bandwidth Persistent": ("osu-bw-persistent", "bandwidth"),
    "Persistent Bandwidth": ("osu-bw-persistent", "bandwidth"),
    "Bi-Directional Bandwidth": ("osu-bibw", "bandwidth"),
    "Bi-Directional Bandwidth Persistent": ("osu-bibw-persistent", "bandwidth"),
    "Persistent Bi-Directional Bandwidth": ("osu-bibw-persistent", "bandwidth"),
    "Multiple Bandwidth / Message Rate": ("osu-mbw-mr", "bandwidth"),
    # collectives: one call per iteration, a barrier between iterations, its time per call
    "Allreduce Latency": ("osu-allreduce", "collective"),
    "Broadcast Latency": ("osu-bcast", "collective"),
    "All-to-All Personalized Exchange Latency": ("osu-alltoall", "collective"),
}
COLLECTIVES = {"osu-allreduce": "allreduce", "osu-bcast": "bcast", "osu-alltoall": "alltoall"}

_TITLE = re.compile(r"#\s*OSU MPI(?P<accel>-[A-Z]+(?: MANAGED)?)?\s+(?P<test>.+?)\s+Test"
                    r"(?:\s+v(?P<version>[\w.]+))?\s*$")
_PAIRS = re.compile(r"pairs:\s*(\d+)")
_WINDOW = re.compile(r"window size:\s*(\d+)")
_DATATYPE = re.compile(r"#\s*Datatype:\s*(\S+?)\.?\s*$")
_BUFFERS = re.compile(r"#\s*Send Buffer on (.+?) and Receive Buffer on (.+?)\s*$")

# Column names of the "# Size ..." header, longest alternatives first.
_COLUMNS = re.compile(
    r"(?P<p_lat>P(?P<pl>\d+(?:\.\d+)?) Tail Lat\s*\(us\))"
    r"|(?P<p_bw>P(?P<pb>\d+(?:\.\d+)?) Tail BW\s*\(MB/s\))"
    r"|(?P<avg_lat>Avg Latency\s*\(us\))"
    r"|(?P<min_lat>Min Latency\s*\(us\))"
    r"|(?P<max_lat>Max Latency\s*\(us\))"
    r"|(?P<lat>Latency\s*\(us\))"
    r"|(?P<bw>Bandwidth\s*\(MB/s\))"
    r"|(?P<msg_rate>Messages/s)"
    r"|(?P<mbps>MB/s)"
    r"|(?P<iterations>Iterations)"
    r"|(?P<validation>Validation)"
    r"|(?P<transmit>Transmit Size)"
    r"|(?P<size>Size)")


@dataclass
class _Section:
    title_line: int
    test: str
    pattern: str | None  # None: a test msgperf does not import (skipped with a note)
    kind: str
    version: str
    accel: str
    columns: list[tuple[str, str]] | None = None  # (kind, label) per column
    meta: dict[str, Any] = field(default_factory=dict)


def _parse_columns(line: str, where: str) -> list[tuple[str, str]]:
    text = line.lstrip("#")
    columns: list[tuple[str, str]] = []
    leftover = []
    end = 0
    for m in _COLUMNS.finditer(text):
        leftover.append(text[end:m.start()])
        end = m.end()
        kind = next(k for k in ("p_lat", "p_bw", "avg_lat", "min_lat", "max_lat", "lat", "bw",
                                "msg_rate", "mbps", "iterations", "validation", "transmit", "size")
                    if m.group(k))
        label = m.group("pl") or m.group("pb") or ""
        columns.append((kind, label))
    leftover.append(text[end:])
    unknown = " ".join(s.strip() for s in leftover if s.strip())
    if unknown:
        raise ForeignFormatError(
            f"{where}: unknown OSU column {excerpt(unknown, 40)} in the header; msgperf reads "
            "Size, (Avg) Latency(us), Min/Max Latency(us), Iterations, Bandwidth (MB/s), MB/s, "
            "Messages/s, Validation and Pxx Tail columns")
    if not columns or columns[0][0] != "size":
        raise ForeignFormatError(f"{where}: the OSU column header must start with 'Size'")
    if len(columns) < 2:
        raise ForeignFormatError(f"{where}: the OSU column header names no result column after 'Size'")
    return columns


def _describe(columns: list[tuple[str, str]]) -> str:
    names = {"size": "size", "avg_lat": "latency", "lat": "latency", "min_lat": "min latency",
             "max_lat": "max latency", "iterations": "iterations", "bw": "bandwidth",
             "mbps": "MB/s", "msg_rate": "messages/s", "validation": "validation",
             "transmit": "transmit size"}
    return ", ".join(names.get(k) or f"P{label}" for k, label in columns)


def _point(section: _Section, tokens: list[str], number: int, where: str,
           notes: list[str]) -> Point | None:
    assert section.columns is not None and section.pattern is not None
    if len(tokens) != len(section.columns):
        raise ForeignFormatError(f"{where}: expected {len(section.columns)} columns "
                                 f"({_describe(section.columns)}), got {len(tokens)}")
    nbytes = size(tokens[0], where)
    info: dict[str, Any] = {"tool": section.pattern, "suite": "OSU Micro-Benchmarks",
                            "version": section.version, "statistic": "mean"}
    info.update(section.meta)
    main = None
    msg_rate = None
    validated = True
    for (kind, label), token in zip(section.columns[1:], tokens[1:]):
        if kind == "validation":
            if token not in ("Pass", "Fail"):
                raise ForeignFormatError(f"{where}: validation must be Pass or Fail, got {excerpt(token, 20)}")
            info["validation"] = "passed" if token == "Pass" else "failed"
            validated = token == "Pass"
            continue
        if kind in ("iterations", "transmit"):
            info["iterations" if kind == "iterations" else "transmit_bytes"] = count(token, where, kind)
            continue
        value = decimal(token, where, _describe([(kind, label)]))
        if value < 0:
            raise ForeignFormatError(f"{where}: negative value {token} in an OSU output")
        if kind in ("avg_lat", "lat"):
            main = value
            info["latency_us"] = float(value)
        elif kind in ("min_lat", "max_lat"):
            info[kind.replace("_lat", "_s")] = seconds(value, -6)
        elif kind in ("p_lat", "p_bw"):
            # OSU prints percentiles with %d, so "-z 99,99.9" gives two "P99" columns: keep both.
            unit = "s" if kind == "p_lat" else "MBps"
            key, n = f"p{label}_{unit}", 2
            while key in info:
                key, n = f"p{label}_{n}_{unit}", n + 1
            info[key] = seconds(value, -6) if kind == "p_lat" else float(value)
        elif kind in ("bw", "mbps"):
            main = value
            info["bandwidth_MBps"] = float(value)
        elif kind == "msg_rate":
            msg_rate = value
            info["messages_per_s"] = float(value)
    if section.kind == "collective":
        info["unit"] = "us"
        info["across_ranks"] = "mean"  # OSU's Avg Latency: the mean over ranks of each rank's mean
        info["nprocs"] = None  # not in an OSU output
        info["collective"] = COLLECTIVES[section.pattern]  # msgperf's pattern of the same call
        if main is None or main == 0:
            notes.append(f"line {number}: {section.pattern} at {nbytes} B skipped: a latency of "
                         f"{tokens[1]} us is not a time (rounded to zero?)")
            return None
        return Point(pattern=section.pattern, bytes=nbytes, time_s=seconds(main, -6), metric="per_iteration",
                     line=number, validated=validated, info=info)
    if section.kind == "latency":
        info["unit"] = "us"
        if main is None or main == 0:
            notes.append(f"line {number}: {section.pattern} at {nbytes} B skipped: a latency of "
                         f"{tokens[1]} us is not a time (rounded to zero?)")
            return None
        time_s = seconds(main, -6)
        metric = "one_way"
    else:
        info["unit"] = "MB/s (1 MB = 10^6 B)"
        if msg_rate is not None and msg_rate > 0:
            time_s = per_message_from_msg_rate(msg_rate)
            info["time_from"] = "1 / messages_per_s"
        elif main is not None and main > 0 and nbytes > 0:
            time_s = per_message_from_rate(nbytes, main)
            info["time_from"] = "bytes / (MB/s * 10^6)"
        else:
            notes.append(f"line {number}: {section.pattern} at {nbytes} B skipped: a bandwidth of "
                         f"{tokens[1]} MB/s gives no time per message")
            return None
        metric = "per_message"
    if section.accel:
        info["accelerator"] = section.accel
    return Point(pattern=section.pattern, bytes=nbytes, time_s=time_s, metric=metric, line=number,
                 validated=validated, info=info)


def parse_osu(text: str, name: str = "<osu output>") -> ImportResult:
    """Parse one or more OSU point-to-point outputs (``name`` is used in messages)."""
    sections: list[_Section] = []
    section: _Section | None = None
    points = Points(name)
    output = OutputLines(text)
    notes: list[str] = output.notes
    nranks = 2
    for number, line in output.numbered():
        where = f"{name}, line {number}"
        stripped = line.strip()
        if not stripped:
            continue
        title = _TITLE.match(stripped)
        if title:
            test = title.group("test")
            pattern, kind = TESTS.get(test, (None, ""))
            section = _Section(title_line=number, test=test, pattern=pattern, kind=kind,
                               version=title.group("version") or "", accel=(title.group("accel") or "")[1:])
            sections.append(section)
            if pattern is None:
                notes.append(f"line {number}: skipped 'OSU MPI {test} Test': msgperf imports the "
                             "point-to-point tests and three collectives ("
                             + ", ".join(sorted({p for p, _ in TESTS.values()})) + ")")
            continue
        if stripped.startswith("#"):
            if section is None:
                continue  # text before the first title (e.g. a job script's banner)
            if re.match(r"#\s*Size\b", stripped):
                if section.pattern is not None:
                    section.columns = _parse_columns(stripped, where)
                continue
            pairs, window = _PAIRS.search(stripped), _WINDOW.search(stripped)
            if pairs:
                section.meta["pairs"] = int(pairs.group(1))
                nranks = max(nranks, 2 * int(pairs.group(1)))
            if window:
                section.meta["window"] = int(window.group(1))
            datatype, buffers = _DATATYPE.match(stripped), _BUFFERS.match(stripped)
            if datatype:
                section.meta["datatype"] = datatype.group(1)
            if buffers:
                section.meta["send_buffer"], section.meta["receive_buffer"] = buffers.groups()
            continue
        if section is None:
            if not stripped[0].isdigit():
                continue  # a job log's text before the first output
            raise ForeignFormatError(
                f"{where}: a result line before any '# OSU MPI ... Test' title ({excerpt(line)}); "
                "is this an OSU Micro-Benchmarks output?")
        if section.pattern is None:
            continue
        if section.columns is None:
            raise ForeignFormatError(
                f"{where}: a result line before the '# Size ...' column header of the "
                f"'{section.test}' test (line {section.title_line})")
        tokens = stripped.split()
        if output.cut_short(number, tokens, len(section.columns)):
            continue
        if len(tokens) != len(section.columns):
            raise ForeignFormatError(
                f"{where}: expected {len(section.columns)} columns ({_describe(section.columns)}), "
                f"got {excerpt(line)}")
        point = _point(section, tokens, number, where, notes)
        if point is not None:
            points.append(point)
    if not sections:
        raise ForeignFormatError(
            f"{name}: no '# OSU MPI ... Test' title found; is this an OSU Micro-Benchmarks output?")
    if not points:
        raise ForeignFormatError(f"{name}: no point-to-point or allreduce, bcast, alltoall results found in "
                                 "this OSU output")
    if any(s.kind == "collective" for s in sections if s.pattern):
        notes.append("OSU prints no process count: the collectives' ranks are unknown (recorded as 2); "
                     "compare them only with runs at the rank count they ran with")
    tools = [s.pattern.replace("-", "_") for s in sections if s.pattern]  # the programs: osu_latency
    return build_run(points, name=name, source="osu", buffer="separate", nranks=nranks,
                     command_line=" ".join(dict.fromkeys(tools)), notes=notes)
