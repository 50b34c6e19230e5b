"""Read a run file from disk into a ``Run``.

Strict: every malformed line is an error naming the file and line. The single exception is
a truncated *last* line without its newline, which is what a killed job leaves behind; it
is dropped and reported through ``ReadResult.truncated``.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path

from msgperf.records.format import (Launch, Measurement, RecordError, Run, decode_launch, decode_launch_host,
                                    decode_measurement, decode_run)
from msgperf.records.textfile import read_text_file

# Refuse absurd inputs before decoding them (hostile files): 1 GiB per line is far above any
# real measurement (a million samples is ~25 MB of JSON).
MAX_LINE_BYTES = 1 << 30


@dataclass(frozen=True)
class ReadResult:
    run: Run
    truncated: bool  # a partial last line (killed writer) was dropped


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not allowed in a run file")


def parse_run_text(text: str, name: str = "<run file>") -> ReadResult:
    """Parse the contents of a run file; ``name`` is used in error messages."""
    if not text.strip():
        raise RecordError(f"{name}: the file is empty; it holds no run (was the job killed before it started?)")
    lines = text.split("\n")
    ends_cleanly = text.endswith("\n")
    if ends_cleanly:
        lines = lines[:-1]
    info = None
    launches: dict[int, Launch] = {}
    measurements: list[Measurement] = []
    truncated = False
    for number, line in enumerate(lines, start=1):
        where = f"{name}, line {number}"
        last = number == len(lines)
        if not line.strip():
            continue
        try:
            obj = json.loads(line, parse_constant=_reject_constant)
        except (ValueError, RecursionError) as exc:
            if last and not ends_cleanly:
                truncated = True
                break
            if info is None:
                raise RecordError(f"{name}: not a msgperf run file (its first line is not JSON)") from None
            raise RecordError(f"{where}: not valid JSON ({exc.__class__.__name__}); the file is corrupt") from None
        if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
            raise RecordError(f"{where}: each line must be a JSON object with a 'type' field")
        kind = obj["type"]
        if info is None and kind != "run":
            raise RecordError(f"{where}: not a msgperf run file (the first record must be a 'run' record)")
        if kind == "run":
            if info is not None:
                raise RecordError(f"{where}: a second 'run' record; two run files were concatenated")
            info = decode_run(obj, where)
        elif kind == "launch":
            launch = decode_launch(obj, where)
            if launch.index in launches:
                raise RecordError(f"{where}: launch {launch.index} appears twice")
            launches[launch.index] = launch
        elif kind == "launch_end":
            index = obj.get("launch")
            if not isinstance(index, int) or isinstance(index, bool) or index not in launches:
                raise RecordError(f"{where}: 'launch_end' for launch {index!r}, which never started")
            cpus = obj.get("cpus", [])
            end_time = obj.get("end_time")
            if not isinstance(end_time, str) or not isinstance(cpus, list):
                raise RecordError(f"{where}: 'launch_end' needs end_time (string) and cpus (list)")
            rss = obj.get("max_rss_kib")
            launches[index] = dataclasses.replace(
                launches[index], end_time=end_time, end_cpus=tuple(int(c) for c in cpus if isinstance(c, int)),
                max_rss_kib=tuple(int(r) for r in rss if isinstance(r, int)) if isinstance(rss, list) else None)
        elif kind == "launch_abort":
            index, reason = obj.get("launch"), obj.get("reason")
            if not isinstance(index, int) or index not in launches or not isinstance(reason, str):
                raise RecordError(f"{where}: 'launch_abort' needs a started launch and a reason")
            launches[index] = dataclasses.replace(launches[index], aborted=reason)
        elif kind == "launch_host":
            index = obj.get("launch")
            if not isinstance(index, int) or isinstance(index, bool) or index not in launches:
                raise RecordError(f"{where}: 'launch_host' for launch {index!r}, which never started")
            launches[index] = dataclasses.replace(launches[index], host=decode_launch_host(obj, where))
        elif kind == "measurement":
            m = decode_measurement(obj, where)
            if m.launch not in launches and info.source == "msgperf":
                raise RecordError(f"{where}: measurement of launch {m.launch}, which never started")
            measurements.append(m)
        else:
            raise RecordError(f"{where}: unknown record type {kind!r}")
    if info is None:
        raise RecordError(f"{name}: no complete 'run' record; the file was cut off at its start")
    run = Run(info=info, launches=tuple(launches[i] for i in sorted(launches)),
              measurements=tuple(measurements), path=name)
    return ReadResult(run=run, truncated=truncated)


def read_run(path: str | Path) -> ReadResult:
    """Read and validate a run file. Raises ``RecordError`` with a one-line message."""
    text = read_text_file(path, what="a run file", error=RecordError, limit=MAX_LINE_BYTES * 4)
    return parse_run_text(text, str(Path(path)))
