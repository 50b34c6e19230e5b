"""The few records msgperf itself appends to a run file (the kernels write all the others)."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

from msgperf.records.format import encode_launch_abort


def cut_partial_line(path: Path) -> None:
    """Drop a last line without its newline (a killed writer's), so appending stays valid."""
    with path.open("rb+") as f:
        data = f.read()
        keep = data.rfind(b"\n") + 1
        if keep != len(data):
            f.truncate(keep)


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
