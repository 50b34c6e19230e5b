"""Profiles in the store: exact round trips, idempotence, the listing, a corrupt row."""

from __future__ import annotations

import pytest

from msgperf.store.db import open_store
from msgperf.store.rows import StoreError
from tests.factories import sample_profile
from tests.factories import replace


def test_a_profile_comes_back_record_for_record(tmp_path):
    profile = replace(sample_profile(2, nranks=3), path="/runs/p.jsonl")
    with open_store(tmp_path / "s.db") as store:
        assert store.add_profile(profile, label="halo 3 ranks") == (1, True)
        assert store.load_profile(1) == profile


def test_adding_a_profile_again_adds_nothing(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        assert store.add_profile(sample_profile(0)) == (1, True)
        assert store.add_profile(replace(sample_profile(0), path="elsewhere.jsonl")) == (1, False)
        assert store.add_profile(sample_profile(1)) == (2, True)


def test_the_listing_says_what_ran_where(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        store.add_profile(sample_profile(0, nranks=4))
        store.add_profile(sample_profile(1, nranks=2, complete=False))
        rows = store.list_profiles()
    assert [r.id for r in rows] == [1, 2]
    first, second = rows
    assert first.hosts == ("node0", "node1") and first.mpi == "MPICH 5.0.2" and first.nranks == 4
    assert first.program == "halo" and first.argv == ("./halo", "--steps", "2")
    assert first.complete and not second.complete
    assert first.messages == 4 * 8 and second.messages == 2 * 12  # sends, all ranks
    assert first.time is not None and first.time.year == 2026


def test_a_missing_or_corrupt_profile_is_one_line(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        with pytest.raises(StoreError, match="no profile 3"):
            store.load_profile(3)
        store.add_profile(sample_profile())
        store.conn.execute("UPDATE profiles SET ranks = '[{\"type\": \"rank\"}]' WHERE id = 1")
        with pytest.raises(StoreError, match="missing field .*the database is corrupt"):
            store.load_profile(1)
        store.conn.execute("UPDATE profiles SET ranks = 'nope' WHERE id = 1")
        with pytest.raises(StoreError, match="not valid JSON"):
            store.load_profile(1)
