"""The results store: an embedded SQLite database every run lands in, raw samples included.

Where it lives: ``--db PATH`` (the ``path`` argument), else ``$MSGPERF_HOME/msgperf.db``, else
``$XDG_DATA_HOME/msgperf/msgperf.db`` (``~/.local/share/msgperf/msgperf.db``). WAL mode, a
busy timeout and one ``BEGIN IMMEDIATE`` transaction per write let several processes (a batch
of jobs, two terminals) write to one database at once. Schema and migrations: ``schema.py``;
the layout is documented in docs/store.md.
"""

from __future__ import annotations

import fnmatch
import functools
import hashlib
import json
import os
import sqlite3
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Iterator, TypeVar

from msgperf.records.format import Run
from msgperf.records.pattern_names import pattern_name
from msgperf.records.profile_format import Profile
from msgperf.records.spilled_samples import SPILL_ABOVE_SAMPLE_BYTES, spill_or_none, spilled
from msgperf.store import profiles, schema
from msgperf.store.identity import content_hash, identity_hash, measurement_digest, measurement_digests
from msgperf.store.listing import RunFilter, RunRow, listing_of, parse_time
from msgperf.store.location import default_path
from msgperf.store.rows import (StoreError, decode_launch_rows, decode_measurement_row,
                                decode_run_record, dumps, launch_jsons, measurement_record,
                                run_record_json, samples_blob)

BUSY_TIMEOUT_S = 60.0  # how long a writer waits for another writer before giving up

__all__ = ["Store", "StoreError", "NoStoreError", "open_store", "default_path", "RunRow", "RunFilter"]


def writable(p: Path) -> bool:
    """Whether SQLite can write the database at ``p`` (the file and, for its journal, its directory)."""
    return os.access(p, os.W_OK) and os.access(p.parent, os.W_OK)


def connect_readonly(p: Path, create_nothing: bool = False) -> sqlite3.Connection:
    """A read-only connection that never writes to ``p``: ``mode=ro``, and where SQLite cannot
    even create the WAL's shared-memory file (a read-only mount), ``immutable=1`` (nobody can
    change a file on a read-only mount either). ``create_nothing``: no ``-wal``/``-shm`` file
    may appear beside ``p`` either (db check, db recover): when there is no ``-wal`` file (no
    commit waits outside the file), the file is read as immutable."""
    uri = p.resolve().as_uri()
    if create_nothing and not Path(f"{p}-wal").exists():
        return sqlite3.connect(f"{uri}?immutable=1", uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return conn
    except sqlite3.OperationalError as exc:
        conn.close()
        if "unable to open" not in str(exc) or writable(p):
            raise
    return sqlite3.connect(f"{uri}?immutable=1", uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None)


def open_store(path: str | os.PathLike | None = None, create: bool = True) -> "Store":
    """Open (migrating as needed) the store at ``path`` or the default place; with
    ``create=False`` (commands that only read) a missing database is an error, not a new file,
    and a database msgperf cannot write (a read-only mount or file) is opened read-only: it can
    be listed, shown and exported; writing to it is a one-line error."""
    p = Path(path).expanduser() if path else default_path()
    if p.is_dir():
        raise StoreError(f"{p}: is a directory; --db takes the path of a database file")
    if not create and not p.exists():
        raise NoStoreError(f"{p}: no msgperf database here yet ('msgperf run' and 'msgperf import' "
                           "create it; --db or MSGPERF_HOME point elsewhere)")
    if not create and not writable(p):
        return _open_readonly(p)
    if p.exists() and not writable(p):
        raise StoreError(f"{p}: the database is read-only here (its file or directory is not writable); "
                         "nothing can be stored in it; pass a writable --db")
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"{p.parent}: cannot create the store's directory ({exc.strerror}); "
                         "set MSGPERF_HOME or pass --db") from None
    try:
        conn = sqlite3.connect(str(p), timeout=BUSY_TIMEOUT_S, isolation_level=None)
    except sqlite3.Error as exc:
        raise StoreError(f"{p}: cannot open the database ({exc}); pass another --db") from None
    store = Store(conn, str(p))
    try:
        store._prepare()
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise database_error(str(p), exc, "open") from None
    except BaseException:
        conn.close()
        raise
    return store


