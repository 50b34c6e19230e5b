"""A damaged, read-only or full database: one-line errors, nothing lost, and `msgperf db check`
and `msgperf db recover` on databases corrupted on purpose (issue 17, item 12)."""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from msgperf.store import schema

from msgperf.store.db import StoreError, open_store
from msgperf.store.maintenance import check_database, recover_database
from tests.factories import assert_same_run, stored_run
from tests.records.fuzz_commands import run_one

PAGE = 4096
RUNS = 6


def healthy(tmp_path: Path, name: str = "s.db") -> tuple[Path, list]:
    path = tmp_path / name
    runs = [stored_run(seed, samples=3000) for seed in range(RUNS)]
    with open_store(path) as store:
        for run in runs:
            store.add_run(run, label=f"run {runs.index(run)}")
    return path, runs  # closed: the WAL is checkpointed into the file


def scrambled(path: Path, pages: range, seed: int = 0) -> Path:
    """A copy of ``path`` whose ``pages`` (0-based) are overwritten with random bytes."""
    data = bytearray(path.read_bytes())
    rng = random.Random(seed)
    for page in pages:
        data[page * PAGE:(page + 1) * PAGE] = rng.randbytes(PAGE)
    bad = path.with_name("bad.db")
    bad.write_bytes(bytes(data))
    return bad


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def one_line(outcome) -> str:
    assert outcome.status in ("ok", "clean error"), outcome
    return outcome.detail


def test_scrambled_pages_give_one_line_errors_in_runs_show_and_import(tmp_path, monkeypatch):
    monkeypatch.setenv("MSGPERF_NO_CACHE", "1")
    path, _ = healthy(tmp_path)
    bad = scrambled(path, range(20, 23))
    outcomes = [run_one("runs", ["runs", "--db", str(bad)])]
    outcomes += [run_one("show", ["show", str(i), "--db", str(bad), "--brief"]) for i in range(1, RUNS + 1)]
    outcomes.append(run_one("import", ["import", "--db", str(bad), str(tmp_path / "nothing.jsonl")]))
    errors = [one_line(o) for o in outcomes if o.status == "clean error"]
    damaged = [e for e in errors if "the database is damaged (database disk image is malformed)" in e]
    assert damaged, outcomes  # the scrambled pages were hit, and said so in one line
    assert all(f"'msgperf db check --db {bad}'" in e and f"'msgperf db recover --db {bad}'" in e for e in damaged)


def test_a_scrambled_header_is_one_line(tmp_path):
    path, _ = healthy(tmp_path)
    bad = scrambled(path, range(0, 1))
    outcome = run_one("runs", ["runs", "--db", str(bad)])
    assert outcome.status == "clean error"
    assert outcome.detail == f"error: {bad}: not a usable msgperf database (file is not a database); pass another --db"


def test_db_check_lists_each_problem_and_exits_1(tmp_path):
    path, _ = healthy(tmp_path)
    ok = run_one("db check", ["db", "check", "--db", str(path)])
    assert ok.status == "ok"
    assert check_database(path)[0] == []
    bad = scrambled(path, range(20, 23))
    before = digest(bad)
    problems, _ = check_database(bad)
    assert problems and all(p.startswith(f"{bad}: ") and "\n" not in p for p in problems)
    assert any("malformed" in p for p in problems)
    outcome = run_one("db check", ["db", "check", "--db", str(bad)])
    assert outcome.status == "clean error" and "problem(s) found" in outcome.detail
    assert digest(bad) == before and not Path(f"{bad}-wal").exists()  # check never writes


def test_db_check_finds_a_schema_that_is_not_msgperfs(tmp_path):
    path, _ = healthy(tmp_path)
    conn = sqlite3.connect(path)
    conn.execute("ALTER TABLE runs DROP COLUMN placement")
    conn.execute("PRAGMA application_id = 7")
    conn.commit()
    conn.close()
    problems, _ = check_database(path)
    assert any("application id 0x7 is not msgperf's" in p for p in problems)
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA application_id = {0x6D736770}")
    conn.commit()
    conn.close()
    problems, _ = check_database(path)
    assert any("table 'runs' has columns" in p and "(missing: placement)" in p for p in problems), problems


