"""Read back msgperf's own JSON export (``msgperf export ID --format json``).

The document holds the run-file records unchanged (``records``), so reading it is reading a run
file: the records go through ``records.read.parse_run_text`` with all its checks.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

from msgperf.records.format import RecordError
from msgperf.records.read import parse_run_text

EXPORT_FORMAT = "msgperf-export"
EXPORT_VERSION = 1

_PREFIX = re.compile(r'\A\s*\{\s*"format"\s*:\s*"msgperf-export"')


def looks_exported(head: str) -> bool:
    """Whether the first bytes of a file are those of a msgperf JSON export."""
    return bool(_PREFIX.match(head))


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not allowed in an export")


def parse_export(text: str, name: str = "<export>") -> tuple[Any, dict[str, Any]]:
    """(Run, store metadata) from a JSON export; one-line errors."""
    try:
        doc = json.loads(text, parse_constant=_reject_constant)
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
    return dataclasses.replace(result.run, path=name), store
