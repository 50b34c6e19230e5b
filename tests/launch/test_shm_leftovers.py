"""A job that did not finish leaves MPI shared-memory segments behind; msgperf removes the new,
unmapped ones of this user and nothing else."""

from __future__ import annotations

import mmap
import sys

import pytest

from msgperf.launch import job, shm_leftovers
from msgperf.launch.shm_leftovers import remove_leftovers, segments


def test_only_new_unmapped_mpi_segments_are_removed(tmp_path):
    old = tmp_path / "mpich_shm_old_0"
    old.write_bytes(b"x" * 4096)
    before = segments(tmp_path)
    assert before == {"mpich_shm_old_0"}
    leaked = tmp_path / "mpich_shm_dead_0"
    leaked.write_bytes(b"x" * 4096)
    ompi = tmp_path / "vader_segment.h0.1.0"
    ompi.write_bytes(b"x" * 4096)
    unrelated = tmp_path / "postgres-segment"
    unrelated.write_bytes(b"x" * 4096)
    alive = tmp_path / "mpich_shm_alive_0"
    alive.write_bytes(b"x" * 4096)
    with alive.open("r+b") as f, mmap.mmap(f.fileno(), 4096) as _mapped:  # a live rank still maps it
        removed = remove_leftovers(before, tmp_path)
        assert sorted(removed) == ["mpich_shm_dead_0", "vader_segment.h0.1.0"]
        assert alive.exists() and old.exists() and unrelated.exists()
        assert not leaked.exists() and not ompi.exists()


def test_a_missing_shm_directory_is_nothing_to_clean(tmp_path):
    assert segments(tmp_path / "absent") == set()
    assert remove_leftovers(set(), tmp_path / "absent") == []


def test_a_stopped_job_leaves_no_segment(tmp_path, monkeypatch):
    """execute() on a job that is killed: the segment its 'rank' created is gone afterwards."""
    monkeypatch.setattr(shm_leftovers, "SHM_DIR", tmp_path)
    monkeypatch.setattr(job, "segments", lambda: shm_leftovers.segments(tmp_path))
    monkeypatch.setattr(job, "remove_leftovers", lambda before: shm_leftovers.remove_leftovers(before, tmp_path))
    run_file = tmp_path / "run.jsonl"
    rank = (f"open({str(tmp_path / 'mpich_shm_job_0')!r}, 'wb').write(b'x' * 4096); "
            "import sys; sys.exit(9)")
    with pytest.raises(job.LaunchError):
        job.execute([sys.executable, "-c", rank], run_file, expected=[], log_dir=tmp_path)
    assert not (tmp_path / "mpich_shm_job_0").exists()
