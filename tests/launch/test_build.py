import os
import stat
from pathlib import Path

import pytest

from msgperf.errors import MsgperfError
from msgperf.launch.build import build_kernel, find_mpicc


def wrapper(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def test_kernels_are_cached_per_mpi_identity(tmp_path, monkeypatch):
    monkeypatch.setenv("MSGPERF_CACHE", str(tmp_path / "cache"))
    first = build_kernel()
    assert first.path.is_file() and os.access(first.path, os.X_OK)
    assert first.mpi_version.startswith("MPICH")
    mtime = first.path.stat().st_mtime_ns
    again = build_kernel()
    assert again.path == first.path and again.path.stat().st_mtime_ns == mtime  # not rebuilt
    # Another mpicc (here a wrapper adding a define to the compile line) is another MPI identity.
    real = find_mpicc()
    other = wrapper(tmp_path, "mpicc", f'exec "{real}" -DMSGPERF_OTHER_BUILD "$@"')
    second = build_kernel(str(other))
    assert second.path != first.path and second.path.is_file()


def test_a_compiler_that_cannot_compile_gets_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("MSGPERF_CACHE", str(tmp_path / "cache"))
    broken = wrapper(tmp_path, "mpicc", 'echo "fatal error: mpi.h: No such file or directory" >&2; exit 1')
    with pytest.raises(MsgperfError, match="cannot compile against mpi.h"):
        build_kernel(str(broken))


def test_missing_mpicc_is_named(tmp_path):
    with pytest.raises(MsgperfError, match="no such executable"):
        build_kernel(str(tmp_path / "nope" / "mpicc"))
