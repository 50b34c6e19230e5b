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
(Run, notes, RunResult, where its samples lie); anything else is ignored and replaced.
A large run, whose samples wait on disk while it is read (records/spilled_samples.py), keeps them
beside its entry in ``<entry>.samples`` (raw float64, written one measurement at a time and read
back one measurement at a time, so memory stays bounded either way); the entry holds where each
measurement's samples lie and their CRC-32, and an entry whose samples file is missing, of
another length or content than it says, or not this user's private file is ignored. Such files take at most ``MAX_SAMPLE_BYTES`` in all.
Entries are written to a temporary file and renamed; a write that fails (full disk,
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
import zlib
from pathlib import Path
from typing import Any

from msgspec.structs import replace as msgspec_replace

from msgperf import __version__
from msgperf.cache_dir import cache_dir, remove_old_output_cache

MAX_ENTRIES = 64
MAX_SAMPLE_BYTES = 1 << 30  # the large runs' samples kept beside their entries, in all
STALE_TMP_S = 600.0
SUFFIX = ".npz"
SAMPLES = ".samples"
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
            run, notes, result, spans = plain_data.decode(f, key, _entry_type())
    except (OSError, plain_data.EntryError):
        return None
    if spans:
        run = _with_samples(run, spans, directory / f"{key}{SAMPLES}")
        if run is None:
            return None
    try:
        os.utime(path)  # recently used
    except OSError:
        pass
    return run, notes, result


def _open_private(path: Path, flags: int, mode: int = 0o600) -> Any:
    """``path`` opened (binary, unbuffered) when it is this user's private regular file, else None."""
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC | getattr(os, "O_NONBLOCK", 0), mode)
    except OSError:
        return None
    f = os.fdopen(fd, "rb" if flags == os.O_RDONLY else "w+b", buffering=0)
    if not _private(os.fstat(fd), stat.S_IFREG):
        f.close()
        return None
    return f


def _with_samples(run: Any, spans: tuple[tuple[int, int, int], ...], path: Path) -> Any | None:
    """``run`` with each measurement's samples read, when used, from the samples file at
    ``path``; None when that file is not this user's or does not hold what the entry says: the
    measurements end to end, each with the CRC-32 it was written with (read here one measurement
    at a time: ~15 ms for 16 MB of samples; a file cut or overwritten at the same length, by a
    crash after the rename or by hand, is a miss, never samples the run did not measure)."""
    from msgperf.records.spilled_samples import SampleSpill, SpilledSamples  # noqa: PLC0415

    if len(spans) != len(run.measurements) or any(m.sample_count for m in run.measurements):
        return None
    f = _open_private(path, os.O_RDONLY)
    if f is None:
        return None
    spill = SampleSpill(f)
    end = 0
    for offset, count, crc in spans:
        if offset != end or count < 0 or zlib.crc32(os.pread(f.fileno(), 8 * count, offset)) != crc:
            f.close()
            return None
        end = offset + 8 * count
    if end != spill.size:
        f.close()
        return None
    hold = type(run.measurements[0]).samples_s.fset if run.measurements else None
    for m, (offset, count, _) in zip(run.measurements, spans):
        # the measurements were decoded just now and are seen by no one else: given their samples
        # in place (the samples property's own setter), not copied (dataclasses.replace: 30 ms a
        # run of 1,700 measurements, a tenth of a warm show)
        hold(m, SpilledSamples(spill, offset, count))
    return run


