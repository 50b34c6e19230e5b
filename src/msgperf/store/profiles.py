"""Profiles in the store (schema version 4, table ``profiles``): rows and back, exactly.

A profile is stored as its records (the ``profile`` header and the ``rank`` records, the
JSON the file holds) plus listing columns, so that listing never decodes a whole profile.
Adding is idempotent: the content hash covers every record, not the file's path.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from datetime import datetime

from msgperf.records.profile_format import (Profile, ProfileError, decode_info, decode_rank,
                                            encode_info, encode_rank)
from msgperf.store.listing import mpi_name, parse_time
from msgperf.store.rows import StoreError, dumps
from msgperf.values import Value

_DOMAIN = b"msgperf-profile-content-v1\n"


class ProfileRow(Value):
    """One stored profile, as ``Store.list_profiles`` returns it."""

    id: int
    start_time: str
    added_at: str
    label: str
    source_path: str
    argv: tuple[str, ...]
    mpi: str
    hosts: tuple[str, ...]  # distinct, in rank order
    nranks: int
    complete: bool
    messages: int  # messages sent, all ranks

    @property
    def time(self) -> datetime | None:
        return parse_time(self.start_time) or parse_time(self.added_at)

    @property
    def program(self) -> str:
        return self.argv[0].rsplit("/", 1)[-1] if self.argv else ""


def content_hash(profile: Profile) -> str:
    h = hashlib.sha256(_DOMAIN)
    h.update(dumps(encode_info(profile.info)).encode() + b"\n")
    for rank in profile.ranks:
        h.update(dumps(encode_rank(rank)).encode() + b"\n")
    return h.hexdigest()


def insert(conn: sqlite3.Connection, profile: Profile, label: str, added_at: str) -> tuple[int, bool]:
    """Store ``profile`` (inside the caller's transaction); (id, added)."""
    chash = content_hash(profile)
    row = conn.execute("SELECT id FROM profiles WHERE content_hash = ?", (chash,)).fetchone()
    if row:
        return row[0], False
    info = profile.info
    hosts = list(dict.fromkeys(h for h in info.hosts if h))
    sent = sum(m.count for r in profile.ranks for m in r.sent())
    profile_id = conn.execute(
        "INSERT INTO profiles (content_hash, start_time, added_at, label, source_path, argv, mpi, "
        "hosts, nranks, complete, messages, header, ranks) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (chash, info.start_time, added_at, label, profile.path, dumps(list(info.argv)),
         mpi_name(info),  # reads mpi_library and mpi_version, which a profile's header has too
         dumps(hosts), info.nranks, int(info.complete), sent, dumps(encode_info(info)),
         dumps([encode_rank(r) for r in profile.ranks]))).lastrowid
    return profile_id, True


def load(conn: sqlite3.Connection, profile_id: int, db_name: str) -> Profile:
    row = conn.execute("SELECT header, ranks, source_path FROM profiles WHERE id = ?", (profile_id,)).fetchone()
    if row is None:
        raise StoreError(f"no profile {profile_id} in {db_name} ('msgperf runs' lists the stored profiles)")
    where = f"{db_name}, profile {profile_id}"
    try:
        header, ranks = json.loads(row[0]), json.loads(row[1])
        if not isinstance(header, dict) or not isinstance(ranks, list) or not all(isinstance(r, dict) for r in ranks):
            raise ValueError
    except ValueError:
        raise StoreError(f"{where}: the stored records are not valid JSON; the database is corrupt") from None
    try:
        info = decode_info(header, where)
        decoded = tuple(decode_rank(r, where, info.nranks, info.format_version) for r in ranks)
    except ProfileError as exc:
        raise StoreError(f"{exc} (stored); the database is corrupt") from None
    return Profile(info=info, ranks=decoded, path=row[2])


def rows(conn: sqlite3.Connection) -> list[ProfileRow]:
    return [ProfileRow(id=r[0], start_time=r[1], added_at=r[2], label=r[3], source_path=r[4],
                       argv=tuple(json.loads(r[5])), mpi=r[6], hosts=tuple(json.loads(r[7])),
                       nranks=r[8], complete=bool(r[9]), messages=r[10])
            for r in conn.execute("SELECT id, start_time, added_at, label, source_path, argv, mpi, hosts, "
                                  "nranks, complete, messages FROM profiles ORDER BY id")]