def _open_readonly(p: Path) -> "Store":
    try:
        conn = connect_readonly(p)
    except sqlite3.DatabaseError as exc:
        raise database_error(str(p), exc, "open") from None
    store = Store(conn, str(p), readonly=True)
    try:
        version = schema.user_version(conn)
        if version != schema.LATEST_VERSION:
            raise StoreError(f"{p}: read-only, and its schema (version {version}) must be upgraded to "
                             f"{schema.LATEST_VERSION} before this msgperf reads it; copy it somewhere writable")
        schema.check_application(conn, str(p))
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise database_error(str(p), exc, "open") from None
    except BaseException:
        conn.close()
        raise
    return store


def database_error(path: str, exc: sqlite3.Error, doing: str = "use") -> StoreError:
    """One line for an SQLite error: a full disk, a read-only database, a busy one, a damaged
    one (with the commands that check and recover it), or the error itself."""
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None  # SQLITE_IOERR_SHMSIZE -> SQLITE_IOERR
    text = str(exc)
    if primary == sqlite3.SQLITE_FULL or "disk is full" in text:
        return StoreError(f"{path}: the disk is full ({text}); nothing was stored; free space and try again")
    if primary == sqlite3.SQLITE_IOERR or "disk I/O error" in text:
        # Opening a WAL database creates its -wal and -shm files: on a full disk that is an I/O
        # error, which is not damage (it was called "not a usable msgperf database").
        if disk_full(Path(path).parent):
            return StoreError(f"{path}: the disk is full ({text}); nothing was changed; free space and try again")
        return StoreError(f"{path}: the disk could not be written or read ({text}: a file-size limit, a "
                          "full quota or a failing disk); nothing was changed; check the disk and try again")
    if code == sqlite3.SQLITE_READONLY or "readonly" in text:
        return StoreError(f"{path}: the database is read-only here ({text}); nothing was stored; "
                          "pass a writable --db")
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or "locked" in text:
        return StoreError(f"{path}: the database is busy ({text}) after waiting {BUSY_TIMEOUT_S:g} s; try again")
    if ((code in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB) or "malformed" in text or "not a database" in text)
            and is_sqlite_file(path)):
        return StoreError(f"{path}: the database is damaged ({text}); 'msgperf db check --db {path}' lists "
                          f"the problems and 'msgperf db recover --db {path}' saves what can be read")
    if doing == "open":
        return StoreError(f"{path}: not a usable msgperf database ({text}); pass another --db")
    return StoreError(f"{path}: database error ({text})")


DISK_FULL_BYTES = 1 << 20  # less free than this beside a database: SQLite cannot grow its -wal


def disk_full(directory: Path) -> bool:
    """Whether the file system of ``directory`` has (about) no space left for this user."""
    try:
        st = os.statvfs(directory)
    except OSError:
        return False
    return st.f_bavail * st.f_frsize < DISK_FULL_BYTES


SQLITE_HEADER = b"SQLite format 3\x00"


def is_sqlite_file(path: str | Path) -> bool:
    """Whether the file starts with SQLite's header (a damaged database, rather than another file)."""
    try:
        with open(path, "rb") as f:
            return f.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


_F = TypeVar("_F", bound=Callable[..., Any])


