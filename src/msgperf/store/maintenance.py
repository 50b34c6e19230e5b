"""``msgperf db check`` and ``msgperf db recover``: find what is wrong with a database, and save
what can still be read into a new one. Neither ever writes to the database it examines: both
open it read-only (``db.connect_readonly``).

check: SQLite's ``PRAGMA integrity_check`` (every page, index and constraint), ``PRAGMA
foreign_key_check``, the application id and schema version, the tables and columns of the
current schema (compared with a database the migrations build in memory), and every stored run
and profile decoded as ``msgperf show`` would. One line per problem.

recover: SQLite's own ``.recover`` (which reads raw pages) exists only in the sqlite3 shell, not
in Python's module. This copies, run by run, every run that can still be read *and decoded*
(its run record, launches, measurements and samples) into a new database beside the old one,
keeping its id, label and time of adding; then the profiles. What it cannot save: a run any of
whose rows sit on a damaged page (it is skipped whole and named, never copied in part), and rows
that no table scan reaches any more (a damaged interior page of the ``runs`` table hides every
row below it; ids beyond the last readable one are probed one by one, up to
``PROBE_AFTER_LAST`` of them, and every id an index of ``runs`` or a table naming runs still
holds is tried). What it lost is counted against what the damaged database names (``_claimed_ids``);
when neither the ``runs`` table nor a whole index of it can be read, it says it cannot tell.
It refuses another program's database and a newer msgperf's.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from msgperf.errors import MsgperfError
from msgperf.store import schema
from msgperf.store.db import Store, StoreError, connect_readonly, database_error, is_sqlite_file, open_store

MAX_INTEGRITY_LINES = 100  # integrity_check stops listing after this many
PROBE_AFTER_LAST = 1000  # ids probed one by one past the last id a scan could read


def _open(path: Path) -> sqlite3.Connection:
    if not path.exists():
        raise StoreError(f"{path}: no such database")
    if path.is_dir():
        raise StoreError(f"{path}: is a directory; --db takes the path of a database file")
    if not is_sqlite_file(path):
        raise StoreError(f"{path}: not an SQLite database (its first bytes are not SQLite's header)")
    try:
        return connect_readonly(path, create_nothing=True)
    except sqlite3.Error as exc:
        raise database_error(str(path), exc, "open") from None


def expected_columns() -> dict[str, list[str]]:
    """table -> columns of the current schema, from the migrations themselves (in memory)."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        schema.migrate(conn, ":memory:")
        return _columns(conn)
    finally:
        conn.close()


def _columns(conn: sqlite3.Connection) -> dict[str, list[str]]:
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                         "AND name NOT LIKE 'sqlite_%' ORDER BY name")]
    return {t: [r[1] for r in conn.execute(f'PRAGMA table_info("{t}")')] for t in tables}


def check_database(path: str | os.PathLike) -> tuple[list[str], str]:
    """(problems, one line of what was checked). Problems are one line each, naming the database."""
    p = Path(path)
    conn = _open(p)
    problems: list[str] = []

    def problem(text: str) -> None:
        problems.append(f"{p}: {text}")

    runs = profiles = 0
    try:
        try:
            for (line,) in conn.execute(f"PRAGMA integrity_check({MAX_INTEGRITY_LINES})"):
                if line != "ok":  # one row can hold several lines ("*** in database main ***\nOn tree ...")
                    for part in line.splitlines():
                        if part.strip() and not part.startswith("***"):
                            problem(f"integrity: {part.strip()}")
        except sqlite3.DatabaseError as exc:
            problem(f"integrity_check could not run: {exc}")
        try:
            for table, rowid, parent, _ in conn.execute("PRAGMA foreign_key_check"):
                problem(f"{table} row {rowid} refers to a missing {parent} row")
        except sqlite3.DatabaseError as exc:
            problem(f"foreign_key_check could not run: {exc}")
        try:
            app = conn.execute("PRAGMA application_id").fetchone()[0]
            version = schema.user_version(conn)
            columns = _columns(conn)
        except sqlite3.DatabaseError as exc:
            problem(f"the schema cannot be read: {exc}")
            return problems, f"{p}: checked the pages only"
        if app != schema.APPLICATION_ID:
            problem(f"application id {app:#x} is not msgperf's ({schema.APPLICATION_ID:#x})")
        if version > schema.LATEST_VERSION:
            problem(f"schema version {version} is newer than this msgperf reads ({schema.LATEST_VERSION})")
        elif version == schema.LATEST_VERSION:
            for table, wanted in expected_columns().items():
                have = columns.get(table)
                if have is None:
                    problem(f"table '{table}' is missing")
                elif have != wanted:
                    missing = [c for c in wanted if c not in have]
                    problem(f"table '{table}' has columns {', '.join(have)}; expected {', '.join(wanted)}"
                            + (f" (missing: {', '.join(missing)})" if missing else ""))
        # an older version is upgraded when msgperf next opens it for writing: not a problem
        if version == schema.LATEST_VERSION and app == schema.APPLICATION_ID:
            store = Store(conn, str(p), readonly=True)
            ids, scan_error = _run_ids(conn)
            if scan_error:
                problem(f"the runs table cannot be read to its end ({scan_error})")
            for run_id in ids:
                try:
                    store.load_run(run_id)
                    runs += 1
                except MsgperfError as exc:
                    problem(f"run {run_id} cannot be read: {_after_path(str(exc), str(p))}")
            try:
                profile_ids = [r.id for r in store.list_profiles()]
            except MsgperfError as exc:
                problem(f"the profiles cannot be listed: {_after_path(str(exc), str(p))}")
                profile_ids = []
            for profile_id in profile_ids:
                try:
                    store.load_profile(profile_id)
                    profiles += 1
                except MsgperfError as exc:
                    problem(f"profile {profile_id} cannot be read: {_after_path(str(exc), str(p))}")
    finally:
        conn.close()
    return problems, (f"{p}: schema version {version}, {runs} run(s) and {profiles} profile(s) read back; "
                      "pages, indexes and foreign keys checked")


