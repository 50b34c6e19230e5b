"""``msgperf export RUN --format json|csv|parquet|run``: one run, raw samples and metadata.

- ``json``: ``{"format": "msgperf-export", ...}`` whose records are the run file's, raw samples
  included; ``msgperf import`` reads it back exactly (records/export_json.py);
- ``csv`` / ``parquet``: one row per raw sample (store/sample_table.py, docs/store.md);
- ``run``: the run as a run file (JSON Lines), for ``msgperf import`` elsewhere.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable, TextIO

import click

from msgperf.commands._options import db_option
from msgperf.writing import atomic_path, output as output_file
from msgperf.errors import MsgperfError
from msgperf.records.export_json import write_export_json
from msgperf.records.format import Run
from msgperf.records.runfile_write import write_run_records
from msgperf.store.sample_table import (cut_note, tidy_measurements_path, write_csv, write_csv_tidy,
                                          write_parquet)
from msgperf.store.listing import RunRow
from msgperf.loader import load

FORMATS = ("json", "csv", "parquet", "run")

_TEXT_WRITERS: dict[str, Callable[[Run, RunRow | None, TextIO], object]] = {
    "json": write_export_json, "csv": write_csv,
    "run": lambda run, row, out: write_run_records(run, out)}


def export_run(run: Run, row: RunRow | None, fmt: str, path: str | Path | None,
               stdout: TextIO | None = None, writer: Callable[[TextIO], None] | None = None,
               recheck: Callable[[Path], None] | None = None) -> str | None:
    """Write ``run`` as ``fmt`` to ``path`` (atomically), or to ``stdout`` for a text format
    when ``path`` is None. Returns the path written, if any. ``writer``: writes the text itself
    (a streamed CSV, where ``run`` holds no measurements). ``recheck``: the guard's check (writing.py),
    made again before the file is renamed into place."""
    if fmt not in FORMATS:
        raise MsgperfError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
    text_writer = writer or (lambda out: _TEXT_WRITERS[fmt](run, row, out))
    if path is None:
        if fmt == "parquet":
            raise MsgperfError("Parquet is binary: give an output file with -o FILE.parquet")
        assert stdout is not None
        text_writer(stdout)
        return None
    target = Path(path)
    if target.is_dir():
        raise MsgperfError(f"{target}: is a directory; -o takes a file name")
    if not target.parent.is_dir():
        raise MsgperfError(f"{target.parent}: no such directory for the export")
    with atomic_path(target, recheck=recheck) as tmp:
        if fmt == "parquet":
            write_parquet(run, row, tmp)
        else:
            with tmp.open("w", encoding="utf-8", newline="") as out:
                text_writer(out)
    return str(target)


SUFFIXES = {".json": "json", ".csv": "csv", ".parquet": "parquet", ".jsonl": "run"}


def chosen_format(fmt: str | None, output: str | None) -> str:
    """The format: --format when given, else the output file's extension, else json; a
    --format that contradicts the extension is an error (no JSON in x.csv)."""
    by_suffix = SUFFIXES.get(Path(output).suffix.lower()) if output else None
    if fmt is None:
        if output and by_suffix is None:
            raise MsgperfError(f"-o {output}: cannot tell the format from its extension; name it .json, .csv, "
                               ".parquet or .jsonl, or give --format")
        return by_suffix or "json"
    if by_suffix is not None and by_suffix != fmt:
        raise MsgperfError(f"--format {fmt} but -o {output} names a {by_suffix} file; make them agree")
    return fmt


def _streamed_csv(arg: str):
    """A msgperf run file is exported to CSV in two passes over the file, one measurement in
    memory at a time (records.runfile_read.stream_run); other inputs (a stored run, an export, another
    tool's output) are loaded whole: None."""
    path = Path(arg)
    if not path.is_file():
        return None
    from msgperf.records.importers import guess_tool  # noqa: PLC0415
    from msgperf.records.export_json import looks_exported  # noqa: PLC0415
    from msgperf.records.runfile_read import stream_run  # noqa: PLC0415
    from msgperf.records.samples_text import is_run_file  # noqa: PLC0415

    try:
        with open(path, "rb") as f:
            head = f.read(20000).decode("utf-8", errors="replace")
    except OSError:
        return None  # the loader gives the one-line error
    if looks_exported(head) or (guess_tool(head) not in (None, "msgperf")) or not is_run_file(path):
        return None
    return stream_run(path)


def _export_tidy(arg: str, fmt: str, output: str | None, db: str | None,
                 rechecks: tuple[Callable[[Path], None] | None, ...] = (None, None)) -> None:
    """Two CSV files, each written to a temporary name and renamed once both are complete."""
    if fmt != "csv":
        raise MsgperfError(f"--csv-layout tidy is a CSV layout; it does not apply to --format {fmt}")
    if output is None:
        raise MsgperfError("--csv-layout tidy writes two tables: give -o FILE.csv (the measurements go to "
                           "FILE.measurements.csv)")
    target = Path(output)
    if not target.parent.is_dir():
        raise MsgperfError(f"{target.parent}: no such directory for the export")
    table_path = tidy_measurements_path(target)
    streamed = _streamed_csv(arg)
    if streamed is not None:
        header, measurements = streamed
        run, row, ms, measured = header.run, None, measurements(), header.measured
    else:
        loaded = load(arg, db)
        run, row = loaded.run, loaded.row
        ms, measured = None, None
    with atomic_path(table_path, recheck=rechecks[1]) as table_tmp, \
            atomic_path(target, recheck=rechecks[0]) as samples_tmp:
        with table_tmp.open("w", encoding="utf-8", newline="") as table, \
                samples_tmp.open("w", encoding="utf-8", newline="") as samples:
            write_csv_tidy(run, row, samples, table, ms, measured)
    if streamed is not None and streamed[0].truncated:
        click.echo(f"note: {arg}: the last line was cut off (a killed job?) and was left out", err=True)
    click.echo(f"wrote {target} (samples) and {table_path} (measurements)", err=True)


@click.command("export")
@click.argument("run", metavar="RUN")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
              help="json: metadata + raw samples (msgperf import reads it back); csv/parquet: one "
                   "row per sample (columns in docs/store.md); run: a run file. Default: the output "
                   "file's extension (.json, .csv, .parquet, .jsonl), else json.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True),
              help="Output file (default, or -o -: standard output; a file is required for parquet).")
