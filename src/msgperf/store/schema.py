"""The database schema, its version history and the migrations between versions.

The version lives in ``PRAGMA user_version``; ``MIGRATIONS[n - 1]`` (``update_to_n``) takes a
database from version n - 1 to n. Migrations run in one ``BEGIN IMMEDIATE`` transaction, so a
crash leaves the old version intact and two processes opening a new database do not both
migrate it. Once released, a version's DDL never changes: a change is a new ``update_to_N``.

History
- 1: runs (content/identity hash, source, start time, label, the ``run`` record as JSON),
  launches (``launch``/``launch_end`` records as JSON), measurements (record JSON without its
  samples + samples as a BLOB of little-endian float64).
- 2: listing columns on runs (hosts, mpi, patterns, sizes, nranks, placement,
  n_measurements), backfilled from the stored records, so ``msgperf runs`` reads one table;
  an index on measurements(pattern, bytes).
- 3: launches.abort_record (the ``launch_abort`` record: why msgperf stopped a launch), NULL
  for launches stored before (no abort was recorded then).
- 4: profiles (``msgperf profile``: an application's messages, records as JSON, listing
  columns beside them); a table of its own, since a profile is not a run of patterns.
- 5: what ``msgperf runs`` filters on, indexed, so that a store of years of runs lists in well
  under a second without reading the runs' records: run_patterns (each run's patterns, in the
  one vocabulary of ``records.pattern_names``) and run_hosts (its hosts), keyed by name; indexes
  on runs(label), runs(mpi), runs(source) and runs(start_time, added_at), which the listing
  scans instead of the table (a row of runs holds the whole run record); backfilled.
- 6: runs.machine, the listing's CPU and cores (from the launch records' host facts),
  backfilled from the stored launches ('' for runs recorded before msgperf read them).
"""

from __future__ import annotations

import json
import sqlite3
from typing import Callable

from msgperf.records.pattern_names import pattern_name
from msgperf.store.listing import listing_of, machine_of
from msgperf.store.rows import StoreError, decode_launch_rows, decode_run_record, dumps

APPLICATION_ID = 0x6D736770  # "msgp", so `file` and msgperf can tell its databases apart

VERSION_1 = (
    """CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        content_hash TEXT NOT NULL UNIQUE,
        identity_hash TEXT NOT NULL,
        source TEXT NOT NULL,
        start_time TEXT NOT NULL,
        added_at TEXT NOT NULL,
        label TEXT NOT NULL DEFAULT '',
        source_path TEXT NOT NULL DEFAULT '',
        run_record TEXT NOT NULL)""",
    "CREATE INDEX runs_identity ON runs(identity_hash)",
    """CREATE TABLE launches (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        record TEXT NOT NULL,
        end_record TEXT,
        PRIMARY KEY (run_id, idx))""",
    """CREATE TABLE measurements (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        pattern TEXT NOT NULL,
        bytes INTEGER NOT NULL,
        metric TEXT NOT NULL,
        n_samples INTEGER NOT NULL,
        record TEXT NOT NULL,
        samples BLOB NOT NULL,
        PRIMARY KEY (run_id, seq))""",
)

VERSION_2 = (
    "ALTER TABLE runs ADD COLUMN hosts TEXT NOT NULL DEFAULT '[]'",
    "ALTER TABLE runs ADD COLUMN mpi TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE runs ADD COLUMN patterns TEXT NOT NULL DEFAULT '[]'",
    "ALTER TABLE runs ADD COLUMN sizes TEXT NOT NULL DEFAULT '[]'",
    "ALTER TABLE runs ADD COLUMN nranks INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE runs ADD COLUMN placement TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE runs ADD COLUMN n_measurements INTEGER NOT NULL DEFAULT 0",
    "CREATE INDEX measurements_pattern ON measurements(pattern, bytes)",
)

VERSION_3 = (
    "ALTER TABLE launches ADD COLUMN abort_record TEXT",
)

VERSION_4 = (
    """CREATE TABLE profiles (
        id INTEGER PRIMARY KEY,
        content_hash TEXT NOT NULL UNIQUE,
        start_time TEXT NOT NULL,
        added_at TEXT NOT NULL,
        label TEXT NOT NULL DEFAULT '',
        source_path TEXT NOT NULL DEFAULT '',
        argv TEXT NOT NULL,
        mpi TEXT NOT NULL,
        hosts TEXT NOT NULL,
        nranks INTEGER NOT NULL,
        complete INTEGER NOT NULL,
        messages INTEGER NOT NULL,
        header TEXT NOT NULL,
        ranks TEXT NOT NULL)""",
)

VERSION_6 = (
    "ALTER TABLE runs ADD COLUMN machine TEXT NOT NULL DEFAULT ''",
)


# A start time in the UTC form msgperf writes, to the second: compared as text by `runs --since`.
# The query repeats NOT_UTC word for word, so that SQLite can use the partial index below.
_SECONDS = "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]"
IS_UTC = f"(start_time GLOB '{_SECONDS}Z' OR start_time GLOB '{_SECONDS}+00:00')"
NOT_UTC = f"NOT {IS_UTC}"

VERSION_5 = (
    """CREATE TABLE run_patterns (
        pattern TEXT NOT NULL,
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        PRIMARY KEY (pattern, run_id)) WITHOUT ROWID""",
    "CREATE INDEX run_patterns_run ON run_patterns(run_id)",  # a deleted run's rows, found fast
    """CREATE TABLE run_hosts (
        host TEXT NOT NULL,
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        PRIMARY KEY (host, run_id)) WITHOUT ROWID""",
    "CREATE INDEX run_hosts_run ON run_hosts(run_id)",
    "CREATE INDEX runs_label ON runs(label)",
    "CREATE INDEX runs_mpi ON runs(mpi)",
    "CREATE INDEX runs_source ON runs(source)",
    "CREATE INDEX runs_time ON runs(start_time, added_at)",
    # the runs whose start time is not in the UTC form msgperf writes: `runs --since` parses these
    f"CREATE INDEX runs_time_other ON runs(start_time, added_at) WHERE {NOT_UTC}",
)


