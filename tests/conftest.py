"""Shared fixtures: no test touches the user's home; every test gets its own MSGPERF_HOME.

At import time, before any fixture (module-scoped ones included) can start msgperf, the session
points MSGPERF_HOME, XDG_DATA_HOME, XDG_CACHE_HOME, the kernel cache and the children's TMPDIR
at a temporary directory of its own. The user's real result database is fingerprinted first;
the session fails (an error in the teardown of ``_real_home_untouched``) if it was created or
changed while the tests ran.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from msgperf.launch.shm_leftovers import remove_leftovers, segments

ROOT = Path(__file__).resolve().parents[1]


def real_database_dirs(env: dict[str, str] | os._Environ = os.environ) -> list[Path]:
    """Where msgperf would keep the user's database with this environment (store/db.py's
    rule), and the XDG default beside it."""
    dirs = []
    if env.get("MSGPERF_HOME"):
        dirs.append(Path(env["MSGPERF_HOME"]).expanduser())
    if env.get("XDG_DATA_HOME"):
        dirs.append(Path(env["XDG_DATA_HOME"]).expanduser() / "msgperf")
    dirs.append(Path(env.get("HOME") or Path.home()) / ".local" / "share" / "msgperf")
    return list(dict.fromkeys(dirs))


def fingerprint(dirs: list[Path]) -> dict[str, tuple[int, int]]:
    """(size, mtime) of every database file (msgperf.db and its -wal, -shm, -journal) in ``dirs``."""
    found = {}
    for d in dirs:
        for f in sorted(d.glob("msgperf.db*")) if d.is_dir() else ():
            try:
                st = f.stat()
            except OSError:
                continue
            found[str(f)] = (st.st_size, st.st_mtime_ns)
    return found


REAL_DATABASE_DIRS = real_database_dirs()
REAL_DATABASE_BEFORE = fingerprint(REAL_DATABASE_DIRS)

SESSION_DIR = Path(tempfile.mkdtemp(prefix="msgperf-tests-"))
atexit.register(shutil.rmtree, SESSION_DIR, ignore_errors=True)
tempfile.gettempdir()  # this process keeps its temporary directory (pytest's tmp_path lives there)
for name, sub in (("MSGPERF_HOME", "home"), ("XDG_DATA_HOME", "data"), ("XDG_CACHE_HOME", "cache"),
                  ("MSGPERF_CACHE", "kernel-cache"), ("TMPDIR", "tmp")):
    (SESSION_DIR / sub).mkdir()
    os.environ[name] = str(SESSION_DIR / sub)


@pytest.fixture(scope="session", autouse=True)
def _real_home_untouched():
    yield
    after = fingerprint(REAL_DATABASE_DIRS)
    assert after == REAL_DATABASE_BEFORE, (
        f"the tests created or changed the user's real result database: {sorted(set(after) ^ set(REAL_DATABASE_BEFORE)) or after}")


SHM_BEFORE = segments()


@pytest.fixture(scope="session", autouse=True)
def _no_shared_memory_left():
    """Jobs that the tests stop on purpose (hangs, killed ranks, refused options) must not leave
    MPI segments in /dev/shm: they pile up and, on a small /dev/shm, MPI_Init fails later."""
    yield
    leaked = remove_leftovers(SHM_BEFORE)
    assert not leaked, f"the tests left MPI shared-memory segments in /dev/shm (now removed): {leaked}"


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("MSGPERF_HOME", str(tmp_path_factory.mktemp("home")))


def run_cli(*args: str, cwd: Path | None = None, timeout: float = 300, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run the msgperf CLI in a fresh process, as a user would."""
    return subprocess.run([sys.executable, "-m", "msgperf", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd, env={**os.environ, **(env or {})})


@pytest.fixture
def msgperf():
    return run_cli
