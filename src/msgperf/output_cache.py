"""Re-reading is instant: what a reading command (show, fit, compare, report) printed, and the
files it wrote, are kept in the user's cache and replayed byte for byte while everything they
depend on is unchanged. Rendering a run of every pattern (2,000 lines of rich tables) costs
seconds; replaying it costs a read.

An entry is keyed by everything the output depends on, and nothing is trusted across a change:
- the command and every option it was given (click's parameters), and the working directory
  (relative paths in the output and in the default report name);
- each run it reads: a file's real path and a SHA-256 of its bytes; a stored run's content hash
  and its listing row (label, time); ``extra`` parts a command adds (``compare`` adds the state of
  the database its noise floor comes from);
- the code: a hash of every msgperf source file and the versions of Python, numpy, scipy,
  matplotlib, rich and click;
- the terminal: whether stdout and stderr are terminals, their size, their encoding and the
  environment variables that change rendering (TERM, COLUMNS, NO_COLOR, FORCE_COLOR, ...).
When a key cannot be made (a run that does not exist, an unreadable file), the command simply
runs, and reports its error as it always does. Only a command that ends without an error is
kept (an exit with a status of its own, ``compare --fail-above``'s 3 and 4, is kept with it). Entries live in ``$MSGPERF_CACHE/output`` or ``$XDG_CACHE_HOME/msgperf/output``, are
written to a temporary file and renamed (two processes never see half an entry), at most
``MAX_ENTRIES`` are kept; an unreadable entry is ignored and replaced. ``MSGPERF_NO_CACHE=1``
turns this cache off, with the analysis cache (analysis_cache.py).
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import re
import sys
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from msgperf import __version__, analysis_cache

MAX_ENTRIES = 64
_ID = re.compile(r"#?(\d{1,18})\Z")
_DISTRIBUTIONS = ("numpy", "scipy", "matplotlib", "rich", "click")
_TERMINAL_ENV = ("TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "COLUMNS", "LINES", "TTY_COMPATIBLE",
                 "TTY_INTERACTIVE", "CLICOLOR", "CLICOLOR_FORCE", "JUPYTER_COLUMNS", "JUPYTER_LINES",
                 "PYTHONIOENCODING", "MSGPERF_HOME", "XDG_DATA_HOME")


def cache_dir() -> Path:
    return analysis_cache.cache_dir().parent / "output"


def _distribution(name: str) -> str:
    """A library's installed version, from its dist-info directory's name (no import)."""
    import importlib.util  # noqa: PLC0415

    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.origin:
        return f"{name} -"
    site = Path(spec.origin).resolve().parent.parent
    found = sorted(p.name for p in site.glob(f"{name}-*.dist-info"))
    return f"{name} {found or spec.origin}"


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """A hash of every msgperf source file and of the libraries that compute and render."""
    root = Path(__file__).resolve().parent
    h = hashlib.sha256(f"{__version__}|{sys.version}".encode())
    for name in _DISTRIBUTIONS:
        h.update(f"|{_distribution(name)}".encode())
    for f in sorted(root.rglob("*.py")):
        h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:32]


def _terminal() -> tuple:
    streams = []
    for stream in (sys.stdout, sys.stderr):
        try:
            tty = stream.isatty()
        except (AttributeError, ValueError):
            tty = False
        size = None
        if tty:
            try:
                size = tuple(os.get_terminal_size(stream.fileno()))
            except (AttributeError, ValueError, OSError):
                size = "?"
        streams.append((tty, size, getattr(stream, "encoding", None), getattr(stream, "errors", None)))
    return tuple(streams), tuple(os.environ.get(v) for v in _TERMINAL_ENV)


def run_key(arg: str, db: str | None) -> str | None:
    """What a run argument (a file or a stored run id) is now; None when it names nothing."""
    path = Path(arg)
    if path.exists():
        return analysis_cache.file_key(arg) if path.is_file() else None
    match = _ID.match(arg.strip())
    if not match:
        return None
    from msgperf.store.db import open_store  # noqa: PLC0415

    try:
        with open_store(db, create=False) as store:
            run_id = int(match.group(1))
            return f"store|{store.content_hash(run_id)}|{store.get_row(run_id)!r}"
    except Exception:  # noqa: BLE001 - no store, no such run: the command says so itself
        return None


def store_state(db: str | None) -> str:
    """The state of the database (its files' sizes and modification times): any write to it
    changes this."""
    from msgperf.store.location import default_path  # noqa: PLC0415

    path = Path(db).expanduser() if db else default_path()
    parts = [str(path.resolve())]
    for suffix in ("", "-wal"):
        try:
            st = os.stat(f"{path}{suffix}")
            parts.append(f"{st.st_size}|{st.st_mtime_ns}|{st.st_ino}")
        except OSError:
            parts.append("-")
    return "|".join(parts)


def enabled() -> bool:
    return analysis_cache.enabled()


class _Recorder:
    """A text stream that writes through to ``stream`` and keeps what was written."""

    def __init__(self, stream: Any, name: str, chunks: list[tuple[str, str]]) -> None:
        self._stream, self._name, self._chunks = stream, name, chunks

    def write(self, text: str) -> int:
        n = self._stream.write(text)
        if text:
            self._chunks.append((self._name, text))
        return n

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self._stream.flush()

    def isatty(self) -> bool:
        return self._stream.isatty()

    def fileno(self) -> int:
        return self._stream.fileno()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str | None:
        return getattr(self._stream, "encoding", None)

    @property
    def errors(self) -> str | None:
        return getattr(self._stream, "errors", None)


def _entry(key: tuple) -> Path:
    digest = hashlib.sha256(repr((key, code_version(), _terminal(), os.getcwd())).encode()).hexdigest()
    return cache_dir() / f"{digest}.pickle"


def replay_or_run(key: tuple | None, body: Callable[[], Sequence[Path] | None],
                  refresh: Callable[[bytes], bytes] | None = None) -> None:
    """Replay the output kept under ``key``, or run ``body`` (which prints, and returns the paths
    of the files it wrote, if any) and keep what it printed and wrote. ``key``: the command, its
    options and its inputs (``run_key``); None when one of them cannot be keyed. ``refresh``
    brings a kept file up to date as it is written again (a report's "generated" time)."""
    if key is None or not enabled():
        body()
        return
    path = _entry(key)
    try:
        with path.open("rb") as f:
            kept = pickle.load(f)
        chunks, files, status = kept["chunks"], kept["files"], kept["exit"]
    except Exception:  # noqa: BLE001 - missing, partial or stale: run the command
        kept = None
    if kept is not None:
        _replay(chunks, files, refresh)
        try:
            os.utime(path)  # recently used
        except OSError:
            pass
        if status is not None:
            raise SystemExit(status)
        return
    chunks: list[tuple[str, str]] = []
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Recorder(saved[0], "out", chunks), _Recorder(saved[1], "err", chunks)
    status = None
    try:
        written = body() or ()
    except SystemExit as exc:  # a deliberate exit status (compare's gate): kept with the output
        if not isinstance(exc.code, int):
            raise
        status, written = exc.code, ()
    finally:
        sys.stdout, sys.stderr = saved
    try:
        files = [(str(Path(p).resolve()), Path(p).read_bytes()) for p in written]
    except OSError:
        files = None
    if files is not None:
        _put(path, {"chunks": chunks, "files": files, "exit": status})
    if status is not None:
        raise SystemExit(status)


def _replay(chunks: list[tuple[str, str]], files: list[tuple[str, bytes]],
            refresh: Callable[[bytes], bytes] | None) -> None:
    from msgperf.atomic_file import atomic_path  # noqa: PLC0415

    for name, data in files:  # the files first: the printed lines name them
        with atomic_path(name) as tmp:
            tmp.write_bytes(refresh(data) if refresh else data)
    for name, text in chunks:
        (sys.stdout if name == "out" else sys.stderr).write(text)
    sys.stdout.flush()
    sys.stderr.flush()


def _put(path: Path, value: dict) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        with tmp.open("wb") as f:
            pickle.dump(value, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
        entries = sorted(path.parent.glob("*.pickle"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in entries[MAX_ENTRIES:]:
            old.unlink(missing_ok=True)
    except OSError:
        return  # a cache that cannot be written costs time, not results