def test_db_check_finds_a_stored_record_that_does_not_decode(tmp_path):
    path, _ = healthy(tmp_path)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE measurements SET samples = x'0102' WHERE run_id = 4 AND seq = 1")
    conn.commit()
    conn.close()
    problems, _ = check_database(path)
    assert problems == [f"{path}: run 4 cannot be read: run 4, measurement 1: stored samples are corrupt (2 bytes)"]


def test_recover_copies_every_readable_run_and_never_touches_the_original(tmp_path):
    path, runs = healthy(tmp_path)
    bad = scrambled(path, range(20, 23))
    before = digest(bad)
    result = recover_database(bad)
    assert digest(bad) == before
    assert result.target == tmp_path / "bad.recovered.db"
    assert len(result.runs) + len(result.lost_runs) == RUNS
    assert result.lost_runs and result.runs  # some runs were on the scrambled pages, some not
    assert all("\n" not in line and line.startswith("run ") for line in result.lost_runs)
    assert check_database(result.target)[0] == []
    with open_store(result.target, create=False) as store:
        for run_id in result.runs:  # ids, labels and samples kept exactly
            assert_same_run(store.load_run(run_id), runs[run_id - 1])
            assert store.get_row(run_id).label == f"run {run_id - 1}"
    again = run_one("db recover", ["db", "recover", "--db", str(bad)])
    assert again.status == "clean error" and "exists already" in again.detail  # never replaces a file


def test_recover_through_the_command(tmp_path):
    path, _ = healthy(tmp_path)
    out = tmp_path / "copy.db"
    outcome = run_one("db recover", ["db", "recover", "--db", str(path), "-o", str(out)])
    assert outcome.status == "ok"
    assert check_database(out) == ([], f"{out}: schema version {schema.LATEST_VERSION}, {RUNS} run(s) and 0 profile(s) read back; "
                                        "pages, indexes and foreign keys checked")


def test_a_full_disk_on_insert_is_one_line_and_loses_nothing(tmp_path):
    path, runs = healthy(tmp_path)
    with open_store(path) as store:
        pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
        store.conn.execute(f"PRAGMA max_page_count = {pages + 2}")  # what SQLite does on a full disk
        with pytest.raises(StoreError) as err:
            store.add_run(stored_run(99, samples=20000))
        assert str(err.value) == (f"{path}: the disk is full (database or disk is full); nothing was stored; "
                                  "free space and try again")
        assert [r.id for r in store.list_runs()] == list(range(1, RUNS + 1))
        assert_same_run(store.load_run(RUNS), runs[-1])


@pytest.fixture
def read_only_dir(tmp_path):
    """A directory msgperf cannot write: a read-only tmpfs as root (root writes through
    permissions), else a directory without write permission."""
    ro = tmp_path / "ro"
    ro.mkdir()
    if os.geteuid() == 0:
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(ro)],
                          capture_output=True).returncode != 0:
            pytest.skip("cannot mount a tmpfs")

        def seal():
            subprocess.run(["mount", "-o", "remount,ro", str(ro)], check=True)
        yield ro, seal
        unmounted = subprocess.run(["umount", str(ro)], capture_output=True, text=True)
        assert unmounted.returncode == 0, f"msgperf left a file open on the read-only mount: {unmounted.stderr}"
    else:
        def seal():
            for f in ro.iterdir():
                f.chmod(0o444)
            ro.chmod(0o555)
        yield ro, seal
        ro.chmod(0o755)


def test_a_healthy_database_on_a_read_only_location_is_listed_and_shown(tmp_path, read_only_dir, monkeypatch):
    monkeypatch.setenv("MSGPERF_NO_CACHE", "1")
    ro, seal = read_only_dir
    path, runs = healthy(tmp_path)
    shutil.copy(path, ro / "s.db")
    seal()
    db = str(ro / "s.db")
    before = digest(ro / "s.db")
    listing = run_one("runs", ["runs", "--db", db])
    assert listing.status == "ok", listing
    assert run_one("show", ["show", "3", "--db", db, "--brief"]).status == "ok"
    assert run_one("export", ["export", "3", "--db", db, "--format", "csv"]).status == "ok"
    assert run_one("db check", ["db", "check", "--db", db]).status == "ok"
    label = run_one("label", ["label", "3", "x", "--db", db])
    assert label.detail == (f"error: {db}: the database is read-only here (its file or directory is not writable); "
                            "nothing was stored; pass a writable --db")
    imported = run_one("import", ["import", "--db", db, str(tmp_path / "x.jsonl")])
    assert imported.detail == (f"error: {db}: the database is read-only here (its file or directory is not "
                               "writable); nothing can be stored in it; pass a writable --db")
    assert digest(ro / "s.db") == before and sorted(p.name for p in ro.iterdir()) == ["s.db"]
    with open_store(db, create=False) as store:
        assert store.readonly
        assert_same_run(store.load_run(2), runs[1])


