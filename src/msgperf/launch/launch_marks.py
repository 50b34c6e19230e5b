"""One launch as msgperf follows it and marks it: what its records say as they come (whether its
launch record came, so that nothing reads the run file to learn it), and what msgperf adds to the
run file after it (why it was stopped, the launching node's load over it)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from msgperf.launch.host_load import launch_host_record, snapshot
from msgperf.records.format import RecordError
from msgperf.records.runfile_read import read_run
from msgperf.records.runfile_write import append_launch_abort, append_launch_host


class Follower:
    """One launch's records as the kernels write them: how many measurements, whether its launch
    record came (so that nothing reads the run file to learn it), when the first and the last
    arrived."""

    def __init__(self, index: int, on_record: Callable[[dict], None] | None) -> None:
        self.index, self.on_record = index, on_record
        self.measurements = 0
        self.started = False  # the kernels wrote this launch's launch record
        self.first_s = self.last_s = 0.0

    def __call__(self, record: dict) -> None:
        now = time.monotonic()
        self.first_s = self.first_s or now
        self.last_s = now
        self.measurements += record.get("type") == "measurement"
        self.started |= record.get("type") == "launch" and record.get("launch") == self.index
        if self.on_record:
            self.on_record(record)


def mark_aborted(run_file: Path, launch: int, reason: str, started: bool = False) -> bool:
    """Record why a launch was stopped, if it got far enough to write its launch record; an
    empty file claimed for a launch that never started is removed. ``started``: the follower saw
    the launch record (then the file need not be read to find it); else the file says, since the
    follower may have stopped early. Returns whether the launch started."""
    if not started:
        try:
            run = read_run(run_file).run
        except RecordError:
            if run_file.exists() and run_file.stat().st_size == 0:
                run_file.unlink()
            return False
        started = any(l.index == launch for l in run.launches)
    if started:
        append_launch_abort(run_file, launch, reason)
    return started


def record_host(run_file: Path, launch: int, started: bool, before, progress: dict[str, str]) -> None:
    """Add the launch's ``launch_host`` record (the launching node's load, steal and other work over
    the launch, and the progress settings msgperf chose) once the launch is over, if it got far
    enough to write its launch record (``started``: what the follower saw or, after a failure,
    what ``mark_aborted`` found)."""
    after = snapshot()
    if started:
        append_launch_host(run_file, launch_host_record(launch, before, after, progress))


def added_settings(env: Mapping[str, str] | None) -> dict[str, str]:
    """What msgperf added to (or changed in) its own environment for the launch."""
    return {k: v for k, v in (env or {}).items() if os.environ.get(k) != v}