def _after_path(message: str, path: str) -> str:
    """The cause alone: without the database's path in front, nor the advice to run check/recover."""
    for prefix in (path + ": ", path + ", "):
        if message.startswith(prefix):
            message = message[len(prefix):]
    return message.split("; 'msgperf db check", 1)[0]


def _run_ids(conn: sqlite3.Connection) -> tuple[list[int], str]:
    """The ids a scan of ``runs`` reads, then ids probed one by one past the last: (ids, the
    scan's error or "")."""
    ids: list[int] = []
    error = ""
    try:
        for (run_id,) in conn.execute("SELECT id FROM runs ORDER BY id"):
            ids.append(run_id)
    except sqlite3.DatabaseError as exc:
        error = str(exc)
    if error:
        start = ids[-1] + 1 if ids else 1
        misses = 0
        candidate = start
        while misses < PROBE_AFTER_LAST:
            try:
                found = conn.execute("SELECT id FROM runs WHERE id = ?", (candidate,)).fetchone()
            except sqlite3.DatabaseError:
                found = None
            if found:
                ids.append(candidate)
                misses = 0
            else:
                misses += 1
            candidate += 1
    return ids, error


def _claimed_ids(conn: sqlite3.Connection) -> tuple[set[int], int | None, list[str], bool]:
    """What the damaged database says about its runs, beyond a scan of ``runs``: the ids its
    indexes on ``runs`` hold (an index scan reads the index's own pages, not the table's), the
    run ids its other tables refer to, and ``count(*)``. Returns (ids, count or None, what could
    not be read, whether a whole index of ``runs`` was read: then the ids are every run it held)."""
    ids: set[int] = set()
    unread: list[str] = []
    whole_index = False
    try:
        indexes = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'runs' AND sql IS NOT NULL "
            "AND sql NOT LIKE '% WHERE %'")]  # a partial index holds some runs only
        children = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN "
            "('launches', 'measurements', 'run_patterns', 'run_hosts')")]
    except sqlite3.DatabaseError:
        return ids, None, ["the schema"], False
    queries = [(f"the index {name}", f'SELECT id FROM runs INDEXED BY "{name}"') for name in indexes]
    queries += [(f"the table {name}", f'SELECT DISTINCT run_id FROM "{name}"') for name in children]
    for what, sql in queries:
        try:
            ids.update(r[0] for r in conn.execute(sql))
            whole_index = whole_index or what.startswith("the index")
        except sqlite3.DatabaseError:
            unread.append(what)
    try:
        count = int(conn.execute("SELECT count(*) FROM runs").fetchone()[0])
    except sqlite3.DatabaseError:
        count = None
    return ids, count, unread, whole_index


