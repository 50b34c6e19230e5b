"""Migrations: a database at every earlier schema version opens, migrates and keeps its runs."""

from __future__ import annotations

import sqlite3

import pytest

from msgperf.store import schema
from msgperf.store.db import open_store
from msgperf.store.identity import content_hash, identity_hash
from msgperf.store.listing import RunFilter, listing_of
from msgperf.store.rows import dumps, launch_jsons, measurement_record, run_record_json, samples_blob
from tests.factories import assert_same_run, host_facts, sample_profile, stored_run, with_machine

# The first run records its machine (the launch JSON of every version keeps it, so version 5's
# backfill finds it), the second does not (a run recorded before msgperf read the machine).
RUNS = [with_machine(stored_run(30, hosts=("n1", "n2"), patterns=("pingpong", "exchange")),
                     [host_facts("n1"), host_facts("n2")], {"MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE": 8192}),
        stored_run(31, mpi="Open MPI", version="5.0.5", finished=False)]


def insert_at_version_1(conn: sqlite3.Connection, run, label: str = "") -> int:
    """What msgperf with schema version 1 wrote for a run (its DDL is schema.VERSION_1)."""
    run_id = conn.execute(
        "INSERT INTO runs (content_hash, identity_hash, source, start_time, added_at, label, "
        "source_path, run_record) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (content_hash(run), identity_hash(run), run.info.source, run.info.start_time,
         "2026-11-21T00:00:00+00:00", label, "/old/run.jsonl", run_record_json(run.info))).lastrowid
    for launch in run.launches:
        start, end, _ = launch_jsons(launch)  # version 1 had no abort records
        conn.execute("INSERT INTO launches (run_id, idx, record, end_record) VALUES (?, ?, ?, ?)",
                     (run_id, launch.index, start, end))
    for seq, m in enumerate(run.measurements):
        conn.execute("INSERT INTO measurements VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                     (run_id, seq, m.pattern, m.bytes, m.metric, m.samples_s.size,
                      dumps(measurement_record(m)), samples_blob(m.samples_s)))
    return run_id


def insert_at_version_2(conn: sqlite3.Connection, run, label: str = "") -> int:
    """Version 2 = version 1 + the listing columns, filled when a run was added."""
    run_id = insert_at_version_1(conn, run, label)
    schema.write_listing(conn, run_id, listing_of(run.info, run.launches,
                                                 [(m.pattern, m.bytes) for m in run.measurements]))
    return run_id


def insert_at_version_3(conn: sqlite3.Connection, run, label: str = "") -> int:
    """Version 3 = version 2 + the abort record of each launch."""
    run_id = insert_at_version_2(conn, run, label)
    for launch in run.launches:
        conn.execute("UPDATE launches SET abort_record = ? WHERE run_id = ? AND idx = ?",
                     (launch_jsons(launch)[2], run_id, launch.index))
    return run_id


def insert_at_version_4(conn: sqlite3.Connection, run, label: str = "") -> int:
    """Version 4 added the profiles table only: a run was stored as by version 3."""
    return insert_at_version_3(conn, run, label)


def insert_at_version_5(conn: sqlite3.Connection, run, label: str = "") -> int:
    """Version 5 = version 4 + the filter rows (a run's hosts and patterns) of each run."""
    run_id = insert_at_version_4(conn, run, label)
    listing = listing_of(run.info, run.launches, [(m.pattern, m.bytes) for m in run.measurements])
    schema.write_filter_rows(conn, run_id, listing.hosts, listing.patterns)
    return run_id


WRITERS = {1: insert_at_version_1, 2: insert_at_version_2, 3: insert_at_version_3,
           4: insert_at_version_4, 5: insert_at_version_5}  # how each version stored a run (0: empty file)


def database_at(path, version: int):
    conn = sqlite3.connect(path, isolation_level=None)
    schema.migrate(conn, str(path), target=version)
    assert schema.user_version(conn) == version
    if version in WRITERS:
        conn.execute("BEGIN")
        for i, run in enumerate(RUNS):
            WRITERS[version](conn, run, label=f"label {i}")
        conn.execute("COMMIT")
    conn.close()


def test_every_released_version_has_a_writer_here():
    assert sorted(WRITERS) == list(range(1, schema.LATEST_VERSION))  # add one per new version


@pytest.mark.parametrize("version", range(schema.LATEST_VERSION))
def test_migrates_from_every_earlier_version(tmp_path, version):
    path = tmp_path / "old.db"
    database_at(path, version)
    with open_store(path) as store:
        assert schema.user_version(store.conn) == schema.LATEST_VERSION
        rows = store.list_runs()
        if version == 0:
            assert rows == []
            return
        assert [r.label for r in rows] == ["label 0", "label 1"]
        for row, run in zip(rows, RUNS):
            assert_same_run(store.load_run(row.id), run)
        # version 2's listing columns were backfilled from the stored records
        assert rows[0].hosts == ("n1", "n2") and rows[0].placement == "inter-node"
        assert rows[0].patterns == ("pingpong", "exchange") and rows[0].n_measurements == 10
        assert rows[1].mpi == "Open MPI 5.0.5" and rows[1].sizes == (0, 1, 8, 1024, 65536)
        # version 6's machine column too: two hosts of one model named once; none recorded: ""
        assert rows[0].machine == "2× Intel Xeon Gold 6248, 40 cores" and rows[1].machine == ""
        # version 5's filter rows were backfilled: the filters find the old runs
        assert [r.id for r in store.list_runs(RunFilter(pattern="exch*"))] == [rows[0].id]
        assert [r.id for r in store.list_runs(RunFilter(host="N2"))] == [rows[0].id]
        # and the migrated store keeps working, profiles (version 4) included
        assert store.add_run(RUNS[0]) == (rows[0].id, False)
        assert store.add_run(stored_run(32))[1]
        assert store.list_profiles() == [] and store.add_profile(sample_profile()) == (1, True)


def test_a_failed_migration_leaves_the_old_version(tmp_path, monkeypatch):
    path = tmp_path / "old.db"
    database_at(path, 1)

    def broken(conn):
        conn.execute("ALTER TABLE runs ADD COLUMN half_done TEXT")
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(schema, "MIGRATIONS", [schema.update_to_1, broken, schema.update_to_3])
    with pytest.raises(RuntimeError, match="disk on fire"):
        open_store(path)
    conn = sqlite3.connect(path)
    assert schema.user_version(conn) == 1
    columns = [r[1] for r in conn.execute("PRAGMA table_info(runs)")]
    assert "half_done" not in columns and conn.execute("SELECT count(*) FROM runs").fetchone()[0] == 2


def test_reopening_a_current_database_migrates_nothing(tmp_path):
    path = tmp_path / "s.db"
    open_store(path).close()
    conn = sqlite3.connect(path, isolation_level=None)
    assert schema.migrate(conn, str(path)) == schema.LATEST_VERSION
