"""Re-reading is instant: the analysis of a run is cached while the run and the code are unchanged
(msgperf/analysis_cache.py), and only then."""

from __future__ import annotations

import errno
import os
import pickle
import sqlite3
import stat
import subprocess
import sys
import time

import numpy as np
import pytest

import msgperf.analysis.result as result_module
from msgperf import analysis_cache, plain_data
from msgperf.cache_dir import cache_dir
from msgperf.loader import load_analyzed
from msgperf.store.db import open_store
from tests.cli_in_process import cli
from tests.factories import pingpong_run, write_run


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    """A cache directory of this test's own, turned on."""
    monkeypatch.setenv("MSGPERF_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("MSGPERF_NO_CACHE", raising=False)


@pytest.fixture
def counted(monkeypatch):
    """analyze() with a call counter."""
    calls = []
    real = result_module.analyze

    def counting(run, **kw):
        calls.append(run.path)
        return real(run, **kw)

    monkeypatch.setattr(result_module, "analyze", counting)
    return calls


def test_a_file_is_analysed_once_then_read_from_the_cache(tmp_path, counted):
    path = write_run(pingpong_run(), tmp_path / "a.jsonl")
    loaded, first = load_analyzed(str(path))
    again, second = load_analyzed(str(path))
    assert len(counted) == 1
    assert second.saphir == first.saphir and again.run.path == loaded.run.path
    assert [s.name for s in second.series] == [s.name for s in first.series]
    load_analyzed(str(path), launch=0)  # other options: another entry
    assert len(counted) == 2


def test_a_changed_file_is_analysed_anew(tmp_path, counted):
    path = write_run(pingpong_run(seed=1), tmp_path / "a.jsonl")
    _, first = load_analyzed(str(path))
    write_run(pingpong_run(seed=2, scale=2.0), path)
    os.utime(path, ns=(1, 1))  # even with an unchanged size, a new mtime/inode is a new key
    _, second = load_analyzed(str(path))
    assert len(counted) == 2
    assert second.saphir[0].zero_byte_latency_s == pytest.approx(2 * first.saphir[0].zero_byte_latency_s, rel=0.1)


def test_a_stored_run_is_keyed_by_its_content(tmp_path, counted):
    db = tmp_path / "s.db"
    with open_store(db) as store:
        run_id, _ = store.add_run(pingpong_run())
        store.set_label(run_id, "before")
    load_analyzed(str(run_id), str(db))
    with open_store(db) as store:
        store.set_label(run_id, "after")  # the label is not part of the analysis
    loaded, _ = load_analyzed(str(run_id), str(db))
    assert len(counted) == 1 and loaded.row.label == "after"


def test_no_cache_when_switched_off_and_a_broken_entry_is_ignored(tmp_path, counted, monkeypatch):
    path = write_run(pingpong_run(), tmp_path / "a.jsonl")
    load_analyzed(str(path))
    for entry in cache_dir("analysis").glob("*.npz"):
        entry.write_bytes(b"not an entry")
    load_analyzed(str(path))
    assert len(counted) == 2  # recomputed, and rewritten
    monkeypatch.setenv("MSGPERF_NO_CACHE", "1")
    load_analyzed(str(path))
    load_analyzed(str(path))
    assert len(counted) == 4


def test_the_code_version_changes_with_the_analysis_sources(monkeypatch, tmp_path):
    before = analysis_cache.code_version()
    analysis_cache.code_version.cache_clear()
    monkeypatch.setattr(analysis_cache, "_SHAPING", ("analysis", "units.py"))
    assert analysis_cache.code_version() != before
    analysis_cache.code_version.cache_clear()


# ---- entries that must not be trusted (issue "reliability round three": caches that run code) ----

class Planted:
    """An entry another user planted: under pickle, loading it would create ``marker``."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (os.mkdir, (self.marker,))


def _entry_of(path, **kw):
    return analysis_cache.entry_path(analysis_cache.file_key(str(path)), (kw.get("launch"), 0.01, 0.95))


def test_a_planted_pickle_in_a_shared_cache_directory_runs_nothing(tmp_path, counted, monkeypatch, capsys):
    shared = tmp_path / "shared-cache"  # XDG_CACHE_HOME shared by several users
    monkeypatch.delenv("MSGPERF_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(shared))
    path = write_run(pingpong_run(), tmp_path / "a.jsonl")
    marker = tmp_path / "code-ran"
    planted = _entry_of(path)
    assert planted.parent == shared / "msgperf" / "analysis"
    planted.parent.mkdir(parents=True)
    for name in (planted, planted.with_suffix(".pickle"), planted.parent / "other.pickle"):
        name.write_bytes(pickle.dumps(Planted(marker)))  # at this run's own entry name, and older names
    monkeypatch.setenv("MSGPERF_NO_CACHE", "1")
    expected = cli(capsys, "show", path)
    monkeypatch.delenv("MSGPERF_NO_CACHE")
    assert cli(capsys, "show", path) == expected and expected[0] == 0
    assert not marker.exists()
    assert len(counted) == 2  # the planted entry was not used
    assert analysis_cache.get(analysis_cache.file_key(str(path)), (None, 0.01, 0.95)) is not None  # replaced
    assert sorted(p.suffix for p in planted.parent.iterdir()) == [".npz"]  # the old names are gone
    assert stat.S_IMODE(planted.parent.stat().st_mode) == 0o700


def test_an_entry_of_another_user_is_ignored(tmp_path, counted, monkeypatch):
    path = write_run(pingpong_run(), tmp_path / "a.jsonl")
    load_analyzed(str(path))
    entry = _entry_of(path)
    if os.getuid() == 0:
        os.chown(entry, 65534, 65534)  # a real other user
    else:
        monkeypatch.setattr(os, "getuid", lambda: os.stat(entry).st_uid + 1)
    load_analyzed(str(path))
    assert len(counted) == 2


def test_a_cache_directory_others_may_write_is_not_read_and_is_made_private(tmp_path, counted):
    path = write_run(pingpong_run(), tmp_path / "a.jsonl")
    load_analyzed(str(path))
    directory = cache_dir("analysis")
    directory.chmod(0o777)
    load_analyzed(str(path))  # not read from a directory anyone could have written; made private again
    assert len(counted) == 2 and stat.S_IMODE(directory.stat().st_mode) == 0o700
    load_analyzed(str(path))
    assert len(counted) == 2


def test_a_well_formed_entry_of_the_wrong_shape_is_ignored_and_replaced(tmp_path, counted, capsys, monkeypatch):
    a = write_run(pingpong_run(seed=1), tmp_path / "a.jsonl")
    b = write_run(pingpong_run(seed=2, scale=3.0), tmp_path / "b.jsonl")
    monkeypatch.setenv("MSGPERF_NO_CACHE", "1")
    expected = cli(capsys, "show", b)
    monkeypatch.delenv("MSGPERF_NO_CACHE")
    cli(capsys, "show", a)
    entry_a, entry_b = _entry_of(a), _entry_of(b)
    key_b = entry_b.stem
    forged = {
        "another run's entry": entry_a.read_bytes(),
        "a string": plain_data.encoded("FORGED RESULT", key_b, str),
        "a tuple of strings": plain_data.encoded(("FORGED", ("FORGED",), "FORGED"), key_b,
                                                 tuple[str, tuple[str, ...], str]),
        "notes that are not text": plain_data.encoded((None, (1, 2), None), key_b, tuple[None, tuple[int, ...], None]),
    }
    for what, data in forged.items():
        entry_b.write_bytes(data)
        shown = cli(capsys, "show", b)
        assert shown == expected and "FORGED" not in shown[1] + shown[2], what
    assert len(counted) == 2 + len(forged)  # b without the cache, a, then b again after each forgery


def test_a_failed_write_leaves_no_temporary_file(tmp_path, counted, monkeypatch):
    path = write_run(pingpong_run(), tmp_path / "a.jsonl")

    def full_disk(value, key, kind, out):
        out.write(b"PK half an entry")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(plain_data, "encode", full_disk)
    _, result = load_analyzed(str(path))
    assert result.saphir and list(cache_dir("analysis").iterdir()) == []


def test_a_value_the_format_cannot_hold_is_not_kept_and_leaves_nothing(tmp_path):
    """An integer beyond 64 bits (MessagePack's) costs the cache, never the result."""
    analysis_cache.put("source", (None,), (pingpong_run(), (), 2**64))
    assert analysis_cache.get("source", (None,)) is None and list(cache_dir("analysis").iterdir()) == []


def test_a_file_size_limit_leaves_no_temporary_file(tmp_path):
    """RLIMIT_FSIZE in a fresh process: the entry's write fails (EFBIG), the command does not."""
    path = write_run(pingpong_run(), tmp_path / "a.jsonl")
    cache = tmp_path / "cache"
    script = ("import resource, sys\n"
              "resource.setrlimit(resource.RLIMIT_FSIZE, (20000, 20000))\n"
              "from msgperf.cli import main\n"
              "main(['show', sys.argv[1]])\n")
    env = dict(os.environ, MSGPERF_CACHE=str(cache))
    env.pop("MSGPERF_NO_CACHE", None)
    done = subprocess.run([sys.executable, "-c", script, str(path)], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0 and "pingpong" in done.stdout and "Traceback" not in done.stderr
    assert sorted(p.name for p in (cache / "analysis").iterdir()) == []  # no entry, no temporary


def test_a_killed_writers_old_temporary_files_are_removed(tmp_path, counted):
    directory = cache_dir("analysis")
    directory.mkdir(parents=True, mode=0o700)
    old, fresh = directory / "x.123.tmp", directory / "y.456.tmp"  # fresh: another process writing now
    old.write_bytes(b"half")
    fresh.write_bytes(b"half")
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    load_analyzed(str(write_run(pingpong_run(), tmp_path / "a.jsonl")))
    assert not old.exists() and fresh.exists()


def test_damaged_stored_samples_are_a_new_key(tmp_path, counted):
    db = tmp_path / "s.db"
    with open_store(db) as store:
        run_id, _ = store.add_run(pingpong_run())
        before = store.content_now(run_id)
    load_analyzed(str(run_id), str(db))
    with sqlite3.connect(db) as conn:  # the same length, other values: only the samples differ
        blob = conn.execute("SELECT samples FROM measurements WHERE run_id = ? AND seq = 3", (run_id,)).fetchone()[0]
        doubled = (np.frombuffer(blob, dtype="<f8") * 2).tobytes()
        conn.execute("UPDATE measurements SET samples = ? WHERE run_id = ? AND seq = 3", (doubled, run_id))
    with open_store(db) as store:
        assert store.content_now(run_id) != before
    load_analyzed(str(run_id), str(db))
    assert len(counted) == 2


def test_the_old_output_replay_cache_is_removed_once_and_nothing_beside_it(tmp_path, counted):
    """The removed output-replay cache left ``<cache>/output`` full of pickles: the first analysis
    written removes that directory, and only it (its siblings, and a link named ``output``, stay)."""
    old = cache_dir("output")
    old.mkdir(parents=True)
    for digest in ("0" * 64, "ab" * 32):  # its entries: <sha256 of the key>.pickle
        (old / f"{digest}.pickle").write_bytes(pickle.dumps(("show", b"old output")))
    beside = cache_dir("outputs")
    beside.mkdir()
    (beside / "keep").write_text("not msgperf's")
    kernels = cache_dir("kernels")
    kernels.mkdir()
    path = write_run(pingpong_run(), tmp_path / "r.jsonl")
    load_analyzed(str(path))
    assert not old.exists() and (beside / "keep").exists() and kernels.is_dir()
    assert len(counted) == 1 and list(cache_dir("analysis").glob("*.npz"))


def test_an_output_directory_holding_anything_else_is_left_alone(tmp_path, counted):
    """$MSGPERF_CACHE may point at a folder of the user's: its output/ is not the old cache when it
    holds anything but that cache's entries."""
    old = cache_dir("output")
    old.mkdir(parents=True)
    (old / f"{'0' * 64}.pickle").write_bytes(b"x")
    (old / "results.csv").write_text("the user's")
    load_analyzed(str(write_run(pingpong_run(), tmp_path / "r.jsonl")))
    assert (old / "results.csv").read_text() == "the user's" and (old / f"{'0' * 64}.pickle").exists()


def test_a_link_named_like_the_old_output_cache_is_left_alone(tmp_path, counted):
    target = tmp_path / "elsewhere"
    target.mkdir()
    (target / "precious").write_text("the user's")
    cache_dir("output").parent.mkdir(parents=True)
    cache_dir("output").symlink_to(target)
    load_analyzed(str(write_run(pingpong_run(), tmp_path / "r.jsonl")))
    assert (target / "precious").read_text() == "the user's" and cache_dir("output").is_symlink()


@pytest.fixture
def spill_everything(monkeypatch):
    """Every run file counts as large: its samples wait in a temporary file while it is read."""
    from msgperf.records import runfile_read

    monkeypatch.setattr(runfile_read, "SPILL_ABOVE_FILE_BYTES", 0)


def test_a_large_runs_samples_are_kept_beside_its_entry_and_read_back_bit_for_bit(
        tmp_path, counted, capsys, spill_everything, monkeypatch):
    path = write_run(pingpong_run(), tmp_path / "a.jsonl")
    monkeypatch.setenv("MSGPERF_NO_CACHE", "1")
    uncached = {command: cli(capsys, *command, path) for command in (("fit",), ("show", "--json"))}
    monkeypatch.delenv("MSGPERF_NO_CACHE")
    counted.clear()
    first = cli(capsys, "show", path)
    loaded, _ = load_analyzed(str(path))
    assert len(counted) == 1 and first[0] == 0
    entry = _entry_of(path)
    samples_file = entry.with_suffix(analysis_cache.SAMPLES)
    assert entry.exists() and samples_file.stat().st_size == 8 * sum(m.samples_s.size for m in loaded.run.measurements)
    assert stat.S_IMODE(samples_file.stat().st_mode) & 0o077 == 0
    assert all(m.spilled for m in loaded.run.measurements)  # read back one measurement at a time
    fresh = pingpong_run()
    assert all(np.array_equal(a.samples_s, b.samples_s) for a, b in zip(loaded.run.measurements, fresh.measurements))
    for command, expected in uncached.items():  # read from the entry and its samples: what no cache prints
        assert cli(capsys, *command, path) == expected
    assert cli(capsys, "show", path) == first
    assert len(counted) == 1


@pytest.mark.parametrize("damage", ["missing", "shorter", "longer", "other bytes, same length", "others may write it",
                                    "a link"])
def test_an_entry_whose_samples_file_is_damaged_is_analysed_anew(tmp_path, counted, capsys, spill_everything, damage):
    path = write_run(pingpong_run(), tmp_path / "a.jsonl")
    first = cli(capsys, "show", path)
    samples_file = _entry_of(path).with_suffix(analysis_cache.SAMPLES)
    if damage == "missing":
        samples_file.unlink()
    elif damage == "shorter":
        os.truncate(samples_file, samples_file.stat().st_size - 8)
    elif damage == "longer":
        with open(samples_file, "ab") as f:
            f.write(np.ones(1).tobytes())
    elif damage == "other bytes, same length":  # -1.0 everywhere: what a reader must never take for samples
        samples_file.write_bytes(np.full(samples_file.stat().st_size // 8, -1.0).tobytes())
    elif damage == "others may write it":
        samples_file.chmod(0o666)
    else:
        elsewhere = tmp_path / "elsewhere.samples"
        samples_file.rename(elsewhere)
        samples_file.symlink_to(elsewhere)
    assert cli(capsys, "show", path) == first
    assert len(counted) == 2
    assert cli(capsys, "show", path) == first  # replaced (a link by a file): read from the cache again
    assert len(counted) == 2
    assert not samples_file.is_symlink() and stat.S_IMODE(samples_file.stat().st_mode) & 0o077 == 0


def test_a_large_run_beyond_the_samples_budget_is_not_kept_and_leaves_nothing(tmp_path, counted, spill_everything,
                                                                               monkeypatch):
    monkeypatch.setattr(analysis_cache, "MAX_SAMPLE_BYTES", 1000)
    path = write_run(pingpong_run(), tmp_path / "a.jsonl")
    _, result = load_analyzed(str(path))
    assert result.saphir and list(cache_dir("analysis").iterdir()) == []
    load_analyzed(str(path))
    assert len(counted) == 2


def test_the_samples_budget_removes_the_oldest_large_runs_first(tmp_path, counted, spill_everything, monkeypatch):
    paths = [write_run(pingpong_run(seed=i), tmp_path / f"{i}.jsonl") for i in range(3)]
    for age, path in zip((300, 200, 0), paths):
        load_analyzed(str(path))
        os.utime(_entry_of(path), (time.time() - age, time.time() - age))
        if age == 300:  # room for two runs' samples
            one = _entry_of(path).with_suffix(analysis_cache.SAMPLES).stat().st_size
            monkeypatch.setattr(analysis_cache, "MAX_SAMPLE_BYTES", 2 * one + one // 2)
    names = sorted(p.name for p in cache_dir("analysis").iterdir())
    assert names == sorted(n for p in paths[1:] for n in (_entry_of(p).name, _entry_of(p).stem + ".samples"))
    assert len(counted) == 3


def test_a_samples_file_left_without_its_entry_is_removed_once_old(tmp_path, counted):
    directory = cache_dir("analysis")
    directory.mkdir(parents=True, mode=0o700)
    old, fresh = directory / "a.samples", directory / "b.samples"  # fresh: its entry is being written now
    old.write_bytes(b"\0" * 8)
    fresh.write_bytes(b"\0" * 8)
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    load_analyzed(str(write_run(pingpong_run(), tmp_path / "a.jsonl")))
    assert not old.exists() and fresh.exists()


def test_a_large_stored_runs_samples_are_kept_beside_its_entry_too(tmp_path, counted, monkeypatch):
    from msgperf.store import db as store_db

    monkeypatch.setattr(store_db, "SPILL_ABOVE_SAMPLE_BYTES", 0)
    db = tmp_path / "s.db"
    with open_store(db) as store:
        run_id, _ = store.add_run(pingpong_run())
    first, _ = load_analyzed(str(run_id), str(db))
    again, _ = load_analyzed(str(run_id), str(db))
    assert len(counted) == 1 and all(m.spilled for m in again.run.measurements)
    assert all(np.array_equal(a.samples_s, b.samples_s) for a, b in zip(first.run.measurements, again.run.measurements))
    assert sorted(p.suffix for p in cache_dir("analysis").iterdir()) == [".npz", ".samples"]
