"""Intel MPI Benchmarks (IMB-MPI1) point-to-point outputs -> an imported-summary ``Run``.

An output is a banner (version, date, machine, MPI version, calling sequence), then one block
per benchmark: ``# Benchmarking PingPong``, ``# #processes = 2``, a column header
(``#bytes #repetitions t[usec] Mbytes/sec``) and one line per size. Times are µs, MB = 10^6 B.
Where IMB prints t_min/t_max/t_avg (across ranks), the sample is t_max: msgperf reports what
the slowest participant saw. Of the collectives, Allreduce, Bcast and Alltoall are read (each rank's
mean time per call over the repetitions, back to back; the sample is t_max, the slowest rank's);
other benchmarks are skipped with a note.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from msgperf.records.importers.peer_run import ImportResult, Point, Points, build_run
from msgperf.records.importers.text import (ForeignFormatError, OutputLines, count, decimal, excerpt,
                                            per_message_from_msg_rate, per_message_from_rate,
                                            seconds, size)

# Benchmark -> (metric, what its time is, uses all processes). Pattern = "imb-" + lower name.
BENCHMARKS: dict[str, tuple[str, str, bool]] = {
    "PingPong": ("one_way", "half a round trip", False),
    "PingPongSpecificSource": ("one_way", "half a round trip", False),
    "PingPongAnySource": ("one_way", "half a round trip", False),
    "PingPing": ("one_way", "one message while the partner sends one at the same time", False),
    "PingPingSpecificSource": ("one_way", "one message while the partner sends one at the same time", False),
    "PingPingAnySource": ("one_way", "one message while the partner sends one at the same time", False),
    "Sendrecv": ("one_way", "one MPI_Sendrecv (one message each way, in a periodic chain)", True),
    "Exchange": ("one_way", "one exchange (two sends and two receives per rank, both neighbours)", True),
    "Uniband": ("per_message", "1 / (Msg/sec), messages in a window to the partner", True),
    "Biband": ("per_message", "1 / (Msg/sec), messages in a window both ways", True),
    "Allreduce": ("per_iteration", "one MPI_Allreduce (MPI_FLOAT, MPI_SUM), each rank's mean over the repetitions",
                  True),
    "Bcast": ("per_iteration", "one MPI_Bcast (the root rotates), each rank's mean over the repetitions", True),
    "Alltoall": ("per_iteration", "one MPI_Alltoall, each rank's mean over the repetitions", True),
}
COLLECTIVES = {"Allreduce": "allreduce", "Bcast": "bcast", "Alltoall": "alltoall"}  # msgperf's same call

_COLUMNS = {"#bytes": "bytes", "#repetitions": "repetitions", "t[usec]": "t", "t_min[usec]": "t_min",
            "t_max[usec]": "t_max", "t_avg[usec]": "t_avg", "Mbytes/sec": "mbps", "Msg/sec": "msg_rate",
            "defects": "defects", "Group": "group", "t_ovrl[usec]": "t_ovrl", "t_pure[usec]": "t_pure",
            "t_CPU[usec]": "t_cpu", "overlap[%]": "overlap"}
_FAILURES = ("out-of-mem.", "int-overflow", "time-out.")

_BANNER = re.compile(r"#\s*Intel\s*\(R\)\s*MPI Benchmarks\s+(?P<version>.+?)\s*,\s*(?P<part>.+?)\s+part")
_FIELD = re.compile(r"#\s*(Date|Machine|System|Release|Version|MPI Version|MPI Thread Environment)"
                    r"\s*:\s*(.*?)\s*$")
_BANNER_KEYS = {"Machine": "machine", "System": "os", "Release": "os_release", "Version": "os_version",
                "MPI Version": "mpi_standard", "MPI Thread Environment": "mpi_thread_level"}
_BENCHMARKING = re.compile(r"#\s*Benchmarking\s+(?P<multi>Multi-)?(?P<name>\S+)")
MAX_PROCESSES = 10_000_000  # far above any machine; a larger count is a damaged file


def _process_count(token: str, where: str) -> int:
    value = int(token)
    if value > MAX_PROCESSES:
        raise ForeignFormatError(f"{where}: {excerpt(token, 20)} processes is not a plausible process count")
    return value


_PROCESSES = re.compile(r"#\s*\(?\s*#processes\s*=\s*(\d+)")
_IDLE = re.compile(r"#\s*\(\s*(\d+) additional process(?:es)? waiting in MPI_Barrier\)")
_GROUPS = re.compile(r"#\s*\(\s*(\d+) groups of (\d+) processes")


@dataclass
class _Section:
    line: int
    name: str
    supported: bool
    nprocs: int | None = None
    idle: int = 0
    columns: list[str] | None = None
    meta: dict[str, Any] = field(default_factory=dict)


def _iso_date(text: str) -> str:
    """IMB's ``Sun Nov 22 04:26:18 2026`` (local time of the machine that ran it) as ISO 8601."""
    try:
        return datetime.strptime(" ".join(text.split()), "%a %b %d %H:%M:%S %Y").isoformat()
    except ValueError:
        return ""


