"""msgperf profile -- LAUNCHER ARGS PROGRAM...: run an MPI program under msgperf's PMPI
profiler and keep what it sent (docs/profile.md); ``--show``: the summary of profiles recorded.

The profiler is built for the chosen MPI (launch/build.py) and the program run under it
(launch/profiled.py: the claimed file, the run, what it left); this command then summarises the
profile, stores it and passes the program's exit code on (128 + N when a signal N stopped it).
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import click

from msgperf.analysis.advice import account_profile
from msgperf.commands._options import db_option
from msgperf.errors import MsgperfError
from msgperf.launch.build import build_profiler
from msgperf.launch.children import Terminated, stop_exit_code, stop_name, stop_signals
from msgperf.launch.profiled import (ProgramError, claim, claim_mark, default_output, how_it_failed, program_name,
                                     run_profiled, with_preload_flags)
from msgperf.present.profile_summary import render_profile
from msgperf.present.terminal import console as terminal_console
from msgperf.records.call_sites import resolve_sites
from msgperf.records.profile_format import Profile
from msgperf.store.db import open_store


@click.command("profile", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("--mpicc", metavar="PATH", help="MPI to build the profiler with: the program's MPI "
              "(default: the pip mpich's).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Profile file (default: runs/<time>-profile-<program>.jsonl); never replaced.")
@db_option
@click.option("--no-store", is_flag=True, help="Do not add the profile to the result database.")
@click.option("--show", is_flag=True, help="Run nothing: show the summary of the profiles given instead of a "
              "command (files or stored profile ids): msgperf profile --show P [P ...]. Several runs of one program "
              "are merged: each figure the median [smallest - largest] over the runs.")
@click.option("--json", "as_json", is_flag=True, help="With --show: the summary as JSON (per rank, per kind, call "
              "and call site; several runs: each figure per run with its median and range).")
@click.argument("argv", nargs=-1, type=click.UNPROCESSED, metavar="-- LAUNCHER ARGS PROGRAM...")
def command(mpicc: str | None, output: Path | None, db: str | None, no_store: bool, show: bool, as_json: bool,
            argv: tuple[str, ...]) -> None:
    """Run an MPI program under msgperf's profiler: its messages per peer, size and call,
    the time inside MPI and the back-to-back sends it could combine.

    msgperf profile --show P [P ...]: the summary of profiles already recorded, without running
    the program again; several runs of one program merged (median and range over the runs)."""
    if show:
        if mpicc is not None or output is not None or no_store:
            raise click.UsageError("--show reads profiles already recorded; --mpicc, -o and --no-store are for "
                                   "running a program")
        if not argv:
            raise click.UsageError("give the profiles to show: msgperf profile --show P [P ...] (files or stored "
                                   "profile ids)")
        late = next((word for word in argv if word.startswith("-")), None)
        if late is not None:  # everything after the first profile is taken as given (the command's words)
            raise click.UsageError(f"{late} after the profiles: options come first, msgperf profile --show "
                                   "[--json] [--db PATH] P [P ...]")
        show_profiles(argv, db, as_json)
        return
    if as_json:
        raise click.UsageError("--json goes with --show: msgperf profile --show --json P [P ...]")
    if not argv:
        raise click.UsageError("give the command to profile: msgperf profile -- mpiexec -n 4 ./app")
    profiler = build_profiler(mpicc)
    command_argv = with_preload_flags(argv, profiler.mpi_version)
    with stop_signals():  # SIGTERM and SIGHUP, like Ctrl-C, stop the program and keep its records
        claimed: Path | None = None
        try:
            claimed = (claim(output, lambda note: click.echo(note, err=True)) if output is not None
                       else default_output(program_name(argv)))
            profile_run(profiler.path, command_argv, argv, claimed, db, no_store)
        except (KeyboardInterrupt, Terminated) as stop:  # outside the program's run (the claim, storing)
            if claimed is not None and _is_empty(claimed):
                claimed.unlink(missing_ok=True)  # an empty file would only block the next -o
            raise ProgramError(f"stopped by {stop_name(stop)}", stop_exit_code(stop)) from None
        finally:
            if claimed is not None:
                claim_mark(claimed).unlink(missing_ok=True)


def _is_empty(path: Path) -> bool:
    try:
        return path.stat().st_size == 0
    except OSError:
        return False


def profile_run(library: Path, command_argv: list[str], argv: tuple[str, ...], output: Path, db: str | None,
                no_store: bool) -> None:
    """Run the program into ``output`` (claimed, empty), then show and store its profile."""
    run = run_profiled(library, command_argv, argv, output)
    profile = run.profile
    sites = {(s.object, s.offset) for r in profile.ranks for s in r.sites}
    accounting = account_profile(profile, resolve_sites(sites, Path.cwd()))
    render_profile(terminal_console(), profile, accounting)
    for note in run.notes:
        click.echo(f"note: {note}")
    code = run.ended.code
    if code:
        click.echo(f"note: the program {how_it_failed(run.ended)}; the profile holds what it did until then")
    click.echo(f"profile: {output}")
    if not no_store:
        click.echo(store_profile(profile, db))
    click.echo(f"advice: msgperf advise --profile {output}")
    if code:
        sys.exit(code)


def store_profile(profile: Profile, db: str | None) -> str:
    """Land the profile in the result database; a database problem never loses it (the file
    is written already)."""
    try:
        with open_store(db) as store:
            profile_id, added = store.add_profile(profile)
    except (MsgperfError, OSError, sqlite3.Error) as exc:
        return f"note: not stored in the result database ({exc}); the profile file keeps it"
    return f"stored as profile {profile_id}" + ("" if added else ", already there")


def show_profiles(args: tuple[str, ...], db: str | None, as_json: bool = False) -> None:
    """--show: load each profile, analyse (one: its accounting; several: the runs merged), render
    (``as_json``: the same figures as JSON, present/json_view.py)."""
    from msgperf.analysis.advice import merge_runs
    from msgperf.loader import load_recorded_profile
    from msgperf.present import json_view
    from msgperf.present.profile_summary import render_profile_runs

    loaded = [load_recorded_profile(arg, db, "show") for arg in args]
    profiles, labels = [p for p, _ in loaded], [label for _, label in loaded]
    if len(profiles) == 1:
        profile, label = loaded[0]
        sites = {(s.object, s.offset) for r in profile.ranks for s in r.sites}
        accounting = account_profile(profile, resolve_sites(sites, Path.cwd()))
        if as_json:
            click.echo(json_view.dumps(json_view.profile_dict(profile, accounting, label)))
            return
        render_profile(terminal_console(), profile, accounting)
        click.echo(f"profile: {label}")
    else:
        merged = merge_runs(profiles, labels)
        if as_json:
            click.echo(json_view.dumps(json_view.profile_runs_dict(merged)))
            return
        render_profile_runs(terminal_console(), merged)
    click.echo("advice: msgperf advise " + " ".join(f"--profile {arg}" for arg in args))
