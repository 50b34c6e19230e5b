"""What a stopped msgperf may leave behind, for the tests that stop one: the processes of its
job (by pid, noted before the stop) and the MPI shared-memory segments that appeared meanwhile
and that no live process uses (other people's live jobs use theirs)."""

from __future__ import annotations

import os
import signal
import time

from msgperf.launch.children import descendants
from msgperf.launch.shm_leftovers import SHM_DIR, files_in_use, segments


def job_of(pid: int) -> dict[int, tuple[int, str]]:
    """The processes below ``pid`` now: pid -> (ppid, start time)."""
    return descendants(pid)


def still_running(tree: dict[int, tuple[int, str]], timeout: float = 10.0) -> list[int]:
    """Those of ``tree`` still running after up to ``timeout`` s (the same process, not a
    zombie: a process given a reused pid does not count)."""
    deadline = time.monotonic() + timeout
    while True:
        alive = []
        for pid, (_, started) in tree.items():
            try:
                stat = open(f"/proc/{pid}/stat").read()
            except OSError:
                continue
            fields = stat[stat.rfind(")") + 2:].split()
            if fields[19] == started and fields[0] not in ("Z", "X"):
                alive.append(pid)
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.05)


def left_running(tree: dict[int, tuple[int, str]], timeout: float = 10.0) -> list[int]:
    """``still_running``, and those are killed, not to be left to the rest of the suite."""
    alive = still_running(tree, timeout)
    for pid in alive:
        os.kill(pid, signal.SIGKILL)
    return alive


def unused_new_segments(before: set[str]) -> set[str]:
    """Segments that appeared since ``before`` and that no live process maps or holds open."""
    new = segments() - before
    if not new:
        return set()
    in_use, _ = files_in_use()
    unused = set()
    for name in new:
        try:
            st = (SHM_DIR / name).lstat()
        except OSError:
            continue  # removed meanwhile
        if (st.st_dev, st.st_ino) not in in_use:
            unused.add(name)
    return unused
