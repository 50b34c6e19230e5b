"""Shared-memory segments that a job which did not finish leaves in /dev/shm.

MPICH's ranks share a node's memory through files in /dev/shm (``mpich_shm_*``, about 2 MiB for
two ranks) and unlink them in MPI_Finalize; Open MPI's shared-memory transport does the same with
``vader_segment.*`` / ``sm_segment.*``. A job that is killed (the watchdog, Ctrl-C, a rank that
dies) never finalizes, and its segments stay until reboot. A handful of hung launches fill a
container's 64 MiB /dev/shm, and the next MPI_Init on that node fails with "Out of memory".

After a launch that did not end cleanly msgperf removes, on this node only, the segments that
appeared while it ran, belong to this user and that no live process maps: another job's
segments are either older than the launch or still mapped by its ranks.
"""

from __future__ import annotations

import os
from pathlib import Path

SHM_DIR = Path("/dev/shm")
PREFIXES = ("mpich_shm_", "vader_segment.", "sm_segment.")


def segments(shm_dir: Path = SHM_DIR) -> set[str]:
    """Names of this user's MPI shared-memory segments now in ``shm_dir``."""
    try:
        entries = list(os.scandir(shm_dir))
    except OSError:
        return set()
    uid = os.getuid()
    found = set()
    for entry in entries:
        if not entry.name.startswith(PREFIXES):
            continue
        try:
            if entry.stat(follow_symlinks=False).st_uid == uid and entry.is_file(follow_symlinks=False):
                found.add(entry.name)
        except OSError:
            continue
    return found


def mapped_paths(proc: Path = Path("/proc")) -> set[str]:
    """Every file path that a process this user can read maps (from /proc/PID/maps)."""
    paths = set()
    for pid in proc.iterdir() if proc.is_dir() else ():
        if not pid.name.isdigit():
            continue
        try:
            text = (pid / "maps").read_text(errors="replace")
        except OSError:  # gone, or another user's
            continue
        for line in text.splitlines():
            slash = line.find("/")
            if slash >= 0:
                paths.add(line[slash:].removesuffix(" (deleted)"))
    return paths


def remove_leftovers(before: set[str], shm_dir: Path = SHM_DIR) -> list[str]:
    """Remove the segments that are new since ``before`` and mapped by no process; return their names."""
    new = segments(shm_dir) - before
    if not new:
        return []
    in_use = mapped_paths()
    removed = []
    for name in sorted(new):
        if str(shm_dir / name) in in_use:
            continue
        try:
            (shm_dir / name).unlink()
            removed.append(name)
        except OSError:
            continue
    return removed
