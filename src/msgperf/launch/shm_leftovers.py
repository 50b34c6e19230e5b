"""Shared-memory segments that a job which did not finish leaves in /dev/shm.

MPICH's ranks share a node's memory through files in /dev/shm (``mpich_shm_*``, about 2 MiB for
two ranks, and ``mpich_shar_tmp*``) and unlink them in MPI_Finalize or once every rank has attached; Open MPI's shared-memory transport does the same with
``vader_segment.*`` / ``sm_segment.*``. A job that is killed (the watchdog, Ctrl-C, a rank that
dies) never finalizes, and its segments stay until reboot. A handful of hung launches fill a
container's 64 MiB /dev/shm, and the next MPI_Init on that node fails with "Out of memory".

After a launch that did not end cleanly msgperf removes, on this node only, the segments that
appeared while it ran, belong to this user and that no live process maps or holds open. A
msgperf killed with ``kill -9`` runs nothing afterwards, so each launch first removes every
segment of this user that no live process uses, whenever it appeared: those of dead jobs. A
live job's segments are always mapped by its ranks (a rank holds a segment open from creating
it until it has mapped it), so they are kept; where that cannot be told (a process of this
user whose /proc entries cannot be read), every segment is kept.
"""

from __future__ import annotations

import os
from pathlib import Path

SHM_DIR = Path("/dev/shm")
# MPICH's ch4 shared memory, MPL's shared segments (MPL_shm_seg_create_attach: created from
# mkstemp("/dev/shm/mpich_shar_tmpXXXXXX"), unlinked once every rank has attached, so a job killed
# in between leaves one), Open MPI's vader and sm transports.
PREFIXES = ("mpich_shm_", "mpich_shar_tmp", "vader_segment.", "sm_segment.")


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


class CannotTell(Exception):
    """A live process of this user whose maps or open files cannot be read."""


FileId = tuple[int, int]  # (st_dev, st_ino): a file, whatever path a process reaches it by


def _files_of(pid: Path) -> set[FileId]:
    """The files ``pid`` has open, then the files it maps, by device and inode (a path would
    differ in another mount namespace, or through a link to /dev/shm). In this order: a
    process that creates a segment holds it open until it has mapped it, so reading the open
    files first cannot miss a segment being created between the two reads."""
    files = set()
    for fd in os.scandir(pid / "fd"):
        try:
            if os.readlink(fd.path).startswith("/"):  # not a socket, pipe or anonymous inode
                st = os.stat(fd.path)
                files.add((st.st_dev, st.st_ino))
        except OSError:
            continue  # closed meanwhile
    for line in (pid / "maps").read_text(errors="replace").splitlines():
        fields = line.split(maxsplit=5)  # address perms offset dev inode [path]
        if len(fields) >= 5 and fields[4] != "0":
            major, _, minor = fields[3].partition(":")
            files.add((os.makedev(int(major, 16), int(minor, 16)), int(fields[4])))
    return files


def _status(pid: Path) -> tuple[int, int]:
    """(real uid, effective capabilities) of a process, from its world-readable status."""
    uid = caps = -1
    for line in (pid / "status").read_text(errors="replace").splitlines():
        if line.startswith("Uid:"):
            uid = int(line.split()[1])
        elif line.startswith("CapEff:"):
            caps = int(line.split()[1], 16)
    return uid, caps


def files_in_use(proc: Path = Path("/proc")) -> tuple[set[FileId], bool]:
    """Every file a live process has open or maps, and whether a process of another user
    could not be read (it may use a segment that gives other users access).

    A process of this user that cannot be read raises ``CannotTell``, unless it holds
    capabilities msgperf lacks: then its privilege explains it (the system's init, a daemon),
    and an MPI rank of this user's jobs runs with the user's own privileges."""
    files: set[FileId] = set()
    foreign_unread = False
    uid = os.getuid()
    own_caps = _status(proc / "self")[1] if (proc / "self").exists() else 0
    for pid in proc.iterdir() if proc.is_dir() else ():
        if not pid.name.isdigit():
            continue
        try:
            files |= _files_of(pid)
        except FileNotFoundError:
            continue  # it ended meanwhile
        except OSError:
            try:
                owner, caps = _status(pid)
            except (OSError, ValueError):
                continue  # it ended meanwhile
            if owner != uid:
                foreign_unread = True
            elif caps & ~own_caps == 0:
                raise CannotTell(f"cannot read the open files of process {pid.name}") from None
    return files, foreign_unread


def remove_unused(names: set[str], shm_dir: Path = SHM_DIR, proc: Path = Path("/proc")) -> list[str]:
    """Remove the segments ``names`` in ``shm_dir`` that no live process has open or maps;
    returns their names. When that cannot be told, a segment is kept: every one, if a process
    of this user cannot be read; one that other users may open, if one of theirs cannot."""
    if not names:
        return []
    try:
        in_use, foreign_unread = files_in_use(proc)
    except CannotTell:
        return []
    removed = []
    for name in sorted(names):
        path = shm_dir / name
        try:
            st = path.lstat()
            if (st.st_dev, st.st_ino) in in_use or (foreign_unread and st.st_mode & 0o077):
                continue
            path.unlink()
            removed.append(name)
        except OSError:
            continue
    return removed


def remove_leftovers(before: set[str], shm_dir: Path = SHM_DIR) -> list[str]:
    """Remove the segments that are new since ``before`` and used by no process; return their names."""
    return remove_unused(segments(shm_dir) - before, shm_dir)


def remove_dead_jobs_segments(shm_dir: Path = SHM_DIR) -> list[str]:
    """Before a launch: remove this user's segments that no live process uses, whenever they
    appeared. A job whose msgperf was killed (``kill -9``: nothing of msgperf ran after it)
    left them; a live job's ranks map theirs, so they are kept."""
    return remove_unused(segments(shm_dir), shm_dir)
