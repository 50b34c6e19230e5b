"""Every file msgperf writes whole (reports, plots, exports, scripts, run files it assembles)
is written to a temporary name beside its target and renamed over it, so a full disk or a crash
never leaves a half-written file or destroys the previous one.

The rename acts on the file, not on the name given: a symbolic link is followed and its target
written (the link stays), and nothing but a regular file is ever replaced, whatever the caller
decided: a device, a FIFO, a directory or an open file descriptor (``/dev/stdout``, a link into
``/proc``) is refused. A caller that checked what may be replaced (output_guard.py) passes
``recheck``: the new file is then published without replacing anything (a hard link, which
fails when a file appeared meanwhile), and only a file the check allows, looked at again at
that moment, is replaced."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path
from typing import Callable, Iterator, TextIO

from msgperf.errors import MsgperfError

# More links than this in one chain is a loop (Linux's own limit is 40).
_MAX_LINKS = 40


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def open_descriptor_link(path: str | Path) -> str | None:
    """The link into ``/proc`` that ``path`` goes through (``/dev/stdout`` -> ``/proc/self/fd/1``),
    or None: such a link names whatever a process has open (a terminal, a pipe, a file opened
    for appending), not a file msgperf may replace."""
    hop = Path(os.path.abspath(path))
    for _ in range(_MAX_LINKS):
        for name in (hop, Path(os.path.realpath(hop.parent)) / hop.name):
            if name.parts[:2] == ("/", "proc"):
                return str(name)
        if not hop.is_symlink():
            return None
        try:
            hop = Path(os.path.abspath(hop.parent / os.readlink(hop)))
        except OSError:
            return None
    return None


def written_path(path: str | Path) -> Path:
    """The file msgperf writes for ``path``: the link's target when ``path`` is a symbolic link
    (the link is kept), else ``path``. Raises MsgperfError when that is not a regular file (or
    not yet a file)."""
    given = Path(path)
    fd_link = open_descriptor_link(given)
    if fd_link is not None:
        raise MsgperfError(f"{given}: names an open file descriptor ({fd_link}), not a file; msgperf writes "
                           "regular files only; choose a file name")
    target = Path(os.path.realpath(given)) if given.is_symlink() else given
    try:
        mode = target.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):  # not yet a file (its directory may be made)
        return target
    except OSError as exc:
        raise MsgperfError(f"{given}: cannot look at it ({exc.strerror})") from None
    if stat.S_ISDIR(mode):
        raise MsgperfError(f"{given}: is a directory; give a file name")
    if not stat.S_ISREG(mode):
        raise MsgperfError(f"{given}: exists and is not a regular file (a pipe, device or socket); msgperf never "
                           "replaces it, not even with --force; choose another name")
    return target


def _publish(temporary: Path, target: Path, given: Path, recheck: Callable[[Path], None] | None) -> None:
    """Rename ``temporary`` to ``target``: over whatever regular file is there when ``recheck``
    is None, else without replacing anything the check, made again now, refuses."""
    if recheck is not None:
        try:
            os.link(temporary, target)  # fails, replacing nothing, when a file appeared meanwhile
        except FileExistsError:
            pass
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.ENOSYS):
                raise
            # a file system without hard links: the check again, then the rename
        else:
            temporary.unlink()
            return
        if target.exists() or target.is_symlink():
            recheck(given)
    written_path(target)  # never a device, FIFO or directory that took the name meanwhile
    os.replace(temporary, target)


@contextlib.contextmanager
def atomic_path(path: str | Path, mode: int = 0o666, parents: bool = False, *,
                recheck: Callable[[Path], None] | None = None) -> Iterator[Path]:
    """A temporary path beside the file ``path`` names (written_path); renamed to it when the
    block ends without an exception, removed otherwise. ``parents``: create the missing
    directories first. ``recheck(path)``: raises MsgperfError unless a file found at ``path``
    just before the rename may be replaced (output_guard.check_replace returns one)."""
    given = Path(path)
    target = written_path(given)
    if parents and not target.parent.is_dir():
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise MsgperfError(f"{given}: cannot create {target.parent} ({exc.strerror}); "
                               "choose a writable directory") from None
    if not target.parent.is_dir():
        raise MsgperfError(f"{target.parent}: no such directory")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise MsgperfError(f"{given}: cannot write here ({exc.strerror})") from None
    os.close(fd)
    temporary = Path(tmp)
    try:
        os.chmod(temporary, mode & ~_umask())
        yield temporary
        _publish(temporary, target, given, recheck)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise MsgperfError(f"{given}: cannot write it ({exc.strerror}); nothing was changed") from None
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def atomic_write(path: str | Path, mode: int = 0o666, parents: bool = False, *,
                 recheck: Callable[[Path], None] | None = None) -> Iterator[TextIO]:
    """A text file (UTF-8) written to a temporary name and renamed to ``path`` when complete."""
    with atomic_path(path, mode, parents, recheck=recheck) as temporary:
        with temporary.open("w", encoding="utf-8", newline="") as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
