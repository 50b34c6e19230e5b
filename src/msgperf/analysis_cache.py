"""Re-reading a run is fast: the analysis of a run is kept in the user's cache and reused only
while the content it was computed from, and the code that computed it, are verified unchanged.

An entry is keyed by what the result depends on and nothing else:
- the run: for a file, its real path and a SHA-256 of its bytes (any change to the content is a
  new key, whatever the file's times say); for a stored run, a SHA-256 of its records and
  samples as they are in the database now (store/db.py ``content_now``: a damaged sample is a
  new key, and the run is read, and its damage reported, anew);
- the analysis options (launch, tolerance, confidence);
- the code: a hash of msgperf's own sources that shape the result (analysis, records, the store that builds stored runs, the loader,
  units, this cache and its format), numpy's version and scipy's version file (read, not
  imported: importing scipy, or asking importlib.metadata, would cost more than the cache saves).

An entry holds the loaded run and its ``RunResult`` as plain data (plain_data.py: MessagePack
decoded against those types, a JSON header and raw number arrays in an ``.npz`` read without
pickle), so an entry cannot run code whoever wrote it.
It is used only when it is a regular file owned by this user in a directory of this user's that
no one else may write (made with mode 0700), and when it decodes, for this very key, into a
(Run, notes, RunResult); anything else is ignored and replaced. A run whose samples wait on disk
is not kept. Entries are written to a temporary file and renamed; a write that fails (full disk,
file-size limit) removes its temporary, and temporaries older than ``STALE_TMP_S`` (a killed
writer's) are removed at the next write. At most ``MAX_ENTRIES`` are kept (the least recently used are removed).
Entries live in ``cache_dir("analysis")`` (cache_dir.py: ``$MSGPERF_CACHE/analysis`` or
``$XDG_CACHE_HOME/msgperf/analysis``); ``MSGPERF_NO_CACHE=1`` turns the cache off. A write also
removes the older output-replay cache's directory when it is found (cache_dir.py). Only the
loader (loader.py, the one reading module) uses this cache.
"""

from __future__ import annotations

import functools
import hashlib
import os
import stat
import time
from pathlib import Path
from typing import Any

from msgperf import __version__
from msgperf.cache_dir import cache_dir, remove_old_output_cache

MAX_ENTRIES = 64
STALE_TMP_S = 600.0
SUFFIX = ".npz"
_SHAPING = ("analysis", "records", "store", "loader.py", "plan.py", "units.py", "analysis_cache.py", "plain_data.py")


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """A hash of the sources that shape an analysis result, and of the numerical libraries."""
    import importlib.util  # noqa: PLC0415

    import numpy  # noqa: PLC0415

    root = Path(__file__).resolve().parent
    h = hashlib.sha256(f"{__version__}|numpy {numpy.__version__}".encode())
    try:
        spec = importlib.util.find_spec("scipy")  # finds the package without importing it
        h.update(b"|scipy " + (Path(spec.origin).parent / "version.py").read_bytes())
    except Exception:  # noqa: BLE001 - an unknown version only makes the key stricter
        h.update(b"|scipy ?")
    for name in _SHAPING:
        path = root / name
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        for f in files:
            h.update(str(f.relative_to(root)).encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:32]


