"""The one writing module: every file msgperf writes whole, and the guard that says whether a
file a user named may be replaced.

Writers of a user's file (report, plot, export, batch script) ask ``output(path, force, what=...)``
for an ``Output``: the guard's check is made then, and again just before the new file is renamed
into place; ``Output.text()`` / ``Output.temporary()`` write it. msgperf's own files (a run file it
assembles, a merged profile it claimed, the kernels' build cache) use ``atomic_write`` /
``atomic_path`` directly; ``msgperf run -o`` has its own guard (launch/run_file_guard.py).

Writing whole: every file (reports, plots, exports, scripts, run files msgperf assembles) is
written to a temporary name beside its target and renamed over it, so a full disk or a crash
never leaves a half-written file or destroys the previous one.

The rename acts on the file, not on the name given: a symbolic link is followed and its target
written (the link stays), and nothing but a regular file is ever replaced, whatever the caller
decided: a device, a FIFO, a directory or an open file descriptor (``/dev/stdout``, a link into
``/proc``) is refused. A caller that checked what may be replaced (the guard below) passes
``recheck``: the new file is then published without replacing anything (a hard link, which
fails when a file appeared meanwhile), and only a file the check allows, looked at again at
that moment, is replaced.

The guard: whether a file msgperf derives (a report, a plot, an export, a batch script) may be
written where a file already exists.

- A file that holds measurements (a msgperf run file, a profile, an SQLite database, msgperf's
  JSON or CSV export of samples; Parquet is not looked into) is never
  replaced by a derived file, not even with ``--force``: it may be the only copy of a measurement.
- Anything else that exists is replaced only with ``--force``, except msgperf's own earlier
  output of the same kind: a report msgperf wrote (recognised by the mark in its head), the
  batch script at the name msgperf chose itself (``msgperf-slurm.sh``): writing that again is
  the point of running the command again.
- Nothing but a regular file is replaced, not even with ``--force``: not a device, a FIFO, a
  link to one, nor ``/dev/stdout`` (a link to an open file descriptor); a link to a regular file
  is followed and its target written (above).
- The check is made again just before the new file is renamed into place, so a file that
  appeared while msgperf wrote is not replaced unless it may be.

``msgperf run -o``'s guard (launch/run_file_guard.py) may replace a run file with ``--force``,
because it writes one.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import stat
import tempfile
from pathlib import Path
from typing import Callable, Iterator, TextIO

from msgperf.errors import MsgperfError
from msgperf.values import Value

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
    just before the rename may be replaced (``check_replace`` returns one)."""
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


# ---- the guard ----------------------------------------------------------------------------
# The first line of a run file or a profile is a few KB; a longer one is neither.
_FIRST_LINE_LIMIT = 1 << 20
# how a msgperf JSON export begins (records/export_json.py reads it by the same pattern)
EXPORT_HEAD = r'\A\s*\{\s*"format"\s*:\s*"msgperf-export"'
_EXPORT_HEAD = re.compile(EXPORT_HEAD.encode())
_SQLITE_HEADER = b"SQLite format 3\x00"

# In the head of every report msgperf writes (present/report.py): what makes it msgperf's own.
REPORT_MARK = "<meta name='generator' content='msgperf'>"
# Reports written before the mark carry only the line that says when they were generated
# (present/templates/report.html still writes it).
STAMPED = re.compile(r"<p class='sub'>generated by msgperf \d{4}-\d\d-\d\d \d\d:\d\d UTC")
# The mark is in the head; the old stamp follows the title, the style sheet and the script.
_REPORT_HEAD_BYTES = 256 * 1024


def measurements_in(path: Path) -> str | None:
    """What measurements ``path`` holds ("a msgperf run file", "a msgperf profile", "an SQLite
    database"), or None. Reads the first record's line only, so a large file is never read whole."""
    try:
        with path.open("rb") as f:
            first = f.readline(_FIRST_LINE_LIMIT)
            for _ in range(100):  # the reader skips blank lines before the first record; so does this
                if first.strip() or not first:
                    break
                first = f.readline(_FIRST_LINE_LIMIT)
    except OSError:
        return None
    if first.startswith(_SQLITE_HEADER):
        return "an SQLite database"
    # msgperf's exports carry the raw samples: the JSON one is a run msgperf reads back (show,
    # import), and either may be the only copy left of a run
    if _EXPORT_HEAD.match(first):
        return "a msgperf export of a run"
    if (first.startswith(b"run_id,") and b",sample_s," in first) or first.startswith(b"measurement,sample,sample_s,"):
        return "a msgperf export of samples"  # wide, or tidy's samples
    if first.startswith(b"run_id,") and first.rstrip(b"\r\n").endswith(b",n_samples"):
        return "a msgperf export of measurements"  # tidy's second table: what its samples are of
    try:
        kind = json.loads(first).get("type")
    except (ValueError, AttributeError, RecursionError):
        return None
    return {"run": "a msgperf run file", "profile": "a msgperf profile"}.get(kind)


