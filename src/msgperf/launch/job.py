"""Start the kernels under the launcher and follow the run file while they work.

Records appear in the run file as each measurement finishes; this module reads them as they
land (for progress), enforces a stall deadline, and turns a failed launch into one clear line.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from msgperf.errors import MsgperfError
from msgperf.launch import children
from msgperf.launch.children import Terminated, stop_exit_code, stop_name
from msgperf.launch.shm_leftovers import remove_dead_jobs_segments, remove_leftovers, segments

POLL_SECONDS = 0.1


class LaunchError(MsgperfError):
    """The launched job failed; what it measured so far is still in the run file."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


# Launch logs are kept when a launch fails (their path is in the message); kept ones older than
# this are removed when the next launch starts, so they do not pile up in the temp directory.
LOG_PREFIX, LOG_SUFFIX = "msgperf-launch-", ".log"
LOG_KEEP_S = 7 * 24 * 3600


def clean_old_logs(directory: Path, now: float | None = None, keep_s: float = LOG_KEEP_S) -> int:
    """Remove this user's launch logs older than ``keep_s`` from ``directory``; returns how many."""
    now = time.time() if now is None else now
    removed = 0
    for log in directory.glob(f"{LOG_PREFIX}*{LOG_SUFFIX}"):
        try:
            st = log.lstat()
            if st.st_uid == os.getuid() and now - st.st_mtime > keep_s:
                log.unlink()
                removed += 1
        except OSError:
            continue  # another msgperf removed it first, or it is not ours to remove
    return removed


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


# Causes a launcher reports before its own account of the failure (which comes last and says
# only that it failed): ssh's, Hydra's and Open MPI's, SLURM's. The first match is the cause.
_LAUNCHER_CAUSES = [re.compile(rf"^.*{p}.*$", re.MULTILINE) for p in (
    r"Could not resolve hostname",
    r"ssh: connect to host",
    r"Permission denied \(publickey",
    r"Host key verification failed",
    r"execvp error on file",
    r"could not access\s+or execute an executable",
    r"There are not enough slots available",
    r"srun: error: ",
    r": command not found",
)]
# Hydra's trace of its own call chain: "[mpiexec@host] function (file.c:51): what failed".
_HYDRA_FRAME = re.compile(r"^\[[^\]]*@[^\]]*\]\s+\S+\s+\([^)]*:\d+\):\s*")
_OMPI_EXECUTABLE = re.compile(r"Executable:\s*(\S+)")
_ERRORISH = re.compile(r"error|cannot|can't|could not|unable|failed|denied|refused|not found|no such", re.I)


def launcher_cause(lines: list[str], guess: bool = True) -> str | None:
    """The line of a launcher's output that names why it failed, not its last line; with
    ``guess`` false, only a cause it is known to print (a program's own errors are not one)."""
    text = "\n".join(lines)
    for pattern in _LAUNCHER_CAUSES:
        found = pattern.search(text)
        if found is None:
            continue
        cause = _HYDRA_FRAME.sub("", " ".join(found.group(0).split()))
        if "could not access" in cause:
            exe = _OMPI_EXECUTABLE.search(text)
            return f"cannot execute {exe.group(1) if exe else 'the program'} (could not access or execute it)"
        return cause
    if not guess:
        return None
    for line in lines:  # the first line that reads like an error and is not Hydra's call chain
        if _ERRORISH.search(line) and not _HYDRA_FRAME.match(line) and not set(line) <= set("-*= "):
            return line
    return None


# SLURM's pmi2 plugin reads a PMI-1 request with one read() of 1,024 bytes; a longer line (the pip
# wheel's MPICH sends its UCX address in lines of up to ~1,080) is cut in two and MPI_Init fails.
_SLURM_PMI1_CUT = ("mpi/pmi2: value not properly terminated in client request", "mpi/pmi2: request not begin with 'cmd='")
SLURM_PMI1_CUT_CAUSE = ("SLURM's pmi2 plugin could not parse a PMI request during MPI_Init, most likely a line over the "
                        "1,024 bytes it reads at once (the pip wheel's MPICH sends such lines); build the kernels with "
                        "an MPI built with SLURM's PMI (--mpicc; docs/cluster.md)")


def explain_failure(output: str) -> str:
    """The one line that says why the job failed: the kernels' own message, else a known fault
    of SLURM's PMI, else the launcher's account of a rank that died, else the cause the launcher
    reported (an unresolvable host, a program it cannot execute...), else the last line of output."""
    lines = [l.strip() for l in output.splitlines() if l.strip()]
    for line in reversed(lines):
        if line.startswith("msgperf-kernels:"):
            return line[len("msgperf-kernels:"):].strip()
    if any(fault in output for fault in _SLURM_PMI1_CUT):
        return SLURM_PMI1_CUT_CAUSE
    died = _OMPI_DIED.search(output)
    if died:
        rank, pid, host, _, name = died.groups()
        return f"rank {rank} died ({name}; pid {pid} on {host})"
    exit_string, pid = _HYDRA_EXIT.search(output), _HYDRA_PID.search(output)
    if exit_string:
        where = f"; pid {pid.group(1)} on {pid.group(2)}" if pid else ""
        return f"a rank died ({exit_string.group(1).strip()}{where})"
    cause = launcher_cause(lines)
    if cause:
        return cause
    if len(lines) > 1 and all(_HYDRA_FRAME.match(l) for l in lines):
        # only Hydra's call chain: its first frame is the cause ("duplicate setting: n"), the
        # last only says that it failed ("error parsing parameters")
        return f"{_HYDRA_FRAME.sub('', lines[0])} ({_HYDRA_FRAME.sub('', lines[-1])})"
    return _HYDRA_FRAME.sub("", lines[-1]) if lines else "no output"