@click.option("--csv-layout", type=click.Choice(["wide", "tidy"]), default="wide", show_default=True,
              help="csv: wide (one table, every column on every sample row; string cells over 128 "
                   "characters cut) or tidy (-o X.csv gets "
                   "measurement, sample, sample_s, per_message_s; X.measurements.csv one row per "
                   "measurement; joined on measurement they are the wide table).")
@db_option
@click.option("--force", is_flag=True, help="Replace the -o file(s) if they exist (never a run file, profile or "
              "database).")
def command(run: str, fmt: str | None, output: str | None, csv_layout: str, db: str | None, force: bool) -> None:
    """Export RUN (a stored run's id, or a run file) with its raw samples."""
    output = None if output == "-" else output
    fmt = chosen_format(fmt or ("csv" if csv_layout == "tidy" else None), output)
    recheck = table_recheck = None
    if output is not None:  # before anything is read: a refusal costs nothing
        stdout = "to write the export to standard output, give -o - (or no -o)"
        recheck = output_file(output, force, what="an export", to_stdout=stdout).recheck
        if csv_layout == "tidy":
            table_recheck = output_file(tidy_measurements_path(Path(output)), force, what="an export",
                                        option="-o (its table)", to_stdout=stdout).recheck
    if csv_layout == "tidy":
        _export_tidy(run, fmt, output, db, (recheck, table_recheck))
        return
    streamed = _streamed_csv(run) if fmt == "csv" else None
    cut: list[str] = []  # columns whose long cells the wide CSV cut
    if streamed is not None:
        header, measurements = streamed
        written = export_run(header.run, None, fmt, output, stdout=sys.stdout,
                             writer=lambda out: cut.extend(write_csv(header.run, None, out, measurements(),
                                                                     header.measured)),
                             recheck=recheck)
        if header.truncated:
            click.echo(f"note: {run}: the last line was cut off (a killed job?) and was left out", err=True)
    else:
        loaded = load(run, db)
        writer = (lambda out: cut.extend(write_csv(loaded.run, loaded.row, out))) if fmt == "csv" else None
        written = export_run(loaded.run, loaded.row, fmt, output, stdout=sys.stdout, writer=writer, recheck=recheck)
    if cut:
        click.echo(f"note: {cut_note(tuple(cut))}", err=True)
    if written:
        click.echo(f"wrote {written}", err=True)
