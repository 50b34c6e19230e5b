"""A job that did not finish leaves MPI shared-memory segments behind; msgperf removes the new,
unmapped ones of this user and nothing else."""

from __future__ import annotations

import mmap
import os
import subprocess
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


HOLDER = """
import mmap, sys, time
path, how = sys.argv[1], sys.argv[2]
f = open(path, "r+b")
if how == "maps":
    m = mmap.mmap(f.fileno(), 4096)
    f.close()  # as MPI does: mapped, the file closed
print("ready", flush=True)
time.sleep(60)
"""


def _hold(path, how):
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(path), how], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline() == "ready\n"
    return holder


@pytest.mark.parametrize("through_a_link", [False, True], ids=["dir", "link to the dir"])
def test_segments_of_dead_jobs_are_removed_whenever_they_appeared_but_never_one_in_use(tmp_path, through_a_link):
    """What kill -9 of msgperf leaves: nothing ran after it, so the next launch removes every
    segment of this user that no live process maps or holds open, however old. A segment is
    known by its inode, not its path: /proc shows the path a process sees (another mount
    namespace, or /dev/shm a link to /run/shm, shows another)."""
    real = tmp_path / "shm"
    real.mkdir()
    shm = real
    if through_a_link:
        shm = tmp_path / "link"
        shm.symlink_to(real)
    dead = shm / "mpich_shm_dead_0"
    dead_shared = shm / "mpich_shar_tmpAbC123"  # MPL's segment of a job killed before every rank attached
    mapped = shm / "mpich_shm_mapped_0"
    opened = shm / "vader_segment.open.0"
    unrelated = shm / "postgres-segment"
    for path in (dead, dead_shared, mapped, opened, unrelated):
        path.write_bytes(b"x" * 4096)
    holders = [_hold(real / mapped.name, "maps"), _hold(real / opened.name, "opens")]
    try:
        assert shm_leftovers.remove_dead_jobs_segments(shm) == ["mpich_shar_tmpAbC123", "mpich_shm_dead_0"]
        assert mapped.exists() and opened.exists() and unrelated.exists() and not dead.exists()
        assert not dead_shared.exists()
    finally:
        for holder in holders:
            holder.kill()
            holder.wait()
    assert shm_leftovers.remove_dead_jobs_segments(shm) == ["mpich_shm_mapped_0", "vader_segment.open.0"]


def _fake_proc(root, processes):
    """A /proc with ``self`` and the given pid -> (uid, CapEff) processes."""
    for pid, (uid, caps) in {"self": (os.getuid(), 0x3), **processes}.items():
        (root / pid).mkdir(parents=True)
        (root / pid / "status").write_text(f"Name:\tx\nUid:\t{uid}\t{uid}\t{uid}\t{uid}\nCapEff:\t{caps:016x}\n")
    return root


def test_a_process_that_cannot_be_read_keeps_what_it_may_use(tmp_path, monkeypatch):
    shm = tmp_path / "shm"
    shm.mkdir()
    private, shared = shm / "mpich_shm_private_0", shm / "mpich_shm_shared_0"
    private.write_bytes(b"x")
    private.chmod(0o600)
    shared.write_bytes(b"x")
    shared.chmod(0o666)

    def unreadable(pid):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(shm_leftovers, "_files_of", unreadable)
    names = {private.name, shared.name}
    # a process of this user that cannot be read (not dumpable): it may map any of them
    mine = _fake_proc(tmp_path / "p1", {"101": (os.getuid(), 0x3)})
    assert shm_leftovers.remove_unused(names, shm, mine) == []
    # another user's process: only a segment other users may open could be its
    theirs = _fake_proc(tmp_path / "p2", {"102": (os.getuid() + 1, 0x0)})
    assert shm_leftovers.remove_unused(names, shm, theirs) == ["mpich_shm_private_0"]
    assert shared.exists() and not private.exists()
    # one of this user's with capabilities msgperf lacks (the system's init): not an MPI rank of ours
    init = _fake_proc(tmp_path / "p3", {"1": (os.getuid(), 0xff)})
    assert shm_leftovers.remove_unused(names, shm, init) == ["mpich_shm_shared_0"]
