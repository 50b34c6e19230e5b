"""Every file msgperf writes whole (reports, plots, exports, scripts, run files it assembles)
is written to a temporary name beside its target and renamed over it, so a full disk or a crash
never leaves a half-written file or destroys the previous one."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Iterator, TextIO

from msgperf.errors import MsgperfError


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_path(path: str | Path, mode: int = 0o666, parents: bool = False) -> Iterator[Path]:
    """A temporary path beside ``path``; renamed to ``path`` when the block ends without an
    exception, removed otherwise. ``parents``: create the missing directories first."""
    target = Path(path)
    if target.is_dir():
        raise MsgperfError(f"{target}: is a directory; give a file name")
    if parents and not target.parent.is_dir():
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise MsgperfError(f"{target}: cannot create {target.parent} ({exc.strerror}); "
                               "choose a writable directory") from None
    if not target.parent.is_dir():
        raise MsgperfError(f"{target.parent}: no such directory")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise MsgperfError(f"{target}: cannot write here ({exc.strerror})") from None
    os.close(fd)
    temporary = Path(tmp)
    try:
        os.chmod(temporary, mode & ~_umask())
        yield temporary
        os.replace(temporary, target)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise MsgperfError(f"{target}: cannot write it ({exc.strerror}); nothing was changed") from None
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def atomic_write(path: str | Path, mode: int = 0o666, parents: bool = False) -> Iterator[TextIO]:
    """A text file (UTF-8) written to a temporary name and renamed to ``path`` when complete."""
    with atomic_path(path, mode, parents) as temporary:
        with temporary.open("w", encoding="utf-8", newline="") as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
