"""msgperf profile -- LAUNCHER ARGS PROGRAM...: run an MPI program under msgperf's PMPI
profiler and keep what it sent (docs/profile.md).

The profiler library is built for the chosen MPI and loaded into every rank with LD_PRELOAD;
rank 0 writes the profile at MPI_Finalize to a private name beside the final file, which this
command then checks, renames, summarises and stores. The program's exit code is passed on.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import click

from msgperf.atomic_file import atomic_write
from msgperf.errors import MsgperfError
from msgperf.launch.build import build_profiler
from msgperf.launch.dialects import detect_flavor
from msgperf.launch.run_file_guard import claim_new_file
from msgperf.launch.shm_leftovers import remove_leftovers, segments
from msgperf.present.profile_summary import render_profile
from msgperf.present.terminal import console as terminal_console
from msgperf.records.profile_format import Profile, profile_text
from msgperf.records.profile_merge import merge_rank_files, rank_files, temporary_files
from msgperf.records.profile_read import read_profile
from msgperf.store.db import open_store

_LAUNCHERS = re.compile(r"(mpirun|mpiexec|orterun)(\.[\w-]+)?\Z")


class ProgramError(MsgperfError):
    """A problem reported with the program's own exit code (when it failed) or 1."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def program_name(argv: tuple[str, ...]) -> str:
    """The program in LAUNCHER ARGS PROGRAM...: the first word after the launcher that is an
    executable file (or a command on PATH), else the launcher itself."""
    for word in argv[1:]:
        if word.startswith("-") or word.isdigit():
            continue
        path = Path(word)
        if ("/" in word and path.is_file() and os.access(path, os.X_OK)) or ("/" not in word and shutil.which(word)):
            return path.name
    return Path(argv[0]).name


def default_output(program: str) -> Path:
    """runs/<time>-profile-<program>.jsonl, claimed with an exclusive create."""
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    safe = re.sub(r"[^\w.+-]", "_", program)[:60] or "program"
    base = Path("runs") / f"{stamp}-profile-{safe}"
    try:
        path = claim_new_file(base)
    except OSError as exc:
        raise MsgperfError(f"cannot create {base}.jsonl ({exc.strerror}); pass -o FILE") from None
    if path is None:
        raise MsgperfError(f"cannot find a free profile file name next to {base}; pass -o FILE")
    return path


def claim(output: Path) -> Path:
    """-o FILE, created empty now so nothing else takes it; an existing file is never replaced."""
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.open("x").close()
    except FileExistsError:
        raise MsgperfError(f"-o {output}: the file exists; msgperf never replaces a file, choose another name") from None
    except OSError as exc:
        raise MsgperfError(f"-o {output}: cannot create it ({exc.strerror})") from None
    return output


def with_preload_flags(argv: tuple[str, ...], built_for: str) -> list[str]:
    """The command, with Open MPI's launcher told to pass the two variables to every rank
    (MPICH's Hydra and srun pass the whole environment already). A launcher of another MPI
    than the profiler's (``built_for``, "MPICH 5.0.2") is refused before anything runs."""
    launcher = argv[0]
    flavor = detect_flavor(launcher) if _LAUNCHERS.search(Path(launcher).name) else ""
    open_mpi = built_for.startswith("Open MPI")
    if (flavor == "openmpi" and not open_mpi) or (flavor == "hydra" and open_mpi):
        owner = "Open MPI" if flavor == "openmpi" else "MPICH"
        raise MsgperfError(f"{launcher} is {owner}'s launcher but the profiler is built for {built_for}; "
                           f"pass --mpicc of the program's MPI (e.g. the mpicc beside {launcher})")
    if flavor == "openmpi":
        return [launcher, "-x", "LD_PRELOAD", "-x", "MSGPERF_PROFILE_OUTPUT", *argv[1:]]
    return list(argv)


def run_program(argv: list[str], env: dict[str, str]) -> int:
    """Run the command in the foreground; its exit status (128 + N for a signal N)."""
    before = segments()
    try:
        process = subprocess.Popen(argv, env=env)
    except FileNotFoundError:
        raise MsgperfError(f"{argv[0]}: no such command; give the launcher and the program, "
                           "e.g. msgperf profile -- mpiexec -n 4 ./app") from None
    except PermissionError:
        raise MsgperfError(f"{argv[0]}: permission denied (not an executable?)") from None
    try:
        code = process.wait()
    except KeyboardInterrupt:  # the program got the Ctrl-C too; keep what it wrote
        code = process.wait()
    if code != 0:  # a program that did not finalize leaves MPI's shared memory behind
        remove_leftovers(before)
    return 128 - code if code < 0 else code


