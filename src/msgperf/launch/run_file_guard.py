"""Guarding the run file: claiming a new one, refusing to destroy an existing one, and one
msgperf at a time per run file.

- ``default_output``: ``runs/<time>-<patterns>.jsonl``, claimed with an exclusive create, so two
  runs started in the same second never share a file.
- ``check_output`` and ``claim_output``: ``-o FILE`` that exists is refused unless ``--force``,
  and never replaced at all when it is not a msgperf run file (a result database, a report,
  anything else); a new one is created by msgperf with an exclusive create.
- ``RunFileLock``: an exclusive ``flock`` on the run file itself (its inode, so a symbolic or a
  hard link to it is the same file) and on a lock file beside the file a link resolves to,
  holding the holder's pid, taken by every run and resume that writes the file, so a second
  ``--resume`` of the same file fails at once instead of measuring the same sizes at the same
  time.
"""

from __future__ import annotations

import datetime as dt
import errno
import fcntl
import json
import os
from pathlib import Path

from msgperf.errors import MsgperfError
from msgperf.records.format import RecordError, RunInfo, decode_run

# A run record is a few KB (plan, command line); a first line longer than this is not one.
HEADER_LIMIT = 1 << 20


def check_output_directory(directory: Path) -> None:
    """The default run files' directory (or, while it does not exist, the directory it would be
    created in) is writable: checked before the build, so a read-only working directory fails
    at once, and nothing is created for a run that fails its checks."""
    existing = _nearest_existing(directory)
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise MsgperfError(f"cannot write the run file: {_name_dir(existing)} is not writable; run from a writable "
                           "directory or pass -o FILE")


def _nearest_existing(directory: Path) -> Path:
    """``directory``, or the ancestor it would be created in."""
    while not directory.exists() and directory != directory.parent:
        directory = directory.parent
    return directory


def _name_dir(directory: Path) -> str:
    return "the working directory" if directory == Path(".") else f"{directory}/"


def claim_new_file(base: Path) -> Path | None:
    """``<base>.jsonl``, else ``<base>-2.jsonl``, ...: the first free name, claimed with an
    exclusive create, so two msgperf started in the same second never share a file; None when
    10000 names are taken. Raises OSError when the directory cannot be made or written."""
    base.parent.mkdir(parents=True, exist_ok=True)
    for n in range(1, 10000):
        path = Path(f"{base}.jsonl") if n == 1 else Path(f"{base}-{n}.jsonl")
        try:
            path.open("x").close()
            return path
        except FileExistsError:
            continue
    return None


def default_output(patterns: tuple[str, ...], directory: Path = Path("runs")) -> Path:
    """runs/<time>-<patterns>.jsonl, claimed with an exclusive create."""
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    base = directory / f"{stamp}-{'+'.join(patterns)}"
    try:
        path = claim_new_file(base)
    except OSError as exc:
        raise MsgperfError(f"cannot create the run file in {directory}/ ({exc.strerror}); run from a writable "
                           "directory or pass -o FILE") from None
    if path is None:
        raise MsgperfError(f"cannot find a free run file name next to {base}; pass -o FILE")
    return path


def run_file_header(path: Path) -> RunInfo | None:
    """The run record of ``path`` if it is a msgperf run file, else None (reads its first line
    only, so a large database or binary is never read whole)."""
    try:
        with path.open("rb") as f:
            first = f.readline(HEADER_LIMIT)
    except OSError:
        return None
    try:
        obj = json.loads(first)
        if not isinstance(obj, dict) or obj.get("type") != "run":
            return None
        return decode_run(obj, str(path))
    except (ValueError, RecursionError, RecordError):
        return None


