"""The store: exact round trips, idempotence, resumed runs, listing and filters, bad databases."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone

import numpy as np
import pytest

from msgperf.errors import MsgperfError
from msgperf.records.runfile_read import read_run
from msgperf.store.db import default_path, open_store
from msgperf.store.listing import RunFilter, parse_since
from msgperf.store.schema import APPLICATION_ID, LATEST_VERSION
from tests.factories import assert_same_run, stored_run, write_run_file
from tests.factories import replace


def test_a_run_comes_back_bit_for_bit(tmp_path):
    run = stored_run(1)
    with open_store(tmp_path / "s.db") as store:
        run_id, added = store.add_run(run)
        loaded = store.load_run(run_id)
    assert (run_id, added) == (1, True)
    assert_same_run(run, loaded)
    assert loaded.measurements[2].extra == {"calibration": {"reps": 50, "seed": 1}}
    assert np.array_equal(loaded.measurements[3].samples_s, run.measurements[3].samples_s)


def test_aborted_launches_flows_and_variants_survive(tmp_path):
    run = stored_run(8)
    aborted = replace(run.launches[0], end_time=None, end_cpus=None, aborted="hang at 65536 B")
    m = replace(run.measurements[0], flows=2, variant="round 3")
    run = replace(run, launches=(aborted,), measurements=(m,) + run.measurements[1:])
    path = write_run_file(run, tmp_path / "run.jsonl")
    with open_store(tmp_path / "s.db") as store:
        run_id, _ = store.add_run(read_run(path).run)
        loaded = store.load_run(run_id)
        assert store.add_run(stored_run(8))[0] != run_id  # the abort is part of the content
    assert_same_run(loaded, run)
    assert loaded.launches[0].aborted == "hang at 65536 B"
    assert (loaded.measurements[0].flows, loaded.measurements[0].variant) == (2, "round 3")


def test_samples_are_a_little_endian_float64_blob(tmp_path):
    run = stored_run(2)
    with open_store(tmp_path / "s.db") as store:
        store.add_run(run)
    conn = sqlite3.connect(tmp_path / "s.db")
    blob, n = conn.execute("SELECT samples, n_samples FROM measurements WHERE seq = 1").fetchone()
    assert n == 40 and len(blob) == 40 * 8
    assert np.frombuffer(blob, "<f8").tolist() == run.measurements[1].samples_s.tolist()


def test_adding_the_same_run_twice_adds_nothing(tmp_path):
    run = stored_run(3)
    path = write_run_file(run, tmp_path / "run.jsonl")
    copy = write_run_file(run, tmp_path / "copy.jsonl")
    with open_store(tmp_path / "s.db") as store:
        first = store.add_run(read_run(path).run)
        assert store.add_run(read_run(path).run) == (first[0], False)
        assert store.add_run(read_run(copy).run) == (first[0], False)  # the path is not content
        assert store.add_run(stored_run(4)) == (2, True)
        assert [r.id for r in store.list_runs()] == [1, 2]


def test_a_resumed_run_replaces_its_partial_copy(tmp_path):
    full = stored_run(5)
    partial = replace(full, measurements=full.measurements[:2],
                                  launches=(replace(full.launches[0], end_time=None, end_cpus=None),))
    with open_store(tmp_path / "s.db") as store:
        run_id, _ = store.add_run(partial)
        store.set_label(run_id, "keep me")
        assert store.add_run(full) == (run_id, True)
        assert_same_run(store.load_run(run_id), full)
        assert store.add_run(partial) == (run_id, False)  # an older copy changes nothing
        (row,) = store.list_runs()
    assert row.label == "keep me" and row.n_measurements == len(full.measurements)


def test_a_copy_imported_while_the_run_measured_is_continued_by_the_finished_run(tmp_path):
    # `msgperf import live.jsonl` while `msgperf run -o live.jsonl` measures: the copy has the
    # launch without its launch_host record (appended once the launch is over); the finished
    # run, stored at its end, must replace that copy, not be stored beside it
    from msgperf.records.format import HostLoad, LaunchHost

    late = LaunchHost(host="node01", usable_cores=2, online_cores=2, progress={},
                      before=HostLoad(0.3, 0.5, 0.5, 1), after=HostLoad(0.4, 0.5, 0.5, 1), interval_s=2.0,
                      steal_fraction=0.0, other_cores=0.05)
    base = stored_run(5)
    full = replace(base, launches=(replace(base.launches[0], host=late),))
    live = replace(base, measurements=base.measurements[:2],
                               launches=(replace(base.launches[0], end_time=None, end_cpus=None),))
    with open_store(tmp_path / "s.db") as store:
        run_id, _ = store.add_run(live)
        assert store.add_run(full) == (run_id, True)
        assert len(store.list_runs()) == 1
        assert store.load_run(run_id).launches[0].host == late
        assert store.add_run(live) == (run_id, False)


def test_a_different_run_with_the_same_header_is_not_merged(tmp_path):
    a, b = stored_run(6), stored_run(7)  # same run record, different samples
    with open_store(tmp_path / "s.db") as store:
        assert store.add_run(a)[0] != store.add_run(b)[0]


def test_listing_fields_and_filters(tmp_path):
    runs = [stored_run(10, hosts=("alpha", "alpha"), start_time="2026-11-01T08:00:00+00:00"),
            stored_run(11, hosts=("beta1", "beta2"), mpi="Open MPI", version="5.0.5",
                     start_time="2026-11-10T08:00:00+00:00", patterns=("exchange", "pingpong")),
            stored_run(12, hosts=("alpha", "alpha"), version="4.2.0", start_time="2026-11-20T08:00:00Z")]
    with open_store(tmp_path / "s.db") as store:
        for run in runs:
            store.add_run(run)
        store.set_label(2, "After Upgrade")
        rows = store.list_runs()
        assert rows[1].hosts == ("beta1", "beta2") and rows[1].mpi == "Open MPI 5.0.5"
        assert rows[1].patterns == ("exchange", "pingpong") and rows[1].sizes == (0, 1, 8, 1024, 65536)
        assert (rows[0].placement, rows[1].placement, rows[0].nranks) == ("intra-node", "inter-node", 2)

        def ids(**kw):
            return [r.id for r in store.list_runs(RunFilter(**kw))]

        assert ids(host="ALPHA") == [1, 3]
        assert ids(mpi="mpich 4") == [3]
        assert ids(pattern="exch*") == [2] and ids(pattern="pingpong") == [1, 2, 3]
        assert ids(since=parse_since("2026-11-05")) == [2, 3]
        assert ids(since=parse_since("2026-11-15T00:00:00+00:00")) == [3]
        assert ids(label="upgrade") == [2] and ids(source="osu") == []


def test_listing_reads_indexes_and_only_the_rows_it_returns(tmp_path):
    """msgperf runs on years of history: each filter is answered from an index (schema version
    5), the runs table (whose rows hold whole run records) is read only for the rows returned."""
    with open_store(tmp_path / "s.db") as store:
        for i in range(6):
            store.add_run(stored_run(50 + i, hosts=(f"node{i % 2}", f"node{i % 2}"),
                                     patterns=("pingpong", "osu_latency") if i % 3 == 0 else ("pingpong",)))
        store.set_label(1, "Nightly")
        statements: list[str] = []
        store.conn.set_trace_callback(statements.append)
        rows, total = store.find_runs(RunFilter(pattern="osu-*", host="NODE0", mpi="mpich", label="night",
                                                since=parse_since("2026-01-01"), source="msgperf"), newest=5)
        assert ([r.id for r in rows], total) == ([1], 1)  # osu_latency is read as osu-latency
        rows, total = store.find_runs(RunFilter(), newest=2)
        assert ([r.id for r in rows], total) == ([5, 6], 6)
        rows, total = store.find_runs(RunFilter(host="node1"), newest=2)
        assert ([r.id for r in rows], total) == ([4, 6], 3)
        store.conn.set_trace_callback(None)
        selects = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
        plans = {s: " | ".join(r[3] for r in store.conn.execute("EXPLAIN QUERY PLAN " + s)) for s in selects}
        for sql, plan in plans.items():
            reads_runs = "runs" in plan.replace("run_", "")
            if sql.startswith("SELECT id, start_time, added_at, source"):  # the rows returned, by id
                assert plan.startswith("SEARCH runs USING INTEGER PRIMARY KEY"), plan
            elif reads_runs and "LIMIT" not in sql:
                assert "COVERING INDEX" in plan, (sql, plan)
        assert any("SEARCH run_patterns USING PRIMARY KEY (pattern=?)" in p for p in plans.values())
        assert any("COVERING INDEX runs_label" in p for p in plans.values())


def test_the_indexed_filters_mean_what_runfilter_matches_means(tmp_path):
    """Every filter answered from the indexes selects exactly the runs RunFilter.matches (the one
    definition) selects, whatever form a start time takes: UTC with Z or +00:00, another offset,
    a fraction of a second, no offset (local), none at all (an import: the time it was added)."""
    times = ["2026-11-10T08:00:00Z", "2026-11-10T08:00:00+00:00", "2026-11-10T09:30:00+02:00",
             "2026-11-10T08:00:00.500000Z", "2026-11-10T08:00:01", "", "2026-11-10T07:59:59Z"]
    with open_store(tmp_path / "s.db") as store:
        for i, start in enumerate(times):
            store.add_run(stored_run(60 + i, start_time=start, hosts=(f"Node{i % 3}", f"node{i % 3}"),
                                     mpi="MPICH" if i % 2 else "Open MPI",
                                     patterns=("pingpong", "osu_bw") if i % 2 else ("exchange",)))
        store.set_label(2, "Ünïcode Label")
        rows = store.list_runs()
        filters = [RunFilter(since=parse_since(t)) for t in (
            "2026-11-10T08:00:00Z", "2026-11-10T08:00:00.25Z", "2026-11-10T08:00:00.75+00:00",
            "2026-11-10T07:30:00+00:00", "2026-11-10T08:00:01+00:00", "2000-01-01")]
        filters += [RunFilter(host="node1"), RunFilter(host="NODE"), RunFilter(label="ünïcode"),
                    RunFilter(mpi="open"), RunFilter(pattern="osu-*"), RunFilter(pattern="osu_bw"),
                    RunFilter(pattern="exch?nge"), RunFilter(pattern="nothing")]
        for f in filters:
            expected = [r.id for r in rows if f.matches(r)]
            assert [r.id for r in store.find_runs(f)[0]] == expected, f


def test_since_takes_ages():
    now = datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc)
    assert parse_since("7d", now) == datetime(2026, 11, 15, 12, 0, tzinfo=timezone.utc)
    assert parse_since("12h", now).hour == 0 and parse_since("2w", now).day == 8
    with pytest.raises(MsgperfError, match="--since 'yesterday'"):
        parse_since("yesterday")


def test_labels_and_missing_runs(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        run_id, _ = store.add_run(stored_run(20))
        store.set_label(run_id, "baseline")
        assert store.get_row(run_id).label == "baseline"
        store.set_label(run_id, "")
        assert store.get_row(run_id).label == ""
        with pytest.raises(MsgperfError, match="no run 99 in .*msgperf runs"):
            store.load_run(99)
        with pytest.raises(MsgperfError, match="no run 99"):
            store.set_label(99, "x")
        with pytest.raises(MsgperfError, match="one line"):
            store.set_label(run_id, "two\nlines")


def test_default_path_follows_msgperf_home_then_xdg(tmp_path, monkeypatch):
    monkeypatch.setenv("MSGPERF_HOME", str(tmp_path / "home"))
    assert default_path() == tmp_path / "home" / "msgperf.db"
    monkeypatch.delenv("MSGPERF_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_path() == tmp_path / "xdg" / "msgperf" / "msgperf.db"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    assert default_path() == tmp_path / "user" / ".local" / "share" / "msgperf" / "msgperf.db"


def test_open_store_without_a_path_uses_msgperf_home(tmp_path, monkeypatch):
    monkeypatch.setenv("MSGPERF_HOME", str(tmp_path / "deep" / "home"))
    with open_store() as store:
        store.add_run(stored_run(21))
    assert (tmp_path / "deep" / "home" / "msgperf.db").is_file()


def test_a_new_database_is_wal_at_the_latest_version(tmp_path):
    open_store(tmp_path / "s.db").close()
    conn = sqlite3.connect(tmp_path / "s.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == LATEST_VERSION
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID


def test_files_that_are_not_msgperf_databases_are_refused(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("hello, this is not a database at all\n" * 100)
    with pytest.raises(MsgperfError, match="notes.txt: not a usable msgperf database"):
        open_store(text)
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE accounts (id INTEGER)")
    with pytest.raises(MsgperfError, match="not msgperf's"):
        open_store(other)
    assert sqlite3.connect(other).execute("PRAGMA user_version").fetchone()[0] == 0  # untouched
    with pytest.raises(MsgperfError, match="is a directory"):
        open_store(tmp_path)


def test_a_database_from_a_newer_msgperf_is_refused(tmp_path):
    open_store(tmp_path / "s.db").close()
    conn = sqlite3.connect(tmp_path / "s.db")
    conn.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
    conn.close()
    with pytest.raises(MsgperfError, match=f"version {LATEST_VERSION + 1} is newer .* upgrade msgperf"):
        open_store(tmp_path / "s.db")


def test_corrupt_samples_are_reported_not_returned(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        run_id, _ = store.add_run(stored_run(22))
    conn = sqlite3.connect(tmp_path / "s.db")
    conn.execute("UPDATE measurements SET samples = ? WHERE seq = 0", (np.array([-1.0]).tobytes(),))
    conn.commit()
    conn.close()
    with open_store(tmp_path / "s.db") as store, pytest.raises(MsgperfError, match="measurement 0: stored samples are corrupt"):
        store.load_run(run_id)


def test_a_placement_both_run_is_listed_as_both(tmp_path):
    """--placement both measures a pair on a node and a pair across: the listing says both,
    not the first launch pair's 'intra-node'."""
    base = stored_run(21, hosts=("n1", "n1"))
    both = replace(
        base, info=replace(base.info, plan=replace(base.info.plan, placement="both")),
        measurements=tuple(replace(m, placement=p) for m in base.measurements for p in ("intra", "inter")))
    with open_store(tmp_path / "s.db") as store:
        store.add_run(base)
        store.add_run(both)
        assert [r.placement for r in store.list_runs()] == ["intra-node", "intra- and inter-node"]