def test_a_run_id_beyond_64_bits_is_one_line(tmp_path):
    path, _ = healthy(tmp_path)
    outcome = run_one("label", ["label", str(10 ** 20), "x", "--db", str(path)])
    assert outcome.detail == ("error: run id 100000000000000000000 is out of range (ids are 1 to "
                              "9223372036854775807); 'msgperf runs' lists the stored runs")


# ---- issue 29: recover counts what it lost, refuses what it cannot read, and leaves nothing ----

def runs_leaves(path: Path) -> list[int]:
    """The leaf pages (0-based) of the runs table, in key order."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT pageno, pagetype FROM dbstat WHERE name = 'runs' ORDER BY path").fetchall()
    except sqlite3.OperationalError:
        pytest.skip("this SQLite has no dbstat table")
    finally:
        conn.close()
    return [page - 1 for page, kind in rows if kind == "leaf"]


def test_recover_counts_the_runs_the_indexes_name_but_no_scan_reaches(tmp_path, capsys):
    # A scrambled leaf of the runs table: the scan stops before it, and recover said "lost 0
    # run(s)" for the runs it never saw. The indexes of runs still name them.
    path, _ = healthy(tmp_path)
    leaf = runs_leaves(path)[0]
    bad = scrambled(path, range(leaf, leaf + 1))
    result = recover_database(bad)
    lost = RUNS - len(result.runs)
    assert result.scan_error and lost >= 1 and result.knows_losses and result.held == RUNS
    assert sorted(int(line.split(":")[0][4:]) for line in result.lost_runs) == sorted(
        set(range(1, RUNS + 1)) - set(result.runs))
    from tests.cli_in_process import cli
    result.target.unlink()
    code, out, _ = cli(capsys, "db", "recover", "--db", bad)
    assert code == 0
    assert (f"recovered {RUNS - lost} run(s) and 0 profile(s) into {result.target}; lost {lost} run(s); "
            "lost 0 profile(s).") in out
    assert "mv " not in out and f"use the copy with --db {result.target}" in out


def test_recover_says_when_it_cannot_tell_how_many_runs_were_lost(tmp_path):
    path, _ = healthy(tmp_path)
    bad = scrambled(path, range(1, 20))  # the runs table, every index of it and the tables naming runs
    result = recover_database(bad)
    assert not result.knows_losses and result.held is None
    assert result.unread[:2] == ["the runs table", "the index runs_identity"]
    outcome = run_one("db recover", ["db", "recover", "--db", str(bad), "-o", str(tmp_path / "again.db")])
    assert outcome.status == "ok"


@pytest.mark.parametrize("kind", ["newer", "foreign"])
def test_recover_refuses_a_newer_or_a_foreign_database_and_writes_nothing(tmp_path, kind):
    path, _ = healthy(tmp_path)
    conn = sqlite3.connect(path)
    if kind == "newer":
        conn.execute(f"PRAGMA user_version = {schema.LATEST_VERSION + 1}")
        expected = (f"error: {path}: made by a newer msgperf (schema version {schema.LATEST_VERSION + 1}; this one "
                    f"reads up to {schema.LATEST_VERSION}); recover it with that msgperf; nothing written")
    else:
        conn.execute("PRAGMA application_id = 42")
        expected = f"error: {path}: not a msgperf database (application id 0x2a, not 0x6d736770); nothing to recover, nothing written"
    conn.commit()
    conn.close()
    before = sorted(p.name for p in tmp_path.iterdir())
    outcome = run_one("db recover", ["db", "recover", "--db", str(path)])
    assert outcome.status == "clean error" and outcome.detail == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_runs_on_a_scrambled_runs_table_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("MSGPERF_NO_CACHE", "1")
    path, _ = healthy(tmp_path)
    bad = scrambled(path, range(1, 2))  # the root page of the runs table (was a traceback in find_runs)
    outcome = run_one("runs", ["runs", "--db", str(bad)])
    assert outcome.status == "clean error", outcome
    assert outcome.detail == (f"error: {bad}: the database is damaged (database disk image is malformed); 'msgperf db "
                              f"check --db {bad}' lists the problems and 'msgperf db recover --db {bad}' saves what "
                              "can be read")


FULL_DISK_COMMANDS = [["runs"], ["show", "1", "--brief"], ["label", "1", "x"], ["import", "IMPORTED"]]


def _small_db(path: Path) -> Path:
    with open_store(path) as store:
        store.add_run(stored_run(1, samples=50), label="one")
    return path


def _under_a_file_size_limit(args: list[str]) -> subprocess.CompletedProcess:
    import sys
    code = ("import resource, signal, sys; signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
            "resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0)); from msgperf.cli import main; main(sys.argv[1:])")
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "MSGPERF_NO_CACHE": "1"})


@pytest.mark.parametrize("args", FULL_DISK_COMMANDS, ids=lambda a: a[0])
def test_a_write_that_fails_is_not_called_damage(tmp_path, args):
    # Opening a WAL database creates its -shm file; when that cannot be written (here a file-size
    # limit of 0) SQLite says "disk I/O error", which was "not a usable msgperf database".
    db = _small_db(tmp_path / "s.db")
    (tmp_path / "osu.txt").write_text("# OSU MPI Latency Test v7.4\n# Size  Latency (us)\n1  1.5\n2  1.6\n")
    args = [str(tmp_path / "osu.txt") if a == "IMPORTED" else a for a in args]
    before = digest(db)
    done = _under_a_file_size_limit([*args, "--db", str(db)])
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr == (f"error: {db}: the disk could not be written or read (disk I/O error: a file-size limit, a "
                           "full quota or a failing disk); nothing was changed; check the disk and try again\n")
    assert digest(db) == before


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a small tmpfs needs root")
def test_a_full_disk_is_said_to_be_full_by_runs_show_import_and_label(tmp_path, monkeypatch):
    monkeypatch.setenv("MSGPERF_NO_CACHE", "1")
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(disk)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {mounted.stderr.decode().strip()}")
    try:
        db = _small_db(disk / "s.db")
        osu = tmp_path / "osu.txt"
        osu.write_text("# OSU MPI Latency Test v7.4\n# Size  Latency (us)\n1  1.5\n2  1.6\n")
        fd = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT)  # fill the disk
        try:
            while True:
                os.write(fd, b"\0" * 4096)
        except OSError:
            pass
        finally:
            os.close(fd)
        before = digest(db)
        for args in FULL_DISK_COMMANDS:
            args = [str(osu) if a == "IMPORTED" else a for a in args]
            outcome = run_one(args[0], [*args, "--db", str(db)])
            assert outcome.status == "clean error", outcome
            assert outcome.detail == (f"error: {db}: the disk is full (disk I/O error); nothing was changed; "
                                      "free space and try again")
        assert digest(db) == before
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def test_sigterm_during_recover_leaves_no_temporary_files(tmp_path):
    import signal
    import sys
    path, _ = healthy(tmp_path)
    # a recover slowed down after its first copied run, so that the signal lands mid-copy
    code = ("import sys, time; from msgperf.store import db; original = db.Store.add_recovered_run\n"
            "def slow(self, *a, **k):\n"
            "    done = original(self, *a, **k); print('copied', flush=True); time.sleep(60); return done\n"
            "db.Store.add_recovered_run = slow\n"
            "from msgperf.cli import main; main(sys.argv[1:])")
    child = subprocess.Popen([sys.executable, "-c", code, "db", "recover", "--db", str(path)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline() == "copied\n"
        assert any(p.name.startswith(".s.recovered.db.tmp") for p in tmp_path.iterdir())  # mid-copy
        child.send_signal(signal.SIGTERM)
        _, err = child.communicate(timeout=60)
    finally:
        child.kill()
    assert child.returncode == 130 and err.strip() == "interrupted"  # as Ctrl-C
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.db"]  # no copy, no -wal, no -shm