def _columns(line: str, where: str) -> list[str]:
    names = []
    for token in line.split():
        if token not in _COLUMNS:
            raise ForeignFormatError(
                f"{where}: unknown IMB column {excerpt(token, 30)}; msgperf reads "
                + ", ".join(_COLUMNS))
        names.append(_COLUMNS[token])
    if "bytes" not in names:
        raise ForeignFormatError(f"{where}: an IMB column header without #bytes")
    return names


def _point(section: _Section, tokens: list[str], number: int, where: str, banner: dict[str, Any],
           notes: list[str]) -> Point | None:
    assert section.columns is not None
    metric, meaning, all_ranks = BENCHMARKS[section.name]
    values = dict(zip(section.columns, tokens))
    nbytes = size(values["bytes"], where)
    pattern = "imb-" + section.name.lower()
    active = section.nprocs or 2
    info: dict[str, Any] = {"tool": "IMB-MPI1", "benchmark": section.name, "suite": "Intel MPI Benchmarks",
                            "statistic": "mean", "time_is": meaning, "nprocs": active}
    info.update(banner)
    info.update(section.meta)
    if "repetitions" in values:
        info["repetitions"] = count(values["repetitions"], where, "#repetitions")
    numbers = {}
    for key in ("t", "t_min", "t_max", "t_avg", "mbps", "msg_rate", "defects"):
        if key in values:
            numbers[key] = decimal(values[key], where, key)
            if numbers[key] < 0:
                raise ForeignFormatError(f"{where}: negative {key} {values[key]} in an IMB output")
    for key in ("t", "t_min", "t_max", "t_avg"):
        if key in numbers:
            info[f"{key}_s"] = seconds(numbers[key], -6)
    if "mbps" in numbers:
        info["bandwidth_MBps"] = float(numbers["mbps"])
    if "msg_rate" in numbers:
        info["messages_per_s"] = float(numbers["msg_rate"])
    validated = True
    if "defects" in numbers:
        info["defects"] = float(numbers["defects"])
        info["validation"] = "passed" if numbers["defects"] == 0 else "failed"
        validated = numbers["defects"] == 0
    time = numbers.get("t_max", numbers.get("t"))
    if section.name in COLLECTIVES:
        info["collective"] = COLLECTIVES[section.name]
    if metric in ("one_way", "per_iteration"):
        if "t_max" in numbers:
            info["across_ranks"] = "max"
        if time is None or time == 0:
            notes.append(f"line {number}: {pattern} at {nbytes} B skipped: IMB printed no time above zero")
            return None
        time_s = seconds(time, -6)
    elif numbers.get("msg_rate", 0) > 0:
        time_s = per_message_from_msg_rate(numbers["msg_rate"])
        info["time_from"] = "1 / messages_per_s"
    elif numbers.get("mbps", 0) > 0 and nbytes > 0:
        time_s = per_message_from_rate(nbytes, numbers["mbps"])
        info["time_from"] = "bytes / (MB/s * 10^6)"
    else:
        notes.append(f"line {number}: {pattern} at {nbytes} B skipped: no rate above zero")
        return None
    ranks = tuple(range(active)) if all_ranks else (0, 1)
    return Point(pattern=pattern, bytes=nbytes, time_s=time_s, metric=metric, line=number,
                 ranks=ranks, validated=validated, info=info)