def update_to_1(conn: sqlite3.Connection) -> None:
    for statement in VERSION_1:
        conn.execute(statement)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")


def update_to_2(conn: sqlite3.Connection) -> None:
    for statement in VERSION_2:
        conn.execute(statement)
    for run_id, run_record in conn.execute("SELECT id, run_record FROM runs").fetchall():
        where = f"run {run_id}"
        info = decode_run_record(run_record, where)
        launches = [decode_launch_rows(record, end, where) for record, end in conn.execute(
            "SELECT record, end_record FROM launches WHERE run_id = ? ORDER BY idx", (run_id,))]
        measured = conn.execute(
            "SELECT pattern, bytes FROM measurements WHERE run_id = ? ORDER BY seq", (run_id,)).fetchall()
        write_listing(conn, run_id, listing_of(info, launches, measured))


def update_to_3(conn: sqlite3.Connection) -> None:
    for statement in VERSION_3:
        conn.execute(statement)


def update_to_4(conn: sqlite3.Connection) -> None:
    for statement in VERSION_4:
        conn.execute(statement)


def update_to_5(conn: sqlite3.Connection) -> None:
    for statement in VERSION_5:
        conn.execute(statement)
    for run_id, hosts, patterns in conn.execute("SELECT id, hosts, patterns FROM runs").fetchall():
        write_filter_rows(conn, run_id, json.loads(hosts), json.loads(patterns))


def write_filter_rows(conn: sqlite3.Connection, run_id: int, hosts, patterns) -> None:
    """The version-5 rows ``msgperf runs`` filters on: a run's hosts and its patterns (under the
    one vocabulary's names), replacing any it had."""
    conn.execute("DELETE FROM run_hosts WHERE run_id = ?", (run_id,))
    conn.execute("DELETE FROM run_patterns WHERE run_id = ?", (run_id,))
    conn.executemany("INSERT OR IGNORE INTO run_hosts (host, run_id) VALUES (?, ?)",
                     [(h, run_id) for h in hosts])
    conn.executemany("INSERT OR IGNORE INTO run_patterns (pattern, run_id) VALUES (?, ?)",
                     [(pattern_name(p), run_id) for p in patterns])


def update_to_6(conn: sqlite3.Connection) -> None:
    for statement in VERSION_6:
        conn.execute(statement)
    for (run_id,) in conn.execute("SELECT id FROM runs").fetchall():
        where = f"run {run_id}"
        launches = [decode_launch_rows(record, end, where) for record, end in conn.execute(
            "SELECT record, end_record FROM launches WHERE run_id = ? ORDER BY idx", (run_id,))]
        write_machine(conn, run_id, machine_of(launches))


def write_machine(conn: sqlite3.Connection, run_id: int, machine: str) -> None:
    """Store the version-6 listing column of one run."""
    conn.execute("UPDATE runs SET machine = ? WHERE id = ?", (machine, run_id))


def write_listing(conn: sqlite3.Connection, run_id: int, listing) -> None:
    """Store the version-2 listing columns of one run."""
    conn.execute(
        "UPDATE runs SET hosts = ?, mpi = ?, patterns = ?, sizes = ?, nranks = ?, placement = ?, "
        "n_measurements = ? WHERE id = ?",
        (dumps(list(listing.hosts)), listing.mpi, dumps(list(listing.patterns)),
         dumps(list(listing.sizes)), listing.nranks, listing.placement, listing.n_measurements, run_id))


MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [update_to_1, update_to_2, update_to_3, update_to_4,
                                                          update_to_5, update_to_6]
LATEST_VERSION = len(MIGRATIONS)


def user_version(conn: sqlite3.Connection) -> int:
    return conn.execute("PRAGMA user_version").fetchone()[0]


def migrate(conn: sqlite3.Connection, name: str, target: int = LATEST_VERSION) -> int:
    """Bring the database to ``target`` (tests stop at earlier versions); return the old version."""
    version = user_version(conn)
    if version > LATEST_VERSION:
        raise StoreError(f"{name}: database schema version {version} is newer than this msgperf "
                         f"reads ({LATEST_VERSION}); upgrade msgperf or pass another --db")
    if version >= target:
        return version
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = user_version(conn)  # another process may have migrated while we waited
        if version == 0:
            _check_unused(conn, name)
        for n in range(version + 1, target + 1):
            MIGRATIONS[n - 1](conn)
            conn.execute(f"PRAGMA user_version = {n}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return version


def check_application(conn: sqlite3.Connection, name: str) -> None:
    """Refuse an SQLite file that is not msgperf's (read-only opening: nothing is created)."""
    app = conn.execute("PRAGMA application_id").fetchone()[0]
    if app != APPLICATION_ID:
        raise StoreError(f"{name}: an SQLite database that is not msgperf's (application id {app:#x}); "
                         "pass another --db or MSGPERF_HOME")


def _check_unused(conn: sqlite3.Connection, name: str) -> None:
    """Refuse to create msgperf's tables inside somebody else's database."""
    app = conn.execute("PRAGMA application_id").fetchone()[0]
    tables = conn.execute("SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").fetchone()[0]
    if (app not in (0, APPLICATION_ID)) or tables:
        raise StoreError(f"{name}: an SQLite database that is not msgperf's (it already has tables); "
                         "pass another --db or MSGPERF_HOME")
