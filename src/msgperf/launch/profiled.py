"""Running an MPI program under msgperf's PMPI profiler (``msgperf profile``): the profile file
claimed before the run (never replacing a file; the empty claim a killed msgperf left is taken
over), the program run in a session of its own that dies with msgperf, and the profile its ranks
left collected (whole, or merged from rank files) into the claimed file, or why there is none.

The profiler library is loaded into every rank with LD_PRELOAD; rank 0 writes the profile at
MPI_Finalize to a private name beside the final file (``.FILE.PID.part``), which ``collect`` then
checks and renames. SIGTERM, SIGHUP or Ctrl-C stop the program with its ranks, keeping what they
recorded (launch/children.py).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import re
import shutil
import signal
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from msgperf.errors import MsgperfError
from msgperf.launch import children
from msgperf.launch.children import Terminated, stop_exit_code, stop_name
from msgperf.launch.dialects import detect_flavor
from msgperf.launch.job import explain_failure, launcher_cause
from msgperf.launch.run_file_guard import claim_new_file
from msgperf.launch.shm_leftovers import remove_dead_jobs_segments, remove_leftovers, segments
from msgperf.records.profile_format import Profile, profile_text
from msgperf.records.profile_merge import merge_rank_files, rank_files, temporary_files
from msgperf.records.profile_read import read_profile
from msgperf.writing import atomic_write

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


def claim(output: Path, say: Callable[[str], None]) -> Path:
    """-o FILE, created empty now so nothing else takes it, and marked as this msgperf's
    (``claim_mark``); an existing file is never replaced, but for the empty one a killed
    msgperf profile left (``take_over``)."""
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.open("x").close()
        claim_mark(output).touch()
    except FileExistsError:
        if not take_over(output, say):
            raise MsgperfError(f"-o {output}: the file exists; msgperf never replaces a file, "
                               "choose another name") from None
    except OSError as exc:
        raise MsgperfError(f"-o {output}: cannot create it ({exc.strerror})") from None
    return output


def claim_mark(output: Path, pid: int | None = None) -> Path:
    """``.FILE.PID.part.claim``: FILE is the (empty) claim of the msgperf profile PID."""
    return output.absolute().parent / f".{output.name}.{pid or os.getpid()}.part.claim"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's: alive
    return True


def take_over(output: Path, say: Callable[[str], None]) -> bool:
    """Whether ``output`` is the empty claim of a msgperf profile that was killed (``kill -9``
    runs nothing of msgperf afterwards) and is now this one's: it is empty, and its claim marks
    name dead processes only. The takeover renames a dead mark to this process's, which only
    one msgperf can do; what the dead run's ranks wrote (``.FILE.PID.part.rank<N>``) stays, the
    rest of its hidden files goes (``_clean_dead_parts``)."""
    try:
        if output.is_symlink() or not output.is_file() or output.stat().st_size:
            return False
    except OSError:
        return False
    prefix = f".{output.name}."
    marks = [(m, m.name[len(prefix):-len(".part.claim")]) for m in output.absolute().parent.iterdir()
             if m.name.startswith(prefix) and m.name.endswith(".part.claim")]
    pids = [int(pid) for _, pid in marks if pid.isdigit()]
    if not pids or len(pids) != len(marks) or any(_alive(pid) for pid in pids):
        return False
    try:
        os.rename(marks[0][0], claim_mark(output))
    except OSError:
        return False  # another msgperf took it first
    for mark, _ in marks[1:]:
        mark.unlink(missing_ok=True)
    kept = _clean_dead_parts(output, pids)
    say(f"note: -o {output} was left empty by a msgperf profile that was killed (pid {pids[0]}); "
        "it is used again" + (f"; what its ranks recorded is kept in {', '.join(kept[:4])}"
                              + (" …" if len(kept) > 4 else "") if kept else ""))
    return True


def _clean_dead_parts(output: Path, pids: list[int]) -> list[str]:
    """Remove what the dead runs' ranks left that holds no record: the ``.started`` and ``.error``
    marks and the temporary files of a rank killed while writing its part (``.rankN.tmp.PID``);
    return the names of the rank parts (``.FILE.PID.part.rankN``), which are kept: they are what
    a killed program recorded. Only names of the dead PIDs' private output, in -o's folder."""
    kept = []
    for pid in pids:
        private = f".{output.name}.{pid}.part"
        for path in output.absolute().parent.iterdir():
            name = path.name
            if not name.startswith(private + ".") or path.is_symlink() or not path.is_file():
                continue
            rest = name[len(private) + 1:]
            if rest in ("started", "error") or re.fullmatch(r"rank\d+\.tmp\.\d+", rest):
                path.unlink(missing_ok=True)
            elif re.fullmatch(r"rank\d+", rest):
                kept.append(name)
    return sorted(kept)


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


@dataclass
class Ended:
    """How the program's run ended: its exit status (128 + N for a signal N), the stop
    (KeyboardInterrupt or ``Terminated``) that reached msgperf meanwhile, and the end of what
    the launcher printed."""

    code: int
    stopped: BaseException | None = None
    output: str = ""


class PassedOn:
    """One of the launcher's output streams passed through to msgperf's own (``fd``), its
    last 64 KiB kept: the launcher says there why a program did not start (Hydra: "execvp
    error on file ./app", on stderr) or how a rank died (Hydra's "EXIT STRING", on stdout)."""

    KEEP = 1 << 16

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.read_end, self.write_end = os.pipe()
        self.tail = bytearray()
        self.thread = threading.Thread(target=self._pass, daemon=True)
        self.thread.start()

    def _pass(self) -> None:
        while chunk := os.read(self.read_end, 1 << 14):
            with contextlib.suppress(OSError):
                os.write(self.fd, chunk)
            self.tail += chunk
            del self.tail[:-self.KEEP]

    def close_writer(self) -> None:
        os.close(self.write_end)

    def text(self) -> str:
        self.thread.join(timeout=5)  # a process that escaped the stop may still hold the pipe
        if not self.thread.is_alive():
            os.close(self.read_end)
        return self.tail.decode(errors="replace")


def run_program(argv: list[str], env: dict[str, str]) -> Ended:
    """Run the command in a session of its own that dies with msgperf (launch/children.py);
    Ctrl-C, SIGTERM or SIGHUP to msgperf stop it and its ranks."""
    remove_dead_jobs_segments()  # a killed msgperf could not clean after its job
    before = segments()
    sys.stdout.flush()
    sys.stderr.flush()
    out, err = PassedOn(1), PassedOn(2)
    try:
        process = children.start(argv, env=env, stdout=out.write_end, stderr=err.write_end)
    except FileNotFoundError:
        raise MsgperfError(f"{argv[0]}: no such command; give the launcher and the program, "
                           "e.g. msgperf profile -- mpiexec -n 4 ./app") from None
    except PermissionError:
        raise MsgperfError(f"{argv[0]}: permission denied (not an executable?)") from None
    finally:
        out.close_writer()
        err.close_writer()
    stopped: BaseException | None = None
    try:
        code = process.wait()
    except (KeyboardInterrupt, Terminated) as stop:
        stopped = stop
        children.stop(process)  # SIGTERM first: each rank writes what it recorded (signals.c)
        code = process.returncode
    if code != 0 or stopped:  # a program that did not finalize leaves MPI's shared memory behind
        remove_leftovers(before)
    return Ended(code=128 - code if code < 0 else code, stopped=stopped, output=out.text() + err.text())


def why_nothing(ended: Ended, started: bool, program: str) -> str:
    """Why a run left no profile, in words: the launcher's cause (a missing program), a
    crash, or a program that never called MPI_Init under the profiler."""
    lines = [line.strip() for line in ended.output.splitlines() if line.strip()]
    died = explain_failure(ended.output) if _A_RANK_DIED.search(ended.output) else None
    signalled = _SIGNALS.get(ended.code - 128) if ended.code > 128 else None
    if started:
        how = f": {died}" if died else f": killed by {signalled}" if signalled else \
            f"; it exited with code {ended.code}" if ended.code else ""
        return (f"no profile written: {program} called MPI_Init under the profiler, but no rank wrote what it "
                f"recorded{how}")
    cause = launcher_cause(lines, guess=False)
    if cause:
        return f"no profile written: the program did not start: {cause}"
    if died:
        return f"no profile written: {program} died before calling MPI_Init under the profiler: {died}"
    if signalled:
        return f"no profile written: {program} died of {signalled} before calling MPI_Init under the profiler"
    failed = f"; it exited with code {ended.code}" if ended.code else ""
    return (f"no profile written: {program} never called MPI_Init under the profiler "
            f"(not an MPI program, or one linked statically){failed}")


_SIGNALS = {int(s): s.name for s in signal.Signals}
# Hydra's and Open MPI's account of a rank that died (launch/job.py reads them)
_A_RANK_DIED = re.compile(r"EXIT STRING:|exited on signal \d+")


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


@dataclass
class Profiled:
    """What a profiled run left: its profile (with at least one rank's records), notes on what was
    lost, and how the program ended."""

    profile: Profile
    notes: list[str]
    ended: Ended


def run_profiled(library: Path, command_argv: list[str], argv: tuple[str, ...], output: Path) -> Profiled:
    """Run the program (``command_argv``, ``argv`` as the user gave it) under the profiler
    ``library`` into ``output`` (claimed, empty). Raises ``ProgramError`` with the program's own
    exit code when it left no profile, left a header alone, or was stopped (what its ranks
    recorded until then is kept)."""
    private = output.absolute().parent / f".{output.name}.{os.getpid()}.part"
    started_mark = Path(f"{private}.started")  # the library's: MPI_Init was reached under it
    env = {**os.environ, "MSGPERF_PROFILE_OUTPUT": str(private),
           "LD_PRELOAD": " ".join(p for p in (str(library), os.environ.get("LD_PRELOAD", "")) if p)}
    program = program_name(argv)
    ended = Ended(code=0)
    try:
        ended = run_program(command_argv, env)
        started = started_mark.exists()
        profile, notes = collect(private, output)
    except MsgperfError as exc:
        if not isinstance(exc, KeptFileError):
            output.unlink(missing_ok=True)
        raise ProgramError(str(exc), stop_exit_code(ended.stopped) if ended.stopped else ended.code or 1) from None
    finally:
        started_mark.unlink(missing_ok=True)
    code = ended.code
    if ended.stopped is not None:
        stop, exit_code = stop_name(ended.stopped), stop_exit_code(ended.stopped)
        if profile is None or not profile.ranks:
            output.unlink(missing_ok=True)
            raise ProgramError(f"stopped by {stop} before any rank wrote what it recorded; no profile kept",
                               exit_code)
        raise ProgramError(f"stopped by {stop}; what {len(profile.ranks)} of {profile.info.nranks} rank(s) "
                           f"recorded until then is kept in {output}", exit_code)
    if profile is None:
        output.unlink(missing_ok=True)
        raise ProgramError(why_nothing(ended, started, program), code or 1)
    if not profile.ranks:  # a header alone: every rank was killed before writing its part
        raise ProgramError(f"no rank left a record in the profile {output} (kept): {program} was "
                           "killed before any rank could write its part, or it is not an MPI program"
                           + (f"; it exited with code {code}" if code else ""), code or 1)
    return Profiled(profile, notes, ended)


def how_it_failed(ended: Ended) -> str:
    """A program that exited with an error, in words: how a rank died, where the launcher said."""
    return (f"failed: {explain_failure(ended.output)}" if _A_RANK_DIED.search(ended.output)
            else f"exited with code {ended.code}")
