"""Exports: the documented column layout, exact numbers, and run file -> store -> export -> import."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import numpy as np
import pytest

from msgperf.errors import MsgperfError
from msgperf.commands.export import export_run
from msgperf.records.runfile_write import run_records
from msgperf.store.sample_table import COLUMN_NAMES, COLUMNS, sample_table
from msgperf.records.importers import load_file
from msgperf.records.export_json import parse_export
from msgperf.records.runfile_read import read_run
from msgperf.store.db import open_store
from msgperf.store.identity import content_hash
from tests.factories import assert_same_run, stored_run, write_run_file

DOCS = Path(__file__).resolve().parents[2] / "docs" / "store.md"


def stored(tmp_path, run, label=""):
    store = open_store(tmp_path / "s.db")
    run_id, _ = store.add_run(run, label=label)
    return store, run_id


def test_documented_columns_are_the_exported_ones():
    section = DOCS.read_text().split("### CSV and Parquet columns", 1)[1].split("\n## ", 1)[0]
    documented = re.findall(r"^\| `(\w+)` \| (\w+) \| (.+?) \|$", section, re.M)
    assert [(n, k, d) for n, k, d in documented] == [(c.name, c.kind, c.description) for c in COLUMNS]


def test_run_file_to_store_to_json_export_to_import_gives_the_same_run(tmp_path):
    original = read_run(write_run_file(stored_run(40), tmp_path / "run.jsonl")).run
    store, run_id = stored(tmp_path, original, label="baseline")
    exported = tmp_path / "export.json"
    export_run(store.load_run(run_id), store.get_row(run_id), "json", exported)
    result, meta = load_file(exported)
    assert_same_run(result.run, original)
    assert meta == {"id": run_id, "label": "baseline", "added_at": store.get_row(run_id).added_at,
                    "source_path": str(tmp_path / "run.jsonl")}
    assert content_hash(result.run) == content_hash(original)
    assert store.add_run(result.run) == (run_id, False)
    with open_store(tmp_path / "other.db") as other:  # a second machine
        new_id, added = other.add_run(result.run)
        assert added
        assert_same_run(other.load_run(new_id), original)


def test_run_format_export_is_a_run_file(tmp_path):
    run = stored_run(41)
    store, run_id = stored(tmp_path, run)
    export_run(store.load_run(run_id), None, "run", tmp_path / "copy.jsonl")
    assert_same_run(read_run(tmp_path / "copy.jsonl").run, run)


def test_csv_has_every_raw_sample_exactly(tmp_path):
    run = stored_run(42, patterns=("pingpong", "exchange"), samples=7)
    store, run_id = stored(tmp_path, run, label="x,y")
    out = io.StringIO()
    export_run(store.load_run(run_id), store.get_row(run_id), "csv", None, stdout=out)
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert list(rows[0]) == list(COLUMN_NAMES)
    assert len(rows) == len(run.measurements) * 7
    for m_index, m in enumerate(run.measurements):
        mine = [r for r in rows if int(r["measurement"]) == m_index]
        assert [float(r["sample_s"]) for r in mine] == m.samples_s.tolist()  # bit-exact
        assert [float(r["per_message_s"]) for r in mine] == (m.samples_s / m.divisor).tolist()
        assert {(r["pattern"], int(r["bytes"]), r["ranks"], r["validated"], r["run_id"], r["run_label"])
                for r in mine} == {(m.pattern, m.bytes, "0;1", "true", str(run_id), "x,y")}
    assert rows[0]["hosts"] == "node01" and rows[0]["mpi"] == "MPICH 5.0.2"


def test_parquet_has_the_same_table_and_all_metadata(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    run = stored_run(43, samples=9)
    store, run_id = stored(tmp_path, run)
    path = tmp_path / "run.parquet"
    export_run(store.load_run(run_id), store.get_row(run_id), "parquet", path)
    table = pq.read_table(path)
    assert table.column_names == list(COLUMN_NAMES)
    assert str(table.schema.field("bytes").type) == "int64" and str(table.schema.field("validated").type) == "bool"
    expected = sample_table(run, store.get_row(run_id))
    assert table.column("sample_s").to_pylist() == list(expected["sample_s"])
    assert table.column("run_id").to_pylist() == [run_id] * len(expected["sample_s"])
    meta = json.loads(table.schema.metadata[b"msgperf"])
    assert meta["records"] == [{k: v for k, v in r.items() if k != "samples_s"} for r in run_records(run)]


def test_exports_of_an_empty_run_have_just_a_header(tmp_path):
    run = stored_run(44)
    empty = type(run)(info=run.info, launches=run.launches, measurements=())
    out = io.StringIO()
    export_run(empty, None, "csv", None, stdout=out)
    assert out.getvalue() == ",".join(COLUMN_NAMES) + "\n"


def test_export_errors_name_the_fix(tmp_path):
    run = stored_run(45)
    with pytest.raises(MsgperfError, match="Parquet is binary: give an output file with -o"):
        export_run(run, None, "parquet", None)
    with pytest.raises(MsgperfError, match="no such directory"):
        export_run(run, None, "csv", tmp_path / "missing" / "x.csv")
    with pytest.raises(MsgperfError, match="is a directory"):
        export_run(run, None, "csv", tmp_path)
    with pytest.raises(MsgperfError, match="unknown export format 'xml'"):
        export_run(run, None, "xml", tmp_path / "x.xml")
    assert list(tmp_path.iterdir()) == []  # nothing half-written


def test_a_failed_export_leaves_no_file(tmp_path, monkeypatch):
    import msgperf.commands.export as export

    def explode(*args):
        raise RuntimeError("boom")

    monkeypatch.setitem(export._TEXT_WRITERS, "csv", explode)
    (tmp_path / "old.csv").write_text("previous\n")
    with pytest.raises(RuntimeError):
        export_run(stored_run(46), None, "csv", tmp_path / "old.csv")
    assert [p.name for p in tmp_path.iterdir()] == ["old.csv"]
    assert (tmp_path / "old.csv").read_text() == "previous\n"


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d.update(format="other"), r"bad.json, line 1: each line must be a JSON object"),
    (lambda d: d.update(export_version=99), "export version 99 is newer"),
    (lambda d: d.update(records={}), "'records' must be a list"),
    (lambda d: d["records"][2].update(samples_s=[1e-6, -1.0]), r"\(records\), line 3: sample 1 is -1.0"),
    (lambda d: d["records"].pop(0), "the first record must be a 'run' record"),
])
def test_a_damaged_json_export_is_refused_with_a_clear_error(tmp_path, mutate, message):
    out = io.StringIO()
    export_run(stored_run(47), None, "json", None, stdout=out)
    doc = json.loads(out.getvalue())
    mutate(doc)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(MsgperfError, match=message):
        load_file(path)


def test_a_cut_off_json_export_is_refused(tmp_path):
    out = io.StringIO()
    export_run(stored_run(49), None, "json", None, stdout=out)
    path = tmp_path / "cut.json"
    path.write_text(out.getvalue()[:-200])
    with pytest.raises(MsgperfError, match="cut.json: not valid JSON .* cut off"):
        load_file(path)
    with pytest.raises(MsgperfError, match="not a msgperf JSON export"):
        parse_export('{"format": "other"}', "x.json")


def test_sample_table_columns_have_one_value_per_sample():
    run = stored_run(48, samples=3)
    table = sample_table(run)
    n = 3 * len(run.measurements)
    assert set(table) == set(COLUMN_NAMES) and all(len(v) == n for v in table.values())
    assert np.array_equal(table["sample"], np.tile(np.arange(3), len(run.measurements)))