def is_msgperf_report(path: Path) -> bool:
    """Whether ``path`` is a report msgperf wrote: an HTML file whose head carries msgperf's
    generator mark (``REPORT_MARK``), or, in reports written before the mark, the line
    "generated by msgperf <date>"."""
    try:
        with path.open("rb") as f:
            head = f.read(_REPORT_HEAD_BYTES).decode("utf-8", "replace")
    except OSError:
        return False
    return head.startswith("<!DOCTYPE html>") and (REPORT_MARK in head or STAMPED.search(head) is not None)


def check_replace(path: Path, force: bool, *, what: str, option: str = "-o",
                  ours: Callable[[Path], bool] | None = None, chosen: bool = False,
                  to_stdout: str | None = None) -> Callable[[Path], None]:
    """Raise a one-line MsgperfError unless ``what`` (e.g. "the report") may be written to
    ``path``. ``ours``: tells whether the file there is msgperf's own earlier output of this
    kind (replaced without ``--force``). ``chosen``: msgperf chose the name, not the user's
    ``option``. ``to_stdout``: how the command writes to standard output, said when ``path``
    is ``/dev/stdout`` or the like. Returns the check to make again just before the file is
    renamed into place (``atomic_path``'s ``recheck``): a file that appeared meanwhile
    is replaced only if it may be."""
    _check(path, force, what=what, option=option, ours=ours, chosen=chosen, to_stdout=to_stdout, meanwhile=False)
    return lambda _: _check(path, force, what=what, option=option, ours=ours, chosen=chosen, to_stdout=to_stdout,
                            meanwhile=True)


def _check(path: Path, force: bool, *, what: str, option: str, ours: Callable[[Path], bool] | None,
           chosen: bool, to_stdout: str | None, meanwhile: bool) -> None:
    fd_link = open_descriptor_link(path)
    if fd_link is not None:
        raise MsgperfError(f"{option} {path}: names an open file descriptor ({fd_link}), not a file; msgperf "
                           "never writes through it, not even with --force; "
                           + (to_stdout or "choose a file name"))
    if not path.exists() and not path.is_symlink():
        return
    if path.is_dir():
        raise MsgperfError(f"{option} {path}: is a directory; give a file name")
    if not path.is_file():
        raise MsgperfError(f"{option} {path}: exists and is not a regular file (a pipe, device or broken link); "
                           "msgperf never replaces it, not even with --force; choose another name")
    held = measurements_in(path)
    if held is not None:
        raise MsgperfError(f"{option} {path}: the file exists and is {held}; msgperf never replaces measurements "
                           f"with {what} (not even with --force); choose another name")
    if force or (ours is not None and ours(path)):
        return
    if meanwhile:
        raise MsgperfError(f"{option} {path}: a file appeared there while msgperf wrote {what}; it was not "
                           "replaced; choose another name, or pass --force to replace it")
    if ours is not None and chosen:
        raise MsgperfError(f"{path}: the file exists and is not msgperf's {what.removeprefix('the ')}; "
                           f"name another with {option} FILE, or pass --force to replace it")
    if ours is not None:
        raise MsgperfError(f"{option} {path}: the file exists and is not msgperf's {what.removeprefix('the ')}; "
                           "choose another name, or pass --force to replace it")
    raise MsgperfError(f"{option} {path}: the file exists; choose another name, or pass --force to replace it")


# ---- the face for a user's file ------------------------------------------------------------


class Output(Value):
    """A file a user named that the guard let msgperf write (``output``)."""
    path: Path
    recheck: Callable[[Path], None]

    def text(self, mode: int = 0o666, parents: bool = False) -> contextlib.AbstractContextManager[TextIO]:
        """The file as UTF-8 text, written whole (``atomic_write``), the guard checked again."""
        return atomic_write(self.path, mode, parents, recheck=self.recheck)

    def temporary(self, parents: bool = False) -> contextlib.AbstractContextManager[Path]:
        """A temporary path to write to, renamed to the file when complete (``atomic_path``)."""
        return atomic_path(self.path, parents=parents, recheck=self.recheck)


def output(path: str | Path, force: bool, *, what: str, option: str = "-o",
           ours: Callable[[Path], bool] | None = None, chosen: bool = False,
           to_stdout: str | None = None) -> Output:
    """``path`` checked for ``what`` (``check_replace``: raises a one-line MsgperfError unless it
    may be written), to be written through the returned ``Output``."""
    path = Path(path)
    return Output(path, check_replace(path, force, what=what, option=option, ours=ours, chosen=chosen,
                                      to_stdout=to_stdout))