def _guarded(method: _F) -> _F:
    """SQLite errors inside a Store method become one-line StoreErrors (database_error)."""
    @functools.wraps(method)
    def wrapper(self: "Store", *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as exc:
            raise database_error(self.path, exc) from None
        except OverflowError:  # an id or count beyond SQLite's 64-bit integers (msgperf label 10**20)
            raise StoreError(f"{self.path}: a number beyond SQLite's 64-bit integers; a run id is one "
                             "'msgperf runs' lists") from None
    return wrapper  # type: ignore[return-value]


def _launch_as_started(record_json: str) -> str:
    """A launch record without what is added once the launch is over (its ``launch_host``
    facts), so a copy imported while the run measured is recognised as the start of the run
    ``msgperf run`` stores at its end."""
    record = json.loads(record_json)
    record.pop("host", None)
    return dumps(record)


class NoStoreError(StoreError):
    """The database file does not exist (and was not to be created)."""


def _utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass
class Store:
    conn: sqlite3.Connection
    path: str
    readonly: bool = False  # opened with mode=ro (a database msgperf cannot write)

    # ---- lifecycle --------------------------------------------------------------------------

    def _prepare(self) -> None:
        self.conn.execute("PRAGMA foreign_keys = ON")
        self.conn.execute("PRAGMA synchronous = NORMAL")  # safe with WAL; a crash loses no commit
        for attempt in range(50):  # switching to WAL needs a moment alone with the file
            try:
                if self.conn.execute("PRAGMA journal_mode = WAL").fetchone()[0].lower() != "wal":
                    raise StoreError(f"{self.path}: SQLite cannot use WAL mode here (a network "
                                     "file system?); put the database on a local disk with --db")
                break
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or attempt == 49:
                    raise
                time.sleep(0.05)
        schema.migrate(self.conn, self.path)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _write(self) -> "_Transaction":
        if self.readonly:
            raise StoreError(f"{self.path}: the database is read-only here (its file or directory is not "
                             "writable); nothing was stored; pass a writable --db")
        return _Transaction(self.conn)

    # ---- writing ----------------------------------------------------------------------------

    @_guarded
    def add_run(self, run: Run, label: str = "") -> tuple[int, bool]:
        """Store ``run``; return (id, added).

        Idempotent: a run whose content is already stored returns its id and False. A run that
        continues a stored one (same ``run`` record, the stored launches and measurements a
        prefix of its own: ``msgperf run --resume``) replaces it under the same id (True); an
        earlier, shorter copy of a stored run changes nothing (False).
        """
        digests = measurement_digests(run)
        chash, ihash = content_hash(run, digests), identity_hash(run)
        with self._write():
            row = self.conn.execute("SELECT id FROM runs WHERE content_hash = ?", (chash,)).fetchone()
            if row:
                return row[0], False
            run_id, relation = (self._relative(run, ihash, digests) if run.info.source == "msgperf"
                                else (None, ""))
            if relation == "older copy":
                return run_id, False
            if run_id is None:
                run_id = self.conn.execute(
                    "INSERT INTO runs (content_hash, identity_hash, source, start_time, added_at, "
                    "label, source_path, run_record) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (chash, ihash, run.info.source, run.info.start_time, _utc_now(), label,
                     run.path, run_record_json(run.info))).lastrowid
            else:
                self.conn.execute("DELETE FROM launches WHERE run_id = ?", (run_id,))
                self.conn.execute("DELETE FROM measurements WHERE run_id = ?", (run_id,))
                self.conn.execute("UPDATE runs SET content_hash = ?, source_path = ? WHERE id = ?",
                                  (chash, run.path, run_id))
            self._insert_children(run_id, run)
            measured = [(m.pattern, m.bytes) for m in run.measurements]
            listing = listing_of(run.info, run.launches, measured)
            schema.write_listing(self.conn, run_id, listing)
            schema.write_machine(self.conn, run_id, listing.machine)
            schema.write_filter_rows(self.conn, run_id, listing.hosts, listing.patterns)
        return run_id, True

    @_guarded
    def add_recovered_run(self, run: Run, row: RunRow) -> int:
        """Store ``run`` under the id, label and time of adding it had in a damaged database
        (``msgperf db recover``, into a new database); returns the id."""
        digests = measurement_digests(run)
        with self._write():
            self.conn.execute(
                "INSERT INTO runs (id, content_hash, identity_hash, source, start_time, added_at, label, "
                "source_path, run_record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (row.id, content_hash(run, digests), identity_hash(run), run.info.source, run.info.start_time,
                 row.added_at, row.label, row.source_path, run_record_json(run.info)))
            self._insert_children(row.id, run)
            measured = [(m.pattern, m.bytes) for m in run.measurements]
            schema.write_listing(self.conn, row.id, listing_of(run.info, run.launches, measured))
        return row.id

    def _relative(self, run: Run, ihash: str, digests: list[bytes]) -> tuple[int | None, str]:
        """(id, "continued") for a stored, shorter version of ``run``; (id, "older copy") when
        ``run`` is a shorter version of a stored run; else (None, "")."""
        new_launches = [_launch_as_started(launch_jsons(l)[0]) for l in run.launches]
        for (run_id,) in self.conn.execute("SELECT id FROM runs WHERE identity_hash = ?", (ihash,)).fetchall():
            old_launches = [_launch_as_started(r[0]) for r in self.conn.execute(
                "SELECT record FROM launches WHERE run_id = ? ORDER BY idx", (run_id,))]
            old_digests = [measurement_digest(record, blob) for record, blob in self.conn.execute(
                "SELECT record, samples FROM measurements WHERE run_id = ? ORDER BY seq", (run_id,))]
            if (new_launches[:len(old_launches)] == old_launches
                    and digests[:len(old_digests)] == old_digests):
                return run_id, "continued"
            if (old_launches[:len(new_launches)] == new_launches
                    and old_digests[:len(digests)] == digests):
                return run_id, "older copy"
        return None, ""

    def _insert_children(self, run_id: int, run: Run) -> None:
        self.conn.executemany(
            "INSERT INTO launches (run_id, idx, record, end_record, abort_record) VALUES (?, ?, ?, ?, ?)",
            [(run_id, l.index, *launch_jsons(l)) for l in run.launches])
        self.conn.executemany(
            "INSERT INTO measurements (run_id, seq, pattern, bytes, metric, n_samples, record, samples) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            # a generator: one measurement's samples at a time (a large run's wait on disk)
            ((run_id, seq, m.pattern, m.bytes, m.metric, int(m.samples_s.size),
              dumps(measurement_record(m)), samples_blob(m.samples_s))
             for seq, m in enumerate(run.measurements)))

    @_guarded
    def add_profile(self, profile: Profile, label: str = "") -> tuple[int, bool]:
        """Store an application's profile (``msgperf profile``); return (id, added). Idempotent:
        a profile whose records are stored already returns its id and False."""
        with self._write():
            return profiles.insert(self.conn, profile, label, _utc_now())

    @_guarded
    def load_profile(self, profile_id: int) -> Profile:
        """The stored profile, record for record as it was added."""
        return profiles.load(self.conn, profile_id, self.path)

    @_guarded
    def list_profiles(self) -> list[profiles.ProfileRow]:
        """Stored profiles, oldest id first."""
        return profiles.rows(self.conn)

    @_guarded
    def set_label(self, run_id: int, text: str) -> None:
        """Label a run ("" clears the label)."""
        if "\n" in text or "\r" in text:
            raise StoreError("a label is one line of text")
        with self._write():
            if self.conn.execute("UPDATE runs SET label = ? WHERE id = ?", (text, run_id)).rowcount == 0:
                raise self._missing(run_id)

    @_guarded
    def delete_run(self, run_id: int) -> None:
        with self._write():
            if self.conn.execute("DELETE FROM runs WHERE id = ?", (run_id,)).rowcount == 0:
                raise self._missing(run_id)

    # ---- reading ----------------------------------------------------------------------------

    def _missing(self, run_id: int) -> StoreError:
        return StoreError(f"no run {run_id} in {self.path} ('msgperf runs' lists the stored runs)")

    @_guarded
    def load_run(self, run_id: int) -> Run:
        """The stored run, exactly as it was added (samples bit for bit)."""
        row = self.conn.execute("SELECT run_record, source_path FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise self._missing(run_id)
        where = f"{self.path}, run {run_id}"
        info = decode_run_record(row[0], where)
        launches = tuple(decode_launch_rows(record, end, where, abort) for record, end, abort in self.conn.execute(
            "SELECT record, end_record, abort_record FROM launches WHERE run_id = ? ORDER BY idx", (run_id,)))
        # a large run keeps its samples on disk while it is analysed (records/spilled_samples.py)
        total = self.conn.execute("SELECT sum(length(samples)) FROM measurements WHERE run_id = ?",
                                  (run_id,)).fetchone()[0] or 0
        spill = spill_or_none() if total > SPILL_ABOVE_SAMPLE_BYTES else None
        measurements = []
        for seq, record, blob in self.conn.execute("SELECT seq, record, samples FROM measurements WHERE run_id = ? "
                                                   "ORDER BY seq", (run_id,)):
            m = decode_measurement_row(record, blob, f"{where}, measurement {seq}")
            del blob
            try:
                m = spilled(m, spill)
            except OSError:  # a full disk: this and the rest stay in memory
                spill = None
            measurements.append(m)
        return Run(info=info, launches=launches, measurements=tuple(measurements), path=row[1])

    @_guarded
    def content_now(self, run_id: int) -> str:
        """A SHA-256 of a stored run's records and samples as the database holds them now (what
        the analysis cache is keyed by). Unlike ``content_hash``, written when the run was
        added (which the store keeps to recognise a run added again), it changes when a row is
        damaged or edited after that."""
        row = self.conn.execute("SELECT run_record, source_path FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise self._missing(run_id)
        h = hashlib.sha256(b"msgperf-stored-run-now-v1\0")

        def add(value: object) -> None:
            data = value if isinstance(value, bytes) else repr(value).encode()
            h.update(len(data).to_bytes(8, "little") + data)

        for value in row:
            add(value)
        for launch in self.conn.execute("SELECT idx, record, end_record, abort_record FROM launches "
                                        "WHERE run_id = ? ORDER BY idx", (run_id,)):
            for value in launch:
                add(value)
        for measurement in self.conn.execute("SELECT seq, record, samples FROM measurements WHERE run_id = ? "
                                             "ORDER BY seq", (run_id,)):
            for value in measurement:
                add(value)
        return h.hexdigest()

    @_guarded
    def get_row(self, run_id: int) -> RunRow:
        rows = list(self._rows("WHERE id = ?", (run_id,)))
        if not rows:
            raise self._missing(run_id)
        return rows[0]

    @_guarded
    def list_runs(self, filters: RunFilter | None = None) -> list[RunRow]:
        """Stored runs matching ``filters``, oldest id first."""
        return self.find_runs(filters)[0]

    @_guarded  # 'runs' calls it directly: a damaged page here was a traceback
    def find_runs(self, filters: RunFilter | None = None, newest: int | None = None) -> tuple[list[RunRow], int]:
        """(the runs matching ``filters``, oldest id first; how many match). With ``newest``, only
        the ``newest`` highest ids are returned (and read): the count still covers every match.

        Each filter is answered from its index (schema version 5) without reading the runs'
        records; only the rows returned are read in full."""
        filters = filters or RunFilter()
        ids = self._matching_ids(filters)
        if ids is None:  # no filter: the count and the newest ids come from the indexes alone
            total = self.conn.execute("SELECT count(*) FROM runs").fetchone()[0]
            if newest is None:
                return list(self._rows("", ())), total
            page = [r[0] for r in self.conn.execute("SELECT id FROM runs ORDER BY id DESC LIMIT ?", (newest,))]
        else:
            total = len(ids)
            page = sorted(ids)
            if newest is not None:
                page = page[len(page) - min(newest, total):]
        return self._rows_of(page), total

    def _matching_ids(self, filters: RunFilter) -> set[int] | None:
        """The ids matching every filter given (None: no filter given). Substring filters keep
        their exact meaning (Python's case folding) by scanning an index's (value, id) pairs."""
        sets: list[set[int]] = []
        if filters.source:
            sets.append({r[0] for r in self.conn.execute("SELECT id FROM runs WHERE source = ?", (filters.source,))})
        if filters.pattern:
            wanted = pattern_name(filters.pattern)
            sets.append(self._ids_where("run_id", "run_patterns", "pattern",
                                        lambda name: fnmatch.fnmatchcase(name, wanted)))
        for value, id_column, table, column in ((filters.host, "run_id", "run_hosts", "host"),
                                                (filters.label, "id", "runs", "label"),
                                                (filters.mpi, "id", "runs", "mpi")):
            if value:
                needle = value.lower()
                sets.append(self._ids_where(id_column, table, column, lambda text: needle in text.lower()))
        if filters.since is not None:
            sets.append(self._ids_since(filters.since))
        if not sets:
            return None
        sets.sort(key=len)
        return sets[0].intersection(*sets[1:])

    def _ids_where(self, id_column: str, table: str, column: str, keep) -> set[int]:
        """Ids whose ``column`` value passes ``keep``: the distinct values are read from the
        column's index and tested here (a glob, a case-insensitive substring: Python's meaning),
        then the ids of those that pass are looked up in the index."""
        values = [v for (v,) in self.conn.execute(f"SELECT DISTINCT {column} FROM {table}") if keep(v)]
        ids: set[int] = set()
        for start in range(0, len(values), 500):
            chunk = values[start:start + 500]
            ids.update(i for (i,) in self.conn.execute(
                f"SELECT {id_column} FROM {table} WHERE {column} IN ({','.join('?' * len(chunk))})", chunk))
        return ids

    def _ids_since(self, since: datetime) -> set[int]:
        """Ids of the runs that started (else were stored) at or after ``since``. A start time in
        the UTC form msgperf writes (2026-11-23T14:55:35Z or +00:00, whole seconds) is compared
        as text in the index; any other form (an offset, a fraction, none) is parsed here."""
        whole = since.astimezone(timezone.utc).replace(microsecond=0)
        if whole < since:
            whole += timedelta(seconds=1)  # whole-second times at or after since: at or after this
        bound = whole.strftime("%Y-%m-%dT%H:%M:%S")
        ids = {i for (i,) in self.conn.execute(
            f"SELECT id FROM runs INDEXED BY runs_time WHERE start_time >= ? AND {schema.IS_UTC} "
            "AND substr(start_time, 1, 19) >= ?", (bound, bound))}
        ids.update(i for i, start, added in self.conn.execute(
            f"SELECT id, start_time, added_at FROM runs INDEXED BY runs_time_other WHERE {schema.NOT_UTC}")
            if (when := parse_time(start) or parse_time(added)) is not None and when >= since)
        return ids

    def _rows_of(self, ids: list[int]) -> list[RunRow]:
        rows: list[RunRow] = []
        for start in range(0, len(ids), 500):  # SQLite's limit on parameters is well above 500
            chunk = ids[start:start + 500]
            rows += self._rows(f"WHERE id IN ({','.join('?' * len(chunk))})", tuple(chunk))
        return rows

    @_guarded
    def runs_like(self, run: Run, limit: int | None = None) -> list[RunRow]:
        """Stored runs measured by msgperf on the same hosts with the same MPI, rank count and
        placement as ``run``, sharing a pattern and a size with it: the candidates for its
        noise floor (``analysis.noise_floor`` matches the finer configuration). Newest first."""
        mine = listing_of(run.info, run.launches, [(m.pattern, m.bytes) for m in run.measurements])
        rows = [r for r in self._rows("WHERE source = 'msgperf' AND mpi = ? AND placement = ? "
                                      "AND nranks = ?", (mine.mpi, mine.placement, mine.nranks))
                if set(r.hosts) == set(mine.hosts) and set(r.patterns) & set(mine.patterns)
                and set(r.sizes) & set(mine.sizes)]
        rows.sort(key=lambda r: (r.time is not None, r.time or 0, r.id), reverse=True)
        return rows[:limit] if limit is not None else rows

    def _rows(self, where: str, params: tuple) -> Iterator[RunRow]:
        for r in self.conn.execute(
                "SELECT id, start_time, added_at, source, label, source_path, hosts, mpi, patterns, "
                f"sizes, nranks, placement, n_measurements, machine FROM runs {where} ORDER BY id", params):
            yield RunRow(id=r[0], start_time=r[1], added_at=r[2], source=r[3], label=r[4],
                         source_path=r[5], hosts=tuple(json.loads(r[6])), mpi=r[7],
                         patterns=tuple(dict.fromkeys(pattern_name(p) for p in json.loads(r[8]))), sizes=tuple(json.loads(r[9])),
                         nranks=r[10], placement=r[11], n_measurements=r[12], machine=r[13])


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (or ``ROLLBACK`` on any exception)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: type | None, *exc: object) -> None:
        if kind is None:
            self.conn.execute("COMMIT")
            return
        try:
            self.conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass  # SQLite rolled back already (a full disk, a damaged file): the first error says why
