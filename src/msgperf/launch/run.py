"""Start the kernels under the launcher and follow the run file while they work.

Records appear in the run file as each measurement finishes; this module reads them as they
land (for progress), enforces a stall deadline, and turns a failed launch into one clear line.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import tempfile
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

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


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


_HYDRA_EXIT = re.compile(r"EXIT STRING:\s*(.+)")
_HYDRA_PID = re.compile(r"PID (\d+) RUNNING AT (\S+)")
_OMPI_DIED = re.compile(r"process rank (\d+) with PID (\d+) on node (\S+) exited on signal (\d+) \(([^)]*)\)")


def explain_failure(output: str) -> str:
    """The one line that says why the job failed: the kernels' own message, else the
    launcher's account of a rank that died, else the last line of output."""
    lines = [l.strip() for l in output.splitlines() if l.strip()]
    for line in reversed(lines):
        if line.startswith("msgperf-kernels:"):
            return line[len("msgperf-kernels:"):].strip()
    died = _OMPI_DIED.search(output)
    if died:
        rank, pid, host, _, name = died.groups()
        return f"rank {rank} died ({name}; pid {pid} on {host})"
    exit_string, pid = _HYDRA_EXIT.search(output), _HYDRA_PID.search(output)
    if exit_string:
        where = f"; pid {pid.group(1)} on {pid.group(2)}" if pid else ""
        return f"a rank died ({exit_string.group(1).strip()}{where})"
    return lines[-1] if lines else "no output"


def execute(argv: list[str], run_file: Path, *, expected: list[tuple[str, int, str]],
            env: Mapping[str, str] | None = None, stall_timeout_s: float = 120.0,
            on_record: Callable[[dict], None] | None = None) -> None:
    """Run ``argv`` to completion, calling ``on_record`` for each record the kernels write.

    ``expected`` lists the (pattern, size, participating ranks) of each record in the order the
    kernels write them, so a failure can say where it happened. Raises
    LaunchError when the job fails or makes no progress for ``stall_timeout_s``; the run file
    keeps every record finished before that.
    """
    offset = start_offset = run_file.stat().st_size if run_file.exists() else 0
    # The launcher's output goes to the temporary directory, not beside the run file: when the
    # run file's disk is full, this is where the kernels' explanation must still land.
    log_fd, log_name = tempfile.mkstemp(prefix="msgperf-launch-", suffix=".log")
    os.close(log_fd)
    log_path = Path(log_name)
    done = 0

    def where() -> str:
        if done < len(expected):
            pattern, size, who = expected[done]
            return f"while measuring {pattern} {size} B ({who})"
        return "after the last measurement"

    def kept() -> str:
        return (f"{done} finished measurement(s) of this launch are kept in {run_file}; "
                f"continue with: msgperf run --resume {run_file}")

    with log_path.open("w+") as log:
        try:
            proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    env=dict(env) if env is not None else None, preexec_fn=_die_with_parent)
        except OSError as exc:
            raise LaunchError(f"cannot start {argv[0]}: {exc.strerror}; check --launcher") from None
        last_progress = time.monotonic()

        def drain() -> None:
            nonlocal offset, done, last_progress
            records, offset = _tail_lines(run_file, offset)
            for record in records:
                last_progress = time.monotonic()
                done += record.get("type") == "measurement"
                if on_record:
                    on_record(record)

        try:
            while True:
                finished = proc.poll() is not None
                drain()
                if finished:
                    break
                if time.monotonic() - last_progress > stall_timeout_s:
                    _kill(proc)
                    drain()
                    raise LaunchError(f"hung: no progress for {stall_timeout_s:g} s {where()}; "
                                      f"the job was stopped; {kept()}")
                time.sleep(POLL_SECONDS)
        except KeyboardInterrupt:
            _kill(proc)
            drain()
            raise LaunchError(f"interrupted {where()}; {kept()}", exit_code=130) from None
        log.seek(0)
        output = log.read()
    if proc.returncode == 0:
        log_path.unlink(missing_ok=True)
        return
    if proc.returncode == 4:
        raise LaunchError(f"payload validation failed: {explain_failure(output)}")
    if offset == start_offset:
        raise LaunchError(f"{argv[0]} could not start the ranks (exit {proc.returncode}): {explain_failure(output)}; "
                          f"check the launcher and the MPI [launcher output: {log_path}]")
    raise LaunchError(f"the MPI job failed {where()}: {explain_failure(output)}; {kept()} "
                      f"[launcher output: {log_path}]")


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
