"""The CSV and Parquet layout of a run: one row per raw sample, the columns of ``COLUMNS`` in
that order (the stable layout documented in docs/store.md). Parquet also carries the run's
records (without samples) as JSON in the file metadata under the key ``msgperf``. Numbers are
written so they read back bit for bit (shortest round-trip repr)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any, Callable, Iterable, TextIO

import numpy as np

from msgperf.errors import MsgperfError
from msgperf.records.export_json import EXPORT_FORMAT, EXPORT_VERSION, store_meta
from msgperf.records.format import Measurement, Run
from msgperf.records.runfile_write import run_records
from msgperf.store.listing import RunRow, listing_of
from msgperf.values import Value


class Column(Value):
    name: str
    kind: str  # "int", "float", "str", "bool"
    description: str


COLUMNS: tuple[Column, ...] = (
    Column("run_id", "int", "id in the store; empty when exported from a file"),
    Column("run_start_time", "str", "when the run started (ISO 8601), as the run states it; may be empty"),
    Column("run_source", "str", "msgperf, or the tool an imported summary came from (osu, imb, netpipe)"),
    Column("run_label", "str", "the run's label in the store"),
    Column("hosts", "str", "hosts of the run's ranks, ';'-separated"),
    Column("mpi", "str", "MPI library and version ('; ' between launches that differ)"),
    Column("measurement", "int", "index of the measurement in the run, from 0"),
    Column("pattern", "str", "pattern name (pingpong, osu-latency, imb-pingpong, ...)"),
    Column("variant", "str", "variant of the pattern (a round, a k, a phase); empty when it has one"),
    Column("bytes", "int", "message size in bytes"),
    Column("buffer", "str", "buffer mode (separate, inplace, ...)"),
    Column("ranks", "str", "ranks taking part, ';'-separated"),
    Column("launch", "int", "index of the MPI launch that measured it"),
    Column("metric", "str", "what per_message_s is: one_way (half a round trip) or per_message"),
    Column("timing", "str", "how the kernel timed it (as in the run file)"),
    Column("k", "int", "iterations per sample"),
    Column("divisor", "int", "per_message_s = sample_s / divisor"),
    Column("flows", "int", "messages of `bytes` a bandwidth counts per reported time (2: bidirectional)"),
    Column("stop_reason", "str", "why sampling stopped: precision, time_budget, max_samples, imported"),
    Column("validated", "bool", "false: received bytes did not match (imports: the tool reported a failed check)"),
    Column("sample", "int", "index of the sample within the measurement, from 0"),
    Column("sample_s", "float", "raw sample: wall time of k iterations, seconds"),
    Column("per_message_s", "float", "time per message, seconds (sample_s / divisor)"),
)
COLUMN_NAMES = tuple(c.name for c in COLUMNS)


# Columns whose value is the same for every sample of a measurement (all but the last three).
PER_MEASUREMENT = COLUMN_NAMES[:-3]


def measurement_table(run: Run, row: RunRow | None = None) -> tuple[dict[str, list], np.ndarray]:
    """(per-measurement values of the PER_MEASUREMENT columns, number of samples of each)."""
    listing = listing_of(run.info, run.launches, [(m.pattern, m.bytes) for m in run.measurements])
    ms = run.measurements
    n = len(ms)
    columns: dict[str, list] = {
        "run_id": [row.id if row else None] * n,
        "run_start_time": [run.info.start_time] * n,
        "run_source": [run.info.source] * n,
        "run_label": [row.label if row else ""] * n,
        "hosts": [";".join(listing.hosts)] * n,
        "mpi": [listing.mpi] * n,
        "measurement": list(range(n)),
        "pattern": [m.pattern for m in ms],
        "variant": [m.variant for m in ms],
        "bytes": [m.bytes for m in ms],
        "buffer": [m.buffer for m in ms],
        "ranks": [";".join(str(r) for r in m.ranks) for m in ms],
        "launch": [m.launch for m in ms],
        "metric": [m.metric for m in ms],
        "timing": [m.timing for m in ms],
        "k": [m.k for m in ms],
        "divisor": [m.divisor for m in ms],
        "flows": [m.flows for m in ms],
        "stop_reason": [m.stop_reason for m in ms],
        "validated": [bool(m.validated) for m in ms],
    }
    return columns, np.array([m.samples_s.size for m in ms], dtype=np.int64)


def _sample_columns(run: Run, counts: np.ndarray) -> dict[str, np.ndarray]:
    ms = run.measurements
    if not ms:
        return {"sample": np.empty(0, dtype=np.int64), "sample_s": np.empty(0), "per_message_s": np.empty(0)}
    samples = np.concatenate([m.samples_s for m in ms])
    divisors = np.repeat(np.array([m.divisor for m in ms], dtype=np.float64), counts)
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    return {"sample": np.arange(samples.size, dtype=np.int64) - starts, "sample_s": samples,
            "per_message_s": samples / divisors}


def sample_table(run: Run, row: RunRow | None = None) -> dict[str, np.ndarray]:
    """The CSV/Parquet columns of ``run`` (one entry per raw sample), keyed by column name."""
    columns, counts = measurement_table(run, row)
    kinds = {c.name: c.kind for c in COLUMNS}
    table: dict[str, np.ndarray] = {}
    for name in PER_MEASUREMENT:
        values = columns[name]
        if kinds[name] == "int" and name != "run_id":
            array = np.array(values, dtype=np.int64)
        elif kinds[name] == "bool":
            array = np.array(values, dtype=bool)
        else:
            array = np.empty(len(values), dtype=object)
            array[:] = values
        table[name] = np.repeat(array, counts)
    table.update(_sample_columns(run, counts))
    return table


# A spreadsheet reads a cell that starts with one of these as a formula (=HYPERLINK(...),
# +cmd|..., @SUM, a tab or carriage return before one): OWASP's "CSV injection".
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
# The wide layout repeats every per-measurement cell on every sample row: a string longer than
# this is cut there (its start, then how long it was), so that a run file's long strings (a
# 65,536-character host list, timing text) do not grow the CSV by their length times the samples
# (a 3.8 MB run file once gave 5.5 GB). The tidy layout writes them whole, once per measurement.
WIDE_CELL_CHARS = 128
WIDE_CELL_KEEP = 64  # characters of a cut cell kept before the mark
CSV_CHUNK_ROWS = 8192  # sample rows formatted and written at a time, at most ...
CSV_CHUNK_CHARS = 1 << 20  # ... and about this many characters (a long prefix makes fewer rows)


def csv_text(value: str) -> str:
    """A string cell as data, never a formula: a leading ``'`` when it starts with a formula
    prefix (OWASP's advice; spreadsheets show the text, and ``'`` is easy to strip in code)."""
    return "'" + value if value.startswith(FORMULA_PREFIXES) else value


def _csv_cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return csv_text(value)
    return value  # numbers stay numbers (a negative number is not a formula)


def wide_cell(value: str) -> str:
    """A string cell of the wide layout: whole up to ``WIDE_CELL_CHARS`` characters, else its
    first ``WIDE_CELL_KEEP`` and a mark that says it was cut and how long it is."""
    if len(value) <= WIDE_CELL_CHARS:
        return value
    return f"{value[:WIDE_CELL_KEEP]}...[cut: {len(value):,} characters]"


def measurement_prefix(run: Run, row: RunRow | None,
                       measured: Iterable[tuple[str, int]] | None = None) -> Callable[[int, Measurement], list[Any]]:
    """The PER_MEASUREMENT cells of one measurement, computed one measurement at a time (the
    run-level ones once). ``measured``: (pattern, bytes) of each measurement, when ``run`` does
    not hold them (a streamed run file)."""
    if measured is None:
        measured = [(m.pattern, m.bytes) for m in run.measurements]
    listing = listing_of(run.info, run.launches, list(measured))
    run_cells = [row.id if row else None, run.info.start_time, run.info.source, row.label if row else "",
                 ";".join(listing.hosts), listing.mpi]

    def cells(index: int, m: Measurement) -> list[Any]:
        return run_cells + [index, m.pattern, m.variant, m.bytes, m.buffer, ";".join(str(r) for r in m.ranks),
                            m.launch, m.metric, m.timing, m.k, m.divisor, m.flows, m.stop_reason,
                            bool(m.validated)]
    return cells


def write_csv(run: Run, row: RunRow | None, out: TextIO, measurements: Iterable[Measurement] | None = None,
              measured: Iterable[tuple[str, int]] | None = None) -> tuple[str, ...]:
    """Stream the CSV: one measurement at a time, its sample rows written in chunks of at most
    ``CSV_CHUNK_ROWS`` rows and about ``CSV_CHUNK_CHARS`` characters; the per-measurement prefix
    is formatted once per measurement, its string cells cut to ``WIDE_CELL_CHARS`` (``wide_cell``).
    Memory: one chunk, never the table or the file. ``measurements`` (with ``measured``, their
    (pattern, bytes)): an iterator that replaces ``run.measurements`` (records.runfile_read.stream_run).
    Returns the names of the columns that had a cell cut, in column order."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMN_NAMES)
    prefix_buffer = io.StringIO()
    prefix_writer = csv.writer(prefix_buffer, lineterminator="")
    cells = measurement_prefix(run, row, measured)
    cut: set[str] = set()
    for index, m in enumerate(run.measurements if measurements is None else measurements):
        prefix_buffer.seek(0)
        prefix_buffer.truncate()
        values = [_csv_cell(v) for v in cells(index, m)]
        for i, value in enumerate(values):
            if isinstance(value, str) and len(value) > WIDE_CELL_CHARS:
                values[i] = wide_cell(value)
                cut.add(PER_MEASUREMENT[i])
        prefix_writer.writerow(values)
        prefix = prefix_buffer.getvalue()
        samples = m.samples_s
        rows = max(1, min(CSV_CHUNK_ROWS, CSV_CHUNK_CHARS // (len(prefix) + 64)))
        for start in range(0, samples.size, rows):
            chunk = samples[start:start + rows]
            out.write("".join(f"{prefix},{i},{s!r},{p!r}\n" for i, s, p in zip(
                range(start, start + chunk.size), chunk.tolist(), (chunk / m.divisor).tolist())))
    return tuple(name for name in PER_MEASUREMENT if name in cut)


def cut_note(columns: tuple[str, ...]) -> str:
    """What the export says when the wide layout cut cells (``write_csv``'s answer)."""
    return (f"the wide CSV cut the string cells of {', '.join(columns)} longer than {WIDE_CELL_CHARS} "
            "characters, which it repeats on every sample row; --csv-layout tidy -o FILE.csv writes them whole")


TIDY_SAMPLE_COLUMNS = ("measurement", "sample", "sample_s", "per_message_s")
TIDY_MEASUREMENT_COLUMNS = PER_MEASUREMENT + ("n_samples",)


def write_csv_tidy(run: Run, row: RunRow | None, samples_out: TextIO, measurements_out: TextIO,
                   measurements: Iterable[Measurement] | None = None,
                   measured: Iterable[tuple[str, int]] | None = None) -> None:
    """The tidy layout (``export --csv-layout tidy``): two tables joined on ``measurement``:
    ``samples_out`` has one row per raw sample with TIDY_SAMPLE_COLUMNS only, ``measurements_out``
    one row per measurement with TIDY_MEASUREMENT_COLUMNS. Nothing is repeated per sample; joined,
    they are the wide table cell for cell, but for the wide table's cut cells (whole here). Streamed
    like ``write_csv``."""
    samples_writer = csv.writer(samples_out, lineterminator="\n")
    samples_writer.writerow(TIDY_SAMPLE_COLUMNS)
    table = csv.writer(measurements_out, lineterminator="\n")
    table.writerow(TIDY_MEASUREMENT_COLUMNS)
    cells = measurement_prefix(run, row, measured)
    for index, m in enumerate(run.measurements if measurements is None else measurements):
        table.writerow([_csv_cell(v) for v in cells(index, m)] + [int(m.samples_s.size)])
        samples = m.samples_s
        for start in range(0, samples.size, CSV_CHUNK_ROWS):
            chunk = samples[start:start + CSV_CHUNK_ROWS]
            samples_out.write("".join(f"{index},{i},{s!r},{p!r}\n" for i, s, p in zip(
                range(start, start + chunk.size), chunk.tolist(), (chunk / m.divisor).tolist())))


def tidy_measurements_path(samples_path: str | Path) -> Path:
    """``x.csv`` -> ``x.measurements.csv``: where the tidy layout's measurement table goes."""
    p = Path(samples_path)
    return p.with_name(f"{p.stem}.measurements{p.suffix or '.csv'}")


# The `data` extra (pandas, pyarrow) is left out of `make run`'s install: it adds about a minute and
# 250 MB to it for two features (Parquet export, DataFrames) a first run does not need.
DATA_EXTRA_MISSING = ("{what}, from the `data` extra that `make run` leaves out: run `make install-data` "
                      "in msgperf's directory, or pip install 'msgperf[data]'{instead}")


def write_parquet(run: Run, row: RunRow | None, path: str | Path) -> None:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise MsgperfError(DATA_EXTRA_MISSING.format(what="Parquet export needs pyarrow",
                                                     instead="; or export --format csv")) from None
    types = {"int": pa.int64(), "float": pa.float64(), "str": pa.string(), "bool": pa.bool_()}
    columns, counts = measurement_table(run, row)
    index = pa.array(np.repeat(np.arange(len(counts), dtype=np.int64), counts))
    arrays = {c.name: pa.array(columns[c.name], type=types[c.kind]).take(index)
              for c in COLUMNS if c.name in PER_MEASUREMENT}
    arrays.update({name: pa.array(values, type=types["int" if name == "sample" else "float"])
                   for name, values in _sample_columns(run, counts).items()})
    meta = {"format": EXPORT_FORMAT, "export_version": EXPORT_VERSION, "store": store_meta(row),
            "records": [_without_samples(r) for r in run_records(run)]}
    schema = pa.schema([pa.field(c.name, types[c.kind], nullable=c.name == "run_id") for c in COLUMNS],
                       metadata={"msgperf": json.dumps(meta, allow_nan=False)})
    arrow = pa.table([arrays[c.name] for c in COLUMNS], schema=schema)
    pq.write_table(arrow, str(path))


def _without_samples(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != "samples_s"}
