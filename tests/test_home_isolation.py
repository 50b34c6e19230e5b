"""No test touches the user's home: the session's environment points msgperf elsewhere before any
fixture runs, and a changed real database fails the session (tests/conftest.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import (REAL_DATABASE_BEFORE, REAL_DATABASE_DIRS, SESSION_DIR, fingerprint,
                            real_database_dirs, run_cli)
from tests.factories import pingpong_run, write_run


@pytest.fixture(scope="module")
def imported_in_a_module_fixture(tmp_path_factory):
    """A module-scoped fixture runs before the per-test MSGPERF_HOME is set: the way the real-MPI
    fixtures wrote two runs into the user's database. It must land in the session's home."""
    run_file = write_run(pingpong_run(), tmp_path_factory.mktemp("module") / "a.jsonl")
    result = run_cli("import", run_file)
    assert result.returncode == 0, result.stderr
    return Path(os.environ["MSGPERF_HOME"])


def test_a_module_fixture_stores_in_the_session_home(imported_in_a_module_fixture):
    home = imported_in_a_module_fixture
    assert home.is_relative_to(SESSION_DIR) and (home / "msgperf.db").is_file()
    assert fingerprint(REAL_DATABASE_DIRS) == REAL_DATABASE_BEFORE


def test_every_default_location_is_the_sessions():
    for name in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "MSGPERF_CACHE", "TMPDIR"):
        assert Path(os.environ[name]).is_relative_to(SESSION_DIR), name
    # the per-test home (tests/conftest.py::_isolated_home) is a temporary directory too
    assert not any(Path(os.environ["MSGPERF_HOME"]).is_relative_to(d) for d in REAL_DATABASE_DIRS)


def test_the_fingerprint_sees_a_created_or_changed_database(tmp_path):
    home = tmp_path / "user"
    dirs = real_database_dirs({"HOME": str(home)})
    assert dirs == [home / ".local" / "share" / "msgperf"]
    before = fingerprint(dirs)
    dirs[0].mkdir(parents=True)
    (dirs[0] / "msgperf.db").write_bytes(b"x")
    created = fingerprint(dirs)
    assert created != before
    (dirs[0] / "msgperf.db-wal").write_bytes(b"y")
    assert fingerprint(dirs) != created
    with_home = real_database_dirs({"HOME": str(home), "MSGPERF_HOME": str(tmp_path / "mh"),
                                    "XDG_DATA_HOME": str(tmp_path / "xdg")})
    assert with_home == [tmp_path / "mh", tmp_path / "xdg" / "msgperf", home / ".local" / "share" / "msgperf"]
