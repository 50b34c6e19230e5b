"""``msgperf db check`` and ``msgperf db recover``: examine a result database, and save what can
be read of a damaged one into a new file (store/maintenance.py; docs/store.md, "A damaged
database")."""

from __future__ import annotations

import contextlib
import signal
import sys
from pathlib import Path

import click

from msgperf.commands._options import db_option
from msgperf.data_text import printable


@click.group("db")
def command() -> None:
    """Check a result database, or recover what can be read of a damaged one."""


def _path(db: str | None) -> Path:
    from msgperf.store.db import default_path  # noqa: PLC0415

    return Path(db).expanduser() if db else default_path()


@command.command("check")
@db_option
def check(db: str | None) -> None:
    """Check every page, the schema and every stored run: one line per problem, exit 1 if any.
    Never writes to the database."""
    from msgperf.store.maintenance import check_database  # noqa: PLC0415

    problems, summary = check_database(_path(db))
    for line in problems:
        click.echo(f"problem: {printable(line)}")
    if problems:
        click.echo(f"error: {len(problems)} problem(s) found; 'msgperf db recover' copies what can be read "
                   "into a new database", err=True)
        sys.exit(1)
    click.echo(f"ok: {printable(summary)}")


@command.command("recover")
@db_option
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="The new database (default: NAME.recovered.db beside the damaged one); must not exist.")
def recover(db: str | None, output: str | None) -> None:
    """Copy every run and profile that can still be read into a new database, keeping run ids,
    labels and times; the damaged database is only read, never changed."""
    from msgperf.store.maintenance import recover_database  # noqa: PLC0415

    source = _path(db)
    with _terminate_as_interrupt():  # SIGTERM/SIGHUP unwind like Ctrl-C: the half-written copy is removed
        result = recover_database(source, output)
    for line in result.lost_runs + result.lost_profiles:
        click.echo(f"lost: {printable(line)}")
    if result.scan_error:
        click.echo(f"note: the runs table could not be read to its end ({printable(result.scan_error)}); "
                   "ids after the last readable one were probed one by one, and the ids its indexes and "
                   "other tables name were tried")
    if result.knows_losses:
        lost = f"lost {result.lost_count} run(s)"
    else:
        shown = result.unread[:4] + ([f"{len(result.unread) - 4} more"] if len(result.unread) > 4 else [])
        lost = (f"could not tell how many runs were lost ({result.lost_count} named and unreadable; what "
                f"would tell could not be read: {printable(', '.join(shown))})")
    # never advice to move the copy over the original: the original is what a better tool may still read
    click.echo(f"recovered {len(result.runs)} run(s) and {result.profiles} profile(s) into {result.target}; "
               f"{lost}; lost {len(result.lost_profiles)} profile(s). {source} is unchanged; use the copy "
               f"with --db {result.target}")


@contextlib.contextmanager
def _terminate_as_interrupt():
    """SIGTERM (what timeout and schedulers send) and SIGHUP raise KeyboardInterrupt, so that the
    clean-up of an interrupted recover runs (its default action ends the process at once)."""
    def interrupt(signum, frame):  # noqa: ARG001
        raise KeyboardInterrupt
    previous = {}
    for sig in (signal.SIGTERM, signal.SIGHUP):
        try:
            previous[sig] = signal.signal(sig, interrupt)
        except ValueError:  # not the main thread: leave the signals alone
            pass
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