def execute(argv: list[str], run_file: Path, *, expected: list[tuple[str, int, str]],
            env: Mapping[str, str] | None = None, stall_timeout_s: float = 120.0,
            on_record: Callable[[dict], None] | None = None, log_dir: Path | None = None,
            resumable: bool = True) -> None:
    """Run ``argv`` to completion, calling ``on_record`` for each record the kernels write.

    ``expected`` lists the (pattern, size, participating ranks) of each record in the order the
    kernels write them, so a failure can say where it happened. Raises
    LaunchError when the job fails or makes no progress for ``stall_timeout_s``, or when
    Ctrl-C (exit 130), SIGTERM or SIGHUP (``Terminated``, exit 128 + the signal) stops it; the
    run file keeps every record finished before that. The launcher's output goes to a log in ``log_dir`` (the
    temporary directory): removed when the launch succeeds or is interrupted, kept and named in
    the message when it fails. ``resumable``: the launch measures planned sizes (a sweep's), which
    ``msgperf run --resume`` measures again; a launch added after them (the probe, the answer's,
    a refinement) is not, and the message says so (a tester was told to --resume, which then had
    nothing to do).
    """
    offset = start_offset = run_file.stat().st_size if run_file.exists() else 0
    # The launcher's output goes to the temporary directory, not beside the run file: when the
    # run file's disk is full, this is where the kernels' explanation must still land.
    log_dir = Path(log_dir) if log_dir is not None else Path(tempfile.gettempdir())
    clean_old_logs(log_dir)
    try:
        log_fd, log_name = tempfile.mkstemp(prefix=LOG_PREFIX, suffix=LOG_SUFFIX, dir=log_dir)
    except OSError as exc:
        raise LaunchError(f"cannot create the launch log in {log_dir} ({exc.strerror}); "
                          "free space there or set TMPDIR to a writable directory") from None
    os.close(log_fd)
    log_path = Path(log_name)
    remove_dead_jobs_segments()  # a killed msgperf could not clean after its job
    segments_before = segments()
    try:
        _run(argv, run_file, expected, env, stall_timeout_s, on_record, log_path, offset, start_offset, resumable)
    except BaseException:
        remove_leftovers(segments_before)  # a job that did not finish left its shared memory
        raise


def _run(argv: list[str], run_file: Path, expected: list[tuple[str, int, str]], env: Mapping[str, str] | None,
         stall_timeout_s: float, on_record: Callable[[dict], None] | None, log_path: Path, offset: int,
         start_offset: int, resumable: bool) -> None:
    """``execute`` once its log exists: start the job, follow the run file, explain a failure."""
    done = 0

    def where() -> str:
        if done < len(expected):
            pattern, size, who = expected[done]
            return f"while measuring {pattern} {size} B ({who})"
        return "after the last measurement"

    def kept() -> str:
        return (f"{done} finished measurement(s) of this launch are kept in {run_file}; "
                + (f"continue with: msgperf run --resume {run_file}" if resumable else
                   "every planned measurement was done before it, so a --resume has nothing to measure: "
                   "msgperf run again measures what this launch would have added"))

    with log_path.open("w+") as log:
        try:
            proc = children.start(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                  env=dict(env) if env is not None else None)
        except OSError as exc:
            log_path.unlink(missing_ok=True)
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
                    children.stop(proc)
                    drain()
                    raise LaunchError(f"hung: no progress for {stall_timeout_s:g} s {where()}; "
                                      f"the job was stopped; {kept()} [launcher output: {log_path}]")
                time.sleep(POLL_SECONDS)
        except (KeyboardInterrupt, Terminated) as stop:
            children.stop(proc)
            drain()
            log_path.unlink(missing_ok=True)  # the user stopped it: the launcher has nothing to say
            if isinstance(stop, Terminated):
                raise LaunchError(f"terminated ({stop_name(stop)}) {where()}; {kept()}",
                                  exit_code=stop_exit_code(stop)) from None
            raise LaunchError(f"interrupted {where()}; {kept()}", exit_code=130) from None
        log.seek(0)
        output = log.read()
    if proc.returncode == 0:
        log_path.unlink(missing_ok=True)
        return
    logged = f"[launcher output: {log_path}]"
    if proc.returncode == 4:
        raise LaunchError(f"payload validation failed: {explain_failure(output)} {logged}")
    if offset == start_offset:
        if any(l.strip().startswith("msgperf-kernels:") for l in output.splitlines()):
            raise LaunchError(f"the kernels stopped before measuring (exit {proc.returncode}): "
                              f"{explain_failure(output)} {logged}")
        raise LaunchError(f"{argv[0]} could not start the ranks (exit {proc.returncode}): {explain_failure(output)}; "
                          f"check the launcher and the MPI {logged}")
    raise LaunchError(f"the MPI job failed {where()}: {explain_failure(output)}; {kept()} {logged}")

