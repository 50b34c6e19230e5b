"""Compile the C kernels against a chosen MPI, cached per MPI identity.

The cache key is the mpicc path, its compile line, the MPI library's version macros and a hash
of the kernel sources, so switching MPI (or editing a kernel) never runs a stale binary.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from msgperf import __version__
from msgperf.values import Value
from msgperf.writing import atomic_write
from msgperf.cache_dir import cache_dir
from msgperf.errors import MsgperfError

KERNEL_NAME = "msgperf-kernels"
_VERSION_MACROS = ("MPI_VERSION", "MPI_SUBVERSION", "MPICH_VERSION", "MPICH_NUMVERSION",
                   "OMPI_MAJOR_VERSION", "OMPI_MINOR_VERSION", "OMPI_RELEASE_VERSION",
                   "MVAPICH2_VERSION", "I_MPI_VERSION")


class Kernel(Value):
    path: Path
    mpicc: Path
    mpiexec: Path | None  # the launcher that belongs to this MPI, where one sits beside mpicc
    mpi_version: str       # e.g. "MPICH 5.0.2"


def kernels_dir() -> Path:
    """The C sources: MSGPERF_KERNELS_DIR, else the repository's kernels/ beside src/."""
    env = os.environ.get("MSGPERF_KERNELS_DIR")
    here = Path(env) if env else Path(__file__).resolve().parents[3] / "kernels"
    if not (here / "main.c").is_file():
        raise MsgperfError(f"kernel sources not found in {here}; set MSGPERF_KERNELS_DIR to the kernels/ folder")
    return here


def kernel_sources(root: Path) -> list[Path]:
    return sorted(root.glob("*.c")) + sorted((root / "patterns").glob("*.c"))


def find_mpicc(explicit: str | None = None) -> Path:
    """The chosen mpicc: explicit path, else the one installed beside this Python (the PyPI
    mpich wheel), else the first on PATH."""
    if explicit:
        p = Path(explicit)
        found = p if p.is_file() else (Path(shutil.which(explicit)) if shutil.which(explicit) else None)
        if found is None or not os.access(found, os.X_OK):
            raise MsgperfError(f"--mpicc {explicit}: no such executable; give the path of an MPI C compiler wrapper")
        return found.absolute()
    beside = Path(sys.executable).parent / "mpicc"
    if beside.is_file():
        return beside
    on_path = shutil.which("mpicc")
    if on_path:
        return Path(on_path)
    raise MsgperfError("no MPI found: no mpicc beside this Python or on PATH; "
                       "install one (pip install 'msgperf[mpi]', or your system's MPI) or pass --mpicc PATH")


def find_mpiexec(mpicc: Path) -> Path | None:
    for name in ("mpiexec", "mpirun"):
        # Debian's alternatives name them after the MPI: mpicc.mpich -> mpiexec.mpich
        suffix = mpicc.name[len("mpicc"):] if mpicc.name.startswith("mpicc") else ""
        candidate = mpicc.parent / f"{name}{suffix}"
        if candidate.is_file():
            return candidate
    return None


def _run(cmd: list[str], what: str) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise MsgperfError(f"{what}: {exc}") from None


def mpi_identity(mpicc: Path) -> dict[str, str]:
    """The compile line and version macros of the MPI behind mpicc (no MPI program runs)."""
    try:
        with tempfile.TemporaryDirectory() as tmp:
            probe = Path(tmp) / "probe.c"
            probe.write_text("#include <mpi.h>\n")
            pre = _run([str(mpicc), "-E", "-dM", str(probe)], f"{mpicc} cannot run")
    except OSError as exc:  # a full or read-only temporary directory, not the MPI
        raise MsgperfError(f"cannot write a temporary file in {tempfile.gettempdir()} ({exc.strerror}); free space "
                           "there or set TMPDIR to a writable directory") from None
    if pre.returncode != 0:
        first = (pre.stderr.strip().splitlines() or ["no output"])[0]
        raise MsgperfError(f"{mpicc} cannot compile against mpi.h ({first}); check the MPI installation or pass --mpicc")
    macros = {}
    for line in pre.stdout.splitlines():
        parts = line.split(None, 2)
        if len(parts) == 3 and parts[0] == "#define" and parts[1] in _VERSION_MACROS:
            macros[parts[1]] = parts[2].strip('"')
    show = _run([str(mpicc), "-show"], "mpicc -show")
    if show.returncode != 0:
        show = _run([str(mpicc), "--showme"], "mpicc --showme")
    macros["compile_line"] = show.stdout.strip()
    return macros


