"""The profiler library is built like the kernels: cached per MPI identity and source."""

from __future__ import annotations

import subprocess

from msgperf.launch.build import PROFILER_NAME, build_kernel, build_profiler


def test_the_profiler_is_cached_beside_the_kernels(tmp_path, monkeypatch):
    monkeypatch.setenv("MSGPERF_CACHE", str(tmp_path / "cache"))
    first = build_profiler()
    assert first.path.name == PROFILER_NAME and first.path.is_file()
    assert first.mpi_version.startswith("MPICH") and first.mpiexec is not None
    mtime = first.path.stat().st_mtime_ns
    again = build_profiler()
    assert again.path == first.path and again.path.stat().st_mtime_ns == mtime  # not rebuilt
    assert build_kernel().path.parent != first.path.parent  # its own sources, its own key
    exported = subprocess.run(["nm", "-D", "--defined-only", str(first.path)], capture_output=True, text=True).stdout
    names = {line.split()[-1] for line in exported.splitlines() if line.strip()}
    # the MPI calls it wraps and nothing of its own that could clash with an application's names
    assert {"MPI_Send", "MPI_Waitall", "MPI_Startall", "MPI_Init_thread", "MPI_Finalize"} <= names
    assert all(n.startswith("MPI_") or n.startswith("_") for n in names), sorted(names)


def test_the_profiler_builds_without_the_tsc_as_on_other_architectures(tmp_path):
    """Off x86 the profiler has no TSC to read: -DMSGPERF_PROFILE_NO_TSC compiles that path
    here, warnings as errors, and it exports the same calls."""
    from msgperf.launch.build import find_mpicc, kernels_dir
    sources = sorted(str(p) for p in (kernels_dir() / "profiler").glob("*.c"))
    library = tmp_path / PROFILER_NAME
    result = subprocess.run([str(find_mpicc()), "-O2", "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-Wall", "-Wextra",
                             "-Werror", "-DMSGPERF_PROFILE_NO_TSC", "-fPIC", "-shared", "-o", str(library), *sources],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    exported = subprocess.run(["nm", "-D", "--defined-only", str(library)], capture_output=True, text=True).stdout
    assert "MPI_Type_free" in exported and "MPI_Isend" in exported