def _samples_apart(run: Any, path: Path) -> tuple[Any, tuple[tuple[int, int, int], ...]] | None:
    """``run`` without its samples, which are written to ``path`` one measurement at a time, and
    where each lies with its CRC-32 (offset, count, crc); None when they are too many to keep or
    cannot be written."""
    import dataclasses  # noqa: PLC0415

    import numpy as np  # noqa: PLC0415

    from msgperf.records.spilled_samples import SampleSpill  # noqa: PLC0415

    if 8 * sum(m.sample_count for m in run.measurements) > MAX_SAMPLE_BYTES:
        return None
    f = _open_private(path, os.O_RDWR | os.O_CREAT | os.O_EXCL)
    if f is None:
        return None
    none = np.empty(0)
    spans, measurements = [], []
    with f:
        spill = SampleSpill(f)
        for m in run.measurements:
            samples = np.ascontiguousarray(m.samples_s, dtype=np.float64)
            kept = spill.keep(samples)  # OSError (a full disk): the caller removes the file
            spans.append((kept.offset, kept.count, zlib.crc32(memoryview(samples).cast("B"))))
            measurements.append(dataclasses.replace(m, samples_s=none))
    return msgspec_replace(run, measurements=tuple(measurements)), tuple(spans)


def _entry_type() -> Any:
    """(Run, notes, RunResult, where a large run's samples lie in its samples file: (offset,
    count, CRC-32) per measurement, or nothing): what the loader keeps, the type an entry is decoded
    against."""
    from msgperf.analysis.result import RunResult  # noqa: PLC0415
    from msgperf.records.format import Run  # noqa: PLC0415

    return tuple[Run, tuple[str, ...], RunResult, tuple[tuple[int, int, int], ...]]


def put(source_key: str | None, options: tuple, value: Any) -> None:
    """Keep ``value`` (Run, notes, RunResult) under this key; a value the format cannot hold or a
    cache that cannot be written costs time, never a result."""
    if source_key is None or not enabled():
        return
    from msgperf import plain_data  # noqa: PLC0415

    remove_old_output_cache()
    directory = cache_dir("analysis")
    if not _usable_dir(directory, create=True):
        return
    key = entry_key(source_key, options)
    path = directory / f"{key}{SUFFIX}"
    tmp = directory / f"{key}.{os.getpid()}.tmp"
    samples_tmp = directory / f"{key}.{os.getpid()}{SAMPLES}.tmp"
    run, notes, result = value
    spans: tuple[tuple[int, int, int], ...] = ()
    try:
        if any(m.spilled for m in run.measurements):  # a large run: its samples go beside the entry
            apart = _samples_apart(run, samples_tmp)
            if apart is None:
                _unlink(samples_tmp)
                return
            run, spans = apart
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError:
        _unlink(samples_tmp)
        return
    try:
        with os.fdopen(fd, "wb") as f:
            plain_data.encode((run, notes, result, spans), key, _entry_type(), f)
        if spans:
            os.replace(samples_tmp, directory / f"{key}{SAMPLES}")
        os.replace(tmp, path)
    except (OSError, plain_data.Unkeepable):
        _unlink(tmp)
        _unlink(samples_tmp)
        return
    _prune(directory)


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


def _prune(directory: Path) -> None:
    """The newest ``MAX_ENTRIES`` entries stay, and of their samples files at most
    ``MAX_SAMPLE_BYTES`` (the newest entry always stays); temporaries, and samples files whose
    entry is gone, older than ``STALE_TMP_S`` go."""
    now = time.time()
    try:
        found = {p: p.stat(follow_symlinks=False) for p in directory.iterdir()}
    except OSError:
        return
    entries = sorted((p for p in found if p.suffix == SUFFIX), key=lambda p: found[p].st_mtime, reverse=True)
    gone, kept, sample_bytes = [], 0, 0
    for p in entries:
        samples = p.with_suffix(SAMPLES)
        size = found[samples].st_size if samples in found else 0
        if kept and (kept >= MAX_ENTRIES or sample_bytes + size > MAX_SAMPLE_BYTES):
            gone += [p, samples]
        else:
            kept, sample_bytes = kept + 1, sample_bytes + size
    stale = [p for p, st in found.items() if now - st.st_mtime > STALE_TMP_S and (
        p.suffix == ".tmp" or (p.suffix == SAMPLES and p.with_suffix(SUFFIX) not in found))]
    old_format = [p for p in found if p.suffix == ".pickle"]  # an older msgperf's entries: never read
    for p in gone + stale + old_format:
        _unlink(p)