def file_key(path: str | os.PathLike) -> str | None:
    """The key of a run file: its real path (a result names its file) and its content."""
    try:
        real = os.path.realpath(path)
        h = hashlib.sha256()
        with open(real, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        digest = h.hexdigest()
    except OSError:
        return None
    return f"file|{real}|{digest}"


def stored_key(content_now: str) -> str:
    """The key of a stored run, from the hash of its records and samples as stored now."""
    return f"store|{content_now}"


def entry_key(source_key: str, options: tuple) -> str:
    """The entry's name and the key its header must carry."""
    return hashlib.sha256(f"{source_key}|{options!r}|{code_version()}".encode()).hexdigest()


def entry_path(source_key: str, options: tuple) -> Path:
    return cache_dir("analysis") / f"{entry_key(source_key, options)}{SUFFIX}"


def enabled() -> bool:
    return os.environ.get("MSGPERF_NO_CACHE", "") not in ("1", "yes", "true")


def _private(st: os.stat_result, kind: int) -> bool:
    """Owned by this user, of the right kind, and writable by no one else."""
    return (stat.S_IFMT(st.st_mode) == kind and st.st_uid == os.getuid()
            and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def _usable_dir(directory: Path, create: bool) -> bool:
    """Whether ``directory`` is this user's own and writable by no one else. With ``create``, it
    is made (mode 0700), and an own directory others could write (an older msgperf's) is made
    private: the entries others may have put there are not this user's, and ``get`` skips them."""
    try:
        if create:
            directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            st = os.stat(directory, follow_symlinks=False)
            if stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and st.st_mode & 0o077:
                os.chmod(directory, 0o700)
        return _private(os.stat(directory, follow_symlinks=False), stat.S_IFDIR)
    except OSError:
        return False


def get(source_key: str | None, options: tuple) -> Any | None:
    """The kept value for this key, or None (no entry, or one that is not a valid entry of this
    user's for this key: it is ignored, and ``put`` replaces it)."""
    if source_key is None or not enabled():
        return None
    from msgperf import plain_data  # noqa: PLC0415

    directory = cache_dir("analysis")
    if not _usable_dir(directory, create=False):
        return None
    key = entry_key(source_key, options)
    path = directory / f"{key}{SUFFIX}"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as f:
            if not _private(os.fstat(f.fileno()), stat.S_IFREG):
                return None  # another user's file (a shared cache directory), a device, a fifo
            value = plain_data.decode(f, key, _entry_type())
    except (OSError, plain_data.EntryError):
        return None
    try:
        os.utime(path)  # recently used
    except OSError:
        pass
    return value


def _entry_type() -> Any:
    """(Run, notes, RunResult): what the loader keeps, the type an entry is decoded against."""
    from msgperf.analysis.result import RunResult  # noqa: PLC0415
    from msgperf.records.format import Run  # noqa: PLC0415

    return tuple[Run, tuple[str, ...], RunResult]


def put(source_key: str | None, options: tuple, value: Any) -> None:
    """Keep ``value`` under this key; a value the format cannot hold (a run whose samples wait
    on disk) or a cache that cannot be written costs time, never a result."""
    if source_key is None or not enabled():
        return
    if any(m.spilled for m in value[0].measurements):
        return  # a large run whose samples wait on disk: writing them would read them all into memory
    from msgperf import plain_data  # noqa: PLC0415

    remove_old_output_cache()
    directory = cache_dir("analysis")
    if not _usable_dir(directory, create=True):
        return
    key = entry_key(source_key, options)
    path = directory / f"{key}{SUFFIX}"
    tmp = directory / f"{key}.{os.getpid()}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as f:
            plain_data.encode(value, key, _entry_type(), f)
        os.replace(tmp, path)
    except (OSError, plain_data.Unkeepable):
        try:
            tmp.unlink()
        except OSError:
            pass
        return
    _prune(directory)


def _prune(directory: Path) -> None:
    """The newest ``MAX_ENTRIES`` entries stay; temporaries older than ``STALE_TMP_S`` go."""
    now = time.time()
    try:
        found = [(p, p.stat(follow_symlinks=False)) for p in directory.iterdir()]
    except OSError:
        return
    entries = sorted(((p, st) for p, st in found if p.suffix == SUFFIX), key=lambda e: e[1].st_mtime, reverse=True)
    stale = [p for p, st in found if p.suffix == ".tmp" and now - st.st_mtime > STALE_TMP_S]
    old_format = [p for p, _ in found if p.suffix == ".pickle"]  # an older msgperf's entries: never read
    for p in [p for p, _ in entries[MAX_ENTRIES:]] + stale + old_format:
        try:
            p.unlink()
        except OSError:
            pass
