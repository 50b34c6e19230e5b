"""Re-reading a run is instant: the analysis of a run is kept in the user's cache and reused while
the run and the code that analyses it are unchanged.

An entry is keyed by what the result depends on and nothing else:
- the run: for a file, its real path and a SHA-256 of its bytes (any change to the content is a
  new key, whatever the file's times say); for a stored run, the store's content hash of its
  records and samples;
- the analysis options (launch, tolerance, confidence);
- the code: a hash of msgperf's own sources that shape the result (analysis, records, the loader,
  units), numpy's version and scipy's version file (read, not imported: importing scipy, or
  asking importlib.metadata, would cost more than the cache saves).
It holds the loaded run and its ``RunResult`` (pickled: the cache is the user's own directory,
``$MSGPERF_CACHE/analysis`` or ``$XDG_CACHE_HOME/msgperf/analysis``), written atomically, at most
``MAX_ENTRIES`` kept (the least recently used are removed). An unreadable entry is ignored and
replaced. ``MSGPERF_NO_CACHE=1`` turns the cache off.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
from pathlib import Path
from typing import Any

from msgperf import __version__

MAX_ENTRIES = 64
_SHAPING = ("analysis", "records", "loader.py", "units.py", "analysis_cache.py")


def cache_dir() -> Path:
    env = os.environ.get("MSGPERF_CACHE")
    if env:
        return Path(env) / "analysis"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "msgperf" / "analysis"


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


def _entry(source_key: str, options: tuple) -> Path:
    digest = hashlib.sha256(f"{source_key}|{options!r}|{code_version()}".encode()).hexdigest()
    return cache_dir() / f"{digest}.pickle"


def enabled() -> bool:
    return os.environ.get("MSGPERF_NO_CACHE", "") not in ("1", "yes", "true")


def get(source_key: str | None, options: tuple) -> Any | None:
    if source_key is None or not enabled():
        return None
    path = _entry(source_key, options)
    try:
        with path.open("rb") as f:
            value = pickle.load(f)
        os.utime(path)  # recently used
        return value
    except Exception:  # noqa: BLE001 - a missing, partial or stale entry is simply recomputed
        return None


def put(source_key: str | None, options: tuple, value: Any) -> None:
    if source_key is None or not enabled():
        return
    directory = cache_dir()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        path = _entry(source_key, options)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        try:
            with tmp.open("wb") as f:
                pickle.dump(value, f, protocol=pickle.HIGHEST_PROTOCOL)
        except pickle.PicklingError:  # a large run whose samples wait on disk: not kept
            tmp.unlink(missing_ok=True)
            return
        os.replace(tmp, path)
        _prune(directory)
    except OSError:
        return  # a cache that cannot be written (read-only home, full disk) costs time, not results


def _prune(directory: Path) -> None:
    entries = sorted(directory.glob("*.pickle"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in entries[MAX_ENTRIES:]:
        old.unlink(missing_ok=True)
