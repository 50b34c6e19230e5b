"""The Python writer of run files, beside ``runfile_read``: the records of a ``Run`` in an order
the reader accepts, written whole (``write_run_file``, atomically) or appended by msgperf to a
file the kernels are writing (``append_launch_abort``). The kernels' C writer is
kernels/record.c; both follow docs/record-format.md, and the field names live in ``format``."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from typing import Any, Iterator

from msgperf.writing import atomic_write
from msgperf.records.format import (Run, encode_launch, encode_launch_abort, encode_launch_end,
                                    encode_measurement, encode_run)


def iter_run_records(run: Run) -> Iterator[dict[str, Any]]:
    """The run's records in the order the kernels write them: the run record, then per launch
    its launch record, its measurements, its end (and msgperf's abort record). One at a time, so
    a writer holds one record's samples as Python floats, not the run's."""
    yield encode_run(run.info)
    for launch in run.launches:
        yield encode_launch(launch)
        for m in run.measurements:
            if m.launch == launch.index:
                yield encode_measurement(m)
        if launch.finished:
            yield encode_launch_end(launch)
        if launch.aborted is not None:
            # A Launch keeps the reason of an abort, not its time: the record's time is left empty.
            yield encode_launch_abort(launch.index, "", launch.aborted)
    indices = {launch.index for launch in run.launches}
    # Imported runs have no launch records; their measurements follow the run record.
    for m in run.measurements:
        if m.launch not in indices:
            yield encode_measurement(m)


def run_records(run: Run) -> list[dict[str, Any]]:
    """``iter_run_records`` as a list."""
    return list(iter_run_records(run))


def write_run_records(run: Run, out) -> None:
    for record in iter_run_records(run):
        out.write(json.dumps(record, allow_nan=False) + "\n")


def write_run_file(run: Run, path: str | Path) -> Path:
    """Write ``run`` as a run file (to a temporary name, then renamed)."""
    with atomic_write(path) as out:
        write_run_records(run, out)
    return Path(path)


def cut_partial_line(path: Path, chunk: int = 1 << 20) -> None:
    """Drop a last line without its newline (a killed writer's), so appending stays valid. Reads
    back from the end a chunk at a time, never the whole file."""
    with path.open("rb+") as f:
        end = f.seek(0, 2)
        position = end
        while position > 0:
            start = max(0, position - chunk)
            f.seek(start)
            newline = f.read(position - start).rfind(b"\n")
            if newline >= 0:
                keep = start + newline + 1
                break
            position = start
        else:
            keep = 0
        if keep != end:
            f.truncate(keep)


def append_launch_host(path: Path, record: dict[str, Any]) -> None:
    """Add msgperf's ``launch_host`` record of a launch (launch/host_load.py) after the kernels'
    records of that launch. Best effort, like the abort record: the measurements matter more."""
    try:
        cut_partial_line(path)
        with path.open("a") as f:
            f.write(json.dumps(record, allow_nan=False) + "\n")
            f.flush()
    except (OSError, ValueError):
        cut_partial_line(path)


def append_launch_abort(path: Path, launch: int, reason: str) -> None:
    """Mark a launch as stopped by msgperf, with the reason; flushed and synced. Best effort:
    on a full disk the launch stays unmarked, which the reader reports as incomplete anyway."""
    now = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    try:
        cut_partial_line(path)
        with path.open("a") as f:
            f.write(json.dumps(encode_launch_abort(launch, now, reason)) + "\n")
            f.flush()
            os.fsync(f.fileno())
    except OSError:
        cut_partial_line(path)
