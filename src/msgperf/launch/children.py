"""Every job msgperf starts dies with it: SIGTERM, SIGINT, SIGHUP or a kill of msgperf.

One mechanism for ``msgperf run`` (the kernels) and ``msgperf profile`` (the user's program):

- ``start`` puts the launcher in a session of its own (Ctrl-C at the terminal reaches msgperf
  only, which stops the job itself) and asks Linux to send it SIGTERM when msgperf dies
  (``PR_SET_PDEATHSIG``), even by ``kill -9``. SIGTERM, not SIGKILL: MPICH's Hydra and Open
  MPI's mpirun forward it to the ranks and clean up, so a profiled rank still writes what it
  recorded; a launcher that a SIGKILL takes leaves that to its proxies, which kill the ranks
  without a word. PDEATHSIG reaches the direct child only: the ranks are the launcher's to stop
  (Hydra puts its proxy and every rank in sessions of their own, out of reach of the group).
- ``stop`` sends SIGTERM to the ranks (the leaves of the launcher's process tree, noted
  before the first signal) while the launcher is held, then to the launcher's group, waits
  for its orderly end, then kills whatever of the tree is still alive.
- ``stop_signals`` turns SIGTERM and SIGHUP (what ``timeout``, schedulers and a closed
  terminal send) into ``Terminated`` in msgperf, as Python turns SIGINT into KeyboardInterrupt,
  so the command can stop its job, keep what it measured and exit with 128 + the signal.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

PR_SET_PDEATHSIG = 1
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
GRACE_S = 3.0  # for the launcher's own cleanup (Hydra: well under a second for a few ranks)
HOLD_S = 2.0  # the longest the launcher is held while its ranks end (a killed msgperf would leave it stopped)
SELF_END_S = 1.0  # for a launcher whose ranks have ended to end by itself


class Terminated(BaseException):
    """SIGTERM or SIGHUP reached msgperf while it held a job (raised by ``stop_signals``)."""

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__(signum)
        self.signum = int(signum)

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


def stop_name(stop: BaseException) -> str:
    """SIGINT for Ctrl-C, the signal's name for ``Terminated``."""
    return stop.name if isinstance(stop, Terminated) else "SIGINT"


def stop_exit_code(stop: BaseException) -> int:
    return stop.exit_code if isinstance(stop, Terminated) else 128 + signal.SIGINT


def _prctl():
    """libc's prctl, looked up in msgperf (not in the child: between fork and exec only
    what needs no lock may run, and a lookup may take the loader's), or None off Linux."""
    try:
        import ctypes
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def _dies_with(parent: int, prctl):
    def in_the_child() -> None:
        os.setsid()
        if prctl is None:
            return  # stop() and stop_signals still cover every stop but kill -9
        prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        if os.getppid() != parent:  # msgperf died before the request took effect
            os.kill(os.getpid(), signal.SIGTERM)
    return in_the_child


def start(argv: list[str], **popen: Any) -> subprocess.Popen:
    """``subprocess.Popen(argv, **popen)`` in a session of its own that dies with msgperf."""
    return subprocess.Popen(argv, preexec_fn=_dies_with(os.getpid(), _prctl()), **popen)


def _stat(pid: int, proc: Path = Path("/proc")) -> list[str] | None:
    """/proc/PID/stat's fields after the command name: state, ppid, ... (None: gone)."""
    try:
        stat = (proc / str(pid) / "stat").read_text()
    except OSError:
        return None
    return stat[stat.rfind(")") + 2:].split()


def descendants(root: int, proc: Path = Path("/proc")) -> dict[int, tuple[int, str]]:
    """Every live process below ``root`` (its children, theirs...): pid -> (ppid, start time;
    the start time tells a process from a later one given the same pid)."""
    children: dict[int, list[int]] = {}
    for entry in proc.iterdir() if proc.is_dir() else ():
        fields = _stat(int(entry.name), proc) if entry.name.isdigit() else None
        if fields:
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found: dict[int, tuple[int, str]] = {}
    todo = [(root, pid) for pid in children.get(root, ())]
    while todo:
        parent, pid = todo.pop()
        fields = _stat(pid, proc)
        if fields:
            found[pid] = (parent, fields[19])
            todo.extend((pid, child) for child in children.get(pid, ()))
    return found


def _alive(tree: dict[int, tuple[int, str]], pids) -> list[int]:
    """Those of ``pids`` still running (not the zombie of a dead one, not a new process)."""
    alive = []
    for pid in pids:
        fields = _stat(pid)
        if fields and fields[19] == tree[pid][1] and fields[0] not in ("Z", "X"):
            alive.append(pid)
    return alive


def _signal(pids, sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, sig)


def _wait_until_gone(tree: dict[int, tuple[int, str]], pids, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while _alive(tree, pids) and time.monotonic() < deadline:
        time.sleep(0.01)


def stop(proc: subprocess.Popen, grace_s: float = GRACE_S) -> None:
    """Stop a job ``start`` started, with every process of its tree.

    The ranks (the tree's leaves) get SIGTERM first while the launcher and its proxies are
    held (SIGSTOP): a launcher that sees one rank die kills the others at once with SIGKILL,
    before they could write what they recorded (the profiler does, on SIGTERM). A launcher
    whose ranks have ended ends by itself; otherwise it gets SIGTERM and ``grace_s`` for its
    own cleanup; whatever of the tree is still alive after that gets SIGTERM, then SIGKILL."""
    tree = descendants(proc.pid)
    parents = {parent for parent, _ in tree.values()}
    leaves = [pid for pid in tree if pid not in parents]
    held = [proc.pid, *(pid for pid in tree if pid in parents)]
    ended = False
    if leaves:
        _signal(held, signal.SIGSTOP)
        try:
            _signal(leaves, signal.SIGTERM)
            _wait_until_gone(tree, leaves, min(grace_s, HOLD_S))
        finally:
            _signal(held, signal.SIGCONT)
        try:  # a launcher whose ranks are gone ends by itself (a SIGTERM then races its cleanup)
            proc.wait(timeout=min(grace_s, SELF_END_S))
            ended = True
        except subprocess.TimeoutExpired:
            pass
    if not ended:
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    for sig in (signal.SIGTERM, signal.SIGKILL):
        left = _alive(tree, tree)
        if not left:
            return
        _signal(left, sig)
        _wait_until_gone(tree, left, 1.0)


@contextlib.contextmanager
def stop_signals() -> Iterator[None]:
    """While in effect, SIGTERM and SIGHUP raise ``Terminated`` in msgperf's main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def _raise(signum: int, frame: Any) -> None:
        raise Terminated(signum)

    previous = {sig: signal.signal(sig, _raise) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