def parse_imb(text: str, name: str = "<imb output>") -> ImportResult:
    """Parse an IMB-MPI1 output (``name`` is used in messages)."""
    banner: dict[str, Any] = {}
    command_line = ""
    start_time = ""
    section: _Section | None = None
    seen_any = False
    points = Points(name)
    output = OutputLines(text)
    notes: list[str] = output.notes
    nranks = 2
    lines = output.lines
    calling = None  # index of the line after "# Calling sequence was:"
    for index, line in enumerate(lines):
        number = index + 1
        where = f"{name}, line {number}"
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            body = stripped.lstrip("#").strip()
            if m := _BANNER.match(stripped):
                banner["version"], banner["part"] = m.group("version"), m.group("part")
                seen_any = True
            elif m := _FIELD.match(stripped):
                if m.group(1) == "Date":
                    start_time = _iso_date(m.group(2))
                    banner["date"] = m.group(2)
                elif m.group(2):
                    banner[_BANNER_KEYS[m.group(1)]] = m.group(2)
            elif body.startswith("Calling sequence was"):
                calling = number
            elif calling is not None and not command_line and body:
                command_line = body  # first non-empty comment after "Calling sequence was:"
                for more in lines[number:]:  # IMB wraps long calling sequences on '#' lines
                    rest = more.strip()
                    if not rest.startswith("#") or not rest.lstrip("#").strip():
                        break
                    command_line += " " + rest.lstrip("#").strip()
            elif m := _BENCHMARKING.match(stripped):
                seen_any = True
                bench = m.group("name")
                supported = bench in BENCHMARKS and not m.group("multi")
                section = _Section(line=number, name=bench, supported=supported)
                if not supported:
                    why = ("-multi output is not imported" if m.group("multi") and bench in BENCHMARKS
                           else "msgperf imports the benchmarks " + ", ".join(BENCHMARKS))
                    notes.append(f"line {number}: skipped IMB {m.group(0).split()[-1]}: {why}")
            elif m := _PROCESSES.match(stripped):
                if section is not None:
                    section.nprocs = _process_count(m.group(1), f"{name}, line {number}")
                    nranks = max(nranks, section.nprocs)
            elif m := _IDLE.match(stripped):
                if section is not None:
                    section.idle = _process_count(m.group(1), f"{name}, line {number}")
                    nranks = max(nranks, (section.nprocs or 2) + section.idle)
            elif m := _GROUPS.match(stripped):
                if section is not None:
                    section.supported = False
            elif "MODE:" in body and section is not None:
                section.meta["mode"] = body.split("MODE:", 1)[1].strip().lower()
            elif "#repetitions" in stripped:
                if section is None:
                    raise ForeignFormatError(f"{where}: a column header before any '# Benchmarking' line")
                section.columns = _columns(stripped, where)
            continue
        if section is None:
            if not stripped[0].isdigit():
                continue  # a job log's text before the output
            raise ForeignFormatError(
                f"{where}: a result line before any '# Benchmarking <name>' line ({excerpt(line)}); "
                "is this an Intel MPI Benchmarks output?")
        if stripped.split()[0] == "Group":
            section.columns = _columns(stripped, where)
            continue
        if not section.supported:
            continue
        if section.columns is None:
            raise ForeignFormatError(
                f"{where}: a result line before the '#bytes #repetitions ...' header of {section.name} "
                f"(line {section.line})")
        if any(label in stripped for label in _FAILURES):
            notes.append(f"line {number}: IMB reported a failure instead of a time: {excerpt(line)}")
            continue
        tokens = stripped.split()
        if output.cut_short(number, tokens, len(section.columns)):
            continue
        if len(tokens) != len(section.columns):
            raise ForeignFormatError(
                f"{where}: expected {len(section.columns)} numeric columns "
                f"({', '.join(section.columns)}), got {excerpt(line)}")
        point = _point(section, tokens, number, where, banner, notes)
        if point is not None:
            points.append(point)
    if not seen_any:
        raise ForeignFormatError(
            f"{name}: no 'Intel(R) MPI Benchmarks' banner or '# Benchmarking' line found; "
            "is this an IMB output?")
    if not points:
        raise ForeignFormatError(f"{name}: no point-to-point or Allreduce, Bcast, Alltoall results found in this "
                                 "IMB output")
    return build_run(points, name=name, source="imb", buffer="separate", nranks=nranks,
                     command_line=command_line or "IMB-MPI1", start_time=start_time, notes=notes)
