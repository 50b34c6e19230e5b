"""Start the kernels under the launcher and follow the run file while they work.

Records appear in the run file as each measurement finishes; this module reads them as they
land (for progress), enforces a stall deadline, and turns a failed launch into one clear line.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from msgperf.errors import MsgperfError

POLL_SECONDS = 0.1
PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child: a new session (Ctrl-C reaches msgperf, which stops the job itself) and,
    on Linux, SIGKILL when msgperf dies, so a killed msgperf never leaves ranks spinning."""
    os.setsid()
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass


class LaunchError(MsgperfError):
    """The launched job failed; what it measured so far is still in the run file."""


def _tail_lines(path: Path, offset: int) -> tuple[list[dict], int]:
    """Complete new JSON lines after byte ``offset``; returns them and the new offset."""
    try:
        with path.open("rb") as f:
            f.seek(offset)
            chunk = f.read()
    except FileNotFoundError:
        return [], offset
    end = chunk.rfind(b"\n")
    if end < 0:
        return [], offset
    records = []
    for line in chunk[: end + 1].splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue  # the final reader reports corruption; progress just skips it
        if isinstance(obj, dict):
            records.append(obj)
    return records, offset + end + 1


def _last_line(text: str) -> str:
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    for line in reversed(lines):
        if line.startswith("msgperf-kernels:"):
            return line[len("msgperf-kernels:"):].strip()
    return lines[-1] if lines else "no output"


def execute(argv: list[str], run_file: Path, *, env: Mapping[str, str] | None = None,
            stall_timeout_s: float = 120.0,
            on_record: Callable[[dict], None] | None = None) -> None:
    """Run ``argv`` to completion, calling ``on_record`` for each record the kernels write.

    Raises LaunchError when the job fails or makes no progress for ``stall_timeout_s``; the
    run file keeps every record finished before that.
    """
    offset = run_file.stat().st_size if run_file.exists() else 0
    log_path = run_file.with_name(run_file.name + ".log")
    with log_path.open("w+") as log:
        try:
            proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    env=dict(env) if env is not None else None, preexec_fn=_die_with_parent)
        except OSError as exc:
            raise LaunchError(f"cannot start {argv[0]}: {exc.strerror}; check --launcher") from None
        last_progress = time.monotonic()
        last_record: dict | None = None
        try:
            while True:
                finished = proc.poll() is not None
                records, offset = _tail_lines(run_file, offset)
                for record in records:
                    last_record = record
                    last_progress = time.monotonic()
                    if on_record:
                        on_record(record)
                if finished:
                    break
                if time.monotonic() - last_progress > stall_timeout_s:
                    _kill(proc)
                    where = ""
                    if last_record and last_record.get("type") == "measurement":
                        where = f" after {last_record.get('pattern')} {last_record.get('bytes')} B"
                    raise LaunchError(
                        f"no progress for {stall_timeout_s:.0f} s{where}: the job was stopped; "
                        f"finished measurements are in {run_file} (continue with --resume)")
                time.sleep(POLL_SECONDS)
        except KeyboardInterrupt:
            _kill(proc)
            raise
        log.seek(0)
        output = log.read()
    if proc.returncode == 0:
        log_path.unlink(missing_ok=True)
        return
    if proc.returncode == 4:
        raise LaunchError(f"payload validation failed: {_last_line(output)}")
    raise LaunchError(f"the MPI job failed (exit {proc.returncode}): {_last_line(output)} "
                      f"[full output: {log_path}]")


def _kill(proc: subprocess.Popen) -> None:
    """Stop the launcher and every rank it started (they share its process group)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=3)
            return
        except subprocess.TimeoutExpired:
            continue
