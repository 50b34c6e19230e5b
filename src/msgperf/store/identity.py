"""Fingerprints that make adding a run idempotent.

- ``content_hash``: every record and every sample bit; the same run read from two copies of a
  file (or from a JSON export of it) hashes the same. The file's path is not part of it.
- ``identity_hash``: the ``run`` record only (written once, when a run file is created): a run
  resumed later (``msgperf run --resume``) keeps its identity while its content grows, so the
  store updates it in place instead of keeping a stale partial copy.
"""

from __future__ import annotations

import hashlib

from msgperf.records.format import Run
from msgperf.store.rows import launch_jsons, measurement_record, dumps, run_record_json, samples_blob

_DOMAIN = b"msgperf-run-content-v1\n"


def measurement_digest(record_json: str, blob: bytes) -> bytes:
    h = hashlib.sha256()
    h.update(record_json.encode())
    h.update(len(blob).to_bytes(8, "little"))
    h.update(blob)
    return h.digest()


def measurement_digests(run: Run) -> list[bytes]:
    return [measurement_digest(dumps(measurement_record(m)), samples_blob(m.samples_s))
            for m in run.measurements]


def content_hash(run: Run, digests: list[bytes] | None = None) -> str:
    h = hashlib.sha256(_DOMAIN)
    h.update(run_record_json(run.info).encode() + b"\n")
    for launch in run.launches:
        start, end, abort = launch_jsons(launch)
        h.update(start.encode() + b"\n" + (end or "").encode() + b"\n")
        if abort is not None:  # only then, so runs without aborts hash as before aborts existed
            h.update(b"abort:" + abort.encode() + b"\n")
    for digest in digests if digests is not None else measurement_digests(run):
        h.update(digest)
    return h.hexdigest()


def identity_hash(run: Run) -> str:
    return hashlib.sha256(run_record_json(run.info).encode()).hexdigest()