def describe_mpi(identity: dict[str, str]) -> str:
    if "MPICH_VERSION" in identity:
        return f"MPICH {identity['MPICH_VERSION']}"
    if "OMPI_MAJOR_VERSION" in identity:
        return "Open MPI {}.{}.{}".format(identity["OMPI_MAJOR_VERSION"], identity.get("OMPI_MINOR_VERSION", "?"),
                                          identity.get("OMPI_RELEASE_VERSION", "?"))
    return f"MPI {identity.get('MPI_VERSION', '?')}.{identity.get('MPI_SUBVERSION', '?')}"


def cache_key(compiler: Path, identity: dict[str, str], files: list[Path]) -> str:
    """The cache folder's name: the mpicc, its MPI's identity, msgperf's version, the sources."""
    digest = hashlib.sha256()
    digest.update(str(compiler.resolve()).encode())
    digest.update(json.dumps(identity, sort_keys=True).encode())
    digest.update(__version__.encode())
    for src in files:
        digest.update(src.name.encode())
        digest.update(src.read_bytes())
    return digest.hexdigest()[:16]


def _first_error(stderr: str) -> str:
    errors = [l for l in stderr.splitlines() if "error" in l] or stderr.splitlines() or ["no output"]
    return errors[0].strip()


# What a compiler or linker prints when it cannot write its output: the disk, not the MPI.
_CANNOT_WRITE = ("No space left on device", "Disk quota exceeded", "Read-only file system", "Permission denied",
                 "File too large", "cannot open output file")


def cache_error(directory: Path, reason: str) -> MsgperfError:
    """The one-line error for a build cache that cannot be written (read-only, full, not a
    directory): it names the directory and how to choose another."""
    return MsgperfError(f"cannot write the kernel build cache {directory} ({reason}); free space there or point "
                        "MSGPERF_CACHE at a writable directory, e.g. MSGPERF_CACHE=$HOME/msgperf-cache")


def _cache_folder(target_dir: Path) -> None:
    """Create the build's folder in the cache, or say why it cannot be."""
    try:
        target_dir.mkdir(parents=True, exist_ok=True)
        probe = tempfile.NamedTemporaryFile(dir=target_dir, prefix=".writable.")
        probe.close()
    except OSError as exc:
        raise cache_error(cache_dir("kernels"), exc.strerror or str(exc)) from None


def _compile(cmd: list[str], compiler: Path, tmp: Path, what: str) -> None:
    """Run the compile line; a failure to write its output blames the cache (or the
    compiler's temporary directory), not the MPI installation."""
    result = _run(cmd, f"{compiler} cannot run")
    if result.returncode == 0:
        return
    tmp.unlink(missing_ok=True)
    first = _first_error(result.stderr)
    unwritable = next((l.strip() for l in result.stderr.splitlines() if any(p in l for p in _CANNOT_WRITE)), None)
    if unwritable is not None and str(tmp.parent) in result.stderr:
        raise cache_error(cache_dir("kernels"), unwritable)
    if unwritable is not None:  # the compiler's own temporary files
        raise MsgperfError(f"{compiler} cannot write while compiling {what}: {unwritable}; free space in "
                           f"{tempfile.gettempdir()} or set TMPDIR to a writable directory")
    raise MsgperfError(f"{compiler} cannot compile {what}: {first}; check the MPI installation or pass another --mpicc")