def collect(private: Path, output: Path) -> tuple[Profile | None, list[str]]:
    """The profile the run left (whole, or merged from rank files) moved to ``output``, and
    notes; None when it left none. Raises the profiler's own error (another MPI) when it said
    one, and a reader's error about a broken profile after keeping the file as ``output``."""
    notes: list[str] = []
    error = Path(f"{private}.error")
    parts = rank_files(private)
    leftovers = temporary_files(private)
    for path in leftovers:  # a rank stopped while writing: nothing in them can be trusted
        path.unlink(missing_ok=True)
    if leftovers:
        notes.append(f"{len(leftovers)} rank(s) were stopped while writing their part; it is lost")
    if error.is_file():
        message = (error.read_text(errors="replace").strip().splitlines() or ["the profiler refused"])[0]
        error.unlink()
        raise MsgperfError(message)
    if private.is_file():
        os.replace(private, output)  # kept whatever the reader thinks of it
        for path in parts:  # a rank file beside a whole profile is a stale duplicate
            path.unlink(missing_ok=True)
        try:
            result = read_profile(output)
        except MsgperfError as exc:
            raise KeptFileError(f"{exc} (the file is kept)") from None
        if result.truncated:
            notes.append("the profile's last line was cut off; that rank is missing")
        return result.profile, notes
    if parts:
        try:
            merged = merge_rank_files(parts, str(output))
        except MsgperfError as exc:
            raise KeptFileError(f"{exc} (the rank files are kept: {', '.join(map(str, parts))})") from None
        # our own placeholder, claimed before; on a full disk the rank files are kept
        try:
            with atomic_write(output) as out:
                out.write(profile_text(merged))
        except MsgperfError as exc:
            raise KeptFileError(f"{exc} (the rank files are kept: {', '.join(map(str, parts))})") from None
        for path in parts:
            path.unlink()
        return merged, notes
    return None, notes


class KeptFileError(MsgperfError):
    """A broken profile, kept on disk for whoever wants to look at it."""


@click.command("profile", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("--mpicc", metavar="PATH", help="MPI to build the profiler with: the program's MPI "
              "(default: the pip mpich's).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Profile file (default: runs/<time>-profile-<program>.jsonl); never replaced.")
@click.option("--db", type=click.Path(dir_okay=False), help="Result database the profile lands in.")
@click.option("--no-store", is_flag=True, help="Do not add the profile to the result database.")
@click.argument("argv", nargs=-1, type=click.UNPROCESSED, metavar="-- LAUNCHER ARGS PROGRAM...")
def command(mpicc: str | None, output: Path | None, db: str | None, no_store: bool, argv: tuple[str, ...]) -> None:
    """Run an MPI program under msgperf's profiler: its messages per peer, size and call,
    the time inside MPI and the back-to-back sends it could combine."""
    if not argv:
        raise click.UsageError("give the command to profile: msgperf profile -- mpiexec -n 4 ./app")
    profiler = build_profiler(mpicc)
    command_argv = with_preload_flags(argv, profiler.mpi_version)
    output = claim(output) if output is not None else default_output(program_name(argv))
    private = output.absolute().parent / f".{output.name}.{os.getpid()}.part"
    env = {**os.environ, "MSGPERF_PROFILE_OUTPUT": str(private),
           "LD_PRELOAD": " ".join(p for p in (str(profiler.path), os.environ.get("LD_PRELOAD", "")) if p)}
    code = 0
    try:
        code = run_program(command_argv, env)
        profile, notes = collect(private, output)
    except MsgperfError as exc:
        if not isinstance(exc, KeptFileError):
            output.unlink(missing_ok=True)
        raise ProgramError(str(exc), code or 1) from None
    if profile is None:
        output.unlink(missing_ok=True)
        failed = f"; it exited with code {code}" if code else ""
        raise ProgramError(f"no profile written: {program_name(argv)} never called MPI_Init under the profiler "
                           f"(not an MPI program, or one linked statically){failed}", code or 1)
    if not profile.ranks:  # a header alone: every rank was killed before writing its part
        raise ProgramError(f"no rank left a record in the profile {output} (kept): {program_name(argv)} was "
                           "killed before any rank could write its part, or it is not an MPI program"
                           + (f"; it exited with code {code}" if code else ""), code or 1)
    render_profile(terminal_console(), profile)
    for note in notes:
        click.echo(f"note: {note}")
    if code:
        click.echo(f"note: the program exited with code {code}; the profile holds what it did until then")
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