def check_output(path: Path, force: bool) -> bool:
    """Whether ``-o path`` may be written; True when it exists and will be replaced (--force on
    a run file or an empty file), False when it is new. Raises MsgperfError otherwise."""
    if path.is_dir():
        raise MsgperfError(f"-o {path}: is a directory; give a file name")
    if not path.exists() and not path.is_symlink():
        existing = _nearest_existing(path.parent)
        if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
            raise MsgperfError(f"-o {path}: {_name_dir(existing)} is not writable; choose a writable directory")
        return False
    if not path.is_file():  # a FIFO would block the header read below; a device is nobody's run file
        raise MsgperfError(f"-o {path}: exists and is not a regular file (a pipe, device or broken link); msgperf "
                           "never replaces it; choose another -o")
    empty = path.stat().st_size == 0
    if run_file_header(path) is None and not empty:
        raise MsgperfError(f"-o {path}: the file exists and is not a msgperf run file; msgperf never replaces it "
                           "(not even with --force); choose another -o")
    if not force and empty:
        raise MsgperfError(f"-o {path}: the file exists (empty); choose another -o, or pass --force to replace it")
    if not force:
        raise MsgperfError(f"-o {path}: the run file exists; continue it with --resume {path}, choose another -o, "
                           "or pass --force to replace it")
    return True


def claim_output(path: Path, force: bool) -> None:
    """Make ``-o path`` msgperf's (call it holding the run file's lock): a new file is created
    with an exclusive create, an existing run file that ``--force`` replaces is emptied. Either
    way the kernels are then told to ``--overwrite`` the empty file msgperf claimed."""
    try:
        path.open("x").close()
        return
    except FileExistsError:
        pass  # it appeared since it was checked: check it again
    except OSError as exc:
        raise MsgperfError(f"-o {path}: cannot create it ({exc.strerror}); choose a writable directory") from None
    if check_output(path, force):
        path.open("w").close()


def make_parent(path: Path) -> None:
    """Create the directory of ``-o path`` (and its parents) if needed."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise MsgperfError(f"-o {path}: cannot create {path.parent} ({exc.strerror}); choose a writable directory") from None


def lock_path_of(run_file: Path) -> Path:
    return run_file.with_name(f".{run_file.name}.lock")


class RunFileLock:
    """Context manager: hold the run file's lock (non-blocking; a held lock is an error naming
    its holder's pid). The lock file is removed on release.

    Two locks, both ``flock``: one on the run file itself, which is what two names of one file
    (a symbolic link, a hard link) share, and one on the lock file beside the file the name
    resolves to, which holds the pid for the message and exists before the run file does (a new
    run takes it, then claims the file, then calls ``lock_file``)."""

    def __init__(self, run_file: Path) -> None:
        self.run_file = run_file
        self.path = lock_path_of(Path(os.path.realpath(run_file)))
        self._fd: int | None = None
        self._file_fd: int | None = None

    def __enter__(self) -> "RunFileLock":
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            except OSError as exc:
                raise MsgperfError(f"cannot lock {self.run_file}: cannot create {self.path} ({exc.strerror}); "
                                   "msgperf writes the run file and its lock in that directory: make it writable "
                                   "or work on a copy elsewhere") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                holder = _read_pid(fd)
                os.close(fd)
                if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                    raise MsgperfError(f"cannot lock {self.run_file} ({exc.strerror})") from None
                who = f"pid {holder}" if holder else "another process"
                raise MsgperfError(f"{self.run_file} is in use by another msgperf ({who}); wait for it to finish "
                                   "or stop it, then try again") from None
            # The previous holder removes the lock file when it releases it: the lock taken must
            # be on the file that is at the path now, else take it again.
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        self._fd = fd
        if self.run_file.exists():
            self.lock_file()
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        return self

    def lock_file(self) -> None:
        """Lock the run file itself (once it exists): held by another msgperf that reached it by
        another name (a hard link), it is an error, and this lock is released."""
        if self._file_fd is not None:
            return
        try:
            fd = os.open(self.run_file, os.O_RDONLY | os.O_CLOEXEC)
        except OSError as exc:
            self.__exit__()
            raise MsgperfError(f"cannot lock {self.run_file} ({exc.strerror})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            self.__exit__()
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise MsgperfError(f"cannot lock {self.run_file} ({exc.strerror})") from None
            raise MsgperfError(f"{self.run_file} is in use by another msgperf (another process, through another "
                               "name of the same file); wait for it to finish or stop it, then try again") from None
        self._file_fd = fd

    def __exit__(self, *exc) -> None:
        if self._file_fd is not None:
            os.close(self._file_fd)
            self._file_fd = None
        if self._fd is None:
            return
        try:
            self.path.unlink()
        except OSError:
            pass
        os.close(self._fd)
        self._fd = None


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        return int(text) if text.isdigit() else None
    except OSError:
        return None
