"""The pandas API: runs, measurements and samples as DataFrames."""

from __future__ import annotations

import numpy as np
import pytest

from msgperf.store.sample_table import COLUMN_NAMES
from msgperf.store.db import open_store
from tests.factories import stored_run, write_run_file

pd = pytest.importorskip("pandas")
from msgperf import api  # noqa: E402


@pytest.fixture
def db(tmp_path):
    path = str(tmp_path / "s.db")
    with open_store(path) as store:
        store.add_run(stored_run(50, hosts=("alpha", "alpha"), samples=5), label="first")
        store.add_run(stored_run(51, hosts=("beta", "beta"), patterns=("pingpong", "exchange"), samples=6))
    return path


def test_runs_frame(db):
    frame = api.runs(db)
    assert list(frame["id"]) == [1, 2] and list(frame["label"]) == ["first", ""]
    assert frame.loc[1, "patterns"] == ("pingpong", "exchange")
    assert str(frame["start_time"].dtype).startswith("datetime64")
    assert list(api.runs(db, host="bet")["id"]) == [2]
    assert api.runs(db, pattern="nothing").empty


def test_measurements_frame_summarises_per_message_times(db):
    frame = api.measurements([1, 2], db)
    assert len(frame) == 5 + 10 and list(frame["run_id"].unique()) == [1, 2]
    run = stored_run(50, hosts=("alpha", "alpha"), samples=5)
    first = frame.iloc[0]
    per_message = run.measurements[0].samples_s / 100
    assert first["median_s"] == np.median(per_message) and first["n"] == 5
    assert first["min_s"] == per_message.min() and first["max_s"] == per_message.max()
    assert first["extra"] == {"calibration": {"reps": 50, "seed": 50}}


def test_samples_frame_has_the_export_columns(db, tmp_path):
    frame = api.samples(2, db)
    assert list(frame.columns) == list(COLUMN_NAMES) and len(frame) == 10 * 6
    run = stored_run(51, hosts=("beta", "beta"), patterns=("pingpong", "exchange"), samples=6)
    assert frame["sample_s"].tolist() == np.concatenate([m.samples_s for m in run.measurements]).tolist()
    from_file = api.samples(write_run_file(run, tmp_path / "r.jsonl"))
    assert from_file["run_id"].isna().all() and from_file["sample_s"].equals(frame["sample_s"])
    both = api.samples([1, run], db)
    assert len(both) == 5 * 5 + 60


def test_load_run(db):
    assert len(api.load_run(1, db).measurements) == 5