@dataclass
class Recovery:
    target: Path
    runs: list[int] = field(default_factory=list)  # ids copied (kept)
    lost_runs: list[str] = field(default_factory=list)  # "run N: why"
    profiles: int = 0
    lost_profiles: list[str] = field(default_factory=list)
    scan_error: str = ""
    unread: list[str] = field(default_factory=list)  # why it cannot tell how many runs there were (empty: it can)
    held: int | None = None  # runs the damaged database held, as far as it tells (None: it cannot tell)

    @property
    def lost_count(self) -> int:
        """Runs known to be lost: named in ``lost_runs`` (an id whose run does not read back)."""
        return len(self.lost_runs)

    @property
    def knows_losses(self) -> bool:
        """Whether ``lost_count`` is every run lost: the runs table or a whole index of it was read."""
        return self.held is not None


def _refuse_foreign(conn: sqlite3.Connection, p: Path) -> None:
    """Recover only what this msgperf can read: not another program's SQLite database, nor one a
    newer msgperf made (whose runs it would count as lost). One line, nothing written."""
    try:
        app = conn.execute("PRAGMA application_id").fetchone()[0]
        version = schema.user_version(conn)
    except sqlite3.DatabaseError as exc:
        raise database_error(str(p), exc, "open") from None
    if app != schema.APPLICATION_ID:
        raise StoreError(f"{p}: not a msgperf database (application id {app:#x}, not {schema.APPLICATION_ID:#x}); "
                         "nothing to recover, nothing written")
    if version > schema.LATEST_VERSION:
        raise StoreError(f"{p}: made by a newer msgperf (schema version {version}; this one reads up to "
                         f"{schema.LATEST_VERSION}); recover it with that msgperf; nothing written")


def default_target(path: Path) -> Path:
    return path.with_name(f"{path.stem}.recovered{path.suffix or '.db'}")


def recover_database(path: str | os.PathLike, target: str | os.PathLike | None = None) -> Recovery:
    """Copy every readable run and profile of ``path`` into a new database ``target`` (default:
    NAME.recovered.db beside it), written under a temporary name and renamed when complete. The
    original is opened read-only and never changed. ``target`` must not exist."""
    p = Path(path)
    out = Path(target) if target else default_target(p)
    if out.exists() or out.is_symlink():
        raise StoreError(f"{out}: exists already; move it away or pass another --output (recover never "
                         "replaces a file)")
    if out.resolve() == p.resolve():
        raise StoreError(f"{out}: the output must be a new file, not the database being recovered")
    source = _open(p)
    try:
        _refuse_foreign(source, p)
    except BaseException:
        source.close()
        raise
    tmp = out.with_name(f".{out.name}.tmp")
    for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
        leftover.unlink(missing_ok=True)
    recovery = Recovery(target=out)
    try:
        old = Store(source, str(p), readonly=True)
        ids, recovery.scan_error = _run_ids(source)
        claimed, count, unread, whole_index = _claimed_ids(source)
        # every id the database names, read or not: one it names but cannot read back is lost
        ids = sorted(set(ids) | claimed)
        known = whole_index or not recovery.scan_error  # a whole index, or the table itself, was read
        if recovery.scan_error:
            unread.insert(0, "the runs table")
        if count is not None and count > len(ids):
            known = False
            unread.append(f"{count - len(ids)} run(s) that count(*) finds and no index names")
        recovery.unread = [] if known else unread
        recovery.held = len(ids) if known else None
        with open_store(tmp) as new:
            for run_id in ids:
                try:
                    run, row = old.load_run(run_id), old.get_row(run_id)
                except MsgperfError as exc:
                    recovery.lost_runs.append(f"run {run_id}: {_after_path(str(exc), str(p))}")
                    continue
                new.add_recovered_run(run, row)
                recovery.runs.append(run_id)
            try:
                profile_rows = old.list_profiles()
            except MsgperfError as exc:
                recovery.lost_profiles.append(f"the profiles table: {_after_path(str(exc), str(p))}")
                profile_rows = []
            for prow in profile_rows:
                try:
                    new.add_profile(old.load_profile(prow.id), label=prow.label)
                    recovery.profiles += 1
                except MsgperfError as exc:
                    recovery.lost_profiles.append(f"profile {prow.id}: {_after_path(str(exc), str(p))}")
            new.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            new.conn.execute("PRAGMA journal_mode = DELETE")  # one self-contained file to rename
        os.replace(tmp, out)
    except BaseException:
        for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
            leftover.unlink(missing_ok=True)
        raise
    finally:
        source.close()
    return recovery
