"""Re-reading is instant: the analysis of a run is cached while the run and the code are unchanged
(msgperf/analysis_cache.py), and only then."""

from __future__ import annotations

import os

import pytest

import msgperf.analysis.result as result_module
from msgperf import analysis_cache
from msgperf.loader import load_analyzed
from msgperf.store.db import open_store
from tests.factories import pingpong_run, write_run


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
    for entry in analysis_cache.cache_dir().glob("*.pickle"):
        entry.write_bytes(b"not a pickle")
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
