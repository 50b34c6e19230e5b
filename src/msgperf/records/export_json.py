"""msgperf's JSON export (``msgperf export RUN --format json``): its writer and its reader.

The document holds the run-file records unchanged (``records``) plus the store's metadata of
the run; reading it is reading a run file: the records go through
``records.runfile_read.parse_run_text`` with all its checks.
"""

from __future__ import annotations

import json
import re
from typing import Any, TextIO

import msgspec

from msgperf.records.format import RecordError
from msgperf.writing import EXPORT_HEAD
from msgperf.records.json_text import parse_json
from msgperf.records.runfile_read import parse_run_text
from msgperf.records.runfile_write import iter_run_records

EXPORT_FORMAT = "msgperf-export"
EXPORT_VERSION = 1

_PREFIX = re.compile(EXPORT_HEAD)


def looks_exported(head: str) -> bool:
    """Whether the first bytes of a file are those of a msgperf JSON export."""
    return bool(_PREFIX.match(head))


def store_meta(row: Any) -> dict[str, Any] | None:
    """The store's fields of a run (None for a run that came from a file)."""
    if row is None:
        return None
    return {"id": row.id, "label": row.label, "added_at": row.added_at, "source_path": row.source_path}


def write_export_json(run: Any, row: Any, out: TextIO) -> None:
    out.write('{"format": "%s", "export_version": %d, "store": %s, "records": [\n'
              % (EXPORT_FORMAT, EXPORT_VERSION, json.dumps(store_meta(row))))
    for i, record in enumerate(iter_run_records(run)):  # one record at a time, never the document
        out.write((",\n" if i else "") + json.dumps(record, allow_nan=False))
    out.write("\n]}\n")



def parse_export(text: str, name: str = "<export>") -> tuple[Any, dict[str, Any]]:
    """(Run, store metadata) from a JSON export; one-line errors."""
    try:
        doc = parse_json(text, "an export")
    except (ValueError, RecursionError) as exc:
        raise RecordError(f"{name}: not valid JSON ({exc}); the export is corrupt or cut off") from None
    if not isinstance(doc, dict) or doc.get("format") != EXPORT_FORMAT:
        raise RecordError(f"{name}: not a msgperf JSON export (no \"format\": \"{EXPORT_FORMAT}\")")
    version = doc.get("export_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise RecordError(f"{name}: export_version must be a positive integer")
    if version > EXPORT_VERSION:
        raise RecordError(f"{name}: export version {version} is newer than this msgperf reads "
                          f"({EXPORT_VERSION}); upgrade msgperf")
    records = doc.get("records")
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise RecordError(f"{name}: 'records' must be a list of run-file records")
    store = doc.get("store") if isinstance(doc.get("store"), dict) else {}
    lines = "".join(json.dumps(r, allow_nan=False) + "\n" for r in records)
    # Errors then read "<file> (records), line N": N counts records, from 1.
    result = parse_run_text(lines, f"{name} (records)")
    return msgspec.structs.replace(result.run, path=name), store
