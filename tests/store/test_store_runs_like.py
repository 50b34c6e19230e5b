"""Store.runs_like: the stored runs that may share a run's noise floor, newest first."""

from __future__ import annotations

from msgperf.store.db import open_store
from tests.factories import stored_run


def test_same_hosts_mpi_and_placement_newest_first(tmp_path):
    def at(day: int, seed: int, **kw):
        return stored_run(seed, start_time=f"2026-11-{day:02d}T10:00:00+00:00", **kw)

    with open_store(tmp_path / "s.db") as store:
        old, _ = store.add_run(at(10, 1))
        new, _ = store.add_run(at(20, 2))
        mid, _ = store.add_run(at(15, 3, sizes=(0, 1, 8)))  # shares sizes: a candidate
        store.add_run(at(21, 4, hosts=("other", "other")))
        store.add_run(at(22, 5, mpi="Open MPI v5.0.5"))
        store.add_run(at(23, 6, hosts=("node01", "node02")))  # inter-node
        store.add_run(at(24, 7, patterns=("memcpy",)))
        store.add_run(at(25, 8, sizes=(3, 5)))  # no size in common
        rows = store.runs_like(at(30, 9))
        assert [r.id for r in rows] == [new, mid, old]
        assert [r.id for r in store.runs_like(at(30, 9), limit=2)] == [new, mid]


def test_an_empty_store_has_no_history(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        assert store.runs_like(stored_run(1)) == []
