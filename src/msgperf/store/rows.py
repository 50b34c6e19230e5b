"""A ``Run`` as database rows and back, exactly.

Each record is stored as the JSON the run file holds (``format.encode_*``), so whatever the
format carries (extra fields included) survives; the samples leave their record and are stored
as a BLOB of little-endian float64: exact, a third of the size of their JSON text, and
read without parsing.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import msgspec
import numpy as np

from msgperf.errors import MsgperfError
from msgperf.records.format import (Launch, Measurement, RunInfo, decode_launch,
                                    decode_measurement, decode_run, encode_launch,
                                    encode_launch_abort, encode_launch_end, encode_measurement,
                                    encode_run)

SAMPLE_DTYPE = np.dtype("<f8")


class StoreError(MsgperfError):
    """A database msgperf cannot use, or a run it does not hold."""


def dumps(obj: Any) -> str:
    """Canonical JSON (sorted keys, no NaN): the same object always gives the same text."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)


def samples_blob(samples: np.ndarray) -> bytes:
    return np.ascontiguousarray(samples, dtype=SAMPLE_DTYPE).tobytes()


def blob_samples(blob: bytes, where: str) -> np.ndarray:
    if len(blob) % SAMPLE_DTYPE.itemsize or not blob:
        raise StoreError(f"{where}: stored samples are corrupt ({len(blob)} bytes)")
    array = np.frombuffer(blob, dtype=SAMPLE_DTYPE).astype(np.float64)
    if not np.all(np.isfinite(array) & (array > 0)):
        raise StoreError(f"{where}: stored samples are corrupt (not positive and finite)")
    return array


def measurement_record(m: Measurement) -> dict[str, Any]:
    """The measurement's run-file record without its samples."""
    record = encode_measurement(dataclasses.replace(m, samples_s=np.empty(0)))
    del record["samples_s"]
    return record


def run_record_json(run_info: RunInfo) -> str:
    return dumps(encode_run(run_info))


def launch_jsons(launch: Launch) -> tuple[str, str | None, str | None]:
    """The launch's ``launch``, ``launch_end`` and ``launch_abort`` records (None if absent).
    A Launch keeps only the reason of an abort, so the abort record's time is empty."""
    return (dumps(encode_launch(launch)),
            dumps(encode_launch_end(launch)) if launch.finished else None,
            dumps(encode_launch_abort(launch.index, "", launch.aborted)) if launch.aborted is not None else None)


def decode_run_record(text: str, where: str) -> RunInfo:
    return decode_run(_loads(text, where), where)


def decode_launch_rows(record: str, end_record: str | None, where: str,
                       abort_record: str | None = None) -> Launch:
    launch = decode_launch(_loads(record, where), where)
    if end_record is not None:
        end = _loads(end_record, where)
        cpus = end.get("cpus", [])
        if not isinstance(end.get("end_time"), str) or not isinstance(cpus, list):
            raise StoreError(f"{where}: stored launch_end is corrupt")
        launch = msgspec.structs.replace(launch, end_time=end["end_time"],
                                         end_cpus=tuple(int(c) for c in cpus if isinstance(c, int)))
    if abort_record is not None:
        reason = _loads(abort_record, where).get("reason")
        if not isinstance(reason, str):
            raise StoreError(f"{where}: stored launch_abort is corrupt")
        launch = msgspec.structs.replace(launch, aborted=reason)
    return launch


def decode_measurement_row(record: str, blob: bytes, where: str) -> Measurement:
    obj = _loads(record, where)
    obj["samples_s"] = [1.0]  # checked by decode_measurement; the real samples come from the blob
    m = decode_measurement(obj, where)
    return dataclasses.replace(m, samples_s=blob_samples(blob, where))


def _loads(text: str, where: str) -> dict[str, Any]:
    try:
        obj = json.loads(text)
    except ValueError:
        raise StoreError(f"{where}: a stored record is not valid JSON; the database is corrupt") from None
    if not isinstance(obj, dict):
        raise StoreError(f"{where}: a stored record is not an object; the database is corrupt")
    return obj

