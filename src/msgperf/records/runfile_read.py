"""Read a run file from disk into a ``Run``.

Strict: every malformed line is an error naming the file and line. The single exception is
a truncated *last* line without its newline, which is what a killed job leaves behind; it
is dropped and reported through ``ReadResult.truncated``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterator

import msgspec

from msgperf.records.format import (Launch, Measurement, RecordError, Run, decode_launch, decode_launch_host,
                                    decode_measurement, decode_run)
from msgperf.records.json_text import parse_json
from msgperf.records.limits import check_json_values
from msgperf.records.spilled_samples import SPILL_ABOVE_FILE_BYTES, SampleSpill, spill_or_none, spilled
from msgperf.values import Value

# Refuse absurd inputs before decoding them (hostile files): 1 GiB per line is far above any
# real measurement (a million samples is ~25 MB of JSON).
MAX_LINE_BYTES = 1 << 30
MAX_FILE_BYTES = MAX_LINE_BYTES * 4


class ReadResult(Value):
    run: Run
    truncated: bool  # a partial last line (killed writer) was dropped
    measured: tuple[tuple[str, int], ...] = ()  # stream_run: (pattern, bytes) of each measurement


class _Assembler:
    """Builds a ``Run`` from a run file's lines, one line at a time: what the file reader (which
    streams, holding one line and the decoded measurements) and ``parse_run_text`` share."""

    def __init__(self, name: str, keep: bool = True, spill: SampleSpill | None = None) -> None:
        self.name = name
        self.keep = keep  # keep the measurements (else only their (pattern, bytes), and the last one)
        self.spill = spill  # where kept measurements leave their samples (a large file), if anywhere
        self.measured: list[tuple[str, int]] = []
        self.last: Measurement | None = None
        self.info = None
        self.launches: dict[int, Launch] = {}
        self.measurements: list[Measurement] = []
        self.truncated = False
        self.seen_text = False

    def feed(self, line: str, number: int, complete: bool) -> bool:
        """Take one line (without its newline); ``complete``: it ended with a newline (a line
        without one is the last, as a killed writer leaves it). False once reading must stop."""
        name, where = self.name, f"{self.name}, line {number}"
        if not line.strip():
            return True
        self.seen_text = True
        try:
            obj = parse_json(line, "a run file")
        except (ValueError, RecursionError) as exc:
            if not complete:
                self.truncated = True
                return False
            if self.info is None:
                raise RecordError(f"{name}: not a msgperf run file (its first line is not JSON)") from None
            raise RecordError(f"{where}: not valid JSON ({exc.__class__.__name__}); the file is corrupt") from None
        if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
            raise RecordError(f"{where}: each line must be a JSON object with a 'type' field")
        check_json_values(obj, where, RecordError)  # every value, once, before anything uses it
        kind = obj["type"]
        info, launches = self.info, self.launches
        if info is None and kind != "run":
            raise RecordError(f"{where}: not a msgperf run file (the first record must be a 'run' record)")
        if kind == "run":
            if info is not None:
                raise RecordError(f"{where}: a second 'run' record; two run files were concatenated")
            self.info = decode_run(obj, where)
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
            launches[index] = msgspec.structs.replace(
                launches[index], end_time=end_time, end_cpus=tuple(int(c) for c in cpus if isinstance(c, int)),
                max_rss_kib=tuple(int(r) for r in rss if isinstance(r, int)) if isinstance(rss, list) else None)
        elif kind == "launch_abort":
            index, reason = obj.get("launch"), obj.get("reason")
            if not isinstance(index, int) or index not in launches or not isinstance(reason, str):
                raise RecordError(f"{where}: 'launch_abort' needs a started launch and a reason")
            launches[index] = msgspec.structs.replace(launches[index], aborted=reason)
        elif kind == "launch_host":
            index = obj.get("launch")
            if not isinstance(index, int) or isinstance(index, bool) or index not in launches:
                raise RecordError(f"{where}: 'launch_host' for launch {index!r}, which never started")
            launches[index] = msgspec.structs.replace(launches[index], host=decode_launch_host(obj, where))
        elif kind == "measurement":
            m = decode_measurement(obj, where)
            if m.launch not in launches and info.source == "msgperf":
                raise RecordError(f"{where}: measurement of launch {m.launch}, which never started")
            if self.keep:
                self.measurements.append(self._spilled(m) if self.spill is not None else m)
            else:
                self.measured.append((m.pattern, m.bytes))
                self.last = m
        else:
            raise RecordError(f"{where}: unknown record type {kind!r}")
        return True

    def _spilled(self, m: Measurement) -> Measurement:
        """``m`` with its samples on disk; on a full disk, this and every later measurement keep
        theirs in memory (as every run did before spilling)."""
        try:
            return spilled(m, self.spill)
        except OSError:
            self.spill = None
            return m

    def result(self) -> ReadResult:
        if not self.seen_text:
            raise RecordError(f"{self.name}: the file is empty; it holds no run (was the job killed before it started?)")
        if self.info is None:
            raise RecordError(f"{self.name}: no complete 'run' record; the file was cut off at its start")
        launches = self.launches
        run = Run(info=self.info, launches=tuple(launches[i] for i in sorted(launches)),
                  measurements=tuple(self.measurements), path=self.name)
        return ReadResult(run=run, truncated=self.truncated,
                          measured=tuple(self.measured) if not self.keep else ())


def parse_run_text(text: str, name: str = "<run file>") -> ReadResult:
    """Parse the contents of a run file; ``name`` is used in error messages."""
    assembler = _Assembler(name)
    lines = text.split("\n")
    for number, line in enumerate(lines, start=1):
        complete = number < len(lines)
        if not complete and not line:
            break  # the text ended with its newline
        if not assembler.feed(line, number, complete):
            break
    return assembler.result()


def _lines(path: str | Path) -> Iterator[tuple[str, int, bool]]:
    """(line without its newline, its number, whether it ended with a newline) of a run file,
    read one line at a time; one-line errors for files that cannot be read."""
    p = Path(path)
    name = str(p)
    try:
        if p.is_dir():
            raise RecordError(f"{p}: is a directory, not a run file")
        if p.stat().st_size > MAX_FILE_BYTES:
            raise RecordError(f"{p}: larger than {MAX_FILE_BYTES >> 20} MiB; not a run file msgperf will read")
        f = p.open("rb")
    except FileNotFoundError:
        raise RecordError(f"{p}: no such file") from None
    except PermissionError:
        raise RecordError(f"{p}: permission denied") from None
    except OSError as exc:
        raise RecordError(f"{p}: cannot read it ({exc.strerror})") from None
    with f:
        try:
            if b"\x00" in f.read(4096):
                raise RecordError(f"{p}: binary data, not a run file")
            f.seek(0)
            number = 0
            while True:
                raw = f.readline(MAX_LINE_BYTES + 1)
                if not raw:
                    return
                number += 1
                complete = raw.endswith(b"\n")
                if not complete and len(raw) > MAX_LINE_BYTES:
                    raise RecordError(f"{name}, line {number}: longer than {MAX_LINE_BYTES >> 20} MiB; "
                                      "not a record msgperf will read")
                line = (raw[:-1] if complete else raw).decode("utf-8", errors="replace")
                del raw
                yield line, number, complete
        except OSError as exc:
            raise RecordError(f"{p}: cannot read it ({exc.strerror})") from None


def read_run(path: str | Path) -> ReadResult:
    """Read and validate a run file. Raises ``RecordError`` with a one-line message.

    Streams: the file is read one line at a time, so reading holds the decoded run (8 bytes per
    sample, in numpy arrays) and one line, not the file's text. A file larger than
    ``SPILL_ABOVE_FILE_BYTES`` leaves its samples in a temporary file (records/spilled_samples.py), so
    reading and analysing it hold about one measurement's samples at a time
    (docs/record-format.md, "Reading in bounded memory")."""
    assembler = _Assembler(str(Path(path)), spill=_spill_for(path))
    for line, number, complete in _lines(path):
        if not assembler.feed(line, number, complete):
            break
    return assembler.result()


def _spill_for(path: str | Path) -> SampleSpill | None:
    try:
        large = Path(path).stat().st_size > SPILL_ABOVE_FILE_BYTES
    except OSError:
        return None  # _lines gives the one-line error
    return spill_or_none() if large else None


def stream_run(path: str | Path) -> tuple[ReadResult, Callable[[], Iterator[Measurement]]]:
    """A run file read in two passes, for writers that need one measurement at a time (the CSV
    export): (the run without its measurements, every line checked; a function that reads the
    file again and yields its measurements one by one). ``run.measurements`` is empty; the
    measured (pattern, bytes) are in ``ReadResult.measured``."""
    assembler = _Assembler(str(Path(path)), keep=False)
    for line, number, complete in _lines(path):
        if not assembler.feed(line, number, complete):
            break
    header = assembler.result()

    def measurements() -> Iterator[Measurement]:
        again = _Assembler(str(Path(path)), keep=False)
        for line, number, complete in _lines(path):
            if not again.feed(line, number, complete):
                return
            if again.last is not None:
                yield again.last
                again.last = None
    return header, measurements