def _publish(tmp: Path, final: Path) -> None:
    try:
        os.replace(tmp, final)  # atomic: a concurrent build never sees half a binary
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise cache_error(cache_dir("kernels"), exc.strerror or str(exc)) from None


def build_kernel(mpicc: str | None = None, force: bool = False) -> Kernel:
    """Return a kernel binary for this MPI, compiling it unless the cache already has it."""
    compiler = find_mpicc(mpicc)
    root = kernels_dir()
    sources = kernel_sources(root)
    identity = mpi_identity(compiler)
    target_dir = cache_dir("kernels") / cache_key(compiler, identity, sources + sorted(root.glob("*.h")))
    binary = target_dir / KERNEL_NAME
    kernel = Kernel(path=binary, mpicc=compiler, mpiexec=find_mpiexec(compiler),
                    mpi_version=describe_mpi(identity))
    if binary.is_file() and not force:
        return kernel
    _cache_folder(target_dir)
    tmp = target_dir / f".{KERNEL_NAME}.{os.getpid()}"
    cmd = [str(compiler), "-O2", "-g", "-std=c11", "-D_POSIX_C_SOURCE=200809L",
           f'-DMSGPERF_VERSION="{__version__}"', "-o", str(tmp), *map(str, sources), "-lm"]
    _compile(cmd, compiler, tmp, "the kernels")
    _publish(tmp, binary)
    try:
        with atomic_write(target_dir / "identity.json") as out:  # two builds at once: one whole file wins
            out.write(json.dumps({"mpicc": str(compiler), "mpi": kernel.mpi_version, **identity}, indent=1))
    except MsgperfError as exc:  # the binary is in place; the identity is for people reading the cache
        raise cache_error(cache_dir("kernels"), str(exc)) from None
    return kernel


PROFILER_NAME = "libmsgperf-profile.so"


class Profiler(Value):
    """The PMPI profiler (kernels/profiler) built for one MPI: a library for LD_PRELOAD."""

    path: Path
    mpicc: Path
    mpiexec: Path | None
    mpi_version: str


def build_profiler(mpicc: str | None = None, force: bool = False) -> Profiler:
    """Return the profiler library for this MPI, compiling it unless the cache has it (same
    cache and key as the kernels, its own sources)."""
    compiler = find_mpicc(mpicc)
    root = kernels_dir() / "profiler"
    sources = sorted(root.glob("*.c"))
    identity = mpi_identity(compiler)
    target_dir = cache_dir("kernels") / cache_key(compiler, identity, sources + sorted(root.glob("*.h")) + [root / "other_calls.py"])
    library = target_dir / PROFILER_NAME
    profiler = Profiler(path=library, mpicc=compiler, mpiexec=find_mpiexec(compiler),
                        mpi_version=describe_mpi(identity))
    if library.is_file() and not force:
        return profiler
    _cache_folder(target_dir)
    tmp = target_dir / f".{PROFILER_NAME}.{os.getpid()}"
    # The timing wrappers of every MPI call not wrapped by hand, from this MPI's mpi.h
    # (kernels/profiler/other_calls.py, which make runs too).
    generated = target_dir / f".other_calls.{os.getpid()}.c"
    gen = subprocess.run([sys.executable, str(root / "other_calls.py"), str(compiler), str(generated),
                          *map(str, sources)], capture_output=True, text=True)
    if gen.returncode != 0:
        generated.unlink(missing_ok=True)
        first = (gen.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise MsgperfError(f"cannot generate the profiler's wrappers of the other MPI calls with {compiler}: "
                         f"{first}")
    cmd = [str(compiler), "-O2", "-g", "-std=c11", "-D_POSIX_C_SOURCE=200809L", f"-I{root}", "-fPIC",
           "-shared", f'-DMSGPERF_VERSION="{__version__}"', "-o", str(tmp), *map(str, sources),
           str(generated)]
    try:
        _compile(cmd, compiler, tmp, "the profiler")
    finally:
        generated.unlink(missing_ok=True)
    _publish(tmp, library)
    return profiler
