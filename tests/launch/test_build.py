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


def _one_line_naming_the_cache(exc: MsgperfError, cache: Path) -> str:
    message = str(exc)
    assert "\n" not in message and f"cannot write the kernel build cache {cache}" in message, message
    assert "MSGPERF_CACHE=" in message and "MPI installation" not in message
    return message


def test_a_cache_that_cannot_be_a_directory_is_one_line_naming_it(tmp_path, monkeypatch):
    """An unwritable kernel build cache gave a traceback (tests run as root, so a mode bit does
    not stop them: the cache's parent is a regular file)."""
    (tmp_path / "file").write_text("not a directory")
    cache = tmp_path / "file" / "cache"
    monkeypatch.setenv("MSGPERF_CACHE", str(cache))
    with pytest.raises(MsgperfError) as refused:
        build_kernel()
    assert "Not a directory" in _one_line_naming_the_cache(refused.value, cache)


def test_a_full_cache_blames_the_cache_not_the_mpi(tmp_path, monkeypatch):
    """A full disk under the cache: the linker cannot write the binary. The error said "check
    the MPI installation"."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("MSGPERF_CACHE", str(cache))
    real = find_mpicc()
    # the real mpicc for the identity (-E, -show), a full disk when it writes the binary (-o)
    full = wrapper(tmp_path, "mpicc", 'for a in "$@"; do prev_o=$o; o=$a; '
                   'if [ "$prev_o" = "-o" ]; then echo "/usr/bin/ld: cannot open output file $a: '
                   'No space left on device" >&2; exit 1; fi; done; exec "' + str(real) + '" "$@"')
    with pytest.raises(MsgperfError) as refused:
        build_kernel(str(full))
    assert "No space left on device" in _one_line_naming_the_cache(refused.value, cache)
    assert not [p for p in cache.rglob(".msgperf-kernels.*")]  # no half-written binary left


def test_a_failed_rename_into_the_cache_is_one_line(tmp_path, monkeypatch):
    import errno

    from msgperf.launch import build

    cache = tmp_path / "cache"
    monkeypatch.setenv("MSGPERF_CACHE", str(cache))

    def full(src, dst):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(build.os, "replace", full)
    with pytest.raises(MsgperfError) as refused:
        build_kernel()
    _one_line_naming_the_cache(refused.value, cache)
    assert not [p for p in cache.rglob(".msgperf-kernels.*")]
