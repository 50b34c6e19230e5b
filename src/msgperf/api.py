"""Runs and measurements as pandas DataFrames, for notebooks.

    >>> from msgperf import api
    >>> api.runs(pattern="osu_*")                 # one row per stored run
    >>> api.measurements([12, 15])                # one row per (run, measurement), with summaries
    >>> api.samples(12)                           # one row per raw sample (the CSV export's columns)
    >>> api.load_run(12)                          # the Run itself

Every function takes ``db`` (a database path; default: the user's store, as ``--db``). A run
may be given as a stored id, a run file path, or a ``Run`` object. Times are seconds, sizes
bytes; ``per_message_s`` is one-way for ping-pongs (half the round trip).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Iterable, Union

from msgperf.analysis.samples import sample_stats
from msgperf.errors import MsgperfError
from msgperf.loader import load
from msgperf.store.sample_table import COLUMN_NAMES, sample_table
from msgperf.records.format import Run
from msgperf.store.db import open_store
from msgperf.store.listing import RunFilter, RunRow, parse_since

if TYPE_CHECKING:
    import pandas

RunRef = Union[int, str, os.PathLike, Run]

__all__ = ["runs", "measurements", "samples", "load_run"]

RUN_COLUMNS = ("id", "start_time", "added_at", "source", "label", "hosts", "mpi", "patterns", "sizes",
               "nranks", "placement", "n_measurements", "source_path")
MEASUREMENT_COLUMNS = ("run_id", "measurement", "pattern", "bytes", "buffer", "ranks", "launch", "metric",
                       "k", "divisor", "stop_reason", "validated", "n", "median_s", "ci_low_s",
                       "ci_high_s", "mean_s", "std_s", "min_s", "max_s", "p5_s", "p95_s", "extra")


def _pandas():
    try:
        import pandas
    except ImportError:
        from msgperf.store.sample_table import DATA_EXTRA_MISSING
        raise MsgperfError(DATA_EXTRA_MISSING.format(what="the DataFrame API needs pandas", instead="")) from None
    return pandas


def runs(db: str | None = None, *, host: str | None = None, mpi: str | None = None,
         pattern: str | None = None, since: str | None = None, label: str | None = None,
         source: str | None = None) -> "pandas.DataFrame":
    """Stored runs (the filters of ``msgperf runs``), one row each, oldest first."""
    pd = _pandas()
    filters = RunFilter(host=host, mpi=mpi, pattern=pattern, label=label, source=source,
                        since=parse_since(since) if since else None)
    with open_store(db, create=False) as store:
        rows = store.list_runs(filters)
    frame = pd.DataFrame([[getattr(r, c) for c in RUN_COLUMNS] for r in rows], columns=list(RUN_COLUMNS))
    for column in ("start_time", "added_at"):
        frame[column] = pd.to_datetime(frame[column].where(frame[column] != ""), utc=True,
                                       format="ISO8601", errors="coerce")
    return frame


def load_run(ref: RunRef, db: str | None = None) -> Run:
    """One run: a stored id, a run file, or a Run (returned as is)."""
    return _load(ref, db)[0]


def _load(ref: RunRef, db: str | None) -> tuple[Run, RunRow | None]:
    if isinstance(ref, Run):
        return ref, None
    if isinstance(ref, bool):
        raise MsgperfError(f"{ref!r} is not a run id")
    if isinstance(ref, int):
        with open_store(db, create=False) as store:
            return store.load_run(ref), store.get_row(ref)
    loaded = load(os.fspath(ref), db)
    return loaded.run, loaded.row


def _refs(refs: RunRef | Iterable[RunRef]) -> list[RunRef]:
    if isinstance(refs, (int, str, os.PathLike, Run)):
        return [refs]
    return list(refs)


def measurements(refs: RunRef | Iterable[RunRef], db: str | None = None) -> "pandas.DataFrame":
    """One row per measurement of the given runs, with summaries of its per-message times
    (median and its distribution-free 95 % CI, mean, std, min, max, p5, p95) and ``extra``
    (what an imported summary's tool reported)."""
    pd = _pandas()
    table = []
    for ref in _refs(refs):
        run, row = _load(ref, db)
        for index, m in enumerate(run.measurements):
            s = sample_stats(m.per_message_s)
            table.append([row.id if row else None, index, m.pattern, m.bytes, m.buffer,
                          ";".join(map(str, m.ranks)), m.launch, m.metric, m.k, m.divisor,
                          m.stop_reason, m.validated, s.n, s.median, s.ci_low, s.ci_high, s.mean,
                          s.std, s.min, s.max, s.p5, s.p95, dict(m.extra)])
    frame = pd.DataFrame(table, columns=list(MEASUREMENT_COLUMNS))
    return frame.astype({"run_id": "Int64"})


def samples(refs: RunRef | Iterable[RunRef], db: str | None = None) -> "pandas.DataFrame":
    """One row per raw sample of the given runs: the CSV/Parquet export's columns."""
    pd = _pandas()
    frames = []
    for ref in _refs(refs):
        run, row = _load(ref, db)
        frames.append(pd.DataFrame(sample_table(run, row), columns=list(COLUMN_NAMES)))
    if not frames:
        return pd.DataFrame(columns=list(COLUMN_NAMES))
    frame = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    return frame.astype({"run_id": "Int64"})
